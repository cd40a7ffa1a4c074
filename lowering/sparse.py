"""JAX lowerings of the sparse ops with dense outputs and of the sparse segment reductions.

Entries are scattered into (or gathered from) dense arrays with ``mode="drop"``: an entry
whose indices are padding (``-1``, see ``lowering/buckets.py``) or out of range is pointed
past the end and dropped, so padded and exact inputs give the same result. Output sizes
that depend on values (``dense_shape``, the last segment id, the number of distinct
indices) come from the graph when it knows them, else from the host-computed hints of the
step (``ctx.sparse_hints``, filled by ``lowering/buckets.py``).
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from lowering import static as static_lib
from lowering.registry import lowering


# ---------------------------------------------------------------------------------------------
# Static values: graph constants, folded numpy values, or the step's host hints
# ---------------------------------------------------------------------------------------------
def hints(ctx) -> dict:
    return getattr(ctx, "sparse_hints", None) or {}


def static_input(ctx, op, index, value) -> np.ndarray:
    """Input ``index`` as numpy: folded at trace time, a host hint, or a graph constant."""
    if static_lib.is_static(value):
        return np.asarray(value)
    hint = hints(ctx).get((op.name, index))
    if hint is not None:
        return np.asarray(hint)
    return static_lib.static_value(op, index, value)


def static_shape(ctx, op, index, value) -> tuple:
    return tuple(int(d) for d in static_input(ctx, op, index, value).reshape(-1))


def _hint(ctx, op, key, compute, value):
    """A size the values determine: computed here when ``value`` is static, else hinted."""
    if static_lib.is_static(value):
        return compute(np.asarray(value))
    found = hints(ctx).get((op.name, key))
    if found is None:
        raise static_lib.StaticValueRequired(
            None,
            op,
            f"{op.type} needs its {key} count at compile time\n\t [[{{{{node {op.name}}}}}]]",
        )
    return int(found)


def last_segment(segment_ids) -> int:
    """Rows of a sparse segment reduction: the last (largest) valid id + 1."""
    valid = np.asarray(segment_ids)
    valid = valid[valid >= 0]
    return int(valid.max()) + 1 if valid.size else 0


def distinct_count(indices, segment_ids) -> int:
    """Rows of a ``*GradV2`` output: the distinct indices of the non-padding entries."""
    keep = np.asarray(segment_ids) >= 0
    return int(np.unique(np.asarray(indices)[keep]).size)


def is_row_sparse_grad(op) -> bool:
    """``SparseSegment{Sum,Mean,SqrtN}GradV2``: the row-sparse gradient of a lookup."""
    return op.type.startswith("SparseSegment") and op.type.endswith("GradV2")


def distinct_rows(indices, segment_ids, dim0, padded_length=None):
    """The host's half of a ``*GradV2``: ``(rows, inverse)`` where ``rows`` are the
    distinct indices of the non-padding entries, ascending, and ``inverse[i]`` is the row
    entry ``i`` adds into. With ``padded_length`` (the entries were padded to a bucket)
    both have that length: extra rows hold ``dim0`` (out of range: optimizers drop them)
    and padding entries point past the last row, so the step drops them too."""
    keep = np.asarray(segment_ids) >= 0
    indices = np.asarray(indices)
    kept = indices[keep]
    # np.unique(return_inverse=True) in fewer numpy passes (this runs per table per step):
    # sort once, mark each run's first element, number the runs back in input order.
    order = np.argsort(kept)
    ordered = kept[order]
    first = np.empty(ordered.shape, bool)
    first[:1] = True
    np.not_equal(ordered[1:], ordered[:-1], out=first[1:])
    distinct = ordered[first]
    size = distinct.size if padded_length is None else padded_length
    rows = np.full(size, dim0, indices.dtype)
    rows[: distinct.size] = distinct
    inverse = np.full(size if padded_length else indices.shape[0], size, np.int32)
    kept_inverse = np.empty(kept.shape, np.int32)
    kept_inverse[order] = np.cumsum(first) - 1
    inverse[: indices.shape[0]][keep] = kept_inverse
    return rows, inverse


# ---------------------------------------------------------------------------------------------
# Entries
# ---------------------------------------------------------------------------------------------
def _as_matrix(indices):
    indices = jnp.asarray(indices)
    return indices.reshape(-1, 1) if indices.ndim < 2 else indices


def _targets(indices, shape):
    """Index tuple for ``.at[]``: padding and out-of-range entries point past the end."""
    bounds = jnp.asarray(shape, dtype=indices.dtype)
    valid = jnp.all((indices >= 0) & (indices < bounds), axis=1)
    past_end = jnp.where(valid[:, None], indices, bounds)
    return tuple(past_end[:, i] for i in range(indices.shape[1]))


def _dense(indices, values, shape, dtype, base=None):
    indices = _as_matrix(indices)
    values = jnp.broadcast_to(jnp.asarray(values, dtype), (indices.shape[0],))
    out = jnp.zeros(shape, dtype) if base is None else base
    if not shape:
        return out + jnp.sum(jnp.where(jnp.all(indices == 0, axis=1), values, 0))
    return out.at[_targets(indices, shape)].add(values, mode="drop")


@lowering("SparseToDense")
def _sparse_to_dense(ctx, op, indices, output_shape, values, default):
    shape = static_shape(ctx, op, 1, output_shape)
    dtype = op.outputs[0].dtype.as_numpy_dtype
    indices = _as_matrix(indices)
    values = jnp.broadcast_to(jnp.asarray(values, dtype), (indices.shape[0],))
    out = jnp.full(shape, jnp.asarray(default, dtype), dtype)
    if not shape:
        return out
    return out.at[_targets(indices, shape)].set(values, mode="drop")


@lowering("SparseTensorDenseMatMul")
def _sparse_dense_matmul(ctx, op, a_indices, a_values, a_shape, b):
    """``A @ B`` as a segment sum of scaled rows of B: cost in proportion to A's entries."""
    rows_a, cols_a = static_shape(ctx, op, 2, a_shape)
    a_indices = jnp.asarray(a_indices)
    rows, cols = a_indices[:, 0], a_indices[:, 1]
    values = jnp.asarray(a_values)
    valid = (rows >= 0) & (rows < rows_a) & (cols >= 0) & (cols < cols_a)
    out_rows = rows_a
    if op.attrs["adjoint_a"]:
        rows, cols, values, out_rows = cols, rows, jnp.conj(values), cols_a
    b = jnp.asarray(b)
    if op.attrs["adjoint_b"]:
        b = jnp.conj(b.T)
    picked = b[jnp.clip(cols, 0, b.shape[0] - 1)] * values[:, None]
    target = jnp.where(valid, rows, out_rows)
    out = jnp.zeros((out_rows, b.shape[1]), b.dtype)
    return out.at[target].add(picked, mode="drop")


@lowering("SparseReduceSum")
def _sparse_reduce_sum(ctx, op, indices, values, shape, axes):
    shape = static_shape(ctx, op, 2, shape)
    rank = len(shape)
    axes = static_input(ctx, op, 3, axes).reshape(-1)
    axes = tuple(sorted({int(a) % rank if rank else int(a) for a in axes}))
    dense = _dense(indices, values, shape, op.outputs[0].dtype.as_numpy_dtype)
    return jnp.sum(dense, axis=axes, keepdims=op.attrs["keep_dims"])


@lowering("SparseTensorDenseAdd")
def _sparse_dense_add(ctx, op, indices, values, shape, b):
    b = jnp.asarray(b)
    return _dense(indices, values, b.shape, b.dtype, base=b)


@lowering("SparseFillEmptyRowsGrad")
def _fill_empty_rows_grad(ctx, op, reverse_index_map, grad_values):
    grad = jnp.asarray(grad_values)
    taken = grad[jnp.asarray(reverse_index_map)]
    return taken, jnp.sum(grad) - jnp.sum(taken)


# ---------------------------------------------------------------------------------------------
# Sparse segment reductions
# ---------------------------------------------------------------------------------------------
def _divisor(reduction, counts, dtype):
    counts = jnp.maximum(counts, 1).astype(dtype)
    return {"Sum": jnp.ones_like(counts), "Mean": counts, "SqrtN": jnp.sqrt(counts)}[reduction]


def _segment_rule(reduction, with_num):
    def rule(ctx, op, data, indices, segment_ids, *num):
        if with_num:
            n = int(static_input(ctx, op, 3, num[0]).reshape(()))
        else:
            n = _hint(ctx, op, "rows", last_segment, segment_ids)
        data = jnp.asarray(data)
        segment_ids, indices = jnp.asarray(segment_ids), jnp.asarray(indices)
        target = jnp.where(segment_ids >= 0, segment_ids, n)  # padding: dropped
        rows = data[jnp.clip(indices, 0, data.shape[0] - 1)]
        out = jnp.zeros((n,) + data.shape[1:], data.dtype).at[target].add(rows, mode="drop")
        if reduction == "Sum":
            return out
        counts = jnp.zeros((n,), jnp.int64).at[target].add(1, mode="drop")
        divisor = _divisor(reduction, counts, data.dtype)
        return out / divisor.reshape((n,) + (1,) * (data.ndim - 1))

    return rule


def _scaled_rows(reduction, grad, segment_ids):
    """Each entry's share of its segment's gradient (zero for padding entries)."""
    grad = jnp.asarray(grad)
    rows = grad.shape[0]
    valid = segment_ids >= 0
    target = jnp.where(valid, segment_ids, rows)
    counts = jnp.zeros((rows,), jnp.int64).at[target].add(1, mode="drop")
    scale = _divisor(reduction, counts, grad.dtype)
    safe = jnp.clip(segment_ids, 0, rows - 1)
    share = grad[safe] / scale[safe].reshape((-1,) + (1,) * (grad.ndim - 1))
    return jnp.where(valid.reshape((-1,) + (1,) * (grad.ndim - 1)), share, 0), valid


def _grad_rule(reduction):
    def rule(ctx, op, grad, indices, segment_ids, dim0):
        n = int(static_input(ctx, op, 3, dim0).reshape(()))
        segment_ids, indices = jnp.asarray(segment_ids), jnp.asarray(indices)
        share, valid = _scaled_rows(reduction, grad, segment_ids)
        target = jnp.where(valid & (indices >= 0), indices, n)
        out = jnp.zeros((n,) + share.shape[1:], share.dtype)
        return out.at[target].add(share, mode="drop")

    return rule


def _grad_v2_rule(reduction):
    """Row-sparse gradient: sums per distinct index, ascending. With padded inputs the
    output keeps the padded length (a static upper bound); the extra rows are zero and
    their index is ``dense_output_dim0``, out of range, so optimizers drop them."""

    def rule(ctx, op, grad, indices, segment_ids, dim0):
        n = int(static_input(ctx, op, 3, dim0).reshape(()))
        segment_ids, indices = jnp.asarray(segment_ids), jnp.asarray(indices)
        share, valid = _scaled_rows(reduction, grad, segment_ids)
        host = (getattr(ctx, "host_arrays", None) or {}).get(op.name)
        if host is not None:  # the distinct rows, computed on the host (lowering/buckets.py)
            unique, inverse = host
            size = unique.shape[0]
        else:
            if static_lib.is_static(indices) and static_lib.is_static(segment_ids):
                size = distinct_count(indices, segment_ids)
            else:
                size = hints(ctx).get((op.name, "unique"), indices.shape[0])
            keyed = jnp.where(valid, indices, n).astype(indices.dtype)
            unique, inverse = jnp.unique(
                keyed, size=size, fill_value=np.asarray(n, indices.dtype), return_inverse=True
            )
        out = jnp.zeros((size,) + share.shape[1:], share.dtype)
        out = out.at[inverse.reshape(-1)].add(share, mode="drop")
        return out, unique

    return rule


for _reduction in ("Sum", "Mean", "SqrtN"):
    lowering(f"SparseSegment{_reduction}")(_segment_rule(_reduction, False))
    lowering(f"SparseSegment{_reduction}WithNumSegments")(_segment_rule(_reduction, True))
    lowering(f"SparseSegment{_reduction}Grad")(_grad_rule(_reduction))
    lowering(f"SparseSegment{_reduction}GradV2")(_grad_v2_rule(_reduction))
