"""Partitioned variables: the partitioners, ``PartitionedVariable`` and the slicing helpers
``tf.get_variable(partitioner=...)`` uses (TF's ``partitioned_variables`` and the
partition parts of ``variable_scope``/``variables``).

A partitioner maps ``(shape, dtype)`` to a list with the number of shards per axis (more
than one on at most one axis). ``get_variable`` then creates variables ``name/part_0``,
``name/part_1``, ... and returns a ``PartitionedVariable`` over them: iterating it gives
the shards (what ``embedding_lookup`` takes), and converting it to a Tensor concatenates
them (``name/ConcatPartitions/concat``, then an ``Identity`` named ``name``).
"""

from __future__ import annotations

import collections.abc
import importlib
import math

from tfcompat.framework import dtypes, tensor_shape
from tfcompat.framework import graph as graph_lib
from tfcompat.framework.op_helper import register_tensor_conversion_function
from tfcompat.util.tf_export import tf_export


# ---------------------------------------------------------------------------------------------
# Partitioners
# ---------------------------------------------------------------------------------------------
@tf_export("variable_axis_size_partitioner")
def variable_axis_size_partitioner(
    max_shard_bytes, axis=0, bytes_per_string_element=16, max_shards=None
):
    """Shards along ``axis`` so that each shard holds at most ``max_shard_bytes``."""
    if max_shard_bytes < 1 or bytes_per_string_element < 1:
        raise ValueError(
            "Both max_shard_bytes and bytes_per_string_element must be positive. "
            f"Currently, max_shard_bytes is {max_shard_bytes} and"
            f"bytes_per_string_element is {bytes_per_string_element}"
        )
    if max_shards and max_shards < 1:
        raise ValueError("max_shards must be positive.")

    def _partitioner(shape, dtype):
        if not isinstance(shape, tensor_shape.TensorShape):
            raise ValueError(f"shape is not a TensorShape: {shape}")
        if not shape.is_fully_defined():
            raise ValueError(f"shape is not fully defined: {shape}")
        element_size = _element_bytes(dtype, bytes_per_string_element)
        partitions = [1] * shape.ndims
        bytes_per_slice = 1.0 * (shape.num_elements() / shape.dims[axis].value) * element_size
        slices_per_shard = max(1, math.floor(max_shard_bytes / bytes_per_slice))
        axis_shards = int(math.ceil(1.0 * shape.dims[axis].value / slices_per_shard))
        if max_shards:
            axis_shards = min(max_shards, axis_shards)
        partitions[axis] = axis_shards
        return partitions

    return _partitioner


@tf_export("min_max_variable_partitioner")
def min_max_variable_partitioner(
    max_partitions=1, axis=0, min_slice_size=256 << 10, bytes_per_string_element=16
):
    """At most ``max_partitions`` shards along ``axis``, each of at least ``min_slice_size``
    bytes where possible."""

    def _partitioner(shape, dtype):
        if axis >= len(shape):
            raise ValueError(
                f"Cannot partition variable along axis {axis} when shape is only {shape}"
            )
        total_bytes = shape.num_elements() * _element_bytes(dtype, bytes_per_string_element)
        partitions = [1] * len(shape)
        partitions[axis] = max(
            1,
            min(
                shape.dims[axis].value, max_partitions, int(math.ceil(total_bytes / min_slice_size))
            ),
        )
        return partitions

    return _partitioner


@tf_export("fixed_size_partitioner")
def fixed_size_partitioner(num_shards, axis=0):
    """``num_shards`` shards along ``axis`` (fewer if the axis is shorter)."""

    def _partitioner(shape, **unused_args):
        partitions = [1] * len(shape)
        partitions[axis] = min(num_shards, shape.dims[axis].value)
        return partitions

    return _partitioner


def _element_bytes(dtype, bytes_per_string_element):
    dtype = dtypes.as_dtype(dtype)
    if dtype.base_dtype == dtypes.string:
        return bytes_per_string_element
    return dtype.size


@tf_export("create_partitioned_variables")
def create_partitioned_variables(
    shape,
    slicing,
    initializer,
    dtype=dtypes.float32,
    trainable=True,
    collections=None,
    name=None,
    reuse=None,
):
    """The shards of a new partitioned variable, as a list (deprecated in TF)."""
    # The module, not the ``tf.variable_scope`` class the package exports under its name.
    variable_scope = importlib.import_module("tfcompat.ops.variable_scope")

    if len(shape) != len(slicing):
        raise ValueError(
            "The 'shape' and 'slicing' of a partitioned Variable must have the length: "
            f"shape: {shape}, slicing: {slicing}"
        )
    if len(shape) < 1:
        raise ValueError(f"A partitioned Variable must have rank at least 1: shape: {shape}")
    with variable_scope.variable_scope(name, "PartitionedVariable", reuse=reuse):
        partitioned = variable_scope._get_partitioned_variable(
            name=None,
            shape=shape,
            dtype=dtype,
            initializer=initializer,
            trainable=trainable,
            partitioner=lambda **unused_kwargs: slicing,
            collections=collections,
        )
        return list(partitioned)


# ---------------------------------------------------------------------------------------------
# Slicing helpers
# ---------------------------------------------------------------------------------------------
class PartitionInfo:
    """Where a shard sits in its full variable: passed to initializers as
    ``partition_info`` so they can use the full shape."""

    __slots__ = ["_full_shape", "_var_offset"]

    def __init__(self, full_shape, var_offset):
        if not isinstance(full_shape, (list, tuple)):
            raise TypeError(
                "`full_shape` must be a sequence (like tuple or list) instead of "
                + type(full_shape).__name__
            )
        if not isinstance(var_offset, (list, tuple)):
            raise TypeError(
                "`var_offset` must be a sequence (like tuple or list) instead of "
                + type(var_offset).__name__
            )
        if len(var_offset) != len(full_shape):
            raise ValueError(
                f"Expected equal length, but `var_offset` is of length {len(var_offset)} "
                f"while full_shape is of length {len(full_shape)}."
            )
        for offset, size in zip(var_offset, full_shape):
            if offset < 0 or offset >= size:
                raise ValueError(
                    f"Expected 0 <= offset < shape but found offset={offset}, shape={size} "
                    f"for var_offset={var_offset}, full_shape={full_shape}"
                )
        self._full_shape = full_shape
        self._var_offset = var_offset

    @property
    def full_shape(self):
        return self._full_shape

    @property
    def var_offset(self):
        return self._var_offset

    def single_offset(self, shape):
        """The offset along the one sliced dimension (0 when none is sliced)."""
        dim = self.single_slice_dim(shape)
        return 0 if dim is None else self.var_offset[dim]

    def single_slice_dim(self, shape):
        """The one dimension in which a shard of ``shape`` differs from the full shape."""
        if not isinstance(shape, (tuple, list)):
            raise TypeError(
                "`shape` must be a sequence (like tuple or list) instead of " + type(shape).__name__
            )
        if len(shape) != len(self.full_shape):
            raise ValueError(
                f"Expected equal length, but received shape={shape} of length {len(shape)} "
                f"while self.full_shape={self.full_shape} is of length {len(self.full_shape)}."
            )
        for i, size in enumerate(shape):
            if self.var_offset[i] + size > self.full_shape[i]:
                raise ValueError(
                    f"With self.var_offset={self.var_offset}, a partition of shape={shape} "
                    f"would exceed self.full_shape={self.full_shape} in dimension {i}."
                )
        slice_dim = None
        for i, size in enumerate(shape):
            if size == self.full_shape[i]:
                continue
            if slice_dim is not None:
                raise ValueError(
                    f"Cannot use single_slice_dim() with shape={shape} and "
                    f"self.full_shape={self.full_shape} since slice dim could be either "
                    f"dimension {i} or {slice_dim}."
                )
            slice_dim = i
        return slice_dim


class SaveSliceInfo:
    """A shard's slice of its full variable (what a Saver records for it)."""

    def __init__(self, full_name=None, full_shape=None, var_offset=None, var_shape=None):
        self.full_name = full_name
        self.full_shape = full_shape
        self.var_offset = var_offset
        self.var_shape = var_shape

    @property
    def spec(self):
        """TF's slice spec string: ``"10 4 0,5:0,4"``."""
        full = " ".join(f"{d}" for d in self.full_shape) + " "
        return full + ":".join(f"{o},{s}" for o, s in zip(self.var_offset, self.var_shape))


def call_partitioner(partitioner, shape, dtype):
    """The partitioner's list for ``shape``, validated as TF validates it."""
    if not shape.is_fully_defined():
        raise ValueError(
            f"Shape of a new partitioned variable must be fully defined, but instead was {shape}."
        )
    if shape.ndims < 1:
        raise ValueError(f"A partitioned Variable must have rank at least 1, shape: {shape}")
    slicing = partitioner(shape=shape, dtype=dtype)
    if not isinstance(slicing, collections.abc.Sequence):
        raise ValueError(f"Partitioner must return a sequence, but saw: {slicing}")
    if len(slicing) != shape.ndims:
        raise ValueError(
            "Partitioner returned a partition list that does not match the Variable's "
            f"rank: {slicing} vs. {shape}"
        )
    if any(p < 1 for p in slicing):
        raise ValueError(f"Partitioner returned zero partitions for some axes: {slicing}")
    if sum(p > 1 for p in slicing) > 1:
        raise ValueError(
            f"Can only slice a variable along one dimension: shape: {shape}, "
            f"partitioning: {slicing}"
        )
    return slicing


def slice_dim_and_num_slices(slicing):
    for slice_dim, num_slices in enumerate(slicing):
        if num_slices > 1:
            return slice_dim, num_slices
    return 0, 1


def iter_slices(full_shape, num_slices, slice_dim):
    """``(offset, shape)`` of each shard; the first ``size % num_slices`` get one extra."""
    excess = full_shape[slice_dim] % num_slices
    offset = [0] * len(full_shape)
    min_len = full_shape[slice_dim] // num_slices
    for i in range(num_slices):
        shape = full_shape[:]
        shape[slice_dim] = min_len + bool(i < excess)
        yield offset[:], shape
        offset[slice_dim] += shape[slice_dim]


# ---------------------------------------------------------------------------------------------
# PartitionedVariable
# ---------------------------------------------------------------------------------------------
class PartitionedVariable:
    """A variable stored as shards along one axis; reads concatenate them."""

    def __init__(self, name, shape, dtype, variable_list, partitions):
        if not isinstance(variable_list, (list, tuple)):
            raise TypeError(f"variable_list is not a list or tuple: {variable_list}")
        if not isinstance(partitions, (list, tuple)):
            raise TypeError(f"partitions is not a list or tuple: {partitions}")
        if not all(p >= 1 for p in partitions):
            raise ValueError(f"partition values must be positive: {partitions}")
        if not variable_list:
            raise ValueError("variable_list may not be empty")
        if not all(_slice_info(v) is not None for v in variable_list):
            raise ValueError(
                "All variables must have a save_slice_info available: "
                f"{[v.name for v in variable_list]}"
            )
        if len(shape) != len(partitions):
            raise ValueError(f"len(shape) != len(partitions): {shape} vs. {partitions}")
        self._variable_list = sorted(variable_list, key=lambda v: _slice_info(v).var_offset)
        self._name = name
        self._shape = shape
        self._dtype = dtype
        self._partitions = partitions

    def __iter__(self):
        return iter(self._variable_list)

    def __len__(self):
        axes = self._partition_axes()
        if len(axes) > 1:
            raise ValueError(f"Cannot get a length for {len(axes)} > 1 partition axes")
        return len(self._variable_list)

    def _partition_axes(self):
        if all(p == 1 for p in self._partitions):
            return [0]
        return [i for i, p in enumerate(self._partitions) if p > 1]

    def _concat(self):
        from tfcompat.ops import array_ops, join_ops

        graph = graph_lib.get_default_graph()
        if len(self._variable_list) == 1:
            with graph.name_scope(None):
                return array_ops.identity(self._variable_list[0], name=self._name)
        axes = self._partition_axes()
        if len(axes) > 1:
            raise NotImplementedError(
                f"Cannot concatenate along more than one dimension: {axes}.  Multi-axis "
                "partition concat is not supported"
            )
        with graph.name_scope(self._name + "/ConcatPartitions/"):
            concatenated = join_ops.concat(self._variable_list, axes[0])
        with graph.name_scope(None):
            return array_ops.identity(concatenated, name=self._name)

    def as_tensor(self):
        """The full value: the shards concatenated (outside any control dependencies)."""
        with graph_lib.get_default_graph().control_dependencies(None):
            return self._concat()

    @property
    def name(self):
        return self._name

    @property
    def dtype(self):
        return self._dtype

    @property
    def shape(self):
        return self._shape

    def get_shape(self):
        return self._shape

    def _get_variable_list(self):
        return self._variable_list

    def _get_partitions(self):
        return self._partitions

    def _apply_assign_fn(self, assign_fn, value):
        from tfcompat.ops import join_ops

        axes = self._partition_axes()
        if len(axes) > 1:
            raise NotImplementedError(
                f"Cannot do assign action along more than one dimension: {axes}.  "
                "Multi-axis partition assign action is not supported "
            )
        if isinstance(value, list):
            assert len(value) == len(self._variable_list)
            values = value
        elif isinstance(value, PartitionedVariable):
            values = list(value)
        else:
            sizes = [tensor_shape.dimension_value(v.shape[axes[0]]) for v in self._variable_list]
            values = join_ops.split(value, sizes, axis=axes[0])
        return [assign_fn(var, values[i]) for i, var in enumerate(self._variable_list)]

    def assign(self, value, use_locking=False, name=None, read_value=True):
        return self._apply_assign_fn(
            lambda var, v: var.assign(v, use_locking, name, read_value), value
        )

    def assign_add(self, value, use_locking=False, name=None, read_value=True):
        return self._apply_assign_fn(
            lambda var, v: var.assign_add(v, use_locking, name, read_value), value
        )

    def assign_sub(self, value, use_locking=False, name=None, read_value=True):
        return self._apply_assign_fn(
            lambda var, v: var.assign_sub(v, use_locking, name, read_value), value
        )


def _slice_info(variable):
    return getattr(variable, "_save_slice_info", None)


def _partitioned_to_tensor(value, dtype=None, name=None, as_ref=False):
    if dtype is not None and not dtype.is_compatible_with(value.dtype):
        raise ValueError(
            f"Incompatible type conversion requested to type '{dtype.name}' for variable "
            f"of type '{value.dtype.name}'"
        )
    if as_ref:
        raise NotImplementedError("PartitionedVariable doesn't support being used as a reference.")
    return value.as_tensor()


register_tensor_conversion_function(PartitionedVariable, _partitioned_to_tensor)
