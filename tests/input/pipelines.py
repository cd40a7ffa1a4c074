"""Shared runner of the input-pipeline tests: a queue-fed program run to the end of its
input, under tfcompat or TF."""

import numpy as np

import tfcompat
from tests.oracle import graph_def_nodes, tf1


def run_pipeline(tf, build, max_steps=100):
    """Builds ``build(tf) -> fetches``, runs the queue runners and fetches until the
    input ends (OutOfRangeError) or ``max_steps``; returns (fetched values, GraphDef
    nodes)."""
    with tf.Graph().as_default() as graph:
        fetches = build(tf)
        with tf.Session() as sess:
            sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
            coord = tf.train.Coordinator()
            threads = tf.train.start_queue_runners(sess, coord)
            out = []
            try:
                for _ in range(max_steps):
                    if coord.should_stop():
                        break
                    out.append(sess.run(fetches))
            except tf.errors.OutOfRangeError:
                pass
            finally:
                coord.request_stop()
            coord.join(threads, stop_grace_period_secs=10)
    return out, graph_def_nodes(graph)


def assert_same_pipeline(build, max_steps=100):
    """Runs ``build`` under tfcompat and TF: the same fetched values (dtype, shape, value)
    step by step, and the same GraphDef node names, ops and inputs; returns ours."""
    ours, our_nodes = run_pipeline(tfcompat, build, max_steps)
    theirs, their_nodes = run_pipeline(tf1(), build, max_steps)
    assert len(ours) == len(theirs) > 0
    for a, b in zip(ours, theirs):
        for x, y in zip(a, b):
            x, y = np.asarray(x), np.asarray(y)
            assert x.dtype == y.dtype and x.shape == y.shape
            np.testing.assert_array_equal(x, y)
    assert {n: v[:2] for n, v in our_nodes.items()} == {n: v[:2] for n, v in their_nodes.items()}
    return ours
