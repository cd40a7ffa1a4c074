"""``ResourceVariable``: TF1's resource variable (``use_resource=True``), as graph mode of
TF 2.21's ``tf.compat.v1`` builds it.

A resource variable ``v`` is a ``VarHandleOp`` (named ``v``, ``shared_name`` ``v``) and ops
taking its handle, named as TF names them::

    v/Initializer/initial_value      the initial value (colocated with v)
    v/IsInitialized/VarIsInitializedOp
    v/Assign                         AssignVariableOp: the initializer
    v/Read/ReadVariableOp            the read ``Session.run(v)`` fetches

Unlike a ref variable there is no shared snapshot: every use as a Tensor adds its own
``ReadVariableOp``, which reads the value at the moment it runs. Writes (``assign*``,
``scatter_*``) return an ``_UnreadVariable``: a variable-like object whose reads depend on
the write.

One difference from TF: here a ResourceVariable is an instance of ``tf.Variable`` (TF1's
``tf.compat.v1.Variable`` is the ref-variable class only), so code accepting variables
(savers, optimizers, collections) takes both kinds.
"""

from __future__ import annotations

from tfcompat import variables
from tfcompat.framework import dtypes, tensor_shape
from tfcompat.framework import graph as graph_lib
from tfcompat.framework.indexed_slices import IndexedSlices
from tfcompat.framework.op_helper import convert_to_tensor, register_tensor_conversion_function
from tfcompat.ops import array_ops
from tfcompat.ops import resource_variable_ops as gen
from tfcompat.util.tf_export import tf_export
from tfcompat.variables import Variable

# Whether ``use_resource=None`` means resource variables (``enable_resource_variables``).
# TF 2.21's ``disable_v2_behavior`` turns them off, which is TF1's default.
_RESOURCE_VARIABLES = {"enabled": False}


@tf_export("enable_resource_variables")
def enable_resource_variables():
    """Variables created with ``use_resource=None`` are resource variables from now on."""
    _RESOURCE_VARIABLES["enabled"] = True


@tf_export("disable_resource_variables")
def disable_resource_variables():
    """Variables created with ``use_resource=None`` are ref variables (TF1's default)."""
    _RESOURCE_VARIABLES["enabled"] = False


@tf_export("resource_variables_enabled")
def resource_variables_enabled() -> bool:
    return _RESOURCE_VARIABLES["enabled"]


def wants_resource(use_resource) -> bool:
    """Whether a variable created with ``use_resource`` is a resource variable."""
    return resource_variables_enabled() if use_resource is None else bool(use_resource)


def is_resource_variable(value) -> bool:
    return isinstance(value, BaseResourceVariable)


class BaseResourceVariable(Variable):
    """What resource variables and the results of their writes share: a handle, reads
    that are ``ReadVariableOp``s, and writes that are ``*VariableOp``s / ``ResourceScatter*``.
    Subclasses set ``_handle``, ``_dtype``, ``_shape``, ``_graph_element``."""

    _cached_value = None
    # Marks resource variables for code that cannot import this module (Graph): control
    # dependencies and tf.group on one use its op, never a read of it.
    _should_act_as_resource_variable = True

    # -- identity ---------------------------------------------------------------------------
    @property
    def handle(self):
        """The ``resource`` Tensor naming the variable."""
        return self._handle

    @property
    def _variable(self):
        # What ref-variable code calls the variable's ref: here, the handle (so gradients
        # w.r.t. the variable are gradients w.r.t. the handle, as in TF).
        return self._handle

    @property
    def _snapshot(self):
        # Every use as a value reads anew (a ReadVariableOp per use, as TF builds).
        return self.value()

    @property
    def name(self) -> str:
        return self._handle.name

    @property
    def op(self):
        return self._handle.op

    @property
    def graph(self):
        return self._handle.graph

    @property
    def device(self) -> str:
        return self._handle.device

    @property
    def dtype(self) -> dtypes.DType:
        return self._dtype

    @property
    def shape(self):
        return self._shape

    def get_shape(self):
        return self._shape

    def set_shape(self, shape):
        self._shape = self._shape.merge_with(shape)

    def __repr__(self):
        return f"<tf.Variable '{self.name}' shape={self.shape} dtype={self.dtype.name}>"

    # -- reads ------------------------------------------------------------------------------
    def _read_variable_op(self):
        return gen.read_variable_op(self._handle, self._dtype)

    def value(self):
        """A new ``ReadVariableOp`` of the variable (or the caching device's copy)."""
        if self._cached_value is not None:
            return self._cached_value
        with self.graph.colocate_with(None, ignore_existing=True):
            return self._read_variable_op()

    def read_value(self):
        """``Read/ReadVariableOp`` and an ``Identity`` of it."""
        with self.graph.name_scope("Read"):
            value = self._read_variable_op()
        return array_ops.identity(value)

    def sparse_read(self, indices, name=None):
        """The rows ``indices`` of the variable (``ResourceGather``)."""
        with self.graph.name_scope("Gather" if name is None else name) as scope:
            return gen.resource_gather(self._handle, indices, dtype=self._dtype, name=scope)

    def initialized_value(self):
        # TF 2.21 has no initialized_value for resource variables.
        raise NotImplementedError

    def _as_graph_element(self):
        return self._graph_element

    def _ref(self):
        return self._handle

    def eval(self, session=None):
        return self._graph_element.eval(session=session)

    def is_initialized(self, name=None):
        return gen.var_is_initialized_op(self._handle, name=name)

    # -- writes -----------------------------------------------------------------------------
    def _lazy_read(self, op):
        return _UnreadVariable(self._handle, self._dtype, self._shape, op, self)

    def assign(self, value, use_locking=None, name=None, read_value=True):
        """``AssignVariableOp``; the result reads the value after the assignment."""
        value = convert_to_tensor(value, dtype=self._dtype)
        if not self._shape.is_compatible_with(value.shape):
            raise ValueError(
                f"Cannot assign value to variable ' {self.name}': Shape mismatch.The variable "
                f"shape {self._shape}, and the assigned value shape {value.shape} are "
                "incompatible."
            )
        validate = self._validate_shape and self._shape.is_fully_defined()
        op = gen.assign_variable_op(self._handle, value, validate_shape=validate, name=name)
        return self._lazy_read(op) if read_value else op

    def assign_add(self, delta, use_locking=None, name=None, read_value=True):
        op = gen.assign_add_variable_op(
            self._handle, convert_to_tensor(delta, dtype=self._dtype), name=name
        )
        return self._lazy_read(op) if read_value else op

    def assign_sub(self, delta, use_locking=None, name=None, read_value=True):
        op = gen.assign_sub_variable_op(
            self._handle, convert_to_tensor(delta, dtype=self._dtype), name=name
        )
        return self._lazy_read(op) if read_value else op

    def _strided_slice_assign(self, begin, end, strides, value, name, **masks):
        from tfcompat.ops import slicing_ops

        value = convert_to_tensor(value, dtype=self._dtype)
        return self._lazy_read(
            slicing_ops.strided_slice_assign(
                self._handle, begin, end, strides, value, name=name, **masks
            )
        )

    def _scatter(self, kind, sparse_delta, name):
        if not isinstance(sparse_delta, IndexedSlices):
            raise TypeError(f"sparse_delta is not IndexedSlices: {sparse_delta}")
        wrapper = getattr(gen, "resource_scatter_" + kind)
        updates = convert_to_tensor(sparse_delta.values, dtype=self._dtype)
        return self._lazy_read(wrapper(self._handle, sparse_delta.indices, updates, name=name))

    def scatter_add(self, sparse_delta, use_locking=False, name=None):
        return self._scatter("add", sparse_delta, name)

    def scatter_sub(self, sparse_delta, use_locking=False, name=None):
        return self._scatter("sub", sparse_delta, name)

    def scatter_mul(self, sparse_delta, use_locking=False, name=None):
        return self._scatter("mul", sparse_delta, name)

    def scatter_div(self, sparse_delta, use_locking=False, name=None):
        return self._scatter("div", sparse_delta, name)

    def scatter_min(self, sparse_delta, use_locking=False, name=None):
        return self._scatter("min", sparse_delta, name)

    def scatter_max(self, sparse_delta, use_locking=False, name=None):
        return self._scatter("max", sparse_delta, name)

    def scatter_update(self, sparse_delta, use_locking=False, name=None):
        return self._scatter("update", sparse_delta, name)


class ResourceVariable(BaseResourceVariable):
    """A TF1 resource variable (see the module docstring for its ops)."""

    def __init__(
        self,
        initial_value=None,
        trainable=None,
        collections=None,
        validate_shape=True,
        caching_device=None,
        name=None,
        variable_def=None,
        dtype=None,
        expected_shape=None,
        import_scope=None,
        constraint=None,
        use_resource=None,
        synchronization=None,
        aggregation=None,
        shape=None,
    ):
        if variable_def is not None:
            if initial_value is not None:
                raise ValueError("variable_def and initial_value are mutually exclusive.")
            self._init_from_proto(variable_def, import_scope=import_scope)
            return
        if initial_value is None:
            raise ValueError("The `initial_value` arg to `tf.Variable` must be specified.")
        trainable = True if trainable is None else trainable
        collections = variables.variable_collections(collections, trainable)
        self._trainable = trainable
        self._constraint = constraint
        self._validate_shape = validate_shape
        self._caching_device = caching_device
        self._save_slice_info = None
        graph = graph_lib.get_default_graph()
        # TF builds a variable in an init scope: outside the caller's control dependencies.
        with graph.control_dependencies(None):
            self._build(graph, initial_value, name, dtype, shape, validate_shape)
        graph.add_to_collections(collections, self)

    def _build(self, graph, initial_value, name, dtype, shape, validate_shape):
        with graph.name_scope(name or "Variable") as scope:
            handle_name = scope[:-1]
            colocation = {"_class": [b"loc:@" + handle_name.encode()]}
            with graph._attr_scope(colocation):
                with graph.name_scope("Initializer"), graph.device(None):
                    if callable(initial_value):
                        initial_value = initial_value()
                    initial = convert_to_tensor(initial_value, name="initial_value", dtype=dtype)
                var_shape = self._variable_shape(initial, shape, validate_shape)
                self._handle = gen.var_handle_op(
                    initial.dtype.base_dtype,
                    var_shape,
                    shared_name=handle_name,
                    debug_name=scope,
                    name=scope,
                )
            self._initial_value = initial
            self._dtype = initial.dtype.base_dtype
            self._shape = var_shape
            with graph.name_scope("IsInitialized"):
                self._is_initialized_op = gen.var_is_initialized_op(self._handle)
            with graph.name_scope("Assign") as assign_scope:
                # On the handle's device, as TF places it (colocation reset, device kept).
                with graph.colocate_with(None, ignore_existing=True):
                    with graph.device(self._handle.device):
                        guarded = variables.guard_uninitialized_dependencies(scope, initial)
                        self._initializer_op = gen.assign_variable_op(
                            self._handle, guarded, name=assign_scope
                        )
            with graph.name_scope("Read"):
                with graph.device(self._handle.device):
                    self._graph_element = gen.read_variable_op(self._handle, self._dtype)
                if self._caching_device is not None:
                    with graph.colocate_with(None, ignore_existing=True):
                        with graph.device(self._caching_device):
                            self._cached_value = array_ops.identity(self._graph_element)

    def _init_from_proto(self, variable_def, import_scope=None, validate_shape=True):
        """This variable over an imported graph's nodes, named by a VariableDef."""

        if not variable_def.is_resource:
            raise ValueError(
                "The `variable_def` you passed to `tf.Variable` is Trying to restore a TF 1.x "
                "Reference Variable as a TF 2.x ResourceVariable. This is unsupported. Got "
                f"variable_def={variable_def}"
            )
        graph = graph_lib.get_default_graph()
        element = variables._element_lookup(graph, import_scope)
        self._handle = element(variable_def.variable_name, allow_operation=False)
        self._shape = tensor_shape.as_shape(self._handle.op.attrs["shape"])
        self._dtype = dtypes.as_dtype(self._handle.op.attrs["dtype"])
        self._initializer_op = element(variable_def.initializer_name)
        self._initial_value = (
            element(variable_def.initial_value_name) if variable_def.initial_value_name else None
        )
        self._trainable = variables._trainable_from_proto(variable_def)
        self._set_reads_from_proto(graph, variable_def, element)
        self._save_slice_info = variables.save_slice_info_from_proto(variable_def, import_scope)
        self._caching_device = None
        self._constraint = None
        self._validate_shape = validate_shape

    def _set_reads_from_proto(self, graph, variable_def, element):
        """The snapshot is the variable's ReadVariableOp, or a caching device's copy of it
        (then the read is found through the copy's inputs)."""
        if not variable_def.snapshot_name:
            self._graph_element = graph.get_tensor_by_name(
                self._handle.op.name + "/Read/ReadVariableOp:0"
            )
            return
        snapshot = element(variable_def.snapshot_name)
        if snapshot.op.type != "ReadVariableOp":
            self._cached_value = snapshot
        while snapshot.op.type != "ReadVariableOp":
            snapshot = snapshot.op.inputs[0]
        self._graph_element = snapshot

    def to_proto(self, export_scope=None):
        """This variable as a VariableDef (``is_resource``) with names relative to
        ``export_scope`` (None when the variable lies outside it)."""
        from tfcompat.framework.proto import variable_pb2

        if export_scope is not None and not self._handle.name.startswith(export_scope):
            return None
        strip = variables._name_stripper(export_scope)
        snapshot = self._cached_value if self._cached_value is not None else self._graph_element
        proto = variable_pb2.VariableDef(
            variable_name=strip(self._handle.name),
            initializer_name=strip(self.initializer.name),
            snapshot_name=strip(snapshot.name),
            is_resource=True,
            trainable=self.trainable,
        )
        if self._initial_value is not None:
            proto.initial_value_name = strip(self._initial_value.name)
        variables._slice_info_to_proto(self._save_slice_info, proto, export_scope)
        return proto

    @staticmethod
    def from_proto(variable_def, import_scope=None):
        """The resource variable a VariableDef names, over the nodes already in the graph."""
        return ResourceVariable(variable_def=variable_def, import_scope=import_scope)

    @staticmethod
    def _variable_shape(initial, shape, validate_shape):
        if shape is not None:
            shape = tensor_shape.as_shape(shape)
            if not initial.shape.is_compatible_with(shape):
                raise ValueError(
                    f"In this `tf.Variable` creation, the initial value's shape "
                    f"({initial.shape}) is not compatible with the explicitly supplied "
                    f"`shape` argument ({shape})."
                )
            return shape
        if not validate_shape:
            return tensor_shape.unknown_shape()
        return initial.shape

    @property
    def initializer(self):
        """The ``AssignVariableOp`` storing the initial value (``v/Assign``)."""
        return self._initializer_op

    @property
    def initial_value(self):
        return self._initial_value


class _UnreadVariable(BaseResourceVariable):
    """What a write returns: the variable, every read of which follows the write."""

    def __init__(self, handle, dtype, shape, parent_op, variable):
        self._handle = handle
        self._dtype = dtype
        self._shape = shape
        self._parent_op = parent_op
        self._variable_source = variable
        self._trainable = variable._trainable
        self._constraint = variable._constraint
        self._validate_shape = variable._validate_shape
        # In the write's graph: a write inside a function (a dataset's map) reads there too.
        with parent_op.graph.control_dependencies([parent_op]):
            self._graph_element = gen.read_variable_op(handle, dtype)

    @property
    def name(self) -> str:
        return self._parent_op.name

    @property
    def op(self):
        return self._parent_op

    def _read_variable_op(self):
        with self._parent_op.graph.control_dependencies([self._parent_op]):
            return gen.read_variable_op(self._handle, self._dtype)

    def value(self):
        return self._read_variable_op()

    def read_value(self):
        return self._read_variable_op()

    @property
    def initializer(self):
        return self._variable_source.initializer

    @property
    def initial_value(self):
        return self._variable_source.initial_value


def _with_parent_dependency(method_name):
    """An ``_UnreadVariable`` write happens after the write it came from."""
    base = getattr(BaseResourceVariable, method_name)

    def method(self, *args, **kwargs):
        with self._parent_op.graph.control_dependencies([self._parent_op]):
            return base(self, *args, **kwargs)

    method.__name__ = method_name
    return method


for _method in (
    "assign",
    "assign_add",
    "assign_sub",
    "_strided_slice_assign",
    *(f"scatter_{k}" for k in ("add", "sub", "mul", "div", "min", "max", "update")),
):
    setattr(_UnreadVariable, _method, _with_parent_dependency(_method))


def _to_tensor(var, dtype=None, name=None, as_ref=False):
    if as_ref:
        return var._handle
    if dtype is not None and not dtypes.as_dtype(dtype).is_compatible_with(var.dtype):
        raise ValueError(
            f"Incompatible type conversion requested to type '{dtypes.as_dtype(dtype).name}' "
            f"for variable of type '{var.dtype.name}' (Variable: {var})."
        )
    return var.value()


# Registered after Variable's, at the same priority: the conversion table is searched in
# order, so this more specific entry must come first.
register_tensor_conversion_function(BaseResourceVariable, _to_tensor, priority=99)
