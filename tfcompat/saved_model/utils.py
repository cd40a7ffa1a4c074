"""TensorInfo protos: how a SignatureDef names a graph's tensors."""

from __future__ import annotations

from tfcompat.framework.proto import meta_graph_pb2
from tfcompat.framework.sparse_tensor import SparseTensor
from tfcompat.util.tf_export import tf_export


@tf_export("saved_model.utils.build_tensor_info", "saved_model.build_tensor_info")
def build_tensor_info(tensor):
    """The TensorInfo of a Tensor (name, dtype, shape) or SparseTensor (its three parts)."""
    info = meta_graph_pb2.TensorInfo(dtype=tensor.dtype.as_datatype_enum)
    info.tensor_shape.CopyFrom(tensor.shape.as_proto())
    if isinstance(tensor, SparseTensor):
        info.coo_sparse.values_tensor_name = tensor.values.name
        info.coo_sparse.indices_tensor_name = tensor.indices.name
        info.coo_sparse.dense_shape_tensor_name = tensor.dense_shape.name
    else:
        info.name = tensor.name
    return info


@tf_export(
    "saved_model.utils.get_tensor_from_tensor_info", "saved_model.get_tensor_from_tensor_info"
)
def get_tensor_from_tensor_info(tensor_info, graph=None, import_scope=None):
    """The Tensor (or SparseTensor) ``tensor_info`` names in ``graph``."""
    from tfcompat.framework import graph as graph_lib

    graph = graph or graph_lib.get_default_graph()

    def lookup(name):
        if import_scope:
            name = f"{import_scope}/{name}"
        return graph.get_tensor_by_name(name)

    kind = tensor_info.WhichOneof("encoding")
    if kind == "name":
        return lookup(tensor_info.name)
    if kind == "coo_sparse":
        sparse = tensor_info.coo_sparse
        return SparseTensor(
            lookup(sparse.indices_tensor_name),
            lookup(sparse.values_tensor_name),
            lookup(sparse.dense_shape_tensor_name),
        )
    raise ValueError(f"Invalid TensorInfo.encoding: {kind}")
