"""JAX lowerings of ``Slice``, ``StridedSlice``, ``StridedSliceGrad`` and the sliced
assignments (``StridedSliceAssign``, ``ResourceStridedSliceAssign``: ``var[...].assign``).

Static indices give static slices. A run-time index is supported where the result's size
does not depend on it: a shrunk dimension (``x[i]``) and ``Slice`` with a static ``size``;
XLA clamps such indices into range where TF's CPU kernel would fail.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
from jax import lax

from lowering.array import is_static, static_ints
from lowering.registry import lowering
from lowering.static import StaticValueRequired
from tfcompat.framework import errors
from tfcompat.framework.constant_value import constant_value
from tfcompat.ops.slicing_ops import (
    _MASKS,
    apply_layout,
    layout_index,
    selected_shape,
    slice_broadcast_message,
    strided_slice_layout,
)


@lowering("Slice")
def _slice(ctx, op, x, begin, size):
    sizes = static_ints(op, 2, size)
    dims = jnp.shape(x)
    if is_static(begin) or constant_value(op.inputs[1]) is not None:
        starts = static_ints(op, 1, begin)
        return lax.slice(
            x, starts, [s + (d - s if n == -1 else n) for s, n, d in zip(starts, sizes, dims)]
        )
    if -1 in sizes:
        static_ints(op, 1, begin)  # raises: the size would depend on the run-time begin
    return lax.dynamic_slice(x, [begin[i] for i in range(len(dims))], sizes)


def _known_entries(op, index, value):
    """Entries of an index vector known at build time (None for run-time ones)."""
    if is_static(value):
        return [int(v) for v in np.asarray(value).reshape(-1)]
    known = constant_value(op.inputs[index])
    if known is not None:
        return [int(v) for v in np.asarray(known).reshape(-1)]
    producer = op.inputs[index].op
    if producer.type == "Pack":
        return [None if (v := constant_value(t)) is None else int(v) for t in producer.inputs]
    return [None] * int(jnp.shape(value)[0])


@lowering("StridedSlice")
def _strided_slice(ctx, op, x, begin, end, strides):
    dims = list(jnp.shape(x))
    known_begin = _known_entries(op, 1, begin)
    layout = strided_slice_layout(
        dims,
        known_begin,
        _known_entries(op, 2, end),
        static_ints(op, 3, strides),
        *(op.attrs[m] for m in _MASKS),
    )
    # Dimensions whose start is only known at run time: shrunk ones are taken afterwards
    # with a dynamic index; any other would give a run-time-dependent shape.
    dynamic = []
    for k, d in enumerate(layout.dense):
        if d.size is None:
            raise StaticValueRequired(
                None,
                op,
                f"StridedSlice node '{op.name}': the extent of dimension {k} "
                "depends on run-time values, which XLA cannot compile",
            )
        if d.begin is None:
            dynamic.append(k)
            d.begin, d.shrink = 0, False
            d.size = dims[k]
    if not dynamic:
        return apply_layout(x, layout)
    # Take the static part (keeping dynamic dims whole), then index the dynamic dims.
    final = layout.final_shape
    layout.final_shape = [d.size for d in layout.dense if not d.shrink]
    y = apply_layout(x, layout)
    spec_index = _dense_to_spec_index(op, len(dims))
    for k in reversed(dynamic):
        position = sum(1 for j in range(k) if not layout.dense[j].shrink)
        i = begin[spec_index[k]]
        i = jnp.where(i < 0, i + dims[k], i)
        y = lax.dynamic_index_in_dim(y, i, axis=position, keepdims=False)
    return y.reshape(final)


@lowering("StridedSliceGrad")
def _strided_slice_grad(ctx, op, shape, begin, end, strides, dy):
    """Scatters ``dy`` into zeros where the forward slice reads."""
    dims = static_ints(op, 0, shape)
    return _write_slice(op, jnp.zeros(dims, dy.dtype), begin, end, strides, dy)


@lowering("StridedSliceAssign")
def _strided_slice_assign(ctx, op, ref, begin, end, strides, value):
    ctx.write_var(ref, _assigned(op, ctx.read_var(ref, op), begin, end, strides, value))
    return ref


@lowering("ResourceStridedSliceAssign")
def _resource_strided_slice_assign(ctx, op, ref, begin, end, strides, value):
    from lowering.resource_variables import lookup_resource

    base = lookup_resource(ctx, ref, op)
    ctx.write_var(ref, _assigned(op, base, begin, end, strides, value))


def _assigned(op, base, begin, end, strides, value):
    """``base`` with ``value``, broadcast to the slice's shape, written into the slice."""
    base = jnp.asarray(base)
    return _write_slice(op, base, begin, end, strides, jnp.asarray(value, base.dtype), True)


def _write_slice(op, base, begin, end, strides, value, broadcast=False):
    """``base`` with ``value`` written where ``base[begin:end:strides]`` reads (``value``
    has the slice's shape, or broadcasts to it with ``broadcast``). A run-time shrink index
    (``x[i]``) becomes a dynamic update along that dimension (XLA clamps it into range)."""
    dims = list(jnp.shape(base))
    layout = strided_slice_layout(
        dims,
        _known_entries(op, 1, begin),
        _known_entries(op, 2, end),
        static_ints(op, 3, strides),
        *(op.attrs[m] for m in _MASKS),
    )
    if broadcast:
        value = _broadcast_to_slice(op, value, layout.final_shape)
    dynamic = [k for k, d in enumerate(layout.dense) if d.begin is None]
    for k in dynamic:
        layout.dense[k].begin, layout.dense[k].shrink, layout.dense[k].size = 0, False, 1
    if any(d.size is None for d in layout.dense):
        raise errors.InvalidArgumentError(
            None, op, f"{op.type} node '{op.name}': slice extents depend on run-time values"
        )
    update = jnp.reshape(value, selected_shape(layout))
    if dynamic:
        # The dynamic dims are taken whole, and the value written at the run-time index in
        # them.
        spec_index = _dense_to_spec_index(op, len(dims))
        starts = [0] * update.ndim
        for k in dynamic:
            position = sum(1 for j in range(k) if not layout.dense[j].shrink)
            i = begin[spec_index[k]]
            starts[position] = jnp.where(i < 0, i + dims[k], i)
            layout.dense[k].size = dims[k]
        # One index dtype for all starts (XLA requires it; the static zeros are Python ints).
        starts = [jnp.asarray(start).astype(jnp.int32) for start in starts]
        index = layout_index(layout)
        update = lax.dynamic_update_slice(base[index], update, starts)
        return base.at[index].set(update)
    return base.at[layout_index(layout)].set(update)


def _broadcast_to_slice(op, value, final_shape):
    """``value`` broadcast to the slice's shape; TF's InvalidArgumentError if it cannot."""
    try:
        return jnp.broadcast_to(value, tuple(final_shape))
    except ValueError:
        raise errors.InvalidArgumentError(
            None, op, slice_broadcast_message(jnp.shape(value), final_shape, op.name)
        ) from None


def _dense_to_spec_index(op, rank):
    """For each input dim, the position in begin/end/strides that describes it."""
    from tfcompat.ops.slicing_ops import _sparse_to_dense

    n = int(op.inputs[1].shape.as_list()[0])
    entries, _ = _sparse_to_dense(
        rank, n, op.attrs["ellipsis_mask"], op.attrs["new_axis_mask"], op.attrs["shrink_axis_mask"]
    )
    return entries
