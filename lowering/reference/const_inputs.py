"""Per-op memo of what a kernel derives from its constant inputs.

Host segments run thousands of small kernels per step whose index-like inputs (StridedSlice's
begin/end/strides, Reshape's shape, a reduction's axes) are Consts: the interpreter hands a
kernel the Const's own ``value`` array on every run. ``derived`` computes the kernel's
preparation from such inputs once per op and reuses it while the op receives those very
objects again; any other value (a fed Const, a computed input) is prepared on every call.
"""

from __future__ import annotations

# The memo lives on the Operation itself (it goes away with its graph):
# (the Const value objects it was derived from, key, derived value).
_ATTR = "_reference_const_inputs_memo"


def _const_values(op, first, values) -> bool:
    """Whether ``values`` are the value arrays of ``op``'s Const inputs from ``first`` on
    (graph constants are never mutated, so identity implies equal contents)."""
    for tensor, value in zip(op.inputs[first:], values):
        producer = tensor.op
        if producer.type != "Const" or producer.attrs["value"] is not value:
            return False
    return True


def derived(op, first, values, key, derive):
    """``derive(key, *values)`` where ``values`` (a tuple) are ``op``'s inputs ``first,
    first+1, ...`` and ``key`` (hashable: e.g. the data input's shape) is whatever else it
    depends on.

    Remembered per op while ``values`` are the op's Const values; errors from ``derive``
    propagate and leave nothing remembered.
    """
    entry = getattr(op, _ATTR, None)
    if entry is not None and entry[1] == key:
        for seen, value in zip(entry[0], values):
            if seen is not value:
                break
        else:
            return entry[2]
    result = derive(key, *values)
    if _const_values(op, first, values):
        setattr(op, _ATTR, (values, key, result))
    return result
