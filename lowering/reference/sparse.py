"""Numpy reference kernels of the sparse ops, with TF's CPU-kernel checks and messages.

They also run the host ops (value-dependent sizes) of XLA steps. Rows of indices that are
all ``-1`` are padding (``lowering/buckets.py``) and are skipped by the dense-output kernels.
"""

from __future__ import annotations

import math

import numpy as np

from lowering.registry import reference
from tfcompat.framework import errors


def _invalid(op, message):
    return errors.InvalidArgumentError(None, op, message)


def _entries(indices, values):
    """Indices as ``[n, rank]`` and values broadcast to ``n``, padding rows dropped."""
    indices = np.asarray(indices)
    indices = indices.reshape(-1, 1) if indices.ndim < 2 else indices
    values = np.broadcast_to(np.asarray(values), (indices.shape[0],))
    keep = ~np.all(indices == -1, axis=1) if indices.shape[1] else np.ones(len(indices), bool)
    return indices[keep], values[keep]


# ---------------------------------------------------------------------------------------------
# Dense outputs
# ---------------------------------------------------------------------------------------------
@reference("SparseToDense")
def _sparse_to_dense(ctx, op, indices, output_shape, values, default):
    shape = tuple(int(d) for d in np.reshape(output_shape, -1))
    indices, values = _entries(indices, values)
    dense = np.full(shape, np.asarray(default), dtype=np.asarray(values).dtype)
    _check_dense_indices(op, indices, shape)
    if len(indices):
        dense[tuple(indices.T)] = values
    return dense


def _check_dense_indices(op, indices, shape):
    """SparseToDense's checks: TF's ``IndicesValid`` with ``validate_indices``, else only
    bounds, with TF's bounds-only message."""
    if op.attrs.get("validate_indices", True):
        check_indices_valid(op, indices, shape)
        return
    if ((indices < 0) | (indices >= np.asarray(shape, dtype=np.int64))).any():
        raise _invalid(
            op, f"Indices are not valid (out of bounds).  Shape: [{','.join(map(str, shape))}]"
        )


def check_indices_valid(op, indices, shape):
    """TF's ``SparseTensor::IndicesValid``, vectorised: the first entry out of bounds, out
    of row-major order or repeated raises InvalidArgumentError with TF's message."""
    bounds = np.asarray(shape, dtype=np.int64)
    outside = ((indices < 0) | (indices >= bounds)).any(axis=1)
    failing = outside.copy()
    linear = None
    if len(indices) > 1 and len(bounds) and bounds.min() > 0:
        linear = np.ravel_multi_index(tuple(np.clip(indices, 0, bounds - 1).T), tuple(bounds))
        failing[1:] |= linear[1:] <= linear[:-1]
    if not failing.any():
        return
    i = int(np.argmax(failing))
    entry = f"indices[{i}] = [{','.join(map(str, indices[i]))}]"
    if outside[i]:
        message = f"{entry} is out of bounds: need 0 <= index < [{','.join(map(str, shape))}]"
    elif linear[i] == linear[i - 1]:
        message = f"{entry} is repeated"
    else:
        message = (
            f"{entry} is out of order. Many sparse ops require sorted indices.\n"
            "    Use `tf.sparse.reorder` to create a correctly ordered copy.\n\n"
        )
    raise _invalid(op, message)


@reference("SparseTensorDenseMatMul")
def _sparse_dense_matmul(ctx, op, a_indices, a_values, a_shape, b):
    rows, cols = (int(d) for d in a_shape)
    a = np.zeros((rows, cols), dtype=np.asarray(b).dtype)
    indices, values = _entries(a_indices, a_values)
    np.add.at(a, (indices[:, 0], indices[:, 1]), values)
    if op.attrs["adjoint_a"]:
        a = np.conj(a.T)
    b = np.asarray(b)
    if op.attrs["adjoint_b"]:
        b = np.conj(b.T)
    if a.shape[1] != b.shape[0]:
        raise _invalid(
            op,
            f"Cannot multiply A and B because inner dimension does not match: "
            f"{a.shape[1]} vs. {b.shape[0]}.  Did you forget a transpose?  "
            f"Dimensions of A: [{rows}, {cols}).  Dimensions of B: {list(b.shape)}",
        )
    return (a @ b).astype(b.dtype)


@reference("SparseReduceSum")
def _sparse_reduce_sum(ctx, op, indices, values, shape, axes):
    dense = _sparse_to_dense_array(indices, values, shape)
    rank = dense.ndim
    axes = tuple(sorted({int(a) % rank if rank else int(a) for a in np.reshape(axes, -1)}))
    out = np.sum(dense, axis=axes, keepdims=op.attrs["keep_dims"])
    return np.asarray(out, dtype=dense.dtype)


def _sparse_to_dense_array(indices, values, shape):
    shape = tuple(int(d) for d in np.reshape(shape, -1))
    indices, values = _entries(indices, values)
    dense = np.zeros(shape, dtype=np.asarray(values).dtype)
    if len(indices):
        np.add.at(dense, tuple(indices.T), values)
    return dense


@reference("SparseTensorDenseAdd")
def _sparse_dense_add(ctx, op, indices, values, shape, b):
    return np.asarray(b) + _sparse_to_dense_array(indices, values, shape).astype(
        np.asarray(b).dtype
    )


# ---------------------------------------------------------------------------------------------
# Sparse segment reductions
# ---------------------------------------------------------------------------------------------
def _scale(reduction, counts, dtype):
    """Per-segment divisor: 1 (sum), count (mean) or sqrt(count) (sqrtn); at least 1."""
    counts = np.maximum(counts, 1).astype(np.float64)
    table = {"Sum": np.ones_like(counts), "Mean": counts, "SqrtN": np.sqrt(counts)}
    return table[reduction].astype(dtype)


def _check_segments(op, data_rows, indices, segment_ids, num_segments):
    if indices.shape != segment_ids.shape:
        raise _invalid(op, "segment_ids and indices should have same size.")
    if segment_ids.size and np.any(np.diff(segment_ids) < 0):
        raise _invalid(op, "segment ids are not increasing")
    if segment_ids.size and (segment_ids[-1] >= num_segments or segment_ids[0] < 0):
        raise _invalid(
            op,
            f"Segment id {int(segment_ids[-1])} out of range [0, {num_segments}), "
            "possibly because 'segment_ids' input is not sorted.",
        )
    bad = (indices < 0) | (indices >= data_rows)
    if np.any(bad):
        i = int(np.argmax(bad))
        raise _invalid(op, f"Bad: indices[{i}] == {int(indices[i])} out of range [0, {data_rows})")


def _valid(indices, segment_ids):
    keep = np.asarray(segment_ids) >= 0  # padding entries carry segment id -1
    return np.asarray(indices)[keep], np.asarray(segment_ids)[keep]


def _segment_kernel(reduction, with_num):
    def kernel(ctx, op, data, indices, segment_ids, *num):
        data = np.asarray(data)
        indices, segment_ids = _valid(indices, segment_ids)
        if with_num:
            n = int(num[0])
        else:
            n = int(segment_ids[-1]) + 1 if segment_ids.size else 0
        _check_segments(op, data.shape[0], indices, segment_ids, n)
        acc = np.float64 if data.dtype.kind == "f" else data.dtype
        out = np.zeros((n,) + data.shape[1:], dtype=acc)
        np.add.at(out, segment_ids, data[indices].astype(acc))
        if reduction != "Sum":
            counts = np.bincount(segment_ids, minlength=n)[:n]
            out = out / _scale(reduction, counts, acc).reshape((n,) + (1,) * (data.ndim - 1))
        return out.astype(data.dtype)

    return kernel


def _grad_kernel(reduction, v2):
    def kernel(ctx, op, grad, indices, segment_ids, dim0):
        grad = np.asarray(grad)
        indices, segment_ids = _valid(indices, segment_ids)
        n = int(dim0)
        counts = np.bincount(segment_ids, minlength=grad.shape[0])
        scale = _scale(reduction, counts, np.float64)[segment_ids]
        rows = grad[segment_ids].astype(np.float64) / scale.reshape((-1,) + (1,) * (grad.ndim - 1))
        if v2:
            unique = np.unique(indices)
            out = np.zeros((unique.size,) + grad.shape[1:])
            np.add.at(out, np.searchsorted(unique, indices), rows)
            return out.astype(grad.dtype), unique.astype(indices.dtype)
        if np.any((indices < 0) | (indices >= n)):
            raise _invalid(op, f"Index {int(indices.max())} out of range [0, {n})")
        out = np.zeros((n,) + grad.shape[1:])
        np.add.at(out, indices, rows)
        return out.astype(grad.dtype)

    return kernel


for _reduction in ("Sum", "Mean", "SqrtN"):
    reference(f"SparseSegment{_reduction}")(_segment_kernel(_reduction, False))
    reference(f"SparseSegment{_reduction}WithNumSegments")(_segment_kernel(_reduction, True))
    reference(f"SparseSegment{_reduction}Grad")(_grad_kernel(_reduction, False))
    reference(f"SparseSegment{_reduction}GradV2")(_grad_kernel(_reduction, True))


# ---------------------------------------------------------------------------------------------
# Host ops: value-dependent sizes
# ---------------------------------------------------------------------------------------------
def _reshape_target(op, shape, new_shape):
    """The output dense shape (``new_shape`` with its -1 resolved), as a list of ints."""
    size = math.prod(shape)
    target = list(new_shape)
    unknown = [i for i, d in enumerate(target) if d == -1]
    if len(unknown) > 1:
        raise _invalid(
            op, f"only one output dimension may be -1, not both {unknown[0]} and {unknown[1]}"
        )
    if unknown:
        known = math.prod(d for d in target if d != -1)
        if known == 0 or size % known:
            raise _invalid(
                op,
                f"Input to reshape is a SparseTensor with {size} dense values, but "
                f"the requested shape requires a multiple of {known}. "
                f"inputShape={_text(shape)} outputShape={_text(target)}",
            )
        target[unknown[0]] = size // known
    if math.prod(target) != size:
        raise _invalid(
            op,
            f"Input to reshape is a tensor with {size} dense values, but the "
            f"requested shape has {math.prod(target)}. inputShape={_text(shape)} "
            f"outputShape={_text(target)}",
        )
    return target


@reference("SparseReshape")
def _sparse_reshape(ctx, op, indices, shape, new_shape):
    indices = np.asarray(indices, np.int64)
    shape = np.asarray(shape, np.int64).reshape(-1).tolist()
    target = _reshape_target(op, shape, np.asarray(new_shape, np.int64).reshape(-1).tolist())
    out_shape = np.array(target, np.int64)
    if not len(indices):
        return np.zeros((0, len(target)), np.int64), out_shape
    if target == shape:  # feature columns' common [-1, n] of a rank-2 input
        # The input forwarded, as TF's kernel does: host kernels never write their
        # inputs, and ops downstream then see the same array (see interpreter._RunTwin).
        return indices, out_shape
    flat = (
        np.ravel_multi_index(tuple(indices.T), tuple(shape))
        if shape
        else np.zeros(len(indices), np.int64)
    )
    out = (
        np.stack(np.unravel_index(flat, tuple(target)), axis=1)
        if target
        else np.zeros((len(indices), 0))
    )
    return out.astype(np.int64), out_shape


def _text(shape):
    return "[" + ",".join(str(int(d)) for d in shape) + "]"


def _row_major_order(indices):
    indices = np.asarray(indices)
    if not len(indices) or indices.shape[1] == 0:
        return np.arange(len(indices))
    return np.lexsort(indices.T[::-1])


@reference("SparseConcat")
def _sparse_concat(ctx, op, *inputs):
    n = op.attrs["N"]
    indices, values, shapes = inputs[:n], inputs[n : 2 * n], inputs[2 * n :]
    shapes = [np.asarray(s, np.int64) for s in shapes]
    rank = len(shapes[0])
    axis = op.attrs["concat_dim"] % rank
    offset, parts = 0, []
    for ind, shape in zip(indices, shapes):
        ind = np.asarray(ind, np.int64).copy()
        ind[:, axis] += offset
        parts.append(ind)
        offset += int(shape[axis])
    out_shape = shapes[0].copy()
    out_shape[axis] = offset
    all_indices = np.concatenate(parts)
    all_values = np.concatenate([np.asarray(v) for v in values])
    order = _row_major_order(all_indices)
    return all_indices[order], all_values[order], out_shape


def _covers_rows_in_order(row, rows) -> bool:
    """Whether the entries' row ids ``row`` are sorted and name every row of ``rows``: they
    go from 0 to rows - 1 in steps of 0 or 1 (as unsigned, a step down is huge)."""
    if not len(row):
        return rows == 0
    if row[0] != 0 or row[-1] != rows - 1:
        return False
    return len(row) < 2 or int((row[1:] - row[:-1]).view(np.uint64).max()) <= 1


@reference("SparseFillEmptyRows")
def _sparse_fill_empty_rows(ctx, op, indices, values, dense_shape, default):
    # Host inputs may be device arrays: convert once (indexing them dispatches device ops).
    indices, values = np.asarray(indices, np.int64), np.asarray(values)
    rows = int(np.asarray(dense_shape)[0])
    if rows == 0 and len(indices):
        raise _invalid(
            op,
            f"Received SparseTensor with dense_shape[0] = 0 but indices.shape[0] = {len(indices)}",
        )
    row = indices[:, 0]
    if _covers_rows_in_order(row, rows):  # the common batch: nothing to fill or move
        return (
            indices.copy(),
            values.copy(),
            np.zeros(rows, bool),
            np.arange(len(row), dtype=np.int64),
        )
    empty = np.ones(rows, bool)
    empty[row] = False
    filler = np.zeros((int(empty.sum()), indices.shape[1]), np.int64)
    filler[:, 0] = np.flatnonzero(empty)
    all_indices = np.concatenate([indices, filler])
    all_values = np.concatenate([values, np.full(len(filler), np.asarray(default), values.dtype)])
    order = np.argsort(all_indices[:, 0], kind="stable")
    position = np.empty(len(order), np.int64)
    position[order] = np.arange(len(order))
    return all_indices[order], all_values[order], empty, position[: len(indices)]


@reference("SparseFillEmptyRowsGrad")
def _sparse_fill_empty_rows_grad(ctx, op, reverse_index_map, grad_values):
    grad = np.asarray(grad_values)
    taken = grad[np.asarray(reverse_index_map, np.int64)]
    return taken, np.asarray(grad.sum() - taken.sum(), grad.dtype)


@reference("SparseAdd")
def _sparse_add(ctx, op, a_indices, a_values, a_shape, b_indices, b_values, b_shape, thresh):
    """TF's merge of two ordered entry lists: equal indices are summed and kept when the
    sum's magnitude reaches ``thresh``; entries of one operand only are always kept."""
    if not np.array_equal(a_shape, b_shape):
        raise _invalid(
            op,
            f"Operands do not have the same ranks; got shapes: {_text(a_shape)} and "
            f"{_text(b_shape)}",
        )
    a_idx, b_idx = np.asarray(a_indices).tolist(), np.asarray(b_indices).tolist()
    a_val, b_val = np.asarray(a_values), np.asarray(b_values)
    indices, values, i, j = [], [], 0, 0
    while i < len(a_idx) and j < len(b_idx):
        if a_idx[i] < b_idx[j]:
            indices.append(a_idx[i]), values.append(a_val[i])
            i += 1
        elif a_idx[i] > b_idx[j]:
            indices.append(b_idx[j]), values.append(b_val[j])
            j += 1
        else:
            total = a_val[i] + b_val[j]
            if np.abs(total) >= thresh:
                indices.append(a_idx[i]), values.append(total)
            i, j = i + 1, j + 1
    indices += a_idx[i:] + b_idx[j:]
    values += list(a_val[i:]) + list(b_val[j:])
    rank = len(a_shape)
    return (
        np.asarray(indices, np.int64).reshape(-1, rank),
        np.asarray(values, a_val.dtype),
        np.asarray(a_shape, np.int64),
    )


@reference("SparseAddGrad")
def _sparse_add_grad(ctx, op, grad, a_indices, b_indices, sum_indices):
    grad = np.asarray(grad)
    lookup = {tuple(i): g for i, g in zip(np.asarray(sum_indices).tolist(), grad)}
    zero = np.zeros((), grad.dtype)
    a = np.asarray([lookup.get(tuple(i), zero) for i in np.asarray(a_indices).tolist()], grad.dtype)
    b = np.asarray([lookup.get(tuple(i), zero) for i in np.asarray(b_indices).tolist()], grad.dtype)
    return a, b


# ---------------------------------------------------------------------------------------------
# SparseCross: per row, the cartesian product of the columns' features (last column fastest)
# ---------------------------------------------------------------------------------------------
_MASK = (1 << 64) - 1
_K_MUL = 0xC6A4A7935BD1E995
_K_MUL_U64 = np.uint64(_K_MUL)
_SHIFT = np.uint64(47)


def _shift_mix(v):
    return v ^ (v >> 47)


def fingerprint_cat64(fp1: int, fp2: int) -> int:
    """FarmHash's FingerprintCat64 on uint64 values."""
    result = (fp1 ^ _K_MUL) & _MASK
    result ^= (_shift_mix((fp2 * _K_MUL) & _MASK) * _K_MUL) & _MASK
    result = (result * _K_MUL) & _MASK
    result = (_shift_mix(result) * _K_MUL) & _MASK
    return _shift_mix(result)


def _fingerprint_cat64_array(fp1, fp2):
    """``fingerprint_cat64`` over uint64 arrays (numpy's uint64 products wrap mod 2**64)."""
    mixed = fp2 * _K_MUL_U64
    result = (fp1 ^ _K_MUL_U64) ^ ((mixed ^ (mixed >> _SHIFT)) * _K_MUL_U64)
    result = result * _K_MUL_U64
    result = (result ^ (result >> _SHIFT)) * _K_MUL_U64
    return result ^ (result >> _SHIFT)


def _columns(op, indices, values, shapes, dense):
    """The batch size and, per column (sparse columns first, then dense), its values grouped
    by row (each row's features in input order) and every row's feature count."""
    if shapes:
        batch = int(shapes[0][0])
    elif dense:
        batch = np.asarray(dense[0]).shape[0]
    else:
        batch = 0
    columns = []
    for i, (ind, val, shape) in enumerate(zip(indices, values, shapes)):
        if int(shape[0]) != batch:
            raise _invalid(op, f"Expected batch size {batch} got {int(shape[0])} at position {i}")
        ind = np.asarray(ind, np.int64)
        rows = ind[:, 0] if ind.ndim == 2 and ind.shape[1] else np.zeros(len(ind), np.int64)
        kept = np.flatnonzero((rows >= 0) & (rows < batch))  # padding rows are -1
        kept = kept[np.argsort(rows[kept], kind="stable")]
        counts = np.bincount(rows[kept], minlength=batch)
        columns.append((np.asarray(val)[kept], counts))
    for d in dense:
        d = np.asarray(d)
        d = d if d.ndim == 2 else d.reshape(len(d), -1 if d.size else 0)
        columns.append((d.reshape(-1), np.full(batch, d.shape[1], np.int64)))
    return batch, columns


def _combinations(batch, columns):
    """Every output entry's row, position in its row, and per column the flat index of the
    feature it takes: row ``b`` has ``prod(counts[b])`` combinations, last column fastest."""
    if not columns:
        empty = np.zeros(0, np.int64)
        return empty, empty, [], 0
    counts = np.stack([c for _, c in columns]).astype(np.int64)  # [columns, batch]
    per_row = np.prod(counts, axis=0)
    starts = np.concatenate([np.zeros((len(columns), 1), np.int64), np.cumsum(counts, 1)], 1)
    rows = np.repeat(np.arange(batch), per_row)
    first = np.cumsum(per_row) - per_row
    position = np.arange(len(rows)) - np.repeat(first, per_row)
    picks, stride = [None] * len(columns), np.ones(len(rows), np.int64)
    for i in reversed(range(len(columns))):
        count = counts[i][rows]
        picks[i] = starts[i][rows] + (position // stride) % np.maximum(count, 1)
        stride = stride * count
    widest = int(per_row.max()) if batch else 0
    return rows, position, picks, widest


def _feature_hashes(values) -> np.ndarray:
    """Per feature, the uint64 it enters a cross with: strings' Fingerprint64, integers' bits."""
    from lowering.reference.string_hash import fingerprint64

    values = np.asarray(values)
    if values.dtype == object or values.dtype.kind in "SU":
        flat = [v.encode() if isinstance(v, str) else v for v in values.tolist()]
        return np.asarray(fingerprint64(flat)).view(np.uint64)
    return values.astype(np.int64).view(np.uint64)


def _keyed_hashes(values) -> np.ndarray:
    """Sparse features of TF's V2 (keyed) kernel: int64s hash their first 4 little-endian
    bytes, strings are fingerprinted."""
    from lowering.reference.string_hash import fingerprint64

    values = np.asarray(values)
    if values.dtype == object or values.dtype.kind in "SU":
        return _feature_hashes(values)
    raw = [v.tobytes()[:4] for v in values.astype("<i8")]
    return np.asarray(fingerprint64(raw)).view(np.uint64)


def _bucket(hashed, num_buckets):
    modulus = num_buckets if num_buckets > 0 else (1 << 63) - 1
    return (hashed % np.uint64(modulus)).astype(np.int64)


def _cross_hashed(op, indices, values, shapes, dense, column_hashes, seed):
    """Hashed crosses: ``seed`` (or the first column's hash when None) chained through
    ``_fingerprint_cat64_array`` with each column's hash."""
    batch, columns = _columns(op, indices, values, shapes, dense)
    rows, position, picks, widest = _combinations(batch, columns)
    hashed = None if seed is None else np.full(len(rows), seed & _MASK, np.uint64)
    for (vals, _), pick, hash_fn in zip(columns, picks, column_hashes):
        h = hash_fn(vals)[pick]
        hashed = h if hashed is None else _fingerprint_cat64_array(hashed, h)
    if hashed is None:
        hashed = np.zeros(0, np.uint64)
    return np.stack([rows, position], 1).astype(np.int64), hashed, np.asarray([batch, widest])


def _joined_text(values):
    values = np.asarray(values)
    if values.dtype == object:
        return [v if isinstance(v, bytes) else v.encode() for v in values.tolist()]
    return [str(int(v)).encode() for v in values.tolist()]


@reference("SparseCross")
def _sparse_cross(ctx, op, *inputs):
    n = op.attrs["N"]
    indices, values, shapes = inputs[:n], inputs[n : 2 * n], inputs[2 * n : 3 * n]
    dense = inputs[3 * n :]
    if op.attrs["hashed_output"]:
        hash_fns = [_feature_hashes] * (n + len(dense))
        out_indices, hashed, shape = _cross_hashed(
            op, indices, values, shapes, dense, hash_fns, op.attrs["hash_key"]
        )
        return out_indices, _bucket(hashed, op.attrs["num_buckets"]), shape.astype(np.int64)
    batch, columns = _columns(op, indices, values, shapes, dense)
    rows, position, picks, widest = _combinations(batch, columns)
    texts = [_joined_text(vals) for vals, _ in columns]
    parts = [[text[p] for p in pick.tolist()] for text, pick in zip(texts, picks)]
    out_values = np.empty(len(rows), object)
    out_values[:] = [b"_X_".join(combo) for combo in zip(*parts)]
    out_indices = np.stack([rows, position], 1).astype(np.int64).reshape(-1, 2)
    return out_indices, out_values, np.asarray([batch, widest], np.int64)


@reference("SparseCrossHashed")
def _sparse_cross_hashed(ctx, op, *inputs):
    n = op.attrs["N"]
    indices, values, shapes = inputs[:n], inputs[n : 2 * n], inputs[2 * n : 3 * n]
    dense = inputs[3 * n : -3]
    num_buckets, strong_hash = int(inputs[-3]), bool(inputs[-2])
    if strong_hash:
        raise errors.UnimplementedError(None, op, "SparseCrossHashed with strong_hash=True")
    # Keyed columns (TF's V2 kernel): sparse int64 features hash their first 4 bytes, dense
    # int64 features are used as they are; strings are fingerprinted in both.
    hash_fns = [_keyed_hashes] * n + [_feature_hashes] * len(dense)
    out_indices, hashed, shape = _cross_hashed(op, indices, values, shapes, dense, hash_fns, None)
    return out_indices, _bucket(hashed, num_buckets), shape.astype(np.int64)


# ---------------------------------------------------------------------------------------------
# SparseSlice (host op; tfcompat/ops/sparse_slice_ops.py)
# ---------------------------------------------------------------------------------------------
def _slice_box(op, shape, start, size):
    rank = len(shape)
    for name, vector in (("start", start), ("size", size)):
        if len(vector) != rank:
            raise _invalid(
                op, f"Expected {name} to be a vector of length {rank} but got length {len(vector)}"
            )
    # The box clipped to the input (empty where it starts past the end).
    return np.maximum(np.minimum(start + size, shape) - start, 0)


@reference("SparseSlice")
def _sparse_slice(ctx, op, indices, values, shape, start, size):
    indices, values = np.asarray(indices, np.int64), np.asarray(values)
    shape = np.asarray(shape, np.int64)
    start, size = np.asarray(start, np.int64), np.asarray(size, np.int64)
    out_shape = _slice_box(op, shape, start, size)
    shifted = indices - start
    inside = np.all((shifted >= 0) & (shifted < out_shape), axis=1)
    return shifted[inside], values[inside], out_shape


@reference("SparseSliceGrad")
def _sparse_slice_grad(ctx, op, backprop, input_indices, input_start, output_indices):
    """Each sliced entry's gradient back at its input position, zeros elsewhere. An input
    entry was kept iff its shifted index is among the output indices (entries outside the
    box shift to coordinates no output has)."""
    backprop = np.asarray(backprop)
    shifted = np.asarray(input_indices, np.int64) - np.asarray(input_start, np.int64)
    output_indices = np.asarray(output_indices, np.int64).reshape(-1, shifted.shape[1])
    grad = np.zeros(len(shifted), backprop.dtype)
    if not len(shifted) or not len(output_indices):
        return grad
    _, inverse = np.unique(np.concatenate([shifted, output_indices]), axis=0, return_inverse=True)
    inverse = inverse.reshape(-1)
    kept = np.isin(inverse[: len(shifted)], inverse[len(shifted) :])
    if kept.sum() != len(backprop):
        raise _invalid(op, "Elements of output_indices not found in input_indices.")
    grad[kept] = backprop
    return grad
