"""MetaGraphDef (``.meta`` files) against TF 2.21: ``Saver.save`` writes one, either side
imports the other's with ``import_meta_graph``, restores the checkpoint and continues
training with the same values; collections, stripped OpDefs, scopes, cleared devices and
TF's errors for unreadable files."""

from __future__ import annotations

import os

import numpy as np
import pytest

import tfcompat
from tests.checkpoint.helpers import frameworks
from tests.oracle import tf1
from tfcompat.framework.proto import meta_graph_pb2, variable_pb2

_rng = np.random.default_rng(11)
KERNEL1 = _rng.standard_normal((3, 4)).astype(np.float32)
KERNEL2 = _rng.standard_normal((4, 1)).astype(np.float32)
BIAS1 = _rng.standard_normal(4).astype(np.float32)
FEED_X = _rng.standard_normal((8, 3)).astype(np.float32)
FEED_Y = _rng.standard_normal((8, 1)).astype(np.float32)
TRAIN_STEPS = 3


def _feed():
    return {"x:0": FEED_X, "y:0": FEED_Y}


def _build_model(tf, use_resource=False):
    """Two dense layers trained by Adam with a global step; extra collections of every
    kind. Returns the train op."""
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    y = tf.placeholder(tf.float32, [None, 1], name="y")
    with tf.variable_scope("model", use_resource=use_resource):
        hidden = tf.layers.dense(
            x,
            4,
            activation=tf.nn.relu,
            name="d1",
            kernel_initializer=tf.constant_initializer(KERNEL1),
            bias_initializer=tf.constant_initializer(BIAS1),
        )
        out = tf.layers.dense(
            hidden, 1, name="d2", kernel_initializer=tf.constant_initializer(KERNEL2)
        )
    loss = tf.reduce_mean(tf.square(out - y), name="loss")
    step = tf.train.get_or_create_global_step()
    train_op = tf.train.AdamOptimizer(0.05).minimize(loss, global_step=step)
    tf.add_to_collection("predictions", out)
    tf.add_to_collection("counts", 7)
    tf.add_to_collection("counts", -3)
    tf.add_to_collection("rates", 0.25)
    tf.add_to_collection("labels", "first")
    tf.add_to_collection("labels", b"second")
    return train_op


def _train_and_save(tf, directory, use_resource=False):
    """Builds the model, trains TRAIN_STEPS steps and saves (``.meta`` included); returns
    the checkpoint prefix."""
    with tf.Graph().as_default() as graph:
        train_op = _build_model(tf, use_resource)
        saver = tf.train.Saver()
        with tf.Session(graph=graph) as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(TRAIN_STEPS):
                sess.run(train_op, _feed())
            return saver.save(sess, str(directory / "model.ckpt"))


def _resume(tf, prefix, **import_kwargs):
    """Imports ``<prefix>.meta`` into a fresh graph, restores, runs one more training step
    from the ``train_op`` collection; returns what it saw."""
    scope = import_kwargs.get("import_scope")
    name = (lambda n: f"{scope}/{n}") if scope else (lambda n: n)
    with tf.Graph().as_default() as graph:
        saver = tf.train.import_meta_graph(prefix + ".meta", **import_kwargs)
        with tf.Session(graph=graph) as sess:
            saver.restore(sess, prefix)
            feed = {name(k): v for k, v in _feed().items()}
            loss_before = sess.run(name("loss:0"), feed)
            sess.run(tf.get_collection("train_op")[0], feed)
            loss_after, prediction = sess.run(
                [name("loss:0"), tf.get_collection("predictions")[0]], feed
            )
            values = {v.op.name: sess.run(v) for v in tf.global_variables()}
        return {
            "global": [v.op.name for v in tf.global_variables()],
            "trainable": [v.op.name for v in tf.trainable_variables()],
            "train_op": [op.name for op in tf.get_collection("train_op")],
            "counts": tf.get_collection("counts"),
            "rates": tf.get_collection("rates"),
            "labels": tf.get_collection("labels"),
            "step_collection": [v.op.name for v in tf.get_collection("global_step")],
            "resource": {v.op.name: "Resource" in type(v).__name__ for v in tf.global_variables()},
            "saver_def": saver.saver_def.SerializeToString(),
            "loss": (loss_before, loss_after),
            "prediction": prediction,
            "values": values,
        }


def _assert_same_resume(got, want):
    for key in ("global", "trainable", "train_op", "counts", "rates", "labels", "resource"):
        assert got[key] == want[key], key
    assert got["step_collection"] == want["step_collection"]
    assert got["saver_def"] == want["saver_def"]
    np.testing.assert_allclose(got["loss"], want["loss"], rtol=1e-5)
    np.testing.assert_allclose(got["prediction"], want["prediction"], rtol=1e-5, atol=1e-6)
    assert sorted(got["values"]) == sorted(want["values"])
    for name, value in want["values"].items():
        np.testing.assert_allclose(got["values"][name], value, rtol=1e-5, atol=1e-6, err_msg=name)
    (step,) = [v for k, v in got["values"].items() if k.endswith("global_step")]
    assert step == TRAIN_STEPS + 1


@pytest.mark.parametrize("use_resource", [False, True], ids=["ref", "resource"])
@pytest.mark.parametrize("writer", ["tf", "tfcompat"])
def test_resume_training_from_meta(tmp_path, writer, use_resource):
    """Written by either side, imported by both: same collections, same restored values,
    same loss after one more step of the imported train_op."""
    modules = frameworks()
    prefix = _train_and_save(modules[writer], tmp_path, use_resource)
    assert os.path.exists(prefix + ".meta")
    ours = _resume(tfcompat, prefix)
    theirs = _resume(tf1(), prefix)
    _assert_same_resume(ours, theirs)
    assert ours["resource"]["model/d1/kernel"] == use_resource
    assert ours["counts"] == [7, -3] and ours["rates"] == [0.25]
    assert ours["labels"] == [b"first", b"second"]


@pytest.mark.parametrize("writer", ["tf", "tfcompat"])
def test_import_scope(tmp_path, writer):
    """Imported under a scope (twice: the second gets ``_1``, as in TF): names, Saver and
    training all work under it."""
    prefix = _train_and_save(frameworks()[writer], tmp_path)
    results = []
    for tf in (tfcompat, tf1()):
        results.append(_resume(tf, prefix, import_scope="imported"))
        with tf.Graph().as_default():
            tf.constant(0.0, name="imported")
            saver = tf.train.import_meta_graph(prefix + ".meta", import_scope="imported")
            results.append(
                ([v.op.name for v in tf.global_variables()], saver.saver_def.restore_op_name)
            )
    ours, ours_twice, theirs, theirs_twice = results
    _assert_same_resume(ours, theirs)
    assert ours["global"][0].startswith("imported/")
    assert ours_twice == theirs_twice
    assert ours_twice[1] == "imported_1/save/restore_all"


def _meta_graph(tf, use_resource=False, **export_kwargs):
    with tf.Graph().as_default():
        _build_model(tf, use_resource)
        saver = tf.train.Saver()
        data = saver.export_meta_graph(**export_kwargs).SerializeToString()
    return meta_graph_pb2.MetaGraphDef.FromString(data)


def _node_names(meta_graph_def):
    return sorted(n.name for n in meta_graph_def.graph_def.node)


def _collections(meta_graph_def):
    """``{key: (kind, values)}``, VariableDefs decoded."""
    out = {}
    for key, col_def in meta_graph_def.collection_def.items():
        kind = col_def.WhichOneof("kind")
        values = list(getattr(col_def, kind).value)
        if kind == "bytes_list" and key in ("variables", "trainable_variables", "global_step"):
            values = [_variable_def(v) for v in values]
        out[key] = (kind, values)
    return out


def _variable_def(data):
    proto = variable_pb2.VariableDef.FromString(data)
    # tfcompat variables carry no aggregation (TF's global step has ONLY_FIRST_REPLICA).
    proto.ClearField("aggregation")
    return proto


@pytest.mark.parametrize("use_resource", [False, True], ids=["ref", "resource"])
def test_meta_graph_def_matches_tf(use_resource):
    ours = _meta_graph(tfcompat, use_resource)
    theirs = _meta_graph(tf1(), use_resource)
    assert _collections(ours) == _collections(theirs)
    assert ours.saver_def == theirs.saver_def
    assert ours.meta_info_def.tensorflow_version == "2.21.0"
    assert _node_names(ours) == _node_names(theirs)
    shapes = {n.name: n.attr["_output_shapes"] for n in theirs.graph_def.node}
    for node in ours.graph_def.node:
        assert node.attr["_output_shapes"] == shapes[node.name], node.name


def _comparable_op_def(op_def):
    """The fields tfcompat's registry knows, allowed values as sets."""
    args = [
        [(a.name, a.type, a.type_attr, a.number_attr, a.type_list_attr, a.is_ref) for a in arg]
        for arg in (op_def.input_arg, op_def.output_arg)
    ]
    attrs = {}
    for attr in op_def.attr:
        allowed = attr.allowed_values.list
        attrs[attr.name] = (
            attr.type,
            attr.default_value.SerializeToString(),
            attr.has_minimum,
            attr.minimum,
            frozenset(allowed.type) | frozenset(allowed.s),
        )
    flags = (op_def.is_stateful, op_def.is_commutative, op_def.allows_uninitialized_input)
    return args, attrs, flags


def test_stripped_op_list_matches_tf():
    ours = _meta_graph(tfcompat).meta_info_def.stripped_op_list
    theirs = _meta_graph(tf1()).meta_info_def.stripped_op_list
    assert [op.name for op in ours.op] == [op.name for op in theirs.op]
    for mine, tfs in zip(ours.op, theirs.op):
        assert _comparable_op_def(mine) == _comparable_op_def(tfs), mine.name


def test_strip_default_attrs_matches_tf():
    ours = _meta_graph(tfcompat, strip_default_attrs=True)
    theirs = _meta_graph(tf1(), strip_default_attrs=True)
    assert ours.meta_info_def.stripped_default_attrs
    their_attrs = {n.name: sorted(n.attr) for n in theirs.graph_def.node}
    assert _node_names(ours) == _node_names(theirs)
    for node in ours.graph_def.node:
        assert sorted(node.attr) == their_attrs[node.name], node.name


def _device_graph(tf):
    with tf.device("/device:CPU:0"):
        v = tf.Variable(np.float32(3.0), name="v")
    tf.multiply(v, 2.0, name="double")
    return tf.train.Saver()


@pytest.mark.parametrize("writer", ["tf", "tfcompat"])
def test_clear_devices(tmp_path, writer):
    """Devices cleared on export or on import; the imported graph runs on either side."""
    tf = frameworks()[writer]
    with tf.Graph().as_default() as graph:
        saver = _device_graph(tf)
        with tf.Session(graph=graph) as sess:
            sess.run(tf.global_variables_initializer())
            prefix = saver.save(sess, str(tmp_path / "m"), write_meta_graph=False)
        kept = saver.export_meta_graph(str(tmp_path / "kept.meta"))
        cleared = saver.export_meta_graph(str(tmp_path / "cleared.meta"), clear_devices=True)
    assert any(n.device for n in kept.graph_def.node)
    assert not any(n.device for n in cleared.graph_def.node)
    for reader in (tfcompat, tf1()):
        for meta, kwargs in (("cleared.meta", {}), ("kept.meta", {"clear_devices": True})):
            with reader.Graph().as_default() as graph:
                restorer = reader.train.import_meta_graph(str(tmp_path / meta), **kwargs)
                assert not any(op.device for op in graph.get_operations())
                with reader.Session(graph=graph) as sess:
                    restorer.restore(sess, prefix)
                    assert sess.run("double:0") == 6.0


@pytest.mark.parametrize("writer", ["tf", "tfcompat"])
def test_export_scope(tmp_path, writer):
    """A scope exported alone: names relative to it, outside inputs listed as unbound and
    required through input_map on import."""
    tf = frameworks()[writer]
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [2], name="x")
        with tf.name_scope("block"):
            w = tf.Variable(np.float32([1.5, -2.0]), name="w")
            tf.multiply(x, w, name="out")
        meta = tf.train.export_meta_graph(str(tmp_path / "block.meta"), export_scope="block")
    meta = meta_graph_pb2.MetaGraphDef.FromString(meta.SerializeToString())
    assert sorted(n.name for n in meta.graph_def.node) == [
        "out",
        "w",
        "w/Assign",
        "w/initial_value",
        "w/read",
    ]
    assert list(meta.collection_def["unbound_inputs"].bytes_list.value) == [b"$unbound_inputs_x"]
    for reader in (tfcompat, tf1()):
        with reader.Graph().as_default() as graph:
            with pytest.raises(ValueError, match="Graph contains unbound inputs"):
                reader.train.import_meta_graph(str(tmp_path / "block.meta"))
        with reader.Graph().as_default() as graph:
            feed = reader.placeholder(reader.float32, [2], name="feed")
            reader.train.import_meta_graph(
                str(tmp_path / "block.meta"),
                import_scope="copy",
                input_map={"$unbound_inputs_x": feed},
            )
            assert [v.op.name for v in reader.global_variables()] == ["copy/w"]
            with reader.Session(graph=graph) as sess:
                sess.run(reader.global_variables_initializer())
                got = sess.run("copy/out:0", {feed: np.float32([2.0, 3.0])})
            np.testing.assert_array_equal(got, np.float32([3.0, -6.0]))


def _partitioned_loop_model(tf, directory):
    """A partitioned variable, a while loop and a cond, and a second Saver; saves and
    writes a second .meta without the other Saver's nodes. Returns the prefix."""
    with tf.Graph().as_default() as graph:
        with tf.variable_scope("p", partitioner=tf.fixed_size_partitioner(2)):
            w = tf.get_variable("w", shape=[6, 2], initializer=tf.ones_initializer())
        x = tf.placeholder(tf.float32, [], name="x")
        loop = tf.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a * x), [0, tf.constant(1.0)])
        branch = tf.cond(x > 0, lambda: x * 2.0, lambda: x - 1.0)
        tf.add(tf.reduce_sum(w), loop[1] + branch, name="out")
        tf.train.Saver(name="other")
        saver = tf.train.Saver()
        with tf.Session(graph=graph) as sess:
            sess.run(tf.global_variables_initializer())
            prefix = saver.save(sess, str(directory / "m"))
        pruned = saver.export_meta_graph(
            str(directory / "pruned.meta"), clear_extraneous_savers=True
        )
    assert not any(n.name.startswith("other/") for n in pruned.graph_def.node)
    return prefix


@pytest.mark.parametrize("writer", ["tf", "tfcompat"])
def test_partitioned_variables_and_control_flow(tmp_path, writer):
    """Slices of a partitioned variable keep their SaveSliceInfo through the VariableDef;
    imported loops and conds run (tfcompat recovers their contexts from the graph)."""
    prefix = _partitioned_loop_model(frameworks()[writer], tmp_path)
    for reader in (tfcompat, tf1()):
        for meta in ("m.meta", "pruned.meta"):
            with reader.Graph().as_default() as graph:
                saver = reader.train.import_meta_graph(str(tmp_path / meta))
                names = [v.op.name for v in reader.global_variables()]
                assert names == ["p/w/part_0", "p/w/part_1"]
                info = reader.global_variables()[1]._save_slice_info
                assert (info.full_name, list(info.var_offset)) == ("p/w", [3, 0])
                with reader.Session(graph=graph) as sess:
                    saver.restore(sess, prefix)
                    assert sess.run("out:0", {"x:0": 2.0}) == 12.0 + 8.0 + 4.0


def test_save_writes_meta_only_when_asked(tmp_path):
    with tfcompat.Graph().as_default() as graph:
        tfcompat.Variable(1.0, name="v")
        saver = tfcompat.train.Saver()
        with tfcompat.Session(graph=graph) as sess:
            sess.run(tfcompat.global_variables_initializer())
            without = saver.save(sess, str(tmp_path / "a"), write_meta_graph=False)
            with_meta = saver.save(
                sess, str(tmp_path / "b"), global_step=5, meta_graph_suffix="graph"
            )
    assert not os.path.exists(without + ".meta")
    assert with_meta.endswith("b-5") and os.path.exists(with_meta + ".graph")


@pytest.mark.parametrize("tf_name", ["tfcompat", "tf"])
def test_import_without_variables_returns_none(tmp_path, tf_name):
    tf = frameworks()[tf_name]
    with tf.Graph().as_default():
        tf.add(tf.constant(1.0), 2.0, name="sum")
        tf.train.export_meta_graph(str(tmp_path / "consts.meta"))
    for reader in (tfcompat, tf1()):
        with reader.Graph().as_default() as graph:
            assert reader.train.import_meta_graph(str(tmp_path / "consts.meta")) is None
            with reader.Session(graph=graph) as sess:
                assert sess.run("sum:0") == 3.0


def test_text_meta_graph(tmp_path):
    """``as_text`` writes a text proto; both sides read it."""
    with tfcompat.Graph().as_default():
        tfcompat.Variable(np.float32(4.0), name="v")
        saver = tfcompat.train.Saver()
        saver.export_meta_graph(str(tmp_path / "m.meta"), as_text=True)
    assert (tmp_path / "m.meta").read_text().startswith("meta_info_def {")
    for reader in (tfcompat, tf1()):
        with reader.Graph().as_default():
            restored = reader.train.import_meta_graph(str(tmp_path / "m.meta"))
            assert restored.saver_def.restore_op_name == "save/restore_all"
            assert [v.op.name for v in reader.global_variables()] == ["v"]


_CORRUPT = {
    "truncated": lambda data: data[: len(data) // 2],
    "binary_garbage": lambda data: bytes(range(256)) * 3,
    "bad_text": lambda data: b"this is not a proto {",
}


@pytest.mark.parametrize("damage", sorted(_CORRUPT))
def test_corrupt_meta_raises_tf_error(tmp_path, damage):
    """What TF raises for an unreadable .meta: UnicodeDecodeError for bytes that are
    neither a binary proto nor UTF-8, OSError for text that does not parse, and OSError
    for a missing file."""
    with tfcompat.Graph().as_default():
        tfcompat.Variable(1.0, name="v")
        data = tfcompat.train.Saver().export_meta_graph().SerializeToString()
    path = tmp_path / "bad.meta"
    path.write_bytes(_CORRUPT[damage](data))
    raised = []
    for tf in (tfcompat, tf1()):
        with tf.Graph().as_default():
            with pytest.raises(Exception) as info:
                tf.train.import_meta_graph(str(path))
            raised.append(type(info.value))
            with pytest.raises(OSError, match="File does not exist"):
                tf.train.import_meta_graph(str(tmp_path / "missing.meta"))
    assert raised[0] is raised[1]
    assert raised[0] in (UnicodeDecodeError, OSError)


def test_wire_format_round_trip():
    """A TF MetaGraphDef parses into ours and serializes back to the same bytes."""
    with tf1().Graph().as_default():
        _build_model(tf1(), use_resource=True)
        data = tf1().train.Saver().export_meta_graph().SerializeToString(deterministic=True)
    ours = meta_graph_pb2.MetaGraphDef.FromString(data)
    assert ours.SerializeToString(deterministic=True) == data
    assert len(ours.collection_def["variables"].bytes_list.value) == 15
