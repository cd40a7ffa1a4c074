"""Host inputs of a device step packed into one buffer per dtype, so that they cross to the
device in a few transfers instead of one each.

A feature-column step takes hundreds of small host arrays (ids, segment ids, masks and
distinct rows of every column: 284 in the wide & deep bench). Each jit argument is its own
host-to-device copy, with a fixed cost per copy that dominates on a GPU (on an H100
machine of ours, ~35 us each: ~10 ms a step, more than the step's kernels). Packed, the
step receives one flat buffer per dtype and slices its arrays out of it: the slices are
static, so XLA folds them into their consumers and the device program is unchanged.

``pack`` runs on the host each call; its layout (which leaves, their dtypes and shapes) is
a static argument of the jitted step, so a new layout compiles once like a new shape did.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

# Larger arrays travel alone: packing would copy them once more on the host for nothing.
PACK_MAX_BYTES = 1 << 16


class Layout(NamedTuple):
    """Where each packed leaf lives: the inputs' tree structure, and per dtype the leaf
    positions and shapes of the arrays its buffer holds (in buffer order)."""

    treedef: object
    groups: tuple  # ((dtype str, ((leaf index, shape), ...)), ...)


def _packable(leaf) -> bool:
    return (
        type(leaf) is np.ndarray
        and leaf.dtype != object
        and leaf.nbytes <= PACK_MAX_BYTES
        and leaf.size > 0
    )


def pack(jax, inputs) -> tuple:
    """``(leaves, buffers, layout)``: ``inputs``' leaves with the small numpy arrays taken
    out (None in their place) and packed into ``buffers``, one per dtype; ``layout`` is
    None when fewer than two arrays would share a buffer (nothing gained)."""
    leaves, treedef = jax.tree.flatten(inputs)
    by_dtype: dict = {}
    for i, leaf in enumerate(leaves):
        if _packable(leaf):
            by_dtype.setdefault(leaf.dtype.str, []).append(i)
    groups = [(dtype, positions) for dtype, positions in by_dtype.items() if len(positions) > 1]
    if not groups:
        return inputs, [], None
    leaves = list(leaves)
    buffers, layout = [], []
    for dtype, positions in groups:
        buffers.append(np.concatenate([leaves[i].reshape(-1) for i in positions]))
        layout.append((dtype, tuple((i, leaves[i].shape) for i in positions)))
        for i in positions:
            leaves[i] = None
    return leaves, buffers, Layout(treedef, tuple(layout))


def unpack(jax, leaves, buffers, layout: Layout):
    """The inputs ``pack`` took apart, the packed arrays sliced out of their buffers."""
    leaves = list(leaves)
    for buffer, (_, entries) in zip(buffers, layout.groups):
        offset = 0
        for i, shape in entries:
            size = int(np.prod(shape, dtype=np.int64))
            leaves[i] = buffer[offset : offset + size].reshape(shape)
            offset += size
    return jax.tree.unflatten(layout.treedef, leaves)
