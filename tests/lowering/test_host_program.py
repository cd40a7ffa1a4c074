"""Host segments run as prepared programs (lowering/interpreter.HostProgram): values
computed from constants only are computed on the first run and kept, everything else runs
every step, with TF's results."""

from __future__ import annotations

import numpy as np

import tfcompat as tf
from lowering.registry import REFERENCE


def _counting(monkeypatch, op_type):
    calls = []
    kernel = REFERENCE[op_type]

    def counted(ctx, op, *args):
        calls.append(op.name)
        return kernel(ctx, op, *args)

    monkeypatch.setitem(REFERENCE, op_type, counted)
    return calls


def test_constant_arithmetic_runs_once_and_fed_arithmetic_every_step(monkeypatch):
    calls = _counting(monkeypatch, "AddV2")
    with tf.Graph().as_default():
        x = tf.placeholder(tf.int32, [2], name="x")
        fixed = tf.strings.as_string(tf.add(tf.constant([1, 2]), 3, name="fixed_sum"))
        fed = tf.strings.as_string(tf.add(x, 1, name="fed_sum"))
        with tf.Session() as sess:
            for step in range(3):
                out_fixed, out_fed = sess.run([fixed, fed], {x: [step, 10 * step]})
                assert list(out_fixed) == [b"4", b"5"]
                assert list(out_fed) == [str(step + 1).encode(), str(10 * step + 1).encode()]
    assert calls.count("fixed_sum") == 1
    assert calls.count("fed_sum") == 3


def test_host_program_reads_variables_when_they_run():
    """A string variable read by a host op sees each run's assignments."""
    with tf.Graph().as_default():
        v = tf.Variable(np.array([b"a", b"b"], dtype=object), name="v")
        joined = tf.strings.join([v[0], v[1]])
        assign = tf.assign(v, tf.constant([b"c", b"d"]))
        with tf.Session() as sess:
            sess.run(v.initializer)
            assert sess.run(joined) == b"ab"
            sess.run(assign)
            assert sess.run(joined) == b"cd"
