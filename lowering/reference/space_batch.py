"""Numpy reference kernels of the space/batch/depth rearrangements, written as gathers:
each output element's source index is computed from TF's definition of the op (not by
reshaping and transposing, as the JAX rules do)."""

from __future__ import annotations

import numpy as np

from lowering.registry import reference
from lowering.space_batch import check_batch_to_space, check_depth, check_space_to_batch
from tfcompat.framework import errors


def _ints(value):
    return [int(v) for v in np.asarray(value).reshape(-1)]


def _pairs(value):
    return np.reshape(_ints(value), (-1, 2)).tolist()


def _space_to_batch(op, x, block, paddings):
    """out[k * batch + n, i_0..i_{m-1}, rest] = padded[n, i_d * b_d + o_d, rest] where
    ``k`` enumerates the block offsets ``o`` in row-major order."""
    x = np.asarray(x)
    check_space_to_batch(op, x.shape, block, paddings)
    m, batch = len(block), x.shape[0]
    padded = np.pad(x, [(0, 0), *map(tuple, paddings)] + [(0, 0)] * (x.ndim - m - 1))
    out_spatial = [padded.shape[d + 1] // block[d] for d in range(m)]
    out_batch = batch * int(np.prod(block))
    grid = np.indices([out_batch, *out_spatial], sparse=False)
    k, n = np.divmod(grid[0], batch)
    offsets = np.unravel_index(k, block) if m else ()
    source = [n] + [grid[d + 1] * block[d] + offsets[d] for d in range(m)]
    return padded[tuple(source)]


def _batch_to_space(op, x, block, crops):
    """out[n, j_d, rest] = x[k * batch + n, (j_d + c_d) // b_d, rest] with the block offset
    ``(j_d + c_d) % b_d`` giving ``k`` (row-major over the block)."""
    x = np.asarray(x)
    check_batch_to_space(op, x.shape, block, crops)
    m = len(block)
    batch = x.shape[0] // int(np.prod(block))
    out_spatial = [x.shape[d + 1] * block[d] - crops[d][0] - crops[d][1] for d in range(m)]
    grid = np.indices([batch, *out_spatial], sparse=False)
    full = [grid[d + 1] + crops[d][0] for d in range(m)]
    k = np.ravel_multi_index([f % b for f, b in zip(full, block)], block) if m else 0
    source = [k * batch + grid[0]] + [f // b for f, b in zip(full, block)]
    return x[tuple(source)]


@reference("SpaceToBatchND")
def _space_to_batch_nd(ctx, op, x, block_shape, paddings):
    return _space_to_batch(op, x, _ints(block_shape), _pairs(paddings))


@reference("BatchToSpaceND")
def _batch_to_space_nd(ctx, op, x, block_shape, crops):
    return _batch_to_space(op, x, _ints(block_shape), _pairs(crops))


@reference("SpaceToBatch")
def _space_to_batch_legacy(ctx, op, x, paddings):
    return _space_to_batch(op, x, [op.attrs["block_size"]] * 2, _pairs(paddings))


@reference("BatchToSpace")
def _batch_to_space_legacy(ctx, op, x, crops):
    return _batch_to_space(op, x, [op.attrs["block_size"]] * 2, _pairs(crops))


def _layout(op):
    fmt = op.attrs["data_format"]
    if fmt == b"NCHW_VECT_C":
        raise errors.UnimplementedError(
            None, op, f"{op.type} with NCHW_VECT_C (qint8 data) is not supported by tfcompat"
        )
    return fmt == b"NCHW"


def _to_nhwc(x, first):
    return np.moveaxis(x, 1, 3) if first else x


def _from_nhwc(x, first):
    return np.moveaxis(x, 3, 1) if first else x


@reference("SpaceToDepth")
def _space_to_depth(ctx, op, x):
    """out[n, i, j, (dy * b + dx) * c + ch] = x[n, i * b + dy, j * b + dx, ch]."""
    first = _layout(op)
    x = np.asarray(x)
    check_depth(op, x.shape, first, to_depth=True)
    x = _to_nhwc(x, first)
    b = op.attrs["block_size"]
    n, h, w, c = x.shape
    g = np.indices([n, h // b, w // b, b * b * c])
    block, ch = np.divmod(g[3], c)
    dy, dx = np.divmod(block, b)
    return _from_nhwc(x[g[0], g[1] * b + dy, g[2] * b + dx, ch], first)


@reference("DepthToSpace")
def _depth_to_space(ctx, op, x):
    """out[n, y, x, ch] = x[n, y // b, x // b, ((y % b) * b + x % b) * c' + ch]."""
    first = _layout(op)
    x = np.asarray(x)
    check_depth(op, x.shape, first, to_depth=False)
    x = _to_nhwc(x, first)
    b = op.attrs["block_size"]
    n, h, w, c = x.shape
    depth = c // (b * b)
    g = np.indices([n, h * b, w * b, depth])
    source = ((g[1] % b) * b + g[2] % b) * depth + g[3]
    return _from_nhwc(x[g[0], g[1] // b, g[2] // b, source], first)
