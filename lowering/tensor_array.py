"""JAX lowering of TF's TensorArrays (``TensorArrayV3`` family).

An array lives in the step's run locals (``lowering/regions.py``) under
``("tensor_array", name[, source])`` as one buffer of shape ``(size,) + element_shape``,
so it is carried through ``lax.while_loop`` / ``lax.cond`` like a gradient stack. The size
must be known when the step is traced (``dynamic_rnn``'s is the input's time dimension).
The buffer is made on the first write (or from a fully known ``element_shape``), zeros
elsewhere: unwritten elements of a gradient array are zero gradients. Writes to a gradient
array (``TensorArrayGradV3``) add up, as TF's gradient arrays aggregate; forward arrays are
overwritten. The handle itself is a static Python value; flows are dummy scalars whose only
role, ordering, the plan already honours through the graph's edges.
"""

from __future__ import annotations

import dataclasses

import jax.numpy as jnp
import numpy as np
from jax import lax

from lowering import regions
from lowering.registry import lowering
from lowering.static import static_int
from tfcompat.framework import errors

KIND = "tensor_array"


@dataclasses.dataclass(frozen=True)
class ArrayHandle:
    """What a TensorArray handle holds while tracing (shared with the numpy kernels)."""

    key: tuple
    size: int
    dtype: np.dtype
    element_shape: tuple | None  # fully known element shape, else None
    aggregate: bool  # gradient arrays sum their writes


def known_shape(shape_attr):
    """A TensorShape attr as a tuple when fully defined, else None."""
    if shape_attr is None or not shape_attr.is_fully_defined():
        return None
    return tuple(shape_attr.as_list())


def create_handle(op, size):
    """The handle of ``TensorArrayV3`` op ``op`` with static ``size``."""
    if op.attrs["dynamic_size"]:
        raise errors.UnimplementedError(
            None,
            op,
            f"TensorArrayV3 {op.name}: dynamic_size=True arrays are not supported (the XLA "
            "lowering keeps an array as a buffer of static size)",
        )
    return ArrayHandle(
        (KIND, op.name),
        size,
        op.attrs["dtype"].as_numpy_dtype,
        known_shape(op.attrs["element_shape"]),
        False,
    )


def grad_handle(op, handle, local_values):
    """The gradient array of ``handle`` for ``op``'s ``source`` (same size and dtype)."""
    source = op.attrs["source"]
    source = source.decode() if isinstance(source, bytes) else source
    shape = handle.element_shape
    forward = local_values.get(handle.key)
    if shape is None and forward is not None:
        shape = tuple(np.shape(forward)[1:])
    return ArrayHandle(handle.key + (source,), handle.size, handle.dtype, shape, True)


def element_shape_for(op, handle, value_shape=None):
    """The element shape a new buffer gets: the handle's, a written value's, or a gather's
    ``element_shape`` attr; InvalidArgument when none is known."""
    for shape in (handle.element_shape, value_shape, known_shape(op.attrs.get("element_shape"))):
        if shape is not None:
            return tuple(shape)
    raise errors.InvalidArgumentError(
        None,
        op,
        f"{op.type} {op.name}: TensorArray {handle.key[1]} was never written and its element "
        "shape is not fully known",
    )


def _buffer(ctx, op, handle, value_shape=None):
    found = regions.run_locals(ctx).get(handle.key)
    if found is not None:
        return found
    shape = element_shape_for(op, handle, value_shape)
    return jnp.zeros((handle.size,) + shape, handle.dtype)


def _store(ctx, handle, buffer):
    regions.run_locals(ctx)[handle.key] = buffer


_FLOW = np.float32(0.0)


@lowering("TensorArrayV3")
def _tensor_array(ctx, op, size):
    return create_handle(op, static_int(op, 0, size, "size")), _FLOW


@lowering("TensorArrayGradV3")
def _tensor_array_grad(ctx, op, handle, flow_in):
    return grad_handle(op, handle, regions.run_locals(ctx)), flow_in


@lowering("TensorArrayWriteV3")
def _write(ctx, op, handle, index, value, flow_in):
    value = jnp.asarray(value, handle.dtype)
    buffer = _buffer(ctx, op, handle, value.shape)
    if handle.aggregate:
        value = value + lax.dynamic_index_in_dim(buffer, index, 0, keepdims=False)
    _store(ctx, handle, lax.dynamic_update_index_in_dim(buffer, value, index, 0))
    return flow_in


@lowering("TensorArrayReadV3")
def _read(ctx, op, handle, index, flow_in):
    return lax.dynamic_index_in_dim(_buffer(ctx, op, handle), index, 0, keepdims=False)


@lowering("TensorArrayScatterV3")
def _scatter(ctx, op, handle, indices, value, flow_in):
    value = jnp.asarray(value, handle.dtype)
    buffer = _buffer(ctx, op, handle, value.shape[1:])
    slots = buffer.at[jnp.asarray(indices)]
    _store(ctx, handle, slots.add(value) if handle.aggregate else slots.set(value))
    return flow_in


@lowering("TensorArrayGatherV3")
def _gather(ctx, op, handle, indices, flow_in):
    return jnp.take(_buffer(ctx, op, handle), jnp.asarray(indices), axis=0)


@lowering("TensorArraySizeV3")
def _size(ctx, op, handle, flow_in):
    return np.int32(handle.size)


@lowering("TensorArrayCloseV3")
def _close(ctx, op, handle):
    return None
