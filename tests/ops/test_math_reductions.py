"""Parity with TF 2.21 of reductions, arg-reductions, scans, AddN, Einsum, Range, LinSpace
and the composites built from them (reduce_logsumexp, norm, count_nonzero)."""

import numpy as np
import pytest

import tfcompat
from tests.oracle import assert_parity, assert_same_graph_def, run, tf1

RNG = np.random.default_rng(1)
X = RNG.normal(size=(2, 3, 4)).astype(np.float32)

REDUCTIONS = ["reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod"]
AXES = [None, 0, 1, -1, [0, 2], [], (1, -1)]


def _typed(dtype):
    if dtype.startswith("int"):
        return RNG.integers(-9, 10, size=X.shape).astype(dtype)
    return X.astype(dtype)


@pytest.mark.parametrize("name", REDUCTIONS)
@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64"])
@pytest.mark.parametrize("axis", AXES)
@pytest.mark.parametrize("keepdims", [False, True])
def test_reduction_parity(name, dtype, axis, keepdims):
    value = _typed(dtype)

    def program(tf):
        x = tf.constant(value)
        return getattr(tf, name)(x, axis=axis, keepdims=keepdims)

    assert_parity(program, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("name", ["reduce_all", "reduce_any"])
@pytest.mark.parametrize("axis", [None, 0, [1, 2], -1])
def test_boolean_reductions(name, axis):
    value = RNG.integers(0, 2, size=(2, 3, 4)) > 0

    def program(tf):
        return getattr(tf, name)(tf.constant(value), axis=axis)

    assert_parity(program)


def test_reduction_deprecated_spellings_and_graph_def():
    def program(tf):
        x = tf.placeholder(tf.float32, [None, 3])
        s = tf.placeholder(tf.float32, [])
        u = tf.placeholder(tf.float32)
        return [
            tf.reduce_sum(x, reduction_indices=[1], keep_dims=True),
            tf.reduce_mean(x),
            tf.math.reduce_max(x, axis=0, name="m"),
            tf.reduce_sum(s),
            tf.reduce_sum(u),
            tf.reduce_sum([1.0, 2.0]),
            tf.reduce_prod(x, 1, True),
        ], {x: X[0].T, s: 2.0, u: X}

    assert_parity(program, rtol=1e-5)
    assert_same_graph_def(program)


def test_reduction_static_shapes_with_unknown_axes():
    def program(tf):
        x = tf.placeholder(tf.float32, [2, None, 4])
        a = tf.placeholder(tf.int32, [None])
        return [tf.reduce_sum(x, a), tf.reduce_sum(x, a, keepdims=True)], {x: X, a: [1]}

    # Static shapes only: a fed axis cannot be compiled by XLA.
    theirs = program(tfcompat)
    assert theirs[0][0].shape.rank is None
    assert theirs[0][1].shape.as_list() == [None, None, None]


def test_reduction_errors():
    with tfcompat.Graph().as_default():
        with pytest.raises(ValueError, match="Invalid reduction dimension"):
            tfcompat.reduce_sum(X, axis=3)
        with pytest.raises(ValueError, match="Cannot specify both"):
            tfcompat.reduce_sum(X, axis=1, reduction_indices=1)


def test_mean_of_integers_truncates_and_empty_reductions():
    def program(tf):
        i = tf.constant([[1, 2, 2], [-1, -2, -2]])
        empty = tf.constant(np.zeros((0, 3), np.float32))
        empty_i = tf.constant(np.zeros((0, 3), np.int32))
        return [
            tf.reduce_mean(i, 1),
            tf.reduce_max(empty, 0),
            tf.reduce_min(empty_i, 0),
            tf.reduce_sum(empty, 0),
            tf.reduce_prod(empty_i, 0),
            tf.reduce_mean(empty_i, 0),
        ]

    assert_parity(program)


def test_max_min_propagate_nan():
    value = np.array([[np.nan, 1.0], [2.0, 3.0]], np.float32)

    def program(tf):
        x = tf.constant(value)
        return [tf.reduce_max(x, 1), tf.reduce_min(x, 1), tf.argmax(x, 1), tf.argmin(x, 1)]

    assert_parity(program)


@pytest.mark.parametrize("name", ["argmax", "argmin"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64"])
@pytest.mark.parametrize("axis", [0, 1, -1])
@pytest.mark.parametrize("output_type", ["int32", "int64"])
def test_arg_reductions(name, dtype, axis, output_type):
    value = _typed(dtype)

    def program(tf):
        return getattr(tf, name)(tf.constant(value), axis, output_type=tf.as_dtype(output_type))

    assert_parity(program)


def test_arg_reduction_graph_def_and_dimension_alias():
    def program(tf):
        x = tf.placeholder(tf.float32, [2, 3, 4])
        return [
            tf.argmax(x),
            tf.argmin(x, dimension=2),
            tf.math.argmax(x, tf.constant(1)),
            tf.argmax(x, tf.constant(1, tf.int64), name="a"),
        ], {x: X}

    assert_parity(program)
    assert_same_graph_def(program)


@pytest.mark.parametrize("name", ["cumsum", "cumprod"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64"])
@pytest.mark.parametrize("axis", [0, 1, -1])
@pytest.mark.parametrize("exclusive", [False, True])
@pytest.mark.parametrize("reverse", [False, True])
def test_scans(name, dtype, axis, exclusive, reverse):
    value = (
        _typed(dtype) if dtype.startswith("float") else RNG.integers(-3, 4, X.shape).astype(dtype)
    )

    def program(tf):
        return getattr(tf, name)(tf.constant(value), axis, exclusive=exclusive, reverse=reverse)

    assert_parity(program, rtol=1e-5, atol=1e-5)


def test_scans_graph_def():
    def program(tf):
        return [tf.cumsum([1.0, 2.0, 3.0]), tf.math.cumprod([1, 2, 3], exclusive=True, name="p")]

    assert_parity(program)
    assert_same_graph_def(program)


def test_add_n():
    def program(tf):
        a = tf.constant(X)
        return [
            tf.add_n([a, a, 2 * a]),
            tf.add_n([a]),
            tf.add_n([a], name="one"),
            tf.math.add_n([tf.constant([1, 2]), tf.constant([3, 4])]),
        ]

    assert_parity(program)
    assert_same_graph_def(program)


def test_add_n_errors():
    with tfcompat.Graph().as_default():
        with pytest.raises(ValueError):
            tfcompat.add_n([])
        with pytest.raises(ValueError, match="rank"):
            tfcompat.add_n([tfcompat.constant(X), tfcompat.constant(1.0)])


@pytest.mark.parametrize(
    "equation,shapes",
    [
        ("ij,jk->ik", [(2, 3), (3, 4)]),
        ("ij,jk", [(2, 3), (3, 4)]),
        ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
        ("ij->ji", [(3, 4)]),
        ("ii->i", [(3, 3)]),
        ("ij->", [(3, 4)]),
        ("...ij,...jk->...ik", [(2, 3, 4), (4, 5)]),
        ("i,j->ij", [(3,), (4,)]),
        ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)]),
    ],
)
def test_einsum(equation, shapes):
    values = [RNG.normal(size=s).astype(np.float32) for s in shapes]

    def program(tf):
        return tf.einsum(equation, *[tf.constant(v) for v in values])

    assert_parity(program, rtol=1e-5, atol=1e-5)
    assert_same_graph_def(program)


def test_einsum_errors():
    with tfcompat.Graph().as_default():
        a = tfcompat.constant(np.zeros((2, 3), np.float32))
        with pytest.raises(ValueError):
            tfcompat.einsum("ij,jk->ik", a, a)
        with pytest.raises(ValueError, match="expecting"):
            tfcompat.einsum("ij,jk->ik", a)


@pytest.mark.parametrize(
    "args,kwargs",
    [
        ((5,), {}),
        ((1, 10, 2), {}),
        ((1, 10.0, 2), {}),
        ((10, 1, -3), {}),
        ((0.5, 3.1, 0.7), {}),
        ((4,), {"dtype": "int64"}),
        ((4,), {"dtype": "float64"}),
        ((2, 2), {}),
    ],
)
def test_range(args, kwargs):
    def program(tf):
        kw = {k: tf.as_dtype(v) for k, v in kwargs.items()}
        return tf.range(*args, **kw)

    assert_parity(program)
    assert_same_graph_def(program)


def test_range_errors():
    with tfcompat.Graph().as_default():
        with pytest.raises(ValueError, match="Requires start <= limit when delta > 0"):
            tfcompat.range(10, 1, 3)
        with pytest.raises(ValueError, match="Requires delta != 0"):
            tfcompat.range(1, 10, 0)


def test_range_shape_feeds_reshape_like_constant_value():
    from tfcompat.framework.constant_value import constant_value

    with tfcompat.Graph().as_default():
        r = tfcompat.range(2, 8, 2)
        np.testing.assert_array_equal(constant_value(r), [2, 4, 6])


@pytest.mark.parametrize("start,stop,num", [(0.0, 1.0, 5), (3.0, -1.0, 4), (2.0, 7.0, 1)])
def test_linspace_values(start, stop, num):
    def program(tf):
        return tf.linspace(start, stop, num)

    assert_parity(program)


def test_reduce_logsumexp():
    value = np.array(
        [[1.0, 2.0, 3.0], [-np.inf, -np.inf, -np.inf], [1000.0, 1000.0, 0.0]], np.float32
    )

    def program(tf):
        x = tf.placeholder(tf.float32, [3, 3])
        return [
            tf.reduce_logsumexp(x, axis=1),
            tf.reduce_logsumexp(x, 1, keepdims=True),
            tf.reduce_logsumexp(x, name="lse"),
        ], {x: value}

    assert_parity(program, rtol=1e-5)
    assert_same_graph_def(program)


@pytest.mark.parametrize(
    "ord_,axis",
    [
        ("euclidean", None),
        ("euclidean", 1),
        (1, None),
        (1, 0),
        (2, -1),
        (np.inf, None),
        (np.inf, 1),
        (3, 1),
        (0.5, None),
        ("fro", (0, 1)),
        (1, (0, 1)),
        (np.inf, (1, 0)),
        ("euclidean", [0, 1]),
    ],
)
def test_norm(ord_, axis):
    value = RNG.normal(size=(3, 4)).astype(np.float32)

    def program(tf):
        x = tf.placeholder(tf.float32, [3, 4])
        return [tf.norm(x, ord=ord_, axis=axis), tf.norm(x, ord=ord_, axis=axis, keepdims=True)], {
            x: value
        }

    assert_parity(program, rtol=1e-5, atol=1e-5)
    assert_same_graph_def(program)


@pytest.mark.parametrize("backend", ["xla", "reference"])
@pytest.mark.parametrize("axis", [(1, 2), (-1, 0), (0, 1)])
def test_matrix_2_norm_values_and_gradients_match_tf(backend, axis):
    """The largest singular value, through ``Svd``. TF computes the transposes'
    permutations with ``map_fn`` loops, so its results have unknown static shapes; here
    they are constants (XLA needs them) and the shapes are known: values and gradients
    are compared."""
    value = RNG.normal(size=(2, 3, 4)).astype(np.float32)

    def program(tf):
        x = tf.placeholder(tf.float32, [2, 3, 4])
        kept = tf.norm(x, ord=2, axis=axis, keepdims=True)
        dropped = tf.norm(x, ord=2, axis=list(axis))
        grad = tf.gradients(tf.reduce_sum(dropped) + tf.reduce_sum(kept * 2.0), x)[0]
        return [kept, dropped, grad], {x: value}

    theirs = run(tf1(), program)
    ours = run(tfcompat, program, backend=backend)
    for a, b in zip(ours.values, theirs.values):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)
    reduced = {a % value.ndim for a in axis}
    assert ours.shapes[0] == [1 if d in reduced else n for d, n in enumerate(value.shape)]


def test_norm_errors():
    with tfcompat.Graph().as_default():
        x = tfcompat.constant(np.ones((2, 2), np.float32))
        with pytest.raises(ValueError, match="'ord' must be a supported vector norm"):
            tfcompat.norm(x, ord=-1)
        with pytest.raises(ValueError, match="'axis' must be None"):
            tfcompat.norm(x, axis=(0, 0))


@pytest.mark.parametrize("dtype", ["float32", "int32", "bool"])
@pytest.mark.parametrize("axis", [None, 0, 1])
def test_count_nonzero(dtype, axis):
    value = RNG.integers(-1, 2, size=(3, 4)).astype(dtype)

    def program(tf):
        return tf.count_nonzero(tf.constant(value), axis=axis)

    assert_parity(program)
    assert_same_graph_def(program)
