"""TF's SparseTensorsMap ops, through which batch queues carry SparseTensors:
``AddSparseToTensorsMap`` / ``AddManySparseToTensorsMap`` store a SparseTensor (or each row
of a minibatch) in a map held by the Session and return int64 handles, which travel
through the queue like any tensor; ``TakeManySparseFromTensorsMap`` takes a vector of
handles out of the map and returns them as one SparseTensor with a leading batch
dimension. Host ops (kernels in ``lowering/reference/sparse_map.py``)."""

from __future__ import annotations

from tfcompat.framework import tensor_shape
from tfcompat.framework.gradient_registry import no_gradient
from tfcompat.framework.op_def import register_op
from tfcompat.framework.op_helper import apply_op
from tfcompat.framework.sparse_tensor import SparseTensor

_MAP_ATTRS = ["container: string = ''", "shared_name: string = ''"]
_SPARSE_INPUTS = ["sparse_indices: int64", "sparse_values: T", "sparse_shape: int64"]


def _with_rank(op, index, rank):
    shape = op.inputs[index].shape
    if shape.rank is not None and shape.rank != rank:
        raise ValueError(
            f"Shape must be rank {rank} but is rank {shape.rank} for "
            f"'{{{{node {op.name}}}}} = {op.type}[]'"
        )


def _add_shape(output_shape):
    def shape_fn(op):
        _with_rank(op, 0, 2)
        _with_rank(op, 1, 1)
        _with_rank(op, 2, 1)
        return [output_shape]

    return shape_fn


register_op(
    "AddSparseToTensorsMap",
    inputs=_SPARSE_INPUTS,
    outputs=["sparse_handle: int64"],
    attrs=["T: type", *_MAP_ATTRS],
    shape_fn=_add_shape(tensor_shape.scalar()),
    is_stateful=True,
    host=True,
)
register_op(
    "AddManySparseToTensorsMap",
    inputs=_SPARSE_INPUTS,
    outputs=["sparse_handles: int64"],
    attrs=["T: type", *_MAP_ATTRS],
    shape_fn=_add_shape(tensor_shape.TensorShape([None])),
    is_stateful=True,
    host=True,
)
register_op(
    "TakeManySparseFromTensorsMap",
    inputs=["sparse_handles: int64"],
    outputs=["sparse_indices: int64", "sparse_values: dtype", "sparse_shape: int64"],
    attrs=["dtype: type", *_MAP_ATTRS],
    shape_fn=lambda op: (
        _with_rank(op, 0, 1),
        [
            tensor_shape.TensorShape([None, None]),
            tensor_shape.TensorShape([None]),
            tensor_shape.TensorShape([None]),
        ],
    )[1],
    is_stateful=True,
    host=True,
)
for _op_type in (
    "AddSparseToTensorsMap",
    "AddManySparseToTensorsMap",
    "TakeManySparseFromTensorsMap",
):
    no_gradient(_op_type)


def _add_to_map(op_type, sp_input, container, shared_name, name):
    from tfcompat.ops.sparse_ops import convert_to_sparse_tensor

    sp_input = convert_to_sparse_tensor(sp_input)
    return apply_op(
        op_type,
        name=name,
        sparse_indices=sp_input.indices,
        sparse_values=sp_input.values,
        sparse_shape=sp_input.dense_shape,
        container=container or "",
        shared_name=shared_name or "",
    ).outputs[0]


def add_sparse_to_tensors_map(sp_input, container=None, shared_name=None, name=None):
    """The int64 handle of ``sp_input`` stored in a SparseTensorsMap (TF's
    ``sparse_ops._add_sparse_to_tensors_map``)."""
    return _add_to_map("AddSparseToTensorsMap", sp_input, container, shared_name, name)


def add_many_sparse_to_tensors_map(sp_input, container=None, shared_name=None, name=None):
    """One handle per row (first dimension) of ``sp_input``, each row stored in a
    SparseTensorsMap as a SparseTensor of one rank less."""
    return _add_to_map("AddManySparseToTensorsMap", sp_input, container, shared_name, name)


def take_many_sparse_from_tensors_map(sparse_map_op, sparse_handles, rank=None, name=None):
    """The SparseTensors behind ``sparse_handles`` (taken out of the map that
    ``sparse_map_op``, an ``Add*SparseToTensorsMap`` op, filled), batched along a new first
    dimension; ``rank`` is that result's rank if known."""
    if sparse_map_op.type not in ("AddSparseToTensorsMap", "AddManySparseToTensorsMap"):
        raise TypeError(
            "sparse_map_op must be one of AddSparseToTensorsMap or AddSparseToTensorsMap. "
            f"Instead, found `{sparse_map_op.type}`."
        )
    graph = sparse_map_op.graph
    with graph.colocate_with(sparse_map_op):
        shared_name = sparse_map_op.attrs["shared_name"] or sparse_map_op.name
        op = apply_op(
            "TakeManySparseFromTensorsMap",
            name=name,
            sparse_handles=sparse_handles,
            dtype=sparse_map_op.attrs["T"],
            container=sparse_map_op.attrs["container"],
            shared_name=shared_name,
        )
    indices, values, shape = op.outputs
    indices.set_shape([None, rank])
    shape.set_shape([rank])
    return SparseTensor(indices, values, shape)
