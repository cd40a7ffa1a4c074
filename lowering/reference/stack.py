"""Numpy kernels of TF's stacks: a Python list per stack in the step's run locals (the
reference backend runs regions eagerly, so the list is shared by every branch and
iteration and needs no bucket)."""

from __future__ import annotations

import numpy as np

from lowering import regions
from lowering.registry import reference
from tfcompat.framework import errors


@reference("StackV2")
def _stack(ctx, op, max_size):
    key = ("stack", op.name)
    regions.run_locals(ctx).setdefault(key, [])
    return key


@reference("StackPushV2")
def _stack_push(ctx, op, handle, elem):
    regions.run_locals(ctx)[handle].append(np.array(elem, copy=True))
    return elem


@reference("StackPopV2")
def _stack_pop(ctx, op, handle):
    items = regions.run_locals(ctx).get(handle)
    if not items:
        raise errors.InvalidArgumentError(None, op, "Stack is empty.")
    return items.pop()


@reference("StackCloseV2")
def _stack_close(ctx, op, handle):
    return None
