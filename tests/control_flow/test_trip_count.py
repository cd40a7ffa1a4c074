"""While loops whose trip count is known when the step is traced (lowering/trip_count.py)
are lowered as counted loops (``scan`` in the jaxpr, a known trip count for XLA), their
gradient loops too; a loop whose predicate reads data keeps ``while``. Values are those of
the numpy kernels either way."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.experimental import io_callback

import tfcompat as tf
from lowering import inspect as inspect_lib
from lowering import trip_count


def _loop_primitives(jaxpr_text):
    return {p for p in ("while[", "scan[") if p in jaxpr_text}


def _both_backends(fetches, feed):
    out = {}
    for backend in ("xla", "reference"):
        with tf.Session(backend=backend) as sess:
            sess.run(tf.global_variables_initializer())
            out[backend] = sess.run(fetches, feed)
    return out["xla"], out["reference"]


def test_dynamic_rnn_and_its_gradient_loop_are_counted():
    x = tf.placeholder(tf.float32, [6, 3, 4], name="x")
    cell = tf.nn.rnn_cell.LSTMCell(5, initializer=tf.constant_initializer(0.1))
    outputs, _ = tf.nn.dynamic_rnn(cell, x, dtype=tf.float32)
    loss = tf.reduce_sum(tf.square(outputs))
    grads = tf.gradients(loss, [x] + tf.trainable_variables())
    feed = {x: np.random.default_rng(0).normal(size=(6, 3, 4)).astype(np.float32)}
    report = inspect_lib.inspect(tf.get_default_graph(), [loss] + grads, feed_dict=feed)
    assert _loop_primitives(report.jaxpr) == {"scan["}
    ours, reference = _both_backends([loss, grads], feed)
    np.testing.assert_allclose(ours[0], reference[0], rtol=1e-5)
    for a, b in zip(ours[1], reference[1]):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-6)


def test_data_dependent_loop_stays_a_while_loop():
    x = tf.placeholder(tf.float32, [], name="x")
    _, total = tf.while_loop(lambda i, s: s < 100.0, lambda i, s: (i + 1, s * x), [0, 1.0])
    counted_i, _ = tf.while_loop(lambda i, s: i < 7, lambda i, s: (i + 2, s + x), [1, 0.0])
    report = inspect_lib.inspect(tf.get_default_graph(), [total, counted_i], feed_dict={x: 3.0})
    assert _loop_primitives(report.jaxpr) == {"while[", "scan["}
    ours, reference = _both_backends([total, counted_i], {x: 3.0})
    assert ours == reference == [243.0, 7]


def test_stateful_body_runs_once_per_counted_iteration():
    v = tf.Variable(0.0, name="v")
    n = tf.while_loop(
        lambda i: i < 5, lambda i: tf.tuple([i + 1], control_inputs=[tf.assign_add(v, 2.0)])[0], [0]
    )
    with tf.Session() as sess:
        sess.run(v.initializer)
        assert sess.run(n) == 5
        assert sess.run(v) == 10.0


def _count(cond, body, init):
    return trip_count.count(cond, body, init)


def test_count_finds_trip_count_and_final_counters():
    n, finals = _count(
        lambda c: c[0] < 10, lambda c: (c[0] + 3, c[1] * 2, c[2] + 1.0), (np.int32(1), 1, 0.5)
    )
    assert n == 3 and finals == {0: 10, 1: 8}  # the float leaf is not a counter


def test_count_gives_up_on_traced_predicates_effects_and_long_loops(monkeypatch):
    traced = jnp.zeros(())  # stands for a value computed in the step
    assert _count(lambda c: c[1] < 3.0, lambda c: (c[0] + 1, c[1] + 1.0), (0, traced)) is None

    def host_step(c):  # the counter comes from an effect (a host callback)
        return (io_callback(lambda v: v + 1, jax.ShapeDtypeStruct((), np.int32), c[0]),)

    assert _count(lambda c: c[0] < 3, host_step, (np.int32(0),)) is None
    monkeypatch.setattr(trip_count, "MAX_HOST_ITERATIONS", 50)
    assert _count(lambda c: c[0] < 51, lambda c: (c[0] + 1,), (0,)) is None
    assert _count(lambda c: c[0] < 50, lambda c: (c[0] + 1,), (0,))[0] == 50


@pytest.mark.parametrize("limit", [0, 4096])
def test_values_do_not_depend_on_counting(monkeypatch, limit):
    monkeypatch.setattr(trip_count, "MAX_HOST_ITERATIONS", limit)
    x = tf.placeholder(tf.float32, [4], name="x")
    _, y = tf.while_loop(lambda i, y: i < 3, lambda i, y: (i + 1, tf.sin(y) * x), [0, x])
    (gx,) = tf.gradients(tf.reduce_sum(y), [x])
    feed = {x: np.array([0.5, -1.0, 2.0, 0.1], np.float32)}
    ours, reference = _both_backends([y, gx], feed)
    for a, b in zip(ours, reference):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
