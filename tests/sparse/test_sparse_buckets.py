"""Size buckets for sparse feeds (lowering/buckets.py): a training loop over batches of
varying nnz compiles once per bucket, and padded steps compute what TensorFlow computes."""

import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tfcompat
from lowering import buckets
from lowering import sparse as sparse_lowering
from tests.oracle import tf1

BATCH, VOCAB, DIM = 8, 50, 4


def _batch(rng, max_per_row):
    """A [BATCH, max_per_row] SparseTensorValue of ids; every row has at least one id."""
    indices, values = [], []
    for row in range(BATCH):
        count = int(rng.integers(1, max_per_row + 1))
        for col in range(count):
            indices.append((row, col))
            values.append(int(rng.integers(0, VOCAB)))
    return tfcompat.SparseTensorValue(
        np.asarray(indices, np.int64),
        np.asarray(values, np.int64),
        np.asarray([BATCH, max_per_row]),
    )


def _model(tf, combiner):
    sp = tf.sparse_placeholder(tf.int64, shape=[None, None], name="ids")
    labels = tf.placeholder(tf.float32, [None, DIM], name="labels")
    init = np.linspace(-1, 1, VOCAB * DIM, dtype=np.float32).reshape(VOCAB, DIM)
    w = tf.Variable(init, name="w")
    e = tf.nn.embedding_lookup_sparse(w, sp, None, combiner=combiner)
    loss = tf.reduce_mean(tf.square(e - labels))
    train = tf.train.AdagradOptimizer(0.5).minimize(loss)
    return sp, labels, w, loss, train


def _train(tf, combiner, batches, labels_value, backend=None):
    graph = tf.Graph()
    with graph.as_default():
        sp, labels, w, loss, train = _model(tf, combiner)
        kwargs = {"backend": backend} if backend else {}
        with tf.Session(graph=graph, **kwargs) as sess:
            sess.run(tf.global_variables_initializer())
            losses, counts = [], []
            for value in batches:
                meta = tf.RunMetadata()
                _, out = sess.run(
                    [train, loss], {sp: value, labels: labels_value}, run_metadata=meta
                )
                losses.append(out)
                executable = getattr(meta, "executable", None)
                counts.append(None if executable is None else executable.compile_count)
            return np.asarray(losses), sess.run(w), counts


@pytest.mark.parametrize("combiner", ["sum", "mean", "sqrtn"])
def test_training_loop_does_not_recompile_after_warm_up(combiner):
    rng = np.random.default_rng(0)
    batches = [_batch(rng, int(rng.integers(1, 12))) for _ in range(20)]
    labels = rng.normal(size=(BATCH, DIM)).astype(np.float32)
    nnz = [len(b.values) for b in batches]
    assert len(set(nnz)) > 8  # the loop really varies nnz
    losses, w, counts = _train(tfcompat, combiner, batches, labels)
    # One compilation per bucket seen, never one per nnz.
    seen = []
    for n, count in zip(nnz, counts):
        bucket = buckets.bucket_size(n)
        if bucket not in seen:
            seen.append(bucket)
        assert count == len(seen), (nnz, counts)
    assert counts[-1] == len({buckets.bucket_size(n) for n in nnz}) < len(set(nnz))
    # And the padded steps train exactly as TF does.
    their_losses, their_w, _ = _train(tf1(), combiner, batches, labels)
    np.testing.assert_allclose(losses, their_losses, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(w, their_w, rtol=1e-5, atol=1e-6)


def test_training_step_takes_distinct_rows_from_the_host(monkeypatch):
    """The row-sparse gradient's distinct ids are computed by the host before the call
    (XLA:CPU's sort, one per table, was the slowest part of a feature-column step): the
    step never calls ``jnp.unique``, and trains as TF does."""

    def no_device_unique(*args, **kwargs):
        raise AssertionError("the device step sorted ids")

    rng = np.random.default_rng(1)
    batches = [_batch(rng, int(rng.integers(1, 12))) for _ in range(4)]
    labels = rng.normal(size=(BATCH, DIM)).astype(np.float32)
    monkeypatch.setattr(jnp, "unique", no_device_unique)
    losses, w, _ = _train(tfcompat, "mean", batches, labels)
    monkeypatch.undo()
    their_losses, their_w, _ = _train(tf1(), "mean", batches, labels)
    np.testing.assert_allclose(losses, their_losses, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(w, their_w, rtol=1e-5, atol=1e-6)


@settings(max_examples=60, deadline=None)
@given(
    ids=st.lists(st.integers(0, 20), min_size=0, max_size=30),
    padding=st.integers(0, 8),
    data=st.data(),
)
def test_distinct_rows_matches_numpy_unique(ids, padding, data):
    """``distinct_rows`` is ``np.unique(return_inverse=True)`` over the kept entries, with
    padding rows (index ``dim0``) and padding entries (pointing past the last row)."""
    ids = np.asarray(ids, np.int64)
    keep = np.asarray(
        data.draw(st.lists(st.booleans(), min_size=len(ids), max_size=len(ids))), bool
    )
    segment_ids = np.where(keep, 0, -1)
    expected, expected_inverse = np.unique(ids[keep], return_inverse=True)
    rows, inverse = sparse_lowering.distinct_rows(ids, segment_ids, 21)
    np.testing.assert_array_equal(rows, expected)
    np.testing.assert_array_equal(inverse[keep], expected_inverse.reshape(-1))
    assert (inverse[~keep] == rows.size).all()
    padded = len(ids) + padding
    rows, inverse = sparse_lowering.distinct_rows(ids, segment_ids, 21, padded)
    assert rows.shape == inverse.shape == (padded,)
    np.testing.assert_array_equal(rows[: expected.size], expected)
    assert (rows[expected.size :] == 21).all()
    np.testing.assert_array_equal(inverse[: len(ids)][keep], expected_inverse.reshape(-1))
    assert (inverse[: len(ids)][~keep] == padded).all() and (inverse[len(ids) :] == padded).all()


def test_bucket_sizes():
    assert [buckets.bucket_size(n) for n in (0, 1, 16, 17, 32, 33, 100)] == [
        16, 16, 16, 32, 32, 64, 128,
    ]  # fmt: skip


def test_fetched_padded_tensor_is_cut_to_its_length():
    """A tensor computed row by row from padded entries comes back at its true length."""
    with tfcompat.Graph().as_default():
        sp = tfcompat.sparse_placeholder(tfcompat.float32, shape=[None, None])
        doubled = sp.values * 2.0
        dense = tfcompat.sparse_tensor_to_dense(
            tfcompat.SparseTensor(sp.indices, doubled, sp.dense_shape)
        )
        value = tfcompat.SparseTensorValue(
            np.array([[0, 0], [1, 2], [2, 1]]),
            np.array([1.0, 2.0, 3.0], np.float32),
            np.array([3, 3]),
        )
        with tfcompat.Session() as sess:
            out, d = sess.run([doubled, dense], {sp: value})
    np.testing.assert_array_equal(out, [2.0, 4.0, 6.0])
    np.testing.assert_array_equal(d, [[2, 0, 0], [0, 0, 4], [0, 6, 0]])


def test_unsafe_use_keeps_the_input_exact():
    """``tf.shape`` of the values sees the true nnz: that input is not padded."""
    with tfcompat.Graph().as_default():
        sp = tfcompat.sparse_placeholder(tfcompat.float32, shape=[None, None])
        n = tfcompat.shape(sp.values)[0]
        total = tfcompat.sparse_reduce_sum(sp)
        value = tfcompat.SparseTensorValue(
            np.array([[0, 0], [1, 2]]), np.array([1.0, 2.0], np.float32), np.array([2, 3])
        )
        with tfcompat.Session() as sess:
            assert sess.run([n, total], {sp: value}) == [2, 3.0]
