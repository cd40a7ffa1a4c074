"""Weights against values: the broadcast check and broadcast that losses and metrics share.

Weights may be a scalar, or of the values' rank with each dimension 1 or the values' size.
Where both shapes are static the check happens at graph construction (a ``NoOp`` marks
success, a ``ValueError`` reports failure), as TF does; otherwise an ``Assert`` checks at run
time, with TF's set-difference test of the dimensions (a host op, in a ``tf.cond``).
"""

from __future__ import annotations

from tfcompat.framework.constant_value import constant_value
from tfcompat.framework.op_helper import convert_to_tensor
from tfcompat.framework.scopes import control_dependencies, name_scope
from tfcompat.ops import array_ops, control_flow_ops, math_ops
from tfcompat.ops.checks import Assert
from tfcompat.ops.cond import cond

_ERROR_PREFIX = "weights can not be broadcast to values."


def _shape_and_rank(tensor, scope):
    """Converts ``tensor`` (named ``scope``) and adds its ``shape`` and ``rank`` ops."""
    tensor = convert_to_tensor(tensor, name=scope)
    return tensor, array_ops.shape(tensor, name="shape"), array_ops.rank(tensor, name="rank")


def assert_broadcastable(weights, values):
    """An op that checks that ``weights`` broadcast to ``values`` (TF's
    ``weights_broadcast_ops.assert_broadcastable``)."""
    with name_scope(None, "assert_broadcastable", (weights, values)) as scope:
        with name_scope(None, "weights", (weights,)) as weights_scope:
            weights, weights_shape, weights_rank = _shape_and_rank(weights, weights_scope)
        with name_scope(None, "values", (values,)) as values_scope:
            values, values_shape, values_rank = _shape_and_rank(values, values_scope)
        w_rank, v_rank = constant_value(weights_rank), constant_value(values_rank)
        if w_rank is not None and v_rank is not None:
            if w_rank == 0:
                return control_flow_ops.no_op(name="static_scalar_check_success")
            if w_rank != v_rank:
                raise ValueError(
                    f"{_ERROR_PREFIX} values.rank={v_rank}. weights.rank={w_rank}. "
                    f"values.shape={values.shape}. weights.shape={weights.shape}. "
                    f"Received weights={weights}, values={values}"
                )
            w_dims, v_dims = constant_value(weights_shape), constant_value(values_shape)
            if w_dims is not None and v_dims is not None:
                for i, (w, v) in enumerate(zip(w_dims, v_dims)):
                    if w not in (1, v):
                        raise ValueError(
                            f"{_ERROR_PREFIX} Mismatch at dim {i}. values.shape={v_dims}, "
                            f"weights.shape={w_dims}. Received weights={weights}, "
                            f"values={values}"
                        )
                return control_flow_ops.no_op(name="static_dims_check_success")
        return _assert_broadcastable_at_run_time(
            weights, weights_shape, weights_rank, values, values_shape, values_rank, scope
        )


def _has_valid_dims(weights_shape, values_shape):
    """Whether each weights dimension is 1 or the values' one: the set difference of the
    weights dims and the ``(value dim, 1)`` pairs, per dimension, is empty."""
    from tfcompat.ops import join_ops, sets_ops

    with name_scope(None, "has_invalid_dims", (weights_shape, values_shape)) as scope:
        values_shape_2d = array_ops.expand_dims(values_shape, -1)
        valid_dims = join_ops.concat((values_shape_2d, array_ops.ones_like(values_shape_2d)), 1)
        weights_shape_2d = array_ops.expand_dims(weights_shape, -1)
        invalid_dims = sets_ops.set_difference(weights_shape_2d, valid_dims)
        num_invalid_dims = array_ops.size(invalid_dims.values, name="num_invalid_dims")
        return math_ops.equal(0, num_invalid_dims, name=scope)


def _has_valid_nonscalar_shape(weights_rank, weights_shape, values_rank, values_shape):
    with name_scope(
        None,
        "has_valid_nonscalar_shape",
        (weights_rank, weights_shape, values_rank, values_shape),
    ) as scope:
        is_same_rank = math_ops.equal(values_rank, weights_rank, name="is_same_rank")
        return cond(
            is_same_rank,
            lambda: _has_valid_dims(weights_shape, values_shape),
            lambda: is_same_rank,
            name=scope,
        )


def _assert_broadcastable_at_run_time(
    weights, weights_shape, weights_rank, values, values_shape, values_rank, scope
):
    """An ``Assert`` that weights are a scalar or of the values' rank with each dimension 1
    or the values' one (TF's graph: set ops in a ``tf.cond``)."""
    is_scalar = math_ops.equal(0, weights_rank, name="is_scalar")
    data = (
        _ERROR_PREFIX,
        "weights.shape=",
        weights.name,
        weights_shape,
        "values.shape=",
        values.name,
        values_shape,
        "is_scalar=",
        is_scalar,
    )
    is_valid_shape = cond(
        is_scalar,
        lambda: is_scalar,
        lambda: _has_valid_nonscalar_shape(weights_rank, weights_shape, values_rank, values_shape),
        name="is_valid_shape",
    )
    return Assert(is_valid_shape, data, name=scope)


def broadcast_weights(weights, values):
    """``weights`` broadcast to the shape of ``values`` (``weights * ones_like(values)``
    after the broadcast check; unchanged when both static shapes already agree)."""
    with name_scope(None, "broadcast_weights", (weights, values)) as scope:
        values = convert_to_tensor(values, name="values")
        weights = convert_to_tensor(weights, dtype=values.dtype.base_dtype, name="weights")
        w_shape, v_shape = weights.shape, values.shape
        if w_shape.is_fully_defined() and v_shape.is_fully_defined():
            if w_shape.is_compatible_with(v_shape):
                return weights
        with control_dependencies((assert_broadcastable(weights, values),)):
            return math_ops.multiply(weights, array_ops.ones_like(values), name=scope)
