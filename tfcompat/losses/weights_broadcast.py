"""Weights against values: the broadcast check and broadcast that losses and metrics share.

Weights may be a scalar, or of the values' rank with each dimension 1 or the values' size.
Where both shapes are static the check happens at graph construction (a ``NoOp`` marks
success, a ``ValueError`` reports failure), as TF does; the run-time form needs set ops
(``DenseToDenseSetOperation``) that tfcompat does not lower, so it is refused clearly.
"""

from __future__ import annotations

from tfcompat.framework.constant_value import constant_value
from tfcompat.framework.op_helper import convert_to_tensor
from tfcompat.framework.scopes import control_dependencies, name_scope
from tfcompat.ops import array_ops, control_flow_ops, math_ops

_ERROR_PREFIX = "weights can not be broadcast to values."


def _shape_and_rank(tensor, scope):
    """Converts ``tensor`` (named ``scope``) and adds its ``shape`` and ``rank`` ops."""
    tensor = convert_to_tensor(tensor, name=scope)
    return tensor, array_ops.shape(tensor, name="shape"), array_ops.rank(tensor, name="rank")


def assert_broadcastable(weights, values):
    """An op that checks that ``weights`` broadcast to ``values`` (TF's
    ``weights_broadcast_ops.assert_broadcastable``)."""
    with name_scope(None, "assert_broadcastable", (weights, values)):
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
        raise NotImplementedError(
            "Checking at run time that weights broadcast to values needs set operations "
            "(DenseToDenseSetOperation), which tfcompat does not support: give weights and "
            f"values static shapes (weights {weights.shape}, values {values.shape})."
        )


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
