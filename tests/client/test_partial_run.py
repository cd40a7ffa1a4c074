"""``Session.partial_run_setup`` / ``partial_run`` vs TF 2.21: values, that each node runs
once across the calls, and TF's errors (which refuse a call and keep the partial run)."""

from __future__ import annotations

import numpy as np
import pytest

import tfcompat
from tests.oracle import tf1


def _calls(tf):
    """Builds a step, runs a partial run through it; returns every call's value or error."""
    with tf.Graph().as_default():
        a = tf.placeholder(tf.float32, [], name="a")
        b = tf.placeholder(tf.float32, [], name="b")
        c = tf.placeholder(tf.float32, [], name="c")
        v = tf.Variable(0.0, name="v")
        w = tf.Variable(0.0, name="w")
        r0 = tf.multiply(a, 2.0, name="r0")
        r1 = tf.add(a + b, tf.assign_add(v, 1.0), name="r1")  # not fetched: the frontier
        r2 = tf.multiply(r1, c, name="r2")
        # runs in the first call that can run it (it waits for no feed), once
        noise = tf.add(r2, tf.assign_add(w, 10.0), name="noise")
        sess = tf.Session()
        sess.run([v.initializer, w.initializer])
        h = sess.partial_run_setup([r0, r2, noise], [a, b, c])
        out = []
        for fetches, feeds in [
            (r0, {a: 1.0, b: 2.0}),  # computes r1 (and runs its assign_add) for later
            (r2, {a: 3.0}),  # a fed twice
            (r2, {}),  # c not fed yet
            (a, {c: 1.0}),  # a not declared as a fetch
            ([r2, noise], {c: 2.0}),
            (r0, {}),  # every declared fetch fetched: the partial run is over
        ]:
            try:
                out.append(("value", sess.partial_run(h, fetches, feeds)))
            except Exception as e:  # noqa: BLE001 - the error is the result
                out.append((type(e).__name__, str(e).split("\n")[-1]))
            out.append(("v", sess.run([v, w])))
        return out


def test_partial_run_matches_tf():
    ours, theirs = _calls(tfcompat), _calls(tf1())
    assert [kind for kind, _ in ours] == [kind for kind, _ in theirs]
    for (kind, mine), (_, tfs) in zip(ours, theirs):
        if kind == "value" or kind == "v":
            np.testing.assert_allclose(np.asarray(mine, np.float32), np.asarray(tfs, np.float32))
        else:
            assert mine == tfs.replace("Graph execution error:", "").strip() or mine in tfs


def test_partial_run_refuses_undeclared_feeds_and_op_fetches():
    with tfcompat.Graph().as_default():
        a = tfcompat.placeholder(tfcompat.float32, [])
        c = tfcompat.placeholder(tfcompat.float32, [], name="c")
        r = a * 2.0
        noop = tfcompat.no_op(name="noop")
        sess = tfcompat.Session()
        h = sess.partial_run_setup([r, noop], [a])
        with pytest.raises(
            tfcompat.errors.InvalidArgumentError,
            match="The feed c:0 was not specified in partial_run_setup",
        ):
            sess.partial_run(h, r, {c: 1.0})
        with pytest.raises(RuntimeError, match="requires empty `target_list`"):
            sess.partial_run(h, noop, {a: 1.0})
        assert sess.partial_run(h, r, {a: 1.5}) == 3.0
        # a refused call feeds nothing: ``b`` can still be fed after it
        b = tfcompat.placeholder(tfcompat.float32, [], name="b")
        total = a + b
        h = sess.partial_run_setup([total], [a, b])
        with pytest.raises(tfcompat.errors.InvalidArgumentError, match="Fetch b:0 can't be"):
            sess.partial_run(h, total, {a: 1.0})
        assert sess.partial_run(h, total, {a: 1.0, b: 2.0}) == 3.0
        with pytest.raises(tfcompat.errors.InvalidArgumentError, match="Must run 'setup'"):
            sess.partial_run("not-a-handle", r, {a: 1.0})
