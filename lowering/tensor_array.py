"""JAX lowering of TF's TensorArrays (``TensorArrayV3`` family).

An array lives in the step's run locals (``lowering/regions.py``) under
``("tensor_array", name[, source])`` as one buffer of shape ``(capacity,) + element_shape``,
so it is carried through ``lax.while_loop`` / ``lax.cond`` like a gradient stack. A fixed-size
array's capacity is its size, which must be known when the step is traced (``dynamic_rnn``'s
is the input's time dimension). The buffer is made on the first write (or from a fully known
``element_shape``), zeros elsewhere: unwritten elements read as zeros, as in TF, and
unwritten elements of a gradient array are zero gradients. Writes to a gradient array
(``TensorArrayGradV3``) add up, as TF's gradient arrays aggregate; forward arrays are
overwritten. The handle itself is a static Python value; flows are dummy scalars whose only
role, ordering, the plan already honours through the graph's edges.

Dynamic arrays (``dynamic_size=True``: decoders, ``tf.nn.raw_rnn``) grow on writes past their
end. XLA needs static shapes, so such an array is a buffer of ``size + ctx.stack_bucket``
slots plus its run-time size (a traced int32 run local under ``key + ("size",)``). A write
past the buffer sets the step's stack overflow flag and the step reruns with a doubled
bucket, as a gradient stack does (``lowering/stack.py``). Its gradient array has the forward
array's run-time size and capacity (TF's gradient arrays do not grow). As TF's kernels do,
a dynamic array refuses (a device check, ``control_flow.kernel_check``) a second write to
an element and a read at or past its size; a fixed array's are not checked on the device
(the numpy kernels check both kinds).

``tf.TensorArray.stack()`` is ``Gather(Range(0, Size()))``, whose shape depends on the size:
``TensorArraySizeV3`` of a dynamic array therefore returns a compile-time value, the size this
op had the last time the step ran (its static initial size at first), and records the size
it really has. If they differ, the step's writes are discarded and it reruns compiled for the
size seen (``regions.check_report``): a run with the size of the previous one reuses its
executable; a new size costs a discarded run and a compilation (the jit is renewed, so sizes
alternating between runs recompile each time). A ``Size`` whose value changes while one step
runs (``ta.size()`` inside the loop that writes the array) stays a run-time value: a write
at ``ta.size()`` works, a ``stack()`` there raises StaticValueRequired (Unimplemented).
``concat()`` of a dynamic array takes its size the same way.

``split(value, lengths)`` needs its lengths at compile time and all equal (one buffer of equal
elements): TF itself refuses different lengths unless ``infer_shape=False``; here those are
Unimplemented. ``concat()``'s lengths output is static, so its gradient's split compiles.
"""

from __future__ import annotations

import dataclasses

import jax.numpy as jnp
import numpy as np
from jax import lax

from lowering import control_flow, regions
from lowering.registry import lowering
from lowering.static import static_int, static_value
from tfcompat.framework import errors

KIND = "tensor_array"


@dataclasses.dataclass(frozen=True)
class ArrayHandle:
    """What a TensorArray handle holds while tracing (shared with the numpy kernels)."""

    key: tuple
    size: int  # the static size; a dynamic array's initial size
    dtype: np.dtype
    element_shape: tuple | None  # fully known element shape, else None
    aggregate: bool  # gradient arrays sum their writes
    dynamic: bool = False  # size known at run time only (a dynamic array or its gradient)
    grows: bool = False  # writes past the end grow the array (dynamic_size=True)
    identical: bool = False  # elements must share one shape (``infer_shape=True``)

    @property
    def size_key(self):
        """The run-locals key of a dynamic array's run-time size."""
        return self.key + ("size",)


def known_shape(shape_attr):
    """A TensorShape attr as a tuple when fully defined, else None."""
    if shape_attr is None or not shape_attr.is_fully_defined():
        return None
    return tuple(shape_attr.as_list())


def create_handle(op, size):
    """The handle of ``TensorArrayV3`` op ``op`` with static (initial) ``size``."""
    dynamic = bool(op.attrs["dynamic_size"])
    return ArrayHandle(
        (KIND, op.name),
        size,
        op.attrs["dtype"].as_numpy_dtype,
        known_shape(op.attrs["element_shape"]),
        False,
        dynamic,
        dynamic,
        bool(op.attrs["identical_element_shapes"]),
    )


def grad_handle(op, handle, local_values):
    """The gradient array of ``handle`` for ``op``'s ``source`` (same size and dtype; a
    dynamic array's gradient has its run-time size but does not grow)."""
    source = op.attrs["source"]
    source = source.decode() if isinstance(source, bytes) else source
    shape = handle.element_shape
    forward = local_values.get(handle.key)
    if shape is None and forward is not None:
        shape = tuple(np.shape(forward)[1:])
    return ArrayHandle(
        handle.key + (source,), handle.size, handle.dtype, shape, True, handle.dynamic, False
    )


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


def _shape_text(shape):
    return "[" + ",".join(str(int(d)) for d in shape) + "]"


def check_split(op, handle, value_shape, lengths, array_size):
    """TF's checks of ``TensorArraySplitV3`` (``lengths``: the static lengths; a dynamic
    array's ``array_size`` may be None when only known at run time). Returns the number of
    elements and their common length: an array is one buffer of equal elements, so
    elements of different lengths are refused (Unimplemented)."""
    lengths = np.asarray(lengths)
    if lengths.ndim != 1:
        shape = _shape_text(lengths.shape)
        raise errors.InvalidArgumentError(
            None, op, f"Expected lengths to be a vector, received shape: {shape}"
        )
    if len(value_shape) == 0:
        raise errors.InvalidArgumentError(
            None, op, "Expected value to be at least a vector, but received shape: []"
        )
    total, count = int(lengths.sum()), len(lengths)
    if total != value_shape[0]:
        raise errors.InvalidArgumentError(
            None,
            op,
            "Expected sum of lengths to be equal to values.shape[0], but sum of lengths is "
            f"{total} and value's shape is: {_shape_text(value_shape)}",
        )
    if array_size is not None:
        size = max(array_size, count) if handle.grows else array_size
        if size != count:
            raise errors.InvalidArgumentError(None, op, split_size_message(size, count))
    if count and lengths.min() != lengths.max():
        if handle.identical:  # TF's error: the elements' shapes must agree
            index = int(np.argmax(lengths != lengths[0]))
            shapes = [_shape_text((int(n),) + tuple(value_shape[1:])) for n in lengths]
            raise errors.InvalidArgumentError(
                None,
                op,
                f"TensorArray {handle.key[1]}: Could not write to TensorArray index {index} "
                f"because the value shape is {shapes[index]} which is incompatible with the "
                f"TensorArray's inferred element shape: {shapes[0]} (consider setting "
                "infer_shape=False).",
            )
        raise errors.UnimplementedError(
            None,
            op,
            f"{op.type} {op.name}: TensorArray {handle.key[1]} split into elements of "
            f"different lengths {lengths.tolist()}: an array here is one buffer of "
            "elements of one shape",
        )
    return count, int(lengths[0]) if count else 0


def split_size_message(size, count):
    return (
        f"TensorArray's size is not equal to the size of lengths ({size} vs. {count}), and "
        "the TensorArray is not marked as dynamically resizeable"
    )


def check_concat(op, element_shape):
    if len(element_shape) == 0:
        raise errors.InvalidArgumentError(
            None, op, "Concat saw a scalar shape at index 0 but requires at least vectors."
        )


def _capacity(ctx, handle):
    """Slots of the buffer: the size, plus a stack bucket for a dynamic array."""
    if not handle.dynamic:
        return handle.size
    return handle.size + getattr(ctx, "stack_bucket", regions.INITIAL_STACK_BUCKET)


def _buffer(ctx, op, handle, value_shape=None):
    found = regions.run_locals(ctx).get(handle.key)
    if found is not None:
        return found
    shape = element_shape_for(op, handle, value_shape)
    return jnp.zeros((_capacity(ctx, handle),) + shape, handle.dtype)


def _store(ctx, handle, buffer):
    regions.run_locals(ctx)[handle.key] = buffer


def _run_size(ctx, handle):
    """A dynamic array's run-time size (traced int32); a fixed array's static size."""
    if not handle.dynamic:
        return np.int32(handle.size)
    return regions.run_locals(ctx).get(handle.size_key, jnp.asarray(handle.size, jnp.int32))


def _grow(ctx, handle, end):
    """After a write of elements below ``end``: a growing array's size becomes at least
    ``end``; one past the buffer sets the overflow flag (the step reruns with a larger
    bucket)."""
    if not handle.grows:
        return
    local_values = regions.run_locals(ctx)
    end = jnp.asarray(end, jnp.int32)
    local_values[handle.size_key] = jnp.maximum(_run_size(ctx, handle), end)
    overflowed = local_values.get(regions.STACK_OVERFLOW_KEY, jnp.asarray(False))
    local_values[regions.STACK_OVERFLOW_KEY] = overflowed | (end > _capacity(ctx, handle))


_FLOW = np.float32(0.0)


@lowering("TensorArrayV3")
def _tensor_array(ctx, op, size):
    handle = create_handle(op, static_int(op, 0, size, "size"))
    if handle.dynamic:
        # Set here, outside any loop writing the array: a local first set inside a loop
        # body would enter the loop as zero.
        regions.run_locals(ctx)[handle.size_key] = jnp.asarray(handle.size, jnp.int32)
    return handle, _FLOW


@lowering("TensorArrayGradV3")
def _tensor_array_grad(ctx, op, handle, flow_in):
    local_values = regions.run_locals(ctx)
    grad = grad_handle(op, handle, local_values)
    if grad.dynamic:
        local_values[grad.size_key] = _run_size(ctx, handle)
    return grad, flow_in


def _check_first_write(ctx, op, handle, index):
    """TF refuses to write an element of a forward array twice; checked on the device for
    growing arrays, whose writes are data-dependent (a mask of written slots is kept)."""
    if not handle.grows:
        return
    local_values = regions.run_locals(ctx)
    key = handle.key + ("written",)
    written = local_values.get(key)
    if written is None:  # inside a loop body this starts as all False too
        written = jnp.zeros((_capacity(ctx, handle),), bool)
    name = handle.key[1]
    control_flow.kernel_check(
        ctx,
        op,
        lax.dynamic_index_in_dim(written, index, 0, keepdims=False),
        [index],
        lambda i: (
            f"TensorArray {name}: Could not write to TensorArray index {int(i)} because "
            "it has already been written to."
        ),
    )
    local_values[key] = lax.dynamic_update_index_in_dim(written, True, index, 0)


@lowering("TensorArrayWriteV3")
def _write(ctx, op, handle, index, value, flow_in):
    value = jnp.asarray(value, handle.dtype)
    buffer = _buffer(ctx, op, handle, value.shape)
    if handle.aggregate:
        value = value + lax.dynamic_index_in_dim(buffer, index, 0, keepdims=False)
    _check_first_write(ctx, op, handle, index)
    _store(ctx, handle, lax.dynamic_update_index_in_dim(buffer, value, index, 0))
    _grow(ctx, handle, jnp.asarray(index) + 1)
    return flow_in


@lowering("TensorArrayReadV3")
def _read(ctx, op, handle, index, flow_in):
    if handle.dynamic:  # a fixed array's reads are in range: its size is static
        size = _run_size(ctx, handle)
        control_flow.kernel_check(
            ctx,
            op,
            (index < 0) | (index >= size),
            [index, size],
            lambda i, n: f"Tried to read from index {int(i)} but array size is: {int(n)}",
        )
    return lax.dynamic_index_in_dim(_buffer(ctx, op, handle), index, 0, keepdims=False)


@lowering("TensorArrayScatterV3")
def _scatter(ctx, op, handle, indices, value, flow_in):
    value = jnp.asarray(value, handle.dtype)
    buffer = _buffer(ctx, op, handle, value.shape[1:])
    indices = jnp.asarray(indices)
    slots = buffer.at[indices]
    _store(ctx, handle, slots.add(value) if handle.aggregate else slots.set(value))
    if indices.size:
        _grow(ctx, handle, jnp.max(indices) + 1)
    return flow_in


@lowering("TensorArrayGatherV3")
def _gather(ctx, op, handle, indices, flow_in):
    return jnp.take(_buffer(ctx, op, handle), jnp.asarray(indices), axis=0)


@lowering("TensorArraySplitV3")
def _split(ctx, op, handle, value, lengths, flow_in):
    """Element ``i`` is the next ``lengths[i]`` rows of ``value`` (static lengths)."""
    value = jnp.asarray(value, handle.dtype)
    lengths = static_value(op, 2, lengths)
    static_size = None if handle.dynamic else handle.size
    count, length = check_split(op, handle, value.shape, lengths, static_size)
    if handle.dynamic:  # a growing array may be shorter than ``count``, never longer
        size = _run_size(ctx, handle)
        control_flow.kernel_check(
            ctx, op, size > count, [size], lambda n: split_size_message(int(n), count)
        )
    elements = value.reshape((count, length) + value.shape[1:])
    buffer = _buffer(ctx, op, handle, elements.shape[1:])
    slots = buffer.at[jnp.arange(count)]
    _store(ctx, handle, slots.add(elements) if handle.aggregate else slots.set(elements))
    _grow(ctx, handle, count)
    return flow_in


@lowering("TensorArrayConcatV3")
def _concat(ctx, op, handle, flow_in):
    """The elements joined along their first dimension, and their lengths. A dynamic
    array's size is a compile-time value, as for ``TensorArraySizeV3``."""
    buffer = _buffer(ctx, op, handle)
    check_concat(op, buffer.shape[1:])
    size = handle.size
    if handle.dynamic:
        size = _compile_time_size(ctx, op, handle)
        if size is None:
            raise errors.UnimplementedError(
                None,
                op,
                f"{op.type} {op.name}: the size of TensorArray {handle.key[1]} changes while "
                "the step runs, so its concatenation has no static shape",
            )
    length = buffer.shape[1]
    value = buffer[:size].reshape((size * length,) + buffer.shape[2:])
    return value, np.full((size,), length, np.int64)  # static: a split may take them


def _compile_time_size(ctx, op, handle):
    """A dynamic array's size as ``op`` saw it the last time the step ran (its initial
    size at first), recording the size it has now for the step's rerun check; None when
    ``op``'s size varied within one step."""
    guess = regions.array_size_guess(ctx, op, handle.size)
    if guess is not None:
        regions.record_array_size(ctx, op, _run_size(ctx, handle))
    return guess


@lowering("TensorArraySizeV3")
def _size(ctx, op, handle, flow_in):
    if not handle.dynamic:
        return np.int32(handle.size)
    guess = _compile_time_size(ctx, op, handle)
    if guess is None:  # a run-time value
        return _run_size(ctx, handle)
    return np.int32(guess)


@lowering("TensorArrayCloseV3")
def _close(ctx, op, handle):
    return None
