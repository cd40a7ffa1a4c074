"""assert_integer, assert_scalar, assert_near, verify_tensor_all_finite, NoGradient and
broadcast_static_shape against TF 2.21: results, errors (class and text) and GraphDefs."""

import numpy as np
import pytest

import tfcompat
from tests.oracle import assert_same_graph_def, tf1

X = np.array([1.0, 2.0, 3.0], np.float32)


def _run(tf, build, feed_values=None):
    with tf.Graph().as_default():
        fetches, feeds = build(tf)
        with tf.Session() as sess:
            return sess.run(fetches, dict(zip(feeds, feed_values or [])))


def _near(tf):
    x = tf.placeholder(tf.float32, [3], name="x")
    check = tf.assert_near(x, tf.constant(X), rtol=1e-3, atol=1e-3, message="close")
    with tf.control_dependencies([check]):
        out = tf.identity(x)
    return out, [x]


def _finite(tf):
    x = tf.placeholder(tf.float32, [3], name="x")
    return tf.verify_tensor_all_finite(x, "bad values") * 2.0, [x]


@pytest.mark.parametrize("build", [_near, _finite])
def test_runtime_checks_pass_and_fail_like_tf(build):
    good = _run(tfcompat, build, [X + 1e-4])
    np.testing.assert_allclose(good, _run(tf1(), build, [X + 1e-4]))
    bad = np.array([1.0, np.nan, 3.0], np.float32) if build is _finite else X + 0.5
    messages = []
    for tf in (tfcompat, tf1()):
        with pytest.raises(tf.errors.InvalidArgumentError) as raised:
            _run(tf, build, [bad])
        messages.append(raised.value.message)
    first_line = messages[0].split("\n")[0]
    assert first_line in messages[1]


@pytest.mark.parametrize("build", [_near, _finite])
def test_check_graph_defs_match_tf(build):
    def program(tf):
        out, (x,) = build(tf)
        return out, {x: X}

    assert_same_graph_def(program)


def test_static_checks_match_tf():
    for tf in (tfcompat, tf1()):
        with tf.Graph().as_default():
            assert tf.assert_integer(tf.constant([1, 2])).type == "NoOp"
            expected = r'm\.  Expected "x" to be integer type\.  Found: \S+ of dtype <dtype: .float'

            with pytest.raises(TypeError, match=expected):
                tf.assert_integer(tf.constant([1.0]), message="m")
            scalar = tf.constant(3.0)
            assert tf.assert_scalar(scalar).shape.ndims == 0
            expected = r"Expected scalar shape for .*, saw shape: \(2,\)"
            with pytest.raises(ValueError, match=expected):
                tf.assert_scalar(tf.constant([1.0, 2.0]))
            assert tf.NoGradient is tf.no_gradient


@pytest.mark.parametrize(
    "x, y",
    [([2, 1, 3], [4, 3]), ([None, 1], [5, 4]), ([None], [1]), ([3], [None]), ([2, 3], [4])],
)
def test_broadcast_static_shape_matches_tf(x, y):
    outcomes = []
    for tf in (tfcompat, tf1()):
        try:
            result = tf.broadcast_static_shape(tf.TensorShape(x), tf.TensorShape(y))
            outcomes.append(result.as_list())
        except ValueError as e:
            outcomes.append(str(e))
    assert outcomes[0] == outcomes[1]
