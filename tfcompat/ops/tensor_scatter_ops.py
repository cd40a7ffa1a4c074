"""``tf.tensor_scatter_nd_update`` / ``_add`` / ``_sub`` (TF's ``TensorScatter*`` ops: a
copy of ``tensor`` with the rows or elements at ``indices`` replaced, added to or subtracted
from), ``tf.roll`` (``Roll``), and composites TF builds from other ops: ``tf.meshgrid``,
``tf.math.unsorted_segment_mean`` / ``_sqrt_n``. Gradients as TF's."""

from __future__ import annotations

from tfcompat.framework.constant_value import constant_value
from tfcompat.framework.gradient_registry import RegisterGradient
from tfcompat.framework.op_def import register_op
from tfcompat.framework.op_helper import apply_op, convert_to_tensor
from tfcompat.framework.scopes import name_scope
from tfcompat.util.tf_export import tf_export

# TF 2.21 allows 16-bit indices for updates only.
_INDEX_TYPES = {
    "Update": "int16, int32, int64, uint16",
    "Add": "int32, int64",
    "Sub": "int32, int64",
    "Max": "int32, int64",
    "Min": "int32, int64",
}
for _kind, _index_types in _INDEX_TYPES.items():
    register_op(
        f"TensorScatter{_kind}",
        inputs=["tensor: T", "indices: Tindices", "updates: T"],
        outputs=["output: T"],
        attrs=[
            "T: type",
            f"Tindices: {{{_index_types}}}",
            "bad_indices_policy: string = ''",
        ],
        shape_fn=lambda op: [op.inputs[0].shape],
    )
register_op(
    "Roll",
    inputs=["input: T", "shift: Tshift", "axis: Taxis"],
    outputs=["output: T"],
    attrs=["T: type", "Tshift: {int32, int64}", "Taxis: {int32, int64}"],
    shape_fn=lambda op: [op.inputs[0].shape],
)


def _scatter(kind):
    def scatter(tensor, indices, updates, name=None):
        return apply_op(
            f"TensorScatter{kind}", name=name, tensor=tensor, indices=indices, updates=updates
        ).outputs[0]

    verb = {"Max": "maximum taken", "Min": "minimum taken"}.get(kind, f"{kind.lower()}d")
    scatter.__doc__ = f"A copy of ``tensor`` with ``updates`` {verb} at ``indices``."
    return scatter


tensor_scatter_update = tf_export("tensor_scatter_nd_update", "tensor_scatter_update")(
    _scatter("Update")
)
tensor_scatter_add = tf_export("tensor_scatter_nd_add", "tensor_scatter_add")(_scatter("Add"))
tensor_scatter_sub = tf_export("tensor_scatter_nd_sub", "tensor_scatter_sub")(_scatter("Sub"))
tensor_scatter_max = tf_export("tensor_scatter_nd_max")(_scatter("Max"))
tensor_scatter_min = tf_export("tensor_scatter_nd_min")(_scatter("Min"))


@RegisterGradient("TensorScatterUpdate")
def _tensor_scatter_update_grad(op, grad):
    from tfcompat.ops import array_ops, gather_ops

    indices = op.inputs[1]
    updates_grad = gather_ops.gather_nd(grad, indices)
    zeros = array_ops.zeros_like(op.inputs[2], dtype=grad.dtype)
    tensor_grad = tensor_scatter_update(array_ops.identity(grad), indices, zeros)
    return [tensor_grad, None, updates_grad]


@RegisterGradient("TensorScatterAdd")
def _tensor_scatter_add_grad(op, grad):
    from tfcompat.ops import array_ops, gather_ops

    return [array_ops.identity(grad), None, gather_ops.gather_nd(grad, op.inputs[1])]


@RegisterGradient("TensorScatterSub")
def _tensor_scatter_sub_grad(op, grad):
    from tfcompat.ops import array_ops, gather_ops

    return [array_ops.identity(grad), None, -gather_ops.gather_nd(grad, op.inputs[1])]


@tf_export("roll", "manip.roll")
def roll(input, shift, axis, name=None):  # noqa: A002 - TF's argument name
    """Elements shifted by ``shift`` along ``axis`` (wrapping around)."""
    return apply_op("Roll", name=name, input=input, shift=shift, axis=axis).outputs[0]


@RegisterGradient("Roll")
def _roll_grad(op, grad):
    return [roll(grad, -op.inputs[1], op.inputs[2]), None, None]


@tf_export("meshgrid")
def meshgrid(*args, **kwargs):
    """N-D coordinate arrays from 1-D ``args`` (``indexing`` "xy", Cartesian, or "ij")."""
    from tfcompat.ops import array_ops, join_ops

    indexing = kwargs.pop("indexing", "xy")
    name = kwargs.pop("name", "meshgrid")
    if kwargs:
        raise TypeError(f"'{next(iter(kwargs))}' is an invalid keyword argument for this function")
    if indexing not in ("xy", "ij"):
        raise ValueError(
            f"Argument `indexing` parameter must be either 'xy' or 'ij', got '{indexing}'"
        )
    with name_scope(name, "meshgrid", args):
        ndim = len(args)
        if not ndim:
            return []
        ones = (1,) * ndim
        output = [
            array_ops.reshape(join_ops.stack(x), ones[:i] + (-1,) + ones[i + 1 :])
            for i, x in enumerate(args)
        ]
        shapes = [array_ops.size(x) for x in args]
        dtype = convert_to_tensor(args[0]).dtype.base_dtype
        if indexing == "xy" and ndim > 1:
            output[0] = array_ops.reshape(output[0], (1, -1) + (1,) * (ndim - 2))
            output[1] = array_ops.reshape(output[1], (-1, 1) + (1,) * (ndim - 2))
            shapes[0], shapes[1] = shapes[1], shapes[0]
        factor = array_ops.ones(shapes, dtype)
        return [x * factor for x in output]


def _segment_counts(data, segment_ids, num_segments):
    from tfcompat.ops import array_ops, math_ops, segment_ops

    num_segments = convert_to_tensor(num_segments)
    ones = array_ops.ones(array_ops.shape_internal(segment_ids), dtype=data.dtype)
    n = segment_ops.unsorted_segment_sum(ones, segment_ids, num_segments)
    shape = array_ops.concat(
        [
            num_segments[None],
            array_ops.ones(
                [array_ops.rank(data) - array_ops.rank(segment_ids)], dtype=num_segments.dtype
            ),
        ],
        0,
    )
    counts = math_ops.maximum(array_ops.reshape(n, shape), 1)
    # TF's shape inference folds that shape (Rank of known ranks): so does this.
    segments = constant_value(num_segments)
    if segments is not None and data.shape.rank is not None and segment_ids.shape.rank is not None:
        extra = data.shape.rank - segment_ids.shape.rank
        counts.set_shape([int(segments)] + [1] * extra)
    return counts


def _with_segment_shape(result, summed):
    """The static shape TF's shape inference gives (that of the segment sum), which the
    count's reshape to a computed shape would otherwise lose here."""
    result.set_shape(summed.shape)
    return result


@tf_export("math.unsorted_segment_mean", "unsorted_segment_mean")
def unsorted_segment_mean(data, segment_ids, num_segments, name=None):
    """The mean of each segment's rows (0 for an empty segment)."""
    from tfcompat.ops import segment_ops

    with name_scope(name, "UnsortedSegmentMean"):
        data, segment_ids = convert_to_tensor(data), convert_to_tensor(segment_ids)
        n = _segment_counts(data, segment_ids, num_segments)
        summed = segment_ops.unsorted_segment_sum(data, segment_ids, num_segments)
        return _with_segment_shape(summed / n, summed)


@tf_export("math.unsorted_segment_sqrt_n", "unsorted_segment_sqrt_n")
def unsorted_segment_sqrt_n(data, segment_ids, num_segments, name=None):
    """Each segment's sum divided by the square root of its size."""
    from tfcompat.ops import math_ops, segment_ops

    with name_scope(name, "UnsortedSegmentSqrtN"):
        data, segment_ids = convert_to_tensor(data), convert_to_tensor(segment_ids)
        n = _segment_counts(data, segment_ids, num_segments)
        summed = segment_ops.unsorted_segment_sum(data, segment_ids, num_segments)
        return _with_segment_shape(summed / math_ops.sqrt(n), summed)


@RegisterGradient("TensorScatterMax")
@RegisterGradient("TensorScatterMin")
def _tensor_scatter_min_or_max_grad(op, grad):
    """TF's: the gradient goes to the elements equal to the output, split between ties."""
    from tfcompat.framework import dtypes
    from tfcompat.ops import array_ops, gather_ops, math_ops

    indices, x, y, output = op.inputs[1], op.inputs[0], op.inputs[2], op.outputs[0]
    x_indicators = math_ops.cast(math_ops.equal(x, output), grad.dtype)
    y_output = gather_ops.gather_nd(output, indices)
    y_indicators = math_ops.cast(math_ops.equal(y, y_output), grad.dtype)
    shape = array_ops.shape(x, out_type=indices.dtype.base_dtype or dtypes.int32)
    ys_indicators = gather_ops.scatter_nd(indices, y_indicators, shape)
    indicators = x_indicators + ys_indicators  # every element is >= 1
    x_grad = grad * x_indicators / indicators
    y_grad = gather_ops.gather_nd(grad / indicators, indices) * y_indicators
    return [x_grad, None, y_grad]
