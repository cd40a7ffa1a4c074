"""``tf.layers.Dense``, ``Dropout`` and ``Flatten`` and their functional forms, building the
ops TF 2.21's ``tf.compat.v1.layers`` builds (``dense/MatMul``, ``dense/BiasAdd``,
``dropout/dropout/SelectV2``, ``flatten/Reshape``...)."""

from __future__ import annotations

import functools
import numbers
import operator

from tfcompat import initializers
from tfcompat.framework import dtypes
from tfcompat.framework.tensor_shape import TensorShape
from tfcompat.layers import utils
from tfcompat.layers.base import InputSpec, Layer
from tfcompat.util.tf_export import tf_export

# TF's default bias initializer (one shared instance, as TF's signature default is).
_ZEROS = initializers.zeros_initializer()


@tf_export("layers.Dense")
class Dense(Layer):
    """Densely-connected layer: ``activation(inputs @ kernel + bias)``.

    Inputs of rank above 2 are contracted on their last axis (``tf.tensordot``).
    ``kernel_initializer`` defaults to glorot_uniform, ``bias_initializer`` to zeros.
    """

    def __init__(self, units, activation=None, use_bias=True, kernel_initializer=None,
                 bias_initializer=_ZEROS, kernel_regularizer=None,
                 bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
                 bias_constraint=None, trainable=True, name=None, **kwargs):  # fmt: skip
        super().__init__(
            trainable=trainable, name=name, activity_regularizer=activity_regularizer, **kwargs
        )
        self.units = int(units) if not isinstance(units, int) else units
        if self.units < 0:
            raise ValueError(
                "Received an invalid value for `units`, expected a positive integer. "
                f"Received: units={units}"
            )
        self.activation = activation
        self.use_bias = use_bias
        self.kernel_initializer = kernel_initializer
        self.bias_initializer = bias_initializer
        self.kernel_regularizer = kernel_regularizer
        self.bias_regularizer = bias_regularizer
        self.kernel_constraint = kernel_constraint
        self.bias_constraint = bias_constraint
        self.input_spec = InputSpec(min_ndim=2)
        self.supports_masking = True

    def build(self, input_shape):
        dtype = dtypes.as_dtype(self.dtype or dtypes.float32)
        if not (dtype.is_floating or dtype.is_complex):
            raise TypeError(
                "A Dense layer can only be built with a floating-point dtype. "
                f"Received: dtype=<dtype: '{dtype.name}'>"
            )
        input_shape = TensorShape(input_shape)
        last_dim = input_shape.as_list()[-1] if input_shape.rank else None
        if last_dim is None:
            raise ValueError(
                "The last dimension of the inputs to a Dense layer should be defined. "
                f"Found None. Full input shape received: {input_shape}"
            )
        self.input_spec = InputSpec(min_ndim=2, axes={-1: last_dim})
        self.kernel = self.add_weight(
            "kernel",
            shape=[last_dim, self.units],
            initializer=self.kernel_initializer,
            regularizer=self.kernel_regularizer,
            constraint=self.kernel_constraint,
            dtype=self.dtype,
            trainable=True,
        )
        self.bias = None
        if self.use_bias:
            self.bias = self.add_weight(
                "bias",
                shape=[self.units],
                initializer=self.bias_initializer,
                regularizer=self.bias_regularizer,
                constraint=self.bias_constraint,
                dtype=self.dtype,
                trainable=True,
            )
        self.built = True

    def call(self, inputs):
        from tfcompat.ops import math_ops, nn_ops

        if inputs.dtype.base_dtype != self._dtype:
            inputs = math_ops.cast(inputs, self._dtype)
        rank = inputs.shape.rank
        if rank == 2 or rank is None:
            outputs = math_ops.matmul(inputs, self.kernel)
        else:
            outputs = utils.tensordot_last_axis(inputs, self.kernel)
            outputs.set_shape(inputs.shape.as_list()[:-1] + [self.units])
        if self.use_bias:
            outputs = nn_ops.bias_add(outputs, self.bias)
        if self.activation is not None:
            outputs = self.activation(outputs)
        return outputs

    def compute_output_shape(self, input_shape):
        input_shape = TensorShape(input_shape)
        return TensorShape(input_shape.as_list()[:-1] + [self.units])


@tf_export("layers.dense")
def dense(inputs, units, activation=None, use_bias=True, kernel_initializer=None,
          bias_initializer=_ZEROS, kernel_regularizer=None,
          bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
          bias_constraint=None, trainable=True, name=None, reuse=None):  # fmt: skip
    """Functional ``Dense``: the layer is made with scope ``name`` and ``reuse``."""
    layer = Dense(
        units,
        activation=activation,
        use_bias=use_bias,
        kernel_initializer=kernel_initializer,
        bias_initializer=bias_initializer,
        kernel_regularizer=kernel_regularizer,
        bias_regularizer=bias_regularizer,
        activity_regularizer=activity_regularizer,
        kernel_constraint=kernel_constraint,
        bias_constraint=bias_constraint,
        trainable=trainable,
        name=name,
        _scope=name,
        _reuse=reuse,
    )
    return layer(inputs)


@tf_export("layers.Dropout")
class Dropout(Layer):
    """Zeroes inputs with probability ``rate`` while ``training`` (a Python bool or a bool
    tensor, which selects with ``tf.cond``), scaling the others by ``1 / (1 - rate)``.
    A given ``seed`` is used for the first call and incremented for each further one."""

    def __init__(self, rate=0.5, noise_shape=None, seed=None, name=None, **kwargs):
        super().__init__(name=name, **kwargs)
        if isinstance(rate, (int, float)) and not 0 <= rate <= 1:
            raise ValueError(
                f"Invalid value {rate} received for `rate`, expected a value between 0 and 1."
            )
        self.rate = rate
        self.noise_shape = noise_shape
        self.seed = seed
        self._next_seed = seed
        self.supports_masking = True

    def _make_seed(self):
        seed = self._next_seed
        if seed is not None:
            self._next_seed += 1
        return seed

    def _get_noise_shape(self, inputs):
        if self.noise_shape is None:
            return None
        from tfcompat.framework.op_helper import convert_to_tensor
        from tfcompat.ops import array_ops

        dynamic = array_ops.shape(inputs)
        dims = [dynamic[i] if d is None else d for i, d in enumerate(self.noise_shape)]
        return convert_to_tensor(dims)

    def call(self, inputs, training=False):
        from tfcompat.ops import array_ops, dropout_ops

        if isinstance(self.rate, numbers.Real) and self.rate == 0:
            return array_ops.identity(inputs)

        def dropped():
            return dropout_ops.dropout(
                inputs,
                rate=self.rate,
                noise_shape=self._get_noise_shape(inputs),
                seed=self._make_seed(),
            )

        return utils.smart_cond(training, dropped, lambda: array_ops.identity(inputs))

    def compute_output_shape(self, input_shape):
        return input_shape


@tf_export("layers.dropout")
def dropout(inputs, rate=0.5, noise_shape=None, seed=None, training=False, name=None):
    """Functional ``Dropout``; note that ``training`` defaults to False (no dropout)."""
    layer = Dropout(rate, noise_shape=noise_shape, seed=seed, name=name)
    return layer(inputs, training=training)


@tf_export("layers.Flatten")
class Flatten(Layer):
    """Flattens each example to one dimension: ``[batch, ...] -> [batch, prod(...)]``
    (``channels_first`` inputs are first transposed channels-last, as Keras does)."""

    def __init__(self, data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.data_format = utils.normalize_data_format(data_format)
        self.input_spec = InputSpec(min_ndim=1)
        self._channels_first = self.data_format == "channels_first"

    def call(self, inputs):
        from tfcompat.framework.constant_op import constant
        from tfcompat.ops import array_ops

        rank = inputs.shape.rank
        if self._channels_first and rank and rank > 1:
            inputs = array_ops.transpose(inputs, perm=[0, *range(2, rank), 1])
        if rank == 1:
            return array_ops.expand_dims(inputs, axis=1)
        dims = inputs.shape.as_list()
        if None not in dims[1:]:
            last = int(functools.reduce(operator.mul, dims[1:], 1))
            shape = constant([-1, last])
        elif dims[0] is not None:
            shape = constant([int(dims[0]), -1])
        else:
            shape = [array_ops.shape(inputs)[0], -1]
        return array_ops.reshape(inputs, shape)

    def compute_output_shape(self, input_shape):
        dims = TensorShape(input_shape).as_list()
        rest = dims[1:]
        flat = None if None in rest else int(functools.reduce(operator.mul, rest, 1))
        return TensorShape([dims[0], flat])


@tf_export("layers.flatten")
def flatten(inputs, name=None, data_format="channels_last"):
    """Functional ``Flatten``."""
    return Flatten(name=name, data_format=data_format)(inputs)
