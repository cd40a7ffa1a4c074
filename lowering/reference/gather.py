"""Numpy reference kernels of gather/scatter, one-hot, unique and band/diagonal ops.
Out-of-range indices raise InvalidArgumentError naming the op, as TF's CPU kernels do."""

from __future__ import annotations

import numpy as np

from lowering.registry import reference
from tfcompat.framework import errors
from tfcompat.ops.gather_ops import single_diagonal


def _fail(op, message):
    raise errors.InvalidArgumentError(None, op, f"{message}\n\t [[{{{{node {op.name}}}}}]]")


# Signed index dtypes -> their unsigned twins (same width).
_UNSIGNED = {np.dtype(f"int{bits}"): np.dtype(f"uint{bits}") for bits in (8, 16, 32, 64)}


def _check_range(op, indices, limit):
    # The common (valid) case costs one reduction: viewed as unsigned, negative indices are
    # larger than any limit.
    unsigned = _UNSIGNED.get(indices.dtype)
    if unsigned is not None and indices.size and int(indices.view(unsigned).max()) < limit:
        return
    bad = np.argwhere((indices < 0) | (indices >= limit))
    if bad.size:
        where = ",".join(str(int(v)) for v in bad[0])
        _fail(op, f"indices[{where}] = {indices[tuple(bad[0])]} is not in [0, {limit})")


def _gather(params, indices, axis, batch_dims):
    if batch_dims == 0:
        return params.take(indices, axis=axis)
    return np.stack([_gather(p, i, axis - 1, batch_dims - 1) for p, i in zip(params, indices)])


@reference("GatherV2")
def _gather_v2(ctx, op, params, indices, axis):
    params, indices = np.asarray(params), np.asarray(indices)
    axis = int(axis) % params.ndim
    limit = params.shape[axis]
    if not indices.ndim:  # a scalar index: no array reductions
        i = int(indices)
        if not 0 <= i < limit:
            _check_range(op, indices, limit)
        if params.ndim == 1:  # one element of a shape vector (a numpy scalar, as take gives)
            return params[i]
        return params.take(indices, axis=axis)
    batch_dims = op.attrs["batch_dims"] % indices.ndim
    _check_range(op, indices, limit)
    return _gather(params, indices, axis, batch_dims)


@reference("Gather")
def _gather_v1(ctx, op, params, indices):
    params, indices = np.asarray(params), np.asarray(indices)
    _check_range(op, indices, params.shape[0])
    return np.take(params, indices, axis=0)


@reference("GatherNd")
def _gather_nd(ctx, op, params, indices):
    params, indices = np.asarray(params), np.asarray(indices)
    depth = indices.shape[-1]
    out_shape = indices.shape[:-1] + params.shape[depth:]
    if depth == 0:  # every index picks all of params
        return np.broadcast_to(params, out_shape).copy()
    flat = indices.reshape(-1, depth)
    _check_nd_range(
        op,
        indices,
        flat,
        params.shape[:depth],
        "param shape",
        params.shape,
        f", node name: {op.name}",
    )
    return params[tuple(flat.T)].reshape(out_shape)


def _check_nd_range(op, indices, flat, bounds, what, shape, suffix=""):
    """TF's CPU kernels (GatherNd, ScatterNd) name the last index out of range, by its
    place in the leading dimensions of ``indices``."""
    bad = ((flat < 0) | (flat >= np.asarray(bounds, dtype=np.int64))).any(axis=1)
    if not bad.any():
        return
    row = int(np.flatnonzero(bad)[-1])
    place = np.unravel_index(row, indices.shape[:-1])
    where = "[" + ",".join(str(int(i)) for i in place) + "]" if place else ""
    _fail(
        op,
        f"indices{where} = [{', '.join(map(str, flat[row]))}] does not index into {what} "
        f"[{','.join(map(str, shape))}]{suffix}",
    )


@reference("ScatterNd")
def _scatter_nd(ctx, op, indices, updates, shape):
    indices, updates = np.asarray(indices), np.asarray(updates)
    shape = [int(d) for d in np.asarray(shape).reshape(-1)]
    depth = indices.shape[-1]
    rows = int(np.prod(indices.shape[:-1], dtype=np.int64))
    if depth == 0:  # TF's CPU kernel refuses an index of no dimensions
        _fail(
            op,
            "Indices and updates specified for empty output shape"
            if rows
            else "Only indices.shape[-1] values between 1 and 5 are currently supported.  "
            "Requested rank: 0",
        )
    flat = indices.reshape(rows, depth)
    flat_updates = updates.reshape((rows,) + tuple(shape[depth:]))
    _check_nd_range(op, indices, flat, shape[:depth], "shape", shape)
    out = np.zeros(shape, dtype=updates.dtype)
    if out.dtype == object:  # strings: no ufunc to accumulate with
        for index, update in zip(flat.tolist(), flat_updates):
            out[tuple(index)] += update
        return out
    np.add.at(out, tuple(flat.T), flat_updates)  # duplicate indices add up, as in TF
    return out


@reference("OneHot")
def _one_hot(ctx, op, indices, depth, on_value, off_value):
    indices = np.asarray(indices)
    depth = int(depth)
    if depth < 0:
        _fail(op, f"depth must be non-negative, got: {depth}")
    out = np.full(indices.shape + (depth,), off_value, dtype=np.asarray(on_value).dtype)
    hit = (indices >= 0) & (indices < depth)
    out[hit, indices[hit]] = on_value
    axis = op.attrs["axis"]
    return out if axis == -1 else np.moveaxis(out, -1, axis)


@reference("Unique")
def _unique(ctx, op, x):
    x = np.asarray(x)
    if x.ndim != 1:
        _fail(op, "unique expects a 1D vector.")
    out_idx = op.attrs["out_idx"].as_numpy_dtype
    if x.dtype.kind in "biuO" and x.size:
        # Sorted, then renumbered in order of first appearance (TF's order). Floats keep
        # the loop below: TF keeps each NaN apart and the first of 0.0 / -0.0.
        values, first, inverse = np.unique(x, return_index=True, return_inverse=True)
        order = np.argsort(first, kind="stable")
        rank = np.empty(order.size, dtype=np.int64)
        rank[order] = np.arange(order.size)
        return values[order], rank[inverse.reshape(-1)].astype(out_idx)
    first = {}
    idx = np.empty(x.shape, dtype=out_idx)
    for i, v in enumerate(x.tolist()):
        idx[i] = first.setdefault(v, len(first))
    y = np.empty(len(first), dtype=x.dtype)
    for v, k in first.items():
        y[k] = v
    return y, idx


@reference("UniqueWithCounts")
def _unique_with_counts(ctx, op, x):
    y, idx = _unique(ctx, op, x)
    return y, idx, np.bincount(idx, minlength=len(y)).astype(idx.dtype)


@reference("MatrixBandPart")
def _matrix_band_part(ctx, op, x, num_lower, num_upper):
    x = np.asarray(x)
    rows, cols = x.shape[-2:]
    lower, upper = int(num_lower), int(num_upper)
    if lower > rows or upper > cols:
        _fail(
            op,
            f"num_lower must be negative or less or equal to number of rows ({rows}) got: {lower}",
        )
    below = np.subtract.outer(np.arange(rows), np.arange(cols))  # i - j
    keep = ((lower < 0) | (below <= lower)) & ((upper < 0) | (-below <= upper))
    return np.where(keep, x, np.zeros((), x.dtype))


@reference("Diag")
def _diag(ctx, op, d):
    d = np.asarray(d)
    n = d.size
    out = np.zeros((n, n), dtype=d.dtype)
    out[np.arange(n), np.arange(n)] = d.reshape(-1)
    return out.reshape(d.shape + d.shape)


@reference("DiagPart")
def _diag_part(ctx, op, x):
    x = np.asarray(x)
    half = x.shape[: x.ndim // 2]
    n = int(np.prod(half))
    return x.reshape(n, n)[np.arange(n), np.arange(n)].reshape(half)


def _diag_matrices(d, k, rows, cols, padding):
    out = np.full(d.shape[:-1] + (rows, cols), padding, dtype=d.dtype)
    for n in range(d.shape[-1]):
        i, j = (n, n + k) if k >= 0 else (n - k, n)
        if i < rows and j < cols:
            out[..., i, j] = d[..., n]
    return out


@reference("MatrixDiag")
def _matrix_diag(ctx, op, d):
    d = np.asarray(d)
    return _diag_matrices(d, 0, d.shape[-1], d.shape[-1], 0)


@reference("MatrixDiagPart")
def _matrix_diag_part(ctx, op, x):
    return np.diagonal(np.asarray(x), axis1=-2, axis2=-1).copy()


@reference("MatrixDiagV3")
def _matrix_diag_v3(ctx, op, d, k, num_rows, num_cols, padding):
    d = np.asarray(d)
    k = single_diagonal(k)
    side = d.shape[-1] + abs(k)
    rows = side if int(num_rows) == -1 else int(num_rows)
    cols = side if int(num_cols) == -1 else int(num_cols)
    return _diag_matrices(d, k, rows, cols, padding)


@reference("MatrixSetDiagV3")
def _matrix_set_diag_v3(ctx, op, x, d, k):
    x, d = np.array(x), np.asarray(d)
    k = single_diagonal(k)
    rows, cols = x.shape[-2:]
    length = max(0, min(rows + min(k, 0), cols - max(k, 0)))
    if d.shape[:-1] != x.shape[:-2] or d.shape[-1] != length:
        raise errors.InvalidArgumentError(
            None,
            op,
            f"diagonal must be at least 1-dim and have shape {list(x.shape[:-2]) + [length]}"
            f", got {list(d.shape)}",
        )
    for n in range(length):
        x[..., n - min(k, 0), n + max(k, 0)] = d[..., n]
    return x


@reference("MatrixDiagPartV3")
def _matrix_diag_part_v3(ctx, op, x, k, padding):
    return np.diagonal(np.asarray(x), offset=single_diagonal(k), axis1=-2, axis2=-1).copy()


@reference("DynamicPartition")
def _dynamic_partition(ctx, op, data, partitions):
    data, partitions = np.asarray(data), np.asarray(partitions)
    num = op.attrs["num_partitions"]
    bad = np.argwhere((partitions < 0) | (partitions >= num))
    if bad.size:
        where = ",".join(str(int(v)) for v in bad[0])
        _fail(op, f"partitions[{where}] = {partitions[tuple(bad[0])]} is not in [0, {num})")
    rows = data.reshape((partitions.size,) + data.shape[partitions.ndim :])
    flat = partitions.reshape(-1)
    return tuple(rows[flat == p] for p in range(num))


@reference("ParallelDynamicStitch")
def _parallel_dynamic_stitch(ctx, op, *inputs):
    n = op.attrs["N"]
    indices = [np.asarray(i) for i in inputs[:n]]
    data = [np.asarray(d) for d in inputs[n:]]
    row_shape = data[0].shape[indices[0].ndim :]
    rows = max([int(i.max()) + 1 for i in indices if i.size] or [0])
    merged = np.zeros((rows,) + row_shape, dtype=data[0].dtype)
    for index, values in zip(indices, data):
        if (index < 0).any():
            _fail(op, f"indices[{int(np.argmax(index < 0))}] is out of range")
        merged[index.reshape(-1)] = values.reshape((-1,) + row_shape)
    return merged


def _tensor_scatter(combine):
    def kernel(ctx, op, tensor, indices, updates):
        tensor, indices, updates = np.asarray(tensor), np.asarray(indices), np.asarray(updates)
        depth = indices.shape[-1]
        flat = indices.reshape(-1, depth).astype(np.int64)
        _check_nd_range(op, indices, flat, tensor.shape[:depth], "shape", tensor.shape)
        out = tensor.copy()
        rows = updates.reshape((flat.shape[0],) + tensor.shape[depth:])
        for index, row in zip(flat.tolist(), rows):  # in order: a later update wins
            out[tuple(index)] = combine(out[tuple(index)], row)
        return out

    return kernel


reference("TensorScatterUpdate")(_tensor_scatter(lambda old, new: new))
reference("TensorScatterAdd")(_tensor_scatter(lambda old, new: old + new))
reference("TensorScatterSub")(_tensor_scatter(lambda old, new: old - new))
reference("TensorScatterMax")(_tensor_scatter(np.maximum))
reference("TensorScatterMin")(_tensor_scatter(np.minimum))


@reference("Roll")
def _roll(ctx, op, x, shift, axis):
    shift = [int(s) for s in np.asarray(shift).reshape(-1)]
    axis = [int(a) for a in np.asarray(axis).reshape(-1)]
    return np.roll(np.asarray(x), shift, axis)
