"""Neural-network ops (TF's ``nn_ops``): activations, bias add, softmax, cross entropy,
``L2Loss`` and top-k.

OpDefs follow ``tensorflow/core/ops/nn_ops.cc``; wrappers build the graphs that TF 2.21's
``tf.compat.v1`` builds (same ops, same names), including the transposes TF inserts when
softmax works on an axis other than the last one.
"""

from __future__ import annotations

import collections

import numpy as np

from tfcompat.framework import dtypes, errors, tensor_shape
from tfcompat.framework.constant_value import constant_value
from tfcompat.framework.gradient_registry import RegisterGradient
from tfcompat.framework.op_def import register_op
from tfcompat.framework.op_helper import apply_op, convert_to_tensor
from tfcompat.framework.scopes import name_scope
from tfcompat.framework.tensor import Tensor
from tfcompat.framework.tensor_shape import TensorShape
from tfcompat.ops.activation_ops import (  # noqa: F401 - TF's nn_ops holds the activations
    elu,
    leaky_relu,
    relu,
    relu6,
    selu,
    softplus,
    softsign,
)
from tfcompat.util.tf_export import tf_export

_FLOAT = "{half, bfloat16, float, double}"


# ---------------------------------------------------------------------------------------------
# Shape-function helpers, worded as TF's C++ shape inference words its errors
# ---------------------------------------------------------------------------------------------
def with_rank_at_least(shape: TensorShape, rank: int) -> TensorShape:
    if shape.rank is not None and shape.rank < rank:
        raise ValueError(f"Shape must be at least rank {rank} but is rank {shape.rank}")
    return shape


def with_rank(shape: TensorShape, rank: int) -> TensorShape:
    if shape.rank is None:
        return tensor_shape.unknown_shape(rank=rank)
    if shape.rank != rank:
        raise ValueError(f"Shape must be rank {rank} but is rank {shape.rank}")
    return shape


def merge_dim(a, b):
    """The known one of two dimensions (ints or None); ValueError when both are known and
    differ."""
    if a is not None and b is not None and a != b:
        raise ValueError(f"Dimensions must be equal, but are {a} and {b}")
    return a if a is not None else b


def static_scalar(op, index: int):
    """The value of scalar input ``index`` when the graph determines it, else None; a
    negative value is rejected as TF rejects a negative dimension size."""
    value = constant_value(op.inputs[index])
    if value is None:
        return None
    value = int(np.asarray(value).reshape(()))
    if value < 0:
        raise ValueError(
            f"Dimension size, given by scalar input {index}, must be non-negative but is {value}"
        )
    return value


# ---------------------------------------------------------------------------------------------
# BiasAdd
# ---------------------------------------------------------------------------------------------
def _bias_add_shape(op):
    value, bias = op.inputs[0].shape, op.inputs[1].shape
    bias = with_rank(bias, 1)
    nchw = op.attrs.get("data_format", b"NHWC") == b"NCHW"
    if nchw and value.rank is None:
        return [value]
    value = with_rank_at_least(value, 3 if nchw else 2)
    if value.rank is None:
        return [value]
    dims = value.as_list()
    channel = 1 if nchw else -1
    dims[channel] = merge_dim(dims[channel], bias.as_list()[0])
    return [TensorShape(dims)]


register_op(
    "BiasAdd",
    inputs=["value: T", "bias: T"],
    outputs=["output: T"],
    attrs=["T: numbertype", "data_format: {'NHWC', 'NCHW'} = 'NHWC'"],
    shape_fn=_bias_add_shape,
)
# The pre-``data_format`` op, still found in old GraphDefs.
register_op(
    "BiasAddV1",
    inputs=["value: T", "bias: T"],
    outputs=["output: T"],
    attrs=["T: numbertype"],
    shape_fn=_bias_add_shape,
)


@tf_export("nn.bias_add")
def bias_add(value, bias, data_format=None, name=None):
    """Adds the 1-D ``bias`` along the channel dimension of ``value`` (the last one for
    ``N...C`` data formats, dimension 1 for ``NC...``)."""
    with name_scope(name, "BiasAdd", [value, bias]) as scope:
        if data_format is not None:
            if data_format.startswith("NC"):
                data_format = "NCHW"
            elif data_format.startswith("N") and data_format.endswith("C"):
                data_format = "NHWC"
            else:
                raise ValueError(
                    "`data_format` must be of the form `N...C` or `NC...`. Received: "
                    f"data_format={data_format}"
                )
        value = convert_to_tensor(value, name="input")
        bias = convert_to_tensor(bias, dtype=value.dtype, name="bias")
        return apply_op(
            "BiasAdd", name=scope, value=value, bias=bias, data_format=data_format
        ).outputs[0]


def _bias_add_grad_shape(op):
    """The bias gradient: one value per channel (dimension 1 for NCHW, the last else)."""
    nchw = op.attrs["data_format"] == b"NCHW"
    shape = with_rank_at_least(op.inputs[0].shape, 3 if nchw else 2)
    if shape.rank is None:
        return [tensor_shape.unknown_shape(rank=1)]
    return [TensorShape([shape.as_list()[1 if nchw else -1]])]


register_op(
    "BiasAddGrad",
    inputs=["out_backprop: T"],
    outputs=["output: T"],
    attrs=["T: numbertype", "data_format: {'NHWC', 'NCHW'} = 'NHWC'"],
    shape_fn=_bias_add_grad_shape,
)


def _bias_add_grad(out_backprop, data_format=None):
    return apply_op("BiasAddGrad", out_backprop=out_backprop, data_format=data_format).outputs[0]


@RegisterGradient("BiasAdd")
def _bias_add_gradient(op, received_grad):
    """The value gets the gradient itself, the bias its sum over all but the channels."""
    return received_grad, _bias_add_grad(received_grad, op.attrs["data_format"])


@RegisterGradient("BiasAddGrad")
def _bias_add_grad_gradient(op, received_grad):
    """BiasAddGrad sums over all but the channel dimension: its gradient broadcasts the
    channel values back, as a Reshape to ``[1, .., C, .., 1]`` and a Tile."""
    from tfcompat.ops import array_ops

    shape = array_ops.shape(op.inputs[0])
    bias_shape = array_ops.shape(received_grad)
    if op.attrs["data_format"] == b"NCHW":
        expanded_shape = array_ops.concat(
            [array_ops.ones_like(shape[:1]), bias_shape, array_ops.ones_like(shape[2:])], 0
        )
        tile_mults = array_ops.concat([shape[:1], [1], shape[2:]], 0)
    else:
        expanded_shape = array_ops.concat([array_ops.ones_like(shape[:-1]), bias_shape], 0)
        tile_mults = array_ops.concat([shape[:-1], [1]], 0)
    expanded_grad = array_ops.reshape(received_grad, expanded_shape)
    return array_ops.tile(expanded_grad, tile_mults)


@RegisterGradient("BiasAddV1")
def _bias_add_v1_gradient(op, received_grad):
    """As BiasAdd's (channels last), with the bias sum a ``Sum`` over ``range(rank - 1)``."""
    from tfcompat.ops import array_ops, reduction_ops

    reduction_dims = reduction_ops.range(array_ops.rank(received_grad) - 1)
    return received_grad, reduction_ops.reduce_sum(received_grad, reduction_dims)


# ---------------------------------------------------------------------------------------------
# Softmax and LogSoftmax
# ---------------------------------------------------------------------------------------------
def _softmax_shape(op):
    return [with_rank_at_least(op.inputs[0].shape, 1)]


register_op(
    "Softmax",
    inputs=["logits: T"],
    outputs=["softmax: T"],
    attrs=[f"T: {_FLOAT}"],
    shape_fn=_softmax_shape,
)
register_op(
    "LogSoftmax",
    inputs=["logits: T"],
    outputs=["logsoftmax: T"],
    attrs=[f"T: {_FLOAT}"],
    shape_fn=_softmax_shape,
)


def _swap_with_last(x, dim_index, last_index, name=None):
    """``x`` with dimensions ``dim_index`` and ``last_index`` exchanged, the permutation
    built from ranges and packs as TF builds it."""
    from tfcompat.ops import array_ops, reduction_ops

    perm = array_ops.concat(
        [
            reduction_ops.range(dim_index),
            [last_index],
            reduction_ops.range(dim_index + 1, last_index),
            [dim_index],
        ],
        0,
    )
    return array_ops.transpose(x, perm, name=name)


def _on_last_axis(op_type, inputs, dim, name):
    """Applies the last-axis op ``op_type`` along ``dim``: directly when ``dim`` is the last
    axis, else between two transposes that swap ``dim`` and the last axis."""
    from tfcompat.ops import array_ops, math_ops

    inputs = convert_to_tensor(inputs)
    shape = inputs.shape
    ndims = shape.rank
    if not isinstance(dim, Tensor) and dim != -1 and ndims is None:
        raise TypeError(
            f"{op_type} along axis {dim} needs the rank of its input to be known statically"
        )
    if not isinstance(dim, Tensor) and (dim == -1 or dim == ndims - 1):
        return apply_op(op_type, name=name, logits=inputs).outputs[0]

    dim_value = constant_value(dim) if isinstance(dim, Tensor) else dim
    if dim_value is not None and not -ndims <= int(dim_value) < ndims:
        raise errors.InvalidArgumentError(
            None,
            None,
            f"`dim` must be in the range [{-ndims}, {ndims}) where {ndims} is the number of "
            f"dimensions in the input. Received: dim={dim_value}",
        )
    rank = array_ops.rank(inputs)
    if not isinstance(dim, Tensor):
        if dim < 0:
            dim += rank
    else:
        dim = math_ops.where(math_ops.less(dim, 0), dim + rank, dim)
    input_rank = array_ops.rank(inputs)
    dim_axis = dim % ndims
    swapped = _swap_with_last(inputs, dim_axis, math_ops.subtract(input_rank, 1))
    output = apply_op(op_type, logits=swapped).outputs[0]
    output = _swap_with_last(output, dim_axis, math_ops.subtract(input_rank, 1), name=name)
    output.set_shape(shape)  # the transposes may lose the static shape
    return output


def _axis_or_dim(axis, dim):
    """TF's deprecated-argument lookup: ``dim`` is the old name of ``axis``."""
    if axis is not None and dim is not None:
        raise ValueError("Cannot specify both 'dim' and 'axis'.")
    return dim if axis is None else axis


@RegisterGradient("Softmax")
def _softmax_gradient(op, grad_softmax):
    """``(g - sum(g * s)) * s`` for softmax output ``s``: the Jacobian ``diag(s) - s s^T``
    applied without forming it."""
    from tfcompat.ops import reduction_ops

    softmax = op.outputs[0]
    sum_channels = reduction_ops.reduce_sum(grad_softmax * softmax, -1, keepdims=True)
    return (grad_softmax - sum_channels) * softmax


@RegisterGradient("LogSoftmax")
def _log_softmax_gradient(op, grad):
    """``g - sum(g) * softmax``, the softmax recovered as ``exp`` of the output."""
    from tfcompat.ops import math_ops, reduction_ops

    softmax = math_ops.exp(op.outputs[0])
    return grad - reduction_ops.reduce_sum(grad, -1, keepdims=True) * softmax


@tf_export("nn.softmax", "math.softmax")
def softmax(logits, axis=None, name=None, dim=None):
    """``exp(logits) / reduce_sum(exp(logits), axis)``, computed stably; ``dim`` is the
    deprecated name of ``axis`` (default -1)."""
    axis = _axis_or_dim(axis, dim)
    return _on_last_axis("Softmax", logits, -1 if axis is None else axis, name)


@tf_export("nn.log_softmax", "math.log_softmax")
def log_softmax(logits, axis=None, name=None, dim=None):
    """``logits - log(reduce_sum(exp(logits), axis))``; ``dim`` is the deprecated name of
    ``axis`` (default -1)."""
    axis = _axis_or_dim(axis, dim)
    return _on_last_axis("LogSoftmax", logits, -1 if axis is None else axis, name)


# ---------------------------------------------------------------------------------------------
# Cross entropy and L2Loss
# ---------------------------------------------------------------------------------------------
def _broadcast_batch(a, b):
    """Batch dimension of two rank-2 operands that may broadcast (one of them 1)."""
    if a == 1:
        return b
    if b == 1:
        return a
    return merge_dim(a, b)


def _xent_shape(op):
    features, labels = op.inputs[0].shape, op.inputs[1].shape
    if features.rank is None and labels.rank is None:
        return [tensor_shape.unknown_shape(rank=1), tensor_shape.unknown_shape(rank=2)]
    for shape in (features, labels):
        if shape.rank is not None and shape.rank != 2:
            raise ValueError(f"Shape must be broadcasted with rank 2, but is rank {shape.rank}")
    f = features.as_list() if features.rank is not None else [None, None]
    lab = labels.as_list() if labels.rank is not None else [None, None]
    if features.rank is None or labels.rank is None:
        batch = f[0] if features.rank is not None else lab[0]
    else:
        batch = _broadcast_batch(f[0], lab[0])
    classes = merge_dim(f[1], lab[1])
    return [TensorShape([batch]), TensorShape([batch, classes])]


register_op(
    "SoftmaxCrossEntropyWithLogits",
    inputs=["features: T", "labels: T"],
    outputs=["loss: T", "backprop: T"],
    attrs=[f"T: {_FLOAT}"],
    shape_fn=_xent_shape,
)


def _sparse_xent_shape(op):
    features = with_rank(op.inputs[0].shape, 2)
    labels = with_rank(op.inputs[1].shape, 1)
    batch = merge_dim(features.as_list()[0], labels.as_list()[0])
    return [TensorShape([batch]), TensorShape([batch, features.as_list()[1]])]


register_op(
    "SparseSoftmaxCrossEntropyWithLogits",
    inputs=["features: T", "labels: Tlabels"],
    outputs=["loss: T", "backprop: T"],
    attrs=[f"T: {_FLOAT}", "Tlabels: {int32, int64} = int64"],
    shape_fn=_sparse_xent_shape,
)


def _broadcast_mul(vec, mat):
    """``vec[:, None] * mat``: one factor per row of a matrix."""
    from tfcompat.ops import array_ops

    return array_ops.expand_dims(vec, -1) * mat


def _xent_logits_gradient(op, grad_loss, grad_grad):
    """The logits' gradient of both cross-entropy ops: ``grad_loss`` times the backprop
    output, plus, when the backprop output itself receives a gradient (a second
    derivative), that gradient through the softmax Jacobian. Zeros that ``tf.gradients``
    filled in for an unused backprop output are skipped, as TF skips them."""
    from tfcompat.ops import array_ops, math_ops

    grad = _broadcast_mul(grad_loss, op.outputs[1])
    logits = op.inputs[0]
    if grad_grad is not None and not getattr(grad_grad, "_is_zeros_tensor", False):
        softmax = apply_op("Softmax", logits=logits).outputs[0]
        projected = array_ops.squeeze(
            math_ops.matmul(array_ops.expand_dims(grad_grad, 1), array_ops.expand_dims(softmax, 2)),
            axis=1,
        )
        grad += (grad_grad - projected) * softmax
    return grad


@RegisterGradient("SoftmaxCrossEntropyWithLogits")
def _xent_gradient(op, grad_loss, grad_grad):
    """Logits as above; the labels get ``-grad_loss * log_softmax(logits)``."""
    grad = _xent_logits_gradient(op, grad_loss, grad_grad)
    log_softmax = apply_op("LogSoftmax", logits=op.inputs[0]).outputs[0]
    return grad, _broadcast_mul(grad_loss, -log_softmax)


@RegisterGradient("SparseSoftmaxCrossEntropyWithLogits")
def _sparse_xent_gradient(op, grad_loss, grad_grad):
    """Logits as above; integer labels get no gradient."""
    return _xent_logits_gradient(op, grad_loss, grad_grad), None


register_op(
    "L2Loss",
    inputs=["t: T"],
    outputs=["output: T"],
    attrs=[f"T: {_FLOAT}"],
    shape_fn=lambda op: [tensor_shape.scalar()],
)


@RegisterGradient("L2Loss")
def _l2_loss_gradient(op, grad):
    return op.inputs[0] * grad


@tf_export("nn.l2_loss")
def l2_loss(t, name=None):
    """``sum(t ** 2) / 2``."""
    return apply_op("L2Loss", name=name, t=t).outputs[0]


def _ensure_xent_args(name, labels, logits):
    if labels is None or logits is None:
        raise ValueError(
            f"Both `labels` and `logits` must be provided for {name}"
            f"Received: labels={labels} and logits={logits}"
        )


def _flatten_outer_dims(x):
    """``x`` reshaped to a matrix ``[-1, last_dim]``, with the static shape TF gives it."""
    from tfcompat.ops import array_ops, math_ops

    rank = array_ops.rank(x)
    last_dim_size = array_ops.slice(array_ops.shape(x), [math_ops.subtract(rank, 1)], [1])
    output = array_ops.reshape(x, array_ops.concat([[-1], last_dim_size], 0))
    if x.shape.rank is not None:
        dims = x.shape.as_list()
        if all(d is not None for d in dims[:-1]):
            output.set_shape([int(np.prod(dims[:-1], dtype=np.int64)), dims[-1]])
    return output


def _move_axis_to_end(x, axis, rank):
    """``x`` transposed so that dimension ``axis`` (an int) comes last."""
    from tfcompat.ops import array_ops, reduction_ops

    perm = array_ops.concat(
        [reduction_ops.range(axis), reduction_ops.range(axis + 1, rank), [axis]], 0
    )
    return array_ops.transpose(x, perm)


@tf_export("nn.softmax_cross_entropy_with_logits_v2")
def softmax_cross_entropy_with_logits_v2(labels, logits, axis=None, name=None, dim=None):
    """Cross entropy between the distributions ``labels`` and ``softmax(logits)`` along
    ``axis`` (default -1): one loss per remaining position. Gradients flow into both."""
    from tfcompat.ops import array_ops, math_ops

    axis = _axis_or_dim(axis, dim)
    axis = -1 if axis is None else axis
    with name_scope(name, "softmax_cross_entropy_with_logits", [logits, labels]) as scope:
        logits = convert_to_tensor(logits, name="logits")
        labels = convert_to_tensor(labels, name="labels")
        # Half-precision inputs are computed in float32, as TF does.
        widen = logits.dtype in (dtypes.float16, dtypes.bfloat16)
        precise_logits = math_ops.cast(logits, dtypes.float32) if widen else logits
        labels = math_ops.cast(labels, precise_logits.dtype)
        input_rank = array_ops.rank(precise_logits)
        shape = logits.shape
        if axis != -1:
            precise_logits = _move_axis_to_end(precise_logits, axis, input_rank)
            labels = _move_axis_to_end(labels, axis, input_rank)
        input_shape = array_ops.shape(precise_logits)
        precise_logits = _flatten_outer_dims(precise_logits)
        labels = _flatten_outer_dims(labels)
        cost = apply_op(
            "SoftmaxCrossEntropyWithLogits", name=scope, features=precise_logits, labels=labels
        ).outputs[0]
        output_shape = array_ops.slice(input_shape, [0], [math_ops.subtract(input_rank, 1)])
        cost = array_ops.reshape(cost, output_shape)
        if shape.rank is not None:
            dims = shape.as_list()
            del dims[axis]
            cost.set_shape(dims)
        return math_ops.cast(cost, logits.dtype) if widen else cost


@tf_export("nn.softmax_cross_entropy_with_logits")
def softmax_cross_entropy_with_logits(labels=None, logits=None, dim=-1, name=None, axis=None):
    """The TF1 softmax cross entropy: as ``softmax_cross_entropy_with_logits_v2`` but no
    gradient flows into ``labels`` (they pass through ``StopGradient``)."""
    from tfcompat.ops import array_ops

    dim = _axis_or_dim(axis, dim)  # TF too rejects ``axis`` unless ``dim=None`` is passed
    _ensure_xent_args("softmax_cross_entropy_with_logits", labels, logits)
    with name_scope(name, "softmax_cross_entropy_with_logits_sg", [logits, labels]) as scope:
        labels = array_ops.stop_gradient(labels, name="labels_stop_gradient")
    return softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits, axis=dim, name=scope)


def _shape_equality_checks(labels, logits):
    """Run-time check that ``labels``' shape is ``logits``' without the last dimension, as
    TF adds when the static shapes cannot prove it (an ``assert_equal``)."""
    from tfcompat.ops import array_ops

    try:
        from tfcompat.ops import check_ops
    except ImportError:
        # Without the assertion ops the graph lacks TF's check; valid inputs compute the
        # same, and mismatched ones fail in the Reshape instead.
        return []
    return [check_ops.assert_equal(array_ops.shape(labels), array_ops.shape(logits)[:-1])]


@tf_export("nn.sparse_softmax_cross_entropy_with_logits")
def sparse_softmax_cross_entropy_with_logits(labels=None, logits=None, name=None):
    """Cross entropy between class indices ``labels`` (shape ``logits.shape[:-1]``, values
    in ``[0, num_classes)``) and ``softmax(logits)`` along the last axis."""
    from tfcompat.framework.scopes import control_dependencies
    from tfcompat.ops import array_ops, math_ops

    _ensure_xent_args("sparse_softmax_cross_entropy_with_logits", labels, logits)
    with name_scope(name, "SparseSoftmaxCrossEntropyWithLogits", [labels, logits]):
        labels = convert_to_tensor(labels)
        logits = convert_to_tensor(logits)
        widen = logits.dtype == dtypes.float16
        precise_logits = math_ops.cast(logits, dtypes.float32) if widen else logits
        labels_static_shape = labels.shape
        labels_shape = array_ops.shape(labels)
        logits_rank = logits.shape.rank
        static_shapes_fully_defined = (
            labels_static_shape.is_fully_defined() and logits.shape[:-1].is_fully_defined()
        )
        _check_sparse_xent_shapes(labels_static_shape, logits.shape, static_shapes_fully_defined)

        def finish(cost):
            return math_ops.cast(cost, dtypes.float16) if widen else cost

        if logits_rank == 2:
            return finish(_sparse_xent_op(precise_logits, labels, name))
        checks = [] if static_shapes_fully_defined else _shape_equality_checks(labels, logits)
        with control_dependencies(checks):
            num_classes = array_ops.shape(logits)[array_ops.rank(logits) - 1]
            precise_logits = array_ops.reshape(precise_logits, [-1, num_classes])
            labels = array_ops.reshape(labels, [-1])
            cost = _sparse_xent_op(precise_logits, labels, name)
            cost = array_ops.reshape(cost, labels_shape)
            cost.set_shape(labels_static_shape)
            return finish(cost)


def _sparse_xent_op(logits, labels, name):
    return apply_op(
        "SparseSoftmaxCrossEntropyWithLogits", name=name, features=logits, labels=labels
    ).outputs[0]


def _check_sparse_xent_shapes(labels_shape, logits_shape, fully_defined):
    if logits_shape.rank == 0:
        raise ValueError(f"`logits` cannot be a scalar. Received logits={logits_shape}`")
    if (
        logits_shape.rank is not None
        and labels_shape.rank is not None
        and labels_shape.rank != logits_shape.rank - 1
    ):
        raise ValueError(
            "`labels.shape.rank` must equal `logits.shape.rank - 1`. Received: "
            f"labels.shape={labels_shape} of rank {labels_shape.rank} and "
            f"logits.shape={logits_shape} of rank {logits_shape.rank}"
        )
    if fully_defined and labels_shape != logits_shape[:-1]:
        raise ValueError(
            "`labels.shape` must equal `logits.shape` except for the last dimension. "
            f"Received: labels.shape={labels_shape} and logits.shape={logits_shape}"
        )


# ---------------------------------------------------------------------------------------------
# TopKV2
# ---------------------------------------------------------------------------------------------
def _top_k_shape(op):
    shape = with_rank_at_least(op.inputs[0].shape, 1)
    k_rank = op.inputs[1].shape.rank
    if k_rank not in (None, 0):
        raise ValueError(f"Input must be scalar but has rank {k_rank}")
    k = static_scalar(op, 1)
    if shape.rank is None:
        return [shape, shape]
    dims = shape.as_list()
    if k is not None and dims[-1] is not None and dims[-1] < k:
        raise ValueError(f"input must have last dimension >= k = {k} but is {dims[-1]}")
    out = TensorShape(dims[:-1] + [k])
    return [out, out]


register_op(
    "TopKV2",
    inputs=["input: T", "k: Tk"],
    outputs=["values: T", "indices: index_type"],
    attrs=[
        "sorted: bool = true",
        "T: realnumbertype",
        "Tk: {int16, int32, int64} = int32",
        "index_type: {int16, int32, int64} = int32",
    ],
    shape_fn=_top_k_shape,
)

TopKV2 = collections.namedtuple("TopKV2", ["values", "indices"])


@tf_export("nn.top_k", "math.top_k")
def top_k(input, k=1, sorted=True, index_type=dtypes.int32, name=None):  # noqa: A002
    """The ``k`` largest entries of the last dimension and their indices; equal values
    keep their order (lower index first)."""
    op = apply_op("TopKV2", name=name, input=input, k=k, sorted=sorted, index_type=index_type)
    return TopKV2(*op.outputs)


@RegisterGradient("TopKV2")
def _top_k_gradient(op, grad, _):
    """Scatters ``grad`` back to the positions the values came from: indices are made
    linear over the flattened input (row offset plus column), then ``ScatterNd`` into
    zeros of the input's size and a reshape. The indices output gets a scalar zero."""
    from tfcompat.ops import array_ops, math_ops, reduction_ops

    in_shape = array_ops.shape(op.inputs[0])
    ind_shape = array_ops.shape(op.outputs[1])
    # The row offsets are computed in int64 (TF: int32 is unsupported there on GPU).
    ind_lastdim = array_ops.gather(
        math_ops.cast(ind_shape, dtypes.int64), array_ops.size(ind_shape) - 1
    )
    ind_2d = array_ops.reshape(op.outputs[1], array_ops.stack([-1, ind_lastdim]))
    in_lastdim = array_ops.gather(
        math_ops.cast(in_shape, dtypes.int64), array_ops.size(in_shape) - 1
    )
    outerdim = array_ops.shape(ind_2d)[0]
    row_starts = reduction_ops.range(
        0, math_ops.cast(outerdim, dtypes.int64) * in_lastdim, in_lastdim
    )
    ind = array_ops.reshape(
        ind_2d + math_ops.cast(array_ops.expand_dims(row_starts, -1), dtypes.int32), [-1]
    )
    scattered = array_ops.scatter_nd(
        array_ops.expand_dims(ind, -1),
        array_ops.reshape(grad, [-1]),
        [reduction_ops.reduce_prod(in_shape)],
    )
    return [array_ops.reshape(scattered, in_shape), array_ops.zeros([], dtype=dtypes.int32)]


# ---------------------------------------------------------------------------------------------
# PreventGradient (an array op in TF): identity forward, an error when differentiated
# ---------------------------------------------------------------------------------------------
register_op(
    "PreventGradient",
    inputs=["input: T"],
    outputs=["output: T"],
    attrs=["T: type", "message: string = ''"],
    shape_fn=lambda op: [op.inputs[0].shape],
)


def prevent_gradient(input, message="", name=None):  # noqa: A002 - TF's argument name
    """``input`` unchanged; ``tf.gradients`` through it raises LookupError with
    ``message``."""
    return apply_op("PreventGradient", name=name, input=input, message=message).outputs[0]


@RegisterGradient("PreventGradient")
def _prevent_gradient_gradient(op, _):
    raise LookupError(f"Gradient explicitly disabled. Reason: {op.attrs['message']!r}")
