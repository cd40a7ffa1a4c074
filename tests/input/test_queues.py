"""TF1 queues against TF 2.21: FIFOQueue / PaddingFIFOQueue / RandomShuffleQueue values,
GraphDefs, blocking between threads, and TF's errors (closed queues, shape mismatches,
negative counts); tf.count_up_to."""

import collections
import re
import threading
import time

import numpy as np
import pytest

import tfcompat
from tests.oracle import graph_def_nodes, tf1


def _both():
    return [("tfcompat", tfcompat), ("tf", tf1())]


def _message(error):
    text = str(getattr(error, "message", error))
    # TF's graph-execution errors wrap the kernel's text; keep the kernel's line.
    if "\nNode: " in text:
        text = text.split("\nNode: ")[1].split("\n")[1]
    # The resource's number counts the process's queues (in TF too): not compared.
    return type(error).__name__, re.sub(r"'_\d+_", "'_N_", text.split("\n")[0])


def _queue_session(tf):
    """Runs a fixed sequence of queue operations, returning what each gave (values, or
    the error class and message)."""
    results = []
    with tf.Graph().as_default() as graph:
        q = tf.FIFOQueue(5, [tf.float32, tf.int32], shapes=[[2], []])
        v, w = tf.placeholder(tf.float32, None), tf.placeholder(tf.int32, None)
        n = tf.placeholder(tf.int32, [])
        x, i = q.dequeue()
        steps = [
            (q.enqueue_many([[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], [7, 8, 9]]), None),
            (q.size(), None),
            ([x * 2.0, i], None),
            (q.dequeue_many(2), None),
            (q.enqueue([v, 5]), {v: [0.0, 1.0, 2.0]}),
            (q.enqueue_many([v, w]), {v: [[1.0, 2.0]], w: [1, 2]}),
            (q.enqueue_many([v, w]), {v: [[1.0, 2.0, 3.0]], w: [1]}),
            (q.dequeue_many(n), {n: -1}),
            (q.enqueue([[0.0, 1.0], 5]), None),
            (q.close(), None),
            ([q.size(), q.is_closed()], None),
            (q.enqueue([[0.0, 1.0], 5]), None),
            (q.dequeue_many(3), None),
            (q.dequeue_up_to(3), None),
            (q.dequeue_up_to(3), None),
        ]
        padded = tf.PaddingFIFOQueue(5, [tf.int32, tf.string], shapes=[[None], []])
        steps += [
            (padded.enqueue([[1, 2, 3], "a"]), None),
            (padded.enqueue([[4], "b"]), None),
            (padded.dequeue_many(2), None),
        ]
        named = tf.FIFOQueue(3, [tf.int32, tf.float32], shapes=[[], []], names=["a", "b"])
        steps += [(named.enqueue({"a": 1, "b": 2.0}), None), (named.dequeue(), None)]
        unshaped = tf.FIFOQueue(3, [tf.float32])
        steps += [
            (unshaped.enqueue([[1.0, 2.0]]), None),
            (unshaped.dequeue(), None),
            (unshaped.enqueue([[1.0]]), None),
            (unshaped.dequeue_many(1), None),
        ]
        with tf.Session() as sess:
            for fetch, feed in steps:
                try:
                    results.append(sess.run(fetch, feed))
                except tf.errors.OpError as e:
                    results.append(_message(e))
    return results, graph_def_nodes(graph)


def test_queue_operations_values_errors_and_graph_def_match_tf():
    (ours, our_nodes), (theirs, their_nodes) = (_queue_session(tf) for _, tf in _both())
    assert len(ours) == len(theirs)
    for k, (a, b) in enumerate(zip(ours, theirs)):
        if isinstance(b, tuple) and isinstance(b[0], str):
            assert a == b, f"step {k}"
        else:
            a_leaves = [a] if not isinstance(a, (list, dict)) else a
            b_leaves = [b] if not isinstance(b, (list, dict)) else b
            if isinstance(b, dict):
                assert a.keys() == b.keys()
                a_leaves, b_leaves = list(a.values()), list(b.values())
            for x, y in zip(a_leaves, b_leaves):
                x, y = np.asarray(x), np.asarray(y)
                assert x.dtype == y.dtype and x.shape == y.shape, f"step {k}"
                np.testing.assert_array_equal(x, y, err_msg=f"step {k}")
    assert sorted(our_nodes) == sorted(their_nodes)
    for name, (op, inputs, attrs) in their_nodes.items():
        assert our_nodes[name][:2] == (op, inputs), name
        for key in attrs:
            if key != "_output_shapes":
                assert our_nodes[name][2].get(key) == attrs[key], (name, key)


@pytest.mark.parametrize("which", ["tfcompat", "tf"])
def test_dequeue_waits_for_another_thread(which):
    tf = dict(_both())[which]
    with tf.Graph().as_default():
        q = tf.FIFOQueue(2, [tf.int32], shapes=[[]])
        value = tf.placeholder(tf.int32, [])
        enqueue, dequeue = q.enqueue([value]), q.dequeue_many(4)
        with tf.Session() as sess:

            def produce():
                for k in range(4):  # blocks while the queue (capacity 2) is full
                    time.sleep(0.02)
                    sess.run(enqueue, {value: k})

            thread = threading.Thread(target=produce)
            thread.start()
            assert sess.run(dequeue).tolist() == [0, 1, 2, 3]
            thread.join()


def test_closing_the_session_cancels_a_blocked_dequeue():
    with tfcompat.Graph().as_default():
        q = tfcompat.FIFOQueue(2, [tfcompat.int32], shapes=[[]])
        dequeue = q.dequeue()
        sess = tfcompat.Session()
        sess.run(q.size())  # makes the queue
        raised = []

        def consume():
            try:
                sess.run(dequeue)
            except tfcompat.errors.CancelledError as e:
                raised.append(e)

        thread = threading.Thread(target=consume)
        thread.start()
        time.sleep(0.1)
        sess.close()
        thread.join(5)
        assert not thread.is_alive() and raised


def test_random_shuffle_queue_keeps_min_after_dequeue_and_every_element():
    with tfcompat.Graph().as_default():
        q = tfcompat.RandomShuffleQueue(20, 5, [tfcompat.int32], shapes=[[]], seed=3)
        sess = tfcompat.Session()
        sess.run(q.enqueue_many([tfcompat.range(12)]))
        first = sess.run(q.dequeue_many(7))
        assert sess.run(q.size()) == 5
        sess.run(q.close())
        rest = sess.run(q.dequeue_up_to(10))
        assert sorted(first.tolist() + rest.tolist()) == list(range(12))
        assert first.tolist() != list(range(7))  # shuffled
    # The same seed gives the same order.
    with tfcompat.Graph().as_default():
        q = tfcompat.RandomShuffleQueue(20, 5, [tfcompat.int32], shapes=[[]], seed=3)
        sess = tfcompat.Session()
        sess.run(q.enqueue_many([tfcompat.range(12)]))
        assert sess.run(q.dequeue_many(7)).tolist() == first.tolist()


@pytest.mark.parametrize("backend", ["xla", "reference"])
def test_count_up_to_matches_tf(backend):
    outcomes = collections.defaultdict(list)
    for which, tf in _both():
        with tf.Graph().as_default():
            v = tf.Variable(0, name="v")
            counter = tf.count_up_to(v, 3)
            also = v.count_up_to(3)
            kwargs = {"backend": backend} if tf is tfcompat else {}
            with tf.Session(**kwargs) as sess:
                sess.run(v.initializer)
                for op in [counter, counter, also, counter]:
                    try:
                        outcomes[which].append(int(sess.run(op)))
                    except tf.errors.OutOfRangeError as e:
                        outcomes[which].append(_message(e))
                outcomes[which].append(int(sess.run(v)))
    assert outcomes["tfcompat"] == outcomes["tf"]
