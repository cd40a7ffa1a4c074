"""Training-loop parity harness: run the same optimizer program for many steps under TF
2.21 and under tfcompat's backends, and compare every variable the optimizer touches.

A *trainer* is ``trainer(tf, global_step) -> (train_op, fetches, feed_fn)``: it builds the
model and optimizer with module ``tf``; ``feed_fn(step)`` returns the feed dict of a step
(numpy values made from fixed seeds, so both sides see the same data), and ``fetches``
(e.g. the loss) are fetched with the train op at every step.
"""

from __future__ import annotations

import numpy as np

import tfcompat
from tests.oracle import assert_values_close, tf1

OPTIMIZERS = {
    "gradient_descent": lambda tf, gs: tf.train.GradientDescentOptimizer(0.1),
    "momentum": lambda tf, gs: tf.train.MomentumOptimizer(0.05, 0.9),
    "nesterov": lambda tf, gs: tf.train.MomentumOptimizer(0.05, 0.9, use_nesterov=True),
    "adagrad": lambda tf, gs: tf.train.AdagradOptimizer(0.1, initial_accumulator_value=0.2),
    "adagrad_da": lambda tf, gs: tf.train.AdagradDAOptimizer(
        0.1, gs, l1_regularization_strength=0.01, l2_regularization_strength=0.02
    ),
    "adagrad_da_no_l1": lambda tf, gs: tf.train.AdagradDAOptimizer(0.2, gs),
    "adam": lambda tf, gs: tf.train.AdamOptimizer(0.05),
    "rmsprop": lambda tf, gs: tf.train.RMSPropOptimizer(
        0.01, decay=0.8, momentum=0.5, epsilon=1e-6
    ),
    "rmsprop_centered": lambda tf, gs: tf.train.RMSPropOptimizer(
        0.01, momentum=0.3, epsilon=1e-4, centered=True
    ),
    "adadelta": lambda tf, gs: tf.train.AdadeltaOptimizer(1.0, rho=0.9, epsilon=1e-6),
    "ftrl": lambda tf, gs: tf.train.FtrlOptimizer(
        0.1, l1_regularization_strength=0.01, l2_regularization_strength=0.02
    ),
    "ftrl_shrinkage": lambda tf, gs: tf.train.FtrlOptimizer(
        0.1,
        learning_rate_power=-0.7,
        initial_accumulator_value=0.3,
        l1_regularization_strength=0.01,
        l2_shrinkage_regularization_strength=0.05,
        beta=0.1,
    ),
    "proximal_gradient_descent": lambda tf, gs: tf.train.ProximalGradientDescentOptimizer(
        0.1, l1_regularization_strength=0.01, l2_regularization_strength=0.02
    ),
    "proximal_adagrad": lambda tf, gs: tf.train.ProximalAdagradOptimizer(
        0.1, l1_regularization_strength=0.01, l2_regularization_strength=0.02
    ),
}


class Result:
    """Per-step fetched values, final values of every global variable by name, the
    optimizer's slot names and variable names, and the graph."""

    def __init__(self, history, variables, slot_names, optimizer_variables, graph, metadata):
        self.history = history
        self.variables = variables
        self.slot_names = slot_names
        self.optimizer_variables = optimizer_variables
        self.graph = graph
        self.metadata = metadata


def train(tf, trainer, make_optimizer, steps=50, backend=None):
    """Builds and runs ``trainer`` for ``steps`` steps in a fresh graph."""
    graph = tf.Graph()
    with graph.as_default():
        gs = tf.train.get_or_create_global_step()
        optimizer = make_optimizer(tf, gs)
        train_op, fetches, feed_fn = trainer(tf, optimizer, gs)
        kwargs = {"backend": backend} if tf is tfcompat and backend else {}
        history = []
        metadata = tf.RunMetadata()
        with tf.Session(graph=graph, **kwargs) as sess:
            sess.run(tf.global_variables_initializer())
            for step in range(steps):
                _, fetched = sess.run([train_op, fetches], feed_fn(step), run_metadata=metadata)
                history.append(fetched)
            all_vars = tf.global_variables()
            values = dict(zip([v.op.name for v in all_vars], sess.run(all_vars)))
        return Result(
            history,
            values,
            optimizer.get_slot_names(),
            [v.op.name for v in optimizer.variables()],
            graph,
            metadata,
        )


def assert_training_parity(trainer, make_optimizer, steps=50, rtol=2e-5, atol=2e-5):
    """TF and both tfcompat backends agree on per-step fetches and final variables (names
    included). Returns (TF's result, our xla result)."""
    theirs = train(tf1(), trainer, make_optimizer, steps)
    ours_xla = None
    for backend in ("xla", "reference"):
        ours = train(tfcompat, trainer, make_optimizer, steps, backend)
        assert sorted(ours.variables) == sorted(theirs.variables), backend
        assert ours.slot_names == theirs.slot_names
        assert ours.optimizer_variables == theirs.optimizer_variables
        assert_values_close(ours.history, theirs.history, rtol, atol, f"[{backend}] history")
        for name in theirs.variables:
            assert_values_close(
                ours.variables[name], theirs.variables[name], rtol, atol, f"[{backend}] {name}"
            )
        if backend == "xla":
            ours_xla = ours
    return theirs, ours_xla


def rng_values(seed, shape, dtype=np.float32):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


# Rows of the sparse gradient: duplicates (0 twice, 4 twice) must be summed, rows 1, 3, 5
# never touched.
SPARSE_INDICES = np.array([0, 4, 2, 0, 4], np.int32)


def fed_gradients(tf, optimizer, gs, sparse=True, use_resource=False):
    """Variables ``w`` (3x2), ``b`` (2,) and ``emb`` (6x3) (resource variables with
    ``use_resource``); their gradients are fed: a new random value every step. ``emb``'s is
    an IndexedSlices over ``SPARSE_INDICES``."""

    def variable(value, name):
        return tf.Variable(value, name=name, use_resource=use_resource)

    w = variable(rng_values(0, (3, 2)), "w")
    b = variable(rng_values(1, (2,)), "b")
    gw = tf.placeholder(tf.float32, (3, 2), name="gw")
    gb = tf.placeholder(tf.float32, (2,), name="gb")
    pairs = [(gw, w), (gb, b)]
    feeds = {}
    if sparse:
        emb = variable(rng_values(2, (6, 3)), "emb")
        ge = tf.placeholder(tf.float32, (len(SPARSE_INDICES), 3), name="ge")
        gi = tf.placeholder(tf.int32, (len(SPARSE_INDICES),), name="gi")
        pairs.append((tf.IndexedSlices(ge, gi, tf.constant([6, 3])), emb))
        feeds = {ge: (len(SPARSE_INDICES), 3), gi: None}
    train_op = optimizer.apply_gradients(pairs, global_step=gs)

    def feed_fn(step):
        feed = {gw: rng_values(100 + step, (3, 2)), gb: rng_values(200 + step, (2,))}
        for ph, shape in feeds.items():
            feed[ph] = SPARSE_INDICES if shape is None else rng_values(300 + step, shape)
        return feed

    return train_op, [], feed_fn
