"""Numpy reference kernels of ``Slice``, ``StridedSlice`` and ``StridedSliceGrad``."""

from __future__ import annotations

import numpy as np

from lowering.registry import reference
from tfcompat.framework import errors
from tfcompat.ops.slicing_ops import (
    _MASKS,
    apply_layout,
    layout_index,
    selected_shape,
    strided_slice_layout,
)


def _ints(value):
    return [int(v) for v in np.asarray(value).reshape(-1)]


@reference("Slice")
def _slice(ctx, op, x, begin, size):
    x = np.asarray(x)
    index = []
    for i, (b, n) in enumerate(zip(_ints(begin), _ints(size))):
        stop = x.shape[i] if n == -1 else b + n
        if not 0 <= b <= stop <= x.shape[i]:
            raise errors.InvalidArgumentError(
                None,
                op,
                f"Expected size[{i}] in [0, {x.shape[i] - b}], but got {n}"
                f"\n\t [[{{{{node {op.name}}}}}]]",
            )
        index.append(np.s_[b:stop])
    return x[tuple(index)].copy()


@reference("StridedSlice")
def _strided_slice(ctx, op, x, begin, end, strides):
    x = np.asarray(x)
    try:
        layout = strided_slice_layout(
            list(x.shape),
            _ints(begin),
            _ints(end),
            _ints(strides),
            *(op.attrs[m] for m in _MASKS),
        )
    except ValueError as e:
        raise errors.InvalidArgumentError(None, op, f"{e}\n\t [[{{{{node {op.name}}}}}]]") from None
    return np.array(apply_layout(x, layout))


@reference("StridedSliceGrad")
def _strided_slice_grad(ctx, op, shape, begin, end, strides, dy):
    dims = _ints(shape)
    try:
        layout = strided_slice_layout(
            dims, _ints(begin), _ints(end), _ints(strides), *(op.attrs[m] for m in _MASKS)
        )
    except ValueError as e:
        raise errors.InvalidArgumentError(None, op, f"{e}\n\t [[{{{{node {op.name}}}}}]]") from None
    out = np.zeros(dims, dtype=np.asarray(dy).dtype)
    out[layout_index(layout)] = np.asarray(dy).reshape(selected_shape(layout))
    return out
