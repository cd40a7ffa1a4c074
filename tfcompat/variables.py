"""``tf.Variable`` as TF1 builds it (a ref variable) and the variable initializers.

A Variable is four ops, named as TensorFlow names them: ``name`` (``VariableV2``),
``name/initial_value`` (the initial value), ``name/Assign`` (the initializer) and
``name/read`` (an ``Identity`` snapshot used wherever the variable's value is needed).
"""

from __future__ import annotations

from tfcompat.framework import dtypes, tensor_shape
from tfcompat.framework import graph as graph_lib
from tfcompat.framework.graph import GraphKeys
from tfcompat.framework.op_helper import convert_to_tensor, register_tensor_conversion_function
from tfcompat.framework.tensor import Tensor
from tfcompat.ops import array_ops, control_flow_ops, state_ops
from tfcompat.util.tf_export import tf_export


class Variable:
    """A TF1 variable: state that persists across ``Session.run`` calls.

    ``Variable(..., use_resource=True)`` (or ``None`` after ``enable_resource_variables``)
    makes a ``ResourceVariable`` instead, as TF1's ``tf.Variable`` does."""

    def __new__(cls, *args, **kwargs):
        if cls is Variable:
            from tfcompat import resource_variables

            use_resource = kwargs.get("use_resource", args[11] if len(args) > 11 else None)
            if resource_variables.wants_resource(use_resource):
                return super().__new__(resource_variables.ResourceVariable)
        return super().__new__(cls)

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
            raise ValueError("initial_value must be specified.")
        init_from_fn = callable(initial_value)
        if trainable is None:
            trainable = True
        collections = variable_collections(collections, trainable)
        self._trainable = trainable
        self._constraint = constraint
        graph = graph_lib.get_default_graph()
        self._graph = graph
        with graph.name_scope(name or "Variable") as scope:
            true_name = scope[:-1]
            if init_from_fn:
                # TF colocates the initializer ops and the variable itself via an attr scope.
                class_scope = graph._attr_scope({"_class": [b"loc:@" + true_name.encode()]})
                class_scope.__enter__()
                with graph.name_scope("Initializer"), graph.device(None):
                    self._initial_value = convert_to_tensor(
                        initial_value(), name="initial_value", dtype=dtype
                    )
            else:
                self._initial_value = convert_to_tensor(
                    initial_value, name="initial_value", dtype=dtype
                )
            init_shape = self._initial_value.shape
            if shape is not None:
                var_shape = tensor_shape.as_shape(shape)
            elif validate_shape:
                var_shape = init_shape
            else:
                var_shape = tensor_shape.unknown_shape()
            if validate_shape and not init_shape.is_fully_defined():
                raise ValueError(
                    f"initial_value must have a shape specified: {self._initial_value}"
                )
            self._variable = state_ops.variable_op_v2(
                var_shape, self._initial_value.dtype.base_dtype, name=scope
            )
            if init_from_fn:
                class_scope.__exit__(None, None, None)
            guarded = guard_uninitialized_dependencies(scope, self._initial_value)
            with graph.colocate_with(self._variable.op):
                self._initializer_op = state_ops.assign(
                    self._variable,
                    guarded,
                    validate_shape=validate_shape,
                    name="Assign",
                ).op
            # TF places the cached read on the caching device instead of colocating it.
            placement = (
                graph.device(caching_device)
                if caching_device is not None
                else graph.colocate_with(self._variable.op)
            )
            with placement:
                self._snapshot = array_ops.identity(self._variable, name="read")
        self._caching_device = caching_device
        self._save_slice_info = None
        graph.add_to_collections(collections, self)

    # -- VariableDef (MetaGraphDef collections) ------------------------------------------------
    def _init_from_proto(self, variable_def, import_scope=None):
        """This variable over existing nodes, named by a VariableDef (an imported graph's)."""
        graph = graph_lib.get_default_graph()
        element = _element_lookup(graph, import_scope)
        self._graph = graph
        self._variable = element(variable_def.variable_name)
        self._initializer_op = element(variable_def.initializer_name)
        self._initial_value = (
            element(variable_def.initial_value_name) if variable_def.initial_value_name else None
        )
        self._snapshot = element(variable_def.snapshot_name)
        self._trainable = _trainable_from_proto(variable_def)
        self._save_slice_info = save_slice_info_from_proto(variable_def, import_scope)
        self._caching_device = None
        self._constraint = None

    def to_proto(self, export_scope=None):
        """This variable as a VariableDef with names relative to ``export_scope`` (None
        when the variable lies outside it)."""
        from tfcompat.framework.proto import variable_pb2

        if export_scope is not None and not self._variable.name.startswith(export_scope):
            return None
        strip = _name_stripper(export_scope)
        proto = variable_pb2.VariableDef(
            variable_name=strip(self._variable.name),
            initializer_name=strip(self.initializer.name),
            snapshot_name=strip(self._snapshot.name),
            trainable=self.trainable,
        )
        if self._initial_value is not None:
            proto.initial_value_name = strip(self._initial_value.name)
        _slice_info_to_proto(self._save_slice_info, proto, export_scope)
        return proto

    @staticmethod
    def from_proto(variable_def, import_scope=None):
        """The ref variable a VariableDef names, over the nodes already in the graph."""
        return RefVariable(variable_def=variable_def, import_scope=import_scope, use_resource=False)

    # -- identity ---------------------------------------------------------------------------
    @property
    def name(self) -> str:
        return self._variable.name

    @property
    def op(self):
        return self._variable.op

    @property
    def graph(self):
        return self._variable.graph

    @property
    def device(self) -> str:
        return self._variable.device

    @property
    def dtype(self) -> dtypes.DType:
        return self._variable.dtype

    @property
    def shape(self):
        return self._variable.shape

    def get_shape(self):
        return self._variable.shape

    @property
    def trainable(self) -> bool:
        return self._trainable

    @property
    def constraint(self):
        return self._constraint

    @property
    def initializer(self):
        """The ``Assign`` op that stores the initial value."""
        return self._initializer_op

    @property
    def initial_value(self) -> Tensor:
        return self._initial_value

    def __repr__(self):
        return (
            f"<tf.Variable '{self.name}' shape={self.shape} dtype={self.dtype.base_dtype.name}_ref>"
        )

    # -- values -----------------------------------------------------------------------------
    def value(self) -> Tensor:
        """The ``name/read`` snapshot of the variable."""
        return self._snapshot

    def read_value(self) -> Tensor:
        """A fresh ``Identity`` of the variable, reading its value when it runs."""
        return array_ops.identity(self._variable, name="read")

    def _ref(self) -> Tensor:
        return self._variable

    def _as_graph_element(self):
        return self._variable

    def _identity(self, name):
        return array_ops.identity(self._snapshot, name=name)

    def eval(self, session=None):
        return self._variable.eval(session=session)

    def load(self, value, session=None):
        """Assigns ``value`` by feeding the initializer's value."""
        from tfcompat.client import session as session_lib

        session = session or session_lib.get_default_session()
        if session is None:
            raise ValueError(
                "Either session argument should be provided or default session should be "
                "established"
            )
        session.run(self._initializer_op, {self._initializer_op.inputs[1]: value})

    def initialized_value(self) -> Tensor:
        """The variable's value once initialized, else its initial value (TF's ``cond`` on
        ``IsVariableInitialized``): an initial value computed from it works whichever
        initializer runs first."""
        from tfcompat.ops import control_flow_ops, tensor_utils_api

        with tensor_utils_api.init_scope():
            return control_flow_ops.cond(
                is_variable_initialized(self), self.read_value, lambda: self.initial_value
            )

    # -- updates ----------------------------------------------------------------------------
    def assign(self, value, use_locking=False, name=None, read_value=True):
        result = state_ops.assign(self._variable, value, use_locking=use_locking, name=name)
        return result if read_value else result.op

    def assign_add(self, delta, use_locking=False, name=None, read_value=True):
        result = state_ops.assign_add(self._variable, delta, use_locking=use_locking, name=name)
        return result if read_value else result.op

    def count_up_to(self, limit):
        """``tf.count_up_to`` of this variable."""
        return state_ops.count_up_to(self._variable, limit)

    def assign_sub(self, delta, use_locking=False, name=None, read_value=True):
        result = state_ops.assign_sub(self._variable, delta, use_locking=use_locking, name=name)
        return result if read_value else result.op

    def __getitem__(self, slice_spec):
        """``var[...]``: a slice of the variable's value, whose ``assign(value)`` writes
        into that slice of the variable (TF's ``_SliceHelperVar``)."""
        from tfcompat.ops import slicing_ops

        return slicing_ops._slice_helper(self.value(), slice_spec, var=self)

    def _strided_slice_assign(self, begin, end, strides, value, name, **masks):
        from tfcompat.ops import slicing_ops

        return slicing_ops.strided_slice_assign(
            self._ref(), begin, end, strides, value, name=name, **masks
        )

    def scatter_update(self, sparse_delta, use_locking=False, name=None):
        return state_ops.scatter_update(
            self._variable, sparse_delta.indices, sparse_delta.values, use_locking, name
        )

    def scatter_add(self, sparse_delta, use_locking=False, name=None):
        return state_ops.scatter_add(
            self._variable, sparse_delta.indices, sparse_delta.values, use_locking, name
        )

    def scatter_sub(self, sparse_delta, use_locking=False, name=None):
        return state_ops.scatter_sub(
            self._variable, sparse_delta.indices, sparse_delta.values, use_locking, name
        )

    def is_initialized(self, name=None):
        return state_ops.is_variable_initialized(self._variable, name=name)

    def set_shape(self, shape):
        self._variable.set_shape(shape)
        self._snapshot.set_shape(shape)

    def get_slot_names(self):
        return []

    # -- operators: a Variable behaves like its value -----------------------------------------
    def __getattr__(self, name):
        if name.startswith("__") or name.startswith("_"):
            raise AttributeError(name)
        raise AttributeError(f"'Variable' object has no attribute '{name}'")

    def __hash__(self):
        return id(self)

    def __eq__(self, other):
        return self is other

    def __iter__(self):
        raise TypeError("'Variable' object is not iterable.")

    def __bool__(self):
        raise TypeError("Using a `tf.Variable` as a Python `bool` is not allowed.")


def _install_variable_operators():
    """Every Tensor operator applies to a Variable's snapshot, as TF1's RefVariable does."""
    names = [
        "__add__",
        "__radd__",
        "__sub__",
        "__rsub__",
        "__mul__",
        "__rmul__",
        "__truediv__",
        "__rtruediv__",
        "__floordiv__",
        "__rfloordiv__",
        "__mod__",
        "__rmod__",
        "__pow__",
        "__rpow__",
        "__matmul__",
        "__rmatmul__",
        "__neg__",
        "__abs__",
        "__lt__",
        "__le__",
        "__gt__",
        "__ge__",
        "__and__",
        "__rand__",
        "__or__",
        "__ror__",
        "__xor__",
        "__rxor__",
        "__invert__",
        "__div__",
        "__rdiv__",
    ]
    for name in names:

        def method(self, *args, _name=name):
            return getattr(Tensor, _name)(self._snapshot, *args)

        setattr(Variable, name, method)


_install_variable_operators()
RefVariable = Variable
VariableV1 = Variable


# ---------------------------------------------------------------------------------------------
# Initial values that read other variables (TF's _try_guard_against_uninitialized_dependencies)
# ---------------------------------------------------------------------------------------------
# TF's stops, and (tfcompat only) a v1 cond's Merge: TF copies the ops behind it too, such as
# the cond ``initialized_value()`` builds, whose copied Switch then sits outside any cond
# context the lowering recovers; the copies compute the same values as the originals.
_UNINITIALIZED_GUARD_STOPS = (
    "IsVariableInitialized",
    "VarIsInitializedOp",
    "ReadVariableOp",
    "If",
    "Merge",
    "RefMerge",
)


def guard_uninitialized_dependencies(name, initial_value):
    """``initial_value`` with every (ref) variable it reads replaced by that variable's
    ``initialized_value()``, so that the new variable's initializer runs before, or
    without, theirs: ``tf.Variable(v * 3).initializer`` alone reads ``v``'s initial value.
    As TF: the ops on the way are copied as ``<op>_<variable scope>``; graphs with a cycle
    (a while loop), and variables in neither the global nor the local collection, are
    left alone. Unlike TF, the walk stops at a ``tf.cond``'s output (see the stops above),
    so an initial value made with ``initialized_value()`` keeps its graph."""
    if not isinstance(initial_value, Tensor):
        raise TypeError(f"initial_value needs to be a Tensor: {initial_value}")
    if _has_cycle(initial_value.op):
        return initial_value
    return _guarded_tensor(name, initial_value, {})


def _has_cycle(start):
    """Whether the ops ``start`` depends on (data and control inputs) hold a cycle."""
    started, finished = set(), set()
    stack = [(start, False)]
    while stack:
        op, leaving = stack.pop()
        if leaving:
            started.discard(op.name)
            finished.add(op.name)
            continue
        if op.name in finished:
            continue
        if op.name in started:
            return True
        started.add(op.name)
        stack.append((op, True))
        for dep in [t.op for t in op.inputs] + list(op.control_inputs):
            if dep.name in started:
                return True
            if dep.name not in finished:
                stack.append((dep, False))
    return False


def _guarded_tensor(name, tensor, cache):
    op = cache.get(tensor.op.name)
    if op is None:
        op = cache[tensor.op.name] = _guarded_op(name, tensor.op, cache)
    return op.outputs[tensor.value_index]


def _guarded_op(name, op, cache):
    from tfcompat.framework.op_helper import create_op_from_node

    if op.type in _UNINITIALIZED_GUARD_STOPS:
        return op
    if op.type in ("Variable", "VariableV2", "VarHandleOp"):
        value = _initialized_value_of(op)
        return op if value is None else value.op
    inputs = [_guarded_tensor(name, t, cache) for t in op.inputs]
    if all(new is old for new, old in zip(inputs, op.inputs)):
        return op
    new_name = (op.name + "_" + name).replace(":", "_").rstrip("/")
    op_type = "Switch" if op.type == "RefSwitch" else op.type
    return create_op_from_node(op.graph, new_name, op_type, inputs, dict(op.attrs))


def _initialized_value_of(variable_op):
    """The ``initialized_value()`` of the collected variable ``variable_op`` makes, or None."""
    names = (variable_op.name, variable_op.name + ":0")
    for key in (GraphKeys.GLOBAL_VARIABLES, GraphKeys.LOCAL_VARIABLES):
        for var in variable_op.graph.get_collection(key):
            if var.name in names:
                try:
                    return var.initialized_value()
                except (AttributeError, NotImplementedError):  # resource variables have none
                    return None
    return None


# ---------------------------------------------------------------------------------------------
# VariableDef helpers (shared with resource variables)
# ---------------------------------------------------------------------------------------------
def _element_lookup(graph, import_scope):
    """``name -> graph element`` for names of a VariableDef imported under ``import_scope``."""
    from tfcompat.framework.meta_graph import prepend_name_scope

    return lambda name, **kw: graph.as_graph_element(prepend_name_scope(name, import_scope), **kw)


def _name_stripper(export_scope):
    from tfcompat.framework.meta_graph import strip_name_scope

    return lambda name: strip_name_scope(name, export_scope)


def _trainable_from_proto(variable_def) -> bool:
    """``trainable`` of a VariableDef; an ON_READ variable cannot be trainable (TF's rule)."""
    on_read = 3  # VariableSynchronization.VARIABLE_SYNCHRONIZATION_ON_READ
    if variable_def.synchronization == on_read and variable_def.trainable:
        raise ValueError(
            "Synchronization value can be set to VariableSynchronization.ON_READ only for "
            f"non-trainable variables. You have specified trainable=True and "
            f"synchronization=VariableSynchronization.ON_READ for {variable_def.variable_name}."
        )
    return variable_def.trainable


def save_slice_info_from_proto(variable_def, import_scope=None):
    """The SaveSliceInfo of a VariableDef of a partition, else None."""
    if not variable_def.HasField("save_slice_info_def"):
        return None
    from tfcompat.framework.meta_graph import prepend_name_scope
    from tfcompat.ops.partitioned_variables import SaveSliceInfo

    info = variable_def.save_slice_info_def
    return SaveSliceInfo(
        prepend_name_scope(info.full_name, import_scope),
        list(info.full_shape),
        list(info.var_offset),
        list(info.var_shape),
    )


def _slice_info_to_proto(info, proto, export_scope):
    if info is None:
        return
    from tfcompat.framework.meta_graph import strip_name_scope

    if export_scope is not None and not info.full_name.startswith(export_scope):
        return
    slice_def = proto.save_slice_info_def
    slice_def.full_name = strip_name_scope(info.full_name, export_scope)
    slice_def.full_shape.extend(int(d) for d in info.full_shape)
    slice_def.var_offset.extend(int(d) for d in info.var_offset)
    slice_def.var_shape.extend(int(d) for d in info.var_shape)


def _from_proto_fn(variable_def, import_scope=None):
    """A Variable or ResourceVariable from a VariableDef, as its ``is_resource`` says."""
    if variable_def.is_resource:
        from tfcompat.resource_variables import ResourceVariable

        return ResourceVariable.from_proto(variable_def, import_scope=import_scope)
    return Variable.from_proto(variable_def, import_scope=import_scope)


def _variable_to_tensor(var, dtype=None, name=None, as_ref=False):
    if as_ref:
        return var._variable
    return var._snapshot


register_tensor_conversion_function(Variable, _variable_to_tensor)


# ---------------------------------------------------------------------------------------------
# Collections and initializers
# ---------------------------------------------------------------------------------------------
@tf_export("global_variables", "all_variables")
def global_variables(scope=None):
    return graph_lib.get_default_graph().get_collection(GraphKeys.GLOBAL_VARIABLES, scope)


all_variables = global_variables


@tf_export("local_variables")
def local_variables(scope=None):
    return graph_lib.get_default_graph().get_collection(GraphKeys.LOCAL_VARIABLES, scope)


@tf_export("trainable_variables")
def trainable_variables(scope=None):
    return graph_lib.get_default_graph().get_collection(GraphKeys.TRAINABLE_VARIABLES, scope)


@tf_export("model_variables")
def model_variables(scope=None):
    return graph_lib.get_default_graph().get_collection(GraphKeys.MODEL_VARIABLES, scope)


@tf_export("moving_average_variables")
def moving_average_variables(scope=None):
    return graph_lib.get_default_graph().get_collection(GraphKeys.MOVING_AVERAGE_VARIABLES, scope)


@tf_export("variables_initializer", "initializers.variables")
def variables_initializer(var_list, name="init"):
    """One op running the initializers of ``var_list``."""
    if var_list:
        return control_flow_ops.group(*[v.initializer for v in var_list], name=name)
    return control_flow_ops.no_op(name=name)


@tf_export(
    "global_variables_initializer", "initializers.global_variables", "initialize_all_variables"
)
def global_variables_initializer():
    return variables_initializer(global_variables())


@tf_export(
    "local_variables_initializer", "initializers.local_variables", "initialize_local_variables"
)
def local_variables_initializer():
    return variables_initializer(local_variables(), name="init")


initialize_all_variables = global_variables_initializer
initialize_local_variables = local_variables_initializer


def initialize_variables(var_list, name="init"):
    return variables_initializer(var_list, name)


def is_variable_initialized(variable):
    return state_ops.is_variable_initialized(variable)


@tf_export("assert_variables_initialized")
def assert_variables_initialized(var_list=None):
    from tfcompat.ops import math_ops

    var_list = global_variables() if var_list is None else var_list
    if not var_list:
        return None
    flags = [state_ops.is_variable_initialized(v) for v in var_list]
    return math_ops.reduce_all(array_ops.stack(flags))


@tf_export("report_uninitialized_variables")
def report_uninitialized_variables(var_list=None, name="report_uninitialized_variables"):
    """A 1-D string tensor naming the variables not yet initialized in the session."""
    from tfcompat.framework import dtypes
    from tfcompat.framework.constant_op import constant
    from tfcompat.ops import math_ops

    var_list = (global_variables() + local_variables()) if var_list is None else var_list
    graph = graph_lib.get_default_graph()
    with graph.name_scope(name):
        flags = [state_ops.is_variable_initialized(v) for v in var_list]
        with graph.device("/cpu:0"):
            if not var_list:
                return constant([], dtype=dtypes.string)
            mask = math_ops.logical_not(array_ops.stack(flags))
            names = constant([v.op.name for v in var_list])
            return array_ops.boolean_mask(names, mask)


def variable_collections(collections, trainable) -> list:
    """The collections a new variable joins (ref or resource): ``collections`` (default
    GLOBAL_VARIABLES) plus TRAINABLE_VARIABLES when ``trainable``; TF's error otherwise."""
    if collections is None:
        collections = [GraphKeys.GLOBAL_VARIABLES]
    if not isinstance(collections, (list, tuple, set)):
        raise ValueError(
            f"collections argument to Variable constructor must be a list, tuple, or set. "
            f"Got {collections} of type {type(collections)}"
        )
    collections = list(collections)
    if trainable and GraphKeys.TRAINABLE_VARIABLES not in collections:
        collections.append(GraphKeys.TRAINABLE_VARIABLES)
    return collections
