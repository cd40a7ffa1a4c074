"""TF1 initializers (TF's ``init_ops``): ``tf.zeros_initializer`` ... and ``tf.initializers.*``.

An initializer is a callable ``init(shape, dtype=None, partition_info=None)`` that builds
the ops computing an initial value; ``tf.get_variable`` calls it under the variable's
``Initializer`` name scope. ``partition_info`` (a shard's place in a partitioned variable)
makes the scaling initializers use the full variable's shape, as in TF.
"""

from __future__ import annotations

import math

import numpy as np

from tfcompat.framework import constant_op, dtypes, tensor_shape
from tfcompat.framework.scopes import name_scope
from tfcompat.ops import array_ops, gather_ops, random_ops, slicing_ops, unary_math_ops
from tfcompat.util.tf_export import tf_export


def _assert_float_dtype(dtype):
    if not dtype.is_floating:
        raise ValueError(f"Argument `dtype` is expected to be floating point. Received: {dtype}.")
    return dtype


def _compute_fans(shape):
    """(fan_in, fan_out) of a weight shape; convolution kernels count their receptive field."""
    if len(shape) < 1:
        fan_in = fan_out = 1
    elif len(shape) == 1:
        fan_in = fan_out = shape[0]
    elif len(shape) == 2:
        fan_in, fan_out = shape
    else:
        receptive_field = int(np.prod([int(d) for d in shape[:-2]]))
        fan_in = shape[-2] * receptive_field
        fan_out = shape[-1] * receptive_field
    return int(fan_in), int(fan_out)


def _full_shape(shape, partition_info):
    return shape if partition_info is None else partition_info.full_shape


class Initializer:
    """Base class: ``__call__(shape, dtype=None, partition_info=None)`` returns a Tensor."""

    def __call__(self, shape, dtype=None, partition_info=None):
        raise NotImplementedError

    def get_config(self):
        return {}

    @classmethod
    def from_config(cls, config):
        return cls(**config)


@tf_export("initializers.zeros", "zeros_initializer")
class Zeros(Initializer):
    """Initializes to 0."""

    def __init__(self, dtype=dtypes.float32):
        self.dtype = dtypes.as_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        return array_ops.zeros(shape, dtype or self.dtype)

    def get_config(self):
        return {"dtype": self.dtype.name}


@tf_export("initializers.ones", "ones_initializer")
class Ones(Initializer):
    """Initializes to 1."""

    def __init__(self, dtype=dtypes.float32):
        self.dtype = dtypes.as_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        return array_ops.ones(shape, dtype or self.dtype)

    def get_config(self):
        return {"dtype": self.dtype.name}


@tf_export("initializers.constant", "constant_initializer")
class Constant(Initializer):
    """Initializes to ``value``: a scalar fills the shape; a list or array must have as many
    elements as the shape (exactly its shape when ``verify_shape``)."""

    def __init__(self, value=0, dtype=dtypes.float32, verify_shape=False):
        if not (np.isscalar(value) or isinstance(value, (list, tuple, np.ndarray))):
            raise TypeError(
                f"Invalid type for initial value={value} of type: {type(value).__name__}. "
                "Expected Python scalar, list or tuple of values, or numpy.ndarray."
            )
        self.value = value
        self.dtype = dtypes.as_dtype(dtype)
        self._verify_shape = verify_shape

    def __call__(self, shape, dtype=None, partition_info=None, verify_shape=None):
        if verify_shape is None:
            verify_shape = self._verify_shape
        return constant_op.constant(
            self.value, dtype=dtype or self.dtype, shape=shape, verify_shape=verify_shape
        )

    def get_config(self):
        return {"value": self.value, "dtype": self.dtype.name}


@tf_export("initializers.random_uniform", "random_uniform_initializer")
class RandomUniform(Initializer):
    """Uniform in ``[minval, maxval)`` (``maxval`` defaults to 1 for floats)."""

    def __init__(self, minval=0.0, maxval=None, seed=None, dtype=dtypes.float32):
        self.minval, self.maxval, self.seed = minval, maxval, seed
        self.dtype = dtypes.as_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        return random_ops.random_uniform(
            shape, self.minval, self.maxval, dtype or self.dtype, seed=self.seed
        )

    def get_config(self):
        return {
            "minval": self.minval,
            "maxval": self.maxval,
            "seed": self.seed,
            "dtype": self.dtype.name,
        }


class _MeanStddev(Initializer):
    """Shared by the normal initializers: ``mean``, ``stddev``, ``seed``, a float dtype."""

    _sample = None  # the random_ops wrapper

    def __init__(self, mean=0.0, stddev=1.0, seed=None, dtype=dtypes.float32):
        self.mean, self.stddev, self.seed = mean, stddev, seed
        self.dtype = _assert_float_dtype(dtypes.as_dtype(dtype))

    def __call__(self, shape, dtype=None, partition_info=None):
        sample = type(self)._sample
        return sample(shape, self.mean, self.stddev, dtype or self.dtype, seed=self.seed)

    def get_config(self):
        return {
            "mean": self.mean,
            "stddev": self.stddev,
            "seed": self.seed,
            "dtype": self.dtype.name,
        }


@tf_export("initializers.random_normal", "random_normal_initializer")
class RandomNormal(_MeanStddev):
    """Normal(mean, stddev)."""

    _sample = staticmethod(random_ops.random_normal)


@tf_export("initializers.truncated_normal", "truncated_normal_initializer")
class TruncatedNormal(_MeanStddev):
    """Normal(mean, stddev) redrawn beyond two standard deviations."""

    _sample = staticmethod(random_ops.truncated_normal)


@tf_export("initializers.uniform_unit_scaling", "uniform_unit_scaling_initializer")
class UniformUnitScaling(Initializer):
    """Uniform in ``±factor * sqrt(3 / input_size)`` (deprecated in TF; kept for old code)."""

    def __init__(self, factor=1.0, seed=None, dtype=dtypes.float32):
        self.factor, self.seed = factor, seed
        self.dtype = _assert_float_dtype(dtypes.as_dtype(dtype))

    def __call__(self, shape, dtype=None, partition_info=None):
        input_size = 1.0
        for dim in _full_shape(shape, partition_info)[:-1]:
            input_size *= float(dim)
        max_val = math.sqrt(3 / max(input_size, 1.0)) * self.factor
        return random_ops.random_uniform(
            shape, -max_val, max_val, dtype or self.dtype, seed=self.seed
        )

    def get_config(self):
        return {"factor": self.factor, "seed": self.seed, "dtype": self.dtype.name}


# The standard deviation of a unit normal truncated to [-2, 2]: TF divides by it so that
# the truncated samples have the intended variance.
_TRUNCATED_STDDEV = 0.87962566103423978
_MODES = ("fan_in", "fan_out", "fan_avg")
_DISTRIBUTIONS = ("normal", "uniform", "truncated_normal", "untruncated_normal")


@tf_export("initializers.variance_scaling", "variance_scaling_initializer")
class VarianceScaling(Initializer):
    """Samples with variance ``scale / n``, ``n`` the fan-in, fan-out or their mean."""

    def __init__(
        self,
        scale=1.0,
        mode="fan_in",
        distribution="truncated_normal",
        seed=None,
        dtype=dtypes.float32,
    ):
        if scale <= 0.0:
            raise ValueError(f"Argument `scale` must be a positive float. Received: {scale}")
        if mode not in _MODES:
            raise ValueError(
                f"Argument `mode` should be one of ('fan_in', 'fan_out', 'fan_avg'). "
                f"Received: {mode}"
            )
        distribution = distribution.lower()
        if distribution not in _DISTRIBUTIONS:
            raise ValueError(
                "Argument `distribution` should be one of ('normal', uniform', "
                f"'truncated_normal', 'untruncated_normal'). Received: {distribution}"
            )
        self.scale, self.mode, self.distribution, self.seed = scale, mode, distribution, seed
        self.dtype = _assert_float_dtype(dtypes.as_dtype(dtype))

    def _variance(self, shape):
        fan_in, fan_out = _compute_fans(shape)
        fan = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2.0}
        return self.scale / max(1.0, fan[self.mode])

    def __call__(self, shape, dtype=None, partition_info=None):
        dtype = dtype or self.dtype
        variance = self._variance(_full_shape(shape, partition_info))
        if self.distribution in ("normal", "truncated_normal"):
            stddev = math.sqrt(variance) / _TRUNCATED_STDDEV
            return random_ops.truncated_normal(shape, 0.0, stddev, dtype, seed=self.seed)
        if self.distribution == "untruncated_normal":
            stddev = math.sqrt(variance)
            return random_ops.random_normal(shape, 0.0, stddev, dtype, seed=self.seed)
        limit = math.sqrt(3.0 * variance)
        return random_ops.random_uniform(shape, -limit, limit, dtype, seed=self.seed)

    def get_config(self):
        return {
            "scale": self.scale,
            "mode": self.mode,
            "distribution": self.distribution,
            "seed": self.seed,
            "dtype": self.dtype.name,
        }


@tf_export("glorot_uniform_initializer", "initializers.glorot_uniform")
class GlorotUniform(VarianceScaling):
    """Uniform with variance ``1 / fan_avg`` (Glorot & Bengio)."""

    def __init__(self, seed=None, dtype=dtypes.float32):
        super().__init__(scale=1.0, mode="fan_avg", distribution="uniform", seed=seed)

    def get_config(self):
        return {"seed": self.seed, "dtype": self.dtype.name}


@tf_export("glorot_normal_initializer", "initializers.glorot_normal")
class GlorotNormal(VarianceScaling):
    """Truncated normal with variance ``1 / fan_avg`` (Glorot & Bengio)."""

    def __init__(self, seed=None, dtype=dtypes.float32):
        super().__init__(scale=1.0, mode="fan_avg", distribution="truncated_normal", seed=seed)

    def get_config(self):
        return {"seed": self.seed, "dtype": self.dtype.name}


@tf_export("initializers.lecun_normal")
def lecun_normal(seed=None):
    return VarianceScaling(scale=1.0, mode="fan_in", distribution="truncated_normal", seed=seed)


@tf_export("initializers.lecun_uniform")
def lecun_uniform(seed=None):
    return VarianceScaling(scale=1.0, mode="fan_in", distribution="uniform", seed=seed)


@tf_export("initializers.he_normal")
def he_normal(seed=None):
    return VarianceScaling(scale=2.0, mode="fan_in", distribution="truncated_normal", seed=seed)


@tf_export("initializers.he_uniform")
def he_uniform(seed=None):
    return VarianceScaling(scale=2.0, mode="fan_in", distribution="uniform", seed=seed)


@tf_export("initializers.orthogonal", "orthogonal_initializer")
class Orthogonal(Initializer):
    """A (semi-)orthogonal matrix, reshaped to ``shape``: the Q of a normal sample's QR
    decomposition, with signs fixed by R's diagonal so it is uniformly distributed."""

    def __init__(self, gain=1.0, seed=None, dtype=dtypes.float32):
        self.gain, self.seed = gain, seed
        self.dtype = _assert_float_dtype(dtypes.as_dtype(dtype))

    def __call__(self, shape, dtype=None, partition_info=None):
        dtype = dtype or self.dtype
        if len(shape) < 2:
            raise ValueError(
                "The tensor to initialize, specified by argument `shape` must be at least "
                f"two-dimensional. Received shape={shape}"
            )
        num_rows = int(np.prod([int(d) for d in shape[:-1]]))
        num_cols = int(shape[-1])
        flat_shape = (max(num_rows, num_cols), min(num_rows, num_cols))
        sample = random_ops.random_normal(flat_shape, dtype=dtype, seed=self.seed)
        q, r = random_ops.qr(sample, full_matrices=False)
        q *= unary_math_ops.sign(gather_ops.tensor_diag_part(r))
        if num_rows < num_cols:
            q = _matrix_transpose(q)
        return self.gain * array_ops.reshape(q, shape)

    def get_config(self):
        return {"gain": self.gain, "seed": self.seed, "dtype": self.dtype.name}


def _matrix_transpose(x):
    with name_scope(None, "matrix_transpose", [x]):
        return array_ops.transpose(x, [1, 0])


@tf_export("initializers.identity")
class Identity(Initializer):
    """``gain`` times the identity matrix (2-D shapes only)."""

    def __init__(self, gain=1.0, dtype=dtypes.float32):
        self.gain = gain
        self.dtype = _assert_float_dtype(dtypes.as_dtype(dtype))

    def __call__(self, shape, dtype=None, partition_info=None):
        full_shape = _full_shape(shape, partition_info)
        if len(full_shape) != 2:
            raise ValueError(
                "The tensor to initialize, specified by argument `shape` must be at least "
                f"two-dimensional. Received shape={shape}"
            )
        if isinstance(full_shape, tensor_shape.TensorShape):
            full_shape = full_shape.as_list()
        initializer = _eye(*full_shape, dtype=dtype or self.dtype)
        if partition_info is not None:
            initializer = slicing_ops.slice(initializer, partition_info.var_offset, shape)
        return self.gain * initializer


def _eye(num_rows, num_columns, dtype):
    """The identity matrix, built as TF's ``eye`` builds it when square (``MatrixDiagV3`` of
    ones); a rectangular one uses ``MatrixDiagV3``'s ``num_rows``/``num_cols`` where TF
    would set the diagonal of a zero matrix."""
    with name_scope(None, "eye", [num_rows, num_columns]):
        size = min(num_rows, num_columns)
        ones = array_ops.ones([size], dtype)
        if num_rows == num_columns:
            return gather_ops.matrix_diag(ones)
        return gather_ops.matrix_diag(ones, num_rows=num_rows, num_cols=num_columns)


zeros_initializer = Zeros
ones_initializer = Ones
constant_initializer = Constant
random_uniform_initializer = RandomUniform
random_normal_initializer = RandomNormal
truncated_normal_initializer = TruncatedNormal
uniform_unit_scaling_initializer = UniformUnitScaling
variance_scaling_initializer = VarianceScaling
glorot_uniform_initializer = GlorotUniform
glorot_normal_initializer = GlorotNormal
orthogonal_initializer = Orthogonal
identity_initializer = Identity

# Names TF's tf.initializers namespace has besides the classes.
zeros = Zeros
ones = Ones
constant = Constant
random_uniform = RandomUniform
random_normal = RandomNormal
truncated_normal = TruncatedNormal
uniform_unit_scaling = UniformUnitScaling
variance_scaling = VarianceScaling
glorot_uniform = GlorotUniform
glorot_normal = GlorotNormal
orthogonal = Orthogonal
identity = Identity
