"""tf.tensor_scatter_nd_update / _add / _sub / _max / _min, tf.roll, tf.meshgrid and
tf.math.unsorted_segment_mean / _sqrt_n against TF 2.21: values, gradients, GraphDefs and
TF's error for an index out of range."""

import numpy as np
import pytest

import tfcompat
from tests.oracle import assert_parity, assert_same_graph_def
from tfcompat.framework import errors

T = np.arange(12, dtype=np.float32).reshape(4, 3)


def _program(tf):
    t = tf.placeholder(tf.float32, [4, 3], name="t")
    u = tf.placeholder(tf.float32, [2, 3], name="u")
    rows = [[1], [3]]
    updated = tf.tensor_scatter_nd_update(t, rows, u)
    added = tf.tensor_scatter_nd_add(t, [[0, 1], [2, 2], [0, 1]], [1.0, 2.0, 3.0])
    subbed = tf.tensor_scatter_nd_sub(t, rows, u * 2.0)
    rolled = tf.roll(t, shift=[1, -1], axis=[0, 1])
    x, y = tf.meshgrid(tf.range(3), tf.range(2))
    i, j = tf.meshgrid([1.0, 2.0], [3.0, 4.0, 5.0], indexing="ij")
    ids = tf.constant([0, 2, 0, 1])
    mean = tf.math.unsorted_segment_mean(t, ids, 4)
    sqrt_n = tf.math.unsorted_segment_sqrt_n(t, ids, 3)
    loss = (
        tf.reduce_sum(updated * added)
        + tf.reduce_sum(subbed**2)
        + tf.reduce_sum(rolled * t)
        + tf.reduce_sum(mean)
        + tf.reduce_sum(sqrt_n)
    )
    grads = tf.gradients(loss, [t, u])
    feeds = {t: T, u: np.array([[1, 2, 3], [4, 5, 6]], np.float32)}
    return [updated, added, subbed, rolled, x, y, i, j, mean, sqrt_n] + grads, feeds


def test_values_and_gradients_match_tf():
    assert_parity(_program, rtol=1e-6)


def test_graph_def_matches_tf():
    assert_same_graph_def(_program)


def _min_max_program(tf):
    # ties (an update equal to the element it meets, two updates of one element) split
    # the gradient, as TF's does
    t = tf.placeholder(tf.float32, [4, 3], name="t")
    u = tf.placeholder(tf.float32, [3, 3], name="u")
    rows = [[1], [3], [1]]
    biggest = tf.tensor_scatter_nd_max(t, rows, u)
    smallest = tf.tensor_scatter_nd_min(t, [[0, 1], [2, 2], [0, 1]], [1.0, 20.0, 1.0])
    loss = tf.reduce_sum(biggest * biggest) + tf.reduce_sum(smallest * t)
    grads = tf.gradients(loss, [t, u])
    u_value = np.array([[4, 2, 5], [9, 0, 12], [4, 7, 1]], np.float32)
    return [biggest, smallest] + grads, {t: T, u: u_value}


def test_min_max_values_gradients_and_graph_match_tf():
    assert_parity(_min_max_program, rtol=1e-6)
    assert_same_graph_def(_min_max_program)


def test_index_out_of_range_as_tf():
    with tfcompat.Graph().as_default():
        out = tfcompat.tensor_scatter_nd_update(tfcompat.constant(T), [[4]], [[1.0, 2.0, 3.0]])
        with tfcompat.Session(backend="reference") as sess:
            with pytest.raises(errors.InvalidArgumentError, match=r"indices\[0\] = \[4\]"):
                sess.run(out)
