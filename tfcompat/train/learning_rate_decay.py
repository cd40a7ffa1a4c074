"""TF1 learning-rate schedules: functions of the global step built as graph ops.

Each builds the ops TensorFlow's ``tf.compat.v1.train.*_decay`` build (same scopes and
names), so the decayed rate is a Tensor recomputed on every ``Session.run``.
``piecewise_constant`` is the exception: TF builds a ``case`` (conditional branches);
here it is a chain of ``SelectV2`` ops with the same values, which keeps it inside the
device step.
"""

from __future__ import annotations

import math

from tfcompat.framework import dtypes, scopes
from tfcompat.framework.constant_op import constant
from tfcompat.framework.op_helper import convert_to_tensor
from tfcompat.ops import math_ops
from tfcompat.util.tf_export import tf_export


def _initial_and_casts(learning_rate, *values):
    """The ``initial_learning_rate`` tensor and ``values`` cast to its dtype, created in
    that order (TF's node order and names)."""
    initial = convert_to_tensor(learning_rate, name="initial_learning_rate")
    return (initial, *(math_ops.cast(v, initial.dtype) for v in values))


@tf_export("train.exponential_decay")
def exponential_decay(
    learning_rate, global_step, decay_steps, decay_rate, staircase=False, name=None
):
    """``learning_rate * decay_rate ** (global_step / decay_steps)`` (the exponent
    floored when ``staircase``)."""
    if global_step is None:
        raise ValueError("global_step is required for exponential_decay.")
    with scopes.name_scope(name, "ExponentialDecay") as scope:
        initial, decay_steps, decay_rate = _initial_and_casts(
            learning_rate, decay_steps, decay_rate
        )
        dtype = initial.dtype
        p = math_ops.cast(global_step, dtype) / decay_steps
        if staircase:
            p = math_ops.floor(p)
        return math_ops.multiply(initial, math_ops.pow(decay_rate, p), name=scope)


@tf_export("train.natural_exp_decay")
def natural_exp_decay(
    learning_rate, global_step, decay_steps, decay_rate, staircase=False, name=None
):
    """``learning_rate * exp(-decay_rate * global_step / decay_steps)``."""
    natural_rate = math_ops.exp(math_ops.negative(decay_rate))
    return exponential_decay(
        learning_rate, global_step, decay_steps, natural_rate, staircase=staircase, name=name
    )


@tf_export("train.inverse_time_decay")
def inverse_time_decay(
    learning_rate, global_step, decay_steps, decay_rate, staircase=False, name=None
):
    """``learning_rate / (1 + decay_rate * global_step / decay_steps)``."""
    with scopes.name_scope(name, "InverseTimeDecay") as scope:
        initial, decay_steps, decay_rate = _initial_and_casts(
            learning_rate, decay_steps, decay_rate
        )
        dtype = initial.dtype
        p = math_ops.cast(global_step, dtype) / decay_steps
        if staircase:
            p = math_ops.floor(p)
        one = math_ops.cast(constant(1), dtype)
        denom = math_ops.add(one, math_ops.multiply(decay_rate, p))
        return math_ops.divide(initial, denom, name=scope)


@tf_export("train.polynomial_decay")
def polynomial_decay(
    learning_rate,
    global_step,
    decay_steps,
    end_learning_rate=0.0001,
    power=1.0,
    cycle=False,
    name=None,
):
    """Decays from ``learning_rate`` to ``end_learning_rate`` over ``decay_steps`` as
    ``(1 - t)**power``; with ``cycle`` the horizon grows in multiples of ``decay_steps``."""
    with scopes.name_scope(name, "PolynomialDecay") as scope:
        initial = convert_to_tensor(learning_rate, name="initial_learning_rate")
        dtype = initial.dtype
        end = math_ops.cast(end_learning_rate, dtype)
        power = math_ops.cast(power, dtype)
        step = math_ops.cast(global_step, dtype)
        steps = math_ops.cast(decay_steps, dtype)
        if cycle:
            multiplier = math_ops.where_v2(
                math_ops.equal(step, 0), 1.0, math_ops.ceil(step / decay_steps)
            )
            steps = math_ops.multiply(steps, multiplier)
        else:
            step = math_ops.minimum(step, steps)
        p = math_ops.divide(step, steps)
        return math_ops.add(
            math_ops.multiply(initial - end, math_ops.pow(1 - p, power)), end, name=scope
        )


@tf_export("train.cosine_decay")
def cosine_decay(learning_rate, global_step, decay_steps, alpha=0.0, name=None):
    """Half a cosine from ``learning_rate`` down to ``alpha * learning_rate`` over
    ``decay_steps`` (Loshchilov & Hutter), constant afterwards."""
    if global_step is None:
        raise ValueError("cosine decay requires global_step")
    with scopes.name_scope(name, "CosineDecay"):
        initial = convert_to_tensor(learning_rate, name="initial_learning_rate")
        dtype = initial.dtype
        steps = math_ops.cast(decay_steps, dtype)
        step = math_ops.minimum(math_ops.cast(global_step, dtype), steps)
        completed = step / steps
        cosine_decayed = 0.5 * (1.0 + math_ops.cos(constant(math.pi) * completed))
        decayed = (1 - alpha) * cosine_decayed + alpha
        return math_ops.multiply(initial, decayed)


@tf_export("train.cosine_decay_restarts")
def cosine_decay_restarts(
    learning_rate, global_step, first_decay_steps, t_mul=2.0, m_mul=1.0, alpha=0.0, name=None
):
    """Cosine decay with warm restarts (SGDR): the ``i``-th period lasts
    ``first_decay_steps * t_mul**i`` steps and starts from ``learning_rate * m_mul**i``."""
    from tfcompat.ops.control_flow_ops import cond

    if global_step is None:
        raise ValueError("cosine decay restarts requires global_step")
    with scopes.name_scope(name, "SGDRDecay") as scope:
        initial, first_decay_steps, alpha, t_mul, m_mul = _initial_and_casts(
            learning_rate, first_decay_steps, alpha, t_mul, m_mul
        )
        dtype = initial.dtype
        completed_fraction = math_ops.cast(global_step, dtype) / first_decay_steps

        def compute_step(completed_fraction, geometric):
            if geometric:
                i_restart = math_ops.floor(
                    math_ops.log(1.0 - completed_fraction * (1.0 - t_mul)) / math_ops.log(t_mul)
                )
                sum_r = (1.0 - t_mul**i_restart) / (1.0 - t_mul)
                completed_fraction = (completed_fraction - sum_r) / t_mul**i_restart
            else:
                i_restart = math_ops.floor(completed_fraction)
                completed_fraction -= i_restart
            return i_restart, completed_fraction

        # A cond on the (usually constant) t_mul, as TF builds it.
        i_restart, completed_fraction = cond(
            math_ops.equal(t_mul, 1.0),
            lambda: compute_step(completed_fraction, geometric=False),
            lambda: compute_step(completed_fraction, geometric=True),
        )
        m_fac = m_mul**i_restart
        cosine_decayed = (
            0.5 * m_fac * (1.0 + math_ops.cos(constant(math.pi, dtype=dtype) * completed_fraction))
        )
        decayed = (1 - alpha) * cosine_decayed + alpha
        return math_ops.multiply(initial, decayed, name=scope)


@tf_export("train.linear_cosine_decay")
def linear_cosine_decay(
    learning_rate, global_step, decay_steps, num_periods=0.5, alpha=0.0, beta=0.001, name=None
):
    """A cosine of ``num_periods`` periods over ``decay_steps`` times a linear decay
    (Bello et al.): ``learning_rate * ((alpha + linear) * cosine + beta)``."""
    if global_step is None:
        raise ValueError("linear cosine decay requires global_step")
    with scopes.name_scope(name, "LinearCosineDecay") as scope:
        initial, decay_steps, num_periods, alpha, beta = _initial_and_casts(
            learning_rate, decay_steps, num_periods, alpha, beta
        )
        dtype = initial.dtype
        step = math_ops.minimum(math_ops.cast(global_step, dtype), decay_steps)
        linear_decayed = (decay_steps - step) / decay_steps
        fraction = 2.0 * num_periods * (step / decay_steps)
        cosine_decayed = 0.5 * (1.0 + math_ops.cos(constant(math.pi, dtype=dtype) * fraction))
        decayed = (alpha + linear_decayed) * cosine_decayed + beta
        return math_ops.multiply(initial, decayed, name=scope)


@tf_export("train.piecewise_constant", "train.piecewise_constant_decay")
def piecewise_constant(x, boundaries, values, name=None):
    """``values[i]`` for ``boundaries[i-1] < x <= boundaries[i]`` (``values[0]`` up to the
    first boundary, ``values[-1]`` past the last)."""
    boundaries = [convert_to_tensor(b) for b in _flat(boundaries)]
    values = [convert_to_tensor(v) for v in _flat(values)]
    x = convert_to_tensor(x)
    for i, b in enumerate(boundaries):
        if b.dtype.base_dtype != x.dtype.base_dtype:
            if b.dtype.base_dtype == dtypes.int32 and x.dtype.base_dtype == dtypes.int64:
                boundaries[i] = math_ops.cast(b, x.dtype.base_dtype)
            else:
                raise ValueError(
                    f"Boundaries ({b.dtype.base_dtype}) must have the same dtype as x "
                    f"({x.dtype.base_dtype})."
                )
    for v in values[1:]:
        if v.dtype.base_dtype != values[0].dtype.base_dtype:
            raise ValueError(
                "Values must have elements all with the same dtype "
                f"({values[0].dtype.base_dtype} vs {v.dtype.base_dtype})."
            )
    if len(boundaries) != len(values) - 1:
        raise ValueError("The length of boundaries should be 1 less than the length of values")
    with scopes.name_scope(name, "PiecewiseConstant"):
        # The intervals are disjoint, so selecting from the last to the first is exact.
        result = math_ops.where_v2(x > boundaries[-1], values[-1], values[0])
        for low, high, v in zip(boundaries[:-1], boundaries[1:], values[1:-1]):
            in_range = math_ops.logical_and(x > low, x <= high)
            result = math_ops.where_v2(in_range, v, result)
        return result


def _flat(items):
    return list(items) if isinstance(items, (list, tuple)) else [items]
