"""Example-parsing ops are host-only: they decode serialized protos on the host (kernels in
``lowering/reference/parsing.py``) and have no JAX lowerings. ``SparseReorder``, which
``SparseFeature`` parsing builds after them, is a device op: a stable lexicographic sort
of the index rows."""

from __future__ import annotations

import jax.numpy as jnp

from lowering.reference.parsing import check_sparse_reorder_inputs
from lowering.registry import lowering


@lowering("SparseReorder")
def _sparse_reorder(ctx, op, indices, values, shape):
    check_sparse_reorder_inputs(op, indices.shape, values.shape, shape.shape)
    rank = indices.shape[1]
    if rank == 0 or indices.shape[0] == 0:
        return indices, values
    # lexsort's last key is the primary one: the first index column.
    order = jnp.lexsort(tuple(indices[:, k] for k in reversed(range(rank))))
    return indices[order], values[order]
