"""Math ops (TF's ``math_ops``): elementwise arithmetic and comparisons, casts, selection,
matrix products; and the Python operators of ``Tensor``, installed here as TensorFlow
installs them. Reductions, scans and ranges live in ``reduction_ops``.

OpDefs are TensorFlow's (``core/ops/math_ops.cc``): same argument names, attrs and allowed
types, so GraphDefs move between the two. Wrappers build the nodes TF 2.21's
``tf.compat.v1`` builds, with the same names.
"""

from __future__ import annotations

import numpy as np

from tfcompat.framework import common_shapes, dtypes, scopes, tensor_shape
from tfcompat.framework.op_def import register_op
from tfcompat.framework.op_helper import apply_op, convert_to_tensor, is_tensor_like
from tfcompat.framework.tensor import Tensor
from tfcompat.util.tf_export import tf_export

# ---------------------------------------------------------------------------------------------
# OpDefs: elementwise binary ops. T sets are TF's, in TF's order.
# ---------------------------------------------------------------------------------------------
_ARITH = (
    "bfloat16, half, float, double, uint8, int8, uint16, int16, int32, uint32, uint64, int64, "
    "complex64, complex128"
)
_FLOAT_COMPLEX = "half, bfloat16, float, double, complex64, complex128"
_MINMAX = "bfloat16, half, float, double, int8, uint8, int16, uint16, int32, uint32, int64, uint64"
_REAL_FLOAT = "bfloat16, half, float, double"

BINARY_OP_TYPES = {
    # Add also allows string in TF (concatenation); strings are not lowered, so it is left out.
    "Add": "bfloat16, half, float, double, uint8, int8, int16, int32, int64, complex64, complex128",
    "AddV2": "bfloat16, half, float, double, uint8, uint16, uint32, uint64, int8, int16, int32, "
    "int64, complex64, complex128",
    "Sub": "bfloat16, half, float, double, uint8, int8, uint16, int16, int32, int64, complex64, "
    "complex128, uint32, uint64",
    "Mul": _ARITH,
    "RealDiv": _ARITH,
    "Div": _ARITH,
    "DivNoNan": "half, float, bfloat16, double, complex64, complex128",
    "FloorDiv": _ARITH,
    "FloorMod": "int8, int16, int32, int64, uint8, uint16, uint32, uint64, bfloat16, half, float, "
    "double",
    "TruncateDiv": _ARITH,
    "TruncateMod": "int32, int64, bfloat16, half, float, double",
    "Pow": "bfloat16, float, half, double, int8, int16, int32, int64, complex64, complex128",
    "Maximum": _MINMAX,
    "Minimum": _MINMAX,
    "SquaredDifference": "bfloat16, half, float, double, int32, int64, complex64, complex128",
    "Xdivy": _FLOAT_COMPLEX,
    "Xlogy": _FLOAT_COMPLEX,
}
_COMMUTATIVE = {
    "AddV2",
    "Mul",
    "SquaredDifference",
    "Equal",
    "NotEqual",
    "LogicalAnd",
    "LogicalOr",
    "ApproximateEqual",
}

for _op_type, _types in BINARY_OP_TYPES.items():
    register_op(
        _op_type,
        inputs=["x: T", "y: T"],
        outputs=["z: T"],
        attrs=[f"T: {{{_types}}}"],
        shape_fn=common_shapes.broadcast_binary,
        is_commutative=_op_type in _COMMUTATIVE,
    )

# Atan2 names its inputs (y, x), as in C.
register_op(
    "Atan2",
    inputs=["y: T", "x: T"],
    outputs=["z: T"],
    attrs=[f"T: {{{_REAL_FLOAT}}}"],
    shape_fn=common_shapes.broadcast_binary,
)

_REAL_NUMBER = (
    "float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, half, uint32, uint64"
)
COMPARISON_OP_TYPES = ("Less", "LessEqual", "Greater", "GreaterEqual")
for _op_type in COMPARISON_OP_TYPES:
    register_op(
        _op_type,
        inputs=["x: T", "y: T"],
        outputs=["z: bool"],
        attrs=[f"T: {{{_REAL_NUMBER}}}"],
        shape_fn=common_shapes.broadcast_binary,
    )


def _equality_shape(op):
    """Broadcast shape; with ``incompatible_shape_error=False`` TF gives up instead of
    failing: unknown where a dim is uncertain, a scalar where known dims clash."""
    if op.attrs["incompatible_shape_error"]:
        return common_shapes.broadcast_binary(op)
    x, y = op.inputs[0].shape, op.inputs[1].shape
    if x.rank is None or y.rank is None:
        return [tensor_shape.unknown_shape()]
    rank = max(x.rank, y.rank)
    xs = [1] * (rank - x.rank) + x.as_list()
    ys = [1] * (rank - y.rank) + y.as_list()
    for a, b in zip(xs, ys):
        if a is None or b is None:
            if a != 1 and b != 1:
                return [tensor_shape.unknown_shape()]
        elif a != b and 1 not in (a, b):
            return [tensor_shape.scalar()]
    return common_shapes.broadcast_binary(op)


for _op_type in ("Equal", "NotEqual"):
    register_op(
        _op_type,
        inputs=["x: T", "y: T"],
        outputs=["z: bool"],
        attrs=["T: type", "incompatible_shape_error: bool = true"],
        shape_fn=_equality_shape,
        is_commutative=True,
    )

register_op(
    "ApproximateEqual",
    inputs=["x: T", "y: T"],
    outputs=["z: bool"],
    attrs=["T: numbertype", "tolerance: float = 1e-05"],
    shape_fn=common_shapes.broadcast_binary,
    is_commutative=True,
)

for _op_type in ("LogicalAnd", "LogicalOr"):
    register_op(
        _op_type,
        inputs=["x: bool", "y: bool"],
        outputs=["z: bool"],
        shape_fn=common_shapes.broadcast_binary,
        is_commutative=True,
    )
register_op("LogicalNot", inputs=["x: bool"], outputs=["y: bool"], shape_fn=common_shapes.unchanged)

# ---------------------------------------------------------------------------------------------
# OpDefs: elementwise unary ops
# ---------------------------------------------------------------------------------------------
_FLOAT_OR_COMPLEX = "bfloat16, half, float, double, complex64, complex128"
_SIGNED = "bfloat16, half, float, double, int8, int16, int32, int64"
UNARY_OP_TYPES = {
    "Neg": _SIGNED + ", complex64, complex128",
    "Abs": _SIGNED,
    "Sign": _SIGNED + ", complex64, complex128",
    "Square": "bfloat16, half, float, double, int8, int16, int32, int64, uint8, uint16, uint32, "
    "uint64, complex64, complex128",
    "Reciprocal": _SIGNED + ", complex64, complex128",
    "Round": _SIGNED + ", complex64, complex128",
    **{
        op_type: _FLOAT_OR_COMPLEX
        for op_type in (
            "Exp",
            "Expm1",
            "Log",
            "Log1p",
            "Sqrt",
            "Rsqrt",
            "Sin",
            "Cos",
            "Tan",
            "Asin",
            "Acos",
            "Atan",
            "Sinh",
            "Cosh",
            "Tanh",
            "Asinh",
            "Acosh",
            "Atanh",
            "Sigmoid",
        )
    },
    **{
        op_type: _REAL_FLOAT
        for op_type in ("Erf", "Erfc", "Lgamma", "Digamma", "Floor", "Ceil", "Rint")
    },
}
for _op_type, _types in UNARY_OP_TYPES.items():
    register_op(
        _op_type,
        inputs=["x: T"],
        outputs=["y: T"],
        attrs=[f"T: {{{_types}}}"],
        shape_fn=common_shapes.unchanged,
    )

for _op_type in ("IsFinite", "IsNan", "IsInf"):
    register_op(
        _op_type,
        inputs=["x: T"],
        outputs=["y: bool"],
        attrs=[f"T: {{{_REAL_FLOAT}}}"],
        shape_fn=common_shapes.unchanged,
    )

register_op(
    "Cast",
    inputs=["x: SrcT"],
    outputs=["y: DstT"],
    attrs=["SrcT: type", "DstT: type", "Truncate: bool = false"],
    shape_fn=common_shapes.unchanged,
)

register_op(
    "ClipByValue",
    inputs=["t: T", "clip_value_min: T", "clip_value_max: T"],
    outputs=["output: T"],
    attrs=["T: numbertype"],
    shape_fn=common_shapes.unchanged,
)


# ---------------------------------------------------------------------------------------------
# OpDefs: selection
# ---------------------------------------------------------------------------------------------
def _select_shape(op):
    """``Select``: t and e agree; cond is a scalar, their shape, or a vector over dim 0."""
    cond, t, e = (x.shape for x in op.inputs)
    data = t.merge_with(e)
    if cond.rank is None or data.rank is None or cond.rank == 0:
        return [data]
    if cond.rank != 1 or data.rank == 0:
        return [_merge(data, cond)]
    _merge(cond, tensor_shape.TensorShape([data[0]]))
    return [data]


def _merge(a, b):
    if a.rank is not None and b.rank is not None and a.rank != b.rank:
        raise ValueError(f"Shapes must be equal rank, but are {a.rank} and {b.rank}")
    try:
        return a.merge_with(b)
    except ValueError:
        for x, y in zip(a.as_list(), b.as_list()):
            if x is not None and y is not None and x != y:
                raise ValueError(
                    f"Dimension 0 in both shapes must be equal, but are {x} and "
                    f"{y}. Shapes are {a} and {b}."
                ) from None
        raise


def _select_v2_shape(op):
    cond, t, e = (x.shape for x in op.inputs)
    return [common_shapes.broadcast(common_shapes.broadcast(t, e), cond)]


register_op(
    "Select",
    inputs=["condition: bool", "t: T", "e: T"],
    outputs=["output: T"],
    attrs=["T: type"],
    shape_fn=_select_shape,
)
register_op(
    "SelectV2",
    inputs=["condition: bool", "t: T", "e: T"],
    outputs=["output: T"],
    attrs=["T: type"],
    shape_fn=_select_v2_shape,
)
# The number of true elements is only known from the values: Where runs on the host.
register_op(
    "Where",
    inputs=["input: T"],
    outputs=["index: int64"],
    attrs=[
        "T: {float, double, int32, uint8, int16, int8, complex64, int64, qint8, quint8, qint32, "
        "bfloat16, qint16, quint16, uint16, complex128, half, uint32, uint64, bool} = bool"
    ],
    shape_fn=lambda op: [tensor_shape.TensorShape([None, op.inputs[0].shape.rank])],
    host=True,
)


# ---------------------------------------------------------------------------------------------
# Generated wrappers: one op, TF's Python name(s), no extra nodes
# ---------------------------------------------------------------------------------------------
def _unary(op_type, *names):
    def wrapper(x, name=None):
        return apply_op(op_type, name=name, x=x).outputs[0]

    wrapper.__name__ = names[0].split(".")[-1]
    wrapper.__doc__ = f"Elementwise ``{op_type}`` of ``x``."
    return tf_export(*names)(wrapper)


def _binary(op_type, *names):
    def wrapper(x, y, name=None):
        return apply_op(op_type, name=name, x=x, y=y).outputs[0]

    wrapper.__name__ = names[0].split(".")[-1]
    wrapper.__doc__ = f"Elementwise ``{op_type}`` of ``x`` and ``y`` (with broadcasting)."
    return tf_export(*names)(wrapper)


negative = _unary("Neg", "negative", "math.negative")
square = _unary("Square", "square", "math.square")
reciprocal = _unary("Reciprocal", "reciprocal", "math.reciprocal")
exp = _unary("Exp", "exp", "math.exp")
expm1 = _unary("Expm1", "expm1", "math.expm1")
log = _unary("Log", "log", "math.log")
log1p = _unary("Log1p", "log1p", "math.log1p")
sqrt = _unary("Sqrt", "sqrt", "math.sqrt")
rsqrt = _unary("Rsqrt", "rsqrt", "math.rsqrt")
sin = _unary("Sin", "sin", "math.sin")
cos = _unary("Cos", "cos", "math.cos")
tan = _unary("Tan", "tan", "math.tan")
asin = _unary("Asin", "asin", "math.asin")
acos = _unary("Acos", "acos", "math.acos")
atan = _unary("Atan", "atan", "math.atan")
sinh = _unary("Sinh", "sinh", "math.sinh")
cosh = _unary("Cosh", "cosh", "math.cosh")
tanh = _unary("Tanh", "tanh", "math.tanh", "nn.tanh")
asinh = _unary("Asinh", "asinh", "math.asinh")
acosh = _unary("Acosh", "acosh", "math.acosh")
atanh = _unary("Atanh", "atanh", "math.atanh")
sigmoid = _unary("Sigmoid", "sigmoid", "math.sigmoid", "nn.sigmoid")
erf = _unary("Erf", "erf", "math.erf")
erfc = _unary("Erfc", "erfc", "math.erfc")
lgamma = _unary("Lgamma", "lgamma", "math.lgamma")
digamma = _unary("Digamma", "digamma", "math.digamma")
floor = _unary("Floor", "floor", "math.floor")
ceil = _unary("Ceil", "ceil", "math.ceil")
rint = _unary("Rint", "rint", "math.rint")
is_finite = _unary("IsFinite", "is_finite", "math.is_finite")
is_nan = _unary("IsNan", "is_nan", "math.is_nan")
is_inf = _unary("IsInf", "is_inf", "math.is_inf")
logical_not = _unary("LogicalNot", "logical_not", "math.logical_not")

subtract = _binary("Sub", "subtract", "math.subtract")
multiply = _binary("Mul", "multiply", "math.multiply")
realdiv = _binary("RealDiv", "realdiv")
floor_div = _binary("FloorDiv", "floor_div")
floormod = _binary("FloorMod", "floormod", "math.floormod", "mod", "math.mod")
truncatediv = _binary("TruncateDiv", "truncatediv")
truncatemod = _binary("TruncateMod", "truncatemod")
maximum = _binary("Maximum", "maximum", "math.maximum")
minimum = _binary("Minimum", "minimum", "math.minimum")
squared_difference = _binary("SquaredDifference", "squared_difference", "math.squared_difference")
xlogy = _binary("Xlogy", "math.xlogy")
less = _binary("Less", "less", "math.less")
less_equal = _binary("LessEqual", "less_equal", "math.less_equal")
greater = _binary("Greater", "greater", "math.greater")
greater_equal = _binary("GreaterEqual", "greater_equal", "math.greater_equal")
equal = _binary("Equal", "equal", "math.equal")
not_equal = _binary("NotEqual", "not_equal", "math.not_equal")
logical_and = _binary("LogicalAnd", "logical_and", "math.logical_and")
logical_or = _binary("LogicalOr", "logical_or", "math.logical_or")


@tf_export("atan2", "math.atan2")
def atan2(y, x, name=None):
    """Elementwise arctangent of ``y / x`` with the quadrant of ``(x, y)``."""
    return apply_op("Atan2", name=name, y=y, x=x).outputs[0]


def approximate_equal(x, y, tolerance=1e-05, name=None):
    """``|x - y| < tolerance`` elementwise (not in TF1's namespace; ``raw_ops`` only)."""
    return apply_op("ApproximateEqual", name=name, x=x, y=y, tolerance=tolerance).outputs[0]


# ---------------------------------------------------------------------------------------------
# Composite wrappers (TF builds name scopes, casts and conversions around the op)
# ---------------------------------------------------------------------------------------------
def _scope(name, default_name, values):
    return scopes.name_scope(name, default_name, values)


@tf_export("add", "math.add")
def add(x, y, name=None):
    """``x + y`` elementwise with broadcasting (``AddV2``)."""
    with _scope(name, "Add", [x]) as name:
        x = convert_to_tensor(x, name="x")
        y = convert_to_tensor(y, preferred_dtype=x.dtype.base_dtype, name="y")
        return apply_op("AddV2", name=name, x=x, y=y).outputs[0]


@tf_export("abs", "math.abs")
def abs(x, name=None):  # noqa: A001 - TF's name
    """Elementwise absolute value."""
    with _scope(name, "Abs", [x]) as name:
        x = convert_to_tensor(x, name="x")
        if x.dtype.is_complex:
            raise TypeError("tf.abs of complex tensors (ComplexAbs) is not supported")
        return apply_op("Abs", name=name, x=x).outputs[0]


@tf_export("sign", "math.sign")
def sign(x, name=None):
    """Elementwise -1, 0 or 1 (nan for nan)."""
    x = convert_to_tensor(x)
    return apply_op("Sign", name=name, x=x).outputs[0]


@tf_export("round", "math.round")
def round(x, name=None):  # noqa: A001 - TF's name
    """Rounds half to even; integer tensors are returned as they are."""
    x = convert_to_tensor(x, name="x")
    if x.dtype.is_integer:
        return x
    return apply_op("Round", name=name, x=x).outputs[0]


@tf_export("pow", "math.pow")
def pow(x, y, name=None):  # noqa: A001 - TF's name
    """``x ** y`` elementwise."""
    with _scope(name, "Pow", [x]) as name:
        return apply_op("Pow", name=name, x=x, y=y).outputs[0]


@tf_export("math.xdivy")
def xdivy(x, y, name=None):
    """``x / y``, and 0 where ``x`` is 0."""
    with _scope(name, "xdivy", [x]):
        return apply_op("Xdivy", x=x, y=y).outputs[0]


@tf_export("logical_xor", "math.logical_xor")
def logical_xor(x, y, name="LogicalXor"):
    """``(x or y) and not (x and y)``, built from those three ops as TF does."""
    either = logical_or(x, y)
    both = logical_and(x, y)
    return logical_and(either, logical_not(both), name=name)


# Division. Integer true division goes through a float type; these pairs are TF's table.
_TRUEDIV_TABLE = {
    dtypes.uint8: dtypes.float32,
    dtypes.int8: dtypes.float32,
    dtypes.uint16: dtypes.float32,
    dtypes.int16: dtypes.float32,
    dtypes.uint32: dtypes.float64,
    dtypes.uint64: dtypes.float64,
    dtypes.int32: dtypes.float64,
    dtypes.int64: dtypes.float64,
    dtypes.bfloat16: None,
    dtypes.float16: None,
    dtypes.float32: None,
    dtypes.float64: None,
    dtypes.complex64: None,
    dtypes.complex128: None,
}


def _check_same_dtype(x, y):
    if x.dtype.base_dtype != y.dtype.base_dtype:
        raise TypeError(
            f"`x` and `y` must have the same dtype, got {x.dtype.base_dtype!r} != "
            f"{y.dtype.base_dtype!r}."
        )


def _float_for_division(x, y, what):
    try:
        dtype = _TRUEDIV_TABLE[x.dtype.base_dtype]
    except KeyError:
        expected = ", ".join(repr(d) for d in _TRUEDIV_TABLE)
        raise TypeError(
            f"Invalid dtype {x.dtype.base_dtype!r} in {what}. Expected one of {{{expected}}}."
        ) from None
    if dtype is not None:
        x, y = cast(x, dtype), cast(y, dtype)
    return x, y


@tf_export("truediv", "math.truediv")
def truediv(x, y, name=None):
    """Python 3 division: integers are cast to a float type first (``RealDiv``)."""
    with _scope(name, "truediv", [x, y]) as name:
        x = convert_to_tensor(x, name="x")
        y = convert_to_tensor(y, preferred_dtype=x.dtype.base_dtype, name="y")
        _check_same_dtype(x, y)
        x, y = _float_for_division(x, y, "__truediv__")
        return apply_op("RealDiv", name=name, x=x, y=y).outputs[0]


@tf_export("div")
def div(x, y, name=None):
    """Python 2 division: ``RealDiv`` for floats, ``FloorDiv`` for integers."""
    with _scope(name, "div", [x, y]) as name:
        x = convert_to_tensor(x, name="x")
        y = convert_to_tensor(y, name="y", dtype=x.dtype.base_dtype)
        _check_same_dtype(x, y)
        op_type = "RealDiv" if x.dtype.is_floating or x.dtype.is_complex else "FloorDiv"
        return apply_op(op_type, name=name, x=x, y=y).outputs[0]


class _DivideDelegateWithName:
    """Routes ``tf.divide(x, y, name)`` through ``truediv`` with the given name."""

    def __init__(self, x, name):
        self.x, self.name = x, name

    def __truediv__(self, y):
        return truediv(self.x, y, self.name)


@tf_export("divide", "math.divide")
def divide(x, y, name=None):
    """``x / y`` with Python 3 semantics."""
    if name is not None:
        return _DivideDelegateWithName(x, name) / y
    if not is_tensor_like(x):
        dtype = y.dtype.base_dtype if is_tensor_like(y) else None
        x = convert_to_tensor(x, dtype=dtype)
    return x / y


@tf_export("div_no_nan", "math.divide_no_nan")
def div_no_nan(x, y, name=None):
    """``x / y``, and 0 wherever ``y`` is 0."""
    with _scope(name, "div_no_nan", [x, y]) as name:
        if not is_tensor_like(x) and is_tensor_like(y):
            y = convert_to_tensor(y, name="y")
            x = convert_to_tensor(x, name="x", dtype=y.dtype.base_dtype)
        else:
            x = convert_to_tensor(x, name="x")
            y = convert_to_tensor(y, name="y", preferred_dtype=x.dtype.base_dtype)
        _check_same_dtype(x, y)
        x, y = _float_for_division(x, y, "tf.math.divide_no_nan")
        return apply_op("DivNoNan", name=name, x=x, y=y).outputs[0]


@tf_export("floordiv", "math.floordiv")
def floordiv(x, y, name=None):
    """``floor(x / y)`` elementwise (``FloorDiv``)."""
    with _scope(name, "floordiv", [x, y]) as name:
        return apply_op("FloorDiv", name=name, x=x, y=y).outputs[0]


def mod(x, y, name=None):
    """``x % y`` as the ``%`` operator builds it (``FloorMod`` under scope ``mod``)."""
    with _scope(name, "mod", [x, y]) as name:
        return apply_op("FloorMod", name=name, x=x, y=y).outputs[0]


@tf_export("scalar_mul", "math.scalar_mul")
def scalar_mul(scalar, x, name=None):
    """``scalar * x`` for a scalar ``scalar``."""
    base_dtype = dtypes.as_dtype(x.dtype).base_dtype
    scalar = convert_to_tensor(scalar, dtype=base_dtype, name="scalar")
    shape = scalar.shape
    if shape.rank == 0:
        return multiply(scalar, x, name=name)
    raise ValueError(f"The input scalar must be a 0-D value. Received shape {shape}.")


# ---------------------------------------------------------------------------------------------
# Casts
# ---------------------------------------------------------------------------------------------
@tf_export("cast", "dtypes.cast")
def cast(x, dtype, name=None):
    """``x`` converted to ``dtype``; a Tensor already of that type is returned as it is."""
    base_type = dtypes.as_dtype(dtype).base_dtype
    if isinstance(x, Tensor) and base_type == x.dtype:
        return x
    with _scope(name, "Cast", [x]) as name:
        x = convert_to_tensor(x, name="x")
        if x.dtype.base_dtype != base_type:
            x = apply_op("Cast", name=name, x=x, DstT=base_type).outputs[0]
        return x


def _cast_to(dtype, default_name, api_name):
    def to(x, name=default_name):
        return cast(x, dtype, name=name)

    to.__name__ = api_name
    to.__doc__ = f"``tf.cast(x, {dtype.name})`` under scope ``{default_name}``."
    return tf_export(api_name)(to)


to_float = _cast_to(dtypes.float32, "ToFloat", "to_float")
to_double = _cast_to(dtypes.float64, "ToDouble", "to_double")
to_int32 = _cast_to(dtypes.int32, "ToInt32", "to_int32")
to_int64 = _cast_to(dtypes.int64, "ToInt64", "to_int64")
to_bfloat16 = _cast_to(dtypes.bfloat16, "ToBFloat16", "to_bfloat16")


def _saturation_limits(in_dtype, out_dtype):
    """The in_dtype values nearest the out_dtype range that still convert into it."""
    np_dtype = in_dtype.as_numpy_dtype
    try:
        promoted_type = np.promote_types(np_dtype, out_dtype.as_numpy_dtype)
    except TypeError:
        promoted_type = float
    low = np_dtype(np.maximum(in_dtype.min, out_dtype.min))
    if np.array([low, out_dtype.min], dtype=promoted_type)[0] < out_dtype.min:
        low = np.nextafter(low, np_dtype(0), dtype=np_dtype)
    high = np_dtype(np.minimum(float(in_dtype.max), float(out_dtype.max)))
    promoted = np.array([high, out_dtype.max], dtype=promoted_type)
    if promoted[0] > promoted[1]:
        high = np.nextafter(high, np_dtype(0), dtype=np_dtype)
    return low, high


@tf_export("saturate_cast", "dtypes.saturate_cast")
def saturate_cast(value, dtype, name=None):
    """Casts after clipping to the target type's range (``ClipByValue`` then ``Cast``)."""
    with _scope(name, "saturate_cast", [value]) as name:
        value = convert_to_tensor(value, name="value")
        dtype = dtypes.as_dtype(dtype).base_dtype
        if value.dtype.is_complex or dtype.is_complex:
            raise TypeError("saturate_cast of complex tensors is not supported")
        low, high = _saturation_limits(value.dtype.base_dtype, dtype)
        value = apply_op(
            "ClipByValue",
            name="clamp",
            t=value,
            clip_value_min=convert_to_tensor(low, dtype=value.dtype),
            clip_value_max=convert_to_tensor(high, dtype=value.dtype),
        ).outputs[0]
        return cast(value, dtype, name=name)


@tf_export("clip_by_value")
def clip_by_value(t, clip_value_min, clip_value_max, name=None):
    """``min(max(t, clip_value_min), clip_value_max)``, as ``Minimum`` then ``Maximum``."""
    with _scope(name, "clip_by_value", [t, clip_value_min, clip_value_max]) as name:
        values = convert_to_tensor(t, name="t")
        t_min = minimum(values, clip_value_max)
        values.shape.assert_is_compatible_with(t_min.shape)
        t_max = maximum(t_min, clip_value_min, name=name)
        values.shape.assert_is_compatible_with(t_max.shape)
    return t_max


# ---------------------------------------------------------------------------------------------
# Selection
# ---------------------------------------------------------------------------------------------
def _where_indices(condition, name):
    with _scope(name, "Where", [condition]) as name:
        condition = convert_to_tensor(condition, preferred_dtype=dtypes.bool, name="condition")
        return apply_op("Where", name=name, input=condition).outputs[0]


@tf_export("where")
def where(condition, x=None, y=None, name=None):
    """TF1 ``where``: indices of true elements, or ``Select`` (cond a scalar, the same
    shape as x and y, or a vector over their first dimension)."""
    if x is None and y is None:
        return _where_indices(condition, name)
    if x is not None and y is not None:
        return apply_op("Select", name=name, condition=condition, t=x, e=y).outputs[0]
    raise ValueError("x and y must both be non-None or both be None.")


@tf_export("where_v2")
def where_v2(condition, x=None, y=None, name=None):
    """``where`` with broadcasting of condition, x and y (``SelectV2``)."""
    if x is None and y is None:
        return _where_indices(condition, name)
    if x is not None and y is not None:
        return apply_op("SelectV2", name=name, condition=condition, t=x, e=y).outputs[0]
    raise ValueError("x and y must both be non-None or both be None.")


# ---------------------------------------------------------------------------------------------
# Matrix products
# ---------------------------------------------------------------------------------------------
_MATMUL_TYPES = (
    "bfloat16, half, float, double, int32, int64, uint8, uint16, uint32, uint64, complex64, "
    "complex128"
)


def _matmul_shape(op):
    a, b = op.inputs[0].shape.with_rank(2), op.inputs[1].shape.with_rank(2)
    ta, tb = op.attrs["transpose_a"], op.attrs["transpose_b"]
    rows, inner_a = (a[1], a[0]) if ta else (a[0], a[1])
    inner_b, cols = (b[1], b[0]) if tb else (b[0], b[1])
    if not inner_a.is_compatible_with(inner_b):
        raise ValueError(f"Dimensions must be equal, but are {inner_a} and {inner_b}")
    return [tensor_shape.TensorShape([rows, cols])]


register_op(
    "MatMul",
    inputs=["a: T", "b: T"],
    outputs=["product: T"],
    attrs=[
        "transpose_a: bool = false",
        "transpose_b: bool = false",
        f"T: {{{_MATMUL_TYPES}}}",
        "grad_a: bool = false",
        "grad_b: bool = false",
    ],
    shape_fn=_matmul_shape,
)


def _batch_matmul_shape(op, broadcast_batch):
    x, y = op.inputs[0].shape, op.inputs[1].shape
    if x.rank is not None and x.rank < 2:
        raise ValueError(f"Shape must be at least rank 2 but is rank {x.rank}")
    if y.rank is not None and y.rank < 2:
        raise ValueError(f"Shape must be at least rank 2 but is rank {y.rank}")
    if x.rank is None or y.rank is None:
        return [tensor_shape.unknown_shape()]
    rows = x[-1] if op.attrs["adj_x"] else x[-2]
    inner_x = x[-2] if op.attrs["adj_x"] else x[-1]
    inner_y = y[-1] if op.attrs["adj_y"] else y[-2]
    cols = y[-2] if op.attrs["adj_y"] else y[-1]
    if not inner_x.is_compatible_with(inner_y):
        raise ValueError(f"Dimensions must be equal, but are {inner_x} and {inner_y}")
    if broadcast_batch:
        batch = common_shapes.broadcast(x[:-2], y[:-2])
    else:
        batch = _merge(x[:-2], y[:-2])
    return [batch.concatenate([rows, cols])]


_BATCH_MATMUL_ATTRS = [
    "adj_x: bool = false",
    "adj_y: bool = false",
    "grad_x: bool = false",
    "grad_y: bool = false",
]
register_op(
    "BatchMatMul",
    inputs=["x: T", "y: T"],
    outputs=["output: T"],
    attrs=["T: {bfloat16, half, float, double, int32, int64, complex64, complex128}"]
    + _BATCH_MATMUL_ATTRS,
    shape_fn=lambda op: _batch_matmul_shape(op, broadcast_batch=False),
)
register_op(
    "BatchMatMulV2",
    inputs=["x: T", "y: T"],
    outputs=["output: T"],
    attrs=[
        "T: {bfloat16, half, float, double, int16, int32, int64, uint8, uint16, uint32, uint64, "
        "complex64, complex128}"
    ]
    + _BATCH_MATMUL_ATTRS,
    shape_fn=lambda op: _batch_matmul_shape(op, broadcast_batch=True),
)


@tf_export("matmul", "linalg.matmul")
def matmul(
    a,
    b,
    transpose_a=False,
    transpose_b=False,
    adjoint_a=False,
    adjoint_b=False,
    a_is_sparse=False,
    b_is_sparse=False,
    output_type=None,
    grad_a=False,
    grad_b=False,
    name=None,
):
    """Matrix product: ``MatMul`` for matrices, ``BatchMatMulV2`` when either operand may
    have batch dimensions. ``*_is_sparse`` are accepted hints (dense products either way)."""
    with _scope(name, "MatMul", [a, b]) as name:
        if transpose_a and adjoint_a:
            raise ValueError(
                "Only one of `transpose_a` and `adjoint_a` can be True. Received "
                f"`transpose_a`={transpose_a}, `adjoint_a`={adjoint_a}."
            )
        if transpose_b and adjoint_b:
            raise ValueError(
                "Only one of `transpose_b` and `adjoint_b` can be True. Received "
                f"`transpose_b`={transpose_b}, `adjoint_b`={adjoint_b}."
            )
        a = convert_to_tensor(a, name="a")
        b = convert_to_tensor(b, preferred_dtype=a.dtype.base_dtype, name="b")
        if output_type is not None and (output_type != a.dtype or output_type != b.dtype):
            raise NotImplementedError("matmul(output_type=...) (BatchMatMulV3) is not supported")
        if a.dtype.is_complex or b.dtype.is_complex:
            raise NotImplementedError("matmul of complex tensors is not supported")
        # Real tensors: the conjugate in TF's adjoint is the identity, so adjoint == transpose.
        transpose_a = transpose_a or adjoint_a
        transpose_b = transpose_b or adjoint_b
        ranks = (a.shape.rank, b.shape.rank)
        if any(r is None or r > 2 for r in ranks) and not (a_is_sparse or b_is_sparse):
            return apply_op(
                "BatchMatMulV2",
                name=name,
                x=a,
                y=b,
                adj_x=transpose_a,
                adj_y=transpose_b,
                grad_x=grad_a,
                grad_y=grad_b,
            ).outputs[0]
        return apply_op(
            "MatMul",
            name=name,
            a=a,
            b=b,
            transpose_a=transpose_a,
            transpose_b=transpose_b,
            grad_a=grad_a,
            grad_b=grad_b,
        ).outputs[0]


# ---------------------------------------------------------------------------------------------
# Tensor operators, as TF installs them
# ---------------------------------------------------------------------------------------------
def _add_dispatch(x, y, name=None):
    if not isinstance(y, Tensor):
        y = convert_to_tensor(y, preferred_dtype=x.dtype.base_dtype, name="y")
    return apply_op("AddV2", name=name, x=x, y=y).outputs[0]


def _mul_dispatch(x, y, name=None):
    """``*``; bool tensors multiply as int32 and are cast back (TF's rule)."""
    is_bool = [isinstance(v, Tensor) and v.dtype.base_dtype == dtypes.bool for v in (x, y)]
    if any(is_bool):

        def as_int(v):
            return apply_op("Cast", x=v, DstT=dtypes.int32).outputs[0]

        product = multiply(as_int(x), as_int(y), name=name)
        return apply_op("Cast", x=product, DstT=dtypes.bool).outputs[0]
    return multiply(x, y, name=name)


def _bool_only(logical, what):
    def op(x, y, name=None):
        if x.dtype.base_dtype != dtypes.bool:
            raise TypeError(f"`{what}` on {x.dtype.name} tensors (bitwise ops) is not supported")
        return logical(x, y, name=name)

    return op


def _invert(x, name=None):
    if x.dtype.base_dtype != dtypes.bool:
        raise TypeError(f"`~` on {x.dtype.name} tensors (bitwise Invert) is not supported")
    return logical_not(x, name=name)


def _matmul_operator(a, b, name=None):
    return matmul(a, b, name=name)


def _binary_operator(func, op_name):
    """``x op y`` and ``y op x`` as TF builds them: a name scope ``op_name`` (made unique);
    in the reflected form the non-Tensor operand is converted to the Tensor's dtype as
    ``op_name/x``. A failing forward op defers to the right operand's reflected operator."""
    reflected = f"__r{op_name}__"

    def forward(x, y):
        with _scope(None, op_name, [x, y]) as name:
            try:
                return func(x, y, name=name)
            except (TypeError, ValueError) as error:
                r_op = getattr(y, reflected, None) if hasattr(type(y), reflected) else None
                if r_op is None:
                    raise
                try:
                    out = r_op(x)
                except (TypeError, ValueError):
                    raise error from None
                if out is NotImplemented:
                    raise
                return out

    def reverse(y, x):
        with _scope(None, op_name, [x, y]) as name:
            x = convert_to_tensor(x, dtype=y.dtype.base_dtype, name="x")
            return func(x, y, name=name)

    forward.__name__, reverse.__name__ = f"__{op_name}__", reflected
    return forward, reverse


def _comparison(op_type):
    def compare(x, y):
        return apply_op(op_type, x=x, y=y).outputs[0]

    return compare


def _install_operators():
    binary = {
        "add": _add_dispatch,
        "sub": subtract,
        "mul": _mul_dispatch,
        "truediv": truediv,
        "floordiv": floordiv,
        "mod": mod,
        "pow": pow,
        "matmul": _matmul_operator,
        "and": _bool_only(logical_and, "&"),
        "or": _bool_only(logical_or, "|"),
        "xor": _bool_only(logical_xor, "^"),
    }
    for op_name, func in binary.items():
        forward, reverse = _binary_operator(func, op_name)
        setattr(Tensor, f"__{op_name}__", forward)
        setattr(Tensor, f"__r{op_name}__", reverse)
    for dunder, op_type in (
        ("lt", "Less"),
        ("le", "LessEqual"),
        ("gt", "Greater"),
        ("ge", "GreaterEqual"),
    ):
        setattr(Tensor, f"__{dunder}__", _comparison(op_type))
    Tensor.__neg__ = lambda x: negative(x)
    Tensor.__abs__ = lambda x: abs(x)
    Tensor.__invert__ = lambda x: _invert(x)
    # TF1 graph mode: == and != are identity comparisons, and Tensors hash by id.
    Tensor.__eq__ = object.__eq__
    Tensor.__ne__ = object.__ne__
    Tensor.__hash__ = object.__hash__


_install_operators()
