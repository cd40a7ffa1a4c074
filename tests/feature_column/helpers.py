"""Shared pieces of the feature-column tests: the transformation cache of each side, and
running programs with lookup tables for several steps under TF and tfcompat."""

from __future__ import annotations

import tfcompat


def lazy_builder(tf, features):
    """``_LazyBuilder(features)`` of the module ``tf`` runs under."""
    if tf is tfcompat:
        from tfcompat.feature_column.state import _LazyBuilder

        return _LazyBuilder(features)
    from tensorflow.python.feature_column import feature_column as fc_old

    return fc_old._LazyBuilder(features)


def ids_of(tf, column, features):
    """The (ids, weights) SparseTensors a categorical column makes of ``features``."""
    pair = column._get_sparse_tensors(lazy_builder(tf, features))
    return pair.id_tensor if pair.weight_tensor is None else tuple(pair)


# Ops a program puts in this collection run once after initialization (e.g. assigns that
# move zero-initialized weights off zero before the fetches are computed).
PRE_RUN = "feature_column_tests_pre_run"


def set_weights_off_zero(tf):
    """Queues assigns giving every trainable variable distinct non-zero values."""
    for i, v in enumerate(tf.trainable_variables()):
        values = tf.cast(tf.range(tf.size(v)), tf.float32) / 7.0 + 0.25 * (i + 1)
        tf.add_to_collection(PRE_RUN, tf.assign(v, tf.reshape(values, tf.shape(v))))


def run(tf, program, backend=None, steps=1):
    """Builds ``program`` in a fresh graph, initializes variables and tables, and runs its
    fetches ``steps`` times; returns the list of fetched values (one per step)."""
    from tests.oracle import _split

    graph = tf.Graph()
    with graph.as_default():
        fetches, feeds = _split(program(tf))
        kwargs = {"backend": backend} if tf is tfcompat and backend else {}
        with tf.Session(graph=graph, **kwargs) as sess:
            sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
            sess.run(tf.tables_initializer())
            sess.run(tf.get_collection(PRE_RUN))
            return [sess.run(fetches, feeds) for _ in range(steps)]


def assert_parity(program, rtol=1e-6, atol=1e-6, backends=("xla", "reference"), steps=1):
    """``tests.oracle.assert_parity`` for programs with lookup tables (and several steps)."""
    from tests.oracle import assert_values_close, tf1

    theirs = run(tf1(), program, steps=steps)
    for backend in backends:
        ours = run(tfcompat, program, backend, steps)
        assert_values_close(ours, theirs, rtol, atol, f"[{backend}]")
    return theirs
