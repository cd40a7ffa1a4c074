"""``Tensor`` and ``Operation``: the nodes and edges of the IR.

An Operation is a NodeDef-shaped record (name, type, inputs, control inputs, device, attrs);
its outputs are Tensors carrying a dtype and a static shape. Nothing is computed here: values
come from ``Session.run``. Python operators on Tensors are installed by ``tfcompat.ops.math_ops``
(as TensorFlow does), because they create ops.
"""

from __future__ import annotations

from tfcompat.framework import dtypes, tensor_shape


class Tensor:
    """The ``value_index``-th output of ``op``: a symbolic handle with a static ``shape``."""

    __slots__ = ("_op", "_value_index", "_dtype", "_shape", "_consumers", "__weakref__")

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

    __hash__ = object.__hash__  # graph-mode Tensors compare by identity, as in TF1

    # -- shape ----------------------------------------------------------------------------
    @property
    def shape(self) -> tensor_shape.TensorShape:
        return self._shape

    def get_shape(self) -> tensor_shape.TensorShape:
        return self._shape

    def set_shape(self, shape):
        """Refines the static shape; ValueError if ``shape`` is incompatible."""
        try:
            self._shape = self._shape.merge_with(shape)
        except ValueError:
            raise ValueError(
                f"Tensor's shape {self._shape} is not compatible with supplied shape "
                f"{tensor_shape.as_shape(shape)}."
            ) from None

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
        raise TypeError(
            "Using a `tf.Tensor` as a Python `bool` is not allowed in Graph execution. "
            "Use `if t is not None:` instead of `if t:` to test if a tensor is defined, "
            "and use TensorFlow ops such as tf.cond to execute subgraphs conditioned on "
            "the value of a tensor."
        )

    def __iter__(self):
        raise TypeError(
            "Iterating over a symbolic `tf.Tensor` is not allowed in Graph execution."
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
        """The attr's value in TF's Python form (bytes for strings, TensorProto for tensors)."""
        try:
            value = self._attrs[name]
        except KeyError:
            raise ValueError(f"Operation '{self._name}' has no attr named '{name}'.") from None
        attr_def = self._op_def.attrs.get(name) if self._op_def else None
        if attr_def is not None and attr_def.type == "tensor":
            from tfcompat.framework import tensor_util

            return tensor_util.make_tensor_proto(value)
        return value

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
