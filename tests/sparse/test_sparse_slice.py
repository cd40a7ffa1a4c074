"""TF 2.21 parity of tf.sparse.slice (values, static shapes, gradient, GraphDef, errors) and
tf.sparse.merge."""

import numpy as np
import pytest

from tests.oracle import assert_parity, assert_same_graph_def, tf1

IDX = np.array([[0, 0], [0, 2], [1, 1], [1, 4], [3, 0], [3, 3]], np.int64)
VAL = np.array([1.0, -2.0, 3.0, 0.5, 4.5, -1.0], np.float32)
SHAPE = np.array([4, 5], np.int64)

# (start, size): inside, clipped at the end, starting past the end, empty, the whole tensor.
BOXES = [([0, 1], [2, 3]), ([1, 2], [9, 9]), ([5, 0], [2, 2]), ([2, 0], [1, 5]), ([0, 0], [4, 5])]


def _fed(tf):
    sp = tf.sparse_placeholder(tf.float32, shape=[None, None], name="sp")
    return sp, {sp: tf.SparseTensorValue(IDX, VAL, SHAPE)}


@pytest.mark.parametrize("start,size", BOXES)
def test_slice_values_and_shapes(start, size):
    def program(tf):
        sp, feed = _fed(tf)
        out = tf.sparse.slice(sp, start, size)
        const = tf.sparse_slice(tf.SparseTensor(IDX, VAL, SHAPE), start, size)
        return [out.indices, out.values, out.dense_shape, const.values], feed

    assert_parity(program)


@pytest.mark.parametrize("start,size", BOXES[:2])
def test_slice_gradient(start, size):
    def program(tf):
        sp, feed = _fed(tf)
        values = tf.constant(VAL)
        out = tf.sparse.slice(
            tf.SparseTensor(sp.indices, values * 2.0, sp.dense_shape), start, size
        )
        weights = tf.range(tf.size(out.values), dtype=tf.float32) + 1.0
        return tf.gradients(tf.reduce_sum(out.values * weights), [values]), feed

    assert_parity(program)


def test_slice_graph_def():
    assert_same_graph_def(
        lambda tf: tf.sparse.slice(tf.SparseTensor(IDX, VAL, SHAPE), [0, 1], [2, 3]).values
    )


def test_slice_box_of_wrong_rank_fails_at_run_time():
    for tf in (tf1(), __import__("tfcompat")):
        with tf.Graph().as_default():
            sp, feed = _fed(tf)
            out = tf.sparse.slice(sp, [0], [2])
            with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError, match="start"):
                sess.run(out.values, feed)


def test_merge_ids_and_weights():
    def program(tf):
        ids = tf.SparseTensor(IDX, np.array([3, 0, 2, 5, 1, 4], np.int64), SHAPE)
        weights = tf.SparseTensor(IDX, VAL, SHAPE)
        merged = tf.sparse.merge(ids, weights, 6)
        return [merged.indices, merged.values, merged.dense_shape, tf.sparse.to_dense(merged)]

    assert_parity(program)
