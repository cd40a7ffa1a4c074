"""``tf.layers.Layer``: the TF1 layer base (TF 2.21's ``tf.compat.v1.layers``, i.e.
tf_keras's legacy layers), with TF's variable-scope semantics.

A layer gets a unique *object* name per graph (``dense_1`` for the first unnamed Dense, as
Keras numbers them) and, on its first call, a variable scope (``dense``, ``dense_1``...
made unique by ``tf.variable_scope(None, default_name=...)``). Its variables are created
by ``tf.get_variable`` in that scope and its ops under the scope's original name scope;
later calls reuse the variables and add ops under the same name scope (``dense/MatMul_1``).
Update ops a call adds (batch norm's moving averages) go to ``UPDATE_OPS`` and weight
regularization losses to ``REGULARIZATION_LOSSES``.
"""

from __future__ import annotations

import functools
import inspect
import weakref
from collections import defaultdict

from tfcompat.framework import dtypes, scopes
from tfcompat.framework import graph as graph_lib
from tfcompat.framework.op_helper import convert_to_tensor
from tfcompat.framework.tensor import Operation, Tensor
from tfcompat.framework.tensor_shape import TensorShape
from tfcompat.layers.utils import dims_text
from tfcompat.util.tf_export import tf_export

# graph -> {base name: count}: Keras's per-graph layer name numbering.
_LAYER_NAME_UIDS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

# Keyword arguments a Keras layer constructor accepts besides its own.
_ALLOWED_KWARGS = frozenset(
    {"input_dim", "input_shape", "batch_input_shape", "batch_size", "weights",
     "activity_regularizer", "autocast", "implementation", "dynamic"}
)  # fmt: skip


def _to_snake_case(name):
    """Keras's class-name-to-layer-name rule (``Conv2D`` -> ``conv2d``)."""
    import re

    intermediate = re.sub("(.)([A-Z][a-z0-9]+)", r"\1_\2", name)
    insecure = re.sub("([a-z])([A-Z])", r"\1_\2", intermediate).lower()
    if insecure[0] != "_":
        return insecure
    return "private" + insecure


def _unique_layer_name(base_name):
    """``base_name_<n>`` numbered per graph from 1 (legacy layers are not zero-based)."""
    graph = graph_lib.get_default_graph()
    counts = _LAYER_NAME_UIDS.setdefault(graph, defaultdict(int))
    counts[base_name] += 1
    return f"{base_name}_{counts[base_name]}"


def _flatten(structure):
    if isinstance(structure, (list, tuple)):
        return [leaf for item in structure for leaf in _flatten(item)]
    if isinstance(structure, dict):
        return [leaf for key in sorted(structure) for leaf in _flatten(structure[key])]
    return [structure]


def _map_structure(fn, structure):
    if isinstance(structure, (list, tuple)):
        return type(structure)(_map_structure(fn, item) for item in structure)
    if isinstance(structure, dict):
        return {key: _map_structure(fn, value) for key, value in structure.items()}
    return fn(structure)


def _add_to_collection(elements, key):
    """Appends each element not already in collection ``key`` (compared by identity)."""
    collection = scopes.get_collection_ref(key)
    present = {id(e) for e in collection}
    for element in elements:
        if id(element) not in present:
            collection.append(element)
            present.add(id(element))


def _shape_text(shape):
    """A static shape as Keras prints it in messages: ``(None, 5)``."""
    if shape.rank is None:
        return "<unknown>"
    return str(tuple(shape.as_list()))


@tf_export("layers.InputSpec")
class InputSpec:
    """What a layer requires of its input: ``dtype``, ``shape``, ``ndim``, ``max_ndim``,
    ``min_ndim``, and ``axes`` (``{axis: size}``)."""

    def __init__(self, dtype=None, shape=None, ndim=None, max_ndim=None, min_ndim=None,
                 axes=None, allow_last_axis_squeeze=False, name=None):  # fmt: skip
        self.dtype = dtypes.as_dtype(dtype).name if dtype is not None else None
        shape = TensorShape(shape)
        if shape.rank is None:
            shape = None
        else:
            shape = tuple(shape.as_list())
        self.shape = shape
        self.ndim = len(shape) if shape is not None else ndim
        self.max_ndim = max_ndim
        self.min_ndim = min_ndim
        self.name = name
        self.allow_last_axis_squeeze = allow_last_axis_squeeze
        self.axes = dict(axes or {})
        if self.axes and (self.ndim is not None or self.max_ndim is not None):
            max_dim = (self.ndim if self.ndim else self.max_ndim) - 1
            max_axis = max(int(a) for a in self.axes)
            if max_axis > max_dim:
                raise ValueError(
                    f"Axis {max_axis} is greater than the maximum allowed value: {max_dim}"
                )

    def __repr__(self):
        spec = [
            f"{key}={value}"
            for key, value in (
                ("dtype", self.dtype),
                ("shape", self.shape),
                ("ndim", self.ndim),
                ("max_ndim", self.max_ndim),
                ("min_ndim", self.min_ndim),
                ("axes", self.axes or None),
            )
            if value is not None
        ]
        return f"InputSpec({', '.join(spec)})"


def _check_one_input(index, x, spec, layer_name):
    """Keras's ``assert_input_compatibility`` for one input (its error messages)."""
    prefix = f'Input {index} of layer "{layer_name}" is incompatible with the layer: '
    shape = x.shape
    if shape.rank is None:
        return False
    ndim = shape.rank
    if spec.ndim is not None and not spec.allow_last_axis_squeeze and ndim != spec.ndim:
        raise ValueError(
            f"{prefix}expected ndim={spec.ndim}, found ndim={ndim}. "
            f"Full shape received: {dims_text(shape)}"
        )
    if spec.max_ndim is not None and ndim > spec.max_ndim:
        raise ValueError(f"{prefix}expected max_ndim={spec.max_ndim}, found ndim={ndim}")
    if spec.min_ndim is not None and ndim < spec.min_ndim:
        raise ValueError(
            f"{prefix}expected min_ndim={spec.min_ndim}, found ndim={ndim}. "
            f"Full shape received: {dims_text(shape)}"
        )
    if spec.dtype is not None and x.dtype.name != spec.dtype:
        raise ValueError(f"{prefix}expected dtype={spec.dtype}, found dtype={x.dtype}")
    dims = shape.as_list()
    for axis, value in spec.axes.items():
        if value is not None and dims[int(axis)] not in (value, None):
            raise ValueError(
                f'Input {index} of layer "{layer_name}" is incompatible with the layer: '
                f"expected axis {axis} of input shape to have value {value}, but received "
                f"input with shape {_shape_text(shape)}"
            )
    if spec.shape is not None:
        for want, got in zip(spec.shape, dims):
            if want is not None and got is not None and want != got:
                raise ValueError(
                    f"{prefix}expected shape={spec.shape}, found shape={_shape_text(shape)}"
                )
    return True


def assert_input_compatibility(input_spec, inputs, layer_name):
    """Raises Keras's ValueError when ``inputs`` do not meet ``input_spec``."""
    if not input_spec:
        return
    specs = _flatten(input_spec)
    inputs = _flatten(inputs)
    for x, spec in zip(inputs, specs):
        if spec is not None and not hasattr(x, "shape"):
            raise TypeError(
                f"Inputs to a layer should be tensors. Got '{x}' (of type {type(x)}) as "
                f"input for layer '{layer_name}'."
            )
    if len(inputs) != len(specs):
        raise ValueError(
            f'Layer "{layer_name}" expects {len(specs)} input(s), but it received '
            f"{len(inputs)} input tensors. Inputs received: {inputs}"
        )
    for index, (x, spec) in enumerate(zip(inputs, specs)):
        if spec is not None and not _check_one_input(index, x, spec, layer_name):
            return  # Keras stops at the first input of unknown rank


@tf_export("layers.Layer")
class Layer:
    """Base class of the ``tf.layers`` layers.

    Subclasses create variables in ``build(input_shape)`` with ``add_weight`` and compute
    in ``call(inputs, ...)``; ``layer(inputs)`` runs ``build`` once (on the first call),
    then ``call``, inside the layer's variable scope.

    Args:
      trainable: whether the layer's variables are trainable (``TRAINABLE_VARIABLES``).
      name: the layer's name, also its variable scope's name when given.
      dtype: the variables' dtype (default: the first input's dtype).
    """

    def __init__(self, trainable=True, name=None, dtype=None, **kwargs):
        scope = kwargs.pop("_scope", None)
        self._reuse = kwargs.pop("_reuse", None)
        self._activity_regularizer = kwargs.pop("activity_regularizer", None)
        kwargs.pop("autocast", None)
        for key in kwargs:
            if key not in _ALLOWED_KWARGS:
                raise TypeError("Keyword argument not understood:", key)
        self._trainable = trainable
        self._dtype = None if dtype is None else dtypes.as_dtype(dtype).base_dtype
        self.built = False
        self.input_spec = None
        self.supports_masking = False
        self._trainable_weights = []
        self._non_trainable_weights = []
        self._updates = []
        self._losses = []
        self._callable_losses = []
        self._init_set_name(name)
        self._call_has_scope_arg = "scope" in inspect.signature(self.call).parameters
        if scope:
            from tfcompat.ops.variable_scope import variable_scope

            with variable_scope(scope) as captured_scope:
                self._scope = captured_scope
        else:
            self._scope = None
        self._current_scope = None

    # -- names and scopes -----------------------------------------------------------------
    def _init_set_name(self, name):
        from tfcompat.ops.variable_scope import VariableScope

        if isinstance(name, VariableScope):
            self._base_name = name.name
            self._name = _unique_layer_name(_to_snake_case(type(self).__name__))
        elif name:
            self._base_name = self._name = name
        else:
            self._base_name = _to_snake_case(type(self).__name__)
            self._name = _unique_layer_name(self._base_name)

    @property
    def name(self):
        """The layer's name (``dense_1`` for the first unnamed Dense)."""
        return self._name

    @property
    def scope_name(self):
        """The name of the layer's variable scope, fixed by its first call."""
        if not self._scope:
            raise ValueError(
                'No name available for layer scope because the layer "' + self._name + '" '
                "has not been used yet. The scope name  is determined the first time the "
                "layer instance is called. You must therefore call the layer before "
                "querying `scope_name`."
            )
        return self._scope.name

    def _name_scope(self):
        return self._current_scope.original_name_scope

    def _set_scope(self, scope=None):
        """Opens the layer's variable scope once: ``scope`` or a unique one named after the
        layer (with ``reuse``, exactly the layer's name)."""
        if self._scope is not None:
            return
        from tfcompat.ops.variable_scope import variable_scope

        if self._reuse:
            with variable_scope(scope if scope is not None else self._base_name) as captured:
                self._scope = captured
        else:
            with variable_scope(scope, default_name=self._base_name) as captured:
                self._scope = captured

    # -- properties -----------------------------------------------------------------------
    @property
    def dtype(self):
        """The variables' dtype name (``'float32'``), None before the first call when not
        given."""
        return None if self._dtype is None else self._dtype.name

    @property
    def trainable(self):
        return self._trainable

    @trainable.setter
    def trainable(self, value):
        self._trainable = bool(value)

    @property
    def activity_regularizer(self):
        return self._activity_regularizer

    @property
    def trainable_weights(self):
        return list(self._trainable_weights) if self.trainable else []

    @property
    def non_trainable_weights(self):
        if self.trainable:
            return list(self._non_trainable_weights)
        return list(self._trainable_weights) + list(self._non_trainable_weights)

    @property
    def weights(self):
        """Trainable weights, then the others."""
        return self.trainable_weights + self.non_trainable_weights

    trainable_variables = trainable_weights
    non_trainable_variables = non_trainable_weights
    variables = weights

    @property
    def updates(self):
        """The update ops of the layer's calls (none while the layer is not trainable)."""
        return list(self._updates) if self.trainable else []

    @property
    def losses(self):
        """Losses added by the layer; weight regularization losses are rebuilt on each
        access, as Keras does."""
        collected = list(self._losses)
        for make_loss in self._callable_losses:
            loss = make_loss()
            if loss is not None:
                collected.append(loss)
        return collected

    @property
    def graph(self):
        return None  # tf.layers layers no longer track their graph

    # -- building blocks for subclasses ---------------------------------------------------
    def build(self, input_shape):
        """Creates the layer's variables; the default creates none."""
        self.built = True

    def call(self, inputs, **kwargs):
        """The layer's computation; the default returns ``inputs``."""
        return inputs

    def compute_output_shape(self, input_shape):
        raise NotImplementedError(f"{type(self).__name__}.compute_output_shape")

    def add_update(self, updates):
        """Records update ops (or zero-argument callables making them) of this call."""
        for update in updates if isinstance(updates, (list, tuple)) else [updates]:
            if callable(update) and not isinstance(update, (Tensor, Operation)):
                update = update()
            if isinstance(update, Tensor) or hasattr(update, "op"):
                update = update.op
            self._updates.append(update)

    def add_loss(self, losses, inputs=None):
        """Adds loss tensors (or zero-argument callables building them) to the layer and
        to ``REGULARIZATION_LOSSES``."""
        del inputs
        new_losses = []
        for loss in losses if isinstance(losses, (list, tuple)) else [losses]:
            if callable(loss) and not isinstance(loss, Tensor):
                self._callable_losses.append(loss)
                loss = loss()
            elif loss is not None:
                loss = (
                    convert_to_tensor(loss, dtype=dtypes.float32)
                    if not isinstance(loss, Tensor)
                    else loss
                )
                self._losses.append(loss)
            if loss is not None:
                new_losses.append(loss)
        _add_to_collection(new_losses, graph_lib.GraphKeys.REGULARIZATION_LOSSES)

    def add_weight(self, name, shape, dtype=None, initializer=None, regularizer=None,
                   trainable=None, constraint=None, use_resource=None, synchronization=None,
                   aggregation=None, partitioner=None, **kwargs):  # fmt: skip
        """Creates (or, when reusing, gets) variable ``name`` in the layer's variable scope
        with ``tf.get_variable``; records it as a trainable or non-trainable weight and adds
        its regularization loss once."""
        from tfcompat import variables
        from tfcompat.ops.variable_scope import variable_scope

        for key in kwargs:
            if key != "experimental_autocast":
                raise TypeError("Unknown keyword argument:", key)
        on_read = synchronization is not None and _sync_name(synchronization) == "ON_READ"
        if on_read:
            if trainable:
                raise ValueError(
                    "Synchronization value can be set to VariableSynchronization.ON_READ "
                    "only for non-trainable variables. You have specified trainable=True "
                    "and synchronization=VariableSynchronization.ON_READ."
                )
            trainable = False
        elif trainable is None:
            trainable = True
        existing = set(variables.global_variables())
        dtype = dtypes.as_dtype(dtype or self._dtype or dtypes.float32)
        self._set_scope(None)
        reuse = self.built or self._reuse
        added_before = len(self._trainable_weights)
        with variable_scope(self._scope, reuse=reuse, auxiliary_name_scope=False) as scope:
            self._current_scope = scope
            with scopes.name_scope(self._name_scope()):
                if initializer is None:
                    initializer = scope.initializer
                if self._dtype is None:
                    self._dtype = dtype.base_dtype
                initializer = _default_initializer(initializer, dtype, name, self.name)
                variable = _get_variable(
                    name, shape, dtype, initializer, trainable and self.trainable,
                    constraint, partitioner, use_resource,
                )  # fmt: skip
                self._track(variable, trainable and self.trainable)
                if regularizer and _is_new(variable, existing):
                    self._add_weight_regularization(name, variable, regularizer)
                if trainable and self.trainable:
                    # A reused variable that is not trainable stays a non-trainable weight.
                    if not _all_in(variable, variables.trainable_variables()):
                        moved = self._trainable_weights[added_before:]
                        del self._trainable_weights[added_before:]
                        self._non_trainable_weights.extend(moved)
        return variable

    add_variable = add_weight

    def _track(self, variable, trainable):
        target = self._trainable_weights if trainable else self._non_trainable_weights
        parts = list(variable) if _is_partitioned(variable) else [variable]
        for part in parts:
            if not any(part is v for v in target):
                target.append(part)

    def _add_weight_regularization(self, name, variable, regularizer):
        def loss_for(v):
            with scopes.name_scope(name + "/Regularizer"):
                return regularizer(v)

        parts = list(variable) if _is_partitioned(variable) else [variable]
        for part in parts:
            self.add_loss(functools.partial(loss_for, part))

    # -- calling --------------------------------------------------------------------------
    def apply(self, *args, **kwargs):
        """``layer.apply(inputs)`` is ``layer(inputs)``."""
        return self(*args, **kwargs)

    def __call__(self, inputs, *args, **kwargs):
        """Builds the layer on its first call and applies ``call`` inside the layer's
        variable scope (reusing its variables after the first call); update ops of the
        call are added to ``UPDATE_OPS``."""
        from tfcompat.ops.variable_scope import variable_scope

        scope = kwargs.pop("scope", None)
        self._set_scope(scope)
        reuse = True if self.built else self._reuse
        with variable_scope(self._scope, reuse=reuse, auxiliary_name_scope=False) as vs:
            self._current_scope = vs
            if self._call_has_scope_arg:
                kwargs["scope"] = vs
            outputs = self._call_in_scope(inputs, *args, **kwargs)
        _add_to_collection(self.updates, graph_lib.GraphKeys.UPDATE_OPS)
        return outputs

    def _call_in_scope(self, inputs, *args, **kwargs):
        parameters = inspect.signature(self.call).parameters
        if "training" in kwargs and "training" not in parameters:
            kwargs.pop("training")
        if any(not isinstance(x, Tensor) and _is_number_like(x) for x in _flatten(inputs)):
            inputs = _map_structure(
                lambda x: convert_to_tensor(x) if _is_number_like(x) else x, inputs
            )
        assert_input_compatibility(self.input_spec, inputs, self.name)
        with scopes.name_scope(self._name_scope()):
            self._maybe_build(inputs)
            outputs = self.call(inputs, *args, **kwargs)
            if outputs is None:
                raise ValueError(
                    "A layer's `call` method should return a Tensor or a list of Tensors, "
                    f"not None (layer: {self.name})."
                )
            self._activity_regularization(outputs)
        return outputs

    def _maybe_build(self, inputs):
        if self.built:
            return
        assert_input_compatibility(self.input_spec, inputs, self.name)
        leaves = _flatten(inputs)
        if leaves and self._dtype is None and hasattr(leaves[0], "dtype"):
            self._dtype = dtypes.as_dtype(leaves[0].dtype).base_dtype
        shapes = _map_structure(lambda x: x.shape if hasattr(x, "shape") else None, inputs)
        self.build(shapes)
        self.built = True

    def _activity_regularization(self, outputs):
        """The activity regularizer's loss of each output, divided by its batch size."""
        if not self._activity_regularizer:
            return
        from tfcompat.ops import array_ops, math_ops

        with scopes.name_scope("ActivityRegularizer"):
            for output in _flatten(outputs):
                loss = convert_to_tensor(self._activity_regularizer(output))
                batch_size = math_ops.cast(array_ops.shape(output)[0], loss.dtype)
                self.add_loss(loss / batch_size, inputs=True)


def _sync_name(synchronization):
    return getattr(synchronization, "name", str(synchronization)).split(".")[-1].upper()


def _is_number_like(x):
    import numpy as np

    return isinstance(x, (np.ndarray, float, int)) and not isinstance(x, bool)


def _is_partitioned(variable):
    from tfcompat.ops.partitioned_variables import PartitionedVariable

    return isinstance(variable, PartitionedVariable)


def _is_new(variable, existing):
    parts = list(variable) if _is_partitioned(variable) else [variable]
    return all(part not in existing for part in parts)


def _all_in(variable, collection):
    parts = list(variable) if _is_partitioned(variable) else [variable]
    return all(any(part is v for v in collection) for part in parts)


def _default_initializer(initializer, dtype, name, layer_name):
    """Keras's defaults: glorot_uniform for floats, zeros for integers and bools."""
    if initializer is not None:
        return initializer
    from tfcompat import initializers

    if dtype.is_floating:
        return initializers.GlorotUniform()
    if dtype.is_integer or dtype.is_unsigned or dtype.is_bool:
        return initializers.Zeros()
    raise ValueError(
        f"An initializer for variable {name} of type {dtype.base_dtype} is required for "
        f"layer {layer_name}"
    )


def _get_variable(name, shape, dtype, initializer, trainable, constraint, partitioner,
                  use_resource):  # fmt: skip
    from tfcompat.ops.variable_scope import get_variable

    return get_variable(
        name,
        shape=shape,
        dtype=dtype,
        initializer=initializer,
        trainable=trainable,
        constraint=constraint,
        partitioner=partitioner,
        use_resource=use_resource,
    )
