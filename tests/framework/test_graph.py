"""Graph behaviour against TF 2.21 (tf.compat.v1): each program builds a graph under both
libraries; node names, inputs, devices, attrs and returned values must agree."""

import re

import numpy as np
import pytest

import tfcompat as tf
from tests.framework._judge import assert_same_build, outcome
from tests.oracle import tf1


# -- names and name scopes -------------------------------------------------------------------
def test_unique_names():
    def program(tf):
        names = ["add", "add", "Add", "add_1", "add_1", "add", "a_1", "a", "a", "a"]
        return [tf.constant(1.0, name=n).name for n in names]

    assert_same_build(program)


def test_unique_name_is_case_insensitive():
    def program(tf):
        g = tf.get_default_graph()
        names = ["Foo", "foo", "FOO_1", "foo_1", "foo"]
        return [g.unique_name(n) for n in names] + [g.unique_name("bar", mark_as_used=False)]

    assert_same_build(program)


def test_name_scopes():
    def program(tf):
        out = []
        g = tf.get_default_graph()
        with tf.name_scope("s") as s1:
            out += [s1, tf.constant(1.0).name]
            with tf.name_scope("t") as s2:
                out += [s2, tf.constant(1.0, name="c").name]
            with tf.name_scope(s1) as s3:  # re-entry by the "s/" string
                out += [s3, tf.constant(1.0, name="c").name]
            with tf.name_scope(None) as s4:  # reset to the root
                out += [s4, tf.constant(1.0, name="c").name]
            with tf.name_scope("") as s5:
                out += [s5, tf.constant(1.0, name="c").name]
        with tf.name_scope("s") as s6:
            out.append(s6)
        with tf.name_scope("s/") as s7:
            out += [s7, tf.constant(1.0, name="c").name]
        with tf.name_scope("S") as s8:
            out.append(s8)
        with tf.name_scope("x/y/") as s9:
            out += [s9, tf.constant(1.0, name="c").name]
        for _ in range(2):
            with tf.name_scope(None, "default") as s10:
                out.append(s10)
        with tf.name_scope("v", "default", []) as s11:
            out.append(s11)
        with tf.name_scope("q"), tf.name_scope("r"):
            out += [g.get_name_scope(), g.unique_name("foo"), g.unique_name("foo")]
        out.append(g.get_name_scope())
        return out

    assert_same_build(program)


BAD_NAMES = ["_bad", "-x", "a b", "a:b", "/a", "a//b", "ok.name", "x>y", "\\x", "é", "a/"]


@pytest.mark.parametrize("name", BAD_NAMES)
def test_scope_name_validation(name):
    def root(tf):
        with tf.name_scope(name) as scope:
            return scope, tf.identity(1.0).name

    def nested(tf):
        with tf.name_scope("outer"), tf.name_scope(name) as scope:
            return scope, tf.identity(1.0).name

    def wrapper(tf):
        return tf.identity(1.0, name=name).name

    for program in (root, nested, wrapper):
        assert_same_build(program)


def test_scope_name_must_be_a_string():
    def program(tf):
        with tf.name_scope(3) as scope:
            return scope

    assert_same_build(program)


# -- control dependencies --------------------------------------------------------------------
def test_control_dependencies():
    def program(tf):
        a, b, c = (tf.constant(float(i), name=n) for i, n in enumerate("abc"))
        with tf.control_dependencies([a]):
            d = tf.identity(b, name="d")
            tf.identity(a, name="e")  # a is an input: no control edge
            with tf.control_dependencies([c, a.op]):
                tf.identity(b, name="f")
                tf.identity(d, name="g")  # d was created in the block: dominated
            with tf.control_dependencies(None):
                tf.identity(b, name="h")
                with tf.control_dependencies([c]):
                    tf.identity(b, name="i")
            tf.add(b, c, name="j")
        with tf.control_dependencies([d, d, d.op]):
            tf.identity(c, name="k")
        with tf.control_dependencies([]):
            tf.identity(c, name="l")
        v = tf.Variable(1.0, name="v")
        with tf.control_dependencies([v]):
            tf.identity(c, name="m")
        with tf.control_dependencies([v.initializer]):
            tf.identity(c, name="n")
        with tf.control_dependencies(["a", "b:0"]):
            tf.identity(c, name="o")

    assert_same_build(program)


@pytest.mark.parametrize("value", [3, "missing", "a:3"])
def test_control_dependencies_errors(value):
    def program(tf):
        tf.constant(1.0, name="a")
        with tf.control_dependencies([value]):
            pass

    assert_same_build(program)


def test_control_dependency_on_other_graph():
    def program(tf):
        with tf.Graph().as_default():
            a = tf.constant(1.0)
        with tf.control_dependencies([a]):
            pass

    assert_same_build(program)


# -- devices -----------------------------------------------------------------------------------
DEVICES = [
    "/cpu:0", "/gpu:1", "/job:worker/task:1", "/device:GPU:0", "cpu:0", "/CPU:0", "/gpu:*",
    "/job:ps/replica:0/task:0/device:CPU:0", "/job:w", "GPU:2", "/device:cpu:3", "", None,
    "/task:2/device:GPU:1", "/replica:1", "/job:w/cpu:0", "/gpu", "/device:XLA_CPU:0",
    "/cpu:0/gpu:1", "/foo:bar", "/job", "/gpu:x", "/job:a/job:b", "/device:TPU_SYSTEM:0",
]  # fmt: skip


@pytest.mark.parametrize("device", DEVICES)
def test_device_strings(device):
    def program(tf):
        with tf.device(device):
            return tf.identity(tf.constant(1.0, name="c"), name="i").device

    assert_same_build(program)


NESTED = [
    ("/job:worker", "/gpu:1"), ("/job:worker/task:1", "/cpu:0"), ("/gpu:0", "/job:ps"),
    ("/gpu:0", "/cpu:0"), ("/gpu:0", None), ("/gpu:0", ""), ("/job:a/task:1", "/job:b"),
    ("/device:GPU:1", "/task:3"), ("/gpu:*", "/job:x"), ("/gpu:1", "/cpu"),
    ("/gpu:1", "/device:GPU:*"), ("/job:a/gpu:1", "/replica:2"),
]  # fmt: skip


@pytest.mark.parametrize("outer,inner", NESTED)
def test_nested_devices_merge(outer, inner):
    def program(tf):
        with tf.device(outer):
            a = tf.constant(1.0, name="a")
            with tf.device(inner):
                b = tf.constant(1.0, name="b")
            c = tf.constant(1.0, name="c")
        return a.device, b.device, c.device

    assert_same_build(program)


def test_device_functions():
    def program(tf):
        def by_type(op):
            return "/gpu:0" if op.type == "Const" else "/cpu:0"

        with tf.device(by_type):
            a = tf.constant(1.0, name="a")
            tf.identity(a, name="b")
            with tf.device("/job:w"):
                tf.constant(1.0, name="c")
        with tf.device("/job:w"), tf.device(by_type):
            tf.constant(1.0, name="d")
        with tf.device("/job:w/task:2"):
            with tf.device(lambda op: op.device + "/gpu:3"):
                tf.constant(1.0, name="e")
            with tf.device(lambda op: "/device:GPU:1"):
                tf.constant(1.0, name="f")
        with tf.device(lambda op: tf.DeviceSpec(job="z", device_type="CPU", device_index=0)):
            tf.constant(1.0, name="g")

    assert_same_build(program)


def test_device_function_returning_none():
    def program(tf):
        with tf.device(lambda op: None):
            return tf.constant(1.0).device

    assert_same_build(program)


def test_bad_device_fails_on_entering_the_scope():
    def program(tf):
        try:
            with tf.device("/foo:1"):
                pass
        except ValueError as e:
            return str(e)

    assert_same_build(program)


def test_device_spec():
    specs = ["/cpu:0", "/job:a/task:1/gpu:2", "/replica:1/job:z", "/gpu", "/device:CPU:*"]
    for text in specs:
        ours, theirs = tf.DeviceSpec.from_string(text), tf1().DeviceSpec.from_string(text)
        assert ours.to_string() == theirs.to_string()
        assert (ours.job, ours.replica, ours.task) == (theirs.job, theirs.replica, theirs.task)
        assert (ours.device_type, ours.device_index) == (theirs.device_type, theirs.device_index)
        assert repr(ours) == repr(theirs)
    for module in (tf, tf1()):
        spec = module.DeviceSpec(job="w", replica=1, task=2, device_type="gpu", device_index=3)
        assert spec.to_string() == "/job:w/replica:1/task:2/device:GPU:3"
        merged = module.DeviceSpec.from_string("/job:a/cpu:0")
        merged.merge_from(module.DeviceSpec.from_string("/task:4"))
        assert merged.to_string() == "/job:a/task:4/device:CPU:0"
        assert merged == module.DeviceSpec.from_string(merged.to_string())
        assert merged.replace(job="b").to_string() == "/job:b/task:4/device:CPU:0"


# -- colocation --------------------------------------------------------------------------------
def test_colocate_with():
    def program(tf):
        with tf.device("/job:w/gpu:1"):
            a = tf.constant(1.0, name="a")
        b = tf.constant(2.0, name="b")
        with tf.colocate_with(a):
            c = tf.identity(b, name="c")
            with tf.device("/cpu:0"):
                tf.identity(b, name="d")
            with tf.colocate_with(b):
                tf.identity(b, name="e")
            with tf.colocate_with(b, ignore_existing=True):
                tf.identity(b, name="f")
            with tf.colocate_with(None, ignore_existing=True):
                tf.identity(b, name="g")
        with tf.device("/gpu:0"), tf.colocate_with(b.op):
            tf.identity(a, name="h")
            with tf.colocate_with(c):
                tf.identity(a, name="i")
        with tf.colocate_with(c):
            tf.identity(a, name="j")
        with tf.colocate_with(3.0):  # TF turns a Python value into a constant
            tf.identity(a, name="k")

    assert_same_build(program)


def test_colocate_with_none_needs_ignore_existing():
    def program(tf):
        with tf.colocate_with(None):
            pass

    assert_same_build(program)


def test_ref_inputs_colocate_with_the_variable():
    def program(tf):
        with tf.device("/job:ps"):
            v = tf.Variable(1.0, name="v")
        with tf.device("/gpu:0"):
            a = tf.assign(v, 2.0, name="a")
            tf.assign_add(v, 1.0, name="c")
            v.assign_sub(1.0, name="d")
            tf.identity(a, name="e")
            _ = v + 1.0
            v.read_value()
        with tf.colocate_with(v):
            tf.constant(3.0, name="x")

    assert_same_build(program)


def test_container():
    def program(tf):
        with tf.container("c") as name:
            v = tf.Variable(1.0, name="v")
        w = tf.Variable(1.0, name="w")
        return name, v.op.get_attr("container"), w.op.get_attr("container")

    assert_same_build(program)


# -- collections -------------------------------------------------------------------------------
class _Named:
    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"_Named({self.name})"


def test_collections():
    def program(tf):
        g = tf.get_default_graph()
        for item in (_Named("s/a"), _Named("s/b"), _Named("t/s/c"), 3):
            tf.add_to_collection("k", item)
        out = [tf.get_collection("k", scope) for scope in (None, "s", "s/b", ".*s/", "")]
        out.append(tf.get_collection("missing"))
        tf.get_collection_ref("k").append(_Named("s/z"))  # the ref aliases the collection
        out.append(len(tf.get_collection("k")))
        tf.get_collection("k").append(1)  # get_collection returns a copy
        out.append(len(tf.get_collection("k")))
        tf.add_to_collections(["x", "y"], _Named("a"))
        tf.add_to_collections("z", _Named("b"))
        tf.add_to_collections(("x", "x"), _Named("c"))  # a name repeated adds once
        out += [tf.get_collection(k) for k in "xyz"]
        out.append(sorted(g.get_all_collection_keys()))
        g.clear_collection("x")
        out.append(sorted(g.get_all_collection_keys()))
        out.append(tf.get_collection_ref("new") is tf.get_collection_ref("new"))
        tf.add_to_collection("r", _Named("abc"))
        out += [tf.get_collection("r", re.compile("b")), tf.get_collection("r", "b")]
        return out

    assert_same_build(program)


def test_variable_collections_with_scope():
    def program(tf):
        with tf.name_scope("s"):
            tf.Variable(1.0, name="v")
        tf.Variable(1.0, name="w", trainable=False)
        names = lambda items: [x.name for x in items]  # noqa: E731
        return (
            names(tf.get_collection(tf.GraphKeys.GLOBAL_VARIABLES, "s")),
            names(tf.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES)),
            names(tf.global_variables()),
        )

    assert_same_build(program)


def test_graph_keys_values():
    ours = {k: v for k, v in vars(tf.GraphKeys).items() if k.isupper()}
    theirs = {k: getattr(tf1().GraphKeys, k) for k in ours}
    assert ours == theirs


# -- default graph, finalize -------------------------------------------------------------------
def test_default_graph_stack():
    def program(tf):
        g0, g1, g2 = tf.get_default_graph(), tf.Graph(), tf.Graph()
        out = []
        with g1.as_default():
            out.append(tf.get_default_graph() is g1)
            with g2.as_default():
                out.append(tf.get_default_graph() is g2)
                out.append(outcome(tf.reset_default_graph))
            out.append(tf.get_default_graph() is g1)
            with g1.as_default():
                out.append(tf.get_default_graph() is g1)
            out.append(tf.get_default_graph() is g1)
        out.append(tf.get_default_graph() is g0)
        return out

    assert_same_build(program)


def test_reset_default_graph_outside_blocks():
    before = tf.get_default_graph()
    tf.constant(1.0)
    tf.reset_default_graph()
    assert tf.get_default_graph() is not before
    assert tf.get_default_graph().get_operations() == []


def test_finalize():
    def program(tf):
        g = tf.get_default_graph()
        a = tf.constant(1.0, name="a")
        g.finalize()
        attempts = [
            lambda: tf.constant(2.0),
            lambda: tf.add_to_collection("x", 1),
            lambda: tf.get_collection("y"),
            lambda: tf.identity(a),
        ]
        out = [g.finalized] + [outcome(f)[0] for f in attempts]
        g._unsafe_unfinalize()
        tf.constant(3.0, name="b")
        return out + [g.finalized]

    assert_same_build(program)


# -- lookups -----------------------------------------------------------------------------------
LOOKUPS = [
    "a", "a:0", "a:1", "b/c:0", "x", "x:0", "a:x", "a:", ":0", "a:0:0", 3, None, "", "^a",
    "a:-1",
]  # fmt: skip


@pytest.mark.parametrize("key", LOOKUPS, ids=repr)
def test_lookup_by_name(key):
    def program(tf):
        g = tf.get_default_graph()
        a = tf.constant(1.0, name="a")
        tf.identity(a, name="b/c")
        name = lambda f: outcome(lambda: f(key).name)  # noqa: E731
        return [
            name(g.get_operation_by_name),
            name(g.get_tensor_by_name),
            name(g.as_graph_element),
        ]

    assert_same_build(program)


def test_as_graph_element_errors():
    def program(tf):
        g = tf.get_default_graph()
        a = tf.constant(1.0, name="a")
        return [
            outcome(lambda: g.as_graph_element(a.op, allow_operation=False)),
            outcome(lambda: g.as_graph_element(3.0)),
            outcome(lambda: tf.Graph().as_graph_element(a)),
            outcome(lambda: tf.Graph().as_graph_element(a.op)),
            outcome(lambda: g.get_operation_by_name(a.op)),
        ]

    assert_same_build(program)


def test_operations_order_and_consumers():
    def program(tf):
        a = tf.constant(1.0, name="z")
        b = tf.constant(1.0, name="a")
        tf.add(a, b, name="m")
        tf.identity(a, name="i")
        g = tf.get_default_graph()
        ops = [o.name for o in g.get_operations()]
        return ops, g.num_operations(), [o.name for o in a.consumers()], b.consumers()[0].name

    assert_same_build(program)


# -- Tensor and Operation ----------------------------------------------------------------------
def _x(tf):
    return tf.placeholder(tf.float32, [None, 3], name="x")


TENSOR_PROBES = {
    "bool": lambda tf: bool(_x(tf)),
    "iter": lambda tf: iter(_x(tf)),
    "len": lambda tf: len(_x(tf)),
    "numpy": lambda tf: np.asarray(_x(tf)),
    "repr": lambda tf: repr(_x(tf)),
    "str": lambda tf: str(_x(tf)),
    "str with device": lambda tf: (tf.device("/gpu:0").__enter__(), str(_x(tf)))[1],
    "op repr": lambda tf: repr(_x(tf).op),
    "op str": lambda tf: str(_x(tf).op),
    "== and !=": lambda tf: (lambda x: (x == x, x != x))(_x(tf)),
    "set_shape other dim": lambda tf: _x(tf).set_shape([2, 4]),
    "set_shape other rank": lambda tf: _x(tf).set_shape([2]),
    "set_shape refines": lambda tf: (lambda x: (x.set_shape([2, None]), x.shape)[1])(_x(tf)),
    "set_shape after refine": lambda tf: (lambda x: (x.set_shape([2, 3]), x.set_shape([None, 4])))(
        _x(tf)
    ),
    "set_shape unknown": lambda tf: (lambda x: (x.set_shape(None), x.shape)[1])(_x(tf)),
    "set_shape string": lambda tf: _x(tf).set_shape("a"),
    "value_index, ndim": lambda tf: (_x(tf).value_index, _x(tf).ndim),
    "op fields": lambda tf: (lambda op: (op.name, op.type, list(op.inputs), op.control_inputs))(
        _x(tf).op
    ),
    "op outputs": lambda tf: [t.name for t in _x(tf).op.outputs + list(_x(tf).op.values())],
    "node_def": lambda tf: str(_x(tf).op.node_def),
    "get_attr missing": lambda tf: _x(tf).op.get_attr("nope"),
    "colocation_groups": lambda tf: _x(tf).op.colocation_groups(),
    "shape[0]": lambda tf: repr(_x(tf).shape[0]),
}


@pytest.mark.parametrize("probe", TENSOR_PROBES, ids=str)
def test_tensor_and_operation(probe):
    assert_same_build(TENSOR_PROBES[probe])


def _serialized(value):
    """Proto values compared by bytes (our protos are distinct classes from TF's)."""
    if isinstance(value, list):
        return [_serialized(v) for v in value]
    if hasattr(value, "SerializeToString"):
        return (type(value).__name__, value.SerializeToString(deterministic=True))
    return repr(value)


GET_ATTR = {
    "type": lambda tf: _x(tf).op.get_attr("dtype"),
    "shape": lambda tf: _x(tf).op.get_attr("shape"),
    "tensor": lambda tf: tf.constant([1.0, 2.0]).op.get_attr("value"),
    "scalar tensor": lambda tf: tf.constant(7).op.get_attr("value"),
    "string": lambda tf: tf.Variable(1.0).op.get_attr("shared_name"),
    "bool": lambda tf: tf.matmul([[1.0]], [[1.0]]).op.get_attr("transpose_a"),
    "T": lambda tf: tf.matmul([[1.0]], [[1.0]]).op.get_attr("T"),
    "list(string)": lambda tf: tf.Variable(1.0, name="v").initializer.get_attr("_class"),
}


@pytest.mark.parametrize("attr", GET_ATTR, ids=str)
def test_get_attr_python_types(attr):
    assert_same_build(GET_ATTR[attr], normalize=_serialized)


def test_graph_str_is_python_default():
    for module in (tf, tf1()):
        g = module.Graph()
        assert re.fullmatch(r"<[\w.]+\.Graph object at 0x[0-9a-f]+>", str(g)), str(g)
        assert str(g) == repr(g)
    assert not tf.Graph().building_function


def test_graph_def_sorts_control_inputs_but_node_def_keeps_order():
    def program(tf):
        c, a, b = (tf.constant(1.0, name=n) for n in "cab")
        with tf.control_dependencies([c]), tf.control_dependencies([b, a]):
            x = tf.constant(2.0, name="x")
        x.op._add_control_input(tf.constant(1.0, name="first").op)
        return list(x.op.node_def.input), [op.name for op in x.op.control_inputs]

    assert_same_build(program)
