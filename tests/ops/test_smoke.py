from tests.oracle import assert_parity, assert_same_graph_def


def _mlp(tf):
    import numpy as np

    x = tf.placeholder(tf.float32, [None, 3], name="x")
    w = tf.Variable(np.arange(6, dtype=np.float32).reshape(3, 2), name="w")
    y = tf.matmul(x, w) + 1.0
    return y, {x: np.ones((4, 3), np.float32)}


def test_matmul_add_variable_parity():
    assert_parity(_mlp)


def test_matmul_add_variable_graph_def():
    assert_same_graph_def(_mlp)
