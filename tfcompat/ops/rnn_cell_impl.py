"""TF1 recurrent cells (``tf.nn.rnn_cell.*``): BasicRNNCell, BasicLSTMCell, LSTMCell,
GRUCell and MultiRNNCell, built as TF 2.21's legacy Keras cells build them.

A cell is a ``tf.layers`` Layer whose ``call(inputs, state)`` returns ``(output,
new_state)``; its variables live in a variable scope named after the cell
(``rnn/basic_lstm_cell/kernel``, ``rnn/multi_rnn_cell/cell_0/...``), created on the first
call and reused by later ones (each time step of ``dynamic_rnn`` / ``static_rnn``).
"""

from __future__ import annotations

import collections

from tfcompat.framework import dtypes, scopes, tensor_shape
from tfcompat.framework.tensor import Tensor
from tfcompat.layers import base as base_layer
from tfcompat.ops import control_flow_nest as nest
from tfcompat.util.tf_export import tf_export

_BIAS_VARIABLE_NAME = "bias"
_WEIGHTS_VARIABLE_NAME = "kernel"


def _tf():
    import tfcompat

    return tfcompat


# ---------------------------------------------------------------------------------------------
# Shapes of zero states
# ---------------------------------------------------------------------------------------------
def _as_static(part):
    """A size (int, TensorShape or shape-like, or Tensor) as a list of dims, or None."""
    from tfcompat.framework import constant_value

    if isinstance(part, Tensor):
        value = constant_value.constant_value(part)
        if value is None:
            return None
        return [int(v) for v in (value.reshape(-1) if hasattr(value, "reshape") else [value])]
    shape = tensor_shape.as_shape(part)
    return shape.as_list() if shape.rank is not None else None


def _as_vector(part):
    """``part`` as an int32 vector tensor (None when a static shape is not fully known)."""
    tf = _tf()
    if isinstance(part, Tensor):
        if part.shape.rank == 0:
            return tf.expand_dims(part, 0)
        if part.shape.rank != 1:
            raise ValueError(
                f"Prefix tensor must be either a scalar or vector, but received tensor: {part}"
            )
        return part
    shape = tensor_shape.as_shape(part)
    return tf.constant(shape.as_list(), dtype=dtypes.int32) if shape.is_fully_defined() else None


def concat_shapes(prefix, suffix, static=False):
    """``prefix`` + ``suffix`` (each an int, shape or int32 Tensor): a static list (None
    where unknown) when ``static``, else an int32 vector tensor (TF's ``_concat``; like it,
    the static form still builds the constants of the dynamic one)."""
    p, s = _as_vector(prefix), _as_vector(suffix)
    if static:
        shape = tensor_shape.TensorShape(_as_static(prefix)).concatenate(
            tensor_shape.TensorShape(_as_static(suffix))
        )
        return shape.as_list() if shape.rank is not None else None
    if p is None or s is None:
        raise ValueError(
            f"Prefix or suffix can't be None. Received prefix = {prefix} and suffix = {suffix}"
        )
    return _tf().concat((p, s), 0)


def _zero_state_tensors(state_size, batch_size, dtype):
    def zeros_for(size):
        zeros = _tf().zeros(concat_shapes(batch_size, size), dtype=dtype)
        zeros.set_shape(concat_shapes(batch_size, size, static=True))
        return zeros

    return nest.map_structure(zeros_for, state_size)


def _check_supported_dtypes(dtype):
    if dtype is None:
        return
    dtype = dtypes.as_dtype(dtype)
    if not (dtype.is_floating or dtype.is_complex):
        raise ValueError(
            f"RNN cell only supports floating point inputs, but received dtype: {dtype}"
        )


def _check_rnn_cell_input_dtypes(inputs):
    for t in nest.flatten(inputs):
        _check_supported_dtypes(t.dtype)


def _last_dim(input_shape):
    depth = tensor_shape.dimension_value(tensor_shape.as_shape(input_shape)[-1])
    if depth is None:
        raise ValueError(f"Expected inputs.shape[-1] to be known, received shape: {input_shape}")
    return depth


def _activation(activation):
    if not activation:
        return _tf().tanh
    if isinstance(activation, str):
        return getattr(_tf().nn, activation)
    return activation


# ---------------------------------------------------------------------------------------------
# Base classes
# ---------------------------------------------------------------------------------------------
@tf_export("nn.rnn_cell.RNNCell")
class RNNCell(base_layer.Layer):
    """Abstract cell: ``cell(inputs, state) -> (output, new_state)``; subclasses define
    ``state_size``, ``output_size``, ``build`` and ``call``."""

    def __init__(self, trainable=True, name=None, dtype=None, **kwargs):
        super().__init__(trainable=trainable, name=name, dtype=dtype, **kwargs)
        self._is_tf_rnn_cell = True

    def __call__(self, inputs, state, scope=None):
        """Runs the cell in ``scope`` (default: the variable scope current at its first
        call, kept for later calls)."""
        from tfcompat.ops.variable_scope import get_variable_scope, variable_scope

        if scope is not None:
            with variable_scope(scope, custom_getter=self._rnn_get_variable) as scope:
                return super().__call__(inputs, state, scope=scope)
        if getattr(self, "_rnncell_scope", None) is None:
            self._rnncell_scope = get_variable_scope()
        with variable_scope(self._rnncell_scope, custom_getter=self._rnn_get_variable):
            return super().__call__(inputs, state)

    def _rnn_get_variable(self, getter, *args, **kwargs):
        """Tracks variables the cell gets through ``tf.get_variable`` as its weights."""
        from tfcompat import variables

        variable = getter(*args, **kwargs)
        parts = list(variable) if base_layer._is_partitioned(variable) else [variable]
        trainable = any(parts[0] is v for v in variables.trainable_variables())
        target = self._trainable_weights if trainable else self._non_trainable_weights
        if all(variable is not v for v in target):
            target.append(variable)
        return variable

    @property
    def state_size(self):
        """Size(s) of the state: an int, a TensorShape or a tuple of them."""
        raise NotImplementedError("Abstract method")

    @property
    def output_size(self):
        """Size of the output (an int or TensorShape)."""
        raise NotImplementedError("Abstract method")

    def get_initial_state(self, inputs=None, batch_size=None, dtype=None):
        """The zero state, its batch size and dtype taken from ``inputs`` when given."""
        if inputs is not None:
            inputs = _tf().convert_to_tensor(inputs, name="inputs")
            batch_size = tensor_shape.dimension_value(inputs.shape[0]) or _tf().shape(inputs)[0]
            dtype = inputs.dtype
        if batch_size is None or dtype is None:
            raise ValueError(
                "batch_size and dtype cannot be None while constructing initial state: "
                f"batch_size={batch_size}, dtype={dtype}"
            )
        return self.zero_state(batch_size, dtype)

    def zero_state(self, batch_size, dtype):
        """Zeros shaped ``[batch_size] + s`` for each ``s`` in ``state_size``."""
        with scopes.name_scope(type(self).__name__ + "ZeroState"):
            return _zero_state_tensors(self.state_size, batch_size, dtype)


class LayerRNNCell(RNNCell):
    """A cell that is called like a Layer (its variables in its own scope)."""

    def __call__(self, inputs, state, scope=None, *args, **kwargs):
        return base_layer.Layer.__call__(self, inputs, state, *args, scope=scope, **kwargs)


_LSTMStateTuple = collections.namedtuple("LSTMStateTuple", ("c", "h"))


@tf_export("nn.rnn_cell.LSTMStateTuple")
class LSTMStateTuple(_LSTMStateTuple):
    """``(c, h)``: an LSTM's cell state and output."""

    __slots__ = ()

    @property
    def dtype(self):
        c, h = self
        if c.dtype != h.dtype:
            raise TypeError(f"Inconsistent dtypes for internal state: {c.dtype} vs {h.dtype}")
        return c.dtype


# ---------------------------------------------------------------------------------------------
# Cells
# ---------------------------------------------------------------------------------------------
@tf_export("nn.rnn_cell.BasicRNNCell")
class BasicRNNCell(LayerRNNCell):
    """``output = new_state = activation(W [inputs, state] + b)``."""

    def __init__(self, num_units, activation=None, reuse=None, name=None, dtype=None, **kwargs):
        super().__init__(_reuse=reuse, name=name, dtype=dtype, **kwargs)
        _check_supported_dtypes(self.dtype)
        self.input_spec = base_layer.InputSpec(ndim=2)
        self._num_units = num_units
        self._activation = _activation(activation)

    @property
    def state_size(self):
        return self._num_units

    @property
    def output_size(self):
        return self._num_units

    def build(self, input_shape):
        depth = _last_dim(input_shape)
        _check_supported_dtypes(self.dtype)
        self._kernel = self.add_weight(
            _WEIGHTS_VARIABLE_NAME, shape=[depth + self._num_units, self._num_units]
        )
        self._bias = self.add_weight(
            _BIAS_VARIABLE_NAME,
            shape=[self._num_units],
            initializer=_tf().zeros_initializer(dtype=self.dtype),
        )
        self.built = True

    def call(self, inputs, state):
        tf = _tf()
        _check_rnn_cell_input_dtypes([inputs, state])
        gate_inputs = tf.matmul(tf.concat([inputs, state], 1), self._kernel)
        output = self._activation(tf.nn.bias_add(gate_inputs, self._bias))
        return output, output


@tf_export("nn.rnn_cell.GRUCell")
class GRUCell(LayerRNNCell):
    """Gated recurrent unit (Cho et al. 2014): reset and update gates, one candidate."""

    def __init__(self, num_units, activation=None, reuse=None, kernel_initializer=None,
                 bias_initializer=None, name=None, dtype=None, **kwargs):  # fmt: skip
        super().__init__(_reuse=reuse, name=name, dtype=dtype, **kwargs)
        _check_supported_dtypes(self.dtype)
        self.input_spec = base_layer.InputSpec(ndim=2)
        self._num_units = num_units
        self._activation = _activation(activation)
        self._kernel_initializer = kernel_initializer
        self._bias_initializer = bias_initializer

    @property
    def state_size(self):
        return self._num_units

    @property
    def output_size(self):
        return self._num_units

    def build(self, input_shape):
        tf = _tf()
        depth = _last_dim(input_shape)
        _check_supported_dtypes(self.dtype)
        n = self._num_units
        biases = self._bias_initializer
        self._gate_kernel = self.add_weight(
            f"gates/{_WEIGHTS_VARIABLE_NAME}",
            shape=[depth + n, 2 * n],
            initializer=self._kernel_initializer,
        )
        self._gate_bias = self.add_weight(
            f"gates/{_BIAS_VARIABLE_NAME}",
            shape=[2 * n],
            initializer=biases
            if biases is not None
            else tf.constant_initializer(1.0, dtype=self.dtype),
        )
        self._candidate_kernel = self.add_weight(
            f"candidate/{_WEIGHTS_VARIABLE_NAME}",
            shape=[depth + n, n],
            initializer=self._kernel_initializer,
        )
        self._candidate_bias = self.add_weight(
            f"candidate/{_BIAS_VARIABLE_NAME}",
            shape=[n],
            initializer=biases if biases is not None else tf.zeros_initializer(dtype=self.dtype),
        )
        self.built = True

    def call(self, inputs, state):
        tf = _tf()
        _check_rnn_cell_input_dtypes([inputs, state])
        gate_inputs = tf.matmul(tf.concat([inputs, state], 1), self._gate_kernel)
        value = tf.sigmoid(tf.nn.bias_add(gate_inputs, self._gate_bias))
        r, u = tf.split(value=value, num_or_size_splits=2, axis=1)
        candidate = tf.matmul(tf.concat([inputs, r * state], 1), self._candidate_kernel)
        c = self._activation(tf.nn.bias_add(candidate, self._candidate_bias))
        new_h = u * state + (1 - u) * c
        return new_h, new_h


@tf_export("nn.rnn_cell.BasicLSTMCell")
class BasicLSTMCell(LayerRNNCell):
    """LSTM without peepholes or projection (Zaremba et al. 2014); ``forget_bias`` is added
    to the forget gate's pre-activation."""

    def __init__(self, num_units, forget_bias=1.0, state_is_tuple=True, activation=None,
                 reuse=None, name=None, dtype=None, **kwargs):  # fmt: skip
        super().__init__(_reuse=reuse, name=name, dtype=dtype, **kwargs)
        _check_supported_dtypes(self.dtype)
        self.input_spec = base_layer.InputSpec(ndim=2)
        self._num_units = num_units
        self._forget_bias = forget_bias
        self._state_is_tuple = state_is_tuple
        self._activation = _activation(activation)

    @property
    def state_size(self):
        n = self._num_units
        return LSTMStateTuple(n, n) if self._state_is_tuple else 2 * n

    @property
    def output_size(self):
        return self._num_units

    def build(self, input_shape):
        depth = _last_dim(input_shape)
        _check_supported_dtypes(self.dtype)
        n = self._num_units
        self._kernel = self.add_weight(_WEIGHTS_VARIABLE_NAME, shape=[depth + n, 4 * n])
        self._bias = self.add_weight(
            _BIAS_VARIABLE_NAME,
            shape=[4 * n],
            initializer=_tf().zeros_initializer(dtype=self.dtype),
        )
        self.built = True

    def call(self, inputs, state):
        tf = _tf()
        _check_rnn_cell_input_dtypes([inputs, state])
        one = tf.constant(1, dtype=dtypes.int32)
        if self._state_is_tuple:
            c, h = state
        else:
            c, h = tf.split(value=state, num_or_size_splits=2, axis=one)
        gate_inputs = tf.nn.bias_add(tf.matmul(tf.concat([inputs, h], 1), self._kernel), self._bias)
        i, j, f, o = tf.split(value=gate_inputs, num_or_size_splits=4, axis=one)
        forget_bias = tf.constant(self._forget_bias, dtype=f.dtype)
        new_c = tf.add(
            tf.multiply(c, tf.sigmoid(tf.add(f, forget_bias))),
            tf.multiply(tf.sigmoid(i), self._activation(j)),
        )
        new_h = tf.multiply(self._activation(new_c), tf.sigmoid(o))
        new_state = (
            LSTMStateTuple(new_c, new_h) if self._state_is_tuple else tf.concat([new_c, new_h], 1)
        )
        return new_h, new_state


@tf_export("nn.rnn_cell.LSTMCell")
class LSTMCell(LayerRNNCell):
    """LSTM with optional peepholes (``use_peepholes``), cell clipping (``cell_clip``) and
    an output projection (``num_proj``, clipped to ``proj_clip``)."""

    def __init__(self, num_units, use_peepholes=False, cell_clip=None, initializer=None,
                 num_proj=None, proj_clip=None, num_unit_shards=None, num_proj_shards=None,
                 forget_bias=1.0, state_is_tuple=True, activation=None, reuse=None, name=None,
                 dtype=None, **kwargs):  # fmt: skip
        super().__init__(_reuse=reuse, name=name, dtype=dtype, **kwargs)
        _check_supported_dtypes(self.dtype)
        self.input_spec = base_layer.InputSpec(ndim=2)
        self._num_units = num_units
        self._use_peepholes = use_peepholes
        self._cell_clip = cell_clip
        self._initializer = initializer
        self._num_proj = num_proj
        self._proj_clip = proj_clip
        self._num_unit_shards = num_unit_shards
        self._num_proj_shards = num_proj_shards
        self._forget_bias = forget_bias
        self._state_is_tuple = state_is_tuple
        self._activation = _activation(activation)
        out = num_proj if num_proj else num_units
        if state_is_tuple:
            self._state_size = LSTMStateTuple(num_units, out)
        else:
            self._state_size = num_units + out
        self._output_size = out

    @property
    def state_size(self):
        return self._state_size

    @property
    def output_size(self):
        return self._output_size

    def build(self, input_shape):
        tf = _tf()
        depth = _last_dim(input_shape)
        _check_supported_dtypes(self.dtype)
        n = self._num_units
        h_depth = n if self._num_proj is None else self._num_proj
        shards = self._num_unit_shards
        self._kernel = self.add_weight(
            _WEIGHTS_VARIABLE_NAME,
            shape=[depth + h_depth, 4 * n],
            initializer=self._initializer,
            partitioner=tf.fixed_size_partitioner(shards) if shards is not None else None,
        )
        self._bias = self.add_weight(
            _BIAS_VARIABLE_NAME,
            shape=[4 * n],
            initializer=tf.zeros_initializer(dtype=self.dtype),
        )
        if self._use_peepholes:
            for diag in ("w_f_diag", "w_i_diag", "w_o_diag"):
                setattr(
                    self,
                    "_" + diag,
                    self.add_weight(diag, shape=[n], initializer=self._initializer),
                )
        if self._num_proj is not None:
            proj_shards = self._num_proj_shards
            self._proj_kernel = self.add_weight(
                f"projection/{_WEIGHTS_VARIABLE_NAME}",
                shape=[n, self._num_proj],
                initializer=self._initializer,
                partitioner=tf.fixed_size_partitioner(proj_shards)
                if proj_shards is not None
                else None,
            )
        self.built = True

    def call(self, inputs, state):
        tf = _tf()
        _check_rnn_cell_input_dtypes([inputs, state])
        n = self._num_units
        num_proj = n if self._num_proj is None else self._num_proj
        sigmoid = tf.sigmoid
        if self._state_is_tuple:
            c_prev, m_prev = state
        else:
            c_prev = tf.slice(state, [0, 0], [-1, n])
            m_prev = tf.slice(state, [0, n], [-1, num_proj])
        if tensor_shape.dimension_value(inputs.shape.with_rank(2)[1]) is None:
            raise ValueError(
                "Could not infer input size from inputs.get_shape()[-1].Received input shape: "
                f"{inputs.shape}"
            )
        lstm_matrix = tf.nn.bias_add(
            tf.matmul(tf.concat([inputs, m_prev], 1), self._kernel), self._bias
        )
        i, j, f, o = tf.split(value=lstm_matrix, num_or_size_splits=4, axis=1)
        if self._use_peepholes:
            c = sigmoid(f + self._forget_bias + self._w_f_diag * c_prev) * c_prev + sigmoid(
                i + self._w_i_diag * c_prev
            ) * self._activation(j)
        else:
            c = sigmoid(f + self._forget_bias) * c_prev + sigmoid(i) * self._activation(j)
        if self._cell_clip is not None:
            c = tf.clip_by_value(c, -self._cell_clip, self._cell_clip)
        if self._use_peepholes:
            m = sigmoid(o + self._w_o_diag * c) * self._activation(c)
        else:
            m = sigmoid(o) * self._activation(c)
        if self._num_proj is not None:
            m = tf.matmul(m, self._proj_kernel)
            if self._proj_clip is not None:
                m = tf.clip_by_value(m, -self._proj_clip, self._proj_clip)
        new_state = LSTMStateTuple(c, m) if self._state_is_tuple else tf.concat([c, m], 1)
        return m, new_state


@tf_export("nn.rnn_cell.MultiRNNCell")
class MultiRNNCell(RNNCell):
    """Cells stacked: each one's output is the next one's input; variables under
    ``multi_rnn_cell/cell_<i>``."""

    def __init__(self, cells, state_is_tuple=True):
        super().__init__()
        if not cells:
            raise ValueError("Must specify at least one cell for MultiRNNCell.")
        if not nest.is_nested(cells):
            raise TypeError(f"cells must be a list or tuple, but received: {cells}.")
        self._cells = cells
        self._state_is_tuple = state_is_tuple
        if not state_is_tuple and any(nest.is_nested(c.state_size) for c in cells):
            raise ValueError(
                "Some cells return tuples of states, but the flag state_is_tuple is not set. "
                f"State sizes are: {[c.state_size for c in cells]}"
            )

    @property
    def state_size(self):
        if self._state_is_tuple:
            return tuple(cell.state_size for cell in self._cells)
        return sum(cell.state_size for cell in self._cells)

    @property
    def output_size(self):
        return self._cells[-1].output_size

    def zero_state(self, batch_size, dtype):
        with scopes.name_scope(type(self).__name__ + "ZeroState"):
            if self._state_is_tuple:
                return tuple(cell.zero_state(batch_size, dtype) for cell in self._cells)
            return super().zero_state(batch_size, dtype)

    @property
    def trainable_weights(self):
        if not self.trainable:
            return []
        return [
            w
            for cell in self._cells
            if isinstance(cell, base_layer.Layer)
            for w in cell.trainable_weights
        ]

    @property
    def non_trainable_weights(self):
        weights = [
            w
            for c in self._cells
            if isinstance(c, base_layer.Layer)
            for w in c.non_trainable_weights
        ]
        if not self.trainable:
            trainable = [
                w
                for c in self._cells
                if isinstance(c, base_layer.Layer)
                for w in c.trainable_weights
            ]
            return trainable + weights
        return weights

    def call(self, inputs, state):
        from tfcompat.ops.variable_scope import variable_scope

        position = 0
        current = inputs
        new_states = []
        for i, cell in enumerate(self._cells):
            with variable_scope(f"cell_{i}"):
                if self._state_is_tuple:
                    if not nest.is_nested(state):
                        raise ValueError(
                            f"Expected state to be a tuple of length {len(self.state_size)}, "
                            f"but received: {state}"
                        )
                    cell_state = state[i]
                else:
                    cell_state = _tf().slice(state, [0, position], [-1, cell.state_size])
                    position += cell.state_size
                current, new_state = cell(current, cell_state)
                new_states.append(new_state)
        if self._state_is_tuple:
            return current, tuple(new_states)
        return current, _tf().concat(new_states, 1)


def assert_like_rnncell(cell_name, cell):
    """TypeError unless ``cell`` has ``output_size``, ``state_size`` and ``__call__``
    (``get_initial_state`` or ``zero_state``)."""
    conditions = [
        hasattr(cell, "output_size"),
        hasattr(cell, "state_size"),
        hasattr(cell, "get_initial_state") or hasattr(cell, "zero_state"),
        callable(cell),
    ]
    errors = [
        "'output_size' property is missing",
        "'state_size' property is missing",
        "either 'zero_state' or 'get_initial_state' method is required",
        "is not callable",
    ]
    if not all(conditions):
        messages = [e for c, e in zip(conditions, errors) if not c]
        raise TypeError(
            f"The argument {cell_name!r} ({cell}) is not an RNNCell: " + ", ".join(messages) + "."
        )
