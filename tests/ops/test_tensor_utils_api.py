"""tf.is_tensor, tf.get_static_value, tf.make_tensor_proto / make_ndarray, tf.init_scope and
tf.ensure_shape against TF 2.21."""

import numpy as np
import pytest

import tfcompat
from tests.oracle import assert_parity, tf1
from tfcompat.framework import errors


@pytest.mark.parametrize("framework", ["tfcompat", "tf"])
def test_utilities_agree_with_tf(framework):
    tf = tfcompat if framework == "tfcompat" else tf1()
    with tf.Graph().as_default():
        c = tf.constant([1.0, 2.0])
        p = tf.placeholder(tf.float32, [2])
        results = (
            tf.is_tensor(c),
            tf.is_tensor(np.ones(2)),
            tf.get_static_value(tf.stack([c, c])).tolist(),
            tf.get_static_value(c * 2),
            tf.get_static_value(p),
            tf.make_ndarray(tf.make_tensor_proto([[1, 2], [3, 4]], tf.int64)).tolist(),
        )
        v = tf.Variable(1.0)
        with tf.control_dependencies([v.initializer]):
            with tf.init_scope():
                free = tf.constant(3.0)
        results += (free.op.control_inputs == [],)
    assert results == (True, False, [[1.0, 2.0], [1.0, 2.0]], None, None, [[1, 2], [3, 4]], True)


def test_ensure_shape_matches_tf():
    def program(tf):
        x = tf.placeholder(tf.float32, [None, 3], name="x")
        y = tf.ensure_shape(x, [2, None])
        return [y, tf.gradients(tf.reduce_sum(y * y), x)[0]], {x: np.ones((2, 3), np.float32)}

    _, ours = assert_parity(program)
    assert ours.shapes[0] == [2, 3]


@pytest.mark.parametrize("backend", ["xla", "reference"])
def test_ensure_shape_mismatch_raises(backend):
    with tfcompat.Graph().as_default():
        x = tfcompat.placeholder(tfcompat.float32, [None, 3], name="x")
        y = tfcompat.ensure_shape(x, [2, None])
        with tfcompat.Session(backend=backend) as sess:
            with pytest.raises(
                errors.InvalidArgumentError,
                match=r"Shape of tensor x \[1,3\] is not compatible with expected shape \[2,\?\]",
            ):
                sess.run(y, {x: np.ones((1, 3), np.float32)})
