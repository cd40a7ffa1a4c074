"""tf.linalg.inv / det / slogdet / solve / trace / eye against TF 2.21: values (batched,
adjoint), static shapes and gradients, and the GraphDef of the gradient graph."""

import numpy as np

from tests.oracle import assert_parity, assert_same_graph_def

rng = np.random.default_rng(11)
A = (rng.normal(size=(2, 3, 3)) + 3 * np.eye(3)).astype(np.float32)
B = rng.normal(size=(2, 3, 2)).astype(np.float32)


def _program(tf):
    a = tf.placeholder(tf.float32, [None, 3, 3], name="a")
    b = tf.placeholder(tf.float32, [None, 3, 2], name="b")
    inv = tf.linalg.inv(a)
    inv_adj = tf.matrix_inverse(a, adjoint=True)
    det = tf.linalg.det(a)
    sign, logdet = tf.linalg.slogdet(a)
    x = tf.linalg.solve(a, b)
    x_adj = tf.matrix_solve(a, b, adjoint=True)
    tr = tf.linalg.trace(a)
    loss = (
        tf.reduce_sum(inv * inv_adj)
        + tf.reduce_sum(det)
        + tf.reduce_sum(logdet)
        + tf.reduce_sum(x * x_adj)
        + tf.reduce_sum(tr)
    )
    grads = tf.gradients(loss, [a, b])
    return [inv, inv_adj, det, sign, logdet, x, x_adj, tr] + grads, {a: A, b: B}


def test_values_and_gradients_match_tf():
    assert_parity(_program, rtol=2e-4, atol=2e-4)


def test_graph_def_matches_tf():
    assert_same_graph_def(_program)


def test_eye_matches_tf():
    def program(tf):
        return [
            tf.eye(3),
            tf.eye(2, 4, dtype=tf.int32),
            tf.linalg.eye(3, 2, batch_shape=[2]),
            tf.eye(2, batch_shape=[1, 2], dtype=tf.float64),
        ]

    assert_parity(program)
