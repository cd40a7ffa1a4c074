"""Global step and learning-rate schedules against TF 2.21: values across steps, graph
names, collections and errors."""

from __future__ import annotations

import numpy as np
import pytest

import tfcompat
from tests.oracle import assert_same_graph_def, assert_values_close, tf1

SCHEDULES = {
    "exponential": lambda tf, s: tf.train.exponential_decay(0.1, s, 7, 0.5),
    "exponential_staircase": lambda tf, s: tf.train.exponential_decay(
        0.1, s, 7, 0.5, staircase=True
    ),
    "exponential_named": lambda tf, s: tf.train.exponential_decay(0.3, s, 3, 0.9, name="lr"),
    "natural_exp": lambda tf, s: tf.train.natural_exp_decay(0.1, s, 5, 0.3),
    "natural_exp_staircase": lambda tf, s: tf.train.natural_exp_decay(
        0.1, s, 5, 0.3, staircase=True
    ),
    "inverse_time": lambda tf, s: tf.train.inverse_time_decay(0.2, s, 4, 0.5),
    "inverse_time_staircase": lambda tf, s: tf.train.inverse_time_decay(
        0.2, s, 4, 0.5, staircase=True
    ),
    "polynomial": lambda tf, s: tf.train.polynomial_decay(0.1, s, 20, 0.01, power=2.0),
    "polynomial_cycle": lambda tf, s: tf.train.polynomial_decay(
        0.1, s, 6, 0.01, power=0.5, cycle=True
    ),
    "cosine": lambda tf, s: tf.train.cosine_decay(0.1, s, 25),
    "cosine_alpha": lambda tf, s: tf.train.cosine_decay(0.1, s, 25, alpha=0.2),
    "cosine_restarts": lambda tf, s: tf.train.cosine_decay_restarts(0.1, s, 4),
    "cosine_restarts_constant_period": lambda tf, s: tf.train.cosine_decay_restarts(
        0.1, s, 5, t_mul=1.0, m_mul=0.5, alpha=0.1
    ),
    "linear_cosine": lambda tf, s: tf.train.linear_cosine_decay(0.1, s, 30),
    "linear_cosine_periods": lambda tf, s: tf.train.linear_cosine_decay(
        0.1, s, 25, num_periods=2.0, alpha=0.1, beta=0.01, name="lc"
    ),
    "piecewise": lambda tf, s: tf.train.piecewise_constant(s, [5, 10, 20], [1.0, 0.5, 0.1, 0.01]),
    "piecewise_one_boundary": lambda tf, s: tf.train.piecewise_constant(s, [3], [0.3, 0.03]),
    "float64": lambda tf, s: tf.train.exponential_decay(tf.constant(0.1, tf.float64), s, 7, 0.5),
}


def _values_over_steps(tf, make, steps=40):
    with tf.Graph().as_default():
        gs = tf.train.get_or_create_global_step()
        lr = make(tf, gs)
        inc = tf.assign_add(gs, 1)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            values = []
            for _ in range(steps):
                values.append(sess.run(lr))
                sess.run(inc)
        return np.array(values), lr.dtype.name, lr.shape.as_list()


@pytest.mark.parametrize("name", sorted(SCHEDULES))
def test_schedule_values_across_steps_match_tf(name):
    ours, o_dtype, o_shape = _values_over_steps(tfcompat, SCHEDULES[name])
    theirs, t_dtype, t_shape = _values_over_steps(tf1(), SCHEDULES[name])
    assert (o_dtype, o_shape) == (t_dtype, t_shape)
    assert_values_close(ours, theirs, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("name", sorted(set(SCHEDULES) - {"piecewise", "piecewise_one_boundary"}))
def test_schedule_graph_matches_tf(name):
    """Same nodes and names as TF (piecewise_constant differs: TF builds a ``case``)."""

    def program(tf):
        return SCHEDULES[name](tf, tf.train.get_or_create_global_step())

    assert_same_graph_def(program)


def test_piecewise_constant_errors_as_tf():
    for args in (
        ([1.0], [1.0, 2.0]),  # float boundary vs int64 step
        ([1, 2], [1.0, 2]),  # mixed value dtypes
        ([1, 2], [1.0, 2.0]),  # wrong number of values
    ):
        messages = []
        for tf in (tfcompat, tf1()):
            with tf.Graph().as_default():
                gs = tf.train.get_or_create_global_step()
                with pytest.raises(ValueError) as info:
                    tf.train.piecewise_constant(gs, *args)
                messages.append(str(info.value))
        assert messages[0] == messages[1]


def _global_step_facts(tf):
    with tf.Graph().as_default() as graph:
        assert tf.train.get_global_step() is None
        gs = tf.train.get_or_create_global_step()
        assert tf.train.get_or_create_global_step() is gs
        assert tf.train.get_global_step() is gs
        assert tf.get_collection(tf.GraphKeys.GLOBAL_STEP) == [gs]
        with pytest.raises(ValueError, match='"global_step" already exists.'):
            tf.train.create_global_step()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(tf.assign_add(gs, 5))
            value = tf.train.global_step(sess, gs)
        nodes = sorted(
            (op.name, op.type, [bytes(c) for c in op.colocation_groups()])
            for op in graph.get_operations()
            if op.name.startswith("global_step")
        )
        return (
            gs.name,
            gs.dtype.name,
            gs.shape.as_list(),
            gs.trainable,
            value,
            type(value).__name__,
            nodes,
            [v.name for v in tf.trainable_variables()],
        )


def test_global_step_as_tf():
    assert _global_step_facts(tfcompat) == _global_step_facts(tf1())


def test_global_step_created_at_root_scope_and_found_by_name():
    def facts(tf):
        with tf.Graph().as_default():
            with tf.name_scope("inner"):
                gs = tf.train.create_global_step()
            name = gs.name
        with tf.Graph().as_default():
            # Not in the collection, but named global_step:0: found by name.
            v = tf.Variable(np.int64(3), name="global_step")
            found = tf.train.get_global_step()
            return name, found is not None and found.name == v.name

    assert facts(tfcompat) == facts(tf1()) == ("global_step:0", True)


@pytest.mark.parametrize(
    "value, message",
    [
        (np.float32(1.0), "does not have integer type"),
        (np.zeros(2, np.int64), "is not scalar"),
    ],
)
def test_bad_global_step_raises_type_error_as_tf(value, message):
    messages = []
    for tf in (tfcompat, tf1()):
        with tf.Graph().as_default():
            v = tf.Variable(value, name="bad")
            tf.add_to_collection(tf.GraphKeys.GLOBAL_STEP, v)
            with pytest.raises(TypeError, match=message) as info:
                tf.train.get_global_step()
            messages.append(str(info.value))
    assert messages[0] == messages[1]


def test_decayed_learning_rate_drives_an_optimizer():
    """The rate is recomputed from the global step inside the same step."""

    def run(tf):
        with tf.Graph().as_default():
            gs = tf.train.get_or_create_global_step()
            w = tf.Variable(np.ones((3,), np.float32), name="w")
            lr = tf.train.exponential_decay(0.5, gs, 2, 0.5, staircase=True)
            op = tf.train.GradientDescentOptimizer(lr).apply_gradients(
                [(tf.constant([1.0, 2.0, 3.0]), w)], global_step=gs
            )
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                for _ in range(6):
                    sess.run(op)
                return sess.run(w)

    np.testing.assert_allclose(run(tfcompat), run(tf1()), rtol=1e-6)
