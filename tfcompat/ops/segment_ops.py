"""Segment reductions (TF's ``Segment*`` and ``UnsortedSegment*`` math ops).

``SegmentSum`` and friends size their output by the largest segment id, a value known only
at run time, so they are host ops (numpy, outside the jitted function). The unsorted
variants take ``num_segments`` and compile to XLA scatters when it is known at compile time.
"""

from __future__ import annotations

from tfcompat.framework import tensor_shape
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
