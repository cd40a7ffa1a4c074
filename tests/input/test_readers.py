"""TF1 file readers against TF 2.21: TFRecordReader (plain and GZIP), TextLineReader (with
skipped header lines, CRLF) and WholeFileReader over a string_input_producer, with
read / read_up_to, TF's keys, counters, the end of the input (OutOfRangeError), and a
parse_single_example pipeline into tf.train.batch."""

import pytest

import tfcompat
from tests.input.pipelines import assert_same_pipeline as _assert_same
from tests.oracle import tf1


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    root = tmp_path_factory.mktemp("readers")
    paths = {}
    for compression in ("", "GZIP"):
        for k in range(2):
            path = str(root / f"data{k}{compression}.tfrecord")
            options = tfcompat.io.TFRecordOptions(compression)
            with tfcompat.io.TFRecordWriter(path, options) as writer:
                for i in range(3):
                    example = tfcompat.train.Example(
                        features=tfcompat.train.Features(
                            feature={
                                "x": tfcompat.train.Feature(
                                    float_list=tfcompat.train.FloatList(value=[i, 10 * k])
                                ),
                                "id": tfcompat.train.Feature(
                                    int64_list=tfcompat.train.Int64List(value=[3 * k + i])
                                ),
                            }
                        )
                    )
                    writer.write(example.SerializeToString())
            paths.setdefault(compression, []).append(path)
    text = []
    for k in range(2):
        path = root / f"lines{k}.csv"
        path.write_bytes(b"header\r\n" + b"".join(b"%d,a\r\n" % (k * 10 + i) for i in range(3)))
        text.append(str(path))
    paths["text"] = text
    return paths


@pytest.mark.parametrize("compression", ["", "GZIP"])
def test_tf_record_reader_matches_tf(files, compression):
    def build(tf):
        queue = tf.train.string_input_producer(files[compression], num_epochs=1, shuffle=False)
        options = tf.io.TFRecordOptions(compression) if compression else None
        reader = tf.TFRecordReader(options=options)
        return list(reader.read(queue))

    assert len(_assert_same(build)) == 6


def _counters_after_each_read(tf, paths, count):
    """Counters fetched in their own runs: in the read's run TF's counter ops race the read."""
    with tf.Graph().as_default():
        queue = tf.train.string_input_producer(paths, shuffle=False)
        reader = tf.TFRecordReader()
        _, value = reader.read(queue)
        counters = [reader.num_records_produced(), reader.num_work_units_completed()]
        with tf.Session() as sess:
            coord = tf.train.Coordinator()
            threads = tf.train.start_queue_runners(sess, coord)
            seen = []
            for _ in range(count):
                sess.run(value)
                seen.append(sess.run(counters))
            sess.run(reader.reset())
            seen.append(sess.run(counters))
            coord.request_stop()
            sess.run(queue.close(cancel_pending_enqueues=True))
            coord.join(threads, stop_grace_period_secs=10)
    return seen


def test_reader_counters_match_tf(files):
    ours = _counters_after_each_read(tfcompat, files[""], 8)
    assert ours == _counters_after_each_read(tf1(), files[""], 8)
    # a file's end is noticed by the read after its last record, as in TF
    assert ours[2] == [3, 0] and ours[3] == [4, 1] and ours[-1] == [0, 0]


def test_text_line_reader_read_up_to_matches_tf(files):
    def build(tf):
        queue = tf.train.string_input_producer(files["text"], num_epochs=1, shuffle=False)
        reader = tf.TextLineReader(skip_header_lines=1)
        return list(reader.read_up_to(queue, 4))

    # read_up_to stops at a file's end when it has records: 3 lines per file, not 4
    assert [len(keys) for keys, _ in _assert_same(build)] == [3, 3]


def test_whole_file_reader_matches_tf(files):
    def build(tf):
        queue = tf.train.string_input_producer(files["text"], num_epochs=2, shuffle=False)
        return list(tf.WholeFileReader().read(queue))

    assert len(_assert_same(build)) == 4


def test_parsed_records_batched_match_tf(files):
    def build(tf):
        queue = tf.train.string_input_producer(files[""], num_epochs=2, shuffle=False)
        _, serialized = tf.TFRecordReader().read(queue)
        features = tf.parse_single_example(
            serialized,
            {"x": tf.FixedLenFeature([2], tf.float32), "id": tf.FixedLenFeature([], tf.int64)},
        )
        batch = tf.train.batch(features, batch_size=4, allow_smaller_final_batch=True)
        return [batch["x"] * 2.0, batch["id"]]

    assert [len(b[1]) for b in _assert_same(build)] == [4, 4, 4]


def test_missing_file_raises_not_found():
    with tfcompat.Graph().as_default():
        queue = tfcompat.train.string_input_producer(["/no/such/file"], shuffle=False)
        _, value = tfcompat.TFRecordReader().read(queue)
        with tfcompat.Session() as sess:
            coord = tfcompat.train.Coordinator()
            threads = tfcompat.train.start_queue_runners(sess, coord)
            with pytest.raises(tfcompat.errors.NotFoundError, match="/no/such/file"):
                sess.run(value)
            coord.request_stop()
            coord.join(threads, stop_grace_period_secs=10)


def _first_read_error(tf, path):
    with tf.Graph().as_default():
        queue = tf.FIFOQueue(2, tf.string)
        _, value = tf.TFRecordReader().read(queue)
        with tf.Session() as sess:
            sess.run(queue.enqueue([path]))
            with pytest.raises(tf.errors.OpError) as raised:
                sess.run(value)
    return type(raised.value).__name__, raised.value.message


def test_missing_and_corrupt_files_raise_tf_errors(files, tmp_path):
    missing = str(tmp_path / "missing.tfrecord")
    ours = _first_read_error(tfcompat, missing)
    theirs = _first_read_error(tf1(), missing)
    assert ours[0] == theirs[0] == "NotFoundError"
    assert missing in ours[1] and missing in theirs[1]

    corrupt = tmp_path / "corrupt.tfrecord"
    data = bytearray(open(files[""][0], "rb").read())
    data[14] ^= 0xFF  # a byte of the first record's payload
    corrupt.write_bytes(bytes(data))
    ours = _first_read_error(tfcompat, str(corrupt))
    theirs = _first_read_error(tf1(), str(corrupt))
    assert ours[0] == theirs[0] == "DataLossError"
    assert str(corrupt) in ours[1]


def test_whole_file_ops_and_match_filenames_once_match_tf(tmp_path):
    for name in ("a1.txt", "a2.txt", "b.txt", ".hidden.txt"):
        (tmp_path / name).write_text(name)

    def build(tf):
        pattern = str(tmp_path / "a*")
        found = tf.train.match_filenames_once(pattern)
        return [
            found,
            tf.matching_files(str(tmp_path / "*.txt")),
            tf.io.matching_files([pattern, str(tmp_path / "b*")]),
            tf.matching_files(str(tmp_path / "none*")),
            tf.read_file(str(tmp_path / "b.txt")),
        ]

    values = _assert_same(build)
    assert len(values[0][0]) == 2  # a1, a2: match_filenames_once ran once, at init


def test_fetching_an_uninitialized_variable_raises_like_tf(tmp_path):
    def build(tf):
        return tf.train.match_filenames_once(str(tmp_path / "*"))

    kind, message = _file_error(tfcompat, build)
    their_kind, their_message = _file_error(tf1(), build)
    assert kind == their_kind == "FailedPreconditionError"
    assert message.split("\n")[0] in their_message


def _write_and_read(tf, path):
    with tf.Graph().as_default():
        write = tf.io.write_file(path, "contents")
        with tf.Session() as sess:
            sess.run(write)
            return sess.run(tf.read_file(path))


@pytest.mark.parametrize("module", ["tfcompat", "tf"])
def test_write_file_creates_directories_like_tf(tmp_path, module):
    tf = tfcompat if module == "tfcompat" else tf1()
    assert _write_and_read(tf, str(tmp_path / "new" / "dir" / "f.txt")) == b"contents"


def _file_error(tf, build):
    with tf.Graph().as_default():
        op = build(tf)
        with tf.Session() as sess:
            with pytest.raises(tf.errors.OpError) as raised:
                sess.run(op)
    return type(raised.value).__name__, raised.value.message


@pytest.mark.parametrize("case", ["read_missing", "write_to_directory"])
def test_file_op_errors_match_tf(tmp_path, case):
    def build(tf):
        if case == "read_missing":
            return tf.read_file(str(tmp_path / "missing"))
        return tf.io.write_file(str(tmp_path), "x")

    kind, message = _file_error(tfcompat, build)
    their_kind, their_message = _file_error(tf1(), build)
    assert kind == their_kind
    assert message.split("\n")[0] in their_message
