"""tf.train.Saver: round trips between tfcompat and TF 2.21 in both directions, the saver
graph, checkpoint state and retention, readers, errors."""

from __future__ import annotations

import os

import numpy as np
import pytest

import tfcompat
from tests.checkpoint import helpers
from tests.checkpoint.helpers import VALUES, assert_model_values
from tests.oracle import assert_same_graph_def, tf1

PAIRS = [("tfcompat", "tfcompat"), ("tf", "tfcompat"), ("tfcompat", "tf")]


@pytest.mark.parametrize("writer,reader", PAIRS)
def test_round_trip_every_dtype(tmp_path, writer, reader):
    libs = helpers.frameworks()
    prefix = helpers.save_model(libs[writer], tmp_path / "model")
    assert prefix == f"{tmp_path}/model-{helpers.GLOBAL_STEP}"
    assert_model_values(helpers.restore_model(libs[reader], prefix))


@pytest.mark.parametrize("backend", ["xla", "reference"])
def test_round_trip_on_each_backend(tmp_path, backend):
    graph = tfcompat.Graph()
    with graph.as_default():
        variables = helpers.build_model(tfcompat)
        saver = tfcompat.train.Saver()
        with tfcompat.Session(graph=graph, backend=backend) as sess:
            sess.run(tfcompat.global_variables_initializer())
            sess.run(tfcompat.assign(variables["global_step"], helpers.GLOBAL_STEP))
            prefix = saver.save(sess, str(tmp_path / "m"))
            for name, value in helpers.other_values().items():
                variables[name].load(value, sess)
            saver.restore(sess, prefix)
            assert_model_values(helpers.fetch(sess, variables))


def test_files_are_byte_identical_to_tf(tmp_path):
    """Same variables saved by TF and by tfcompat: identical .index and .data files."""
    ours = helpers.save_model(tfcompat, tmp_path / "ours" / "model")
    theirs = helpers.save_model(tf1(), tmp_path / "tf" / "model")
    for suffix in (".index", ".data-00000-of-00001"):
        with open(ours + suffix, "rb") as a, open(theirs + suffix, "rb") as b:
            assert a.read() == b.read(), suffix


@pytest.mark.parametrize("writer,reader", PAIRS)
def test_checkpoint_reader(tmp_path, writer, reader):
    libs = helpers.frameworks()
    prefix = helpers.save_model(libs[writer], tmp_path / "model")
    ckpt = libs[reader].train.NewCheckpointReader(prefix)
    shapes = ckpt.get_variable_to_shape_map()
    assert shapes == {name: list(np.shape(v)) for name, v in VALUES.items()} | {"global_step": []}
    dtype_names = {k: v.name for k, v in ckpt.get_variable_to_dtype_map().items()}
    assert dtype_names["words"] == "string" and dtype_names["counts"] == "int32"
    assert ckpt.has_tensor("dense/kernel") and not ckpt.has_tensor("dense")
    for name, value in VALUES.items():
        np.testing.assert_array_equal(ckpt.get_tensor(name), value, err_msg=name)
    assert ckpt.get_tensor("global_step") == helpers.GLOBAL_STEP


def test_list_and_load_variables_match_tf(tmp_path):
    prefix = helpers.save_model(tf1(), tmp_path / "model")
    assert tfcompat.train.list_variables(prefix) == tf1().train.list_variables(prefix)
    # A directory means its newest checkpoint.
    assert tfcompat.train.list_variables(str(tmp_path)) == tf1().train.list_variables(prefix)
    for name in ("dense/kernel", "words", "scalar"):
        np.testing.assert_array_equal(
            tfcompat.train.load_variable(str(tmp_path), name + ":0"),
            tf1().train.load_variable(str(tmp_path), name),
        )


def test_state_file_read_by_both(tmp_path):
    ours = helpers.save_model(tfcompat, tmp_path / "ours" / "model")
    theirs = helpers.save_model(tf1(), tmp_path / "tf" / "model")
    for directory, prefix in ((tmp_path / "ours", ours), (tmp_path / "tf", theirs)):
        assert tfcompat.train.latest_checkpoint(str(directory)) == prefix
        assert tf1().train.latest_checkpoint(str(directory)) == prefix
        state = tfcompat.train.get_checkpoint_state(str(directory))
        assert list(state.all_model_checkpoint_paths) == [prefix]
    with open(tmp_path / "ours" / "checkpoint") as a, open(tmp_path / "tf" / "checkpoint") as b:
        assert a.read().replace("/ours/", "/") == b.read().replace("/tf/", "/")
    assert tfcompat.train.latest_checkpoint(str(tmp_path / "none")) is None
    assert tfcompat.train.checkpoint_exists(ours)
    assert not tfcompat.train.checkpoint_exists(ours + "x")


def _save_steps(tf, directory, steps, **saver_kwargs):
    graph = tf.Graph()
    with graph.as_default():
        tf.Variable(1.0, name="v")
        saver = tf.train.Saver(**saver_kwargs)
        with tf.Session(graph=graph) as sess:
            sess.run(tf.global_variables_initializer())
            for step in steps:
                saver.save(sess, os.path.join(directory, "model"), global_step=step)
            return saver.last_checkpoints


@pytest.mark.parametrize("max_to_keep", [2, 0, None])
def test_max_to_keep_as_tf(tmp_path, max_to_keep):
    kwargs = {"max_to_keep": max_to_keep, "save_relative_paths": True}
    ours = _save_steps(tfcompat, str(tmp_path / "ours"), range(1, 5), **kwargs)
    theirs = _save_steps(tf1(), str(tmp_path / "tf"), range(1, 5), **kwargs)
    assert [os.path.basename(p) for p in ours] == [os.path.basename(p) for p in theirs]
    # The same files, .meta files of the kept checkpoints included.
    assert sorted(os.listdir(tmp_path / "ours")) == sorted(os.listdir(tmp_path / "tf"))
    with open(tmp_path / "ours" / "checkpoint") as a, open(tmp_path / "tf" / "checkpoint") as b:
        assert a.read() == b.read()


def test_pad_step_number_and_latest_filename(tmp_path):
    graph = tfcompat.Graph()
    with graph.as_default():
        tfcompat.Variable(1.0, name="v")
        saver = tfcompat.train.Saver(pad_step_number=True)
        with tfcompat.Session(graph=graph) as sess:
            sess.run(tfcompat.global_variables_initializer())
            path = saver.save(sess, str(tmp_path / "m"), global_step=3, latest_filename="ck")
    assert path == str(tmp_path / "m-00000003")
    assert tfcompat.train.latest_checkpoint(str(tmp_path), "ck") == path
    assert tfcompat.train.latest_checkpoint(str(tmp_path)) is None


def _saver_program(**saver_kwargs):
    def program(tf):
        variables = helpers.build_model(tf, {k: VALUES[k] for k in ("dense/kernel", "words")})
        tf.train.Saver(**saver_kwargs)
        return variables["dense/kernel"]

    return program


@pytest.mark.parametrize(
    "saver_kwargs",
    [{}, {"name": "my_saver"}, {"reshape": True}, {"filename": "init.ckpt"}, {"sharded": True}],
)
def test_saver_graph_def_matches_tf(saver_kwargs):
    assert_same_graph_def(_saver_program(**saver_kwargs))


def test_saver_def_matches_tf():
    def saver_def(tf):
        graph = tf.Graph()
        with graph.as_default():
            tf.Variable(1.0, name="v")
            saver = tf.train.Saver(max_to_keep=3, keep_checkpoint_every_n_hours=2.0)
            return saver.as_saver_def().SerializeToString()

    assert saver_def(tfcompat) == saver_def(tf1())


@pytest.mark.parametrize("writer,reader", PAIRS)
def test_var_list_dict_and_list(tmp_path, writer, reader):
    libs = helpers.frameworks()

    def build(tf, value):
        a = tf.Variable(np.full(3, value, np.float32), name="a")
        b = tf.Variable(np.int64(value), name="b")
        return a, b

    graph = libs[writer].Graph()
    tf = libs[writer]
    with graph.as_default():
        a, b = build(tf, 7)
        saver = tf.train.Saver({"renamed/a": a, "b_in_ckpt": b})
        with tf.Session(graph=graph) as sess:
            sess.run(tf.global_variables_initializer())
            prefix = saver.save(sess, str(tmp_path / "m"), write_meta_graph=False)
    tf = libs[reader]
    assert tf.train.list_variables(prefix) == [("b_in_ckpt", []), ("renamed/a", [3])]
    graph = tf.Graph()
    with graph.as_default():
        a, b = build(tf, 0)
        saver = tf.train.Saver({"renamed/a": a})
        with tf.Session(graph=graph) as sess:
            sess.run(b.initializer)
            saver.restore(sess, prefix)
            np.testing.assert_array_equal(sess.run(a), np.full(3, 7, np.float32))
            assert sess.run(b) == 0


@pytest.mark.parametrize("writer,reader", PAIRS)
def test_partitioned_variables(tmp_path, writer, reader):
    libs = helpers.frameworks()
    full = np.arange(40, dtype=np.float32).reshape(10, 4)

    def build(tf, value):
        return tf.get_variable(
            "emb",
            initializer=tf.constant(value),
            partitioner=tf.fixed_size_partitioner(3),
        )

    tf = libs[writer]
    graph = tf.Graph()
    with graph.as_default():
        build(tf, full)
        saver = tf.train.Saver()
        with tf.Session(graph=graph) as sess:
            sess.run(tf.global_variables_initializer())
            prefix = saver.save(sess, str(tmp_path / "m"), write_meta_graph=False)
    tf = libs[reader]
    np.testing.assert_array_equal(tf.train.load_variable(prefix, "emb"), full)
    assert tf.train.list_variables(prefix) == [("emb", [10, 4])]
    graph = tf.Graph()
    with graph.as_default():
        var = build(tf, np.zeros_like(full))
        saver = tf.train.Saver()
        with tf.Session(graph=graph) as sess:
            saver.restore(sess, prefix)
            np.testing.assert_array_equal(sess.run(tf.concat(list(var), 0)), full)


def test_partitioned_index_byte_identical(tmp_path):
    def save(tf, directory):
        graph = tf.Graph()
        with graph.as_default():
            tf.get_variable(
                "emb",
                initializer=tf.constant(np.arange(40, dtype=np.float32).reshape(10, 4)),
                partitioner=tf.fixed_size_partitioner(3),
            )
            saver = tf.train.Saver()
            with tf.Session(graph=graph) as sess:
                sess.run(tf.global_variables_initializer())
                return saver.save(sess, str(directory / "m"), write_meta_graph=False)

    ours, theirs = save(tfcompat, tmp_path / "ours"), save(tf1(), tmp_path / "tf")
    for suffix in (".index", ".data-00000-of-00001"):
        with open(ours + suffix, "rb") as a, open(theirs + suffix, "rb") as b:
            assert a.read() == b.read(), suffix


@pytest.mark.parametrize("reader", ["tfcompat", "tf"])
def test_sharded_saver(tmp_path, reader):
    prefix = helpers.save_model(tfcompat, tmp_path / "model", sharded=True)
    assert prefix == f"{tmp_path}/model-{helpers.GLOBAL_STEP}"
    assert not os.path.exists(f"{prefix}_temp")
    assert_model_values(helpers.restore_model(helpers.frameworks()[reader], prefix))


def test_sharded_saver_reads_tf_sharded(tmp_path):
    prefix = helpers.save_model(tf1(), tmp_path / "model", sharded=True)
    assert_model_values(helpers.restore_model(tfcompat, prefix, sharded=True))


def test_init_from_checkpoint(tmp_path):
    prefix = helpers.save_model(tf1(), tmp_path / "model")
    graph = tfcompat.Graph()
    with graph.as_default():
        with tfcompat.variable_scope("new"):
            kernel = tfcompat.get_variable("kernel", shape=[3, 4])
            bias = tfcompat.get_variable("bias", shape=[4], dtype=tfcompat.float64)
        counts = tfcompat.get_variable("c", shape=[2, 5], dtype=tfcompat.int32)
        tfcompat.train.init_from_checkpoint(str(tmp_path), {"dense/": "new/", "counts": counts})
        with tfcompat.Session(graph=graph) as sess:
            sess.run(tfcompat.global_variables_initializer())
            got = sess.run([kernel, bias, counts])
    for value, name in zip(got, ["dense/kernel", "dense/bias", "counts"]):
        np.testing.assert_array_equal(value, VALUES[name])
    assert kernel.initial_value.op.type == "RestoreV2"
    with pytest.raises(ValueError, match="Tensor nope is not found"):
        with graph.as_default():
            tfcompat.train.init_from_checkpoint(prefix, {"nope": counts})
    with pytest.raises(ValueError, match="doesn't match with shape"):
        with graph.as_default():
            tfcompat.train.init_from_checkpoint(prefix, {"dense/bias": counts})


def test_our_graph_def_saves_and_restores_in_tf(tmp_path):
    """The saver's nodes in our GraphDef run in TF: TF saves through them, we restore."""
    graph = tfcompat.Graph()
    with graph.as_default():
        helpers.build_model(tfcompat)
        saver = tfcompat.train.Saver()
        init = tfcompat.global_variables_initializer()
    tf = tf1()
    tf_graph = tf.Graph()
    with tf_graph.as_default():
        graph_def = tf.GraphDef.FromString(graph.as_graph_def().SerializeToString())
        tf.import_graph_def(graph_def, name="")
        with tf.Session(graph=tf_graph) as sess:
            sess.run(init.name)
            sess.run("global_step/Assign", {"global_step/Initializer/zeros:0": helpers.GLOBAL_STEP})
            prefix = sess.run(
                saver.saver_def.save_tensor_name,
                {saver.saver_def.filename_tensor_name: str(tmp_path / "m")},
            )
    assert prefix.decode() == str(tmp_path / "m")
    assert_model_values(helpers.restore_model(tfcompat, str(tmp_path / "m")))
