"""tf.map_fn, tf.scan, tf.foldl and tf.foldr against TF 2.21: values, gradients through
them and GraphDefs (TensorArrays unstacked into a tf.while_loop, as TF builds them)."""

import numpy as np
import pytest

import tfcompat
from tests.oracle import assert_parity, assert_same_graph_def

X = np.arange(12, dtype=np.float32).reshape(4, 3) / 10


def _map_fn(tf):
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    w = tf.constant([0.5, -1.0, 2.0])
    y = tf.map_fn(lambda r: tf.reduce_sum(r * w), x)
    z = tf.map_fn(
        lambda t: (t[0] * 2.0, tf.cast(t[1], tf.int32)), (x, x), dtype=(tf.float32, tf.int32)
    )
    grad = tf.gradients(tf.reduce_sum(y) + tf.reduce_sum(z[0] ** 2), x)[0]
    return [y, z[0], z[1], grad], {x: X}


def _scan(tf):
    x = tf.placeholder(tf.float32, [4, 3], name="x")
    a = tf.scan(lambda a, r: a * 0.5 + r, x)
    b = tf.scan(
        lambda a, r: (a[0] + r, a[1] * 2.0),
        x,
        initializer=(tf.zeros([3]), tf.ones([3])),
        reverse=True,
    )
    grad = tf.gradients(tf.reduce_sum(a**2) + tf.reduce_sum(b[0]), x)[0]
    return [a, b[0], b[1], grad], {x: X}


def _folds(tf):
    x = tf.placeholder(tf.float32, [4, 3], name="x")
    left = tf.foldl(lambda a, r: a * r + 1.0, x)
    right = tf.foldr(lambda a, e: a * e + 1.0, x, initializer=tf.ones([3]))
    right_plain = tf.foldr(lambda a, e: a - e, x)
    grad = tf.gradients(tf.reduce_sum(left) + tf.reduce_sum(right), x)[0]
    return [left, right, right_plain, grad], {x: X}


def _map_fn_training(tf):
    """A variable read in map_fn's body, trained through it."""
    x = tf.placeholder(tf.float32, [4, 3], name="x")
    w = tf.Variable(np.array([0.5, -1.0, 2.0], np.float32), name="w")
    y = tf.map_fn(lambda r: tf.tanh(tf.reduce_sum(r * w)), x)
    loss = tf.reduce_sum(tf.square(y - 0.5))
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    return [loss, train], {x: X}


PROGRAMS = {"map_fn": _map_fn, "scan": _scan, "folds": _folds}


@pytest.mark.parametrize("name", PROGRAMS)
def test_values_and_gradients_match_tf(name):
    assert_parity(PROGRAMS[name], rtol=1e-5)


@pytest.mark.parametrize("name", PROGRAMS)
def test_graph_def_matches_tf(name):
    assert_same_graph_def(PROGRAMS[name])


def test_training_through_map_fn_matches_tf():
    """Three steps: the losses and the variable after them."""

    def program(tf):
        (loss, train), feed = _map_fn_training(tf)
        with tf.control_dependencies([train]):
            after = tf.identity(tf.trainable_variables()[0].read_value())
        return [loss, after], feed

    assert_parity(program, rtol=1e-5)


def test_errors_as_tf():
    with tfcompat.Graph().as_default():
        with pytest.raises(ValueError, match="1\\+ dimensional Tensors, not scalars"):
            tfcompat.map_fn(lambda v: v, tfcompat.constant(1.0))
        with pytest.raises(TypeError, match="is not callable"):
            tfcompat.map_fn(3, tfcompat.constant([1.0]))
        with pytest.raises(TypeError, match="is not callable"):
            tfcompat.scan(3, tfcompat.constant([1.0]))
        with pytest.raises(ValueError, match="does not contain any Tensors"):
            tfcompat.map_fn(lambda v: v, [])


def _over_strings(tf):
    """Loops whose bodies run string ops on the host: every TensorArray they use runs
    there with them, the int32 ones included (their handles never cross to the device)."""
    words = tf.placeholder(tf.string, [None], name="words")
    lengths = tf.map_fn(lambda s: tf.strings.length(s), words, dtype=tf.int32)
    named = tf.map_fn(lambda n: tf.as_string(n * 2), lengths, dtype=tf.string)
    total = tf.scan(lambda acc, s: acc + tf.strings.length(s), words, initializer=0)
    scaled = tf.cast(lengths, tf.float32) * 1.5  # device work on the host loop's result
    return [lengths, named, total, scaled], {words: np.array([b"a", b"bcd", b""], object)}


@pytest.mark.parametrize("backend", ["xla", "reference"])
def test_loops_over_strings_match_tf(backend):
    assert_parity(_over_strings, backends=(backend,))
