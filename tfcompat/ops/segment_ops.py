"""Segment reductions (TF's ``Segment*`` and ``UnsortedSegment*`` math ops).

``SegmentSum`` and friends size their output by the largest segment id, a value known only
at run time, so they are host ops (numpy, outside the jitted function). The unsorted
variants take ``num_segments`` and compile to XLA scatters when it is known at compile time.
"""

from __future__ import annotations

from tfcompat.framework import dtypes, tensor_shape
from tfcompat.framework.gradient_registry import RegisterGradient
from tfcompat.framework.op_def import register_op
from tfcompat.framework.op_helper import apply_op
from tfcompat.framework.tensor_shape import TensorShape
from tfcompat.ops.nn_ops import merge_dim, static_scalar, with_rank, with_rank_at_least
from tfcompat.util.tf_export import tf_export


def _segment_shape(op):
    data = with_rank_at_least(op.inputs[0].shape, 1)
    with_rank(op.inputs[1].shape, 1)
    if data.rank is None:
        return [data]
    return [TensorShape([None] + data.as_list()[1:])]


def _unsorted_segment_shape(op):
    data, ids = op.inputs[0].shape, op.inputs[1].shape
    with_rank(op.inputs[2].shape, 0)
    if ids.rank is None:
        return [tensor_shape.unknown_shape()]
    data = with_rank_at_least(data, ids.rank)
    if data.rank is not None:
        for a, b in zip(data.as_list(), ids.as_list()):
            merge_dim(a, b)
    num_segments = static_scalar(op, 2)
    if data.rank is None:
        return [tensor_shape.unknown_shape()]
    return [TensorShape([num_segments] + data.as_list()[ids.rank :])]


# op type -> allowed types of T, as in TF 2.21's math_ops.cc
_SORTED = {
    "SegmentSum": "numbertype",
    "SegmentMean": "numbertype",
    "SegmentProd": "numbertype",
    "SegmentMax": "realnumbertype",
    "SegmentMin": "realnumbertype",
}
_UNSORTED = {
    "UnsortedSegmentSum": ("numbertype", "{int16, int32, int64}"),
    "UnsortedSegmentProd": ("numbertype", "{int32, int64}"),
    "UnsortedSegmentMax": ("realnumbertype", "{int32, int64}"),
    "UnsortedSegmentMin": ("realnumbertype", "{int32, int64}"),
}

for _op_type, _types in _SORTED.items():
    register_op(
        _op_type,
        inputs=["data: T", "segment_ids: Tindices"],
        outputs=["output: T"],
        attrs=[f"T: {_types}", "Tindices: {int32, int64}"],
        shape_fn=_segment_shape,
        host=True,
    )

for _op_type, (_types, _index_types) in _UNSORTED.items():
    register_op(
        _op_type,
        inputs=["data: T", "segment_ids: Tindices", "num_segments: Tnumsegments"],
        outputs=["output: T"],
        attrs=[
            f"T: {_types}",
            f"Tindices: {_index_types}",
            "Tnumsegments: {int32, int64} = int32",
        ],
        shape_fn=_unsorted_segment_shape,
    )


def _sorted_wrapper(op_type, doc):
    def wrapper(data, segment_ids, name=None):
        return apply_op(op_type, name=name, data=data, segment_ids=segment_ids).outputs[0]

    wrapper.__doc__ = doc
    return wrapper


def _unsorted_wrapper(op_type, doc):
    def wrapper(data, segment_ids, num_segments, name=None):
        return apply_op(
            op_type, name=name, data=data, segment_ids=segment_ids, num_segments=num_segments
        ).outputs[0]

    wrapper.__doc__ = doc
    return wrapper


_SORTED_DOC = (
    "The {} of ``data`` over each segment of rows; ``segment_ids`` is sorted and "
    "non-negative, and the output has ``segment_ids[-1] + 1`` rows ({} for ids with no rows)."
)
_UNSORTED_DOC = (
    "The {} of ``data`` over the entries of each segment id in ``[0, num_segments)``; "
    "``segment_ids`` has the shape of a prefix of ``data.shape``, negative ids are dropped, "
    "and segments with no entries get {}."
)

segment_sum = tf_export("segment_sum", "math.segment_sum")(
    _sorted_wrapper("SegmentSum", _SORTED_DOC.format("sum", "0"))
)
segment_mean = tf_export("segment_mean", "math.segment_mean")(
    _sorted_wrapper("SegmentMean", _SORTED_DOC.format("mean", "0"))
)
segment_prod = tf_export("segment_prod", "math.segment_prod")(
    _sorted_wrapper("SegmentProd", _SORTED_DOC.format("product", "1"))
)
segment_max = tf_export("segment_max", "math.segment_max")(
    _sorted_wrapper("SegmentMax", _SORTED_DOC.format("maximum", "0"))
)
segment_min = tf_export("segment_min", "math.segment_min")(
    _sorted_wrapper("SegmentMin", _SORTED_DOC.format("minimum", "0"))
)
unsorted_segment_sum = tf_export("unsorted_segment_sum", "math.unsorted_segment_sum")(
    _unsorted_wrapper("UnsortedSegmentSum", _UNSORTED_DOC.format("sum", "0"))
)
unsorted_segment_prod = tf_export("unsorted_segment_prod", "math.unsorted_segment_prod")(
    _unsorted_wrapper("UnsortedSegmentProd", _UNSORTED_DOC.format("product", "1"))
)
unsorted_segment_max = tf_export("unsorted_segment_max", "math.unsorted_segment_max")(
    _unsorted_wrapper("UnsortedSegmentMax", _UNSORTED_DOC.format("maximum", "the lowest value"))
)
unsorted_segment_min = tf_export("unsorted_segment_min", "math.unsorted_segment_min")(
    _unsorted_wrapper("UnsortedSegmentMin", _UNSORTED_DOC.format("minimum", "the highest value"))
)


# ---------------------------------------------------------------------------------------------
# Gradients (TF's math_grad): each data row receives the gradient of its segment, gathered by
# segment id; the ids get none.
# ---------------------------------------------------------------------------------------------
@RegisterGradient("SegmentSum")
def _segment_sum_grad(op, grad):
    from tfcompat.ops import array_ops

    return array_ops.gather(grad, op.inputs[1]), None


@RegisterGradient("SegmentMean")
def _segment_mean_grad(op, grad):
    """The segment's gradient divided by its row count (a SegmentSum of ones)."""
    from tfcompat.ops import array_ops, math_ops

    data_rank = array_ops.rank(op.inputs[0])
    segment_ids_shape = array_ops.shape(op.inputs[1])
    remaining_shape = array_ops.ones(
        array_ops.expand_dims(data_rank - 1, 0), dtype=segment_ids_shape.dtype
    )
    ones_shape = array_ops.concat([segment_ids_shape, remaining_shape], 0)
    ones = array_ops.ones(ones_shape, dtype=grad.dtype)
    scaled_grad = math_ops.divide(grad, segment_sum(ones, op.inputs[1]))
    return array_ops.gather(scaled_grad, op.inputs[1]), None


@RegisterGradient("SegmentMin")
@RegisterGradient("SegmentMax")
def _segment_min_or_max_grad(op, grad):
    """Split evenly among the entries equal to the segment's extremum."""
    from tfcompat.ops import array_ops, math_ops

    zeros = array_ops.zeros_like(op.inputs[0], dtype=op.inputs[0].dtype)
    gathered_outputs = array_ops.gather(op.outputs[0], op.inputs[1])
    is_selected = math_ops.equal(op.inputs[0], gathered_outputs)
    num_selected = segment_sum(math_ops.cast(is_selected, grad.dtype), op.inputs[1])
    weighted_grads = math_ops.divide(grad, num_selected)
    gathered_grads = array_ops.gather(weighted_grads, op.inputs[1])
    return math_ops.where_v2(is_selected, gathered_grads, zeros), None


@RegisterGradient("SegmentProd")
def _segment_prod_grad(op, grad):
    """Segments with two or more zeros have zero gradient; with one zero, only the zero
    entry gets the product of the others; otherwise each entry gets product / entry."""
    from tfcompat.ops import array_ops, math_ops

    data, segment_ids = op.inputs[0], op.inputs[1]
    is_zero = math_ops.equal(data, 0)
    num_zeros = segment_sum(math_ops.cast(is_zero, dtype=dtypes.int32), segment_ids)
    grad = math_ops.where_v2(math_ops.greater(num_zeros, 1), array_ops.zeros_like(grad), grad)
    non_zero_data = math_ops.where_v2(is_zero, array_ops.ones_like(data), data)
    non_zero_prod = segment_prod(non_zero_data, segment_ids)
    gathered_prod = array_ops.gather(op.outputs[0], segment_ids)
    gathered_non_zero_prod = array_ops.gather(non_zero_prod, segment_ids)
    prod_divided_by_el = gathered_prod / non_zero_data
    partial_derivative = math_ops.where_v2(is_zero, gathered_non_zero_prod, prod_divided_by_el)
    gathered_grad = array_ops.gather(grad, segment_ids)
    return gathered_grad * partial_derivative, None


def _gather_drop_negatives(params, ids, zero_clipped_indices=None, is_positive=None):
    """``params`` gathered at ``max(ids, 0)``, with zeros where an id is negative (those
    entries were dropped by the unsorted reduction). Returns the clipped ids and the
    broadcast mask too, for reuse."""
    from tfcompat.ops import array_ops, math_ops

    if zero_clipped_indices is None:
        zero_clipped_indices = math_ops.maximum(ids, array_ops.zeros_like(ids))
    gathered = array_ops.gather(params, zero_clipped_indices)
    if is_positive is None:
        is_positive = math_ops.greater_equal(ids, 0)
        # The mask must have the gathered shape: pad its shape with ones, then broadcast.
        is_positive_shape = array_ops.shape(is_positive)
        broadcastable_shape = array_ops.concat(
            [
                is_positive_shape,
                array_ops.ones(
                    [array_ops.rank(gathered) - array_ops.rank(is_positive)],
                    dtype=is_positive_shape.dtype,
                ),
            ],
            axis=0,
        )
        is_positive = array_ops.reshape(is_positive, broadcastable_shape)
        is_positive = is_positive & array_ops.ones_like(gathered, dtype=dtypes.bool)
    zero_slice = array_ops.zeros_like(gathered)
    return (
        math_ops.where_v2(is_positive, gathered, zero_slice),
        zero_clipped_indices,
        is_positive,
    )


@RegisterGradient("UnsortedSegmentSum")
def _unsorted_segment_sum_grad(op, grad):
    return _gather_drop_negatives(grad, op.inputs[1])[0], None, None


@RegisterGradient("UnsortedSegmentMin")
@RegisterGradient("UnsortedSegmentMax")
def _unsorted_segment_min_or_max_grad(op, grad):
    """Split evenly among the kept entries equal to the segment's extremum."""
    from tfcompat.ops import array_ops, math_ops

    gathered_outputs, zero_clipped_indices, is_positive = _gather_drop_negatives(
        op.outputs[0], op.inputs[1]
    )
    is_selected = math_ops.equal(op.inputs[0], gathered_outputs)
    is_selected = math_ops.logical_and(is_selected, is_positive)
    num_selected = unsorted_segment_sum(
        math_ops.cast(is_selected, grad.dtype), op.inputs[1], op.inputs[2]
    )
    weighted_grads = math_ops.divide(grad, num_selected)
    gathered_grads, _, _ = _gather_drop_negatives(
        weighted_grads, None, zero_clipped_indices, is_positive
    )
    zeros = array_ops.zeros_like(gathered_grads)
    return math_ops.where_v2(is_selected, gathered_grads, zeros), None, None


@RegisterGradient("UnsortedSegmentProd")
def _unsorted_segment_prod_grad(op, grad):
    """As SegmentProd's; entries with negative ids get zero (the sums already drop them)."""
    from tfcompat.ops import array_ops, math_ops

    is_zero = math_ops.equal(op.inputs[0], 0)
    num_zeros = unsorted_segment_sum(
        math_ops.cast(is_zero, dtype=dtypes.int32), op.inputs[1], op.inputs[2]
    )
    grad = math_ops.where_v2(math_ops.greater(num_zeros, 1), array_ops.zeros_like(grad), grad)
    non_zero_data = math_ops.where_v2(is_zero, array_ops.ones_like(op.inputs[0]), op.inputs[0])
    non_zero_prod = unsorted_segment_prod(non_zero_data, op.inputs[1], op.inputs[2])
    zero_clipped_indices = math_ops.maximum(op.inputs[1], array_ops.zeros_like(op.inputs[1]))
    gathered_prod = array_ops.gather(op.outputs[0], zero_clipped_indices)
    gathered_non_zero_prod = array_ops.gather(non_zero_prod, zero_clipped_indices)
    prod_divided_by_el = gathered_prod / op.inputs[0]  # inf or NaN where 0: not selected
    partial_derivative = math_ops.where_v2(is_zero, gathered_non_zero_prod, prod_divided_by_el)
    gathered_grad = _gather_drop_negatives(grad, op.inputs[1], zero_clipped_indices)[0]
    return gathered_grad * partial_derivative, None, None
