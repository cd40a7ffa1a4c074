"""TF parity of ``tf.sort`` / ``tf.argsort`` (TopKV2-based graphs: stable order, both
directions, any axis, integer extremes) and of the nn_impl composites ``l2_normalize``,
``moments`` and ``sigmoid_cross_entropy_with_logits``."""

from __future__ import annotations

import numpy as np
import pytest

import tfcompat
from tests.ops.nn_helpers import sample
from tests.oracle import assert_parity, assert_same_graph_def, tf1

SORT_DTYPES = [np.float32, np.float64, np.int32, np.int64, np.uint8, np.int8]


# ---------------------------------------------------------------------------------------------
# sort / argsort
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("fn", ["sort", "argsort"])
@pytest.mark.parametrize("direction", ["ASCENDING", "DESCENDING"])
@pytest.mark.parametrize("dtype", SORT_DTYPES)
@pytest.mark.parametrize("shape, axis", [((9,), -1), ((3, 5), 0), ((2, 3, 4), 1), ((2, 3, 4), -1)])
def test_sort_parity(fn, direction, dtype, shape, axis):
    # Small integers give many ties: argsort must keep them in index order.
    values = sample(shape, dtype, seed=50)
    if np.dtype(dtype).kind == "f":
        values = np.round(values)

    def program(tf):
        x = tf.placeholder(tf.as_dtype(dtype), shape)
        return getattr(tf, fn)(x, axis=axis, direction=direction), {x: values}

    assert_parity(program)
    assert_same_graph_def(program)


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.int8, np.uint8, np.uint16])
def test_sort_integer_extremes(dtype):
    info = np.iinfo(dtype)
    values = np.array([3, info.min, info.max, 0, info.max, info.min, 1], dtype)

    def program(tf):
        return [
            tf.sort(values),
            tf.argsort(values),
            tf.sort(values, direction="DESCENDING"),
            tf.argsort(values, direction="DESCENDING", stable=True),
        ]

    assert_parity(program)


def test_sort_floats_with_infinities_and_ties():
    values = np.array([[1.0, -np.inf, 3.0, np.inf, 1.0, -2.5, 3.0]], np.float32)

    def program(tf):
        return [tf.sort(values, name="s"), tf.argsort(values, axis=1), tf.argsort(values, 0)]

    assert_parity(program)
    assert_same_graph_def(program)


def test_argsort_ascending_is_stable():
    values = np.array([1.0, 3.0, 3.0, 2.0, 3.0])
    with tfcompat.Graph().as_default():
        out = tfcompat.argsort(values)
        with tfcompat.Session() as sess:
            np.testing.assert_array_equal(sess.run(out), [0, 3, 1, 2, 4])


def test_sort_errors():
    for tf in (tfcompat, tf1()):
        with tf.Graph().as_default():
            x = tf.placeholder(tf.float32, [2, 3])
            with pytest.raises(ValueError, match="Argument `direction` should be one of"):
                tf.sort(x, direction="UP")
            with pytest.raises(ValueError, match="Argument `axis` must be a constant scalar"):
                tf.sort(x, axis=tf.placeholder(tf.int32, []))


# ---------------------------------------------------------------------------------------------
# l2_normalize, moments, sigmoid_cross_entropy_with_logits
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "fn, kwargs",
    [
        ("nn.l2_normalize", {"axis": 1}),
        ("nn.l2_normalize", {"axis": 0, "epsilon": 1e-3}),
        ("math.l2_normalize", {"dim": [0, 1]}),
        ("linalg.l2_normalize", {}),
        ("nn.l2_normalize", {"axis": -1, "name": "unit"}),
    ],
)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_l2_normalize(fn, kwargs, dtype):
    values = sample((3, 4), dtype, seed=51)
    values[1] = 0.0  # a zero row: the epsilon floor keeps it finite

    def program(tf):
        x = tf.placeholder(tf.as_dtype(dtype), [3, 4])
        space, name = fn.split(".")
        return getattr(getattr(tf, space), name)(x, **kwargs), {x: values}

    assert_parity(program, rtol=1e-6)
    assert_same_graph_def(program)


@pytest.mark.parametrize(
    "axes, kwargs",
    [
        ([0], {}),
        ([0, 1], {}),
        ([1], {"keep_dims": True}),
        ([0, 2], {"keepdims": True}),
        ([2], {"shift": 1.0, "name": "m"}),
    ],
)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
def test_moments(axes, kwargs, dtype):
    values = (sample((2, 3, 4), np.float32, seed=52) + 5.0).astype(dtype)
    tol = 2e-3 if dtype == np.float16 else 1e-5

    def program(tf):
        x = tf.placeholder(tf.as_dtype(dtype), [None, 3, 4])
        return tf.nn.moments(x, axes, **kwargs), {x: values}

    assert_parity(program, rtol=tol, atol=tol)
    assert_same_graph_def(program)


def test_moments_rejects_both_keepdims_spellings():
    for tf in (tfcompat, tf1()):
        with tf.Graph().as_default():
            with pytest.raises(ValueError, match="Cannot specify both 'keep_dims' and 'keepdims'"):
                tf.nn.moments(tf.constant([1.0, 2.0]), [0], keep_dims=True, keepdims=True)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_sigmoid_cross_entropy(dtype):
    logits = sample((4, 5), dtype, seed=53, scale=30.0)  # large |x|: the stable form matters
    labels = np.random.default_rng(54).random((4, 5)).astype(dtype)

    def program(tf):
        x = tf.placeholder(tf.as_dtype(dtype), [None, 5])
        z = tf.placeholder(tf.as_dtype(dtype), [None, 5])
        loss = tf.nn.sigmoid_cross_entropy_with_logits(labels=z, logits=x)
        return loss, {x: logits, z: labels}

    assert_parity(program, rtol=1e-6)
    assert_same_graph_def(program)


def test_sigmoid_cross_entropy_errors():
    for tf in (tfcompat, tf1()):
        with tf.Graph().as_default():
            with pytest.raises(ValueError, match="`logits` and `labels` must have the same shape"):
                tf.nn.sigmoid_cross_entropy_with_logits(
                    labels=tf.zeros([2, 3]), logits=tf.zeros([3, 2])
                )
            with pytest.raises(ValueError, match="Both `labels` and `logits` must be provided"):
                tf.nn.sigmoid_cross_entropy_with_logits(logits=tf.zeros([2]))


def test_nn_aliases_of_math_ops():
    assert tfcompat.nn.sigmoid is tfcompat.math.sigmoid
    assert tfcompat.nn.tanh is tfcompat.math.tanh

    def program(tf):
        return [tf.nn.sigmoid([0.5, -3.0]), tf.nn.tanh([0.5, -3.0])]

    assert_parity(program)
    assert_same_graph_def(program)
