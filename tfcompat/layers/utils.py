"""Helpers of the ``tf.layers`` layers: ``smart_cond`` on a Python or tensor ``training``
flag, Keras's argument normalization (data formats, tuples, padding), convolution output
lengths, and the ``Tensordot`` graph a Dense layer builds for inputs of rank above 2."""

from __future__ import annotations

import numpy as np

from tfcompat.framework.tensor import Tensor


def constant_value(pred):
    """``pred`` as a Python bool when known at graph construction, else None."""
    from tfcompat.framework.constant_value import constant_value as static_value
    from tfcompat.variables import Variable

    if isinstance(pred, Tensor):
        value = static_value(pred)
        return None if value is None else bool(value)
    if isinstance(pred, Variable):
        return None
    if isinstance(pred, (bool, np.bool_)) or pred in (0, 1):
        return bool(pred)
    raise TypeError(f"`pred` must be a Tensor, or a Python bool, or 1 or 0. Received: pred={pred}")


def smart_cond(pred, true_fn, false_fn):
    """Calls one branch when ``pred`` is known now, else builds ``tf.cond``."""
    value = constant_value(pred)
    if value is None:
        from tfcompat.ops.control_flow_ops import cond

        return cond(pred, true_fn, false_fn)
    return true_fn() if value else false_fn()


def normalize_data_format(value):
    """``channels_last`` (the default) or ``channels_first``."""
    if value is None:
        return "channels_last"
    data_format = value.lower()
    if data_format not in {"channels_first", "channels_last"}:
        raise ValueError(
            'The `data_format` argument must be one of "channels_first", "channels_last". '
            f"Received: {value}"
        )
    return data_format


def convert_data_format(data_format, ndim):
    """Keras's data format as TF's op attr for inputs of rank ``ndim`` (``NHWC``...)."""
    formats = {
        "channels_last": {3: "NWC", 4: "NHWC", 5: "NDHWC"},
        "channels_first": {3: "NCW", 4: "NCHW", 5: "NCDHW"},
    }
    if data_format not in formats:
        raise ValueError(f"Invalid data_format: {data_format}")
    if ndim not in formats[data_format]:
        raise ValueError(f"Input rank not supported: {ndim}")
    return formats[data_format][ndim]


def normalize_tuple(value, n, name, allow_zero=False):
    """An int or an iterable of ``n`` ints as a tuple of ``n`` ints (Keras's checks and
    messages)."""
    error = f"The `{name}` argument must be a tuple of {n} integers. Received: {value}"
    if isinstance(value, int):
        values = (value,) * n
    else:
        try:
            values = tuple(value)
        except TypeError:
            raise ValueError(error) from None
        if len(values) != n:
            raise ValueError(error)
        for single in values:
            try:
                int(single)
            except (ValueError, TypeError):
                raise ValueError(
                    f"{error}including element {single} of type {type(single)}"
                ) from None
    bad = {v for v in values if v < 0 or (v == 0 and not allow_zero)}
    if bad:
        requirement = ">= 0" if allow_zero else "> 0"
        raise ValueError(
            f"{error} including {bad} that does not satisfy the requirement `{requirement}`."
        )
    return values


def dims_text(shape):
    """``tuple(shape)`` as TF1 prints it in messages: ``(Dimension(None), Dimension(3))``."""
    return (
        "("
        + ", ".join(f"Dimension({d})" for d in shape.as_list())
        + (",)" if shape.rank == 1 else ")")
    )


def normalize_padding(value):
    """``valid``, ``same`` or ``causal`` (lower case)."""
    padding = value.lower()
    if padding not in {"valid", "same", "causal"}:
        raise ValueError(
            'The `padding` argument must be a list/tuple or one of "valid", "same" (or '
            f'"causal", only for `Conv1D). Received: {padding}'
        )
    return padding


def conv_output_length(length, filter_size, padding, stride, dilation=1):
    """Output length of a convolution or pooling window over ``length`` inputs."""
    if length is None:
        return None
    dilated = filter_size + (filter_size - 1) * (dilation - 1)
    if padding in ("same", "causal"):
        out = length
    else:  # valid
        out = length - dilated + 1
    return (out + stride - 1) // stride


def deconv_output_length(length, filter_size, padding, stride, dilation=1, output_padding=None):
    """Output length of a transposed convolution (Keras's ``deconv_output_length``)."""
    if length is None:
        return None
    filter_size = filter_size + (filter_size - 1) * (dilation - 1)
    if output_padding is None:
        if padding == "valid":
            return length * stride + max(filter_size - stride, 0)
        if padding == "full":
            return length * stride - (stride + filter_size - 2)
        return length * stride  # same
    pad = {"same": filter_size // 2, "valid": 0, "full": filter_size - 1}[padding]
    return (length - 1) * stride + filter_size - 2 * pad + output_padding


def tensordot_last_axis(a, b):
    """``tf.tensordot(a, b, [[rank - 1], [0]])`` for a 2-D ``b`` of static shape, building
    TF's ``Tensordot`` graph (static reshapes when ``a``'s shape is fully known, ``Shape`` /
    ``GatherV2`` / ``Prod`` arithmetic otherwise)."""
    from tfcompat.framework.constant_op import constant
    from tfcompat.framework.op_helper import convert_to_tensor
    from tfcompat.framework.scopes import name_scope
    from tfcompat.ops import array_ops, join_ops, math_ops

    with name_scope(None, "Tensordot", [a, b]) as scope:
        a = convert_to_tensor(a, name="a")
        b = convert_to_tensor(b, name="b")
        rank = a.shape.rank
        axes, free = [rank - 1], list(range(rank - 1))
        b_free = b.shape.as_list()[1:]
        dims = a.shape.as_list()
        if a.shape.is_fully_defined():
            free_dims = [dims[i] for i in free]
            new_shape = [int(np.prod(free_dims)), dims[-1]]
            reshaped = a if dims == new_shape else array_ops.reshape(a, new_shape)
            product = math_ops.matmul(reshaped, b)
            if product.shape.as_list() == free_dims + b_free:
                return product
            return array_ops.reshape(product, free_dims + b_free, name=scope)
        static_free = [dims[i] for i in free]
        axes_t = constant(np.asarray(axes, np.int32), name="axes")
        free_t = constant(np.asarray(free, np.int32), name="free")
        shape_a = array_ops.shape(a)
        from tfcompat.ops.gather_ops import gather
        from tfcompat.ops.reduction_ops import reduce_prod

        free_dims = gather(shape_a, free_t)
        axes_dims = gather(shape_a, axes_t)
        prod_free = reduce_prod(free_dims)
        prod_axes = reduce_prod(axes_dims)
        perm = join_ops.concat([free_t, axes_t], 0)
        new_shape = join_ops.stack([prod_free, prod_axes])
        reshaped = array_ops.reshape(array_ops.transpose(a, perm), new_shape)
        product = math_ops.matmul(reshaped, b)
        b_free_t = constant(np.asarray(b_free, np.int32))
        result = array_ops.reshape(product, join_ops.concat([free_dims, b_free_t], 0), name=scope)
        if None not in b_free:
            result.set_shape(static_free + b_free)
        return result
