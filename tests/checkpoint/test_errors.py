"""Checkpoint errors as TF raises them: missing checkpoints and keys, dtype mismatches,
damaged index and data files (DataLossError naming the file)."""

from __future__ import annotations

import numpy as np
import pytest

import tfcompat
from tests.checkpoint import helpers
from tests.oracle import tf1

errors = tfcompat.errors


@pytest.fixture(scope="module")
def tf_checkpoint(tmp_path_factory):
    """A TF-written checkpoint (the shared files are only read, or copied to damage)."""
    return helpers.save_model(tf1(), tmp_path_factory.mktemp("tf") / "model")


def _copy(prefix, directory):
    import shutil

    for suffix in (".index", ".data-00000-of-00001"):
        shutil.copy(prefix + suffix, str(directory / "model") + suffix)
    return str(directory / "model")


def _restore(prefix):
    return helpers.restore_model(tfcompat, prefix)


def test_missing_checkpoint(tmp_path):
    path = str(tmp_path / "nope")
    with pytest.raises(ValueError, match="The passed save_path is not a valid checkpoint: " + path):
        _restore(path)
    message = "Unsuccessful TensorSliceReader constructor: Failed to find any matching files for "
    for read in (tfcompat.train.NewCheckpointReader, tfcompat.train.list_variables):
        with pytest.raises(errors.NotFoundError, match=message + path):
            read(path)
    with pytest.raises(ValueError, match="Couldn't find 'checkpoint' file"):
        tfcompat.train.load_variable(str(tmp_path), "v")


def test_restore_op_on_missing_files_is_not_found(tmp_path):
    graph = tfcompat.Graph()
    with graph.as_default():
        tfcompat.Variable(1.0, name="v")
        saver = tfcompat.train.Saver()
        with tfcompat.Session(graph=graph) as sess:
            with pytest.raises(errors.NotFoundError, match=str(tmp_path / "x")) as info:
                sess.run(saver.saver_def.restore_op_name, {"save/Const:0": str(tmp_path / "x")})
    assert info.value.op.name == "save/RestoreV2"
    assert "[[{{node save/RestoreV2}}]]" in info.value.message


def test_missing_key_and_wrong_dtype(tf_checkpoint):
    graph = tfcompat.Graph()
    with graph.as_default():
        tfcompat.Variable(1.0, name="absent")
        saver = tfcompat.train.Saver()
        with tfcompat.Session(graph=graph) as sess:
            with pytest.raises(errors.NotFoundError) as info:
                saver.restore(sess, tf_checkpoint)
    assert info.value.message.startswith(
        "Restoring from checkpoint failed. This is most likely due to a Variable name or other "
        "graph key that is missing from the checkpoint."
    )
    assert "Key absent not found in checkpoint" in info.value.message
    graph = tfcompat.Graph()
    with graph.as_default():
        tfcompat.Variable(np.zeros((3, 4)), name="dense/kernel")  # float64; saved as float32
        saver = tfcompat.train.Saver()
        with tfcompat.Session(graph=graph) as sess:
            with pytest.raises(errors.InvalidArgumentError) as info:
                saver.restore(sess, tf_checkpoint)
    assert "a mismatch between the current graph and the graph" in info.value.message
    assert (
        "tensor_name = dense/kernel; expected dtype double does not equal original dtype float"
        in info.value.message
    )
    reader = tfcompat.train.NewCheckpointReader(tf_checkpoint)
    with pytest.raises(errors.NotFoundError, match="Key zz not found in checkpoint"):
        reader.get_tensor("zz")


def _damage(path, position, length=None):
    with open(path, "rb") as f:
        data = bytearray(f.read())
    if position == "cut":
        data = data[:10] + data[-48:]
    elif length is not None:
        data = data[:length]
    else:
        data[position] ^= 0xFF
    with open(path, "wb") as f:
        f.write(bytes(data))


@pytest.mark.parametrize(
    "position,length,detail",
    [
        (5, None, "block checksum mismatch"),
        (-3, None, r"not an sstable \(bad magic number\)"),
        (None, 30, "file is too short to be an sstable"),
        (None, -60, r"not an sstable \(bad magic number\)"),
        ("cut", None, "truncated block read"),  # the footer kept, blocks cut short
    ],
)
def test_damaged_index_is_data_loss(tmp_path, tf_checkpoint, position, length, detail):
    prefix = _copy(tf_checkpoint, tmp_path)
    index = prefix + ".index"
    if length is not None and length < 0:
        length = len(open(index, "rb").read()) + length
    _damage(index, position, length)
    with pytest.raises(errors.DataLossError, match=detail) as info:
        tfcompat.train.NewCheckpointReader(prefix)
    assert f"Unable to read file ({index})" in info.value.message
    with pytest.raises(errors.DataLossError, match=detail) as info:
        _restore(prefix)
    assert index in info.value.message and info.value.op.name == "save/RestoreV2"


@pytest.mark.parametrize("name", ["global_step", "words", "big"])
def test_damaged_data_is_data_loss(tmp_path, name):
    prefix = helpers.save_model(tfcompat, tmp_path / "model")
    data = prefix + ".data-00000-of-00001"
    entry = tfcompat.train.NewCheckpointReader(prefix)._reader.entry(name)
    _damage(data, entry.offset + entry.size - 1)
    reader = tfcompat.train.NewCheckpointReader(prefix)
    with pytest.raises(errors.DataLossError, match="Checksum does not match") as info:
        reader.get_tensor(name)
    assert data in info.value.message and f"TensorBundle at {prefix}" in info.value.message
    with pytest.raises(errors.DataLossError, match=data):
        _restore(prefix)
    # TF also refuses our damaged file.
    with pytest.raises(tf1().errors.OpError, match="Checksum does not match"):
        tf1().train.NewCheckpointReader(prefix).get_tensor(name)


def test_damaged_string_lengths(tmp_path):
    prefix = helpers.save_model(tfcompat, tmp_path / "model")
    entry = tfcompat.train.NewCheckpointReader(prefix)._reader.entry("words")
    _damage(prefix + ".data-00000-of-00001", entry.offset)  # the first varint length
    with pytest.raises(errors.DataLossError, match="length checksum does not match|truncated"):
        tfcompat.train.NewCheckpointReader(prefix).get_tensor("words")


def test_truncated_data_file(tmp_path, tf_checkpoint):
    prefix = _copy(tf_checkpoint, tmp_path)
    _damage(prefix + ".data-00000-of-00001", None, length=10)
    with pytest.raises(errors.DataLossError, match="truncated data file"):
        tfcompat.train.NewCheckpointReader(prefix).get_tensor("big")


def test_save_into_missing_parent_directory(tmp_path):
    graph = tfcompat.Graph()
    with graph.as_default():
        tfcompat.Variable(1.0, name="v")
        saver = tfcompat.train.Saver()
        with tfcompat.Session(graph=graph) as sess:
            sess.run(tfcompat.global_variables_initializer())
            with pytest.raises(ValueError, match="doesn't exist, can't save"):
                saver.save(sess, str(tmp_path / "a" / "b" / "model"))


def test_saver_construction_errors():
    with pytest.raises(ValueError, match="No variables to save"):
        tfcompat.train.Saver()
    with tfcompat.Session() as sess:
        assert tfcompat.train.Saver(allow_empty=True).save(sess, "/nonexistent/x") is None
        with pytest.raises(TypeError, match="'sess' must be a Session"):
            tfcompat.train.Saver(allow_empty=True).save(None, "x")
    v = tfcompat.Variable(1.0, name="v")
    with pytest.raises(ValueError, match="build cannot be deferred"):
        tfcompat.train.Saver([v], defer_build=True)
    with pytest.raises(ValueError, match="same name"):
        tfcompat.train.Saver([v, v])
    with pytest.raises(TypeError, match="not a Variable"):
        tfcompat.train.Saver([tfcompat.constant(1.0)])
    saver = tfcompat.train.Saver(defer_build=True)
    with pytest.raises(RuntimeError, match="should be called before save"):
        saver.save(None, "x")
