"""``SparseSlice`` (a box of a SparseTensor) with its gradient ``SparseSliceGrad``, and
``tf.sparse.merge`` (ids and values SparseTensors made one).

``SparseSlice``'s output size depends on the values, so it is a host op (numpy kernel in
``lowering/reference/sparse_slice.py``). Its gradient routes the sliced entries' gradients
back to their input positions; it is a host op too: the positions come from matching index
rows of two exact lists, which the host does in one pass.
"""

from __future__ import annotations

from tfcompat.framework import dtypes
from tfcompat.framework.gradient_registry import RegisterGradient
from tfcompat.framework.op_def import register_op
from tfcompat.framework.op_helper import apply_op, convert_to_tensor
from tfcompat.framework.sparse_tensor import SparseTensor
from tfcompat.framework.tensor_shape import TensorShape
from tfcompat.ops import array_ops
from tfcompat.ops.nn_ops import with_rank
from tfcompat.ops.parsing_config import sparse_merge as _sparse_merge
from tfcompat.ops.sparse_ops import convert_to_sparse_tensor
from tfcompat.util.tf_export import tf_export

# The numeric types of TF's SparseSliceGrad (its T attr's allowed values).
_GRAD_TYPES = (
    "{float, double, int32, uint8, int16, int8, complex64, int64, qint8, quint8, qint32, "
    "bfloat16, qint16, quint16, uint16, complex128, half, uint32, uint64}"
)


def _slice_shape(op):
    indices = with_rank(op.inputs[0].shape, 2)
    with_rank(op.inputs[1].shape, 1)
    shape = with_rank(op.inputs[2].shape, 1)
    with_rank(op.inputs[3].shape, 1)
    with_rank(op.inputs[4].shape, 1)
    return [TensorShape([None, indices[1]]), TensorShape([None]), shape]


register_op(
    "SparseSlice",
    inputs=[
        "indices: int64",
        "values: T",
        "shape: int64",
        "start: int64",
        "size: int64",
    ],
    outputs=["output_indices: int64", "output_values: T", "output_shape: int64"],
    attrs=["T: type"],
    shape_fn=_slice_shape,
    host=True,
)
register_op(
    "SparseSliceGrad",
    inputs=[
        "backprop_val_grad: T",
        "input_indices: int64",
        "input_start: int64",
        "output_indices: int64",
    ],
    outputs=["val_grad: T"],
    attrs=[f"T: {_GRAD_TYPES}"],
    shape_fn=lambda op: [TensorShape([with_rank(op.inputs[1].shape, 2)[0]])],
    host=True,
)


@tf_export("sparse.slice", "sparse_slice")
def sparse_slice(sp_input, start, size, name=None):
    """The entries of ``sp_input`` inside the box ``[start, start + size)``, re-indexed from
    ``start``; the dense shape is the box clipped to ``sp_input``'s dense shape."""
    sp_input = convert_to_sparse_tensor(sp_input)
    start = convert_to_tensor(start, dtypes.int64)
    size = convert_to_tensor(size, dtypes.int64)
    with array_ops._scope(name, "SparseSlice") as scope:
        indices, values, shape = apply_op(
            "SparseSlice",
            indices=sp_input.indices,
            values=sp_input.values,
            shape=sp_input.dense_shape,
            start=start,
            size=size,
            name=scope,
        ).outputs
        return SparseTensor(indices, values, shape)


@RegisterGradient("SparseSlice")
def _sparse_slice_grad(op, *grads):
    val_grad = apply_op(
        "SparseSliceGrad",
        backprop_val_grad=grads[1],
        input_indices=op.inputs[0],
        input_start=op.inputs[3],
        output_indices=op.outputs[0],
    ).outputs[0]
    val_grad.set_shape(op.inputs[1].shape)
    return [None, val_grad, None, None, None]


@tf_export("sparse.merge", "sparse_merge")
def sparse_merge(sp_ids, sp_values, vocab_size, name=None, already_sorted=False):
    """One SparseTensor indexed by ``sp_ids``' values in its last dimension(s) and holding
    ``sp_values``' values (TF's ``SparseMerge`` graph)."""
    return _sparse_merge(sp_ids, sp_values, vocab_size, already_sorted, name)
