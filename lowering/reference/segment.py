"""Numpy reference kernels of the segment reductions, with TF's CPU-kernel checks."""

from __future__ import annotations

import numpy as np

from lowering.registry import reference
from tfcompat.framework import errors


def _limits(dtype):
    info = np.finfo(dtype) if np.issubdtype(dtype, np.inexact) else np.iinfo(dtype)
    return info.min, info.max


def _mean(total, count):
    """``total / count`` in ``total``'s dtype; integer division truncates toward zero as
    C++ does."""
    if total.dtype.kind in "iu":
        return (np.sign(total) * (np.abs(total) // count)).astype(total.dtype)
    return (total / count).astype(total.dtype)


def _check_sorted_ids(op, data, ids):
    if ids.shape[0] != data.shape[0]:
        raise errors.InvalidArgumentError(
            None, op, "segment_ids should be the same size as dimension 0 of input."
        )
    if ids.size and np.any(np.diff(ids) < 0):
        raise errors.InvalidArgumentError(None, op, "segment ids are not increasing")
    if ids.size and ids[0] < 0:
        raise errors.InvalidArgumentError(
            None,
            op,
            f"Segment id {ids[0]} out of range [0, {int(ids[-1]) + 1}), possibly because "
            "'segment_ids' input is not sorted.",
        )


# op type -> (numpy ufunc reducing each segment's run of rows, value of an empty segment)
_SORTED = {
    "SegmentSum": (np.add, 0),
    "SegmentProd": (np.multiply, 1),
    "SegmentMax": (np.maximum, 0),
    "SegmentMin": (np.minimum, 0),
    "SegmentMean": (np.add, 0),  # then divided by each segment's row count
}


def _sorted_kernel(ufunc, empty, mean):
    def kernel(ctx, op, data, segment_ids):
        data, ids = np.asarray(data), np.asarray(segment_ids)
        _check_sorted_ids(op, data, ids)
        count = int(ids[-1]) + 1 if ids.size else 0
        out = np.full((count,) + data.shape[1:], empty, dtype=data.dtype)
        if not ids.size:
            return out
        # Sorted ids: each segment is one run of rows, reduced by one reduceat.
        starts = np.flatnonzero(np.r_[True, ids[1:] != ids[:-1]])
        reduced = ufunc.reduceat(data, starts, axis=0)
        if mean:
            rows = np.diff(np.r_[starts, ids.size]).reshape((-1,) + (1,) * (data.ndim - 1))
            reduced = _mean(reduced, rows)
        out[ids[starts]] = reduced
        return out

    return kernel


for _op_type, (_ufunc, _empty) in _SORTED.items():
    reference(_op_type)(_sorted_kernel(_ufunc, _empty, _op_type == "SegmentMean"))


def _out_of_range_message(ids, n):
    """TF's message for the first id at or past ``n``: ``segment_ids[i,j] = v is out of
    range [0, n)``."""
    position = np.unravel_index(int(np.argmax(ids >= n)), ids.shape)
    where = ",".join(str(int(i)) for i in position)
    return f"segment_ids[{where}] = {int(ids[position])} is out of range [0, {n})"


# op type -> (numpy ufunc applied with ``.at``, value of an empty segment)
_UNSORTED = {
    "UnsortedSegmentSum": (np.add, lambda dtype: 0),
    "UnsortedSegmentProd": (np.multiply, lambda dtype: 1),
    "UnsortedSegmentMax": (np.maximum, lambda dtype: _limits(dtype)[0]),
    "UnsortedSegmentMin": (np.minimum, lambda dtype: _limits(dtype)[1]),
}


def _unsorted_kernel(ufunc, empty):
    def kernel(ctx, op, data, segment_ids, num_segments):
        data, ids, n = np.asarray(data), np.asarray(segment_ids), int(num_segments)
        if n < 0:
            raise errors.InvalidArgumentError(
                None, op, f"num_segments must be non-negative, got {n}"
            )
        if np.any(ids >= n):
            raise errors.InvalidArgumentError(None, op, _out_of_range_message(ids, n))
        inner = data.shape[ids.ndim :]
        flat_ids = ids.reshape(-1)
        rows = data.reshape(flat_ids.shape + inner)
        keep = flat_ids >= 0  # negative ids are dropped
        out = np.full((n,) + inner, empty(data.dtype), dtype=data.dtype)
        ufunc.at(out, flat_ids[keep], rows[keep])
        return out

    return kernel


for _op_type, (_ufunc, _empty) in _UNSORTED.items():
    reference(_op_type)(_unsorted_kernel(_ufunc, _empty))
