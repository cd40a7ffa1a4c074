"""JAX lowerings of the unsorted segment reductions, as scatters into ``num_segments`` rows.

(The sorted ``Segment*`` ops are host ops: their output size is a run-time value.) Ids
outside ``[0, num_segments)`` are dropped, as TF's GPU kernels drop them; TF's CPU kernels
reject ids past the end, and so does the numpy reference.
"""

from __future__ import annotations

import jax.numpy as jnp

from lowering.nn import static_int
from lowering.registry import lowering


def _limits(dtype):
    info = jnp.finfo(dtype) if jnp.issubdtype(dtype, jnp.inexact) else jnp.iinfo(dtype)
    return info.min, info.max


# op type -> (scatter method of ``.at[]``, the value of a segment with no entries)
_UNSORTED = {
    "UnsortedSegmentSum": ("add", lambda dtype: 0),
    "UnsortedSegmentProd": ("multiply", lambda dtype: 1),
    "UnsortedSegmentMax": ("max", lambda dtype: _limits(dtype)[0]),
    "UnsortedSegmentMin": ("min", lambda dtype: _limits(dtype)[1]),
}


def _unsorted_rule(method, empty_value):
    def rule(ctx, op, data, segment_ids, num_segments):
        n = static_int(op, 2, num_segments, "num_segments")
        inner = data.shape[segment_ids.ndim :]
        ids = segment_ids.reshape(-1)
        rows = data.reshape(ids.shape + inner)
        ids = jnp.where(ids < 0, n, ids)  # index n is out of bounds: dropped
        out = jnp.full((n,) + inner, empty_value(data.dtype), data.dtype)
        return getattr(out.at[ids], method)(rows, mode="drop")

    return rule


for _op_type, (_method, _empty) in _UNSORTED.items():
    lowering(_op_type)(_unsorted_rule(_method, _empty))
