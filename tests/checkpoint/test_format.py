"""The on-disk pieces: SSTable blocks and footers, bundle entries, slice keys; tables with
many blocks compared byte for byte with TF's."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tfcompat
from tests.oracle import tf1
from tfcompat.framework.checkpoint import bundle, slices, sstable

errors = tfcompat.errors


@settings(max_examples=40, deadline=None)
@given(
    st.dictionaries(st.binary(max_size=40), st.binary(max_size=300), max_size=200),
    st.sampled_from([64, 1024, sstable.BLOCK_SIZE]),
)
def test_table_round_trip(entries, block_size):
    writer = sstable.TableWriter(block_size=block_size)
    for key in sorted(entries):
        writer.add(key, entries[key])
    data = writer.finish()
    assert sstable.read_table(data, "t") == dict(sorted(entries.items()))
    assert data[-8:] == (sstable.MAGIC).to_bytes(8, "little")


def test_table_keys_must_increase():
    writer = sstable.TableWriter()
    writer.add(b"b", b"")
    with pytest.raises(ValueError, match="must increase"):
        writer.add(b"a", b"")


@pytest.mark.parametrize(
    "start,limit,expected",
    [(b"abcd", b"abzz", b"abd"), (b"abc", b"abcd", b"abc"), (b"ab\xff", b"ac", b"ab\xff")],
)
def test_shortest_separator(start, limit, expected):
    assert sstable._shortest_separator(start, limit) == expected


def test_masked_crc_round_trip():
    for crc in (0, 1, 0xFFFFFFFF, 0x12345678):
        assert sstable.unmask_crc(sstable.mask_crc(crc)) == crc


@pytest.mark.parametrize(
    "value", [0, 1, -1, 63, -64, 64, -65, 8191, 8192, 2**40, -(2**62), 2**63 - 1]
)
def test_signed_num_encoding_preserves_order(value):
    encoded = slices._signed_num_increasing(value)
    assert (
        slices._signed_num_increasing(value - 1)
        < encoded
        < slices._signed_num_increasing(value + 1)
    )


def test_large_index_byte_identical_to_tf(tmp_path):
    """8000 tensors with long unrelated names: an index of several data blocks (restart
    points, separator keys in the index block)."""
    tf = tf1()
    names = [hashlib.sha256(str(i).encode()).hexdigest() for i in range(8000)]
    values = [np.full(i % 3, i, dtype=np.int32) for i in range(8000)]
    graph = tf.Graph()
    with graph.as_default():
        save = tf.raw_ops.SaveV2(
            prefix=str(tmp_path / "tf"),
            tensor_names=names,
            shape_and_slices=[""] * len(names),
            tensors=[tf.constant(v) for v in values],
        )
        with tf.Session(graph=graph) as sess:
            sess.run(save)
    writer = bundle.BundleWriter(str(tmp_path / "ours"))
    for name, value in zip(names, values):
        writer.add(name, value)
    writer.finish()
    for suffix in (".index", ".data-00000-of-00001"):
        with open(str(tmp_path / "ours") + suffix, "rb") as a:
            with open(str(tmp_path / "tf") + suffix, "rb") as b:
                ours, theirs = a.read(), b.read()
        assert ours == theirs, suffix
        if suffix == ".index":
            assert len(ours) > 2 * sstable.BLOCK_SIZE  # several data blocks
    reader = bundle.BundleReader(str(tmp_path / "tf"))
    assert reader.tensor_keys() == sorted(names)
    np.testing.assert_array_equal(reader.lookup(names[4321]), values[4321])


@pytest.mark.parametrize("rows", [10, 200, 100_000])
def test_partitioned_slices_byte_identical(tmp_path, rows):
    def save(tf, directory):
        graph = tf.Graph()
        with graph.as_default():
            tf.get_variable(
                "emb",
                initializer=tf.constant(np.arange(rows * 2, dtype=np.float32).reshape(rows, 2)),
                partitioner=tf.fixed_size_partitioner(3),
            )
            saver = tf.train.Saver()
            with tf.Session(graph=graph) as sess:
                sess.run(tf.global_variables_initializer())
                return saver.save(sess, str(directory / "m"), write_meta_graph=False)

    ours, theirs = save(tfcompat, tmp_path / "ours"), save(tf1(), tmp_path / "tf")
    with open(ours + ".index", "rb") as a, open(theirs + ".index", "rb") as b:
        assert a.read() == b.read()


def test_lookup_slice_assembles_from_stored_slices(tmp_path):
    full = np.arange(24, dtype=np.float64).reshape(6, 4)
    writer = bundle.BundleWriter(str(tmp_path / "m"))
    for start, length in ((0, 2), (2, 3), (5, 1)):
        spec = slices.Slice(((start, length), (0, slices.FULL)))
        writer.add_slice("w", [6, 4], spec, full[start : start + length])
    writer.finish()
    reader = bundle.BundleReader(str(tmp_path / "m"))
    np.testing.assert_array_equal(reader.lookup("w"), full)
    wanted = slices.Slice(((1, 3), (1, 2)))
    np.testing.assert_array_equal(reader.lookup_slice("w", wanted), full[1:4, 1:3])
    assert reader.tensor_keys() == ["w"]


def test_lookup_slice_with_missing_coverage(tmp_path):
    writer = bundle.BundleWriter(str(tmp_path / "m"))
    writer.add_slice("w", [4], slices.Slice(((0, 2),)), np.zeros(2, np.float32))
    writer.finish()
    with pytest.raises(errors.InvalidArgumentError, match="Does not have sufficient slices"):
        bundle.BundleReader(str(tmp_path / "m")).lookup("w")


def test_duplicate_key():
    writer = bundle.BundleWriter("/tmp/unused")
    writer.add("a", np.zeros(1))
    with pytest.raises(errors.InvalidArgumentError, match="Adding duplicate key: a"):
        writer.add("a", np.zeros(1))


@pytest.mark.parametrize("spec", ["10 4", "10 4 0,5", "10 4 0,11:-", "x 4 -:-", "4 a,b"])
def test_bad_shape_and_slice(spec):
    with pytest.raises(ValueError):
        slices.parse_shape_and_slice(spec)
