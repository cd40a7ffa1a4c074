"""Shared pieces of the feature-column tests: the transformation cache of each side and a
skip marker for tests that need SparseTensor ops tfcompat may not provide yet."""

from __future__ import annotations

import importlib

import pytest

import tfcompat


def lazy_builder(tf, features):
    """``_LazyBuilder(features)`` of the module ``tf`` runs under."""
    if tf is tfcompat:
        from tfcompat.feature_column.state import _LazyBuilder

        return _LazyBuilder(features)
    from tensorflow.python.feature_column import feature_column as fc_old

    return fc_old._LazyBuilder(features)


def _has(name):
    for module in ("tfcompat.ops.sparse_ops", "tfcompat.ops.embedding_ops"):
        try:
            if getattr(importlib.import_module(module), name, None) is not None:
                return True
        except ImportError:
            pass
    return False


def requires(*names):
    """Skips a test until tfcompat provides each SparseTensor op wrapper in ``names``."""
    missing = [n for n in names if not _has(n)]
    return pytest.mark.skipif(bool(missing), reason=f"tfcompat lacks {', '.join(missing)}")


def ids_of(tf, column, features):
    """The (ids, weights) SparseTensors a categorical column makes of ``features``."""
    pair = column._get_sparse_tensors(lazy_builder(tf, features))
    return pair.id_tensor if pair.weight_tensor is None else tuple(pair)


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
            return [sess.run(fetches, feeds) for _ in range(steps)]


def assert_parity(program, rtol=1e-6, atol=1e-6, backends=("xla", "reference"), steps=1):
    """``tests.oracle.assert_parity`` for programs with lookup tables (and several steps)."""
    from tests.oracle import assert_values_close, tf1

    theirs = run(tf1(), program, steps=steps)
    for backend in backends:
        ours = run(tfcompat, program, backend, steps)
        assert_values_close(ours, theirs, rtol, atol, f"[{backend}]")
    return theirs
