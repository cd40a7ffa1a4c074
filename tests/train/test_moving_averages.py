"""tf.train.ExponentialMovingAverage against TF 2.21: the averages after training steps
(with ``num_updates``, and a zero-debiased tensor average), the shadow variables' names,
``variables_to_restore`` and the GraphDef."""

import numpy as np
import pytest

import tfcompat
from tests.oracle import assert_parity, graph_def_nodes, run, tf1


def _program(tf, steps_fetch=True):
    x = tf.placeholder(tf.float32, [3], name="x")
    w = tf.Variable(np.array([1.0, 2.0, 3.0], np.float32), name="w")
    b = tf.Variable(np.float32(0.5), name="b")
    loss = tf.reduce_sum(tf.square(x * w + b))
    gs = tf.train.get_or_create_global_step()
    step = tf.train.GradientDescentOptimizer(0.05).minimize(loss, global_step=gs)
    ema = tf.train.ExponentialMovingAverage(0.9, num_updates=gs)
    with tf.control_dependencies([step]):
        train = ema.apply([w, b])
    mean = tf.reduce_mean(x)
    tensor_ema = tf.train.ExponentialMovingAverage(0.5, zero_debias=True, name="tensor_ema")
    tensor_update = tensor_ema.apply([mean])
    with tf.control_dependencies([train, tensor_update]):
        averages = [tf.identity(ema.average(v)) for v in (w, b)]
        averages.append(tf.identity(tensor_ema.average(mean)))
    return [loss] + averages, {x: [1.0, -1.0, 0.5]}, ema, (w, b)


def test_averages_match_tf():
    assert_parity(lambda tf: _program(tf)[:2], rtol=1e-6)


def test_names_and_variables_to_restore_match_tf():
    def names(tf):
        graph = tf.Graph()
        with graph.as_default():
            _, _, ema, (w, b) = _program(tf)
            restore = {k: v.op.name for k, v in ema.variables_to_restore().items()}
            return (
                ema.average_name(w),
                ema.average(b).op.name,
                restore,
                sorted(v.op.name for v in tf.moving_average_variables()),
            )

    assert names(tfcompat) == names(tf1())


def test_graph_def_matches_tf_but_initializer_guards():
    """Node for node as TF, except the copies TF makes of a shadow variable's initial value
    to guard it against an uninitialized variable (``cond/Merge_w/ExponentialMovingAverage``,
    ``w/ExponentialMovingAverage/cond/...``): here the shadow's ``Assign`` reads the
    ``tf.cond`` on ``IsVariableInitialized`` directly."""

    def program(tf):
        return _program(tf)[:2]

    ours = graph_def_nodes(run(tfcompat, program).graph)
    theirs = graph_def_nodes(run(tf1(), program).graph)

    def guard(name):
        shadow = any(
            name.startswith(f"{v}/ExponentialMovingAverage/")
            and "/cond" in name
            or name.endswith(f"_{v}/ExponentialMovingAverage")
            or name == f"{v}/ExponentialMovingAverage/IsVariableInitialized"
            for v in ("w", "b")
        )
        return shadow

    assert set(ours) == {n for n in theirs if not guard(n)}
    for name, (op, inputs, _) in ours.items():
        if name.endswith("ExponentialMovingAverage/Assign"):
            continue  # reads the unguarded cond
        assert (op, inputs) == theirs[name][:2], name


def test_restoring_the_averages_into_the_variables(tmp_path):
    """Train, save; a fresh graph restores ``variables_to_restore`` and reads the
    averages as its weights."""
    tf = tfcompat
    prefix = str(tmp_path / "model")
    graph = tf.Graph()
    with graph.as_default():
        fetches, feed, ema, (w, b) = _program(tf)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(3):
                sess.run(fetches, feed)
            expected = sess.run([ema.average(w), ema.average(b)])
            tf.train.Saver().save(sess, prefix)
    with tf.Graph().as_default():
        _, _, ema, (w, b) = _program(tf)
        saver = tf.train.Saver(ema.variables_to_restore())
        with tf.Session() as sess:
            saver.restore(sess, prefix)
            for got, want in zip(sess.run([w, b]), expected):
                np.testing.assert_allclose(got, want, rtol=1e-6)


def test_non_float_variable_raises():
    with tfcompat.Graph().as_default():
        v = tfcompat.Variable(3, name="count")
        with pytest.raises(TypeError, match="must be half, float, or double: count"):
            tfcompat.train.ExponentialMovingAverage(0.9).apply([v])
