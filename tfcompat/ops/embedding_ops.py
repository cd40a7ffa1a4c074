"""Embedding lookups (TF's ``embedding_ops``) and the data-flow ops sharded lookups build:
``DynamicPartition`` and ``ParallelDynamicStitch``, with their gradients.

``tf.nn.embedding_lookup`` of one params tensor is a ``GatherV2`` (and an ``Identity``); its
gradient is an IndexedSlices, so optimizers update only the rows a batch touched. With a
list of shards, ids are assigned to shards (``partition_strategy`` "mod" or "div"), split
with ``DynamicPartition``, gathered per shard and reassembled with ``ParallelDynamicStitch``,
exactly the ops TF builds.

Under XLA, ``DynamicPartition``'s output sizes (which depend on the values) are replaced by a
static upper bound: every partition is as long as the input, its entries first and then
padding (-1 for integer types, 0 otherwise); ``ParallelDynamicStitch`` drops the rows whose
index is negative and takes its output length from the graph (see ``lowering.gather``). A
sharded lookup and its gradient therefore compile into the training step with TF's results;
only a ``DynamicPartition`` output fetched directly shows the padding (the numpy reference
backend returns TF's exact shapes).
"""

from __future__ import annotations

import numpy as np

from tfcompat.framework import dtypes, tensor_shape
from tfcompat.framework.constant_op import constant
from tfcompat.framework.constant_value import constant_value
from tfcompat.framework.gradient_registry import RegisterGradient
from tfcompat.framework.indexed_slices import IndexedSlices, convert_n_to_tensor_or_indexed_slices
from tfcompat.framework.op_def import register_op
from tfcompat.framework.op_helper import apply_op, convert_to_tensor
from tfcompat.framework.tensor_shape import TensorShape, unknown_shape
from tfcompat.ops import array_ops
from tfcompat.util.tf_export import tf_export


# ---------------------------------------------------------------------------------------------
# DynamicPartition
# ---------------------------------------------------------------------------------------------
def _dynamic_partition_shape(op):
    data, partitions = op.inputs[0].shape, op.inputs[1].shape
    num = op.attrs["num_partitions"]
    if partitions.rank is None or data.rank is None:
        return [unknown_shape()] * num
    if data.rank < partitions.rank:
        raise ValueError(f"Shape must be at least rank {partitions.rank} but is rank {data.rank}")
    prefix = data[: partitions.rank]
    if not prefix.is_compatible_with(partitions):
        raise ValueError(f"Dimensions must be equal, but are {prefix} and {partitions}")
    return [TensorShape([None]).concatenate(data[partitions.rank :])] * num


register_op(
    "DynamicPartition",
    inputs=["data: T", "partitions: int32"],
    outputs=["outputs: num_partitions * T"],
    attrs=["num_partitions: int >= 1", "T: type"],
    shape_fn=_dynamic_partition_shape,
)


@tf_export("dynamic_partition")
def dynamic_partition(data, partitions, num_partitions, name=None):
    """Splits ``data`` into ``num_partitions`` tensors: ``outputs[i]`` holds, in order, the
    slices of ``data`` whose entry in ``partitions`` is ``i``."""
    return apply_op(
        "DynamicPartition",
        name=name,
        data=data,
        partitions=partitions,
        num_partitions=num_partitions,
    ).outputs


@RegisterGradient("DynamicPartition")
def _dynamic_partition_grad(op, *grads):
    """Partitions the positions ``0..n-1`` the same way and stitches the gradients back."""
    from tfcompat.ops import reduction_ops

    data, partitions = op.inputs
    prefix_shape = array_ops.shape(partitions)
    original = array_ops.reshape(
        reduction_ops.range(reduction_ops.reduce_prod(prefix_shape)), prefix_shape
    )
    positions = dynamic_partition(original, partitions, op.attrs["num_partitions"])
    reconstructed = parallel_dynamic_stitch(positions, list(grads))
    return [array_ops.reshape(reconstructed, array_ops.shape(data)), None]


# ---------------------------------------------------------------------------------------------
# ParallelDynamicStitch
# ---------------------------------------------------------------------------------------------
def _stitch_shape(op):
    """TF's rule: rows = max index + 1 when every index input is a build-time constant."""
    n = op.attrs["N"]
    row = unknown_shape()
    for index, value in zip(op.inputs[:n], op.inputs[n:]):
        if index.shape.rank is not None and value.shape.rank is not None:
            row = row.merge_with(value.shape[index.shape.rank :])
    known = [constant_value(t) for t in op.inputs[:n]]
    rows = None
    if all(k is not None for k in known):
        rows = 1 + max((int(np.max(k)) for k in known if np.size(k)), default=-1)
    return [TensorShape([rows]).concatenate(row)]


register_op(
    "ParallelDynamicStitch",
    inputs=["indices: N * int32", "data: N * T"],
    outputs=["merged: T"],
    attrs=["N: int >= 1", "T: type"],
    shape_fn=_stitch_shape,
)


def parallel_dynamic_stitch(indices, data, name=None):
    """``merged[indices[m][i]] = data[m][i]`` (which of equal indices wins is unspecified)."""
    return apply_op(
        "ParallelDynamicStitch", name=name, indices=list(indices), data=list(data)
    ).outputs[0]


@tf_export("dynamic_stitch")
def dynamic_stitch(indices, data, name=None):
    """``merged[indices[m][i]] = data[m][i]``; for equal indices the later one wins."""
    return apply_op("DynamicStitch", name=name, indices=list(indices), data=list(data)).outputs[0]


@RegisterGradient("DynamicStitch")
@RegisterGradient("ParallelDynamicStitch")
def _dynamic_stitch_grad(op, grad):
    """Each data input gets the gradient's rows at its indices (``GatherV2``)."""
    from tfcompat.ops import math_ops, segment_ops

    n = len(op.inputs) // 2
    indices = [
        t if t.dtype == dtypes.int32 else math_ops.cast(t, dtypes.int32) for t in op.inputs[:n]
    ]
    if isinstance(grad, IndexedSlices):
        rows = array_ops.shape(op.outputs[0])[0]
        grad = segment_ops.unsorted_segment_sum(grad.values, grad.indices, rows)
    return [None] * n + [array_ops.gather(grad, i) for i in indices]


# ---------------------------------------------------------------------------------------------
# embedding_lookup
# ---------------------------------------------------------------------------------------------
def _rank(x):
    """(rank, True) when static and non-zero, else (Rank tensor, False), as TF decides."""
    rank = convert_to_tensor(x).shape.rank
    if rank:
        return rank, True
    return array_ops.rank(x), False


def _clip(params, ids, max_norm):
    """Clips each looked-up embedding to L2 norm ``max_norm`` (over its non-id axes)."""
    if max_norm is None:
        return params
    from tfcompat.ops import clip_ops, reduction_ops

    ids_rank, ids_static = _rank(ids)
    params_rank, params_static = _rank(params)
    if ids_static and params_static:
        axes = list(range(ids_rank, params_rank))
    else:
        axes = reduction_ops.range(ids_rank, params_rank)
    return clip_ops.clip_by_norm(params, max_norm, axes=axes)


def _colocate_with(tensor):
    return tensor.graph.colocate_with(tensor.op)


def _mod_assignments(flat_ids, num_shards):
    return flat_ids % num_shards, flat_ids // num_shards


def _div_assignments(flat_ids, params):
    """Contiguous id ranges per shard; the first ``total % n`` shards get one id more."""
    from tfcompat.ops import math_ops, reduction_ops

    n = len(params)
    total = tensor_shape.Dimension(params[0].shape[0])
    for p in params[1:]:
        total += tensor_shape.Dimension(p.shape[0])
    if total.value:
        num_total_ids = constant(total.value, flat_ids.dtype)
    else:
        sizes = []
        for p in params:
            if p.shape[0] is not None:
                sizes.append(p.shape[0])
            else:
                with _colocate_with(p):
                    sizes.append(array_ops.shape(p)[0])
        num_total_ids = reduction_ops.reduce_sum(
            math_ops.cast(array_ops.stack(sizes), flat_ids.dtype)
        )
    ids_per_partition = num_total_ids // n
    extras = num_total_ids % n
    assignments = math_ops.maximum(
        flat_ids // (ids_per_partition + 1), (flat_ids - extras) // ids_per_partition
    )
    new_ids = math_ops.where(
        assignments < extras,
        flat_ids % (ids_per_partition + 1),
        (flat_ids - extras) % ids_per_partition,
    )
    return assignments, new_ids


def _sharded_lookup(params, ids, partition_strategy, name, max_norm):
    """DynamicPartition of the ids by shard, one gather per shard, ParallelDynamicStitch."""
    from tfcompat.ops import math_ops, reduction_ops

    flat_ids = array_ops.reshape(ids, [-1])
    original_indices = reduction_ops.range(array_ops.size(flat_ids, out_type=dtypes.int32))
    if partition_strategy == "mod":
        assignments, new_ids = _mod_assignments(flat_ids, len(params))
    elif partition_strategy == "div":
        assignments, new_ids = _div_assignments(flat_ids, params)
    else:
        raise ValueError(
            f"Unrecognized partition strategy: {partition_strategy}.Must be one of either "
            "`mod` or `div`."
        )
    assignments = math_ops.cast(assignments, dtypes.int32)
    gather_ids = dynamic_partition(new_ids, assignments, len(params))
    pindices = dynamic_partition(original_indices, assignments, len(params))
    results = []
    graph = flat_ids.graph
    for shard, shard_ids in zip(params, gather_ids):
        with graph.device(None), _colocate_with(shard):
            results.append(array_ops.gather(shard, shard_ids))
    ret = parallel_dynamic_stitch(pindices, results, name=name)
    element_shape = params[0].shape[1:]
    for p in params[1:]:
        element_shape = element_shape.merge_with(p.shape[1:])
    if element_shape.is_fully_defined():
        dynamic_element_shape = element_shape
    else:
        with _colocate_with(params[0]):
            dynamic_element_shape = array_ops.shape(params[0])[1:]
    ret = array_ops.reshape(ret, array_ops.concat([array_ops.shape(ids), dynamic_element_shape], 0))
    ret.set_shape(ids.shape.concatenate(element_shape))
    return _clip(ret, ids, max_norm)


@tf_export("nn.embedding_lookup")
def embedding_lookup(
    params, ids, partition_strategy="mod", name=None, validate_indices=True, max_norm=None
):
    """The rows of ``params`` (one tensor, or a list of shards of one table) at ``ids``
    (any rank); ``max_norm`` clips each embedding's L2 norm. Built from the ops TF builds."""
    del validate_indices  # TF ignores it
    if params is None:
        raise ValueError("params must be specified")
    if isinstance(params, (list, tuple)) and not params:
        raise ValueError("Length of params is currently 0. Need at least one param.")
    if not isinstance(params, (list, tuple)):
        params = [params]
    params = list(params)
    with array_ops._scope(name, "embedding_lookup") as scope:
        params = convert_n_to_tensor_or_indexed_slices(params, name="params")
        ids = convert_to_tensor(ids, name="ids")
        if len(params) == 1:
            with _colocate_with(params[0]):
                result = _clip(array_ops.gather(params[0], ids, name=scope), ids, max_norm)
            return array_ops.identity(result)
        return _sharded_lookup(params, ids, partition_strategy, scope, max_norm)
