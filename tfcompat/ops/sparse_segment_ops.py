"""Sparse segment reductions (TF's ``SparseSegmentSum/Mean/SqrtN`` math ops), their
``WithNumSegments`` forms, their gradient ops (``*Grad`` dense, ``*GradV2`` row-sparse) and
the gradient functions TF registers.

``output[s] = reduce(data[indices[i]] for i with segment_ids[i] == s)``; segment ids are
sorted. Without ``num_segments`` the output has ``segment_ids[-1] + 1`` rows, a value only
known at run time: under XLA that row count is computed on the host before the step and
specialised on (``lowering/buckets.py``), so it compiles once per distinct row count (one
per batch size in a training loop).
"""

from __future__ import annotations

from tfcompat.framework.gradient_registry import RegisterGradient
from tfcompat.framework.indexed_slices import IndexedSlices
from tfcompat.framework.op_def import register_op
from tfcompat.framework.op_helper import apply_op
from tfcompat.framework.tensor_shape import TensorShape, unknown_shape
from tfcompat.ops.nn_ops import merge_dim, static_scalar, with_rank, with_rank_at_least
from tfcompat.util.tf_export import tf_export

# reduction -> allowed types of T (TF 2.21's math_ops.cc)
_REDUCTIONS = {
    "Sum": "{float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, half, uint32, "
    "uint64}",
    "Mean": "{bfloat16, half, float, double}",
    "SqrtN": "{bfloat16, half, float, double}",
}
_INDEX_ATTRS = ["Tidx: {int32, int64} = DT_INT32", "Tsegmentids: {int32, int64} = DT_INT32"]


def _row_shape(shape):
    return unknown_shape() if shape.rank is None else shape[1:]


def _segment_inputs(op):
    """TF's SparseSegmentReductionShapeFn checks: data rank >= 1, indices and segment_ids
    vectors of one length."""
    data = with_rank_at_least(op.inputs[0].shape, 1)
    indices = with_rank(op.inputs[1].shape, 1)
    segment_ids = with_rank(op.inputs[2].shape, 1)
    merge_dim(indices[0], segment_ids[0])
    return data


def _segment_shape(op):
    return [TensorShape([None]).concatenate(_row_shape(_segment_inputs(op)))]


def _segment_num_shape(op):
    data = _segment_inputs(op)
    with_rank(op.inputs[3].shape, 0)
    return [TensorShape([static_scalar(op, 3)]).concatenate(_row_shape(data))]


def _grad_shape(op):
    grad = with_rank_at_least(op.inputs[0].shape, 1)
    indices = with_rank(op.inputs[1].shape, 1)
    merge_dim(indices[0], with_rank(op.inputs[2].shape, 1)[0])
    with_rank(op.inputs[3].shape, 0)
    return [TensorShape([static_scalar(op, 3)]).concatenate(_row_shape(grad))]


def _grad_v2_shape(op):
    grad = with_rank_at_least(op.inputs[0].shape, 1)
    indices = with_rank(op.inputs[1].shape, 1)
    merge_dim(indices[0], with_rank(op.inputs[2].shape, 1)[0])
    with_rank(op.inputs[3].shape, 0)
    return [TensorShape([None]).concatenate(_row_shape(grad)), TensorShape([None])]


_SEGMENT_IO = ["data: T", "indices: Tidx", "segment_ids: Tsegmentids"]
_GRAD_IO = ["grad: T", "indices: Tidx", "segment_ids: Tsegmentids"]
_FLOATS = "T: {bfloat16, half, float, double}"

for _reduction, _types in _REDUCTIONS.items():
    register_op(
        f"SparseSegment{_reduction}",
        inputs=_SEGMENT_IO,
        outputs=["output: T"],
        attrs=[f"T: {_types}", *_INDEX_ATTRS, "sparse_gradient: bool = false"],
        shape_fn=_segment_shape,
    )
    register_op(
        f"SparseSegment{_reduction}WithNumSegments",
        inputs=[*_SEGMENT_IO, "num_segments: Tnumsegments"],
        outputs=["output: T"],
        attrs=[
            f"T: {_types}",
            "Tidx: {int32, int64} = DT_INT32",
            "Tnumsegments: {int32, int64} = DT_INT32",
            "Tsegmentids: {int32, int64} = DT_INT32",
            "sparse_gradient: bool = false",
        ],
        shape_fn=_segment_num_shape,
    )
    register_op(
        f"SparseSegment{_reduction}Grad",
        inputs=[*_GRAD_IO, "output_dim0: int32"],
        outputs=["output: T"],
        attrs=[_FLOATS, *_INDEX_ATTRS],
        shape_fn=_grad_shape,
    )
    register_op(
        f"SparseSegment{_reduction}GradV2",
        inputs=[*_GRAD_IO, "dense_output_dim0: int32"],
        outputs=["output: T", "sorted_unique_indices: Tidx"],
        attrs=[_FLOATS, *_INDEX_ATTRS],
        shape_fn=_grad_v2_shape,
    )


# ---------------------------------------------------------------------------------------------
# Wrappers
# ---------------------------------------------------------------------------------------------
def _segment_wrapper(reduction, what):
    def wrapper(data, indices, segment_ids, name=None, num_segments=None, sparse_gradient=False):
        common = dict(data=data, indices=indices, segment_ids=segment_ids)
        if num_segments is not None:
            op = apply_op(
                f"SparseSegment{reduction}WithNumSegments",
                name=name,
                num_segments=num_segments,
                sparse_gradient=sparse_gradient,
                **common,
            )
        else:
            op = apply_op(
                f"SparseSegment{reduction}", name=name, sparse_gradient=sparse_gradient, **common
            )
        return op.outputs[0]

    wrapper.__doc__ = (
        f"The {what} of the rows ``data[indices[i]]`` per segment ``segment_ids[i]`` (sorted). "
        "With ``num_segments`` the output has that many rows, else ``segment_ids[-1] + 1``; "
        "``sparse_gradient`` makes the gradient of ``data`` an IndexedSlices."
    )
    return wrapper


sparse_segment_sum = tf_export("sparse.segment_sum", "sparse_segment_sum")(
    _segment_wrapper("Sum", "sum")
)
sparse_segment_mean = tf_export("sparse.segment_mean", "sparse_segment_mean")(
    _segment_wrapper("Mean", "mean")
)
sparse_segment_sqrt_n = tf_export("sparse.segment_sqrt_n", "sparse_segment_sqrt_n")(
    _segment_wrapper("SqrtN", "sum divided by the square root of the count")
)


def _grad_wrapper(op_type, two_outputs):
    def wrapper(grad, indices, segment_ids, dim0, name=None):
        dim_name = "dense_output_dim0" if two_outputs else "output_dim0"
        keywords = {dim_name: dim0}
        op = apply_op(
            op_type, name=name, grad=grad, indices=indices, segment_ids=segment_ids, **keywords
        )
        return tuple(op.outputs) if two_outputs else op.outputs[0]

    wrapper.__doc__ = f"The ``{op_type}`` op (what the segment reductions' gradients build)."
    return wrapper


sparse_segment_sum_grad = _grad_wrapper("SparseSegmentSumGrad", False)
sparse_segment_mean_grad = _grad_wrapper("SparseSegmentMeanGrad", False)
sparse_segment_sqrt_n_grad = _grad_wrapper("SparseSegmentSqrtNGrad", False)
sparse_segment_sum_grad_v2 = _grad_wrapper("SparseSegmentSumGradV2", True)
sparse_segment_mean_grad_v2 = _grad_wrapper("SparseSegmentMeanGradV2", True)
sparse_segment_sqrt_n_grad_v2 = _grad_wrapper("SparseSegmentSqrtNGradV2", True)

_GRAD_FUNCTIONS = {
    "Sum": (sparse_segment_sum_grad, sparse_segment_sum_grad_v2),
    "Mean": (sparse_segment_mean_grad, sparse_segment_mean_grad_v2),
    "SqrtN": (sparse_segment_sqrt_n_grad, sparse_segment_sqrt_n_grad_v2),
}


# ---------------------------------------------------------------------------------------------
# Gradients (TF's math_grad): dense rows of data via *Grad, or with ``sparse_gradient`` an
# IndexedSlices over the distinct indices via *GradV2. Indices and segment ids get none.
# ---------------------------------------------------------------------------------------------
def _segment_gradient(reduction, extra_inputs):
    dense_fn, sparse_fn = _GRAD_FUNCTIONS[reduction]

    def gradient(op, grad):
        from tfcompat.ops import array_ops

        indices, segment_ids = op.inputs[1], op.inputs[2]
        nones = (None,) * (2 + extra_inputs)
        if op.attrs.get("sparse_gradient"):
            data_shape = array_ops.shape(op.inputs[0])
            values, unique = sparse_fn(grad, indices, segment_ids, data_shape[0])
            return (IndexedSlices(values, unique, data_shape), *nones)
        dim0 = array_ops.shape(op.inputs[0])[0]
        return (dense_fn(grad, indices, segment_ids, dim0), *nones)

    return gradient


for _reduction in _REDUCTIONS:
    RegisterGradient(f"SparseSegment{_reduction}")(_segment_gradient(_reduction, 0))
    RegisterGradient(f"SparseSegment{_reduction}WithNumSegments")(_segment_gradient(_reduction, 1))
