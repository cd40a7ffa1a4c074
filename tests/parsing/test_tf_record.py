"""TFRecord files vs TF 2.21: files written by TF read here and ours read by TF, with no
compression, GZIP and ZLIB; corrupted and truncated files raise DataLossError."""

import numpy as np
import pytest

import tfcompat
from tests.oracle import tf1

RECORDS = [b"", b"hello", b"\0" * 3, bytes(range(256)) * 40] + [
    np.random.default_rng(0).bytes(n) for n in (1, 17, 1000)
]
COMPRESSIONS = [None, "", "GZIP", "ZLIB", 1, 2]


def _options(module, compression):
    if compression is None:
        return None
    return module.io.TFRecordOptions(compression)


@pytest.mark.parametrize("compression", COMPRESSIONS)
def test_tf_writes_we_read(tmp_path, compression):
    tf = tf1()
    path = str(tmp_path / "tf.tfrecord")
    with tf.io.TFRecordWriter(path, _options(tf, compression)) as writer:
        for r in RECORDS:
            writer.write(r)
    ours = list(tfcompat.io.tf_record_iterator(path, _options(tfcompat, compression)))
    assert ours == RECORDS


@pytest.mark.parametrize("compression", COMPRESSIONS)
def test_we_write_tf_reads(tmp_path, compression):
    tf = tf1()
    path = str(tmp_path / "ours.tfrecord")
    with tfcompat.python_io.TFRecordWriter(path, _options(tfcompat, compression)) as writer:
        for r in RECORDS:
            writer.write(r)
        writer.flush()
    theirs = list(tf.io.tf_record_iterator(path, _options(tf, compression)))
    assert theirs == RECORDS


def test_uncompressed_bytes_identical(tmp_path):
    tf = tf1()
    with tf.io.TFRecordWriter(str(tmp_path / "a")) as w:
        for r in RECORDS:
            w.write(r)
    with tfcompat.io.TFRecordWriter(str(tmp_path / "b")) as w:
        for r in RECORDS:
            w.write(r)
    assert (tmp_path / "a").read_bytes() == (tmp_path / "b").read_bytes()


def _corrupt(data, position):
    data = bytearray(data)
    data[position] ^= 1
    return bytes(data)


@pytest.mark.parametrize(
    "mangle,message",
    [
        (lambda d: _corrupt(d, 3), "corrupted record at 0"),  # first length
        (lambda d: _corrupt(d, 9), "corrupted record at 0"),  # first length crc
        (lambda d: _corrupt(d, 13), "corrupted record at 12"),  # first data
        (lambda d: _corrupt(d, 30), "corrupted record at 21"),  # second header
        (lambda d: _corrupt(d, 36), "corrupted record at 33"),  # second data
        (lambda d: d[:-3], "truncated record at 21"),
        (lambda d: d[:33], "truncated record at 21"),
    ],
)
def test_corruption_raises_data_loss(tmp_path, mangle, message):
    tf = tf1()
    path = tmp_path / "r.tfrecord"
    with tf.io.TFRecordWriter(str(path)) as w:
        w.write(b"hello")
        w.write(b"world!")
    path.write_bytes(mangle(path.read_bytes()))
    with pytest.raises(tf.errors.DataLossError, match=message):
        list(tf.io.tf_record_iterator(str(path)))
    with pytest.raises(tfcompat.errors.DataLossError, match=f"{message}.* in file {path}"):
        list(tfcompat.io.tf_record_iterator(str(path)))


@pytest.mark.parametrize("size", [22, 25, 32])
def test_partial_header_at_the_end_is_the_end(tmp_path, size):
    path = tmp_path / "r.tfrecord"
    with tfcompat.io.TFRecordWriter(str(path)) as w:
        w.write(b"hello")
        w.write(b"world!")
    path.write_bytes(path.read_bytes()[:size])
    assert list(tf1().io.tf_record_iterator(str(path))) == [b"hello"]
    assert list(tfcompat.io.tf_record_iterator(str(path))) == [b"hello"]


def test_records_before_the_corruption_are_yielded(tmp_path):
    path = tmp_path / "r.tfrecord"
    with tfcompat.io.TFRecordWriter(str(path)) as w:
        w.write(b"good")
        w.write(b"bad")
    path.write_bytes(_corrupt(path.read_bytes(), 34))  # in "bad"
    records = tfcompat.io.tf_record_iterator(str(path))
    assert next(records) == b"good"
    with pytest.raises(tfcompat.errors.DataLossError):
        next(records)


def test_options():
    opts = tfcompat.io.TFRecordOptions
    assert opts.get_compression_type_string(None) == ""
    assert opts.get_compression_type_string(opts("GZIP")) == "GZIP"
    assert opts.get_compression_type_string(tfcompat.io.TFRecordCompressionType.ZLIB) == "ZLIB"
    with pytest.raises(ValueError, match="Not a valid compression_type"):
        opts("XX")


def test_missing_file(tmp_path):
    with pytest.raises(tfcompat.errors.NotFoundError):
        list(tfcompat.io.tf_record_iterator(str(tmp_path / "none")))
