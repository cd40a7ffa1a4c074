"""JAX lowerings of the space/batch/depth rearrangements (``SpaceToBatchND``,
``BatchToSpaceND``, their legacy 4-D forms, ``SpaceToDepth``, ``DepthToSpace``).

Each is a pad or crop plus one reshape / transpose / reshape, so XLA sees plain layout
changes. Block shapes, paddings and crops must be static (they decide output shapes).
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from lowering.registry import lowering
from lowering.static import static_ints
from tfcompat.framework import errors


def _fail(op, message):
    raise errors.InvalidArgumentError(None, op, f"{message}\n\t [[{{{{node {op.name}}}}}]]")


def check_space_to_batch(op, shape, block, paddings):
    """TF's run-time checks of SpaceToBatch(ND) arguments (shared with the numpy kernel)."""
    m = len(block)
    if len(shape) < m + 1:
        _fail(op, f"input rank should be >= {m + 1} instead of {len(shape)}")
    if any(b < 1 for b in block):
        _fail(op, "All values in block_shape must be positive")
    if any(p < 0 for pair in paddings for p in pair):
        _fail(op, "All values in paddings must be non-negative")
    for i, (b, (lo, hi)) in enumerate(zip(block, paddings)):
        padded = shape[i + 1] + lo + hi
        if padded % b:
            _fail(op, f"padded_shape[{i}]={padded} is not divisible by block_shape[{i}]={b}")


def check_batch_to_space(op, shape, block, crops):
    """TF's run-time checks of BatchToSpace(ND) arguments (shared with the numpy kernel)."""
    m = len(block)
    if len(shape) < m + 1:
        _fail(op, f"input rank should be >= {m + 1} instead of {len(shape)}")
    if any(b < 1 for b in block):
        _fail(op, "All values in block_shape must be positive")
    if any(c < 0 for pair in crops for c in pair):
        _fail(op, "Crops must be non-negative")
    total = int(np.prod(block))
    if shape[0] % total:
        _fail(
            op,
            f"Input batch dimension ({shape[0]}) is not divisible by product of block "
            f"sizes ({total})",
        )
    for i, (b, (lo, hi)) in enumerate(zip(block, crops)):
        if lo + hi > shape[i + 1] * b:
            _fail(
                op,
                f"crops must be non-negative and not exceed the spatial size: "
                f"{lo}+{hi} > {shape[i + 1]}*{b}",
            )


def _pairs(op, index, value, m):
    return np.reshape(static_ints(op, index, value), (m, 2)).tolist()


def space_to_batch(op, x, block, paddings):
    x = jnp.asarray(x)
    check_space_to_batch(op, x.shape, block, paddings)
    m = len(block)
    x = jnp.pad(x, [(0, 0), *map(tuple, paddings)] + [(0, 0)] * (x.ndim - m - 1))
    batch, rest = x.shape[0], x.shape[m + 1 :]
    split = [batch]
    for i, b in enumerate(block):
        split += [x.shape[i + 1] // b, b]
    x = x.reshape(*split, *rest)
    # [batch, s0, b0, s1, b1, ..., rest] -> [b0, b1, ..., batch, s0, s1, ..., rest]
    perm = [2 + 2 * i for i in range(m)] + [0] + [1 + 2 * i for i in range(m)]
    perm += list(range(2 * m + 1, x.ndim))
    x = x.transpose(perm)
    return x.reshape(batch * int(np.prod(block)), *(split[1 + 2 * i] for i in range(m)), *rest)


def batch_to_space(op, x, block, crops):
    x = jnp.asarray(x)
    check_batch_to_space(op, x.shape, block, crops)
    m = len(block)
    batch = x.shape[0] // int(np.prod(block))
    spatial, rest = x.shape[1 : m + 1], x.shape[m + 1 :]
    x = x.reshape(*block, batch, *spatial, *rest)
    # [b0, ..., batch, s0, ..., rest] -> [batch, s0, b0, s1, b1, ..., rest]
    perm = [m] + [p for i in range(m) for p in (m + 1 + i, i)]
    perm += list(range(2 * m + 1, x.ndim))
    x = x.transpose(perm)
    x = x.reshape(batch, *(s * b for s, b in zip(spatial, block)), *rest)
    index = [slice(None)] + [slice(lo, x.shape[i + 1] - hi) for i, (lo, hi) in enumerate(crops)]
    return x[tuple(index)]


@lowering("SpaceToBatchND")
def _space_to_batch_nd(ctx, op, x, block_shape, paddings):
    block = static_ints(op, 1, block_shape)
    return space_to_batch(op, x, block, _pairs(op, 2, paddings, len(block)))


@lowering("BatchToSpaceND")
def _batch_to_space_nd(ctx, op, x, block_shape, crops):
    block = static_ints(op, 1, block_shape)
    return batch_to_space(op, x, block, _pairs(op, 2, crops, len(block)))


@lowering("SpaceToBatch")
def _space_to_batch(ctx, op, x, paddings):
    block = [op.attrs["block_size"]] * 2
    return space_to_batch(op, x, block, _pairs(op, 1, paddings, 2))


@lowering("BatchToSpace")
def _batch_to_space(ctx, op, x, crops):
    block = [op.attrs["block_size"]] * 2
    return batch_to_space(op, x, block, _pairs(op, 1, crops, 2))


def _channels_first(op):
    fmt = op.attrs["data_format"]
    if fmt == b"NCHW_VECT_C":
        raise errors.UnimplementedError(
            None, op, f"{op.type} with NCHW_VECT_C (qint8 data) is not supported by tfcompat"
        )
    return fmt == b"NCHW"


def check_depth(op, shape, channels_first, to_depth):
    b = op.attrs["block_size"]
    h, w, c = (2, 3, 1) if channels_first else (1, 2, 3)
    if to_depth:
        for axis in (h, w):
            if shape[axis] % b:
                _fail(
                    op,
                    f"Image width {shape[w]} and height {shape[h]} should be divisible by "
                    f"block_size: {b}",
                )
    elif shape[c] % (b * b):
        _fail(op, f"Input depth dimension {shape[c]} should be divisible by: {b * b}")


@lowering("SpaceToDepth")
def _space_to_depth(ctx, op, x):
    x = jnp.asarray(x)
    first = _channels_first(op)
    check_depth(op, x.shape, first, to_depth=True)
    b = op.attrs["block_size"]
    if first:
        n, c, h, w = x.shape
        x = x.reshape(n, c, h // b, b, w // b, b).transpose(0, 3, 5, 1, 2, 4)
        return x.reshape(n, b * b * c, h // b, w // b)
    n, h, w, c = x.shape
    x = x.reshape(n, h // b, b, w // b, b, c).transpose(0, 1, 3, 2, 4, 5)
    return x.reshape(n, h // b, w // b, b * b * c)


@lowering("DepthToSpace")
def _depth_to_space(ctx, op, x):
    x = jnp.asarray(x)
    first = _channels_first(op)
    check_depth(op, x.shape, first, to_depth=False)
    b = op.attrs["block_size"]
    if first:
        n, c, h, w = x.shape
        x = x.reshape(n, b, b, c // (b * b), h, w).transpose(0, 3, 4, 1, 5, 2)
        return x.reshape(n, c // (b * b), h * b, w * b)
    n, h, w, c = x.shape
    x = x.reshape(n, h, w, b, b, c // (b * b)).transpose(0, 1, 3, 2, 4, 5)
    return x.reshape(n, h * b, w * b, c // (b * b))
