"""``tf.data`` errors as TF 2.21 raises them: the same class and message for bad elements,
uninitialized iterators, unreadable or corrupt files and invalid arguments, at graph
building or at run time as in TF."""

import numpy as np
import pytest

import tfcompat
from tests.oracle import tf1


def _error(tf, build, init_feed_of=None):
    """The error ``build(tf) -> iterator`` raises while building or pulling elements, as
    (class name, the message's line that says what went wrong)."""
    with tf.Graph().as_default():
        try:
            iterator = build(tf)
            element = iterator.get_next()
            with tf.Session() as sess:
                if init_feed_of is not None:
                    sess.run(iterator.initializer, init_feed_of(tf.get_default_graph()))
                for _ in range(10):
                    sess.run(element)
        except Exception as e:  # noqa: BLE001 - the point is which one
            message = getattr(e, "message", None) or str(e)
            lines = [
                line
                for line in message.split("\n")
                if line.strip()
                and not line.startswith(("  ", "\t", "Node:", "Detected at"))
                and "Graph execution error" not in line
            ]
            return type(e).__name__, lines[0] if lines else message
    pytest.fail("no error")


CASES = {
    "batch_of_different_shapes": lambda tf: (
        tf.data.Dataset.range(1, 4).map(lambda n: tf.range(n)).batch(3).make_one_shot_iterator()
    ),
    "pad_to_smaller_size": lambda tf: (
        tf.data.Dataset.range(1, 4)
        .map(lambda n: tf.range(n))
        .padded_batch(3, padded_shapes=[2])
        .make_one_shot_iterator()
    ),
    "missing_file": lambda tf: tf.data.TFRecordDataset(
        "/nonexistent/x.tfrecord"
    ).make_one_shot_iterator(),
    "zero_batch_size": lambda tf: tf.data.Dataset.range(3).batch(0).make_one_shot_iterator(),
    "zero_range_step": lambda tf: tf.data.Dataset.range(0, 5, 0).make_one_shot_iterator(),
    "one_shot_of_placeholder": lambda tf: tf.data.Dataset.range(
        tf.placeholder(tf.int64, [])
    ).make_one_shot_iterator(),
    "filter_returning_int": lambda tf: (
        tf.data.Dataset.range(3).filter(lambda x: x).make_one_shot_iterator()
    ),
    "static_slice_sizes_differ": lambda tf: tf.data.Dataset.from_tensor_slices(
        (np.zeros(3), np.zeros(4))
    ).make_one_shot_iterator(),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_error_matches_tf(name):
    ours, theirs = _error(tfcompat, CASES[name]), _error(tf1(), CASES[name])
    if name == "batch_of_different_shapes":
        # TF copies a batch's elements in parallel, so which two shapes its message pairs
        # varies from run to run; ours pairs the first element with the first that differs.
        assert ours[1].endswith("Shapes are: [tensor]: [2], [batch]: [1]")
        ours, theirs = (
            (ours[0], ours[1].split(" Shapes")[0]),
            (theirs[0], theirs[1].split(" Shapes")[0]),
        )
    assert ours == theirs


def test_fed_slice_sizes_differ_matches_tf():
    def build(tf):
        a, b = tf.placeholder(tf.float32, [None], "a"), tf.placeholder(tf.float32, [None], "b")
        return tf.data.Dataset.from_tensor_slices((a, b)).make_initializable_iterator()

    def feed(graph):
        return {"a:0": np.zeros(3), "b:0": np.zeros(4)}

    assert _error(tfcompat, build, feed) == _error(tf1(), build, feed)


def test_uninitialized_iterator_matches_tf():
    def build(tf):
        return tf.data.Dataset.range(3).make_initializable_iterator()  # never initialized

    assert _error(tfcompat, build) == _error(tf1(), build)


def test_corrupt_record_is_data_loss_naming_the_file(tmp_path):
    path = tmp_path / "bad.tfrecord"
    path.write_bytes(b"garbage-garbage-garbage")
    build = lambda tf: tf.data.TFRecordDataset(str(path)).make_one_shot_iterator()  # noqa: E731
    ours, theirs = _error(tfcompat, build), _error(tf1(), build)
    assert ours[0] == theirs[0] == "DataLossError"
    assert "corrupted record at 0" in ours[1] and str(path) in ours[1]


def test_end_of_sequence_repeats_and_initializer_restarts():
    tf = tfcompat
    iterator = tf.data.Dataset.range(2).make_initializable_iterator()
    element = iterator.get_next()
    with tf.Session() as sess:
        sess.run(iterator.initializer)
        assert [sess.run(element) for _ in range(2)] == [0, 1]
        for _ in range(2):
            with pytest.raises(tf.errors.OutOfRangeError, match="End of sequence"):
                sess.run(element)
        sess.run(iterator.initializer)
        assert sess.run(element) == 0


def test_structure_mismatch_is_rejected_at_graph_building():
    tf = tfcompat
    iterator = tf.data.Iterator.from_structure(tf.int64, tf.TensorShape([]))
    with pytest.raises(TypeError, match="Expected output types"):
        iterator.make_initializer(tf.data.Dataset.from_tensors(np.float32(1.0)))
    with pytest.raises(ValueError, match="does not have an initializer"):
        _ = tf.data.Dataset.range(2).make_one_shot_iterator().initializer
    with pytest.raises(TypeError, match="must return a `Dataset`"):
        tf.data.Dataset.range(2).flat_map(lambda x: x)


@pytest.mark.parametrize("lib", ["ours", "tf"])
def test_file_cache_refuses_a_stale_partial_cache(tmp_path, lib):
    # A cache being written is a bundle at "<prefix>_0"; left behind, it blocks a new one.
    tf = tfcompat if lib == "ours" else tf1()
    prefix = str(tmp_path / "cache")
    (tmp_path / "cache_0.index").write_bytes(b"")
    with tf.Graph().as_default():
        ds = tf.data.Dataset.range(2).cache(prefix)
        element = tf.data.make_one_shot_iterator(ds).get_next()
        with tf.Session() as sess:
            with pytest.raises(tf.errors.AlreadyExistsError, match="Existing cache files found"):
                sess.run(element)
