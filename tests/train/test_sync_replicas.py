"""``tf.train.SyncReplicasOptimizer`` vs TF 2.21: its graph (accumulators, token queue, local
step) and, run step by step, the values of a replica and the chief's updates."""

from __future__ import annotations

import numpy as np
import pytest

import tfcompat
from tests.oracle import tf1


def _build(tf):
    w = tf.Variable([1.0, 2.0], name="w")
    emb = tf.Variable(np.ones((4, 2), np.float32), name="emb")
    loss = tf.reduce_sum(w * w) + tf.reduce_sum(tf.gather(emb, [1, 3, 1]))
    sync = tf.train.SyncReplicasOptimizer(
        tf.train.GradientDescentOptimizer(0.1), replicas_to_aggregate=1, total_num_replicas=1
    )
    gs = tf.train.get_or_create_global_step()
    train = sync.minimize(loss, global_step=gs)
    return sync, gs, train, [w, gs, emb[1]]


def _trained(tf):
    """Three replica steps with the chief's queue runner started by the hook. A replica's
    step returns once it holds a token, which the chief enqueues after an update: after
    the second and third steps the updates so far are complete (the second step's
    gradients, computed at global step 0 when the step is 1, are stale and dropped)."""
    with tf.Graph().as_default() as graph:
        sync, gs, train, watched = _build(tf)
        hook = sync.make_session_run_hook(is_chief=True)
        hook.begin()
        out = []
        sess = tf.Session()
        sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
        coord = tf.train.Coordinator()
        hook.after_create_session(sess, coord)  # the chief's queue runner thread starts
        local_steps = []
        for i in range(3):
            local_steps.append(int(sess.run(train)))
            if i:
                out.append(sess.run(watched))
        coord.request_stop()  # the chief's thread stays blocked on the accumulators, as in TF
        nodes = sorted(
            (n.name, n.op)
            for n in graph.as_graph_def().node
            if "sync" in n.name or "accum" in n.name
        )
        return local_steps, out, nodes


def test_sync_replicas_steps_and_graph_match_tf():
    our_steps, ours, our_nodes = _trained(tfcompat)
    their_steps, theirs, their_nodes = _trained(tf1())
    assert our_nodes == their_nodes
    assert our_steps == their_steps == [0, 1, 2]
    for a, b in zip(ours, theirs):
        for x, y in zip(a, b):
            np.testing.assert_allclose(x, y, rtol=1e-6)
    assert [int(step[1]) for step in ours] == [1, 2]


def test_sync_replicas_needs_a_global_step():
    with tfcompat.Graph().as_default():
        w = tfcompat.Variable(1.0)
        sync = tfcompat.train.SyncReplicasOptimizer(
            tfcompat.train.GradientDescentOptimizer(0.1), replicas_to_aggregate=1
        )
        with pytest.raises(ValueError, match="Global step is required"):
            sync.minimize(w * w)
