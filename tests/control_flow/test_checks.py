"""tf.Assert / check_numerics: pass-through values, and InvalidArgumentError naming the op
with TF's message, from both backends (the XLA one raises after the compiled step)."""

import numpy as np
import pytest

import tfcompat
from tests.oracle import assert_parity, assert_same_graph_def, tf1


def _assert_program(x_value):
    def program(tf):
        x = tf.placeholder(tf.float32, [3], name="x")
        a = tf.Assert(tf.reduce_all(x > 0), ["x must be positive", x, 7], summarize=2)
        with tf.control_dependencies([a]):
            y = tf.identity(x * 2.0)
        return y, {x: np.asarray(x_value, np.float32)}

    return program


def _numerics_program(x_value):
    def program(tf):
        x = tf.placeholder(tf.float32, [3], name="x")
        return tf.debugging.check_numerics(x * 1.0, "bad x") + 1.0, {
            x: np.asarray(x_value, np.float32)
        }

    return program


def _error_text(tf, program, backend=None):
    graph = tf.Graph()
    with graph.as_default():
        fetch, feeds = program(tf)
        kwargs = {"backend": backend} if backend else {}
        with tf.Session(graph=graph, **kwargs) as sess:
            with pytest.raises(tf.errors.InvalidArgumentError) as info:
                sess.run(fetch, feeds)
    return info.value.message


def _tail(message):
    """The message from the node line on (TF prefixes a Python traceback)."""
    return message[message.index("Node: ") :].split("\n", 1)[1] if "Node: " in message else message


@pytest.mark.parametrize(
    "program_fn,good", [(_assert_program, [1, 2, 3]), (_numerics_program, [1, 2, 3])]
)
def test_checks_pass_values(program_fn, good):
    assert_parity(program_fn(good))


@pytest.mark.parametrize("backend", ["xla", "reference"])
@pytest.mark.parametrize(
    "program_fn,bad",
    [
        (_assert_program, [1, -2, 3]),
        (_numerics_program, [1, np.nan, 3]),
        (_numerics_program, [1, np.inf, 3]),
        (_numerics_program, [np.nan, np.inf, 3]),
    ],
)
def test_checks_raise_like_tf(backend, program_fn, bad):
    theirs = _tail(_error_text(tf1(), program_fn(bad)))
    ours = _error_text(tfcompat, program_fn(bad), backend)
    assert ours == theirs


def test_assert_guard_graph_def_matches_tf():
    assert_same_graph_def(_assert_program([1, 2, 3]))


def test_failed_check_discards_step_writes():
    tf = tfcompat
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [], name="x")
        v = tf.Variable(0.0, name="v")
        step = tf.assign_add(v, tf.debugging.check_numerics(x, "x"))
        with tf.Session() as sess:
            sess.run(v.initializer)
            sess.run(step, {x: 1.0})
            with pytest.raises(tf.errors.InvalidArgumentError):
                sess.run(step, {x: np.nan})
            assert sess.run(v) == 1.0


def test_check_numerics_gradient_parity():
    def program(tf):
        x = tf.placeholder(tf.float32, [3], name="x")
        y = tf.debugging.check_numerics(x, "x")
        return tf.gradients(y, x)[0], {x: np.array([1.0, 2.0, 3.0], np.float32)}

    assert_parity(program)
