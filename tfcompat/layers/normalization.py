"""``tf.layers.BatchNormalization`` and ``tf.layers.batch_normalization``, as TF 2.21's
legacy layer (Keras's v1 batch normalization) builds them.

* ``fused`` (None or True) uses ``FusedBatchNormV3`` for 4-D and 5-D inputs normalized over
  axis 1 or the last axis in float16/bfloat16/float32, else the composite
  ``tf.nn.moments`` + ``tf.nn.batch_normalization``; ``fused=False`` always the composite.
* ``training`` is a Python bool or a bool tensor (then both modes are built under
  ``tf.cond``). While training, the moving statistics are updated by
  ``moving -= (moving - batch) * (1 - momentum)`` ops (named ``AssignMovingAvg``) that go to
  ``UPDATE_OPS`` and must be run by the caller, as in TF; the fused path's batch variance
  has Bessel's correction, the composite path's has not.
* ``virtual_batch_size`` (ghost batch norm) reshapes the batch to ``[virtual_batch_size,
  -1, ...]`` and normalizes over the first dimension, as TF's legacy layer does (groups are
  every ``batch / virtual_batch_size``-th example); the moving statistics take the mean of
  the groups' statistics, and the parameters get TF's extra dimension.
* ``renorm`` (batch renormalization) keeps ``moving_stddev``, ``renorm_mean`` and
  ``renorm_stddev`` and corrects the batch statistics by TF's clipped ``r`` and ``d``,
  with TF's graph; ``adjustment`` raises NotImplementedError.
"""

from __future__ import annotations

from tfcompat import initializers
from tfcompat.framework import dtypes, scopes
from tfcompat.framework.tensor_shape import TensorShape
from tfcompat.layers import utils
from tfcompat.layers.base import InputSpec, Layer
from tfcompat.util.tf_export import tf_export

_ZEROS = initializers.zeros_initializer()
_ONES = initializers.ones_initializer()
_FUSED_AXES = (-4, -3, -1, 1, 3, 4)
_FUSED_FORMATS = {(1, 4): "NCHW", (1, 5): "NCDHW", (3, 4): "NHWC", (4, 5): "NDHWC"}


def _validate_axis(axis, input_shape):
    """The axis list with negative axes made non-negative (Keras's ``validate_axis``)."""
    rank = input_shape.rank
    if rank is None:
        raise ValueError(f"Input has undefined rank. Received: input_shape={input_shape}.")
    axes = list(axis) if isinstance(axis, (list, tuple)) else [axis]
    for i, a in enumerate(axes):
        if not -rank <= a < rank:
            raise ValueError(
                "Invalid value for `axis` argument. Expected 0 <= axis < inputs.rank (with "
                f"inputs.rank={rank}). Received: axis={tuple(axes)}"
            )
        axes[i] = a % rank
    if len(axes) != len(set(axes)):
        raise ValueError(f"Duplicate axis: {tuple(axes)}")
    return axes


@tf_export("layers.BatchNormalization")
class BatchNormalization(Layer):
    """Batch normalization: ``gamma * (x - mean) / sqrt(variance + epsilon) + beta`` with
    batch statistics while training and the moving statistics otherwise.

    Variables: ``gamma`` (``scale``), ``beta`` (``center``), and the non-trainable
    ``moving_mean`` and ``moving_variance``.
    """

    def __init__(self, axis=-1, momentum=0.99, epsilon=1e-3, center=True, scale=True,
                 beta_initializer=_ZEROS, gamma_initializer=_ONES,
                 moving_mean_initializer=_ZEROS, moving_variance_initializer=_ONES,
                 beta_regularizer=None, gamma_regularizer=None, beta_constraint=None,
                 gamma_constraint=None, renorm=False, renorm_clipping=None,
                 renorm_momentum=0.99, fused=None, trainable=True, virtual_batch_size=None,
                 adjustment=None, name=None, **kwargs):  # fmt: skip
        super().__init__(name=name, trainable=trainable, **kwargs)
        if isinstance(axis, (list, tuple)):
            self.axis = list(axis)
        elif isinstance(axis, int):
            self.axis = axis
        else:
            raise TypeError(
                "Expected an int or a list/tuple of ints for the argument 'axis', but "
                f"received: {axis!r}"
            )
        if adjustment:
            raise NotImplementedError("tf.layers.BatchNormalization(adjustment=...)")
        if renorm:
            renorm_clipping = renorm_clipping or {}
            keys = ["rmax", "rmin", "dmax"]
            if set(renorm_clipping) - set(keys):
                raise ValueError(
                    "Received invalid keys for `renorm_clipping` argument: "
                    f"{renorm_clipping}. Supported values: {keys}."
                )
            self.renorm_clipping = renorm_clipping
            self.renorm_momentum = renorm_momentum
        self.momentum = momentum
        self.epsilon = epsilon
        self.center = center
        self.scale = scale
        self.beta_initializer = beta_initializer
        self.gamma_initializer = gamma_initializer
        self.moving_mean_initializer = moving_mean_initializer
        self.moving_variance_initializer = moving_variance_initializer
        self.beta_regularizer = beta_regularizer
        self.gamma_regularizer = gamma_regularizer
        self.beta_constraint = beta_constraint
        self.gamma_constraint = gamma_constraint
        self.renorm = renorm
        self.virtual_batch_size = virtual_batch_size
        self.fused = True if fused is None else fused  # v1: decided again in build
        self.supports_masking = True

    @property
    def _param_dtype(self):
        """Statistics and parameters of half-precision layers are float32."""
        dtype = dtypes.as_dtype(self.dtype or dtypes.float32)
        return dtypes.float32 if dtype in (dtypes.float16, dtypes.bfloat16) else dtype

    def _fused_can_be_used(self):
        return (
            len(self.axis) == 1
            and not self.renorm
            and self.virtual_batch_size is None
            and self.axis[0] in _FUSED_AXES
            and self.dtype in ("float16", "bfloat16", "float32", None)
        )

    def build(self, input_shape):
        input_shape = TensorShape(input_shape)
        self.axis = _validate_axis(self.axis, input_shape)
        rank = input_shape.rank
        if self.virtual_batch_size is not None:
            if self.virtual_batch_size <= 0:
                raise ValueError(
                    "`virtual_batch_size` must be a positive integer that divides the true "
                    "batch size of the input tensor. Received: "
                    f"virtual_batch_size={self.virtual_batch_size}"
                )
            if 0 in self.axis:
                raise ValueError(
                    "When using `virtual_batch_size`, the batch dimension must be 0 and thus "
                    f"axis cannot include 0. Received axis={self.axis}"
                )
        if self.fused:
            self.fused = rank in (4, 5) and self._fused_can_be_used()
        if self.fused:
            self._data_format = _FUSED_FORMATS.get((self.axis[0], rank))
            if self._data_format is None:
                self.fused = False  # a 5-D input normalized over another axis
        dims = input_shape.as_list()
        axis_to_dim = {a: dims[a] for a in self.axis}
        for dim in axis_to_dim.values():
            if dim is None:
                raise ValueError(
                    f"Input has undefined `axis` dimension. Received input with shape "
                    f"{utils.dims_text(input_shape)} and axis={tuple(self.axis)}"
                )
        self.input_spec = InputSpec(ndim=rank, axes=axis_to_dim)
        if len(axis_to_dim) == 1 and self.virtual_batch_size is None:
            param_shape = (next(iter(axis_to_dim.values())),)
        else:
            param_shape = [axis_to_dim.get(i, 1) for i in range(rank)]
            if self.virtual_batch_size is not None:
                # the ghost batches' dimension, inserted at 1, moves the axes by one
                param_shape.insert(1, 1)
                self.axis = [a + 1 for a in self.axis]
        self._param_shape = param_shape
        self.gamma = self._param("gamma", self.scale, self.gamma_initializer,
                                 self.gamma_regularizer, self.gamma_constraint)  # fmt: skip
        self.beta = self._param("beta", self.center, self.beta_initializer,
                                self.beta_regularizer, self.beta_constraint)  # fmt: skip
        # TF keeps the moving statistics unpartitioned.
        partitioner = self._scope.partitioner if self._scope else None
        if partitioner:
            self._scope.set_partitioner(None)
        try:
            self.moving_mean = self._moving("moving_mean", self.moving_mean_initializer)
            self.moving_variance = self._moving("moving_variance", self.moving_variance_initializer)
            if self.renorm:
                self._build_renorm()
        finally:
            if partitioner:
                self._scope.set_partitioner(partitioner)
        self.built = True

    def _build_renorm(self):
        """Batch renormalization's variables: the inference ``moving_stddev`` (the square
        root of the moving variance's initial value) and the training-time ``renorm_mean``
        and ``renorm_stddev``, colocated as TF colocates them."""
        from tfcompat.ops import unary_math_ops

        def stddev_initializer(*args, **kwargs):
            return unary_math_ops.sqrt(self.moving_variance_initializer(*args, **kwargs))

        with scopes.colocate_with(self.moving_variance):
            self.moving_stddev = self._moving("moving_stddev", stddev_initializer)
        with scopes.colocate_with(self.moving_mean):
            self.renorm_mean = self._moving("renorm_mean", self.moving_mean_initializer)
        with scopes.colocate_with(self.moving_stddev):
            self.renorm_stddev = self._moving("renorm_stddev", stddev_initializer)

    def _renorm_correction_and_moments(self, mean, variance, training):
        """TF's corrections ``r = stddev / renorm_stddev`` and ``d = (mean - renorm_mean) /
        renorm_stddev`` (clipped by ``renorm_clipping``; 1 and 0 when not training) from the
        pre-update renorm statistics, which are then moved towards the batch's."""
        from tfcompat.ops import array_ops, math_ops, unary_math_ops

        stddev = unary_math_ops.sqrt(variance + self.epsilon)
        renorm_mean = self.renorm_mean
        renorm_stddev = math_ops.maximum(self.renorm_stddev, unary_math_ops.sqrt(self.epsilon))
        r = stddev / renorm_stddev
        d = (mean - renorm_mean) / renorm_stddev
        with scopes.control_dependencies([r, d]):
            mean = array_ops.identity(mean)
            stddev = array_ops.identity(stddev)
        rmin, rmax, dmax = [self.renorm_clipping.get(k) for k in ("rmin", "rmax", "dmax")]
        if rmin is not None:
            r = math_ops.maximum(r, rmin)
        if rmax is not None:
            r = math_ops.minimum(r, rmax)
        if dmax is not None:
            d = math_ops.maximum(d, -dmax)
            d = math_ops.minimum(d, dmax)
        r = utils.smart_cond(training, lambda: r, lambda: array_ops.ones_like_v2(r))
        d = utils.smart_cond(training, lambda: d, lambda: array_ops.zeros_like(d))

        def update(variable, value):
            value = array_ops.identity(value)
            return utils.smart_cond(
                training,
                lambda: self._assign_moving_average(variable, value, self.renorm_momentum),
                lambda: array_ops.identity(variable),
            )

        update_mean = update(self.renorm_mean, mean)
        update_stddev = update(self.renorm_stddev, stddev)
        with scopes.control_dependencies([update_mean, update_stddev]):
            out_mean = array_ops.identity(mean)
            out_variance = array_ops.identity(variance)
        return r, d, out_mean, out_variance

    def _param(self, name, enabled, initializer, regularizer, constraint):
        if not enabled:
            return None
        return self.add_weight(
            name=name,
            shape=self._param_shape,
            dtype=self._param_dtype,
            initializer=initializer,
            regularizer=regularizer,
            constraint=constraint,
            trainable=True,
            experimental_autocast=False,
        )

    def _moving(self, name, initializer):
        return self.add_weight(
            name=name,
            shape=self._param_shape,
            dtype=self._param_dtype,
            initializer=initializer,
            synchronization="ON_READ",
            trainable=False,
            experimental_autocast=False,
        )

    # -- computing ------------------------------------------------------------------------
    def call(self, inputs, training=False):
        from tfcompat.ops import math_ops

        inputs = math_ops.cast(inputs, self._dtype or inputs.dtype.base_dtype)
        if self.fused:
            return self._fused_batch_norm(inputs, training)
        if self.virtual_batch_size is None:
            return self._composite_batch_norm(inputs, training)
        from tfcompat.framework.constant_op import constant
        from tfcompat.ops import array_ops

        original_shape = array_ops.shape(inputs)
        original_shape = array_ops.concat([constant([-1]), original_shape[1:]], axis=0)
        expanded_shape = array_ops.concat(
            [constant([self.virtual_batch_size, -1]), original_shape[1:]], axis=0
        )
        outputs = self._composite_batch_norm(array_ops.reshape(inputs, expanded_shape), training)
        return array_ops.reshape(outputs, original_shape)

    def _assign_moving_average(self, variable, value, momentum):
        """``variable -= (variable - value) * (1 - momentum)``, named ``AssignMovingAvg``."""
        from tfcompat.framework.op_helper import convert_to_tensor
        from tfcompat.ops import math_ops, state_ops

        with scopes.name_scope(None, "AssignMovingAvg") as scope:
            with scopes.colocate_with(variable):
                decay = convert_to_tensor(1.0 - momentum, name="decay")
                base = variable.dtype.base_dtype
                if decay.dtype != base:
                    decay = math_ops.cast(decay, base)
                delta = (variable - math_ops.cast(value, base)) * decay
                return state_ops.assign_sub(variable, delta, name=scope)

    def _fused_batch_norm(self, inputs, training):
        from tfcompat.framework.constant_op import constant
        from tfcompat.framework.op_helper import convert_to_tensor
        from tfcompat.ops import batch_norm_ops

        def constant_param(value):
            return constant(value, dtype=self._param_dtype, shape=self._param_shape)

        beta = self.beta if self.center else constant_param(0.0)
        gamma = self.gamma if self.scale else constant_param(1.0)

        def fused(is_training):
            return batch_norm_ops.fused_batch_norm(
                inputs, gamma, beta, mean=self.moving_mean, variance=self.moving_variance,
                epsilon=self.epsilon, is_training=is_training, data_format=self._data_format,
            )  # fmt: skip

        output, mean, variance = utils.smart_cond(
            training, lambda: fused(True), lambda: fused(False)
        )
        training_value = utils.constant_value(training)
        if training_value or training_value is None:
            if training_value is None:
                momentum = utils.smart_cond(training, lambda: self.momentum, lambda: 1.0)
            else:
                momentum = convert_to_tensor(self.momentum)
            self.add_update(lambda: self._assign_moving_average(self.moving_mean, mean, momentum))
            self.add_update(
                lambda: self._assign_moving_average(self.moving_variance, variance, momentum)
            )
        return output

    def _composite_batch_norm(self, inputs, training):
        from tfcompat.framework.op_helper import convert_to_tensor
        from tfcompat.ops import (
            activation_ops,
            array_ops,
            batch_norm_ops,
            math_ops,
            nn_impl,
            reduction_ops,
            state_ops,
            unary_math_ops,
        )

        inputs_dtype = inputs.dtype.base_dtype
        if inputs_dtype in (dtypes.float16, dtypes.bfloat16):
            inputs = math_ops.cast(inputs, dtypes.float32)
        input_shape = inputs.shape
        ndims = input_shape.rank
        reduction_axes = [i for i in range(ndims) if i not in self.axis]
        if self.virtual_batch_size is not None:
            del reduction_axes[1]  # each ghost batch has its own statistics
        broadcast_shape = [1] * ndims
        broadcast_shape[self.axis[0]] = input_shape.as_list()[self.axis[0]]

        def broadcast(v):
            # Per-channel vectors broadcast by themselves unless the channel axis is not last.
            if (v is not None and len(v.shape) != ndims
                    and reduction_axes != list(range(ndims - 1))):  # fmt: skip
                return array_ops.reshape(v, broadcast_shape)
            return v

        scale, offset = broadcast(self.gamma), broadcast(self.beta)
        training_value = utils.constant_value(training)
        if training_value is False:
            mean, variance = self.moving_mean, self.moving_variance
        else:
            batch_mean, batch_variance = nn_impl.moments(
                math_ops.cast(inputs, self._param_dtype),
                reduction_axes,
                keep_dims=self.virtual_batch_size is not None or len(self.axis) > 1,
            )
            moving_mean, moving_variance = self.moving_mean, self.moving_variance
            mean = utils.smart_cond(
                training, lambda: batch_mean, lambda: convert_to_tensor(moving_mean)
            )
            variance = utils.smart_cond(
                training, lambda: batch_variance, lambda: convert_to_tensor(moving_variance)
            )
            new_mean, new_variance = mean, variance
            if self.virtual_batch_size is not None:
                # one update from the mean of the ghost batches' statistics, as TF
                new_mean = reduction_ops.reduce_mean(mean, axis=1, keepdims=True)
                new_variance = reduction_ops.reduce_mean(variance, axis=1, keepdims=True)
            if self.renorm:
                r, d, new_mean, new_variance = self._renorm_correction_and_moments(
                    new_mean, new_variance, training
                )
                # (x * r + d) * gamma + beta = x * (r * gamma) + (d * gamma + beta)
                r = broadcast(array_ops.stop_gradient(r, name="renorm_r"))
                d = broadcast(array_ops.stop_gradient(d, name="renorm_d"))
                if scale is not None:
                    r, d = r * scale, d * scale
                if offset is not None:
                    d += offset
                scale, offset = r, d

            def update(variable, value):
                return utils.smart_cond(
                    training,
                    lambda: self._assign_moving_average(variable, value, self.momentum),
                    lambda: variable,
                )

            def renorm_variance_update():
                # the moving stddev (epsilon included, as in training) gives the variance
                stddev = self._assign_moving_average(
                    self.moving_stddev,
                    unary_math_ops.sqrt(new_variance + self.epsilon),
                    self.momentum,
                )
                value = activation_ops.relu(stddev * stddev - self.epsilon)
                with scopes.name_scope(None, "AssignNewValue") as scope:
                    with scopes.colocate_with(self.moving_variance):
                        return state_ops.assign(self.moving_variance, value, name=scope)

            self.add_update(lambda: update(self.moving_mean, new_mean))
            if self.renorm:
                self.add_update(
                    lambda: utils.smart_cond(
                        training, renorm_variance_update, lambda: self.moving_variance
                    )
                )
            else:
                self.add_update(lambda: update(self.moving_variance, new_variance))
        mean = math_ops.cast(mean, inputs.dtype)
        variance = math_ops.cast(variance, inputs.dtype)
        if offset is not None:
            offset = math_ops.cast(offset, inputs.dtype)
        if scale is not None:
            scale = math_ops.cast(scale, inputs.dtype)
        outputs = batch_norm_ops.batch_normalization(
            inputs, broadcast(mean), broadcast(variance), offset, scale, self.epsilon
        )
        if inputs_dtype in (dtypes.float16, dtypes.bfloat16):
            outputs = math_ops.cast(outputs, inputs_dtype)
        outputs.set_shape(input_shape)
        return outputs

    def compute_output_shape(self, input_shape):
        return input_shape


@tf_export("layers.batch_normalization")
def batch_normalization(inputs, axis=-1, momentum=0.99, epsilon=1e-3, center=True,
                        scale=True, beta_initializer=_ZEROS, gamma_initializer=_ONES,
                        moving_mean_initializer=_ZEROS, moving_variance_initializer=_ONES,
                        beta_regularizer=None, gamma_regularizer=None, beta_constraint=None,
                        gamma_constraint=None, training=False, trainable=True, name=None,
                        reuse=None, renorm=False, renorm_clipping=None, renorm_momentum=0.99,
                        fused=None, virtual_batch_size=None, adjustment=None):  # fmt: skip
    """Functional ``BatchNormalization``. While training, run the ops in
    ``tf.GraphKeys.UPDATE_OPS`` (for instance as control dependencies of the train op) to
    update the moving statistics."""
    layer = BatchNormalization(
        axis=axis, momentum=momentum, epsilon=epsilon, center=center, scale=scale,
        beta_initializer=beta_initializer, gamma_initializer=gamma_initializer,
        moving_mean_initializer=moving_mean_initializer,
        moving_variance_initializer=moving_variance_initializer,
        beta_regularizer=beta_regularizer, gamma_regularizer=gamma_regularizer,
        beta_constraint=beta_constraint, gamma_constraint=gamma_constraint, renorm=renorm,
        renorm_clipping=renorm_clipping, renorm_momentum=renorm_momentum, fused=fused,
        trainable=trainable, virtual_batch_size=virtual_batch_size, adjustment=adjustment,
        name=name, _reuse=reuse, _scope=name,
    )  # fmt: skip
    return layer(inputs, training=training)
