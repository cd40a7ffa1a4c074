"""tf.Print against TF 2.21: the text written to stderr (TF's number formats, nesting,
``summarize`` and ``first_n``), the pass-through value and gradient, and that a tf.Print in
a model keeps the training step one XLA call."""

import numpy as np
import pytest

import tfcompat
from tests.oracle import assert_parity, run, tf1


def _printing(tf):
    x = tf.placeholder(tf.float32, [], name="x")
    data = [
        tf.constant([0.1, 1e-7, 3.0, 1e20, np.nan, -np.inf, 2.5], tf.float32),
        tf.constant([[1, 2, 3], [4, 5, 6]]),
        tf.constant([True, False]),
        tf.constant(np.zeros((0, 2), np.float32)),
        tf.constant(7.25, tf.float64),
        tf.constant(np.arange(24).reshape(2, 3, 4)),
        tf.constant([1.0 / 3], tf.float64),
        tf.constant([1.0 / 3, 123456789.0], tf.float32),
        tf.constant([1.5, 2], tf.float16),
        x * 2.0,
    ]
    y = tf.Print(x, data, "msg: ", summarize=4)
    z = tf.Print(x + 1.0, [tf.constant([1, 2, 3, 4, 5]), tf.constant([-np.nan])], first_n=2)
    return [y, z], {x: 1.5}


def _text(framework, program, runs, capfd, backend=None):
    graph = framework.Graph()
    with graph.as_default():
        fetches, feed = program(framework)
        kwargs = {"backend": backend} if backend else {}
        with framework.Session(**kwargs) as sess:
            capfd.readouterr()
            for _ in range(runs):
                sess.run(fetches, feed)
    return [line for line in capfd.readouterr().err.splitlines() if line.startswith(("msg", "["))]


@pytest.mark.parametrize("backend", ["xla", "reference"])
def test_printed_text_matches_tf(capfd, backend):
    theirs = _text(tf1(), _printing, 3, capfd)
    assert len(theirs) == 5  # first_n=2 stops the second Print after two runs
    # The two Prints of a run are unordered (in TF's executor too).
    assert sorted(_text(tfcompat, _printing, 3, capfd, backend)) == sorted(theirs)


def test_value_and_gradient_pass_through():
    def program(tf):
        x = tf.placeholder(tf.float32, [3], name="x")
        y = tf.Print(x * x, [x], "x is ")
        return [y, tf.gradients(tf.reduce_sum(y), x)[0]], {x: [1.0, -2.0, 3.0]}

    assert_parity(program)


def test_print_in_a_training_step_keeps_one_device_call(capfd):
    def program(tf):
        x = tf.placeholder(tf.float32, [3], name="x")
        w = tf.Variable(np.array([1.0, 2.0, 3.0], np.float32), name="w")
        xw = x * w  # printing w itself would race with its update (in TF too)
        loss = tf.Print(tf.reduce_sum(tf.square(xw)), [xw], "xw: ")
        train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
        return [train, loss], {x: [1.0, -1.0, 0.5]}

    theirs = run(tf1(), program)
    tf_text = capfd.readouterr().err
    graph = tfcompat.Graph()
    with graph.as_default():
        (train, loss), feed = program(tfcompat)
        with tfcompat.Session() as sess:
            sess.run(tfcompat.global_variables_initializer())
            capfd.readouterr()
            meta = tfcompat.RunMetadata()
            value = sess.run([train, loss], feed, run_metadata=meta)[1]
    device = [s for s in meta.executable.plan.segments if s.kind == "device"]
    assert [s.kind for s in meta.executable.plan.segments] == ["device"] and device
    np.testing.assert_allclose(value, theirs.values[1], rtol=1e-6)
    assert "xw: [1 -2 1.5]" in capfd.readouterr().err and "xw: [1 -2 1.5]" in tf_text


def test_print_in_a_loop_body_prints_each_iteration(capfd):
    def program(tf):
        x = tf.placeholder(tf.float32, [], name="x")
        _, out = tf.while_loop(
            lambda i, v: i < 3, lambda i, v: (i + 1, tf.Print(v * 2.0, [i, v], "it ")), [0, x]
        )
        return out, {x: 1.0}

    theirs = run(tf1(), program)
    tf_text = capfd.readouterr().err
    ours = run(tfcompat, program)
    our_text = capfd.readouterr().err
    assert ours.values == theirs.values
    lines = ["it [0][1]", "it [1][2]", "it [2][4]"]
    assert [line for line in tf_text.splitlines() if line.startswith("it ")] == lines
    assert [line for line in our_text.splitlines() if line.startswith("it ")] == lines
