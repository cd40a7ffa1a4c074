"""tf.reduce_join / tf.strings.reduce_join against TF 2.21: every axis order, negative
axes, keep_dims, separators, empty reductions and TF's errors; the GraphDef."""

import numpy as np
import pytest

import tfcompat
from tests.oracle import assert_parity, assert_same_graph_def, tf1

A = np.array([["a", "b"], ["c", "d"]], dtype=object)
CUBE = np.array([[[f"{i}{j}{k}" for k in range(2)] for j in range(3)] for i in range(2)], object)


def _program(tf):
    a, cube = tf.constant(A), tf.constant(CUBE)
    return [
        tf.reduce_join(a, 0),
        tf.reduce_join(a, 1),
        tf.reduce_join(a, -2),
        tf.reduce_join(a, 0, keep_dims=True),
        tf.reduce_join(a, 1, keep_dims=True),
        tf.reduce_join(a, 0, separator="."),
        tf.reduce_join(a, [0, 1]),
        tf.reduce_join(a, [1, 0]),
        tf.reduce_join(a, []),
        tf.reduce_join(a),
        tf.strings.reduce_join(cube, axis=[2, 0], separator="-"),
        tf.strings.reduce_join(cube, axis=1, keepdims=True),
        tf.reduce_join(tf.constant(np.zeros((0, 3), object).astype(bytes)), 0),
    ]


def test_reduce_join_matches_tf():
    assert_parity(_program)


def test_reduce_join_graph_def_matches_tf():
    assert_same_graph_def(_program)


@pytest.mark.parametrize("axis", [[0, 0], [2], [-3]])
def test_reduce_join_errors_match_tf(axis):
    outcomes = []
    for tf in (tfcompat, tf1()):
        with tf.Graph().as_default():
            axes = tf.placeholder(tf.int32, [None])
            joined = tf.reduce_join(tf.constant(A), axes)
            with tf.Session() as sess:
                with pytest.raises(tf.errors.OpError) as raised:
                    sess.run(joined, {axes: axis})
        outcomes.append((type(raised.value).__name__, raised.value.message))
    (ours, our_message), (theirs, their_message) = outcomes
    assert ours == theirs
    assert our_message.split("\n")[0] in their_message
