"""GraphDefs with v1 control flow (tf.cond / tf.while_loop as Switch, Merge, Enter, Exit,
NextIteration, LoopCond) written by TF 2.21 run here after ``import_graph_def``: the
contexts are recovered from the dataflow (``tfcompat/ops/control_flow_import.py``). Each
program is built by TF in graph mode with v1 control flow, serialized, imported into
tfcompat and run with the same feeds (several runs in a row, state carried); values must
match TF's. The same programs built by tfcompat, exported and re-imported, run too; and
tfcompat's GraphDefs run in TF with the values they have here."""

import numpy as np
import pytest

import tfcompat
from tests.oracle import assert_values_close, tf1

RNG = np.random.RandomState(7)
X3 = RNG.randn(3).astype(np.float32)
SEQ = RNG.randn(5, 2, 3).astype(np.float32)  # [time, batch, features]
W33 = RNG.randn(3, 3).astype(np.float32) * 0.5


# ---------------------------------------------------------------------------------------------
# Harness
# ---------------------------------------------------------------------------------------------
def _build(module, program):
    """Builds ``program`` with ``module`` in a fresh graph: (graph, fetch names, runs)."""
    graph = module.Graph()
    with graph.as_default():
        fetches, runs = program(module)
        if module.global_variables():
            module.global_variables_initializer()  # the "init" op
    names = [f.name for f in fetches]
    runs = [{k.name if hasattr(k, "name") else k: v for k, v in feed.items()} for feed in runs]
    return graph, names, runs


def _run(module, graph, names, runs, backend=None, prefix=""):
    kwargs = {"backend": backend} if backend else {}
    out = []
    with module.Session(graph=graph, **kwargs) as sess:
        if any(op.name == prefix + "init" for op in graph.get_operations()):
            sess.run(prefix + "init")
        for feed in runs:
            feed = {prefix + k: v for k, v in feed.items()}
            out.append(sess.run([prefix + n for n in names], feed))
    return out


def _import(graph_def_bytes, name):
    graph = tfcompat.Graph()
    with graph.as_default():
        tfcompat.import_graph_def(tfcompat.GraphDef.FromString(graph_def_bytes), name=name)
    return graph


def _tf_v1():
    tf = tf1()
    tf.disable_control_flow_v2()
    return tf


def assert_imported_runs(program, rtol=1e-5, atol=1e-6, name="", backends=("xla", "reference")):
    """TF's GraphDef of ``program`` runs here (on ``backends``) as it runs in TF."""
    tf = _tf_v1()
    graph, names, runs = _build(tf, program)
    merges = [op for op in graph.get_operations() if op.type in ("Merge", "RefMerge")]
    assert merges, "no v1 control flow"
    theirs = _run(tf, graph, names, runs)
    graph_def = graph.as_graph_def().SerializeToString()
    prefix = name + "/" if name else ""
    for backend in backends:
        ours = _run(tfcompat, _import(graph_def, name), names, runs, backend, prefix)
        assert_values_close(ours, theirs, rtol, atol, f"[{backend}]")
    return theirs


def assert_round_trip_runs(program, rtol=1e-5, atol=1e-6):
    """tfcompat's own GraphDef of ``program``, re-imported here, runs as TF runs it."""
    graph, names, runs = _build(tfcompat, program)
    graph_def = graph.as_graph_def().SerializeToString()
    theirs = _run(_tf_v1(), *_build(_tf_v1(), program))
    ours = _run(tfcompat, _import(graph_def, ""), names, runs)
    assert_values_close(ours, theirs, rtol, atol)


def assert_runs_in_tf(program, rtol=1e-5, atol=1e-6):
    """tfcompat's own GraphDef of ``program``, imported into TF 2.21, runs there as it runs
    here: its ops in loops and conds follow TF's rules (pivots, stack pops guarded by a
    Switch, ordering of pushes and pops across iterations), else TF's executor rejects
    the frames or computes other values."""
    graph, names, runs = _build(tfcompat, program)
    graph_def = graph.as_graph_def().SerializeToString()
    ours = _run(tfcompat, graph, names, runs)
    tf = _tf_v1()
    theirs = tf.Graph()
    with theirs.as_default():
        tf.import_graph_def(tf.GraphDef.FromString(graph_def), name="")
    assert_values_close(_run(tf, theirs, names, runs), ours, rtol, atol)


# ---------------------------------------------------------------------------------------------
# Programs: (fetches, [feed dict per run])
# ---------------------------------------------------------------------------------------------
def cond_simple(tf):
    x = tf.placeholder(tf.float32, [3], name="x")
    y = tf.cond(tf.reduce_sum(x) > 0, lambda: tf.tanh(x) * 2.0, lambda: x - 1.0)
    return [y], [{x: X3}, {x: -np.abs(X3)}]


def cond_multiple_outputs(tf):
    """Branches return several values, one of them a value from outside the cond."""
    x = tf.placeholder(tf.float32, [3], name="x")
    p = tf.placeholder(tf.bool, [], name="p")
    a, b, c = tf.cond(p, lambda: (x * 2.0, tf.reduce_sum(x), x), lambda: (x + 1.0, 3.0, -x))
    return [a, b, c], [{x: X3, p: True}, {x: X3, p: False}]


def cond_nested(tf):
    x = tf.placeholder(tf.float32, [], name="x")
    p = tf.placeholder(tf.bool, [], name="p")
    q = tf.placeholder(tf.bool, [], name="q")

    def true_fn():
        return tf.cond(q, lambda: x * 3.0, lambda: tf.cond(x > 0, lambda: x, lambda: -x))

    def false_fn():
        return tf.cond(q, lambda: x + 10.0, lambda: tf.square(x))

    y = tf.cond(p, true_fn, false_fn)
    runs = [{x: v, p: pv, q: qv} for v in (1.5, -2.0) for pv in (True, False) for qv in (0, 1)]
    return [y], [{k: bool(v) if k is not x else v for k, v in r.items()} for r in runs]


def case_of_three(tf):
    x = tf.placeholder(tf.int32, [], name="x")
    y = tf.case(
        [(tf.equal(x, 1), lambda: tf.constant(10)), (tf.equal(x, 2), lambda: x * 7)],
        default=lambda: x - 1,
    )
    return [y], [{x: 1}, {x: 2}, {x: 5}]


def cond_assigns_variable(tf):
    """A branch writes a variable; runs in a row see each other's writes."""
    p = tf.placeholder(tf.bool, [], name="p")
    v = tf.Variable(1.0, name="v")
    y = tf.cond(p, lambda: tf.assign_add(v, 2.5), lambda: tf.assign(v, v * 3.0))
    with tf.control_dependencies([y]):
        read = tf.identity(v)
    return [y, read], [{p: True}, {p: False}, {p: True}]


def while_fixed(tf):
    x = tf.placeholder(tf.float32, [3], name="x")
    i, acc = tf.while_loop(lambda i, a: i < 4, lambda i, a: (i + 1, a * 0.5 + x), [0, x])
    return [i, acc], [{x: X3}]


def while_fed_trip_count(tf):
    x = tf.placeholder(tf.float32, [3], name="x")
    n = tf.placeholder(tf.int32, [], name="n")
    i, acc = tf.while_loop(lambda i, a: i < n, lambda i, a: (i + 1, tf.sin(a) + x), [0, x])
    return [i, acc], [{x: X3, n: k} for k in (0, 1, 6)]


def while_nested(tf):
    n = tf.placeholder(tf.int32, [], name="n")

    def outer(i, total):
        def inner(j, t):
            return j + 1, t + tf.cast(i * j, tf.float32)

        _, t = tf.while_loop(lambda j, t: j < i, inner, [0, total])
        return i + 1, t

    _, total = tf.while_loop(lambda i, t: i < n, outer, [0, 0.0])
    return [total], [{n: k} for k in (0, 3, 5)]


def while_maximum_iterations(tf):
    x = tf.placeholder(tf.float32, [], name="x")
    m = tf.placeholder(tf.int32, [], name="m")
    y = tf.while_loop(lambda v: v < 100.0, lambda v: v * 2.0, [x], maximum_iterations=m)
    z = tf.while_loop(lambda v: v < 100.0, lambda v: v + 1.0, [x], maximum_iterations=3)
    return [y, z], [{x: 1.0, m: 3}, {x: 1.0, m: 20}, {x: 150.0, m: 2}]


def while_with_cond_in_body(tf):
    n = tf.placeholder(tf.int32, [], name="n")

    def body(i, a):
        a = tf.cond(tf.equal(i % 2, 0), lambda: a + tf.cast(i, tf.float32), lambda: a * 1.5)
        return i + 1, a

    return [tf.while_loop(lambda i, a: i < n, body, [0, 1.0])[1]], [{n: 0}, {n: 5}]


def while_tensor_array(tf):
    """A dynamic_rnn-style loop: read step t of a TensorArray, write the new state."""
    seq = tf.placeholder(tf.float32, [5, 2, 3], name="seq")
    w = tf.constant(W33)
    inputs = tf.TensorArray(tf.float32, size=5).unstack(seq)
    outputs = tf.TensorArray(tf.float32, size=5)

    def body(t, h, out):
        h = tf.tanh(tf.matmul(h, w) + inputs.read(t))
        return t + 1, h, out.write(t, h)

    _, h, out = tf.while_loop(lambda t, h, o: t < 5, body, [0, tf.zeros([2, 3]), outputs])
    return [h, out.stack()], [{seq: SEQ}]


def dynamic_rnn(tf):
    seq = tf.placeholder(tf.float32, [2, 5, 3], name="seq")
    lengths = tf.placeholder(tf.int32, [2], name="lengths")
    with tf.variable_scope("rnn", initializer=tf.constant_initializer(0.1)):
        cell = tf.nn.rnn_cell.BasicRNNCell(4)
        outputs, state = tf.nn.dynamic_rnn(cell, seq, sequence_length=lengths, dtype=tf.float32)
    grad = tf.gradients(tf.reduce_sum(outputs), seq)[0]
    feed = {seq: SEQ.transpose(1, 0, 2), lengths: np.array([5, 3], np.int32)}
    return [outputs, state, grad], [feed]


def gradients_through_while(tf):
    x = tf.placeholder(tf.float32, [3], name="x")
    n = tf.placeholder(tf.int32, [], name="n")
    _, y = tf.while_loop(lambda i, a: i < n, lambda i, a: (i + 1, tf.tanh(a) * x), [0, x])
    return [y, tf.gradients(tf.reduce_sum(y), x)[0]], [{x: X3, n: k} for k in (0, 1, 4)]


def gradients_through_cond(tf):
    x = tf.placeholder(tf.float32, [3], name="x")
    p = tf.placeholder(tf.bool, [], name="p")
    y = tf.cond(p, lambda: tf.tanh(x) * x, lambda: tf.square(x))
    return [y, tf.gradients(tf.reduce_sum(y), x)[0]], [{x: X3, p: True}, {x: X3, p: False}]


def training_through_while(tf):
    """GradientDescent steps on a loss TF differentiates through a while loop (with a
    cond in its body)."""
    x = tf.placeholder(tf.float32, [3], name="x")
    w = tf.Variable(np.array([0.5, -0.3, 0.8], np.float32), name="w")
    b = tf.Variable(0.1, name="b")

    def body(i, h):
        h = tf.tanh(h * w + b)
        h = tf.cond(i < 2, lambda: h + x, lambda: h * 0.5)
        return i + 1, h

    _, h = tf.while_loop(lambda i, h: i < 4, body, [0, x])
    loss = tf.reduce_sum(tf.square(h - 1.0))
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    with tf.control_dependencies([train]):
        updated = [tf.identity(w), tf.identity(b)]
    return [loss] + updated, [{x: X3}] * 3


def same_pred_twice(tf):
    """Three conds on one predicate, the later ones reading the first one's result, and
    their gradient conds (on the same predicate again): five regions."""
    x = tf.placeholder(tf.float32, [], name="x")
    p = tf.placeholder(tf.bool, [], name="p")
    y = tf.cond(p, lambda: x * 2.0, lambda: x + 1.0)
    z = tf.cond(p, lambda: y * 3.0, lambda: tf.cond(p, lambda: y, lambda: y - 5.0))
    g = tf.gradients(z, x)[0]
    return [y, z, g], [{x: 1.5, p: True}, {x: 1.5, p: False}]


def nested_while_grad(tf):
    x = tf.placeholder(tf.float32, [], name="x")
    n = tf.placeholder(tf.int32, [], name="n")

    def inner(i, y):
        return tf.while_loop(lambda j, z: j < i, lambda j, z: (j + 1, z * x + 1.0), [0, y])[1]

    _, y = tf.while_loop(lambda i, y: i < n, lambda i, y: (i + 1, inner(i, y)), [0, x])
    return [y, tf.gradients(y, x)[0]], [{x: 0.7, n: k} for k in (0, 1, 3)]


def nested_cond_grad(tf):
    x = tf.placeholder(tf.float32, [3], name="x")
    p = tf.placeholder(tf.bool, [], name="p")
    q = tf.placeholder(tf.bool, [], name="q")
    y = tf.cond(p, lambda: tf.cond(q, lambda: tf.sin(x) * x, lambda: x * x * x), lambda: tf.exp(x))
    runs = [{x: X3, p: a, q: b} for a in (True, False) for b in (True, False)]
    return [y, tf.gradients(tf.reduce_sum(y), x)[0]], runs


def while_in_cond_grad(tf):
    x = tf.placeholder(tf.float32, [], name="x")
    p = tf.placeholder(tf.bool, [], name="p")
    n = tf.placeholder(tf.int32, [], name="n")

    def t():
        return tf.while_loop(lambda i, a: i < n, lambda i, a: (i + 1, a * x), [0, x])[1]

    y = tf.cond(p, t, lambda: x * 2.0)
    return [y, tf.gradients(y, x)[0]], [{x: 1.1, p: a, n: 3} for a in (True, False)]


def cond_in_nested_while_grad(tf):
    x = tf.placeholder(tf.float32, [], name="x")

    def inner(i, y):
        def b(j, z):
            return j + 1, tf.cond(j < i, lambda: z * x, lambda: z + x)

        return tf.while_loop(lambda j, z: j < 3, b, [0, y])[1]

    _, y = tf.while_loop(lambda i, y: i < 3, lambda i, y: (i + 1, inner(i, y)), [0, x])
    return [y, tf.gradients(y, x)[0]], [{x: 0.9}]


def cond_in_while_unknown_shape_grad(tf):
    """The zeros standing in for the untaken branch's gradient, shaped at run time."""
    x = tf.placeholder(tf.float32, [None], name="x")

    def body(i, a):
        a = tf.cond(tf.equal(i % 2, 0), lambda: tf.sin(a) * x, lambda: a * 1.5)
        return i + 1, a

    y = tf.while_loop(lambda i, a: i < 5, body, [0, x])[1]
    return [y, tf.gradients(tf.reduce_sum(y), x)[0]], [{x: X3}, {x: X3[:2]}]


def rnn_training(tf):
    """dynamic_rnn of an LSTM cell trained by GradientDescent (TensorArrays, stacks)."""
    seq = tf.placeholder(tf.float32, [2, 5, 3], name="seq")
    with tf.variable_scope("rnn", initializer=tf.constant_initializer(0.1)):
        cell = tf.nn.rnn_cell.BasicLSTMCell(4)
        outputs, state = tf.nn.dynamic_rnn(cell, seq, dtype=tf.float32)
    loss = tf.reduce_sum(tf.square(outputs))
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    with tf.control_dependencies([train]):
        after = [tf.identity(v) for v in tf.trainable_variables()]
    return [loss] + after, [{seq: SEQ.transpose(1, 0, 2)}] * 3


def nested_cond_training(tf):
    """GradientDescent steps through nested conds (minimize gates the gradients: tf.tuple
    of each gradient cond's Switch outputs)."""
    x = tf.placeholder(tf.float32, [3], name="x")
    p = tf.placeholder(tf.bool, [], name="p")
    q = tf.placeholder(tf.bool, [], name="q")
    w = tf.Variable(np.array([0.5, -0.3, 0.8], np.float32), name="w")
    v = tf.identity(w)  # one read per step (a ref read in a branch may see the update)
    y = tf.cond(p, lambda: tf.cond(q, lambda: tf.tanh(x * v) * x, lambda: v * v), lambda: v + x)
    loss = tf.reduce_sum(y * y)
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    with tf.control_dependencies([train]):
        updated = tf.identity(w)
    runs = [{x: X3, p: a, q: b} for a in (True, False) for b in (True, False)]
    return [loss, updated], runs


def nested_while_training(tf):
    """GradientDescent steps through a loop nested in a loop (inner trip count varies)."""
    x = tf.placeholder(tf.float32, [3], name="x")
    w = tf.Variable(np.array([0.9, -0.4, 0.6], np.float32), name="w")
    v = tf.identity(w)

    def inner(i, h):
        return tf.while_loop(lambda j, z: j < i, lambda j, z: (j + 1, tf.sin(z * v) + x), [0, h])[1]

    _, h = tf.while_loop(lambda i, h: i < 3, lambda i, h: (i + 1, inner(i, h)), [0, x])
    loss = tf.reduce_sum(tf.square(h))
    train = tf.train.GradientDescentOptimizer(0.05).minimize(loss)
    with tf.control_dependencies([train]):
        updated = tf.identity(w)
    return [loss, updated], [{x: X3}] * 3


def no_backprop_parallel(tf):
    x = tf.placeholder(tf.float32, [3], name="x")
    y = tf.while_loop(
        lambda a: tf.reduce_sum(a) < 50.0,
        lambda a: a * 2.0 + 1.0,
        [x],
        parallel_iterations=1,
        back_prop=False,
    )
    return [y], [{x: np.abs(X3)}]


PROGRAMS = [
    cond_simple,
    cond_multiple_outputs,
    cond_nested,
    case_of_three,
    cond_assigns_variable,
    while_fixed,
    while_fed_trip_count,
    while_nested,
    while_maximum_iterations,
    while_with_cond_in_body,
    while_tensor_array,
    gradients_through_while,
    gradients_through_cond,
    training_through_while,
    same_pred_twice,
    nested_while_grad,
    nested_cond_grad,
    while_in_cond_grad,
    cond_in_nested_while_grad,
    cond_in_while_unknown_shape_grad,
    no_backprop_parallel,
]

# Gradients and optimizer steps through every kind of nesting, and the LSTM dynamic_rnn.
TRAINING = [nested_cond_training, nested_while_training, rnn_training]


# Known gaps of the importer (control_flow_import), for GraphDefs written by TF and by us.
def _known_gaps(programs, gaps):
    return [pytest.param(p, marks=gaps[p]) if p in gaps else p for p in programs]


@pytest.mark.parametrize(
    "program",
    _known_gaps(
        PROGRAMS + TRAINING[:2],
        {},
    ),
    ids=lambda p: p.__name__,
)
def test_graph_def_written_by_tf_runs(program):
    assert_imported_runs(program)


def test_sync_of_pushes_in_both_branches_on_reference():
    """A loop's ``f_sync`` ControlTrigger, ordered after stack pushes made in both branches
    of a cond in the body, runs in the loop (it joins the branches as a Merge does); TF's
    GraphDef of it runs on the reference backend (XLA: see _ZEROS_OF_POPPED_SHAPE)."""
    assert_imported_runs(cond_in_while_unknown_shape_grad, backends=("reference",))


def test_imported_under_a_prefix():
    assert_imported_runs(while_with_cond_in_body, name="import")
    assert_imported_runs(training_through_while, name="net")


def test_two_imports_in_one_graph_with_input_map():
    """The same loop-with-gradients GraphDef imported twice (its frames, stacks and regions
    kept apart), once with its placeholder mapped to a tensor of the graph."""
    tf = _tf_v1()
    graph, names, _ = _build(tf, gradients_through_while)
    theirs = _run(tf, graph, names, [{"x:0": X3 * 2.0, "n:0": 3}])[0]
    graph_def = graph.as_graph_def()
    with tfcompat.Graph().as_default():
        doubled = tfcompat.constant(X3) * 2.0
        tfcompat.import_graph_def(graph_def, name="a")
        tfcompat.import_graph_def(graph_def, name="b", input_map={"x:0": doubled})
        with tfcompat.Session() as sess:
            fetches = [p + n for p in ("a/", "b/") for n in names]
            ours = sess.run(fetches, {"a/x:0": X3 * 2.0, "a/n:0": 3, "b/n:0": 3})
    assert_values_close(ours, theirs + theirs, 1e-5, 1e-6)


@pytest.mark.parametrize("program", [dynamic_rnn, rnn_training], ids=lambda p: p.__name__)
def test_dynamic_rnn(program):
    assert_imported_runs(program)


@pytest.mark.parametrize(
    "program",
    PROGRAMS + TRAINING,
    ids=lambda p: p.__name__,
)
def test_graph_def_written_here_runs_after_reimport(program):
    assert_round_trip_runs(program)


@pytest.mark.parametrize("program", PROGRAMS + TRAINING + [dynamic_rnn], ids=lambda p: p.__name__)
def test_graph_def_written_here_runs_in_tf(program):
    assert_runs_in_tf(program)


def test_loop_values_are_unshaped_as_in_tf_import():
    """A GraphDef does not record a loop variable's shape: TF's import leaves the Enter and
    Merge of a loop variable unshaped, and so does ours (a stale shape would be wrong for a
    loop variable whose shape changes)."""
    tf = _tf_v1()
    graph, _, _ = _build(tf, while_fed_trip_count)
    graph_def = graph.as_graph_def()
    theirs = tf.Graph()
    with theirs.as_default():
        tf.import_graph_def(graph_def, name="")
    ours = _import(graph_def.SerializeToString(), "")
    for name in ("while/Enter_1", "while/Merge_1", "while/Identity_1", "while/add_1/Enter"):
        a = theirs.get_operation_by_name(name).outputs[0].shape
        b = ours.get_operation_by_name(name).outputs[0].shape
        assert str(b) == str(a), f"{name}: {b} vs TF {a}"


MERGE_OF_LIVE_VALUES = """
node { name: "a" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
  attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 1 } } } }
node { name: "b" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
  attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 2 } } } }
node { name: "m" op: "Merge" input: "a" input: "b"
  attr { key: "T" value { type: DT_FLOAT } } attr { key: "N" value { i: 2 } } }
"""


def test_dataflow_that_is_not_a_cond_raises_unimplemented():
    """A Merge of two live values is valid dataflow but no tf.cond: running it raises,
    naming why no cond was recovered."""
    from google.protobuf import text_format

    graph_def = tfcompat.GraphDef()
    text_format.Parse(MERGE_OF_LIVE_VALUES, graph_def)
    with tfcompat.Graph().as_default():
        tfcompat.import_graph_def(graph_def, name="")
        with tfcompat.Session() as sess:
            with pytest.raises(tfcompat.errors.UnimplementedError, match="not cond branches"):
                sess.run("m:0")
