"""TF1-era math helpers that legacy code still calls, built from TF's ops as TF 2.21's
``tf.compat.v1`` builds them: ``arg_max`` / ``arg_min`` (the raw ``ArgMax`` / ``ArgMin``),
``accumulate_n`` (an ``AddN`` after TF's checks), ``clip_by_average_norm``, and the
monotonicity tests ``is_non_decreasing`` / ``is_strictly_increasing`` (a ``tf.cond`` on
the size, then a reduction of neighbour differences)."""

from __future__ import annotations

from tfcompat.framework import dtypes, tensor_shape
from tfcompat.framework.constant_op import constant
from tfcompat.framework.op_helper import apply_op, convert_to_tensor
from tfcompat.framework.scopes import name_scope
from tfcompat.framework.tensor import Tensor
from tfcompat.util.tf_export import tf_export


def _tf():
    import tfcompat

    return tfcompat


@tf_export("arg_max")
def arg_max(input, dimension, output_type=dtypes.int64, name=None):  # noqa: A002
    """Index of the largest value along ``dimension`` (the raw ``ArgMax`` op)."""
    return apply_op(
        "ArgMax", name=name, input=input, dimension=dimension, output_type=output_type
    ).outputs[0]


@tf_export("arg_min")
def arg_min(input, dimension, output_type=dtypes.int64, name=None):  # noqa: A002
    """Index of the smallest value along ``dimension`` (the raw ``ArgMin`` op)."""
    return apply_op(
        "ArgMin", name=name, input=input, dimension=dimension, output_type=output_type
    ).outputs[0]


@tf_export("accumulate_n", "math.accumulate_n")
def accumulate_n(inputs, shape=None, tensor_dtype=None, name=None):
    """The sum of ``inputs`` (tensors of one dtype and compatible shapes): ``AddN``."""
    tf = _tf()

    def input_error():
        return ValueError(
            "inputs must be a list of at least one Tensor with the same dtype and shape"
        )

    if not inputs or not isinstance(inputs, (list, tuple)):
        raise input_error()
    inputs = [convert_to_tensor(x) for x in inputs]
    if not all(isinstance(x, Tensor) for x in inputs):
        raise input_error()
    if not all(x.dtype == inputs[0].dtype for x in inputs):
        raise input_error()
    merged = tensor_shape.unknown_shape() if shape is None else tensor_shape.as_shape(shape)
    for x in inputs:
        merged = merged.merge_with(x.shape)
    if tensor_dtype is not None and tensor_dtype != inputs[0].dtype:
        raise TypeError(
            f"The `tensor_dtype` argument is {tensor_dtype}, but `input` is of type "
            f"{inputs[0].dtype}. These must be equal. Try casting the input to the desired "
            "type."
        )
    if len(inputs) == 1:
        return inputs[0] if name is None else tf.identity(inputs[0], name=name)
    return tf.add_n(inputs, name=name)


@tf_export("clip_by_average_norm")
def clip_by_average_norm(t, clip_norm, name=None):
    """``t`` scaled so that its L2 norm divided by its number of elements is at most
    ``clip_norm``."""
    tf = _tf()
    with name_scope(name, "clip_by_average_norm", [t, clip_norm]) as name:
        t = convert_to_tensor(t, name="t")
        n_element = tf.cast(tf.size(t), dtypes.float32)
        l2norm_inv = tf.rsqrt(tf.reduce_sum(t * t, tf.range(tf.rank(t))))
        return tf.identity(
            t * clip_norm * tf.minimum(l2norm_inv * n_element, constant(1.0) / clip_norm),
            name=name,
        )


def _monotonic_comparison(x, compare):
    """``compare(x[1:], x[:-1])`` of the flattened ``x``, or an empty bool vector below two
    elements (TF's cond on the size)."""
    tf = _tf()
    x = tf.reshape(x, [-1])
    if not (x.dtype.is_floating or x.dtype.is_integer or x.dtype.is_complex):
        raise TypeError(f"Expected x to be numeric, instead found: {x}")
    is_shorter_than_two = tf.less(tf.size(x), 2)
    length = tf.shape(x) - 1
    return tf.cond(
        is_shorter_than_two,
        lambda: convert_to_tensor([], dtype=dtypes.bool),
        lambda: compare(tf.strided_slice(x, [1], [1] + length), tf.strided_slice(x, [0], length)),
    )


@tf_export("debugging.is_non_decreasing", "math.is_non_decreasing", "is_non_decreasing")
def is_non_decreasing(x, name=None):
    """Whether each element of the flattened ``x`` is >= the one before (True for fewer
    than two elements)."""
    tf = _tf()
    with name_scope(name, "is_non_decreasing", [x]):
        return tf.reduce_all(_monotonic_comparison(x, tf.greater_equal))


@tf_export(
    "debugging.is_strictly_increasing", "math.is_strictly_increasing", "is_strictly_increasing"
)
def is_strictly_increasing(x, name=None):
    """Whether each element of the flattened ``x`` is > the one before (True for fewer
    than two elements)."""
    tf = _tf()
    with name_scope(name, "is_strictly_increasing", [x]):
        return tf.reduce_all(_monotonic_comparison(x, tf.greater))
