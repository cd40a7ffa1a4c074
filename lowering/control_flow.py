"""JAX lowerings of grouping and control-flow ops."""

from __future__ import annotations

from lowering.registry import lowering


@lowering("NoOp")
def _no_op(ctx, op):
    return None
