"""Set operations on the last dimension of dense tensors and SparseTensors (TF's
``set_ops``): ``SetSize`` and the intersection, difference and union ops
``DenseToDenseSetOperation``, ``DenseToSparseSetOperation`` and
``SparseToSparseSetOperation``, with TF 2.21's OpDefs and the ``tf.sets`` wrappers.

A "set" is one row of the last dimension; the leading dimensions index the groups. The
results are SparseTensors whose size depends on the values, so all four ops are host ops
(numpy kernels in ``lowering/reference/sets.py``); ``SetSize`` is one too, since its output
shape is the ``dense_shape`` value of its (host-made) SparseTensor input. None of them is
differentiable, as in TF.
"""

from __future__ import annotations

from tfcompat.framework import dtypes
from tfcompat.framework.gradient_registry import NotDifferentiable
from tfcompat.framework.op_def import register_op
from tfcompat.framework.op_helper import apply_op
from tfcompat.framework.sparse_tensor import SparseTensor, convert_to_tensor_or_sparse_tensor
from tfcompat.framework.tensor_shape import TensorShape, unknown_shape
from tfcompat.ops.nn_ops import merge_dim, with_rank, with_rank_at_least
from tfcompat.util.tf_export import tf_export

_SET_TYPES = "{int8, int16, int32, int64, uint8, uint16, string}"
_VALID_DTYPES = frozenset(
    [
        dtypes.int8,
        dtypes.int16,
        dtypes.int32,
        dtypes.int64,
        dtypes.uint8,
        dtypes.uint16,
        dtypes.string,
    ]
)
_SET_OPERATION_ATTRS = [
    "set_operation: string",
    "validate_indices: bool = true",
    f"T: {_SET_TYPES}",
]
_RESULT = ["result_indices: int64", "result_values: T", "result_shape: int64"]


# ---------------------------------------------------------------------------------------------
# Shape functions (TF's set_ops.cc): a result is [?, rank] indices, [?] values, [rank] shape
# ---------------------------------------------------------------------------------------------
def _result_shapes(rank):
    return [TensorShape([None, rank]), TensorShape([None]), TensorShape([rank])]


def _sparse_rank(indices, values, shape):
    """TF's ValidateSparseTensor: the (static) rank of a SparseTensor given by its parts."""
    indices = with_rank(indices.shape, 2)
    values = with_rank(values.shape, 1)
    shape = with_rank(shape.shape, 1)
    merge_dim(indices[0], values[0])
    return merge_dim(indices[1], shape[0])


def _dense_to_dense_shape(op):
    set1 = with_rank_at_least(op.inputs[0].shape, 2)
    if set1.rank is None:
        set2 = with_rank_at_least(op.inputs[1].shape, 2)
        return _result_shapes(set2.rank)
    set2 = with_rank(op.inputs[1].shape, set1.rank)
    if set2.rank is not None:
        set1[:-1].merge_with(set2[:-1])
    return _result_shapes(set1.rank)


def _dense_to_sparse_shape(op):
    rank2 = _sparse_rank(*op.inputs[1:4])
    set1 = with_rank_at_least(op.inputs[0].shape, 2)
    if set1.rank is not None:
        return _result_shapes(merge_dim(rank2, set1.rank))
    return _result_shapes(rank2)


def _check_rank(rank, which):
    if rank is not None and rank < 2:
        raise ValueError(f"Input {which}, expected rank >= 2, got {rank}.")


def _sparse_to_sparse_shape(op):
    rank1 = _sparse_rank(*op.inputs[0:3])
    rank2 = _sparse_rank(*op.inputs[3:6])
    _check_rank(rank1, 0)
    if rank1 is not None:
        return _result_shapes(merge_dim(rank2, rank1))
    _check_rank(rank2, 1)
    return _result_shapes(rank2)


register_op(
    "SetSize",
    inputs=["set_indices: int64", "set_values: T", "set_shape: int64"],
    outputs=["size: int32"],
    attrs=["validate_indices: bool = true", f"T: {_SET_TYPES}"],
    shape_fn=lambda op: [unknown_shape()],
    host=True,
)
register_op(
    "DenseToDenseSetOperation",
    inputs=["set1: T", "set2: T"],
    outputs=_RESULT,
    attrs=_SET_OPERATION_ATTRS,
    shape_fn=_dense_to_dense_shape,
    host=True,
)
register_op(
    "DenseToSparseSetOperation",
    inputs=["set1: T", "set2_indices: int64", "set2_values: T", "set2_shape: int64"],
    outputs=_RESULT,
    attrs=_SET_OPERATION_ATTRS,
    shape_fn=_dense_to_sparse_shape,
    host=True,
)
register_op(
    "SparseToSparseSetOperation",
    inputs=[
        "set1_indices: int64",
        "set1_values: T",
        "set1_shape: int64",
        "set2_indices: int64",
        "set2_values: T",
        "set2_shape: int64",
    ],
    outputs=_RESULT,
    attrs=_SET_OPERATION_ATTRS,
    shape_fn=_sparse_to_sparse_shape,
    host=True,
)
for _op_type in (
    "SetSize",
    "DenseToDenseSetOperation",
    "DenseToSparseSetOperation",
    "SparseToSparseSetOperation",
):
    NotDifferentiable(_op_type)


# ---------------------------------------------------------------------------------------------
# tf.sets
# ---------------------------------------------------------------------------------------------
@tf_export("sets.size", "sets.set_size")
def set_size(a, validate_indices=True):
    """The number of distinct values in each set (last dimension) of SparseTensor ``a``:
    an int32 tensor of ``a``'s dense shape without its last dimension."""
    a = convert_to_tensor_or_sparse_tensor(a, name="a")
    if not isinstance(a, SparseTensor):
        raise TypeError(f"Expected `SparseTensor`, got {a}.")
    if a.values.dtype.base_dtype not in _VALID_DTYPES:
        raise TypeError(
            f"Invalid dtype `{a.values.dtype}` not in supported dtypes: `{_VALID_DTYPES}`."
        )
    return apply_op(
        "SetSize",
        set_indices=a.indices,
        set_values=a.values,
        set_shape=a.dense_shape,
        validate_indices=validate_indices,
    ).outputs[0]


def _convert_operands(a, b):
    """``(a, b, flipped)``: both as Tensors or SparseTensors of one valid dtype; a sparse
    ``a`` with a dense ``b`` is swapped (only dense-sparse has an op)."""
    a = convert_to_tensor_or_sparse_tensor(a, name="a")
    if a.dtype.base_dtype not in _VALID_DTYPES:
        raise TypeError(
            f"'a' has invalid dtype `{a.dtype}` not in supported dtypes: `{_VALID_DTYPES}`."
        )
    b = convert_to_tensor_or_sparse_tensor(b, name="b")
    if b.dtype.base_dtype != a.dtype.base_dtype:
        raise TypeError(f"Types don't match, {a.dtype} vs {b.dtype}.")
    if isinstance(a, SparseTensor) and not isinstance(b, SparseTensor):
        return b, a, True
    return a, b, False


def _set_operation(a, b, set_operation, validate_indices):
    attrs = {"set_operation": set_operation, "validate_indices": validate_indices}
    if isinstance(a, SparseTensor):
        if not isinstance(b, SparseTensor):
            raise ValueError(
                "Sparse,Dense is not supported, but Dense,Sparse is. "
                "Please flip the order of your inputs."
            )
        op = apply_op(
            "SparseToSparseSetOperation",
            set1_indices=a.indices,
            set1_values=a.values,
            set1_shape=a.dense_shape,
            set2_indices=b.indices,
            set2_values=b.values,
            set2_shape=b.dense_shape,
            **attrs,
        )
    elif isinstance(b, SparseTensor):
        op = apply_op(
            "DenseToSparseSetOperation",
            set1=a,
            set2_indices=b.indices,
            set2_values=b.values,
            set2_shape=b.dense_shape,
            **attrs,
        )
    else:
        op = apply_op("DenseToDenseSetOperation", set1=a, set2=b, **attrs)
    return SparseTensor(*op.outputs)


@tf_export("sets.intersection", "sets.set_intersection")
def set_intersection(a, b, validate_indices=True):
    """Per set (last dimension), the values in both ``a`` and ``b``, sorted, as a
    SparseTensor. ``a`` and ``b`` are Tensors or SparseTensors of equal leading dims."""
    a, b, _ = _convert_operands(a, b)
    return _set_operation(a, b, "intersection", validate_indices)


@tf_export("sets.difference", "sets.set_difference")
def set_difference(a, b, aminusb=True, validate_indices=True):
    """Per set, the values of ``a`` not in ``b`` (``b`` not in ``a`` when not ``aminusb``),
    sorted, as a SparseTensor."""
    a, b, flipped = _convert_operands(a, b)
    if flipped:
        aminusb = not aminusb
    return _set_operation(a, b, "a-b" if aminusb else "b-a", validate_indices)


@tf_export("sets.union", "sets.set_union")
def set_union(a, b, validate_indices=True):
    """Per set, the values in ``a`` or ``b``, sorted, as a SparseTensor."""
    a, b, _ = _convert_operands(a, b)
    return _set_operation(a, b, "union", validate_indices)
