"""tf.nn.xw_plus_b, relu_layer, zero_fraction, sufficient_statistics, normalize_moments and
tf.math.log_sigmoid against TF 2.21: values, gradients and GraphDefs."""

import numpy as np

from tests.oracle import assert_parity, assert_same_graph_def

rng = np.random.default_rng(7)
X = rng.normal(size=(4, 3)).astype(np.float32)
W = rng.normal(size=(3, 2)).astype(np.float32)
B = np.array([0.5, -0.25], np.float32)


def _program(tf):
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    a = tf.nn.xw_plus_b(x, W, B)
    r = tf.nn.relu_layer(x, W, B, name="layer")
    z = tf.nn.zero_fraction(r)
    counts, m_ss, v_ss, _ = tf.nn.sufficient_statistics(x, [0])
    mean, var = tf.nn.normalize_moments(counts, m_ss, v_ss, None)
    counts2, m2, v2, shift = tf.nn.sufficient_statistics(x, [0, 1], shift=0.5, keepdims=True)
    mean2, var2 = tf.nn.normalize_moments(counts2, m2, v2, shift)
    ls = tf.math.log_sigmoid(x)
    grads = tf.gradients(tf.reduce_sum(a) + tf.reduce_sum(r * r) + tf.reduce_sum(ls), x)
    return [a, r, z, mean, var, mean2, var2, ls] + grads, {x: X}


def test_values_match_tf():
    assert_parity(_program, rtol=1e-5, atol=1e-6)


def test_graph_def_matches_tf():
    assert_same_graph_def(_program)
