"""Per-op memo of what a kernel derives from its constant inputs.

Host segments run thousands of small kernels per step whose index-like inputs (StridedSlice's
begin/end/strides, Reshape's shape, a reduction's axes) are Consts: the interpreter hands a
kernel the Const's own ``value`` array on every run. ``derived`` computes the kernel's
preparation from such inputs once per op and reuses it while the op receives those very
objects again; any other value (a fed Const, a computed input) is prepared on every call.
"""

from __future__ import annotations

import weakref

# op -> (the Const value objects the entry was derived from, key, derived value)
_MEMO: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _const_values(op, first, values) -> bool:
    """Whether ``values`` are the value arrays of ``op``'s Const inputs from ``first`` on
    (graph constants are never mutated, so identity implies equal contents)."""
    for tensor, value in zip(op.inputs[first:], values):
        producer = tensor.op
        if producer.type != "Const" or producer.attrs["value"] is not value:
            return False
    return True


def derived(op, first, values, key, derive):
    """``derive(key, *values)`` where ``values`` are ``op``'s inputs ``first, first+1, ...``
    and ``key`` (hashable: e.g. the data input's shape) is whatever else it depends on.

    Remembered per op while ``values`` are the op's Const values; errors from ``derive``
    propagate and leave nothing remembered.
    """
    entry = _MEMO.get(op)
    if entry is not None and entry[1] == key:
        seen = entry[0]
        if len(seen) == len(values) and all(a is b for a, b in zip(seen, values)):
            return entry[2]
    result = derive(key, *values)
    if _const_values(op, first, values):
        _MEMO[op] = (tuple(values), key, result)
    return result
