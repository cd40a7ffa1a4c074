"""``Tensor`` and ``Operation``: the nodes and edges of the IR.

An Operation is a NodeDef-shaped record (name, type, inputs, control inputs, device, attrs);
its outputs are Tensors carrying a dtype and a static shape. Nothing is computed here: values
come from ``Session.run``. Python operators on Tensors are installed by ``tfcompat.ops.math_ops``
(as TensorFlow does), because they create ops.
"""

from __future__ import annotations

from tfcompat.framework import dtypes, tensor_shape

_GRAPH_MODE_ADVICE = (
    "You can attempt the following resolutions to the problem: If you are running in Graph "
    "mode, use Eager execution mode or decorate this function with @tf.function. If you are "
    "using AutoGraph, you can try decorating this function with @tf.function. If that does "
    "not work, then you may be using an unsupported feature or your source code may not be "
    "visible to AutoGraph. See https://github.com/tensorflow/tensorflow/blob/master/"
    "tensorflow/python/autograph/g3doc/reference/limitations.md#access-to-source-code for "
    "more information."
)


class OperatorNotAllowedInGraphError(TypeError):
    """A Python operation (``bool(t)``, ``for x in t``) that a symbolic Tensor cannot do."""


def _shape_text(shape) -> str:
    """A shape as TF's C++ messages write it: ``[?,3]``."""
    return "[" + ",".join("?" if d is None else str(d) for d in shape.as_list()) + "]"


class Tensor:
    """The ``value_index``-th output of ``op``: a symbolic handle with a static ``shape``."""

    # ``_is_zeros_tensor`` (unset unless tagged): zeros ``tf.gradients`` filled in for an
    # output without gradient; fused gradients (cross entropy) skip work on them, as TF's do.
    __slots__ = (
        "_op",
        "_value_index",
        "_dtype",
        "_shape",
        "_consumers",
        "_is_zeros_tensor",
        "_sliced_assign",
        "__weakref__",
    )

    # Makes numpy defer `ndarray + tensor` to Tensor.__radd__.
    __array_priority__ = 100

    def __init__(self, op, value_index, dtype, shape=None):
        self._op = op
        self._value_index = value_index
        self._dtype = dtypes.as_dtype(dtype)
        self._shape = tensor_shape.unknown_shape() if shape is None else shape
        self._consumers = []

    # -- identity -------------------------------------------------------------------------
    @property
    def assign(self):
        """On a slice of a variable (``var[1:, :2]``): ``assign(value, name=None)`` writes
        ``value`` (broadcast to the slice) into that part of the variable, as TF attaches
        it to the slice. Other tensors have no ``assign``."""
        try:
            return self._sliced_assign
        except AttributeError:
            raise AttributeError(
                f"'{type(self).__name__}' object has no attribute 'assign'"
            ) from None

    @property
    def op(self):
        return self._op

    @property
    def value_index(self) -> int:
        return self._value_index

    @property
    def dtype(self) -> dtypes.DType:
        return self._dtype

    @property
    def graph(self):
        return self._op.graph

    @property
    def name(self) -> str:
        return f"{self._op.name}:{self._value_index}"

    @property
    def device(self) -> str:
        return self._op.device

    def _as_node_def_input(self) -> str:
        """How a NodeDef refers to this tensor: ``op`` for output 0, ``op:i`` otherwise."""
        if self._value_index == 0:
            return self._op.name
        return f"{self._op.name}:{self._value_index}"

    def __repr__(self):
        return f"<tf.Tensor '{self.name}' shape={self._shape} dtype={self._dtype.name}>"

    def __str__(self):
        return (
            f'Tensor("{self.name}", shape={self._shape}, dtype={self._dtype.name}'
            + (f", device={self.device}" if self.device else "")
            + ")"
        )

    def __hash__(self):
        # Graph-mode Tensors compare by identity, as in TF1, and hash to their id.
        return id(self)

    # -- shape ----------------------------------------------------------------------------
    @property
    def shape(self) -> tensor_shape.TensorShape:
        return self._shape

    def get_shape(self) -> tensor_shape.TensorShape:
        return self._shape

    def set_shape(self, shape):
        """Refines the static shape; ValueError (TF's wording) if ``shape`` is incompatible."""
        shape = tensor_shape.as_shape(shape)
        current = self._shape
        if current.rank is not None and shape.rank is not None:
            if current.rank != shape.rank:
                raise ValueError(
                    f"Shapes must be equal rank, but are {current.rank} and {shape.rank}"
                )
            for i, (a, b) in enumerate(zip(current.as_list(), shape.as_list())):
                if a is not None and b is not None and a != b:
                    raise ValueError(
                        f"Dimension {i} in both shapes must be equal, but are {a} and {b}. "
                        f"Shapes are {_shape_text(current)} and {_shape_text(shape)}."
                    )
        self._shape = current.merge_with(shape)

    @property
    def ndim(self):
        return self._shape.rank

    # -- graph structure ------------------------------------------------------------------
    def consumers(self):
        """The Operations that take this tensor as an input."""
        return list(self._consumers)

    # -- evaluation -----------------------------------------------------------------------
    def eval(self, feed_dict=None, session=None):
        """Runs the graph to compute this tensor in ``session`` or the default session."""
        from tfcompat.client import session as session_lib

        return session_lib._run_with_default(self, feed_dict, session, "evaluate tensor", "eval")

    # -- Python protocol guards -----------------------------------------------------------
    def __bool__(self):
        raise OperatorNotAllowedInGraphError(
            "Using a symbolic `tf.Tensor` as a Python `bool` is not allowed. " + _GRAPH_MODE_ADVICE
        )

    def __iter__(self):
        raise OperatorNotAllowedInGraphError(
            "Iterating over a symbolic `tf.Tensor` is not allowed. " + _GRAPH_MODE_ADVICE
        )

    def __len__(self):
        raise TypeError(
            f"len is not well defined for a symbolic Tensor ({self.name}). Please call "
            "`x.shape` rather than `len(x)` for shape information."
        )

    def __array__(self, dtype=None, copy=None):
        raise NotImplementedError(
            f"Cannot convert a symbolic tf.Tensor ({self.name}) to a numpy array. This "
            "error may indicate that you're trying to pass a Tensor to a NumPy call, "
            "which is not supported."
        )


class Operation:
    """A node of the Graph: ``type`` is the OpDef name, ``attrs`` canonical attr values.

    Fields: ``name`` (unique in the graph), ``type``, ``inputs`` (Tensors, in OpDef order),
    ``control_inputs`` (Operations that must run first), ``outputs`` (Tensors), ``device``
    (recorded, not used for placement), ``attrs`` (dict name -> canonical value, see
    ``op_def.canonicalize_attr``), ``op_def`` (the registry entry) and ``_id`` (creation
    order, which is also a valid topological order of the data edges).
    """

    def __init__(self, graph, name, op_type, inputs, output_dtypes, attrs, op_def, device=""):
        self._graph = graph
        self._name = name
        self._type = op_type
        self._inputs = list(inputs)
        self._control_inputs = []
        self._attrs = attrs
        self._op_def = op_def
        self._device = device
        self._id = None
        self._control_outputs = []
        self._outputs = [Tensor(self, i, dt) for i, dt in enumerate(output_dtypes)]
        for t in self._inputs:
            t._consumers.append(self)

    @property
    def name(self) -> str:
        return self._name

    @property
    def type(self) -> str:
        return self._type

    @property
    def graph(self):
        return self._graph

    @property
    def inputs(self):
        return tuple(self._inputs)

    @property
    def outputs(self):
        return list(self._outputs)

    def values(self):
        return tuple(self._outputs)

    @property
    def control_inputs(self):
        return list(self._control_inputs)

    @property
    def device(self) -> str:
        return self._device

    def _set_device(self, device):
        self._device = device

    @property
    def op_def(self):
        return self._op_def

    @property
    def attrs(self) -> dict:
        return self._attrs

    @property
    def node_def(self):
        """This op as a ``NodeDef`` protobuf."""
        from tfcompat.framework import graph_io

        return graph_io.node_def_from_operation(self)

    def get_attr(self, name):
        """The attr's value as TF returns it: bytes for strings, DType for types,
        TensorShapeProto for shapes, TensorProto for tensors, lists of those for lists."""
        if name not in self._attrs:
            raise ValueError(f"Operation '{self._name}' has no attr named '{name}'.")
        from tfcompat.framework import graph_io

        return graph_io.attr_value_to_python(graph_io.attr_value_of(self, name))

    def _set_attr(self, name, value):
        self._attrs[name] = value
        self._graph._mutated()

    def colocation_groups(self):
        """The ``loc:@name`` groups this op is colocated with (itself by default)."""
        groups = [g for g in self._attrs.get("_class", []) if g.startswith(b"loc:@")]
        return groups or [b"loc:@" + self._name.encode()]

    def _add_control_input(self, op):
        if op not in self._control_inputs:
            self._control_inputs.append(op)
            op._control_outputs.append(self)
            self._graph._mutated()

    def _add_control_inputs(self, ops):
        for op in ops:
            self._add_control_input(op)

    def _update_input(self, index, tensor):
        old = self._inputs[index]
        old._consumers.remove(self)
        self._inputs[index] = tensor
        tensor._consumers.append(self)
        self._graph._mutated()

    def run(self, feed_dict=None, session=None):
        """Runs this op (for its side effects) in ``session`` or the default session."""
        from tfcompat.client import session as session_lib

        session_lib._run_with_default(self, feed_dict, session, "execute operation", "run")

    def __repr__(self):
        return f"<tf.Operation '{self._name}' type={self._type}>"

    def __str__(self):
        return str(self.node_def)
