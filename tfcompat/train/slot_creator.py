"""Slot variables: per-variable optimizer state (``w/Momentum``, ``w/Adam_1``...).

A slot is a non-trainable variable named ``<primary>/<name>`` (made unique), created at
the root name scope and colocated with its primary variable, as TensorFlow creates them;
it is a resource variable exactly when its primary is one.
An initializer (a callable ``(shape, dtype) -> Tensor``) builds its value under
``<slot>/Initializer``; a Tensor value is used as given.
"""

from __future__ import annotations

import contextlib

from tfcompat.framework import dtypes
from tfcompat.ops import array_ops


def _slot_variable(primary, initial_value, name, colocate_with_primary, dtype=None):
    from tfcompat.resource_variables import is_resource_variable
    from tfcompat.variables import Variable

    graph = primary.graph
    validate = True
    if not callable(initial_value):
        validate = initial_value.shape.is_fully_defined()
    with graph.as_default(), graph.name_scope(""):  # slots ignore the caller's name scope
        scope = (
            graph.colocate_with(primary.op) if colocate_with_primary else contextlib.nullcontext()
        )
        with scope:
            return Variable(
                initial_value,
                trainable=False,
                name=f"{primary.op.name}/{name}",
                dtype=dtype,
                validate_shape=validate,
                # A resource variable's slots are resource variables (a ref's are refs).
                use_resource=is_resource_variable(primary),
            )


def create_slot(primary, val, name, colocate_with_primary=True):
    """A slot for ``primary`` whose initial value is the Tensor ``val``."""
    return _slot_variable(primary, val, name, colocate_with_primary)


def create_slot_with_initializer(
    primary, initializer, shape, dtype, name, colocate_with_primary=True
):
    """A slot of ``shape`` and ``dtype`` initialized by ``initializer(shape, dtype)``."""
    dtype = dtypes.as_dtype(dtype).base_dtype

    def initial_value():
        return initializer(shape, dtype)

    return _slot_variable(primary, initial_value, name, colocate_with_primary, dtype)


def zeros_initializer(shape, dtype):
    return array_ops.zeros(shape, dtype=dtype)


def ones_initializer(shape, dtype):
    return array_ops.ones(shape, dtype=dtype)


def constant_initializer(value):
    """An initializer filling the slot with ``value`` (a ``Const``, as TF's)."""
    from tfcompat.framework.constant_op import constant

    def initializer(shape, dtype):
        return constant(value, dtype=dtype, shape=shape.as_list())

    return initializer


def create_zeros_slot(primary, name, dtype=None, colocate_with_primary=True):
    """A slot of zeros shaped like ``primary`` (``<slot>/Initializer/zeros``)."""
    dtype = primary.dtype.base_dtype if dtype is None else dtypes.as_dtype(dtype)
    shape = primary.get_shape()
    if shape.is_fully_defined():
        return create_slot_with_initializer(
            primary, zeros_initializer, shape, dtype, name, colocate_with_primary
        )
    # Unknown static shape: zeros shaped like the primary's initial value.
    graph = primary.graph
    with graph.as_default():
        val = array_ops.zeros(array_ops.shape(primary.initial_value), dtype=dtype)
    return create_slot(primary, val, name, colocate_with_primary)
