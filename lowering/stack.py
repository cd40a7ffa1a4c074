"""JAX lowering of TF's stacks (``StackV2`` / ``StackPushV2`` / ``StackPopV2``).

A stack lives in the step's run locals (``lowering/regions.py``) under ``("stack", name)``
as ``(buffer, size)``: ``buffer`` holds ``ctx.stack_bucket`` elements, so a stack pushed
inside a ``lax.while_loop`` has the static shape XLA needs even though the trip count is
only known at run time. A push past the bucket sets the step's one overflow flag
(``regions.STACK_OVERFLOW_KEY``, shared by all stacks: one flag per stack cost a scalar
kernel per stack and iteration on a GPU); ``compile.DeviceFunction`` then discards the
step and reruns it with a doubled bucket (one recompilation per doubling). The handle
itself is a static Python value.

A stack every push of which, in this trace, pushed the same compile-time value (TF's
gradient of a cond inside a loop pushes ``Shape(x)`` to build the untaken branch's zeros
with ``Fill``) pops that value as a compile-time value too, so the ops reading it (``Fill``'s
shape) stay static under XLA.
"""

from __future__ import annotations

import dataclasses

import jax.numpy as jnp
import numpy as np
from jax import lax

from lowering import regions
from lowering.registry import lowering
from tfcompat.framework import errors


@dataclasses.dataclass(frozen=True)
class StackHandle:
    """What a ``StackV2`` output holds while tracing: the run-locals key of its buffer."""

    key: tuple
    op: object


@lowering("StackV2")
def _stack(ctx, op, max_size):
    key = ("stack", op.name)
    regions.report_ops(ctx)[key] = op
    return StackHandle(key, op)


_VARIES = object()  # a stack whose pushes are not one compile-time value


def _record_static_push(ctx, key, elem):
    pushed = regions.static_pushes(ctx)
    if not isinstance(elem, (np.ndarray, np.generic)):
        pushed[key] = _VARIES
    elif key not in pushed:
        pushed[key] = np.array(elem)
    elif pushed[key] is not _VARIES and not np.array_equal(pushed[key], elem):
        pushed[key] = _VARIES


@lowering("StackPushV2")
def _stack_push(ctx, op, handle, elem):
    local_values = regions.run_locals(ctx)
    _record_static_push(ctx, handle.key, elem)
    elem = jnp.asarray(elem)
    bucket = getattr(ctx, "stack_bucket", regions.INITIAL_STACK_BUCKET)
    buffer, size = local_values.get(handle.key) or (
        jnp.zeros((bucket,) + elem.shape, elem.dtype),
        jnp.asarray(0, jnp.int32),
    )
    # Past the bucket the last slot is overwritten; the step is rerun with a bigger one.
    slot = jnp.minimum(size, bucket - 1)
    buffer = lax.dynamic_update_index_in_dim(buffer, elem.astype(buffer.dtype), slot, 0)
    local_values[handle.key] = (buffer, size + 1)
    overflowed = local_values.get(regions.STACK_OVERFLOW_KEY, jnp.asarray(False))
    local_values[regions.STACK_OVERFLOW_KEY] = overflowed | (size >= bucket)
    return elem


@lowering("StackPopV2")
def _stack_pop(ctx, op, handle):
    local_values = regions.run_locals(ctx)
    if handle.key not in local_values:
        raise errors.InternalError(
            None, op, f"StackPopV2 {op.name}: nothing was pushed on stack {handle.key[1]}"
        )
    buffer, size = local_values[handle.key]
    size = size - 1
    value = lax.dynamic_index_in_dim(buffer, jnp.maximum(size, 0), 0, keepdims=False)
    local_values[handle.key] = (buffer, size)
    static = regions.static_pushes(ctx).get(handle.key, _VARIES)
    return value if static is _VARIES else static.copy()


@lowering("StackCloseV2")
def _stack_close(ctx, op, handle):
    return None
