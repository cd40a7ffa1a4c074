"""Host inputs of a device step packed into one byte buffer, so that they cross to the
device in one transfer instead of one each.

A feature-column step takes hundreds of small host arrays (ids, segment ids, masks and
distinct rows of every column: 284 in the wide & deep bench), and every step takes the
run seed (two uint32 scalars). Each jit argument is its own host-to-device copy, with a
fixed cost per copy that dominates on a GPU (on an H100 machine of ours, ~150 us each:
the wide & deep step spent ~10 ms a step on them, more than on its kernels, and a tiny
inference step three copies instead of one). Packed, the step receives one ``uint8``
buffer and reinterprets its slices as the arrays (``bitcast_convert_type``): the slices
are static, so XLA folds them into their consumers.

An array that is several inputs at once crosses once, on every backend: in a
feature-column step the ids and row bookkeeping of ``linear_model`` and ``input_layer``
for one column are the same host arrays (``interpreter._RunTwin``), and on the CPU backend,
where nothing is copied, each argument still costs jit's dispatch ~3 us.

``pack`` runs on the host each call (packing on accelerators, see ``PACK_ON_CPU``); its
layout (which leaves, their dtypes, shapes and offsets, which leaves repeat which) is a
static argument of the jitted step, so a new layout compiles once like a new shape did.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

# Larger arrays travel alone: packing would copy them once more on the host for nothing.
PACK_MAX_BYTES = 1 << 16
# On the CPU backend an argument is not copied (XLA:CPU reads the numpy buffer): packing
# only costs there (+6 us a run for a tiny step's three inputs; the wide & deep step
# 21.6 -> 22.3 ms), so it is off unless set. (Stacking same-shaped arrays instead, one
# argument per shape, also lost: 18.0 -> 18.9 ms, the step slicing them back.)
PACK_ON_CPU = False
# Arrays up to this many elements are not looked at for repeats: equal small arrays
# (shape vectors) can be one object in one step and two in the next (a value-keyed twin,
# see interpreter._RunTwin), which would change the layout and recompile.
REPEAT_MIN_ELEMENTS = 17


class Layout(NamedTuple):
    """Where each packed leaf lives: the inputs' tree structure and, per packed leaf, its
    position among the leaves, dtype, shape and byte offset in the buffer; and per leaf
    that repeats an earlier one, both positions."""

    treedef: object
    entries: tuple  # ((leaf index, dtype str, shape, offset), ...)
    repeats: tuple = ()  # ((leaf index, index of the same array earlier), ...)


def _packable(leaf) -> bool:
    return (
        type(leaf) is np.ndarray
        and leaf.dtype != object
        and leaf.nbytes <= PACK_MAX_BYTES
        and leaf.size > 0
    )


def _repeats(leaves) -> tuple:
    """``((i, j), ...)``: leaf ``i`` is the same array as the earlier leaf ``j``."""
    first, repeats = {}, []
    for i, leaf in enumerate(leaves):
        if type(leaf) is np.ndarray and leaf.size >= REPEAT_MIN_ELEMENTS:
            j = first.setdefault(id(leaf), i)
            if j != i:
                repeats.append((i, j))
    return tuple(repeats)


def pack(jax, inputs) -> tuple:
    """``(leaves, buffer, layout)``: ``inputs``' leaves with repeated arrays and the small
    numpy arrays taken out (None in their place), the latter's bytes packed into
    ``buffer``; ``(inputs, None, None)`` when nothing is gained."""
    leaves, treedef = jax.tree.flatten(inputs)
    repeats = _repeats(leaves)
    if repeats:
        leaves = list(leaves)
        for i, _ in repeats:
            leaves[i] = None
    positions = []
    if PACK_ON_CPU or jax.default_backend() != "cpu":
        positions = [i for i, leaf in enumerate(leaves) if _packable(leaf)]
    if len(positions) < 2:
        if not repeats:
            return inputs, None, None
        return leaves, None, Layout(treedef, (), repeats)
    leaves = list(leaves)
    chunks, entries, offset = [], [], 0
    for i in positions:
        leaf = leaves[i]
        chunks.append(np.ascontiguousarray(leaf).reshape(-1).view(np.uint8))
        entries.append((i, leaf.dtype.str, leaf.shape, offset))
        offset += leaf.nbytes
        leaves[i] = None
    return leaves, np.concatenate(chunks), Layout(treedef, tuple(entries), repeats)


def unpack(jax, leaves, buffer, layout: Layout):
    """The inputs ``pack`` took apart, the packed arrays reinterpreted from ``buffer``."""
    leaves = list(leaves)
    for i, dtype, shape, offset in layout.entries:
        dtype = np.dtype(dtype)
        size = int(np.prod(shape, dtype=np.int64))
        data = buffer[offset : offset + size * dtype.itemsize]
        if dtype == np.bool_:
            value = data != 0
        elif dtype.itemsize == 1:
            value = jax.lax.bitcast_convert_type(data, dtype)
        else:
            value = jax.lax.bitcast_convert_type(data.reshape(size, dtype.itemsize), dtype)
        leaves[i] = value.reshape(shape)
    for i, j in layout.repeats:  # after the packed ones: ``j`` may be one of them
        leaves[i] = leaves[j]
    return jax.tree.unflatten(layout.treedef, leaves)
