"""Gradients of math ops against TensorFlow 2.21: the same ``tf.gradients`` program gives
the same values, and for simple programs the same GraphDef (node names, ops, inputs)."""

from __future__ import annotations

import numpy as np
import pytest

from tests.ops.math_grad_cases import BINARY, BINARY_SHAPES, UNARY, values
from tests.oracle import assert_parity, assert_same_graph_def


def _gradient_program(case, shapes, dtype, static=True):
    def program(tf):
        xs, feed = [], {}
        for i, shape in enumerate(shapes):
            p = tf.placeholder(dtype, shape if static else [None] * len(shape), name=f"x{i}")
            xs.append(p)
            feed[p] = values(case, shape, dtype, seed=3, which=i)
        return tf.gradients(case.build(tf, *xs), xs), feed

    return program


_RTOL = {np.float32: 2e-5, np.float64: 1e-10}


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=lambda d: d.__name__)
@pytest.mark.parametrize("case", UNARY, ids=lambda c: c.name)
def test_unary_gradient_values_match_tf(case, dtype):
    rtol = _RTOL[dtype]
    assert_parity(_gradient_program(case, [(2, 3)], dtype), rtol=rtol, atol=rtol)


@pytest.mark.parametrize("shapes", BINARY_SHAPES, ids=str)
@pytest.mark.parametrize("case", BINARY, ids=lambda c: c.name)
def test_binary_gradient_values_match_tf(case, shapes):
    assert_parity(_gradient_program(case, list(shapes), np.float32), rtol=2e-5, atol=2e-5)


@pytest.mark.parametrize("case", BINARY[:4], ids=lambda c: c.name)
def test_binary_gradient_values_match_tf_with_unknown_dims(case):
    program = _gradient_program(case, [(2, 3), (3,)], np.float32, static=False)
    assert_parity(program, rtol=2e-5, atol=2e-5)


def _mlp(tf):
    rng = np.random.default_rng(1)
    x = tf.placeholder(tf.float32, (None, 4), name="x")
    target = tf.placeholder(tf.float32, (None, 2), name="target")
    w1 = tf.placeholder(tf.float32, (4, 5), name="w1")
    b1 = tf.placeholder(tf.float32, (5,), name="b1")
    w2 = tf.placeholder(tf.float32, (5, 2), name="w2")
    hidden = tf.sigmoid(tf.matmul(x, w1) + b1)
    loss = tf.reduce_mean(tf.math.squared_difference(tf.matmul(hidden, w2), target))
    feed = {
        x: rng.normal(size=(6, 4)).astype(np.float32),
        target: rng.normal(size=(6, 2)).astype(np.float32),
        w1: rng.normal(size=(4, 5)).astype(np.float32),
        b1: rng.normal(size=(5,)).astype(np.float32),
        w2: rng.normal(size=(5, 2)).astype(np.float32),
    }
    return tf.gradients(loss, [w1, b1, w2]), feed


def _batched_attention_like(tf):
    rng = np.random.default_rng(2)
    q = tf.placeholder(tf.float64, (2, 3, 4), name="q")
    k = tf.placeholder(tf.float64, (4, 5), name="k")
    scores = tf.matmul(q, k) / 2.0
    weights = tf.exp(scores - tf.reduce_max(scores, axis=-1, keepdims=True))
    out = tf.reduce_sum(weights * tf.cumsum(scores, axis=1), axis=[0, 2])
    feed = {q: rng.normal(size=(2, 3, 4)), k: rng.normal(size=(4, 5))}
    return tf.gradients(tf.reduce_prod(out), [q, k]), feed


@pytest.mark.parametrize("program", [_mlp, _batched_attention_like], ids=lambda p: p.__name__)
def test_composite_gradient_values_match_tf(program):
    assert_parity(program, rtol=1e-5, atol=1e-5)


# ---------------------------------------------------------------------------------------------
# Node-name parity of gradient graphs
# ---------------------------------------------------------------------------------------------
def _ph(tf, feed, shape, name):
    """A float32 placeholder fed with seeded values (unknown dims fed as 2)."""
    p = tf.placeholder(tf.float32, shape, name=name)
    concrete = [2 if d is None else d for d in shape]
    feed[p] = np.random.default_rng(len(feed)).uniform(-2, 2, concrete).astype(np.float32)
    return p


def _sum_of_product(tf):
    feed = {}
    x = _ph(tf, feed, (2, 3), "x")
    w = _ph(tf, feed, (2, 3), "w")
    return tf.gradients(tf.reduce_sum(x * w), [w]), feed


def _broadcast_mul(tf):
    feed = {}
    x = _ph(tf, feed, (2, 3), "x")
    y = _ph(tf, feed, (3,), "y")
    return tf.gradients(x * y, [x, y]), feed


def _dynamic_add(tf):
    feed = {}
    x = _ph(tf, feed, (None, 3), "x")
    y = _ph(tf, feed, (3,), "y")
    return tf.gradients(x + y, [x, y]), feed


def _mean_squared_error(tf):
    feed = {}
    x = _ph(tf, feed, (4, 3), "x")
    w = _ph(tf, feed, (3, 2), "w")
    t = _ph(tf, feed, (4, 2), "t")
    loss = tf.reduce_mean(tf.math.squared_difference(tf.matmul(x, w), t))
    return tf.gradients(loss, [w]), feed


def _unary_chain(tf):
    feed = {}
    x = _ph(tf, feed, (3,), "x")
    return tf.gradients(tf.reduce_sum(tf.tanh(tf.sigmoid(tf.exp(tf.sqrt(x))))), [x]), feed


def _reductions(tf):
    feed = {}
    x = _ph(tf, feed, (2, 3), "x")
    return tf.gradients(tf.reduce_max(x, axis=1) + tf.reduce_mean(x, axis=1), [x]), feed


def _dynamic_sum(tf):
    feed = {}
    x = _ph(tf, feed, (None, 3), "x")
    return tf.gradients(tf.reduce_sum(x, axis=1), [x]), feed


def _select_and_clip(tf):
    feed = {}
    x = _ph(tf, feed, (2, 3), "x")
    y = tf.where_v2(x > 0.0, tf.clip_by_value(x, -1.0, 1.0), tf.square(x))
    return tf.gradients(y, [x]), feed


@pytest.mark.parametrize(
    "program",
    [
        _sum_of_product,
        _broadcast_mul,
        _dynamic_add,
        _mean_squared_error,
        _unary_chain,
        _reductions,
        _dynamic_sum,
        _select_and_clip,
    ],
    ids=lambda p: p.__name__,
)
def test_gradient_graph_matches_tf(program):
    assert_same_graph_def(program)
