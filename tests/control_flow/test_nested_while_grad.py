"""tf.while_loop nested in tf.while_loop against TF 2.21: values, GraphDefs, and gradients
(inner loop gradient states nested in the outer gradient loop)."""

import pytest

from tests.oracle import assert_parity, assert_same_graph_def


def _counter_dependent(n_value=3, x_value=1.5):
    """The inner loop runs ``i`` times in outer iteration ``i``."""

    def program(tf):
        x = tf.placeholder(tf.float32, [], name="x")
        n = tf.placeholder(tf.int32, [], name="n")

        def inner(i, y):
            return tf.while_loop(lambda j, z: j < i, lambda j, z: (j + 1, z * x + 1.0), [0, y])[1]

        _, y = tf.while_loop(lambda i, y: i < n, lambda i, y: (i + 1, inner(i, y)), [0, x])
        return [y], {x: x_value, n: n_value}

    return program


@pytest.mark.parametrize("n_value", [0, 1, 4])
def test_nested_while_values(n_value):
    assert_parity(_counter_dependent(n_value))


def test_nested_while_graph_def_matches_tf():
    assert_same_graph_def(_counter_dependent())
