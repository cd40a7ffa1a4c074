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
        # Resource variables stay variables: a lookup gathers rows (ResourceGather), never
        # reads the whole table.
        if not any(hasattr(p, "sparse_read") for p in params):
            params = convert_n_to_tensor_or_indexed_slices(params, name="params")
        ids = convert_to_tensor(ids, name="ids")
        if len(params) == 1:
            with _colocate_with(params[0]):
                result = _clip(array_ops.gather(params[0], ids, name=scope), ids, max_norm)
            return array_ops.identity(result)
        return _sharded_lookup(params, ids, partition_strategy, scope, max_norm)


# ---------------------------------------------------------------------------------------------
# embedding_lookup_sparse / safe_embedding_lookup_sparse (TF 2.21's graphs)
# ---------------------------------------------------------------------------------------------
_COMBINERS = ("mean", "sqrtn", "sum")


@tf_export("nn.embedding_lookup_sparse")
def embedding_lookup_sparse(
    params,
    sp_ids,
    sp_weights,
    partition_strategy="mod",
    name=None,
    combiner=None,
    max_norm=None,
    allow_fast_lookup=False,
):
    """One combined embedding per row of the 2-D SparseTensor ``sp_ids``: the ``combiner``
    ("mean" by default, "sqrtn" or "sum") of the rows of ``params`` at the row's ids,
    weighted by ``sp_weights`` (a SparseTensor like ``sp_ids``, or None for weight 1)."""
    from tfcompat.framework.sparse_tensor import SparseTensor

    combiner = "mean" if combiner is None else combiner
    if combiner not in _COMBINERS:
        raise ValueError(f"combiner must be one of 'mean', 'sqrtn' or 'sum', got {combiner}")
    params = list(params) if isinstance(params, (list, tuple)) else [params]
    if hasattr(params[0], "_get_variable_list"):  # a PartitionedVariable
        params = list(params[0])
    if not isinstance(sp_ids, SparseTensor):
        raise TypeError(f"sp_ids must be SparseTensor, got {type(sp_ids)}")
    ignore_weights = sp_weights is None
    if not ignore_weights:
        if not isinstance(sp_weights, SparseTensor):
            raise TypeError(
                f"sp_weights must be either None or SparseTensor,got {type(sp_weights)}"
            )
        sp_ids.values.shape.assert_is_compatible_with(sp_weights.values.shape)
        sp_ids.indices.shape.assert_is_compatible_with(sp_weights.indices.shape)
        sp_ids.dense_shape.shape.assert_is_compatible_with(sp_weights.dense_shape.shape)
    with array_ops._scope(name, "embedding_lookup_sparse") as scope:
        segment_ids = sp_ids.indices[:, 0]
        return _lookup_sparse_impl(
            params,
            segment_ids,
            sp_weights,
            sp_ids.values,
            combiner,
            ignore_weights,
            max_norm,
            allow_fast_lookup,
            partition_strategy,
            scope,
        )


def _lookup_sparse_impl(
    params, segment_ids, sp_weights, ids, combiner, ignore_weights, max_norm, fast, strategy, name
):
    """TF's embedding_lookup_sparse_impl: without weights (and one unclipped table) the
    segment reduction reads the table directly with a row-sparse gradient; otherwise the
    distinct ids are looked up first (``Unique``)."""
    from tfcompat.framework.tensor import Tensor
    from tfcompat.ops import math_ops

    need_sparse_gradient = False
    segment_ids = convert_to_tensor(segment_ids, name="segment_ids")
    if len(params) == 1 and not isinstance(params[0], Tensor):
        params = [convert_to_tensor(params[0], name="params")]
    direct = (
        len(params) == 1
        and params[0].device == segment_ids.device
        and max_norm is None
        and (fast or ignore_weights)
    )
    if direct:
        idx, embeddings = ids, params[0]
        need_sparse_gradient = not fast
    else:
        from tfcompat.ops import gather_ops

        ids, idx = gather_ops.unique(ids)
        embeddings = embedding_lookup(params, ids, partition_strategy=strategy, max_norm=max_norm)
    if not ignore_weights:
        return _weighted_combine(embeddings, idx, segment_ids, sp_weights, combiner, name)
    if segment_ids.dtype not in (dtypes.int32, dtypes.int64):
        segment_ids = math_ops.cast(segment_ids, dtypes.int32)
    from tfcompat.ops import sparse_segment_ops

    reduce = {
        "sum": sparse_segment_ops.sparse_segment_sum,
        "mean": sparse_segment_ops.sparse_segment_mean,
        "sqrtn": sparse_segment_ops.sparse_segment_sqrt_n,
    }[combiner]
    return reduce(embeddings, idx, segment_ids, name=name, sparse_gradient=need_sparse_gradient)


def _weighted_combine(embeddings, idx, segment_ids, sp_weights, combiner, name):
    """Weighted rows summed per segment (``SegmentSum``), normalised by the weights' sum
    ("mean") or the root of their squares' sum ("sqrtn")."""
    from tfcompat.ops import join_ops, math_ops, segment_ops, unary_math_ops

    if segment_ids.dtype != dtypes.int32:
        segment_ids = math_ops.cast(segment_ids, dtypes.int32)
    weights = sp_weights.values
    embeddings = array_ops.gather(embeddings, idx)
    original_dtype = embeddings.dtype
    if embeddings.dtype in (dtypes.float16, dtypes.bfloat16):
        embeddings = math_ops.cast(embeddings, dtypes.float32)
    if weights.dtype != embeddings.dtype:
        weights = math_ops.cast(weights, embeddings.dtype)
    ones_shape = array_ops.expand_dims(array_ops.rank(embeddings) - 1, 0)
    weights_shape = array_ops.shape(weights)
    ones = array_ops.ones(ones_shape, dtype=weights_shape.dtype)
    bcast_shape = join_ops.concat([weights_shape, ones], 0)
    original_weights_shape = weights.shape
    weights = array_ops.reshape(weights, bcast_shape)
    if embeddings.shape.rank is not None:
        weights.set_shape(original_weights_shape.concatenate([1] * (embeddings.shape.rank - 1)))
    embeddings *= weights
    if combiner == "sum":
        embeddings = segment_ops.segment_sum(embeddings, segment_ids, name=name)
    elif combiner == "mean":
        embeddings = segment_ops.segment_sum(embeddings, segment_ids)
        weight_sum = segment_ops.segment_sum(weights, segment_ids)
        embeddings = math_ops.div_no_nan(embeddings, weight_sum, name=name)
    else:
        embeddings = segment_ops.segment_sum(embeddings, segment_ids)
        weight_sum = segment_ops.segment_sum(math_ops.pow(weights, 2), segment_ids)
        embeddings = math_ops.div_no_nan(embeddings, unary_math_ops.sqrt(weight_sum), name=name)
    if embeddings.dtype != original_dtype:
        embeddings = math_ops.cast(embeddings, original_dtype)
    return embeddings


@tf_export("nn.safe_embedding_lookup_sparse")
def safe_embedding_lookup_sparse(
    embedding_weights,
    sparse_ids,
    sparse_weights=None,
    combiner="mean",
    default_id=None,
    name=None,
    partition_strategy="div",
    max_norm=None,
    allow_fast_lookup=False,
):
    """``embedding_lookup_sparse`` for ids of any rank >= 2 that tolerates invalid ids
    (< 0, dropped), non-positive weights (dropped unless "sum") and empty rows (the
    embedding of ``default_id``, or zeros)."""
    from tfcompat.framework.sparse_tensor import SparseTensor
    from tfcompat.ops import join_ops, math_ops, pad_ops, reduction_ops, slicing_ops, sparse_ops

    if embedding_weights is None:
        raise ValueError(f"Missing embedding_weights {embedding_weights}.")
    if hasattr(embedding_weights, "_get_variable_list"):
        embedding_weights = list(embedding_weights)
    if not isinstance(embedding_weights, list):
        embedding_weights = [embedding_weights]
    if len(embedding_weights) < 1:
        raise ValueError(f"Missing embedding_weights {embedding_weights}.")
    dtype = sparse_weights.dtype if sparse_weights is not None else None
    embedding_weights = [convert_to_tensor(w, dtype=dtype) for w in embedding_weights]
    with array_ops._scope(name, "embedding_lookup") as scope:
        original_shape = sparse_ids.dense_shape
        rank_dim = tensor_shape.dimension_value(sparse_ids.dense_shape.shape[0])
        rank = array_ops.size(original_shape) if rank_dim is None else rank_dim
        sparse_ids = sparse_ops.sparse_reshape(
            sparse_ids,
            [
                reduction_ops.reduce_prod(slicing_ops.slice(original_shape, [0], [rank - 1])),
                array_ops.gather(original_shape, rank - 1),
            ],
        )
        if sparse_weights is not None:
            sparse_weights = SparseTensor(
                sparse_ids.indices, sparse_weights.values, sparse_ids.dense_shape
            )
        sparse_ids, sparse_weights = _prune_invalid_ids(sparse_ids, sparse_weights)
        if combiner != "sum":
            sparse_ids, sparse_weights = _prune_invalid_weights(sparse_ids, sparse_weights)
        sparse_ids, is_row_empty = sparse_ops.sparse_fill_empty_rows(sparse_ids, default_id or 0)
        if sparse_weights is not None:
            sparse_weights, _ = sparse_ops.sparse_fill_empty_rows(sparse_weights, 1.0)
        result = embedding_lookup_sparse(
            embedding_weights,
            sparse_ids,
            sparse_weights,
            combiner=combiner,
            partition_strategy=partition_strategy,
            name=None if default_id is None else scope,
            max_norm=max_norm,
            allow_fast_lookup=allow_fast_lookup,
        )
        if default_id is None:
            is_row_empty = pad_ops.tile(
                array_ops.reshape(is_row_empty, [-1, 1]),
                join_ops.stack([1, array_ops.shape(result)[1]]),
            )
            result = math_ops.where(is_row_empty, array_ops.zeros_like(result), result, name=scope)
        final = array_ops.reshape(
            result,
            join_ops.concat(
                [
                    slicing_ops.slice(math_ops.cast(original_shape, dtypes.int32), [0], [rank - 1]),
                    slicing_ops.slice(array_ops.shape(result), [1], [-1]),
                ],
                0,
            ),
        )
        leading = None if rank_dim is None else rank_dim - 1
        final.set_shape(tensor_shape.unknown_shape(leading).concatenate(result.shape[1:]))
        return final


def _prune_invalid_ids(sparse_ids, sparse_weights):
    from tfcompat.ops import math_ops, sparse_ops

    is_valid = math_ops.greater_equal(sparse_ids.values, 0)
    if sparse_weights is not None:
        is_valid = math_ops.logical_and(
            is_valid, array_ops.ones_like(sparse_weights.values, dtype=dtypes.bool)
        )
    sparse_ids = sparse_ops.sparse_retain(sparse_ids, is_valid)
    if sparse_weights is not None:
        sparse_weights = sparse_ops.sparse_retain(sparse_weights, is_valid)
    return sparse_ids, sparse_weights


def _prune_invalid_weights(sparse_ids, sparse_weights):
    from tfcompat.ops import math_ops, sparse_ops

    if sparse_weights is not None:
        is_valid = math_ops.greater(sparse_weights.values, 0)
        sparse_ids = sparse_ops.sparse_retain(sparse_ids, is_valid)
        sparse_weights = sparse_ops.sparse_retain(sparse_weights, is_valid)
    return sparse_ids, sparse_weights
