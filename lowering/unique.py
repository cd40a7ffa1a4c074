"""``Unique`` on the device, for the deduplication TF's optimizers build.

A sparse update in TF 1.x first sums the gradient rows that share an index: ``Unique`` of the
indices, then ``UnsortedSegmentSum`` of the rows into ``Shape(unique)[0]`` segments, then the
``SparseApply*`` / ``ScatterAdd`` on the unique indices. ``Unique``'s output size depends on
the values, so it is a host op, and on the host it would split a training step in two
executables (forward and backward, then the update). Yet every consumer of such a ``Unique``
is additive in its rows: so on the device it keeps the input's static length ``n``, the
distinct indices first and then padding, an index past any table (``iinfo.max``), which no
``idx`` entry points to. The segment sum then has ``n`` segments, the padding ones zero, and
the updates drop the padding's out-of-range rows (``lowering/training.py`` takes a
``Unique``'s output as distinct, so it does not deduplicate again).

The form is used only where it cannot be seen: when all consumers of ``y`` and ``idx`` are
that pattern and the run fetches none of its values (``plan.is_host_op``); any other
``Unique`` runs on the host with its exact size. Indices already distinct (the rows of an
embedding gradient, ``SparseSegment*GradV2``, computed on the host) pass through without a
sort.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from lowering.registry import lowering

# Update ops that read deduplicated indices additively (their ``indices`` input).
_SPARSE_UPDATE_PREFIXES = ("SparseApply", "ResourceSparseApply")
_SCATTERS = frozenset({"ScatterAdd", "ScatterSub", "ResourceScatterAdd", "ResourceScatterSub"})


def deduplication_ops(op):
    """If Unique ``op`` is TF's deduplication of a sparse gradient (``y`` read only as the
    indices of sparse updates and through ``Shape(y)[0]`` as a segment count, ``idx`` only
    as the segment ids of an ``UnsortedSegmentSum``), the ops whose values its padding
    would change: itself, the ``Shape``, the count and the segment sums. Else None."""
    y, idx = op.outputs
    ops = {op}
    for consumer in y.consumers():
        if consumer.type == "Shape":
            counts = consumer.outputs[0].consumers()
            if not all(_is_segment_count(c) for c in counts):
                return None
            ops.add(consumer)
            ops.update(counts)
        elif not _reads_as_indices(consumer, y):
            return None
    sums = idx.consumers()
    if not sums or not all(
        c.type == "UnsortedSegmentSum" and c.inputs[1] is idx and c.inputs[0] is not idx
        for c in sums
    ):
        return None
    ops.update(sums)
    return ops


def _is_segment_count(op) -> bool:
    """A ``StridedSlice`` whose value is only ever an ``UnsortedSegmentSum``'s count."""
    if op.type != "StridedSlice":
        return False
    out = op.outputs[0]
    return bool(out.consumers()) and all(
        c.type == "UnsortedSegmentSum" and c.inputs[2] is out and out not in c.inputs[:2]
        for c in out.consumers()
    )


def _reads_as_indices(op, tensor) -> bool:
    if not (op.type.startswith(_SPARSE_UPDATE_PREFIXES) or op.type in _SCATTERS):
        return False
    names = [arg.name for arg in op.op_def.inputs]
    return all(name == "indices" for name, t in zip(names, op.inputs) if t is tensor)


def is_distinct_source(tensor) -> bool:
    """Whether ``tensor`` holds distinct indices (padding aside): a ``Unique``'s ``y``, or
    the rows of a ``SparseSegment*GradV2``."""
    op = tensor.op
    if op.type == "Unique":
        return tensor.value_index == 0
    return (
        op.type.startswith("SparseSegment")
        and op.type.endswith("GradV2")
        and (tensor.value_index == 1)
    )


@lowering("Unique")
def _unique(ctx, op, x):
    n = x.shape[0]
    idx_dtype = op.attrs["out_idx"].as_numpy_dtype
    if n == 0 or is_distinct_source(op.inputs[0]):
        return x, jnp.arange(n, dtype=idx_dtype)
    pad = np.iinfo(np.dtype(x.dtype)).max
    y, idx = jnp.unique(x, size=n, fill_value=pad, return_inverse=True)
    return y, idx.reshape(-1).astype(idx_dtype)
