"""``lowering.inspect`` (the Python API) and ``tfcompat inspect`` (the command) on GraphDefs
written by tfcompat and by TensorFlow 2.21."""

import os
import re
import subprocess
import sys

import numpy as np
import pytest

import tfcompat as tf
from lowering import inspect as inspect_lib
from tfcompat import cli


def _linear_model(batch=None):
    """x[batch,3] @ w[3,2] + 1 with w a Variable, plus its initializer."""
    x = tf.placeholder(tf.float32, [batch, 3], name="x")
    w = tf.Variable(np.arange(6, dtype=np.float32).reshape(3, 2), name="w")
    y = tf.add(tf.matmul(x, w), 1.0, name="y")
    init = tf.global_variables_initializer()
    return x, w, y, init


def _matmul_flops(m, k, n):
    return 2 * m * k * n


# ---------------------------------------------------------------------------------------------
# Python API
# ---------------------------------------------------------------------------------------------
def test_inspect_graph_reports_every_stage():
    _linear_model()
    report = inspect_lib.inspect(tf.get_default_graph(), ["y"], feed_shapes={"x": (8, 3)})
    assert report.graph_summary.node_count == len(tf.get_default_graph().get_operations())
    assert report.graph_summary.op_counts["MatMul"] == 1
    assert [s.kind for s in report.segments] == ["device"]
    assert report.host_ops == []
    assert report.feeds["x:0"].shape == (8, 3)
    assert "dot_general" in report.jaxpr and "f32[8,3]" in report.jaxpr
    assert "func.func" in report.stablehlo and "tensor<8x3xf32>" in report.stablehlo
    assert report.optimized_hlo.startswith("HloModule")
    assert "StackFrames" not in report.optimized_hlo
    assert report.fusion_count == inspect_lib.count_fusions(report.optimized_hlo)
    assert report.cost["flops"] >= _matmul_flops(8, 3, 2)
    assert report.cost["bytes_accessed"] > 0
    text = str(report)
    for section in (
        "== Graph ==",
        "== Plan ==",
        "== Jaxpr ==",
        "== StableHLO ==",
        "== Optimized HLO ==",
        "== XLA summary ==",
    ):
        assert section in text


def test_unknown_dims_default_to_one_with_a_note():
    _linear_model()
    report = inspect_lib.inspect(tf.get_default_graph(), "y")
    assert report.feeds["x:0"].shape == (1, 3)
    assert any("placeholder x" in note for note in report.notes)


def test_feed_dict_values_give_shapes():
    x, _, y, _ = _linear_model()
    report = inspect_lib.inspect(tf.get_default_graph(), y, feed_dict={x: np.zeros((5, 3))})
    assert "f32[5,3]" in report.jaxpr


def test_fed_compile_time_values_specialise_the_lowered_step():
    """A cond whose branches differ in shape (rot90 by a fed k) is lowered for the fed k,
    as a Session's step is; the output shape follows k."""
    x = tf.placeholder(tf.float32, [2, 3, 4, 1], name="images")
    k = tf.placeholder(tf.int32, [], name="k")
    y = tf.image.rot90(x, k)
    images = np.zeros((2, 3, 4, 1), np.float32)
    for turns, shape in ((1, "2x4x3x1"), (2, "2x3x4x1")):
        report = inspect_lib.inspect(tf.get_default_graph(), y, feed_dict={x: images, k: turns})
        assert "specialised on fed values: k:0" in report.notes
        assert f")->tensor<{shape}xf32>" in report.stablehlo.replace(" ", "")


def test_default_fetches_are_sink_ops():
    _, _, y, init = _linear_model()
    sinks = inspect_lib.sink_operations(tf.get_default_graph())
    assert set(sinks) == {y.op, init}
    report = inspect_lib.inspect(tf.get_default_graph())
    names = {name for s in report.segments for name, _ in s.ops}
    assert {"y", "init", "w/Assign"} <= names


def test_host_ops_get_their_own_segment():
    tf.identity(tf.constant("hello", name="greeting"), name="greeting_copy")
    x = tf.placeholder(tf.float32, [2, 3], name="x")
    tf.matmul(x, tf.constant(np.ones((3, 4), np.float32)), name="y")
    report = inspect_lib.inspect(tf.get_default_graph(), ["greeting_copy", "y"])
    assert [s.kind for s in report.segments] == ["host", "device"]
    assert report.host_ops == [("greeting", "Const"), ("greeting_copy", "Identity")]
    assert report.cost["flops"] >= _matmul_flops(2, 3, 4)
    assert "host ops: greeting (Const), greeting_copy (Identity)" in str(report)


def test_inspect_session_uses_its_variable_shapes():
    x = tf.placeholder(tf.float32, [2, 3], name="x")
    w = tf.Variable(np.ones((3, 7), np.float32), validate_shape=False, name="w")
    tf.matmul(x, w, name="y")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        report = inspect_lib.inspect(sess, "y")
    assert report.lowerings[0].state["w"].shape == (3, 7)
    assert "f32[2,7]" in report.jaxpr


def test_inspect_executable_uses_the_traced_shapes():
    x, _, y, init = _linear_model()
    metadata = tf.RunMetadata()
    with tf.Session() as sess:
        sess.run(init)
        sess.run(y, {x: np.ones((6, 3), np.float32)}, run_metadata=metadata)
    executable = metadata.executable
    compiles_before = executable.compile_count
    report = inspect_lib.inspect_executable(executable)
    assert "f32[6,3]" in report.jaxpr
    assert report.cost["flops"] >= _matmul_flops(6, 3, 2)
    assert executable.compile_count == compiles_before  # inspecting does not recompile it


def test_inspect_executable_of_a_step_specialised_on_fed_values():
    # tf.range(n) with n fed: the step is compiled for n's value (lowering/static.py), and
    # inspecting the executable lowers it for that value too.
    n = tf.placeholder(tf.int32, [], name="n")
    x = tf.placeholder(tf.float32, [None], name="x")
    y = tf.reduce_sum(tf.cast(tf.range(n), tf.float32) * x[:1])
    metadata = tf.RunMetadata()
    with tf.Session() as sess:
        assert sess.run(y, {n: 5, x: np.ones(3, np.float32)}, run_metadata=metadata) == 10.0
    report = inspect_lib.inspect_executable(metadata.executable)
    assert "f32[5]" in report.jaxpr


def _sparse_lookup_step():
    words = tf.placeholder(tf.string, [None, 1], name="words")
    column = tf.feature_column.embedding_column(
        tf.feature_column.categorical_column_with_hash_bucket("w", 10), 4
    )
    loss = tf.reduce_sum(tf.feature_column.input_layer({"w": words}, [column]))
    train = tf.train.AdagradOptimizer(0.1).minimize(loss)
    return loss, train, {words: np.array([[b"a"], [b"b"], [b"a"]], object)}


def test_inspect_session_lowers_its_step_as_it_last_ran():
    # The lookup's row count is a compile-time value only a run computes (on the host):
    # after one run, inspecting the Session shows that compiled step, without rerunning it.
    loss, train, feed = _sparse_lookup_step()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        with pytest.raises(inspect_lib.InspectError, match="rows count.*Run it once in a Session"):
            inspect_lib.inspect(sess, [loss, train], feed)
        sess.run([loss, train], feed)
        (table,) = tf.trainable_variables()
        before = sess.run(table)
        report = inspect_lib.inspect(sess, [loss, train], feed)
        np.testing.assert_array_equal(sess.run(table), before)  # nothing ran
    assert len(report.lowerings) == 1
    assert report.notes[0] == "lowered as the Session's last run of these fetches ran it"
    assert "scatter" in report.optimized_hlo


def test_sparse_feeds_give_their_components_shapes():
    ids = tf.sparse_placeholder(tf.int64, name="ids")
    table = tf.constant(np.ones((10, 4), np.float32))
    total = tf.reduce_sum(tf.nn.embedding_lookup_sparse(table, ids, None, combiner="sum"))
    feed = {ids: tf.SparseTensorValue([[0, 0], [1, 0], [1, 1]], [1, 7, 7], [2, 2])}
    report = inspect_lib.inspect(tf.get_default_graph(), total, feed)
    assert report.feeds["ids/indices:0"].shape == (3, 2)
    assert report.feeds["ids/values:0"].shape == (3,)


def test_unknown_fetch_is_a_clear_error():
    _linear_model()
    with pytest.raises(inspect_lib.InspectError, match="Fetch 'nope' is not in the graph"):
        inspect_lib.inspect(tf.get_default_graph(), ["nope"])


def test_incompatible_feed_shape_is_a_clear_error():
    _linear_model()
    with pytest.raises(inspect_lib.InspectError, match=r"Feed shape \[2, 4\] for x:0"):
        inspect_lib.inspect(tf.get_default_graph(), "y", feed_shapes={"x": (2, 4)})


FUSION_HLO = """\
HloModule m

%fused_computation (p: f32[2]) -> f32[2] {
  ROOT %add = f32[2]{0} add(%p, %p)
}

ENTRY %main (a: f32[2]) -> (f32[2], f32[2]) {
  %a = f32[2]{0} parameter(0)
  %add_fusion = f32[2]{0} fusion(%a), kind=kLoop, calls=%fused_computation
  %t = (f32[2]{0}, f32[2]{0}) fusion(%a, %add_fusion), kind=kInput, calls=%fused_computation
  %g = f32[2]{0} get-tuple-element(%t), index=0
  ROOT %r = (f32[2]{0}, f32[2]{0}) tuple(%add_fusion, %g)
}
"""


def test_count_fusions_counts_fusion_instructions():
    assert inspect_lib.count_fusions(FUSION_HLO) == 2
    assert inspect_lib.count_fusions("HloModule m\n") == 0


def test_strip_debug_tables_keeps_instructions():
    text = 'HloModule m\n\nFileNames\n1 "a.py"\n\nStackFrames\n1 {x}\n\nENTRY %e {\n}\n'
    assert inspect_lib.strip_debug_tables(text) == "HloModule m\n\nENTRY %e {\n}\n"


# ---------------------------------------------------------------------------------------------
# tfcompat inspect
# ---------------------------------------------------------------------------------------------
def _write_our_graph(tmp_path, as_text=True):
    _linear_model()
    name = "model.pbtxt" if as_text else "model.pb"
    return tf.train.write_graph(tf.get_default_graph(), str(tmp_path), name, as_text=as_text)


def _check_inspect_output(text, batch):
    assert "== Jaxpr ==" in text and f"f32[{batch},3]" in text
    assert "func.func" in text
    assert "HloModule" in text
    fusions = re.search(r"^fusions: (\d+)$", text, re.M)
    assert fusions and int(fusions.group(1)) >= 0
    flops = re.search(r"^flops: ([\d.e+]+)$", text, re.M)
    assert flops and float(flops.group(1)) >= _matmul_flops(batch, 3, 2)


@pytest.mark.parametrize("as_text", [True, False], ids=["pbtxt", "pb"])
def test_cli_inspect_our_graph(tmp_path, capsys, as_text):
    path = _write_our_graph(tmp_path, as_text)
    status = cli.main(["inspect", path, "--fetch", "y", "--feed-shape", "x=4,3"])
    out = capsys.readouterr().out
    assert status == 0
    _check_inspect_output(out, batch=4)
    assert "feed x:0: float32[4,3]" in out


def test_cli_inspect_graph_written_by_tensorflow(tmp_path, capsys):
    import tensorflow as real_tf

    v1 = real_tf.compat.v1
    graph = real_tf.Graph()
    with graph.as_default():
        x = v1.placeholder(real_tf.float32, [None, 3], name="x")
        w = v1.Variable(np.ones((3, 2), np.float32), name="w", use_resource=False)
        real_tf.add(real_tf.matmul(x, w), 1.0, name="y")
        v1.global_variables_initializer()
    path = v1.train.write_graph(graph, str(tmp_path), "tf_model.pbtxt", as_text=True)
    status = cli.main(["inspect", path, "--feed-shape", "x:0=3,3"])
    out = capsys.readouterr().out
    assert status == 0
    _check_inspect_output(out, batch=3)
    assert re.search(r"^  VariableV2 +1$", out, re.M)


def test_python_m_tfcompat_inspect(tmp_path):
    path = _write_our_graph(tmp_path)
    result = subprocess.run(
        [sys.executable, "-m", "tfcompat", "inspect", path, "--fetch", "y:0"],
        capture_output=True,
        text=True,
        env=dict(os.environ, JAX_PLATFORMS=os.environ.get("JAX_PLATFORMS", "cpu")),
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    _check_inspect_output(result.stdout, batch=1)


def test_cli_inspect_missing_file(tmp_path, capsys):
    path = str(tmp_path / "missing.pbtxt")
    assert cli.main(["inspect", path]) != 0
    err = capsys.readouterr().err
    assert "missing.pbtxt" in err and "No such file" in err


@pytest.mark.parametrize(
    "name, data",
    [("bad.pbtxt", b"node { name: 'x' op: "), ("bad.pb", b"\xff\xff\xff\xff not a proto")],
)
def test_cli_inspect_malformed_file(tmp_path, capsys, name, data):
    path = tmp_path / name
    path.write_bytes(data)
    assert cli.main(["inspect", str(path)]) != 0
    err = capsys.readouterr().err
    assert name in err and "Unable to parse GraphDef" in err


def test_cli_inspect_unknown_fetch(tmp_path, capsys):
    path = _write_our_graph(tmp_path)
    assert cli.main(["inspect", path, "--fetch", "no_such_op"]) != 0
    err = capsys.readouterr().err
    assert "Fetch 'no_such_op' is not in the graph" in err and "model.pbtxt" in err


def test_cli_inspect_unregistered_op(tmp_path, capsys):
    path = tmp_path / "exotic.pbtxt"
    path.write_text('node { name: "q" op: "SomeOpTfcompatLacks" }\n')
    assert cli.main(["inspect", str(path)]) != 0
    assert "SomeOpTfcompatLacks" in capsys.readouterr().err


@pytest.mark.parametrize("bad", ["x", "x=a,b", "=2,3", "x=-1"])
def test_cli_inspect_rejects_bad_feed_shape(tmp_path, bad):
    with pytest.raises(SystemExit) as exit_info:
        cli.main(["inspect", str(tmp_path / "g.pbtxt"), "--feed-shape", bad])
    assert exit_info.value.code == 2


def test_parse_feed_shape():
    assert cli.parse_feed_shape("x=2,3") == ("x", (2, 3))
    assert cli.parse_feed_shape("scope/x:0=") == ("scope/x:0", ())
