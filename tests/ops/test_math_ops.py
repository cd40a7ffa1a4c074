"""Parity with TF 2.21 of the elementwise math ops, casts, selection and matrix products,
and of the Tensor operators' node names."""

import numpy as np
import pytest

import tfcompat
from tests.oracle import assert_parity, assert_same_graph_def

RNG = np.random.default_rng(0)

# name -> (input domain (low, high), dtypes, rtol)
UNARY = {
    "negative": ((-5, 5), ["float32", "float64", "int32", "int64"], 1e-6),
    "abs": ((-5, 5), ["float32", "float64", "int32", "int64", "float16"], 1e-6),
    "sign": ((-5, 5), ["float32", "float64", "int32", "int64"], 1e-6),
    "square": ((-5, 5), ["float32", "float64", "int32", "int64"], 1e-6),
    "reciprocal": ((0.5, 5), ["float32", "float64"], 1e-6),
    "exp": ((-5, 5), ["float32", "float64", "float16"], 1e-5),
    "expm1": ((-5, 5), ["float32", "float64"], 1e-5),
    "log": ((0.1, 5), ["float32", "float64", "bfloat16"], 1e-5),
    "log1p": ((-0.5, 5), ["float32", "float64"], 1e-5),
    "sqrt": ((0, 5), ["float32", "float64", "float16"], 1e-6),
    "rsqrt": ((0.1, 5), ["float32", "float64"], 1e-5),
    "sin": ((-5, 5), ["float32", "float64"], 1e-5),
    "cos": ((-5, 5), ["float32", "float64"], 1e-5),
    "tan": ((-1.4, 1.4), ["float32", "float64"], 1e-5),
    "asin": ((-0.99, 0.99), ["float32", "float64"], 1e-5),
    "acos": ((-0.99, 0.99), ["float32", "float64"], 1e-5),
    "atan": ((-5, 5), ["float32", "float64"], 1e-5),
    "sinh": ((-5, 5), ["float32", "float64"], 1e-5),
    "cosh": ((-5, 5), ["float32", "float64"], 1e-5),
    "tanh": ((-5, 5), ["float32", "float64", "float16"], 1e-5),
    "asinh": ((-5, 5), ["float32", "float64"], 1e-5),
    "acosh": ((1, 5), ["float32", "float64"], 1e-5),
    "atanh": ((-0.99, 0.99), ["float32", "float64"], 1e-5),
    "sigmoid": ((-8, 8), ["float32", "float64", "float16"], 1e-5),
    "erf": ((-3, 3), ["float32", "float64"], 1e-5),
    "erfc": ((-3, 3), ["float32", "float64"], 1e-5),
    "lgamma": ((0.1, 6), ["float32", "float64"], 1e-5),
    "digamma": ((0.1, 6), ["float32", "float64"], 1e-5),
    "floor": ((-5, 5), ["float32", "float64"], 1e-6),
    "ceil": ((-5, 5), ["float32", "float64"], 1e-6),
    "rint": ((-5, 5), ["float32", "float64"], 1e-6),
    "round": ((-5, 5), ["float32", "float64", "int32"], 1e-6),
}

CASES = [(name, dtype) for name, (_, dts, _) in UNARY.items() for dtype in dts]


def _values(low, high, dtype, shape=(3, 4)):
    if np.dtype(dtype).kind in "iu":
        return RNG.integers(low, high + 1, size=shape).astype(dtype)
    return RNG.uniform(low, high, size=shape).astype(dtype)


def _np_dtype(name):
    return tfcompat.as_dtype(name).as_numpy_dtype


@pytest.mark.parametrize("name,dtype", CASES)
def test_unary_parity(name, dtype):
    (low, high), _, rtol = UNARY[name]
    value = _values(low, high, _np_dtype(dtype))
    if name in ("round", "rint"):
        value = (
            np.concatenate([value.ravel(), np.array([0.5, 1.5, 2.5, -0.5, -2.5])]).astype(
                value.dtype
            )
            if np.dtype(value.dtype).kind == "f"
            else value
        )
    if dtype in ("float16", "bfloat16"):
        rtol = 1e-2

    def program(tf):
        x = tf.placeholder(tf.as_dtype(dtype), value.shape)
        return getattr(tf, name)(x), {x: value}

    assert_parity(program, rtol=rtol, atol=rtol)


def test_unary_special_values():
    value = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -2.5], np.float32)

    def program(tf):
        x = tf.constant(value)
        return [tf.is_nan(x), tf.is_inf(x), tf.is_finite(x), tf.sign(x), tf.abs(x)]

    assert_parity(program)


BINARY = {
    "add": ["float32", "float64", "int32", "int64", "float16"],
    "subtract": ["float32", "float64", "int32", "int64"],
    "multiply": ["float32", "float64", "int32", "int64", "bfloat16"],
    "maximum": ["float32", "float64", "int32", "int64"],
    "minimum": ["float32", "float64", "int32", "int64"],
    "squared_difference": ["float32", "float64", "int32", "int64"],
    "floordiv": ["float32", "float64", "int32", "int64"],
    "floor_div": ["float32", "int32"],
    "floormod": ["float32", "float64", "int32", "int64"],
    "mod": ["float32", "int32"],
    "truncatediv": ["float32", "int32", "int64"],
    "truncatemod": ["float32", "float64", "int32", "int64"],
    "realdiv": ["float32", "float64"],
    "truediv": ["float32", "float64", "int32", "int64", "int16"],
    "div": ["float32", "int32"],
    "divide": ["float32", "int32"],
    "div_no_nan": ["float32", "float64", "int32"],
    "pow": ["float32", "float64"],
    "atan2": ["float32", "float64"],
    "less": ["float32", "int32", "int64"],
    "less_equal": ["float32", "int32"],
    "greater": ["float32", "int64"],
    "greater_equal": ["float64", "int32"],
    "equal": ["float32", "int32", "bool"],
    "not_equal": ["float32", "int64", "bool"],
}
BINARY_CASES = [(name, dtype) for name, dts in BINARY.items() for dtype in dts]


def _binary_inputs(name, dtype):
    np_dtype = _np_dtype(dtype)
    if dtype == "bool":
        return RNG.integers(0, 2, (3, 4)).astype(bool), RNG.integers(0, 2, (4,)).astype(bool)
    # Negative operands exercise floor vs truncate semantics; divisors avoid 0 except where
    # the op defines the result (div_no_nan).
    x = _values(-9, 9, np_dtype)
    y = _values(1, 4, np_dtype, (4,)) * np.array([1, -1, 1, -1]).astype(np_dtype)
    if name == "div_no_nan":
        y[0] = 0
    if name == "pow":
        x = np.abs(x) + np_dtype(0.5)
    return x, y


@pytest.mark.parametrize("name,dtype", BINARY_CASES)
def test_binary_parity(name, dtype):
    x_value, y_value = _binary_inputs(name, dtype)
    module_name = {"div_no_nan": "div_no_nan"}.get(name, name)
    rtol = 1e-2 if dtype in ("float16", "bfloat16") else 1e-6

    def program(tf):
        x = tf.placeholder(tf.as_dtype(dtype), x_value.shape)
        y = tf.placeholder(tf.as_dtype(dtype), y_value.shape)
        return getattr(tf, module_name)(x, y), {x: x_value, y: y_value}

    assert_parity(program, rtol=rtol, atol=rtol)


def test_xlogy_xdivy_div_no_nan_edges():
    x = np.array([0, 0, 1, 2, -3], np.float32)
    y = np.array([0, np.nan, 0, 4, 2], np.float32)

    def program(tf):
        return [tf.math.xlogy(x, y), tf.math.xdivy(x, y), tf.math.divide_no_nan(x, y)]

    assert_parity(program)


def test_logical_ops():
    a = np.array([True, True, False, False])
    b = np.array([True, False, True, False])

    def program(tf):
        x, y = tf.constant(a), tf.constant(b)
        return [
            tf.logical_and(x, y),
            tf.logical_or(x, y),
            tf.logical_not(x),
            tf.logical_xor(x, y),
            x & y,
            x | y,
            x ^ y,
            ~x,
            x & True,
        ]

    assert_parity(program)
    assert_same_graph_def(program)


@pytest.mark.parametrize(
    "src,dst",
    [
        ("float32", "int32"),
        ("float64", "float32"),
        ("int32", "float32"),
        ("int64", "int32"),
        ("float32", "bool"),
        ("bool", "float32"),
        ("int32", "int64"),
        ("float32", "float16"),
        ("float32", "bfloat16"),
        ("int32", "float64"),
    ],
)
def test_cast_parity(src, dst):
    value = _values(-7, 7, _np_dtype(src)) if src != "bool" else RNG.integers(0, 2, (3, 4)) > 0

    def program(tf):
        x = tf.constant(value)
        return tf.cast(x, tf.as_dtype(dst))

    assert_parity(program)


def test_cast_wrappers_graph_def():
    def program(tf):
        x = tf.constant([1.5, -2.5])
        i = tf.constant([1, 2])
        return [
            tf.to_float(i),
            tf.to_int32(x),
            tf.to_int64(x),
            tf.to_double(x),
            tf.cast(x, tf.float32),
            tf.cast([1, 2], tf.float32),
            tf.saturate_cast(x, tf.uint8),
            tf.saturate_cast(tf.constant([300, -5, 7]), tf.uint8),
        ]

    assert_parity(program)
    assert_same_graph_def(program)


def test_clip_by_value():
    value = np.linspace(-3, 3, 12).reshape(3, 4).astype(np.float32)

    def program(tf):
        x = tf.constant(value)
        return [
            tf.clip_by_value(x, -1.0, 2.0),
            tf.clip_by_value(x, tf.constant(0.0), 1.0, name="c"),
        ]

    assert_parity(program)
    assert_same_graph_def(program)


def test_clip_by_value_shape_error():
    with tfcompat.Graph().as_default():
        with pytest.raises(ValueError):
            tfcompat.clip_by_value(
                np.zeros((2, 3), np.float32), np.zeros((4, 2, 3), np.float32), 1.0
            )


def test_select_and_where():
    cond = np.array([[True, False, True], [False, False, True]])
    t = np.arange(6, dtype=np.float32).reshape(2, 3)
    e = -t

    def program(tf):
        c = tf.constant(cond)
        return [
            tf.where(c, t, e),
            tf.where(tf.constant([True, False]), t, e),
            tf.where_v2(c, t, 0.0),
            tf.where_v2(tf.constant([True, False, True]), t, e),
            tf.where(c),
            tf.where_v2(tf.constant([[1, 0], [0, 2]])),
        ]

    assert_parity(program)
    assert_same_graph_def(program)


def test_select_shape_error():
    with tfcompat.Graph().as_default():
        with pytest.raises(ValueError):
            tfcompat.where(
                tfcompat.constant([True, False, True]),
                np.zeros((2, 3), np.float32),
                np.zeros((2, 3), np.float32),
            )


def test_equal_incompatible_shapes():
    """With incompatible_shape_error=False, TF returns a scalar (NotEqual: True) instead of
    failing; the static shape is a scalar for known clashing dims, unknown otherwise."""
    from tfcompat.framework.op_helper import apply_op

    with tfcompat.Graph().as_default():
        x = tfcompat.constant([1.0, 2.0])
        y = tfcompat.constant([1.0, 2.0, 3.0])
        p = tfcompat.placeholder(tfcompat.float32, [None])
        ne = apply_op("NotEqual", x=x, y=y, incompatible_shape_error=False).outputs[0]
        eq = apply_op("Equal", x=p, y=x, incompatible_shape_error=False).outputs[0]
        assert ne.shape.as_list() == []
        assert eq.shape.rank is None
        for backend in ("xla", "reference"):
            with tfcompat.Session(backend=backend) as sess:
                got = sess.run([ne, eq], {p: np.ones(3, np.float32)})
            assert [bool(v) for v in got] == [True, False]


def test_equal_incompatible_shapes_error():
    with tfcompat.Graph().as_default():
        with pytest.raises(ValueError, match="Dimensions must be equal"):
            tfcompat.equal(tfcompat.constant([1.0, 2.0]), tfcompat.constant([1.0, 2.0, 3.0]))


# ---------------------------------------------------------------------------------------------
# Operators
# ---------------------------------------------------------------------------------------------
_OPERATOR_FEEDS = {
    "x": RNG.uniform(0.5, 3, (2, 3)).astype(np.float32),
    "y": RNG.uniform(0.5, 3, (2, 3)).astype(np.float32),
    "i": np.array([-5, 3, 8], np.int32),
    "m": RNG.uniform(-1, 1, (3, 2)).astype(np.float32),
}


def _operators(tf):
    x = tf.placeholder(tf.float32, [2, 3], name="x")
    y = tf.placeholder(tf.float32, [2, 3], name="y")
    i = tf.placeholder(tf.int32, [3], name="i")
    m = tf.placeholder(tf.float32, [3, 2], name="m")
    outs = [
        x + y,
        x - y,
        x * y,
        x / y,
        x // y,
        x % y,
        x**y,
        x @ m,
        -x,
        abs(x),
        x < y,
        x <= y,
        x > y,
        x >= y,
        x + 1.0,
        1.0 + x,
        2.0 - x,
        x - 2.0,
        3.0 * x,
        3.0 / x,
        x / 3.0,
        7.0 // x,
        7.0 % x,
        2.0**x,
        x**2.0,
        x < 1.0,
        np.ones((2, 3), np.float32) + x,
        i / 2,
        4 / i,
        i // 2,
        -i,
        abs(i),
        i % 3,
        i * 2,
    ]
    return outs, {t: _OPERATOR_FEEDS[t.op.name] for t in (x, y, i, m)}


def test_operators_parity():
    assert_parity(_operators, rtol=1e-5)


def test_operators_graph_def():
    assert_same_graph_def(_operators)


def test_bool_multiply_operator():
    def program(tf):
        a = tf.constant([True, False, True])
        return [a * tf.constant([True, True, False]), a * True]

    assert_parity(program)
    assert_same_graph_def(program)


def test_operator_type_errors():
    with tfcompat.Graph().as_default():
        i = tfcompat.constant([1, 2])
        f = tfcompat.constant([1.0, 2.0])
        with pytest.raises((TypeError, ValueError)):
            i + f
        with pytest.raises(TypeError):
            i + 1.5
        with pytest.raises(TypeError):
            1.5 - i


def test_tensor_eq_is_identity_and_hashable():
    with tfcompat.Graph().as_default():
        a = tfcompat.constant(1.0)
        b = tfcompat.constant(1.0)
        assert a == a and a != b and not (a == b)
        assert len({a, b, a}) == 2


# ---------------------------------------------------------------------------------------------
# Composites
# ---------------------------------------------------------------------------------------------
def test_division_composites_graph_def():
    def program(tf):
        i = tf.constant([7, -7, 9])
        f = tf.constant([7.0, -7.0, 9.0])
        return [
            tf.truediv(i, 2),
            tf.div(i, tf.constant([2, 2, 4])),
            tf.div(f, 2.0),
            tf.divide(f, 2.0),
            tf.divide(7.0, f),
            tf.divide(f, 3.0, name="named"),
            tf.floordiv(i, 2),
            tf.mod(i, 4),
            tf.math.divide_no_nan(f, 0.0),
            tf.math.divide_no_nan(3.0, f),
            tf.realdiv(f, f),
            tf.truncatediv(i, 2),
            tf.truncatemod(i, 4),
            tf.pow(f, 2.0),
            tf.add(f, 1.0),
            tf.subtract(f, 1.0),
            tf.multiply(f, f),
            tf.scalar_mul(2.0, f),
            tf.math.xdivy(f, f),
        ]

    assert_parity(program)
    assert_same_graph_def(program)


def test_truediv_rejects_mixed_dtypes():
    with tfcompat.Graph().as_default():
        with pytest.raises(TypeError, match="same dtype"):
            tfcompat.truediv(tfcompat.constant([1, 2]), tfcompat.constant([1.0, 2.0]))
        with pytest.raises(TypeError, match="Invalid dtype"):
            tfcompat.truediv(tfcompat.constant([True]), tfcompat.constant([True]))


def test_unary_wrapper_names_graph_def():
    def program(tf):
        x = tf.constant([0.5, 1.5, 2.5])
        i = tf.constant([1, -2])
        return [
            tf.exp(x),
            tf.sqrt(x, name="root"),
            tf.sigmoid(x),
            tf.abs(x),
            tf.sign(x),
            tf.round(x),
            tf.round(i),
            tf.negative(x),
            tf.math.reciprocal(x),
            tf.atan2(x, x),
            tf.squared_difference(x, 1.0),
            tf.maximum(x, 1.0),
            tf.minimum(1.0, x),
            tf.is_nan(x),
            tf.tanh([1.0, 2.0]),
        ]

    assert_parity(program, rtol=1e-5)
    assert_same_graph_def(program)


def test_integer_division_by_zero_reference_fails():
    with tfcompat.Graph().as_default():
        z = tfcompat.floordiv(tfcompat.constant([2]), tfcompat.constant([0]))
        with tfcompat.Session(backend="reference") as sess:
            with pytest.raises(tfcompat.errors.InvalidArgumentError):
                sess.run(z)


def test_pow_negative_integer_exponent_reference_fails():
    with tfcompat.Graph().as_default():
        z = tfcompat.pow(tfcompat.constant([2]), tfcompat.constant([-1]))
        with tfcompat.Session(backend="reference") as sess:
            with pytest.raises(tfcompat.errors.InvalidArgumentError):
                sess.run(z)


def test_binary_shape_error():
    with tfcompat.Graph().as_default():
        with pytest.raises(ValueError, match="Dimensions must be equal"):
            tfcompat.constant(np.zeros((2, 3))) * tfcompat.constant(np.zeros((4,)))


# ---------------------------------------------------------------------------------------------
# Matrix products
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64", "float16"])
@pytest.mark.parametrize("ta,tb", [(False, False), (True, False), (False, True), (True, True)])
def test_matmul_parity(dtype, ta, tb):
    np_dtype = _np_dtype(dtype)
    a = _values(-3, 3, np_dtype, (4, 3) if ta else (3, 4))
    b = _values(-3, 3, np_dtype, (5, 4) if tb else (4, 5))
    rtol = 1e-2 if dtype == "float16" else 1e-5

    def program(tf):
        return tf.matmul(a, b, transpose_a=ta, transpose_b=tb)

    assert_parity(program, rtol=rtol, atol=rtol)


def test_batch_matmul_parity_and_graph_def():
    a = RNG.normal(size=(2, 3, 4)).astype(np.float32)
    b = RNG.normal(size=(4, 5)).astype(np.float32)
    c = RNG.normal(size=(1, 5, 4)).astype(np.float32)

    def program(tf):
        x = tf.placeholder(tf.float32, [None, 3, 4])
        return [
            tf.matmul(x, b),
            tf.matmul(x, c, transpose_b=True),
            tf.matmul(x, c, adjoint_b=True),
            tf.linalg.matmul(a, a, transpose_a=True),
            x @ b,
        ], {x: a}

    assert_parity(program, rtol=1e-5, atol=1e-5)
    assert_same_graph_def(program)


def test_matmul_shape_errors():
    with tfcompat.Graph().as_default():
        with pytest.raises(ValueError, match="Dimensions must be equal"):
            tfcompat.matmul(np.zeros((2, 3), np.float32), np.zeros((4, 5), np.float32))
        with pytest.raises(ValueError, match="Only one of"):
            tfcompat.matmul(
                np.zeros((2, 3), np.float32),
                np.zeros((3, 5), np.float32),
                transpose_a=True,
                adjoint_a=True,
            )
        with pytest.raises(ValueError, match="Dimensions must be equal"):
            tfcompat.matmul(np.zeros((2, 2, 3), np.float32), np.zeros((2, 4, 5), np.float32))
