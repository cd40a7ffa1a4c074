"""``tf.train.OptaxOptimizer``: any optax transform drives apply_gradients / minimize;
its state lives in variables; the update runs inside the one jitted step. The oracle is
optax itself, run eagerly on the same gradients."""

from __future__ import annotations

import jax
import numpy as np
import optax
import pytest

import tfcompat as tf
from tests.train.harness import rng_values

TRANSFORMS = {
    "sgd": lambda: optax.sgd(0.1),
    "adam": lambda: optax.adam(0.05),
    "adamw": lambda: optax.adamw(0.05, weight_decay=0.1),
    "momentum_nesterov": lambda: optax.sgd(0.05, momentum=0.9, nesterov=True),
    "clip_then_adam": lambda: optax.chain(optax.clip_by_global_norm(1.0), optax.adam(0.05)),
    "adagrad": lambda: optax.adagrad(0.1),
    "rmsprop": lambda: optax.rmsprop(0.01, momentum=0.5),
    "lion": lambda: optax.lion(0.01),
    "schedule": lambda: optax.adam(optax.exponential_decay(0.1, 5, 0.5)),
}

SHAPES = [(3, 2), (2,)]
STEPS = 20


def _grads(step):
    return [rng_values(100 * (i + 1) + step, s) for i, s in enumerate(SHAPES)]


def _initial():
    return [rng_values(i, s) for i, s in enumerate(SHAPES)]


def _optax_loop(transform):
    params = [jax.numpy.asarray(p) for p in _initial()]
    state = transform.init(params)
    for step in range(STEPS):
        updates, state = transform.update(_grads(step), state, params)
        params = optax.apply_updates(params, updates)
    return [np.asarray(p) for p in params]


def _tf_loop(transform, backend):
    with tf.Graph().as_default():
        variables = [tf.Variable(p, name=f"p{i}") for i, p in enumerate(_initial())]
        phs = [tf.placeholder(tf.float32, s) for s in SHAPES]
        gs = tf.train.get_or_create_global_step()
        opt = tf.train.OptaxOptimizer(transform)
        train_op = opt.apply_gradients(list(zip(phs, variables)), global_step=gs)
        md = tf.RunMetadata()
        with tf.Session(backend=backend) as sess:
            sess.run(tf.global_variables_initializer())
            for step in range(STEPS):
                sess.run(train_op, dict(zip(phs, _grads(step))), run_metadata=md)
            values = sess.run(variables)
            assert sess.run(gs) == STEPS
        opt_vars = [(v.name, v.dtype.base_dtype) for v in opt.variables()]
        return values, opt, md, variables, opt_vars


@pytest.mark.parametrize("name", sorted(TRANSFORMS))
@pytest.mark.parametrize("backend", ["xla", "reference"])
def test_matches_optax_run_eagerly(name, backend):
    expected = _optax_loop(TRANSFORMS[name]())
    values, _, md, _, _ = _tf_loop(TRANSFORMS[name](), backend)
    for got, want in zip(values, expected):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    if backend == "xla":
        plan = md.executable.plan
        assert [s.kind for s in plan.segments if s.ops] == ["device"]
        assert md.executable.compile_count == 1


def test_state_as_slots_and_non_slot_variables():
    _, opt, _, variables, opt_vars = _tf_loop(optax.adam(0.05), "xla")
    assert opt.get_slot_names() == ["0/mu", "0/nu"]
    assert opt.get_slot(variables[0], "0/mu").name == "p0/Optax:0"
    assert opt.get_slot(variables[0], "0/nu").name == "p0/Optax_1:0"
    assert opt.get_slot(variables[1], "0/mu").shape.as_list() == [2]
    assert [name for name, _ in opt_vars] == [
        "Optax/0/count:0",
        "p0/Optax:0",
        "p0/Optax_1:0",
        "p1/Optax:0",
        "p1/Optax_1:0",
    ]
    assert opt_vars[0][1] == tf.int32


def test_minimize_with_sparse_gradient_densified():
    """A gather's IndexedSlices gradient is densified for optax (needs Gather's gradient)."""
    table0 = rng_values(5, (6, 2))
    ids = np.array([1, 4, 1], np.int32)

    with tf.Graph().as_default():
        table = tf.Variable(table0, name="table")
        loss = tf.reduce_sum(tf.square(tf.gather(table, ids)))
        op = tf.train.OptaxOptimizer(optax.sgd(0.1)).minimize(loss)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(op)
            got = sess.run(table)
    grad = np.zeros_like(table0)
    np.add.at(grad, ids, 2 * table0[ids])
    np.testing.assert_allclose(got, table0 - 0.1 * grad, rtol=1e-6)


def test_needs_a_gradient_for_every_variable():
    with tf.Graph().as_default():
        a = tf.Variable(np.ones(2, np.float32), name="a")
        b = tf.Variable(np.ones(2, np.float32), name="b")
        opt = tf.train.OptaxOptimizer(optax.adam(0.1))
        with pytest.raises(ValueError, match="needs a gradient for each"):
            opt.apply_gradients([(tf.ones(2), a), (None, b)])
            opt.apply_gradients([(tf.ones(2), b)])


def test_rejects_non_transform():
    with pytest.raises(TypeError, match="optax GradientTransformation"):
        tf.train.OptaxOptimizer(0.1)
