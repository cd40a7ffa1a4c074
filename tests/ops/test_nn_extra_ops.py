"""``tf.nn`` crelu, swish/silu, gelu, weighted_cross_entropy_with_logits, weighted_moments
and in_top_k vs TF 2.21: values, gradients, GraphDef node names and errors."""

from __future__ import annotations

import numpy as np
import pytest

import tfcompat
from lowering.gradcheck import check_gradients
from tests.ops.nn_helpers import sample
from tests.oracle import assert_parity, assert_same_graph_def, tf1

_TOL = {"rtol": 1e-5, "atol": 1e-5}
_NO_GRAD_TYPE = ("_output_shapes", "_gradient_op_type")  # CustomGradient-<uid> differs


def _v2(tf, name):
    """``tf.nn.<name>``; gelu is TF2-only, so TF's comes from its v2 namespace."""
    if tf is tfcompat:
        return getattr(tf.nn, name)
    import tensorflow

    return getattr(tensorflow.nn, name)


def _with_grads(build, x_value):
    def program(tf):
        x = tf.constant(x_value, name="x")
        y = build(tf, x)
        w = tf.constant(sample(y.shape.as_list(), x_value.dtype, seed=9), name="w")
        return [y, tf.gradients(tf.reduce_sum(y * w), [x])]

    return program


ACTIVATIONS = {
    "crelu": lambda tf, x: tf.nn.crelu(x),
    "crelu_axis0": lambda tf, x: tf.nn.crelu(x, axis=0, name="cr"),
    "swish": lambda tf, x: tf.nn.swish(x),
    "silu_beta": lambda tf, x: tf.nn.silu(x, beta=0.7),
    "gelu": lambda tf, x: _v2(tf, "gelu")(x),
    "gelu_approx": lambda tf, x: _v2(tf, "gelu")(x, approximate=True, name="g"),
}


@pytest.mark.parametrize("case", sorted(ACTIVATIONS))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_activation_values_and_gradients_match_tf(case, dtype):
    x = sample((3, 4), dtype)
    assert_parity(_with_grads(ACTIVATIONS[case], x), **_TOL)


@pytest.mark.parametrize("case", sorted(ACTIVATIONS))
def test_activation_graphs_match_tf(case):
    x = sample((3, 4), np.float32)
    assert_same_graph_def(_with_grads(ACTIVATIONS[case], x), ignore_attrs=_NO_GRAD_TYPE)


def test_swish_gradient_in_beta_matches_tf_and_jax():
    x_value = sample((5,), np.float64)

    def program(tf):
        x = tf.constant(x_value)
        beta = tf.constant(1.3, tf.float64)
        y = tf.nn.swish(x, beta)
        return tf.gradients(tf.reduce_sum(y * y), [x, beta])

    assert_parity(program, **_TOL)
    with tfcompat.Graph().as_default():
        x = tfcompat.placeholder(tfcompat.float64, [5])
        beta = tfcompat.placeholder(tfcompat.float64, [])
        y = tfcompat.nn.swish(x, beta)
        feed = {x: x_value, beta: 1.3}
        check_gradients(y, [x, beta], feed_dict=feed).assert_close(atol=1e-10)


def test_gelu_rejects_integers():
    with tfcompat.Graph().as_default():
        with pytest.raises(ValueError, match="must be a floating point tensor"):
            tfcompat.nn.gelu(tfcompat.constant([1, 2]))


# ---------------------------------------------------------------------------------------------
# weighted_cross_entropy_with_logits and weighted_moments
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("pos_weight", [0.5, 3.0, "tensor"])
def test_weighted_cross_entropy_matches_tf(pos_weight):
    logits = sample((4, 3), np.float32) * 5
    labels = np.random.default_rng(1).uniform(size=(4, 3)).astype(np.float32)

    def program(tf):
        x = tf.constant(logits)
        weight = tf.constant([1.0, 2.0, 0.3]) if pos_weight == "tensor" else pos_weight
        loss = tf.nn.weighted_cross_entropy_with_logits(
            labels=tf.constant(labels), logits=x, pos_weight=weight
        )
        return [loss, tf.gradients(tf.reduce_sum(loss), [x])]

    assert_parity(program, **_TOL)
    assert_same_graph_def(program)


def test_weighted_cross_entropy_targets_alias_and_shape_error():
    def program(tf):
        return tf.nn.weighted_cross_entropy_with_logits(
            targets=[1.0, 0.0], logits=[2.0, -1.0], pos_weight=2.0, name="wce"
        )

    assert_parity(program)
    assert_same_graph_def(program)
    for tf in (tfcompat, tf1()):
        with tf.Graph().as_default(), pytest.raises(ValueError, match="must have the same shape"):
            tf.nn.weighted_cross_entropy_with_logits(
                labels=tf.zeros([2, 3]), logits=tf.zeros([3, 2]), pos_weight=1.0
            )


MOMENT_CASES = {
    "axis0": ((4, 3), (4, 1), [0], False),
    "both_keep": ((4, 3), (4, 3), [0, 1], True),
    "last": ((2, 3, 5), (5,), [2], False),
    "int_weights": ((3, 4), "int", [1], False),
    "zero_weights": ((3, 4), "zero", [1], False),
    "half": ((3, 4), (3, 1), [0], False),
}


@pytest.mark.parametrize("case", sorted(MOMENT_CASES))
def test_weighted_moments_match_tf(case):
    x_shape, w_spec, axes, keep = MOMENT_CASES[case]
    dtype = np.float16 if case == "half" else np.float32
    x_value = sample(x_shape, dtype)
    if w_spec == "int":
        weights = np.arange(12, dtype=np.int32).reshape(3, 4) % 3
    elif w_spec == "zero":
        weights = np.zeros(x_shape, np.float32)
    else:
        weights = np.abs(sample(w_spec, dtype, seed=2))

    def program(tf):
        x = tf.constant(x_value)
        mean, var = tf.nn.weighted_moments(x, axes, tf.constant(weights), keep_dims=keep)
        outs = [mean, var]
        if dtype != np.float16:
            outs.append(tf.gradients(tf.reduce_sum(mean) + tf.reduce_sum(var), [x]))
        return outs

    tol = {"rtol": 2e-3, "atol": 2e-3} if dtype == np.float16 else {"rtol": 1e-4, "atol": 1e-5}
    assert_parity(program, **tol)
    assert_same_graph_def(program)


# ---------------------------------------------------------------------------------------------
# in_top_k
# ---------------------------------------------------------------------------------------------
IN_TOP_K_CASES = {
    "plain": ([[0.1, 0.5, 0.3], [0.9, 0.05, 0.05]], [1, 2], 1),
    "ties_count_in_favour": ([[0.5, 0.5, 0.1], [0.2, 0.2, 0.2]], [1, 0], 1),
    "k2": ([[1.0, 2.0, 3.0, 4.0], [4.0, 3.0, 2.0, 1.0]], [2, 2], 2),
    "non_finite_row": ([[1.0, np.nan, 3.0], [np.inf, 1.0, 2.0]], [2, 0], 3),
    "out_of_range_target": ([[1.0, 2.0, 3.0], [1.0, 2.0, 3.0]], [3, -1], 3),
    "k0": ([[1.0, 2.0]], [1], 0),
}


@pytest.mark.parametrize("case", sorted(IN_TOP_K_CASES))
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
def test_in_top_k_matches_tf(case, index_dtype):
    predictions, targets, k = IN_TOP_K_CASES[case]

    def program(tf):
        p = tf.constant(np.array(predictions, np.float32))
        t = tf.constant(np.array(targets, index_dtype))
        return [tf.nn.in_top_k(p, t, k), tf.math.in_top_k(p, t, tf.constant(k, index_dtype))]

    assert_parity(program)


def test_in_top_k_graph_and_shape_errors():
    def program(tf):
        return tf.nn.in_top_k(tf.constant([[1.0, 2.0]]), [1], 1, name="top")

    assert_same_graph_def(program)
    for tf in (tfcompat, tf1()):
        with tf.Graph().as_default():
            with pytest.raises(ValueError):
                tf.nn.in_top_k(tf.zeros([2, 3]), [1, 2, 0], 1)
            with pytest.raises(ValueError):
                tf.nn.in_top_k(tf.zeros([3]), [1], 1)
