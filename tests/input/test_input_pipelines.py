"""TF1 queue-based input pipelines against TF 2.21: slice/range/string input producers with
epochs, tf.train.batch (also padded, and with a smaller final batch), shuffle_batch, the
QueueRunner / Coordinator loop, and a training loop fed by a batch queue: the same batches,
losses, variables and GraphDef node names."""

import numpy as np
import pytest

import tfcompat
from tests.input.pipelines import run_pipeline
from tests.oracle import tf1

DATA = np.arange(20, dtype=np.float32).reshape(10, 2)
LABELS = np.arange(10, dtype=np.int64)


def _assert_same(build, **kwargs):
    ours, our_nodes = run_pipeline(tfcompat, build, **kwargs)
    theirs, their_nodes = run_pipeline(tf1(), build, **kwargs)
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        for x, y in zip(a, b):
            x, y = np.asarray(x), np.asarray(y)
            assert x.dtype == y.dtype
            if x.dtype.kind in "OSb":
                np.testing.assert_array_equal(x, y)
            else:
                np.testing.assert_allclose(x, y, rtol=1e-5, atol=1e-7)
    assert sorted(our_nodes) == sorted(their_nodes)
    for name, (op, inputs, _) in their_nodes.items():
        assert our_nodes[name][:2] == (op, inputs), name
    return ours


def test_slice_input_producer_and_batch_match_tf():
    def build(tf):
        x, y = tf.train.slice_input_producer([DATA, LABELS], num_epochs=2, shuffle=False)
        bx, by = tf.train.batch([x * 2.0, y], batch_size=4, allow_smaller_final_batch=True)
        return [bx, by, tf.reduce_sum(bx)]

    batches = _assert_same(build)
    assert [len(b[1]) for b in batches] == [4, 4, 4, 4, 4]


def test_range_producer_padded_batch_and_dict_match_tf():
    def build(tf):
        queue = tf.train.range_input_producer(5, num_epochs=1, shuffle=False)
        i = queue.dequeue()
        ragged = tf.range(i + 1)  # lengths 1..5, padded per batch
        batch = tf.train.batch({"ids": ragged, "i": i}, batch_size=2, dynamic_pad=True,
                               allow_smaller_final_batch=True)  # fmt: skip
        return [batch["ids"], batch["i"]]

    _assert_same(build)


def test_string_input_producer_epochs_match_tf():
    def build(tf):
        queue = tf.train.string_input_producer(["a", "b", "c"], num_epochs=2, shuffle=False)
        return [queue.dequeue()]

    values = _assert_same(build)
    assert [v[0] for v in values] == [b"a", b"b", b"c"] * 2


def test_training_from_a_batch_queue_matches_tf():
    def build(tf):
        x, y = tf.train.slice_input_producer(
            [DATA, LABELS.astype(np.float32)], num_epochs=3, shuffle=False
        )
        bx, by = tf.train.batch([x, y], batch_size=5)
        w = tf.Variable(np.array([[0.1], [-0.2]], np.float32), name="w")
        loss = tf.reduce_mean(tf.square(tf.squeeze(tf.matmul(bx, w), 1) - by * 0.1))
        train = tf.train.GradientDescentOptimizer(0.001).minimize(loss)
        with tf.control_dependencies([train]):
            return [tf.identity(loss), tf.identity(w.read_value())]

    assert len(_assert_same(build)) == 6


def test_shuffle_batch_gives_every_element_once_per_epoch():
    def build(tf):
        x = tf.train.slice_input_producer([LABELS], num_epochs=2, shuffle=True, seed=1)[0]
        return [tf.train.shuffle_batch([x], 4, capacity=12, min_after_dequeue=3, seed=2,
                                       allow_smaller_final_batch=True)]  # fmt: skip

    ours, _ = run_pipeline(tfcompat, build)
    seen = np.concatenate([v[0] for v in ours])
    assert sorted(seen.tolist()) == sorted(LABELS.tolist() * 2)
    assert seen.tolist() != sorted(seen.tolist())


@pytest.mark.parametrize("tf", [tfcompat, "tf"], ids=["tfcompat", "tf"])
def test_construction_errors(tf):
    tf = tf1() if tf == "tf" else tf
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="requires a non-null input tensor"):
            tf.train.string_input_producer([])
        with pytest.raises(ValueError, match="num_epochs must be > 0 not 0"):
            tf.train.limit_epochs(tf.constant(1), 0)
        with pytest.raises(ValueError, match="must be bigger than min_after_dequeue"):
            tf.train.shuffle_batch([tf.constant(1)], 2, capacity=3, min_after_dequeue=3)
        with pytest.raises(ValueError, match="All shapes must be fully defined"):
            tf.train.batch([tf.placeholder(tf.float32, [None])], 2)


def test_monitored_session_starts_queue_runners_and_ends_at_out_of_range():
    def losses(tf):
        with tf.Graph().as_default():
            x = tf.train.slice_input_producer([DATA], num_epochs=2, shuffle=False)[0]
            batch = tf.train.batch([x], batch_size=5)
            total = tf.reduce_sum(batch)
            out = []
            with tf.train.MonitoredSession() as sess:
                while not sess.should_stop():
                    out.append(float(sess.run(total)))
            return out

    assert losses(tfcompat) == losses(tf1()) == [45.0, 145.0, 45.0, 145.0]


@pytest.mark.parametrize("join", ["batch_join", "shuffle_batch_join"])
def test_join_batches_hold_every_element_once_and_graph_defs_match_tf(join):
    # Two input lists, each enqueued by its own thread: the interleaving is the threads'
    # (as in TF), so the elements are compared as a multiset.
    def build(tf):
        lists = []
        for k in range(2):
            x, y = tf.train.slice_input_producer(
                [DATA[k::2], LABELS[k::2]], num_epochs=1, shuffle=False, name=f"producer{k}"
            )
            lists.append({"x": x + 100.0 * k, "y": y})
        if join == "batch_join":
            batch = tf.train.batch_join(lists, batch_size=3, allow_smaller_final_batch=True)
        else:
            batch = tf.train.shuffle_batch_join(
                lists, batch_size=3, capacity=20, min_after_dequeue=2, seed=3,
                allow_smaller_final_batch=True,
            )  # fmt: skip
        return [batch["x"], batch["y"]]

    results = {}
    for tf in (tfcompat, tf1()):
        out, nodes = run_pipeline(tf, build)
        xs = np.concatenate([b[0] for b in out])
        ys = np.concatenate([b[1] for b in out])
        order = np.argsort(ys)
        results[tf] = (xs[order], ys[order], nodes, sum(len(b[1]) for b in out))
    (x0, y0, ours, n0), (x1, y1, theirs, n1) = results.values()
    assert n0 == n1 == 10
    np.testing.assert_array_equal(x0, x1)
    np.testing.assert_array_equal(y0, y1)
    assert {n: v[:2] for n, v in ours.items()} == {n: v[:2] for n, v in theirs.items()}


def test_join_checks_match_tf():
    for tf in (tfcompat, tf1()):
        with tf.Graph().as_default():
            a = [tf.constant(1.0), tf.constant(2)]
            b = [tf.constant(1.0), tf.constant(2.0)]
            with pytest.raises(TypeError, match="Expected types to be consistent"):
                tf.train.batch_join([a, b], batch_size=2)
            with pytest.raises(ValueError, match="must have the same keys"):
                tf.train.batch_join([{"a": a[0]}, {"b": b[0]}], batch_size=2)
            with pytest.raises(ValueError):  # incompatible shapes
                tf.train.batch_join([[tf.zeros([2])], [tf.zeros([3])]], batch_size=2)
