"""tf.hessians against TF 2.21: values for a vector and a matrix x and several xs, and the
GraphDef (a while loop differentiating each gradient entry into a TensorArray)."""

import numpy as np

from tests.oracle import assert_parity, assert_same_graph_def

A = np.array([[1.0, -2.0], [0.5, 3.0]], np.float32)
V = np.array([1.0, 2.0, -0.5], np.float32)


def _program(tf):
    v = tf.placeholder(tf.float32, [3], name="v")
    m = tf.placeholder(tf.float32, [2, 2], name="m")
    y = tf.reduce_sum(v * v * v) + v[0] * v[1] + tf.reduce_sum(tf.matmul(m, m) * tf.sin(m))
    return [tf.hessians(y, v), tf.hessians(y, [v, m])], {v: V, m: A}


def test_values_match_tf():
    assert_parity(_program, rtol=1e-5, atol=1e-5)


def test_graph_def_matches_tf():
    assert_same_graph_def(_program)
