"""``tf.debugging.assert_*`` (TF's ``check_ops``), built with TF 2.21's ops and names on
``tf.Assert``: elementwise comparisons, sign checks, rank and dtype checks.

A comparison of two statically known tensors is decided at construction (an
``InvalidArgumentError`` then, as TF raises); otherwise it becomes ``tf.Assert`` on
``reduce_all(x <op> y)``, failing the step when it does not hold. Static ranks are checked
at construction (ValueError), as in TF.
"""

from __future__ import annotations

import numpy as np

from tfcompat.framework import dtypes, errors
from tfcompat.framework.constant_value import constant_value
from tfcompat.framework.op_helper import convert_to_tensor
from tfcompat.framework.scopes import name_scope
from tfcompat.framework.tensor import Tensor
from tfcompat.ops import array_ops, checks, control_flow_ops, math_ops, reduction_ops
from tfcompat.util.tf_export import tf_export

# comparison symbol -> (graph op, numpy op for the static check)
_COMPARISONS = {
    "==": (math_ops.equal, np.equal),
    "!=": (math_ops.not_equal, np.not_equal),
    "<": (math_ops.less, np.less),
    "<=": (math_ops.less_equal, np.less_equal),
    ">": (math_ops.greater, np.greater),
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


@tf_export("debugging.assert_equal", "assert_equal")
def assert_equal(x, y, data=None, summarize=None, message=None, name=None):
    """Checks ``x == y`` elementwise (a NoOp when ``x`` is ``y``)."""
    with name_scope(name, "assert_equal", [x, y, data]):
        if x is y:
            return control_flow_ops.no_op()
    return _binary_assert("==", "assert_equal", x, y, data, summarize, message, name)


@tf_export("debugging.assert_none_equal", "assert_none_equal")
def assert_none_equal(x, y, data=None, summarize=None, message=None, name=None):
    """Checks ``x != y`` elementwise."""
    return _binary_assert("!=", "assert_none_equal", x, y, data, summarize, message, name)


@tf_export("debugging.assert_less", "assert_less")
def assert_less(x, y, data=None, summarize=None, message=None, name=None):
    """Checks ``x < y`` elementwise."""
    return _binary_assert("<", "assert_less", x, y, data, summarize, message, name)


@tf_export("debugging.assert_less_equal", "assert_less_equal")
def assert_less_equal(x, y, data=None, summarize=None, message=None, name=None):
    """Checks ``x <= y`` elementwise."""
    return _binary_assert("<=", "assert_less_equal", x, y, data, summarize, message, name)


@tf_export("debugging.assert_greater", "assert_greater")
def assert_greater(x, y, data=None, summarize=None, message=None, name=None):
    """Checks ``x > y`` elementwise."""
    return _binary_assert(">", "assert_greater", x, y, data, summarize, message, name)


@tf_export("debugging.assert_greater_equal", "assert_greater_equal")
def assert_greater_equal(x, y, data=None, summarize=None, message=None, name=None):
    """Checks ``x >= y`` elementwise."""
    return _binary_assert(">=", "assert_greater_equal", x, y, data, summarize, message, name)


# name -> (condition text, comparison built on, whether x is the comparison's left side)
_SIGN_CHECKS = {
    "assert_positive": ("x > 0", assert_less, False),
    "assert_negative": ("x < 0", assert_less, True),
    "assert_non_negative": ("x >= 0", assert_less_equal, False),
    "assert_non_positive": ("x <= 0", assert_less_equal, True),
}


def _sign_assert(kind, x, data, summarize, message, name):
    """``0 < x``, ``x < 0``, ``0 <= x`` or ``x <= 0`` as TF builds them."""
    text, compare, x_first = _SIGN_CHECKS[kind]
    message = _message_prefix(message)
    with name_scope(name, kind, [x, data]):
        x = convert_to_tensor(x, name="x")
        if data is None:
            data = [message, f"Condition {text} did not hold element-wise:", f"x ({x.name}) = ", x]
            if kind == "assert_non_positive":  # TF joins these two strings into one item
                data[1:3] = [data[1] + data[2]]
        zero = convert_to_tensor(0, dtype=x.dtype)
        left, right = (x, zero) if x_first else (zero, x)
        return compare(left, right, data=data, summarize=summarize)


@tf_export("debugging.assert_positive", "assert_positive")
def assert_positive(x, data=None, summarize=None, message=None, name=None):
    """Checks ``x > 0`` elementwise."""
    return _sign_assert("assert_positive", x, data, summarize, message, name)


@tf_export("debugging.assert_negative", "assert_negative")
def assert_negative(x, data=None, summarize=None, message=None, name=None):
    """Checks ``x < 0`` elementwise."""
    return _sign_assert("assert_negative", x, data, summarize, message, name)


@tf_export("debugging.assert_non_negative", "assert_non_negative")
def assert_non_negative(x, data=None, summarize=None, message=None, name=None):
    """Checks ``x >= 0`` elementwise."""
    return _sign_assert("assert_non_negative", x, data, summarize, message, name)


@tf_export("debugging.assert_non_positive", "assert_non_positive")
def assert_non_positive(x, data=None, summarize=None, message=None, name=None):
    """Checks ``x <= 0`` elementwise."""
    return _sign_assert("assert_non_positive", x, data, summarize, message, name)


@tf_export("debugging.assert_type", "assert_type")
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


# ---------------------------------------------------------------------------------------------
# Ranks
# ---------------------------------------------------------------------------------------------
_RANK_CHECKS = {
    # kind -> (default scope, wording, static test, dynamic op)
    "exact": ("assert_rank", "rank", lambda a, r: a == r, math_ops.equal),
    "at_least": (
        "assert_rank_at_least",
        "rank at least",
        lambda a, r: a >= r,
        math_ops.greater_equal,
    ),
}


def _rank_assert(kind, x, rank, data, summarize, message, name):
    scope_name, wording, static_test, dynamic_op = _RANK_CHECKS[kind]
    with name_scope(name, scope_name, (x, rank) + tuple(data or [])):
        x = convert_to_tensor(x, name="x")
        rank = convert_to_tensor(rank, name="rank")
        message = _message_prefix(message)
        if data is None:
            data = [message, f"Tensor {x.name} must have {wording}", rank, "Received shape: "]
            data.append(array_ops.shape(x))
        assert_type(rank, dtypes.int32)
        rank_static = constant_value(rank)
        if rank_static is None:
            raise NotImplementedError(f"{scope_name} with a rank known only at run time")
        if np.ndim(rank_static) != 0:
            raise ValueError("Rank must be a scalar.")
        if x.shape.rank is not None:
            if not static_test(x.shape.rank, int(rank_static)):
                raise ValueError(
                    f"{message}Tensor {x.name} must have {wording} {int(rank_static)}.  "
                    f"Received rank {x.shape.rank}, shape {x.shape}"
                )
            return control_flow_ops.no_op(name="static_checks_determined_all_ok")
        condition = dynamic_op(array_ops.rank(x), rank)
        return checks.Assert(condition, data, summarize=summarize)


@tf_export("debugging.assert_rank", "assert_rank")
def assert_rank(x, rank, data=None, summarize=None, message=None, name=None):
    """Checks that ``x`` has rank ``rank``."""
    return _rank_assert("exact", x, rank, data, summarize, message, name)


@tf_export("debugging.assert_rank_at_least", "assert_rank_at_least")
def assert_rank_at_least(x, rank, data=None, summarize=None, message=None, name=None):
    """Checks that ``x`` has rank ``rank`` or more."""
    return _rank_assert("at_least", x, rank, data, summarize, message, name)


@tf_export("debugging.assert_rank_in", "assert_rank_in")
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
        if any(r is None for r in static):
            raise NotImplementedError("assert_rank_in with ranks known only at run time")
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
        actual = array_ops.rank(x)
        condition = math_ops.equal(ranks[0], actual)
        for rank in ranks[1:]:
            condition = math_ops.logical_or(condition, math_ops.equal(rank, actual))
        return checks.Assert(condition, data, summarize=summarize)


@tf_export("debugging.assert_integer", "assert_integer")
def assert_integer(x, message=None, name=None):
    """A no-op when ``x`` has an integer dtype; TypeError otherwise (a static check)."""
    with name_scope(name, "assert_integer", [x]):
        x = convert_to_tensor(x, name="x")
        if not x.dtype.is_integer:
            raise TypeError(
                f'{_message_prefix(message)}Expected "x" to be integer type.  Found: {x.name} '
                f"of dtype {x.dtype}"
            )
        return control_flow_ops.no_op("statically_determined_was_integer")


@tf_export("debugging.assert_scalar", "assert_scalar")
def assert_scalar(tensor, name=None, message=None):
    """``tensor`` itself when its static rank is 0; ValueError otherwise."""
    with name_scope(name, "assert_scalar", [tensor]) as scope:
        tensor = convert_to_tensor(tensor, name=scope)
        if tensor.shape.ndims != 0:
            raise ValueError(
                f"{_message_prefix(message)}Expected scalar shape for {tensor.name}, saw shape: "
                f"{tensor.shape}."
            )
        return tensor


@tf_export("debugging.assert_near", "assert_near")
def assert_near(x, y, rtol=None, atol=None, data=None, summarize=None, message=None, name=None):
    """An Assert that ``|x - y| < atol + rtol * |y|`` elementwise (tolerances default to ten
    machine epsilons of ``x``'s dtype)."""
    message = _message_prefix(message)
    with name_scope(name, "assert_near", [x, y, rtol, atol, data]):
        x = convert_to_tensor(x, name="x")
        y = convert_to_tensor(y, name="y", dtype=x.dtype)
        dtype = x.dtype.real_dtype if x.dtype.is_complex else x.dtype
        eps = np.finfo(dtype.as_numpy_dtype).eps
        rtol = convert_to_tensor(10 * eps if rtol is None else rtol, name="rtol", dtype=dtype)
        atol = convert_to_tensor(10 * eps if atol is None else atol, name="atol", dtype=dtype)
        if data is None:
            data = [
                message,
                f"x and y not equal to tolerance rtol = {rtol}, atol = {atol}",
                f"x ({x.name}) = ",
                x,
                f"y ({y.name}) = ",
                y,
            ]
        tol = atol + rtol * math_ops.abs(y)
        diff = math_ops.abs(x - y)
        condition = reduction_ops.reduce_all(math_ops.less(diff, tol))
        return checks.Assert(condition, data, summarize=summarize)


@tf_export("debugging.verify_tensor_all_finite", "verify_tensor_all_finite")
def verify_tensor_all_finite(t=None, msg=None, name=None, x=None, message=None):
    """``t`` through an Identity that first checks it for NaN and Inf (``CheckNumerics``
    with ``msg``)."""
    x = t if x is None else x
    message = msg if message is None else message
    with name_scope(name, "VerifyFinite", [x]):
        x = convert_to_tensor(x, name="x")
        graph = x.graph
        with graph.colocate_with(x.op):
            verify_input = checks.check_numerics(x, message=message)
            return control_flow_ops.with_dependencies([verify_input], x)
