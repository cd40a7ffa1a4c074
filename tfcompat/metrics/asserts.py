"""The value checks that metrics add to their graphs (TF's ``check_ops`` asserts, built with
the same ops and names): elementwise comparisons, rank membership and dtype checks.

A comparison of two statically known tensors is decided at construction (an
``InvalidArgumentError`` then, as TF raises); otherwise it becomes ``tf.Assert`` on
``reduce_all(x <op> y)``, failing the step when it does not hold.
"""

from __future__ import annotations

import numpy as np

from tfcompat.framework import dtypes, errors
from tfcompat.framework.constant_value import constant_value
from tfcompat.framework.op_helper import convert_to_tensor
from tfcompat.framework.scopes import name_scope
from tfcompat.framework.tensor import Tensor
from tfcompat.ops import array_ops, checks, control_flow_ops, math_ops, reduction_ops

# comparison symbol -> (graph op, numpy op) for the static check
_COMPARISONS = {
    "<": (math_ops.less, np.less),
    "<=": (math_ops.less_equal, np.less_equal),
    ">=": (math_ops.greater_equal, np.greater_equal),
}


def _message_prefix(message):
    return f"{message}.  " if message else ""


def _static_text(item):
    """A data item as the static failure message prints it (values of constants)."""
    if not isinstance(item, Tensor):
        return str(item)
    value = constant_value(item)
    return str(value) if value is not None else str(item)


def _binary_assert(sym, opname, x, y, data, summarize, message, name):
    op_func, static_func = _COMPARISONS[sym]
    with name_scope(name, opname, [x, y, data]):
        x = convert_to_tensor(x, name="x")
        y = convert_to_tensor(y, name="y")
        if data is None:
            data = [
                f"Condition x {sym} y did not hold element-wise:",
                f"x ({x.name}) = ",
                x,
                f"y ({y.name}) = ",
                y,
            ]
        if message is not None:
            data = [message] + list(data)
        condition = reduction_ops.reduce_all(op_func(x, y))
        x_static, y_static = constant_value(x), constant_value(y)
        if x_static is not None and y_static is not None:
            if not np.all(static_func(x_static, y_static)):
                raise errors.InvalidArgumentError(
                    None, None, "\n".join(_static_text(d) for d in data)
                )
        return checks.Assert(condition, data, summarize=summarize)


def assert_less(x, y, data=None, summarize=None, message=None, name=None):
    """Checks ``x < y`` elementwise."""
    return _binary_assert("<", "assert_less", x, y, data, summarize, message, name)


def assert_less_equal(x, y, data=None, summarize=None, message=None, name=None):
    """Checks ``x <= y`` elementwise."""
    return _binary_assert("<=", "assert_less_equal", x, y, data, summarize, message, name)


def assert_greater_equal(x, y, data=None, summarize=None, message=None, name=None):
    """Checks ``x >= y`` elementwise."""
    return _binary_assert(">=", "assert_greater_equal", x, y, data, summarize, message, name)


def assert_non_negative(x, data=None, summarize=None, message=None, name=None):
    """Checks ``x >= 0`` elementwise (as ``0 <= x``)."""
    message = _message_prefix(message)
    with name_scope(name, "assert_non_negative", [x, data]):
        x = convert_to_tensor(x, name="x")
        if data is None:
            data = [message, "Condition x >= 0 did not hold element-wise:", f"x ({x.name}) = ", x]
        zero = convert_to_tensor(0, dtype=x.dtype)
        return assert_less_equal(zero, x, data=data, summarize=summarize)


def assert_type(tensor, tf_type, message=None, name=None):
    """Raises TypeError unless ``tensor`` has dtype ``tf_type``; a NoOp marks success."""
    tf_type = dtypes.as_dtype(tf_type)
    with name_scope(name, "assert_type", [tensor]):
        tensor = convert_to_tensor(tensor, name="tensor")
        if tensor.dtype != tf_type:
            raise TypeError(
                f"{_message_prefix(message)}{tensor.name} must be of type {tf_type!r}; "
                f"got {tensor.dtype!r}"
            )
        return control_flow_ops.no_op("statically_determined_correct_type")


def assert_rank_in(x, ranks, data=None, summarize=None, message=None, name=None):
    """Checks that the rank of ``x`` is one of ``ranks`` (statically where both are known)."""
    with name_scope(name, "assert_rank_in", (x,) + tuple(ranks) + tuple(data or [])):
        x = convert_to_tensor(x, name="x")
        ranks = tuple(convert_to_tensor(rank, name="rank") for rank in ranks)
        message = _message_prefix(message)
        if data is None:
            data = [message, f"Tensor {x.name} must have rank in", *ranks]
            data += ["Received shape: ", array_ops.shape(x)]
        for rank in ranks:
            assert_type(rank, dtypes.int32)
        static = [constant_value(rank) for rank in ranks]
        if all(r is not None for r in static):
            if any(np.ndim(r) != 0 for r in static):
                raise ValueError("Rank must be a scalar.")
            if x.shape.rank is not None:
                if x.shape.rank not in [int(r) for r in static]:
                    raise ValueError(
                        f"{message}Tensor {x.name} must have rank in "
                        f"{tuple(int(r) for r in static)}.  Received rank {x.shape.rank}, "
                        f"shape {x.shape}"
                    )
                return control_flow_ops.no_op(name="static_checks_determined_all_ok")
        if any(r is None for r in static):
            raise NotImplementedError("assert_rank_in with ranks known only at run time")
        actual = array_ops.rank(x)
        condition = math_ops.equal(ranks[0], actual)
        for rank in ranks[1:]:
            condition = math_ops.logical_or(condition, math_ops.equal(rank, actual))
        return checks.Assert(condition, data, summarize=summarize)
