"""Numpy reference kernels of ``Slice``, ``StridedSlice``, ``StridedSliceGrad`` and the sliced
assignments (``StridedSliceAssign``, ``ResourceStridedSliceAssign``).

Host segments run these on small shape vectors every step; the index each op selects is
derived once per op from its Const begin/end/strides (``const_inputs.derived``).
"""

from __future__ import annotations

import numpy as np

from lowering.reference.const_inputs import derived
from lowering.registry import reference
from tfcompat.framework import errors
from tfcompat.ops.slicing_ops import (
    _MASKS,
    apply_layout,
    layout_index,
    selected_shape,
    slice_broadcast_message,
    strided_slice_layout,
)


def _ints(value):
    return [int(v) for v in np.asarray(value).reshape(-1)]


def _slice_index(op, shape, begin, size):
    """The basic-indexing tuple of ``Slice`` on a tensor of ``shape``."""
    index = []
    for i, (b, n) in enumerate(zip(_ints(begin), _ints(size))):
        stop = shape[i] if n == -1 else b + n
        if not 0 <= b <= stop <= shape[i]:
            raise errors.InvalidArgumentError(
                None,
                op,
                f"Expected size[{i}] in [0, {shape[i] - b}], but got {n}"
                f"\n\t [[{{{{node {op.name}}}}}]]",
            )
        index.append(np.s_[b:stop])
    return tuple(index)


@reference("Slice")
def _slice(ctx, op, x, begin, size):
    x = np.asarray(x)
    index = derived(
        op, 1, (begin, size), x.shape, lambda shape, b, n: _slice_index(op, shape, b, n)
    )
    return x[index].copy()


def _strided_layout(op, shape, begin, end, strides):
    """(basic-indexing tuple, output shape) of ``op`` on a tensor of ``shape``."""
    try:
        layout = strided_slice_layout(
            list(shape), _ints(begin), _ints(end), _ints(strides), *(op.attrs[m] for m in _MASKS)
        )
    except ValueError as e:
        raise errors.InvalidArgumentError(None, op, f"{e}\n\t [[{{{{node {op.name}}}}}]]") from None
    return layout, layout_index(layout), tuple(layout.final_shape)


@reference("StridedSlice")
def _strided_slice(ctx, op, x, begin, end, strides):
    x = np.asarray(x)
    layout, index, final_shape = derived(
        op,
        1,
        (begin, end, strides),
        x.shape,
        lambda shape, *spec: _strided_layout(op, shape, *spec),
    )
    if x.dtype.kind == "O":  # one element of a string array is a bytes object
        return np.array(apply_layout(x, layout))
    return np.array(x[index]).reshape(final_shape)


@reference("StridedSliceGrad")
def _strided_slice_grad(ctx, op, shape, begin, end, strides, dy):
    dims = _ints(shape)
    layout, index, _ = _strided_layout(op, dims, begin, end, strides)
    out = np.zeros(dims, dtype=np.asarray(dy).dtype)
    out[index] = np.asarray(dy).reshape(selected_shape(layout))
    return out


def _assigned(op, base, begin, end, strides, value):
    base = np.array(base)  # a copy: the variable's old buffer may still be read
    layout, index, final_shape = _strided_layout(op, base.shape, begin, end, strides)
    value = np.asarray(value, base.dtype)
    try:
        value = np.broadcast_to(value, final_shape)
    except ValueError:
        raise errors.InvalidArgumentError(
            None, op, slice_broadcast_message(value.shape, final_shape, op.name)
        ) from None
    base[index] = value.reshape(selected_shape(layout))
    return base


@reference("StridedSliceAssign")
def _strided_slice_assign(ctx, op, ref, begin, end, strides, value):
    ctx.write_var(ref, _assigned(op, ctx.read_var(ref, op), begin, end, strides, value))
    return ref


@reference("ResourceStridedSliceAssign")
def _resource_strided_slice_assign(ctx, op, ref, begin, end, strides, value):
    from lowering.resource_variables import lookup_resource

    base = lookup_resource(ctx, ref, op)
    ctx.write_var(ref, _assigned(op, base, begin, end, strides, value))
