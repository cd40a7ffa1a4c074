"""``tf.variable_scope`` and ``tf.get_variable``: TF1's variable sharing.

Each graph holds a variable store (full variable name -> Variable or PartitionedVariable)
and a scope store (the current ``VariableScope`` and how often each scope name was
opened), in the collections TF keeps them in. ``get_variable(name)`` looks ``scope/name``
up in the store: with ``reuse=False`` it must not exist, with ``reuse=True`` it must, with
``AUTO_REUSE`` either. Variables are TF1 ref variables (``tfcompat.variables.Variable``),
created at the root name scope whatever name scope is open, as TF does.

``variable_scope(name)`` also opens a name scope: for a string, ``name`` made unique
(``block_1`` when entered again); for a ``VariableScope`` object, its last name component
made unique under the current name scope. So re-entering a scope object under
``tf.name_scope("outer")`` names ops ``outer/block_1/add`` while variables keep
``block/w``.
"""

from __future__ import annotations

import contextlib
import copy
import enum
import functools
import inspect
import sys

from tfcompat.framework import dtypes, scopes, tensor_shape
from tfcompat.framework import graph as graph_lib
from tfcompat.framework.graph import GraphKeys
from tfcompat.framework.op_helper import convert_to_tensor, register_tensor_conversion_function
from tfcompat.framework.tensor import Tensor
from tfcompat.ops import partitioned_variables as pv
from tfcompat.util.tf_export import tf_export


class _ReuseMode(enum.Enum):
    """Reuse modes besides True/False."""

    AUTO_REUSE = 1


AUTO_REUSE = _ReuseMode.AUTO_REUSE
_VARSTORE_KEY = ("__variable_store",)
_VARSCOPESTORE_KEY = ("__varscope",)


@tf_export("no_regularizer")
def no_regularizer(_):
    """A regularizer that adds nothing (turns off a scope's regularizer for one variable)."""
    return None


@contextlib.contextmanager
def _init_scope(graph):
    """TF's ``init_scope`` in graph mode: same name scope, no control dependencies, and no
    control-flow context: a variable created in a loop body or cond branch (an RNN cell
    built inside ``dynamic_rnn``'s loop) lives outside it, so its ops are marked to stay
    out of the region that adopts the body's ops."""
    start = len(graph.get_operations())
    with graph.control_dependencies(None):
        yield
    for op in graph.get_operations()[start:]:
        op._cf_outside = True


def _needs_no_arguments(fn) -> bool:
    params = inspect.signature(fn).parameters.values()
    return all(
        p.default is not inspect.Parameter.empty or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
        for p in params
    )


def _accepts(fn, argument) -> bool:
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False
    return argument in params or any(p.kind == p.VAR_KEYWORD for p in params.values())


# ---------------------------------------------------------------------------------------------
# Regularization losses, built again on each use (TF's _LazyEvalTensor)
# ---------------------------------------------------------------------------------------------
class LazyEvalTensor:
    """A regularization loss: behaves like the Tensor built when the variable was created,
    but each conversion to a Tensor builds the loss again (colocated with the variable)."""

    def __init__(self, thunk):
        self._thunk = thunk
        self._master_tensor = thunk()

    def _as_tensor(self, dtype=None, name=None, as_ref=False):
        assert not as_ref
        assert dtype in (None, self.dtype)
        return self._thunk()

    def __getattr__(self, name):
        if name in ("device", "dtype", "graph", "name", "op", "shape", "value_index"):
            return getattr(self._master_tensor, name)
        if name in ("get_shape", "shape_as_list"):
            return getattr(self._master_tensor, name)
        if name in ("eval",):
            return getattr(self._as_tensor(), name)
        raise AttributeError(name)

    def __str__(self):
        return str(self._master_tensor)


def _install_lazy_operators():
    names = [n for n in vars(Tensor) if n.startswith("__r") or n in _BINARY_AND_UNARY]
    for name in names:
        if name in ("__repr__", "__reduce__", "__reduce_ex__"):
            continue

        def method(self, *args, _name=name):
            return getattr(self._as_tensor(), _name)(*args)

        setattr(LazyEvalTensor, name, method)


_BINARY_AND_UNARY = {
    "__abs__", "__add__", "__and__", "__div__", "__floordiv__", "__ge__", "__getitem__",
    "__gt__", "__invert__", "__le__", "__lt__", "__matmul__", "__mod__", "__mul__",
    "__neg__", "__or__", "__pow__", "__sub__", "__truediv__", "__xor__",
}  # fmt: skip
_install_lazy_operators()
register_tensor_conversion_function(
    LazyEvalTensor, lambda v, dtype=None, name=None, as_ref=False: v._as_tensor(dtype, name)
)


def _register_lazy_fetch():
    from tfcompat.client import session

    session.register_session_run_conversion_functions(
        LazyEvalTensor, lambda fetch: ([fetch._master_tensor], lambda values: values[0])
    )


_register_lazy_fetch()


# ---------------------------------------------------------------------------------------------
# The variable store
# ---------------------------------------------------------------------------------------------
class _VariableStore:
    """Variables created by ``get_variable`` in one graph, by full name."""

    def __init__(self):
        self._vars = {}
        self._partitioned_vars = {}

    def get_variable(
        self,
        name,
        shape=None,
        dtype=dtypes.float32,
        initializer=None,
        regularizer=None,
        reuse=None,
        trainable=None,
        collections=None,
        caching_device=None,
        partitioner=None,
        validate_shape=True,
        use_resource=None,
        custom_getter=None,
        constraint=None,
        synchronization=None,
        aggregation=None,
    ):
        """The variable ``name``, created or reused per ``reuse``; a ``custom_getter``
        receives the real getter as ``getter`` and every other argument by keyword."""
        if custom_getter is not None and not callable(custom_getter):
            raise ValueError(f"Passed a custom_getter which is not callable: {custom_getter}")
        dtype = getattr(dtype, "base_dtype", dtype)
        if trainable is None:
            trainable = True
        kwargs = dict(
            name=name,
            shape=shape,
            dtype=dtype,
            initializer=initializer,
            regularizer=regularizer,
            reuse=reuse,
            trainable=trainable,
            collections=collections,
            caching_device=caching_device,
            partitioner=partitioner,
            validate_shape=validate_shape,
            use_resource=use_resource,
            synchronization=synchronization,
            aggregation=aggregation,
        )
        if custom_getter is None:
            return self._true_getter(constraint=constraint, **kwargs)
        if _accepts(custom_getter, "constraint"):
            kwargs["constraint"] = constraint
        return custom_getter(getter=self._true_getter, **kwargs)

    def _true_getter(
        self,
        name,
        shape=None,
        dtype=dtypes.float32,
        initializer=None,
        regularizer=None,
        reuse=None,
        trainable=None,
        collections=None,
        caching_device=None,
        partitioner=None,
        validate_shape=True,
        use_resource=None,
        constraint=None,
        synchronization=None,
        aggregation=None,
    ):
        del synchronization, aggregation  # TF1 ref variables have neither
        is_scalar = shape is not None and isinstance(shape, (list, tuple)) and not shape
        common = dict(
            name=name,
            shape=shape,
            dtype=dtype,
            initializer=initializer,
            regularizer=regularizer,
            reuse=reuse,
            trainable=trainable,
            collections=collections,
            caching_device=caching_device,
            validate_shape=validate_shape,
            use_resource=use_resource,
            constraint=constraint,
        )
        if partitioner is not None and not is_scalar:
            if not callable(partitioner):
                raise ValueError(f"Partitioner must be callable, but received: {partitioner}")
            with graph_lib.get_default_graph().name_scope(None):
                return self._get_partitioned_variable(partitioner=partitioner, **common)
        if reuse is True and partitioner is None and name in self._partitioned_vars:
            return self._get_partitioned_variable(partitioner=None, **common)
        if f"{name}/part_0" in self._vars:
            raise ValueError(
                "No partitioner was provided, but a partitioned version of the variable was "
                f"found: {name}/part_0. Perhaps a variable of the same name was already "
                "created with partitioning?"
            )
        return self._get_single_variable(**common)

    # -- partitioned ----------------------------------------------------------------------
    def _get_partitioned_variable(self, name, partitioner, shape=None, dtype=dtypes.float32,
                                  initializer=None, reuse=None, **rest):  # fmt: skip
        from_value = isinstance(initializer, Tensor)
        if name in self._vars:
            raise ValueError(
                "A partitioner was provided, but an unpartitioned version of the variable "
                f"was found: {name}.  Perhaps a variable of the same name was already "
                "created without partitioning?"
            )
        shape = tensor_shape.as_shape(shape)
        if from_value:
            shape = shape.merge_with(initializer.get_shape())
        partitions = None
        if not reuse or partitioner:
            partitions = pv.call_partitioner(partitioner, shape, dtype)
        if name in self._partitioned_vars:
            return self._reuse_partitioned(name, shape, dtype, reuse, partitions)
        if reuse is True:
            raise ValueError(
                f"PartitionedVariable {name} does not exist, or was not created with "
                "tf.get_variable(). Did you mean to set reuse=False or reuse=tf.AUTO_REUSE "
                "in VarScope?"
            )
        slice_dim, num_slices = pv.slice_dim_and_num_slices(partitions)
        self._check_existing_shards(name, num_slices)
        shards = []
        full_shape = shape.as_list()
        for i, (offset, var_shape) in enumerate(pv.iter_slices(full_shape, num_slices, slice_dim)):
            shard_name = f"{name}/part_{i}"
            init, init_shape, dtype = self._shard_initializer(
                name, shard_name, shape, dtype, initializer, offset, var_shape
            )
            with graph_lib.get_default_graph().name_scope(None):
                var = self._get_single_variable(
                    name=shard_name,
                    shape=init_shape,
                    dtype=dtype,
                    initializer=init,
                    partition_info=pv.PartitionInfo(full_shape, offset),
                    reuse=reuse,
                    **rest,
                )
            var._save_slice_info = pv.SaveSliceInfo(name, full_shape, offset, var_shape)
            shards.append(var)
        partitioned = pv.PartitionedVariable(name, shape, dtype, shards, partitions)
        self._partitioned_vars[name] = partitioned
        return partitioned

    def _reuse_partitioned(self, name, shape, dtype, reuse, partitions):
        if reuse is False:
            raise ValueError(
                f"Partitioned variable with name {name} already exists. Did you mean to set "
                "reuse=True or reuse=tf.AUTO_REUSE in VarScope?"
            )
        existing = self._partitioned_vars[name]
        if not shape.is_compatible_with(existing.get_shape()):
            raise ValueError(
                f"Trying to reuse partitioned variable {name}, but specified shape {shape} "
                f"and found shape {existing.get_shape()}."
            )
        if not dtype.is_compatible_with(existing.dtype):
            raise ValueError(
                f"Trying to reuse partitioned variable {name}, but specified dtype "
                f"{dtype.name} and found dtype {existing.dtype.name}."
            )
        if partitions is not None and existing._get_partitions() != partitions:
            raise ValueError(
                f"Trying to reuse partitioned variable {name}, but specified partitions "
                f"{partitions} and found partitions {existing._get_partitions()}."
            )
        return existing

    def _check_existing_shards(self, name, num_slices):
        if f"{name}/part_0" not in self._vars:
            return
        if f"{name}/part_{num_slices - 1}" not in self._vars:
            raise ValueError(
                "Partitioner returned a different partitioning than what was already found.  "
                f"Partitioner returned {num_slices} shards, and shard {name}/part_0 was "
                f"found, but {name}/part_{num_slices - 1} was not."
            )
        if f"{name}/part_{num_slices}" in self._vars:
            raise ValueError(
                "Partitioner returned a different partitioning than what was already found.  "
                f"Partitioner returned {num_slices} shards, and shard {name}/part_0 was "
                f"found, but so was the extra shard {name}/part_{num_slices}."
            )

    def _shard_initializer(self, name, shard_name, shape, dtype, initializer, offset, var_shape):
        """``(initializer, shape to pass, dtype)`` of one shard: callables are called with
        the shard's shape; values are sliced (under ``part_i/PartitionedInitializer``)."""
        from tfcompat.ops import slicing_ops

        graph = graph_lib.get_default_graph()
        with graph.name_scope(shard_name + "/PartitionedInitializer"):
            if initializer is None:
                init, from_value = self._get_default_initializer(name, shape, dtype)
                return init, (None if from_value else var_shape), dtype
            if callable(initializer):
                return initializer, var_shape, dtype
            if isinstance(initializer, Tensor):
                init = slicing_ops.slice(initializer, offset, var_shape)
                return init, None, init.dtype.base_dtype
            init = convert_to_tensor(initializer, dtype=dtype)
            return slicing_ops.slice(init, offset, var_shape), None, dtype

    # -- single ---------------------------------------------------------------------------
    def _get_single_variable(
        self,
        name,
        shape=None,
        dtype=dtypes.float32,
        initializer=None,
        regularizer=None,
        partition_info=None,
        reuse=None,
        trainable=None,
        collections=None,
        caching_device=None,
        validate_shape=True,
        use_resource=None,
        constraint=None,
    ):
        from_value = initializer is not None and not callable(initializer)
        if shape is not None and from_value:
            raise ValueError("If initializer is a constant, do not specify shape.")
        dtype = dtypes.as_dtype(dtype)
        if shape is not None:
            shape = tensor_shape.as_shape(shape)
        if name in self._vars:
            return self._reuse_single(name, shape, dtype, reuse)
        if reuse is True:
            raise ValueError(
                f"Variable {name} does not exist, or was not created with tf.get_variable(). "
                "Did you mean to set reuse=tf.AUTO_REUSE in VarScope?"
            )
        if initializer is None:
            if shape is None:
                raise ValueError(
                    f"Variable {name} did not get an initializer, so its `shape` argument "
                    "must be specified."
                )
            initializer, from_value = self._get_default_initializer(name, shape, dtype)
        init_val, variable_dtype = self._initial_value_fn(
            initializer, from_value, shape, dtype, partition_info
        )
        from tfcompat.variables import Variable

        graph = graph_lib.get_default_graph()
        with _init_scope(graph):
            v = Variable(
                initial_value=init_val,
                name=name,
                trainable=trainable,
                collections=collections,
                caching_device=caching_device,
                dtype=variable_dtype,
                validate_shape=validate_shape,
                constraint=constraint,
                shape=shape,
                # None: resource variables if enabled (tf.enable_resource_variables).
                use_resource=use_resource,
            )
        self._vars[name] = v
        if regularizer:
            self._add_regularization_loss(graph, name, v, regularizer)
        return v

    def _reuse_single(self, name, shape, dtype, reuse):
        found = self._vars[name]
        if reuse is False:
            raise ValueError(
                f"Variable {name} already exists, disallowed. Did you mean to set reuse=True "
                "or reuse=tf.AUTO_REUSE in VarScope?"
            )
        if shape is not None and not shape.is_compatible_with(found.get_shape()):
            raise ValueError(
                f"Trying to share variable {name}, but specified shape {shape} and found "
                f"shape {found.get_shape()}."
            )
        if not dtype.is_compatible_with(found.dtype):
            raise ValueError(
                f"Trying to share variable {name}, but specified dtype {dtype.name} and "
                f"found dtype {found.dtype.name}."
            )
        return found

    @staticmethod
    def _initial_value_fn(initializer, from_value, shape, dtype, partition_info):
        """``(initial_value, dtype for Variable)``: a value as is, or a callable of no
        arguments calling the initializer with the shape, dtype (and partition_info)."""
        if from_value:
            return initializer, None
        if inspect.isclass(initializer):
            initializer = initializer()
        if shape is not None and shape.is_fully_defined():
            if _accepts_named(initializer, "partition_info"):
                fn = functools.partial(
                    initializer, shape.as_list(), dtype=dtype, partition_info=partition_info
                )
            else:
                fn = functools.partial(initializer, shape.as_list(), dtype=dtype)
            return fn, dtype.base_dtype
        if _needs_no_arguments(initializer):
            return initializer, None
        raise ValueError(
            "The initializer passed is not valid. It should be a callable with no arguments "
            "and the shape should not be provided or an instance of "
            "`tf.keras.initializers.*' and `shape` should be fully defined."
        )

    @staticmethod
    def _add_regularization_loss(graph, name, var, regularizer):
        def make_regularizer_op():
            with graph.colocate_with(var), graph.name_scope(name + "/Regularizer/"):
                return regularizer(var)

        # TF calls the regularizer once to see whether it returns anything.
        if regularizer(var) is not None:
            graph.add_to_collection(
                GraphKeys.REGULARIZATION_LOSSES, LazyEvalTensor(make_regularizer_op)
            )

    @staticmethod
    def _get_default_initializer(name, shape=None, dtype=dtypes.float32):
        """glorot_uniform for floats, zeros for integers, bools and strings."""
        from tfcompat import initializers

        if dtype.is_floating:
            return initializers.glorot_uniform_initializer(), False
        if dtype.is_integer or dtype.is_unsigned or dtype.is_bool or dtype == dtypes.string:
            return initializers.zeros_initializer(), False
        raise ValueError(f"An initializer for variable {name} of {dtype.base_dtype} is required")


def _accepts_named(fn, argument) -> bool:
    """Whether ``fn`` has a parameter named ``argument`` (not merely ``**kwargs``)."""
    try:
        return argument in inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False


# ---------------------------------------------------------------------------------------------
# VariableScope
# ---------------------------------------------------------------------------------------------
@tf_export("VariableScope")
class VariableScope:
    """A variable scope's settings: its name, reuse mode and the defaults (initializer,
    regularizer, partitioner, custom getter, dtype, ...) its ``get_variable`` calls use."""

    def __init__(
        self,
        reuse,
        name="",
        initializer=None,
        regularizer=None,
        caching_device=None,
        partitioner=None,
        custom_getter=None,
        name_scope="",
        dtype=dtypes.float32,
        use_resource=None,
        constraint=None,
    ):
        self._name = name
        self._initializer = initializer
        self._regularizer = regularizer
        self._reuse = reuse
        self._caching_device = caching_device
        self._partitioner = partitioner
        self._custom_getter = custom_getter
        self._name_scope = name_scope
        self._dtype = dtype
        self._use_resource = use_resource
        self._constraint = constraint

    name = property(lambda self: self._name)
    original_name_scope = property(lambda self: self._name_scope)
    reuse = property(lambda self: self._reuse)
    initializer = property(lambda self: self._initializer)
    dtype = property(lambda self: self._dtype)
    use_resource = property(lambda self: self._use_resource)
    regularizer = property(lambda self: self._regularizer)
    caching_device = property(lambda self: self._caching_device)
    partitioner = property(lambda self: self._partitioner)
    custom_getter = property(lambda self: self._custom_getter)
    constraint = property(lambda self: self._constraint)

    def reuse_variables(self):
        """From now on, ``get_variable`` in this scope reuses existing variables."""
        self._reuse = True

    def set_initializer(self, initializer):
        self._initializer = initializer

    def set_dtype(self, dtype):
        self._dtype = dtype

    def set_use_resource(self, use_resource):
        self._use_resource = use_resource

    def set_regularizer(self, regularizer):
        self._regularizer = regularizer

    def set_caching_device(self, caching_device):
        self._caching_device = caching_device

    def set_partitioner(self, partitioner):
        self._partitioner = partitioner

    def set_custom_getter(self, custom_getter):
        self._custom_getter = custom_getter

    def get_collection(self, name):
        scope = self._name + "/" if self._name else ""
        return graph_lib.get_default_graph().get_collection(name, scope)

    def trainable_variables(self):
        return self.get_collection(GraphKeys.TRAINABLE_VARIABLES)

    def global_variables(self):
        return self.get_collection(GraphKeys.GLOBAL_VARIABLES)

    def local_variables(self):
        return self.get_collection(GraphKeys.LOCAL_VARIABLES)

    def get_variable(
        self,
        var_store,
        name,
        shape=None,
        dtype=None,
        initializer=None,
        regularizer=None,
        reuse=None,
        trainable=None,
        collections=None,
        caching_device=None,
        partitioner=None,
        validate_shape=True,
        use_resource=None,
        custom_getter=None,
        constraint=None,
        synchronization=None,
        aggregation=None,
    ):
        """``var_store.get_variable`` of ``scope_name/name``, with this scope's defaults."""
        regularizer = self._regularizer if regularizer is None else regularizer
        caching_device = self._caching_device if caching_device is None else caching_device
        partitioner = self._partitioner if partitioner is None else partitioner
        custom_getter = self._custom_getter if custom_getter is None else custom_getter
        reuse = self._reuse if reuse is None else reuse
        use_resource = self._use_resource if use_resource is None else use_resource
        full_name = self.name + "/" + name if self.name else name
        with graph_lib.get_default_graph().name_scope(None):
            if dtype is not None and initializer is not None and not callable(initializer):
                init_dtype = convert_to_tensor(initializer).dtype.base_dtype
                if init_dtype != dtype:
                    raise ValueError(
                        f"Initializer type '{init_dtype}' and explicit dtype '{dtype}' don't match."
                    )
            initializer = self._initializer if initializer is None else initializer
            constraint = self._constraint if constraint is None else constraint
            dtype = self._dtype if dtype is None else dtype
            return var_store.get_variable(
                full_name,
                shape=shape,
                dtype=dtype,
                initializer=initializer,
                regularizer=regularizer,
                reuse=reuse,
                trainable=trainable,
                collections=collections,
                caching_device=caching_device,
                partitioner=partitioner,
                validate_shape=validate_shape,
                use_resource=use_resource,
                custom_getter=custom_getter,
                constraint=constraint,
                synchronization=synchronization,
                aggregation=aggregation,
            )

    def _get_partitioned_variable(self, var_store, name, shape=None, dtype=None,
                                  initializer=None, regularizer=None, trainable=None,
                                  collections=None, caching_device=None, partitioner=None,
                                  validate_shape=True, use_resource=None, constraint=None,
                                  synchronization=None, aggregation=None):  # fmt: skip
        del synchronization, aggregation
        if self._custom_getter is not None:
            raise ValueError(
                "Private access to _get_partitioned_variable is not allowed when a custom "
                f"getter is set.  Current custom getter: {self._custom_getter}.  It is likely "
                "that you're using create_partitioned_variables.  If so, consider instead "
                "using get_variable with a non-empty partitioner parameter instead."
            )
        partitioner = self._partitioner if partitioner is None else partitioner
        if partitioner is None:
            raise ValueError("No partitioner was specified")
        full_name = "/".join(n for n in (self.name, name) if n)
        with graph_lib.get_default_graph().name_scope(None):
            return var_store._get_partitioned_variable(
                full_name,
                partitioner=partitioner,
                shape=shape,
                dtype=self._dtype if dtype is None else dtype,
                initializer=self._initializer if initializer is None else initializer,
                regularizer=self._regularizer if regularizer is None else regularizer,
                reuse=self.reuse,
                trainable=trainable,
                collections=collections,
                caching_device=self._caching_device if caching_device is None else caching_device,
                validate_shape=validate_shape,
                use_resource=self._use_resource if use_resource is None else use_resource,
                constraint=self._constraint if constraint is None else constraint,
            )


class _VariableScopeStore:
    """The current scope and, per full scope name, how often it is open (for unique
    default names)."""

    def __init__(self):
        self.current_scope = VariableScope(False)
        self.variable_scopes_count = {}

    def open_variable_scope(self, scope_name):
        self.variable_scopes_count[scope_name] = self.variable_scopes_count.get(scope_name, 0) + 1

    def close_variable_subscopes(self, scope_name):
        prefix = None if scope_name is None else scope_name + "/"
        for k in self.variable_scopes_count:
            if prefix is None or k.startswith(prefix):
                self.variable_scopes_count[k] = 0

    def variable_scope_count(self, scope_name):
        return self.variable_scopes_count.get(scope_name, 0)


def _singleton(key, factory):
    graph = graph_lib.get_default_graph()
    items = graph.get_collection(key)
    if items:
        return items[0]
    item = factory()
    graph.add_to_collection(key, item)
    return item


def get_variable_scope_store() -> _VariableScopeStore:
    return _singleton(_VARSCOPESTORE_KEY, _VariableScopeStore)


def _get_default_variable_store() -> _VariableStore:
    return _singleton(_VARSTORE_KEY, _VariableStore)


@tf_export("get_variable_scope")
def get_variable_scope() -> VariableScope:
    """The current ``VariableScope`` of the default graph."""
    return get_variable_scope_store().current_scope


# ---------------------------------------------------------------------------------------------
# get_variable
# ---------------------------------------------------------------------------------------------
@tf_export("get_variable")
def get_variable(
    name,
    shape=None,
    dtype=None,
    initializer=None,
    regularizer=None,
    trainable=None,
    collections=None,
    caching_device=None,
    partitioner=None,
    validate_shape=True,
    use_resource=None,
    custom_getter=None,
    constraint=None,
    synchronization=None,
    aggregation=None,
):
    """Gets the variable ``scope/name`` or creates it (per the scope's reuse mode).

    ``initializer`` may be an initializer (called with shape and dtype), a Tensor or a
    value (then ``shape`` must be None); the default is glorot_uniform for floats and
    zeros for integers. ``regularizer(variable)`` losses go to REGULARIZATION_LOSSES.
    """
    return get_variable_scope().get_variable(
        _get_default_variable_store(),
        name,
        shape=shape,
        dtype=dtype,
        initializer=initializer,
        regularizer=regularizer,
        trainable=trainable,
        collections=collections,
        caching_device=caching_device,
        partitioner=partitioner,
        validate_shape=validate_shape,
        use_resource=use_resource,
        custom_getter=custom_getter,
        constraint=constraint,
        synchronization=synchronization,
        aggregation=aggregation,
    )


@tf_export("get_local_variable")
def get_local_variable(
    name,
    shape=None,
    dtype=None,
    initializer=None,
    regularizer=None,
    trainable=False,
    collections=None,
    caching_device=None,
    partitioner=None,
    validate_shape=True,
    use_resource=None,
    custom_getter=None,
    constraint=None,
    synchronization=None,
    aggregation=None,
):
    """``get_variable`` for a non-trainable variable in LOCAL_VARIABLES."""
    del trainable  # always False, as in TF
    if collections:
        collections += [GraphKeys.LOCAL_VARIABLES]
    else:
        collections = [GraphKeys.LOCAL_VARIABLES]
    return get_variable(
        name,
        shape=shape,
        dtype=dtype,
        initializer=initializer,
        regularizer=regularizer,
        trainable=False,
        collections=collections,
        caching_device=caching_device,
        partitioner=partitioner,
        validate_shape=validate_shape,
        use_resource=use_resource,
        synchronization=synchronization,
        aggregation=aggregation,
        custom_getter=custom_getter,
        constraint=constraint,
    )


def _get_partitioned_variable(name, shape=None, dtype=None, initializer=None, regularizer=None,
                              trainable=True, collections=None, caching_device=None,
                              partitioner=None, validate_shape=True, use_resource=None,
                              constraint=None):  # fmt: skip
    scope = get_variable_scope()
    return scope._get_partitioned_variable(
        _get_default_variable_store(),
        name,
        shape=shape,
        dtype=dtype,
        initializer=initializer,
        regularizer=regularizer,
        trainable=trainable,
        collections=collections,
        caching_device=caching_device,
        partitioner=partitioner,
        validate_shape=validate_shape,
        use_resource=use_resource,
        constraint=constraint,
    )


# ---------------------------------------------------------------------------------------------
# Scopes
# ---------------------------------------------------------------------------------------------
_SETTERS = (
    ("initializer", "set_initializer"),
    ("regularizer", "set_regularizer"),
    ("caching_device", "set_caching_device"),
    ("partitioner", "set_partitioner"),
    ("dtype", "set_dtype"),
    ("use_resource", "set_use_resource"),
)


class _PureVariableScope:
    """Switches the current VariableScope (no name scope): the variable half of
    ``variable_scope``."""

    def __init__(self, name_or_scope, reuse=None, old_name_scope=None, constraint=None,
                 custom_getter=None, **settings):  # fmt: skip
        self._name_or_scope = name_or_scope
        self._reuse = reuse
        self._old_name_scope = old_name_scope
        self._constraint = constraint
        self._custom_getter = custom_getter
        self._settings = settings
        self._var_scope_store = get_variable_scope_store()
        self._last_variable_scope_object = None
        if isinstance(name_or_scope, VariableScope):
            self._new_name = name_or_scope.name
            self._cached_scope = self._derived(
                name_or_scope, self._reuse or name_or_scope.reuse, name_or_scope.original_name_scope
            )

    def _derived(self, base, reuse, name_scope):
        """A new VariableScope inheriting ``base``'s settings, then overridden by ours."""
        scope = VariableScope(
            reuse,
            name=self._new_name,
            initializer=base.initializer,
            regularizer=base.regularizer,
            caching_device=base.caching_device,
            partitioner=base.partitioner,
            dtype=base.dtype,
            custom_getter=base.custom_getter,
            name_scope=name_scope,
            use_resource=base.use_resource,
            constraint=self._constraint,
        )
        for key, setter in _SETTERS:
            if self._settings.get(key) is not None:
                getattr(scope, setter)(self._settings[key])
        if self._custom_getter is not None:
            scope.set_custom_getter(_wrap_custom_getter(self._custom_getter, base.custom_getter))
        return scope

    def __enter__(self):
        store = self._var_scope_store
        self._old = store.current_scope
        if isinstance(self._name_or_scope, VariableScope):
            store.open_variable_scope(self._new_name)
            self._old_subscopes = copy.copy(store.variable_scopes_count)
            scope = self._cached_scope
        else:
            old = self._old
            self._new_name = (
                f"{old.name}/{self._name_or_scope}" if old.name else self._name_or_scope
            )
            self._reuse = self._reuse or old.reuse  # sub-scopes inherit reuse
            name_scope = (
                self._name_or_scope if self._old_name_scope is None else self._old_name_scope
            )
            scope = self._derived(old, self._reuse, name_scope)
            store.open_variable_scope(self._new_name)
        store.current_scope = scope
        self._last_variable_scope_object = scope
        return scope

    def __exit__(self, *exc):
        store = self._var_scope_store
        if store.current_scope is not self._last_variable_scope_object:
            raise RuntimeError("Improper nesting of variable_scope.")
        if isinstance(self._name_or_scope, VariableScope):
            store.variable_scopes_count = self._old_subscopes
        else:
            store.close_variable_subscopes(self._new_name)
        store.current_scope = self._old


def _wrap_custom_getter(custom_getter, old_getter):
    """Nested custom getters compose: the inner one receives the outer one as its getter."""
    if old_getter is None:
        return custom_getter

    def wrapped_custom_getter(getter, *args, **kwargs):
        return custom_getter(functools.partial(old_getter, getter), *args, **kwargs)

    return wrapped_custom_getter


def _get_unique_variable_scope(prefix):
    store = get_variable_scope_store()
    current = get_variable_scope()
    name = current.name + "/" + prefix if current.name else prefix
    if store.variable_scope_count(name) == 0:
        return prefix
    idx = 1
    while store.variable_scope_count(f"{name}_{idx}") > 0:
        idx += 1
    return f"{prefix}_{idx}"


@tf_export("variable_scope")
class variable_scope:  # noqa: N801 - TF's name
    """``with tf.variable_scope(name_or_scope, default_name=None, values=None, ...)``:
    opens a variable scope (and a name scope) and yields its ``VariableScope``.

    ``reuse`` is True, ``tf.AUTO_REUSE`` or None/False (inherit); the other arguments set
    the scope's defaults for ``get_variable``. ``use_resource=True`` makes resource variables.
    """

    def __init__(
        self,
        name_or_scope,
        default_name=None,
        values=None,
        initializer=None,
        regularizer=None,
        caching_device=None,
        partitioner=None,
        custom_getter=None,
        reuse=None,
        dtype=None,
        use_resource=None,
        constraint=None,
        auxiliary_name_scope=True,
    ):
        if default_name is None and name_or_scope is None:
            raise TypeError("If default_name is None then name_or_scope is required")
        if reuse is False:
            reuse = None  # False means "inherit", as in TF
        if not (reuse is True or reuse is None or reuse is AUTO_REUSE):
            raise ValueError("The reuse parameter must be True or False or None.")
        if not isinstance(auxiliary_name_scope, bool):
            raise TypeError(
                "The auxiliary_name_scope must be `True` or `False`, while get "
                f"{auxiliary_name_scope}"
            )
        self._name_or_scope = name_or_scope
        self._default_name = default_name
        self._reuse = reuse
        self._settings = dict(
            initializer=initializer,
            regularizer=regularizer,
            caching_device=caching_device,
            partitioner=partitioner,
            custom_getter=custom_getter,
            dtype=dtype,
            use_resource=use_resource,
            constraint=constraint,
        )
        self._graph = scopes._graph_from(values or [])
        self._auxiliary_name_scope = auxiliary_name_scope
        self._cached_pure_variable_scope = None
        # The name scope this object opens, as a name: entering the object again opens it
        # again (made unique again, as TF's name_scope object does).
        self._name_scope_name = None
        self._current_name_scope = None

    def __enter__(self):
        self._graph_context = self._graph.as_default()
        self._graph_context.__enter__()
        try:
            if self._cached_pure_variable_scope is not None:
                if self._name_scope_name is not None:
                    self._enter_name_scope(self._name_scope_name)
                return self._cached_pure_variable_scope.__enter__()
            return self._enter_uncached()
        except BaseException:
            self._graph_context.__exit__(*sys.exc_info())
            raise

    def _name_scope_to_open(self):
        """Without an auxiliary name scope, the current name scope is re-entered as is."""
        if self._auxiliary_name_scope:
            return None
        current = self._graph.get_name_scope()
        return current + "/" if current else ""

    def _enter_uncached(self):
        name_scope_text = self._name_scope_to_open()
        if self._name_or_scope is None:  # a default name, made unique
            if self._reuse:
                raise ValueError("reuse=True cannot be used without a name_or_scope")
            if name_scope_text is None:
                name_scope_text = self._default_name
            scope_name = self._enter_name_scope(name_scope_text)
            unique = _get_unique_variable_scope(self._default_name)
            return self._enter_pure(unique, old_name_scope=scope_name)
        if not isinstance(self._name_or_scope, (VariableScope, str)):
            raise TypeError("VariableScope: name_or_scope must be a string or VariableScope.")
        if isinstance(self._name_or_scope, str):
            name_scope = self._name_or_scope
        else:
            name_scope = self._name_or_scope.name.split("/")[-1]
        if not name_scope and name_scope_text is None:
            return self._enter_pure(self._name_or_scope, reuse=self._reuse)
        if name_scope_text is None:
            name_scope_text = name_scope
        scope_name = self._enter_name_scope(name_scope_text)
        if isinstance(self._name_or_scope, str):
            old_name_scope = scope_name
        else:
            old_name_scope = self._name_or_scope.original_name_scope
        return self._enter_pure(
            self._name_or_scope, reuse=self._reuse, old_name_scope=old_name_scope
        )

    def _enter_name_scope(self, name):
        ctx = self._graph.name_scope(name)
        scope_name = ctx.__enter__()
        self._name_scope_name, self._current_name_scope = name, ctx
        return scope_name

    def _enter_pure(self, name_or_scope, **kwargs):
        pure = _PureVariableScope(name_or_scope, **kwargs, **self._settings)
        try:
            entered = pure.__enter__()
        except BaseException:
            pure.__exit__(*sys.exc_info())
            raise
        self._cached_pure_variable_scope = pure
        return entered

    def __exit__(self, *exc):
        try:
            self._cached_pure_variable_scope.__exit__(*exc)
        finally:
            try:
                if self._current_name_scope is not None:
                    ctx, self._current_name_scope = self._current_name_scope, None
                    ctx.__exit__(*exc)
            finally:
                self._graph_context.__exit__(*exc)


@tf_export("variable_op_scope")
def variable_op_scope(values, name_or_scope, default_name=None, **kwargs):
    """Deprecated spelling of ``variable_scope(name_or_scope, default_name, values)``."""
    return variable_scope(name_or_scope, default_name=default_name, values=values, **kwargs)
