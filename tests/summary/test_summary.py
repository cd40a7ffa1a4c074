"""tf.summary (TF1) against TF 2.21: the serialized summaries (scalar, histogram with TF's
buckets, merged) are TF's bytes, the GraphDef is TF's, errors are TF's, and an events file
written by FileWriter reads back in TF (``summary_iterator``) with the graph and the values."""

import os

import numpy as np
import pytest

import tfcompat
from tests.oracle import assert_parity, assert_same_graph_def, tf1
from tfcompat.framework import errors

VALUES = np.array([0.5, -3.0, 1e-13, 0.0, 2.5e5, 7.0, 7.0, -1e-12], np.float32)


def _summaries(tf):
    x = tf.placeholder(tf.float32, [None], name="x")
    ints = tf.placeholder(tf.int32, [4], name="ints")
    doubles = tf.cast(x, tf.float64) * 1e30
    tf.summary.scalar("loss", tf.reduce_mean(x))
    tf.summary.histogram("weights", x)
    tf.summary.histogram("ints", ints, family="family")
    tf.summary.histogram("huge", doubles)
    tf.summary.scalar("loss", tf.reduce_sum(x), family="train")
    tf.summary.histogram("empty", x[:0])
    summaries = tf.get_collection(tf.GraphKeys.SUMMARIES)
    merged = tf.summary.merge_all()
    pair = tf.summary.merge(summaries[:2], name="pair")
    return summaries + [merged, pair], {x: VALUES, ints: [1, 2, 2, 300]}


def test_serialized_summaries_are_tfs_bytes():
    assert_parity(_summaries)


def test_graph_def_matches_tf():
    assert_same_graph_def(_summaries)


def test_summaries_of_a_training_step():
    """Fetched with the train op: the summaries read the step's forward values (a summary
    of a variable the step updates would race with the update, in TF too)."""

    def program(tf):
        x = tf.placeholder(tf.float32, [3], name="x")
        w = tf.Variable(np.array([1.0, -2.0, 0.5], np.float32), name="w")
        activations = x * w
        loss = tf.reduce_sum(tf.square(activations))
        tf.summary.scalar("loss", loss)
        tf.summary.histogram("activations", activations)
        train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
        return [train, tf.summary.merge_all()], {x: [1.0, 2.0, 3.0]}

    assert_parity(program)


def _run(program_fn, feed=None):
    graph = tfcompat.Graph()
    with graph.as_default():
        fetch = program_fn(tfcompat)
        with tfcompat.Session() as sess:
            return sess.run(fetch, feed)


def test_errors_as_tf():
    def nan_histogram(tf):
        return tf.summary.histogram("h", tf.constant([1.0, np.nan]))

    with pytest.raises(errors.InvalidArgumentError, match="Nan in summary histogram for: h"):
        _run(nan_histogram)

    def inf_histogram(tf):
        return tf.summary.histogram("h", tf.constant([np.inf]))

    with pytest.raises(errors.InvalidArgumentError, match="Infinity in summary histogram for: h"):
        _run(inf_histogram)

    def mismatched(tf):
        return tf.summary.scalar("s", tf.constant([1.0, 2.0]))

    with pytest.raises(
        errors.InvalidArgumentError,
        match=r"tags and values are not the same shape: \[\] != \[2\] \(tag 's'\)",
    ):
        _run(mismatched)

    def duplicate(tf):
        a = tf.summary.scalar("s", tf.constant(1.0))
        return tf.summary.merge([a, a])

    with pytest.raises(errors.InvalidArgumentError, match="Duplicate tag s found"):
        _run(duplicate)


def test_events_file_reads_back_in_tf(tmp_path):
    tf = tf1()
    graph = tfcompat.Graph()
    with graph.as_default():
        x = tfcompat.placeholder(tfcompat.float32, [None], name="x")
        tfcompat.summary.scalar("average", tfcompat.reduce_mean(x))
        tfcompat.summary.histogram("values", x)
        merged = tfcompat.summary.merge_all()
        writer = tfcompat.summary.FileWriter(str(tmp_path), graph, filename_suffix=".test")
        with tfcompat.Session() as sess:
            for step in range(3):
                writer.add_summary(sess.run(merged, {x: VALUES + step}), global_step=step)
        manual = tfcompat.Summary(value=[tfcompat.Summary.Value(tag="lr", simple_value=0.5)])
        writer.add_summary(manual, global_step=7)
        writer.close()
    (name,) = os.listdir(tmp_path)
    assert name.startswith("events.out.tfevents.") and name.endswith(".test")
    events = list(tf.train.summary_iterator(str(tmp_path / name)))
    assert events[0].file_version == "brain.Event:2"
    graph_def = tf.GraphDef.FromString(events[1].graph_def)
    assert {n.name for n in graph_def.node} == {op.name for op in graph.get_operations()}
    assert events[2].HasField("meta_graph_def")
    steps = [(e.step, [v.tag for v in e.summary.value]) for e in events[3:]]
    assert steps == [
        (0, ["average", "values"]),
        (1, ["average", "values"]),
        (2, ["average", "values"]),
    ] + [(7, ["lr"])]
    assert events[4].summary.value[0].simple_value == pytest.approx(np.mean(VALUES + 1), 1e-6)
    assert events[5].summary.value[1].histo.num == len(VALUES)
    ours = list(tfcompat.train.summary_iterator(str(tmp_path / name)))
    assert [e.SerializeToString() for e in ours] == [e.SerializeToString() for e in events]
