"""JAX lowerings of gather/scatter, one-hot, band/diagonal ops, and the partition/stitch ops
of sharded embedding lookups (static upper bounds, see ``tfcompat.ops.embedding_ops``).

Out-of-range indices cannot raise inside an XLA computation; these rules follow TF's GPU
kernels instead: gathers read zeros for them and ScatterNd drops their updates (the
reference kernels raise InvalidArgumentError as TF's CPU kernels do).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from lowering.array import static_int, static_ints, static_value
from lowering.registry import lowering
from tfcompat.ops.gather_ops import single_diagonal


def _take(params, indices, axis):
    """``params`` gathered at ``indices`` along ``axis``; zeros where out of range."""
    n = params.shape[axis]
    valid = (indices >= 0) & (indices < n)
    taken = jnp.take(params, jnp.where(valid, indices, 0), axis=axis)
    mask = valid.reshape(valid.shape + (1,) * (params.ndim - axis - 1))
    return jnp.where(mask, taken, jnp.zeros((), params.dtype))


def gather(params, indices, axis, batch_dims):
    take = lambda p, i: _take(p, i, axis - batch_dims)  # noqa: E731
    for _ in range(batch_dims):
        take = jax.vmap(take)
    return take(params, indices)


@lowering("GatherV2")
def _gather_v2(ctx, op, params, indices, axis):
    params, indices = jnp.asarray(params), jnp.asarray(indices)
    axis = static_int(op, 2, axis)
    batch_dims = op.attrs["batch_dims"]
    if batch_dims < 0:
        batch_dims += indices.ndim
    return gather(params, indices, axis % params.ndim, batch_dims)


@lowering("Gather")
def _gather(ctx, op, params, indices):
    return _take(jnp.asarray(params), jnp.asarray(indices), 0)


@lowering("GatherNd")
def _gather_nd(ctx, op, params, indices):
    params, indices = jnp.asarray(params), jnp.asarray(indices)
    depth = indices.shape[-1]
    bounds = jnp.asarray(params.shape[:depth], dtype=indices.dtype)
    valid = jnp.all((indices >= 0) & (indices < bounds), axis=-1)
    safe = jnp.where(valid[..., None], indices, 0)
    taken = params[tuple(jnp.moveaxis(safe, -1, 0))]
    mask = valid.reshape(valid.shape + (1,) * (params.ndim - depth))
    return jnp.where(mask, taken, jnp.zeros((), params.dtype))


@lowering("ScatterNd")
def _scatter_nd(ctx, op, indices, updates, shape):
    shape = static_ints(op, 2, shape)
    indices = jnp.asarray(indices)
    depth = indices.shape[-1]
    bounds = jnp.asarray(shape[:depth], dtype=indices.dtype)
    valid = jnp.all((indices >= 0) & (indices < bounds), axis=-1, keepdims=True)
    # Invalid rows point past the end, where mode="drop" discards them.
    safe = jnp.where(valid, indices, bounds)
    out = jnp.zeros(shape, dtype=jnp.asarray(updates).dtype)
    return out.at[tuple(jnp.moveaxis(safe, -1, 0))].add(updates, mode="drop")


@lowering("OneHot")
def _one_hot(ctx, op, indices, depth, on_value, off_value):
    depth = static_int(op, 1, depth)
    indices = jnp.asarray(indices)
    hits = indices[..., None] == jnp.arange(depth, dtype=indices.dtype)
    out = jnp.where(hits, on_value, off_value)
    axis = op.attrs["axis"]
    return out if axis == -1 else jnp.moveaxis(out, -1, axis)


def _band_mask(rows, cols, num_lower, num_upper):
    i = jnp.arange(rows)[:, None]
    j = jnp.arange(cols)[None, :]
    lower_ok = (num_lower < 0) | (i - j <= num_lower)
    upper_ok = (num_upper < 0) | (j - i <= num_upper)
    return lower_ok & upper_ok


@lowering("MatrixBandPart")
def _matrix_band_part(ctx, op, x, num_lower, num_upper):
    x = jnp.asarray(x)
    mask = _band_mask(x.shape[-2], x.shape[-1], num_lower, num_upper)
    return jnp.where(mask, x, jnp.zeros((), x.dtype))


@lowering("Diag")
def _diag(ctx, op, d):
    d = jnp.asarray(d)
    return jnp.diag(d.reshape(-1)).reshape(d.shape + d.shape)


@lowering("DiagPart")
def _diag_part(ctx, op, x):
    x = jnp.asarray(x)
    half = x.shape[: x.ndim // 2]
    n = int(jnp.size(x) ** 0.5 + 0.5)
    return jnp.diagonal(x.reshape(n, n)).reshape(half)


def _diag_matrix(d, k, rows, cols, padding):
    """Matrices of shape (rows, cols) holding ``d`` on diagonal ``k``, ``padding`` elsewhere."""
    i = jnp.arange(rows)[:, None]
    j = jnp.arange(cols)[None, :]
    on_diag = (j - i) == k
    position = jnp.clip(i if k >= 0 else j, 0, d.shape[-1] - 1)
    values = jnp.take(d, position, axis=-1)  # [..., rows, cols]
    return jnp.where(on_diag, values, padding)


@lowering("MatrixDiag")
def _matrix_diag(ctx, op, d):
    d = jnp.asarray(d)
    n = d.shape[-1]
    return _diag_matrix(d, 0, n, n, jnp.zeros((), d.dtype))


@lowering("MatrixDiagPart")
def _matrix_diag_part(ctx, op, x):
    return jnp.diagonal(x, axis1=-2, axis2=-1)


@lowering("MatrixDiagV3")
def _matrix_diag_v3(ctx, op, d, k, num_rows, num_cols, padding):
    d = jnp.asarray(d)
    k = single_diagonal(static_value(op, 1, k))
    side = d.shape[-1] + abs(k)
    rows, cols = static_int(op, 2, num_rows), static_int(op, 3, num_cols)
    return _diag_matrix(
        d,
        k,
        side if rows == -1 else rows,
        side if cols == -1 else cols,
        jnp.asarray(padding, d.dtype),
    )


@lowering("MatrixSetDiagV3")
def _matrix_set_diag_v3(ctx, op, x, d, k):
    x = jnp.asarray(x)
    k = single_diagonal(static_value(op, 2, k))
    rows, cols = x.shape[-2:]
    i = jnp.arange(rows)[:, None]
    j = jnp.arange(cols)[None, :]
    on_diag = (j - i) == k
    position = jnp.clip(i if k >= 0 else j, 0, max(jnp.shape(d)[-1] - 1, 0))
    values = jnp.take(jnp.asarray(d, x.dtype), position, axis=-1)
    return jnp.where(on_diag, values, x)


@lowering("MatrixDiagPartV3")
def _matrix_diag_part_v3(ctx, op, x, k, padding):
    k = single_diagonal(static_value(op, 1, k))
    return jnp.diagonal(x, offset=k, axis1=-2, axis2=-1)


# -- DynamicPartition / ParallelDynamicStitch: static upper bounds ----------------------------
def partition_padding(dtype):
    """What fills a DynamicPartition output past its entries: -1 for integers (an index
    ParallelDynamicStitch drops and a gather reads as zeros), 0 otherwise."""
    return -1 if jnp.issubdtype(dtype, jnp.integer) else 0


@lowering("DynamicPartition")
def _dynamic_partition(ctx, op, data, partitions):
    """Each partition padded to the input's length: its entries in order, then padding.
    Entries with a partition outside ``[0, num_partitions)`` are dropped."""
    ctx.padded_partitions.add(op)
    data, partitions = jnp.asarray(data), jnp.asarray(partitions)
    n = partitions.size
    rows = data.reshape((n,) + data.shape[partitions.ndim :])
    flat = partitions.reshape(-1)
    outputs = []
    for p in range(op.attrs["num_partitions"]):
        member = flat == p
        slot = jnp.where(member, jnp.cumsum(member) - 1, n)  # n: out of range, dropped
        filled = jnp.full(rows.shape, partition_padding(rows.dtype), rows.dtype)
        outputs.append(filled.at[slot].set(rows, mode="drop"))
    return tuple(outputs)


def _stitch_source(tensor):
    """The op an index tensor comes from, looking through Identity."""
    op = tensor.op
    while op.type == "Identity":
        op = op.inputs[0].op
    return op


def stitch_rows(op, indices, padded_partitions=()) -> int:
    """Output rows of a stitch whose indices are only known at run time: the number of
    index entries, counting the padded outputs of a DynamicPartition lowered in the same
    trace (``padded_partitions``) once per partitioned input (exact when the indices
    cover 0..rows-1, as when reassembling a partition). Partitions computed on the host
    come in exact, whatever their type."""
    rows, seen = 0, set()
    for tensor, value in zip(op.inputs, indices):
        source = _stitch_source(tensor)
        if source in padded_partitions:  # each padded output is as long as the input
            if source not in seen:
                seen.add(source)
                rows += int(np.shape(value)[0])
        else:
            rows += int(np.size(value))
    return rows


def _rows_like(data, count, row_shape):
    """``data`` as ``count`` rows: a padded partition met by exact (build-time) indices is
    cut to its entries, exact data met by padded indices is padded (those rows drop)."""
    flat = jnp.reshape(data, (-1,) + row_shape)
    if flat.shape[0] >= count:
        return flat[:count]
    return jnp.pad(flat, [(0, count - flat.shape[0])] + [(0, 0)] * len(row_shape))


@lowering("ParallelDynamicStitch")
def _parallel_dynamic_stitch(ctx, op, *inputs):
    n = op.attrs["N"]
    indices, data = inputs[:n], [jnp.asarray(d) for d in inputs[n:]]
    static_rows = op.outputs[0].shape.as_list()[0] if op.outputs[0].shape.rank else None
    rows = (
        static_rows if static_rows is not None else stitch_rows(op, indices, ctx.padded_partitions)
    )
    row_shape = data[0].shape[np.ndim(indices[0]) :]
    flat_index = jnp.concatenate([jnp.reshape(i, -1) for i in indices])
    flat_index = jnp.where(flat_index < 0, rows, flat_index)  # padding: dropped
    flat_data = jnp.concatenate(
        [_rows_like(d, np.size(i), row_shape) for i, d in zip(indices, data)]
    )
    merged = jnp.zeros((rows,) + row_shape, data[0].dtype)
    return merged.at[flat_index].set(flat_data, mode="drop")


def _tensor_scatter(update):
    def rule(ctx, op, tensor, indices, updates):
        indices = jnp.asarray(indices)
        depth = indices.shape[-1]
        bounds = jnp.asarray(tensor.shape[:depth], dtype=indices.dtype)
        valid = jnp.all((indices >= 0) & (indices < bounds), axis=-1, keepdims=True)
        safe = jnp.where(valid, indices, bounds)  # out of range: dropped
        return update(tensor.at[tuple(jnp.moveaxis(safe, -1, 0))], updates)

    return rule


lowering("TensorScatterUpdate")(_tensor_scatter(lambda at, u: at.set(u, mode="drop")))
lowering("TensorScatterAdd")(_tensor_scatter(lambda at, u: at.add(u, mode="drop")))
lowering("TensorScatterSub")(_tensor_scatter(lambda at, u: at.add(-u, mode="drop")))
lowering("TensorScatterMax")(_tensor_scatter(lambda at, u: at.max(u, mode="drop")))
lowering("TensorScatterMin")(_tensor_scatter(lambda at, u: at.min(u, mode="drop")))


@lowering("Roll")
def _roll(ctx, op, x, shift, axis):
    shifts = static_ints(op, 1, shift)
    axes = static_ints(op, 2, axis)
    return jnp.roll(x, shifts, axes)
