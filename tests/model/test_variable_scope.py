"""tf.variable_scope / tf.get_variable / partitioned variables vs TF 2.21: names, shapes,
collections, reuse rules and errors, op names under nested and re-entered scopes."""

from __future__ import annotations

import numpy as np
import pytest

import tfcompat
from tests.oracle import assert_parity, assert_same_graph_def, tf1

BOTH = pytest.mark.parametrize("tf", ["tf1", "tfcompat"], indirect=True)


@pytest.fixture
def tf(request):
    module = tf1() if request.param == "tf1" else tfcompat
    with module.Graph().as_default():
        yield module


def _zeros(tf):
    return tf.zeros_initializer()


# ---------------------------------------------------------------------------------------------
# Graphs of deterministic programs
# ---------------------------------------------------------------------------------------------
def _nested_and_reentered(tf):
    with tf.variable_scope("model"):
        with tf.variable_scope("block") as block:
            w = tf.get_variable("w", [2, 2], initializer=tf.ones_initializer())
            y = tf.matmul(w, w)
    with tf.name_scope("outer"):
        with tf.variable_scope(block, reuse=True):
            y2 = w + tf.get_variable("w", [2, 2])
        with tf.variable_scope(block, reuse=True):
            y3 = w + 1.0
    with tf.variable_scope("model", reuse=True):
        with tf.variable_scope("block"):
            y4 = tf.get_variable("w") * 3.0
    with tf.variable_scope(block, auxiliary_name_scope=False):
        y5 = tf.identity(w, name="same_scope")
    return [y, y2, y3, y4, y5]


def _default_names(tf):
    outs = []
    for _ in range(3):
        with tf.variable_scope(None, default_name="dense"):
            outs.append(tf.get_variable("kernel", [2], initializer=tf.ones_initializer()) * 2.0)
    with tf.variable_scope("dense_1", reuse=True):
        outs.append(tf.get_variable("kernel") + 0.5)
    with tf.variable_scope("outer"):
        with tf.variable_scope(None, default_name="dense"):
            outs.append(tf.get_variable("bias", [1], initializer=tf.zeros_initializer()))
    return outs


def _auto_reuse(tf):
    def layer(x):
        with tf.variable_scope("shared", reuse=tf.AUTO_REUSE):
            w = tf.get_variable("w", [3], initializer=tf.constant_initializer([1.0, 2.0, 3.0]))
            return x * w

    return [layer(tf.constant([1.0, 1.0, 1.0])), layer(tf.constant([2.0, 0.0, 1.0]))]


def _scope_defaults(tf):
    with tf.variable_scope("s", initializer=tf.constant_initializer(0.25), dtype=tf.float64):
        a = tf.get_variable("a", [2])
        with tf.variable_scope("inner"):
            b = tf.get_variable("b", [1, 2])
            c = tf.get_variable("c", [2], initializer=tf.ones_initializer(), dtype=tf.float32)
    return [a.value(), b.value(), c.value()]


def _value_initializers(tf):
    v = tf.get_variable("from_array", initializer=np.arange(4, dtype=np.float32))
    t = tf.get_variable("from_tensor", initializer=tf.constant([[1, 2]], tf.int64))
    s = tf.get_variable("scalar", [], initializer=tf.constant_initializer(3.0))
    return [v.value(), t.value(), s.value()]


def _under_name_scope_and_control_deps(tf):
    c = tf.constant(1.0, name="c")
    with tf.name_scope("ns"), tf.control_dependencies([c]):
        v = tf.get_variable("v", [2], initializer=tf.zeros_initializer())
        out = v + c
    return out


def _local_and_non_trainable(tf):
    lv = tf.get_local_variable("counter", [], dtype=tf.int32, initializer=tf.zeros_initializer())
    nt = tf.get_variable("stat", [2], trainable=False, initializer=tf.ones_initializer())
    custom = tf.get_variable(
        "custom",
        [1],
        collections=["my_vars", tf.GraphKeys.GLOBAL_VARIABLES],
        initializer=tf.zeros_initializer(),
    )
    return [lv.value(), nt.value(), custom.value()]


PROGRAMS = {
    "nested_and_reentered": _nested_and_reentered,
    "default_names": _default_names,
    "auto_reuse": _auto_reuse,
    "scope_defaults": _scope_defaults,
    "value_initializers": _value_initializers,
    "name_scope_and_control_deps": _under_name_scope_and_control_deps,
    "local_and_non_trainable": _local_and_non_trainable,
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_graph_def(name):
    assert_same_graph_def(PROGRAMS[name])


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_values(name):
    assert_parity(PROGRAMS[name])


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_collections(name):
    keys = ["variables", "trainable_variables", "local_variables", "my_vars"]
    seen = []
    for module in (tf1(), tfcompat):
        with module.Graph().as_default() as graph:
            PROGRAMS[name](module)
            seen.append(
                {k: [(v.name, v.shape.as_list()) for v in graph.get_collection(k)] for k in keys}
            )
    assert seen[0] == seen[1]


# ---------------------------------------------------------------------------------------------
# Scope objects and reuse rules
# ---------------------------------------------------------------------------------------------
@BOTH
def test_scope_properties(tf):
    assert tf.get_variable_scope().name == ""
    assert tf.get_variable_scope().reuse is False
    with tf.variable_scope("a") as a:
        assert (a.name, a.original_name_scope, a.reuse) == ("a", "a/", False)
        with tf.variable_scope("b", reuse=True) as b:
            assert (b.name, b.original_name_scope, b.reuse) == ("a/b", "a/b/", True)
            with tf.variable_scope("c", reuse=False) as c:
                assert c.reuse is True  # reuse is inherited; False cannot turn it off
        assert tf.get_variable_scope() is a
    with tf.variable_scope(a) as again:
        assert (again.name, again.original_name_scope) == ("a", "a/")
    with tf.variable_scope("x", reuse=tf.AUTO_REUSE) as x:
        assert x.reuse is tf.AUTO_REUSE


@BOTH
def test_reuse_variables_and_scope_methods(tf):
    with tf.variable_scope("m") as scope:
        w = tf.get_variable("w", [1], initializer=_zeros(tf))
        tf.get_variable("t", [1], trainable=False, initializer=_zeros(tf))
        scope.reuse_variables()
        assert tf.get_variable("w") is w
    assert [v.name for v in scope.global_variables()] == ["m/w:0", "m/t:0"]
    assert [v.name for v in scope.trainable_variables()] == ["m/w:0"]


@BOTH
def test_already_exists_error(tf):
    with tf.variable_scope("vs"):
        tf.get_variable("x", [1], initializer=_zeros(tf))
    with pytest.raises(
        ValueError,
        match=r"^Variable vs/x already exists, disallowed\. Did you "
        r"mean to set reuse=True or reuse=tf\.AUTO_REUSE in VarScope\?",
    ):
        with tf.variable_scope("vs"):
            tf.get_variable("x", [1])


@BOTH
def test_missing_variable_error(tf):
    with pytest.raises(ValueError) as info:
        with tf.variable_scope("vs", reuse=True):
            tf.get_variable("missing", [1])
    assert str(info.value) == (
        "Variable vs/missing does not exist, or was not created with tf.get_variable(). "
        "Did you mean to set reuse=tf.AUTO_REUSE in VarScope?"
    )


def _twice(tf, shape, shape_again, dtype_again):
    tf.get_variable("v", shape, initializer=tf.ones_initializer())
    tf.get_variable("v", shape_again, dtype=dtype_again)


@pytest.mark.parametrize(
    ("build", "pattern"),
    [
        (lambda tf: _twice(tf, [3], [4], None), "Trying to share variable v, but specified shape"),
        (lambda tf: _twice(tf, [3], [3], tf.int32), "specified dtype int32 and found dtype"),
        (lambda tf: tf.get_variable("v", [2], initializer=np.zeros(2)), "do not specify shape"),
        (lambda tf: tf.get_variable("v"), "did not get an initializer"),
        (lambda tf: tf.get_variable("v", [2], dtype=tf.complex64), "An initializer for variable"),
        (
            lambda tf: tf.get_variable("v", initializer=np.zeros(2), dtype=tf.int32),
            "Initializer type",
        ),
    ],
)
def test_get_variable_errors(build, pattern):
    for module in (tf1(), tfcompat):
        with module.Graph().as_default():
            with pytest.raises(ValueError, match=pattern):
                with module.variable_scope("", reuse=module.AUTO_REUSE):
                    build(module)


@BOTH
def test_variable_scope_argument_errors(tf):
    with pytest.raises(TypeError, match="If default_name is None then name_or_scope is required"):
        tf.variable_scope(None)
    with pytest.raises(ValueError, match="The reuse parameter must be True or False or None."):
        tf.variable_scope("a", reuse="yes")
    with pytest.raises(ValueError, match="reuse=True cannot be used without a name_or_scope"):
        with tf.variable_scope(None, default_name="d", reuse=True):
            pass
    with pytest.raises(TypeError, match="name_or_scope must be a string or VariableScope"):
        with tf.variable_scope(3):
            pass


def test_use_resource_makes_resource_variables():
    """(Graph parity of resource variables: tests/variables/test_resource_variables.py.)"""
    with tfcompat.Graph().as_default():
        assert tfcompat.get_variable("r", [1], use_resource=True).op.type == "VarHandleOp"
        with tfcompat.variable_scope("s", use_resource=True):
            assert tfcompat.get_variable("r", [1]).op.type == "VarHandleOp"
        assert tfcompat.get_variable("q", [1]).op.type == "VariableV2"


# ---------------------------------------------------------------------------------------------
# Custom getters and regularizers
# ---------------------------------------------------------------------------------------------
def _custom_getters(tf):
    calls = []

    def outer(getter, name, *args, **kwargs):
        calls.append(("outer", name))
        return getter(name, *args, **kwargs)

    def inner(getter, name, *args, **kwargs):
        calls.append(("inner", name))
        kwargs["trainable"] = False
        return getter(name + "_x", *args, **kwargs)

    with tf.variable_scope("a", custom_getter=outer):
        with tf.variable_scope("b", custom_getter=inner):
            v = tf.get_variable("v", [1], initializer=tf.zeros_initializer())
    return calls, v.name, [t.name for t in tf.trainable_variables()]


def test_custom_getters_compose_like_tf():
    results = []
    for module in (tf1(), tfcompat):
        with module.Graph().as_default():
            results.append(_custom_getters(module))
    assert results[0] == results[1]
    assert results[0][1] == "a/b/v_x:0"


def _regularized(tf):
    def l2(w):
        return tf.reduce_sum(tf.square(w)) * 0.5

    with tf.variable_scope("reg", regularizer=l2):
        w = tf.get_variable("w", [2], initializer=tf.constant_initializer([1.0, 3.0]))
        tf.get_variable("b", [1], initializer=tf.zeros_initializer(), regularizer=tf.no_regularizer)
    losses = tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)
    total = tf.add_n(losses)
    return [losses[0], total, w.value()]


def test_regularizer_values():
    assert_parity(_regularized)


def test_regularizer_graph_def():
    assert_same_graph_def(_regularized)


def test_regularization_loss_collection():
    names = []
    for module in (tf1(), tfcompat):
        with module.Graph().as_default():
            _regularized(module)
            names.append(
                [t.name for t in module.get_collection(module.GraphKeys.REGULARIZATION_LOSSES)]
            )
    assert names[0] == names[1] == ["reg/w/Regularizer/mul:0"]


# ---------------------------------------------------------------------------------------------
# Partitioned variables
# ---------------------------------------------------------------------------------------------
def _partitioned(tf):
    init = tf.constant(np.arange(30.0, dtype=np.float32).reshape(10, 3))  # sliced per shard
    with tf.variable_scope("emb", partitioner=tf.fixed_size_partitioner(3)):
        table = tf.get_variable("table", initializer=init)
    with tf.variable_scope("emb", reuse=True, partitioner=tf.fixed_size_partitioner(3)):
        again = tf.get_variable("table", [10, 3])
    assert again is table
    cols = tf.get_variable(
        "cols",
        [2, 8],
        initializer=tf.ones_initializer(),
        partitioner=tf.fixed_size_partitioner(4, axis=1),
    )
    whole = tf.get_variable(
        "whole",
        initializer=tf.constant(np.arange(6.0).reshape(6, 1)),
        partitioner=tf.fixed_size_partitioner(2),
    )
    return [tf.convert_to_tensor(table), table.as_tensor(), tf.convert_to_tensor(cols),
            tf.convert_to_tensor(whole)] + [v.value() for v in table]  # fmt: skip


def test_partitioned_values():
    assert_parity(_partitioned)


def test_partitioned_graph_def():
    assert_same_graph_def(_partitioned)


@BOTH
def test_partitioned_variable_structure(tf):
    with tf.variable_scope("emb"):
        table = tf.get_variable(
            "table", [10, 3], partitioner=tf.fixed_size_partitioner(4), initializer=_zeros(tf)
        )
    shards = list(table)
    assert [v.name for v in shards] == [f"emb/table/part_{i}:0" for i in range(4)]
    assert [v.shape.as_list() for v in shards] == [[3, 3], [3, 3], [2, 3], [2, 3]]
    assert table._get_variable_list() == shards
    assert (table.name, table.shape.as_list(), len(table)) == ("emb/table", [10, 3], 4)
    assert table._get_partitions() == [4, 1]
    info = shards[2]._save_slice_info
    assert (info.full_name, info.full_shape, info.var_offset, info.var_shape) == (
        "emb/table",
        [10, 3],
        [6, 0],
        [2, 3],
    )
    assert info.spec == "10 3 6,2:0,3"
    assert [v.name for v in tf.global_variables()] == [v.name for v in shards]


@pytest.mark.parametrize(
    ("partitioner", "shape", "dtype"),
    [
        (lambda tf: tf.fixed_size_partitioner(5), [3, 4], "float32"),
        (lambda tf: tf.fixed_size_partitioner(2, axis=1), [3, 4], "float32"),
        (lambda tf: tf.min_max_variable_partitioner(4, min_slice_size=64), [100, 8], "float32"),
        (lambda tf: tf.min_max_variable_partitioner(8, axis=1), [10, 8], "float64"),
        (lambda tf: tf.variable_axis_size_partitioner(100), [50, 3], "float32"),
        (lambda tf: tf.variable_axis_size_partitioner(64, max_shards=3), [50, 3], "int64"),
        (lambda tf: tf.variable_axis_size_partitioner(40, axis=1), [2, 30], "string"),
    ],
)
def test_partitioners_like_tf(partitioner, shape, dtype):
    results = []
    for module in (tf1(), tfcompat):
        fn = partitioner(module)
        results.append(fn(shape=module.TensorShape(shape), dtype=module.as_dtype(dtype)))
    assert results[0] == results[1]


@pytest.mark.parametrize(
    ("first", "second", "pattern"),
    [
        (None, 2, "A partitioner was provided, but an unpartitioned version"),
        (2, None, "No partitioner was provided, but a partitioned version"),
        (2, 2, "Partitioned variable with name p already exists"),
    ],
)
def test_partitioned_errors(first, second, pattern):
    for module in (tf1(), tfcompat):
        with module.Graph().as_default():

            def make(n, module=module):
                part = None if n is None else module.fixed_size_partitioner(n)
                return module.get_variable(
                    "p", [4, 2], initializer=module.zeros_initializer(), partitioner=part
                )

            make(first)
            with pytest.raises(ValueError, match=pattern):
                make(second)


@BOTH
def test_partitioned_assign(tf):
    table = tf.get_variable("t", [4, 2], partitioner=tf.fixed_size_partitioner(2),
                            initializer=_zeros(tf))  # fmt: skip
    assigns = table.assign(np.arange(8.0).reshape(4, 2).astype(np.float32))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(assigns)
        np.testing.assert_array_equal(
            sess.run(tf.convert_to_tensor(table)), np.arange(8.0).reshape(4, 2)
        )


def test_create_partitioned_variables_like_tf():
    names = []
    for module in (tf1(), tfcompat):
        with module.Graph().as_default():
            parts = module.create_partitioned_variables([6, 2], [3, 1], module.zeros_initializer())
            names.append([(v.name, v.shape.as_list()) for v in parts])
    assert names[0] == names[1]
