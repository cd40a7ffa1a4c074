"""Variable creation builds TF 2.21's GraphDef node for node (names, inputs, attrs,
colocation), whether initialised from a value or a callable, and so do the initializers
and assign ops."""

import numpy as np
import pytest

from tests.framework._judge import assert_same_build
from tests.oracle import assert_same_graph_def


def _from_value(tf):
    v = tf.Variable(np.arange(6, dtype=np.float32).reshape(2, 3), name="v")
    return v.value()


def _from_python_value(tf):
    return tf.Variable(3, name="counter").value()


def _from_callable(tf):
    v = tf.Variable(lambda: tf.constant([1.0, 2.0]), name="v")
    return v.value()


def _from_callable_with_dtype(tf):
    return tf.Variable(lambda: [1, 2], dtype=tf.float32, name="v").value()


def _in_scopes(tf):
    with tf.name_scope("layer"), tf.device("/cpu:0"):
        v = tf.Variable(1.0, name="v")
        w = tf.Variable(lambda: tf.constant(2.0), name="w")
    return v + w


def _default_names(tf):
    a = tf.Variable(1.0)
    b = tf.Variable(2.0)
    c = tf.Variable(lambda: 3.0)
    return a + b + c


def _not_trainable_and_collections(tf):
    v = tf.Variable(1.0, name="v", trainable=False)
    w = tf.Variable(1.0, name="w", collections=[tf.GraphKeys.LOCAL_VARIABLES])
    return v + w


def _initializers(tf):
    tf.Variable(1.0, name="a")
    tf.Variable([1.0, 2.0], name="b")
    init = tf.global_variables_initializer()
    return init


def _variables_initializer(tf):
    a = tf.Variable(1.0, name="a")
    tf.Variable(1.0, name="b")
    return tf.variables_initializer([a], name="only_a")


def _empty_initializer(tf):
    return tf.variables_initializer([])


def _assigns(tf):
    v = tf.Variable([1.0, 2.0], name="v")
    a = tf.assign(v, [3.0, 4.0])
    b = tf.assign_add(v, [1.0, 1.0], name="inc")
    c = tf.assign_sub(v, [1.0, 1.0], use_locking=True)
    d = v.assign([5.0, 6.0])
    e = v.assign_add([1.0, 1.0], read_value=False)
    f = v.assign_sub([1.0, 1.0], name="dec")
    g = tf.assign(v, [1.0], validate_shape=False, name="reshape")
    return [a, b, c, d, f, g, e]


PROGRAMS = [
    _from_value,
    _from_python_value,
    _from_callable,
    _from_callable_with_dtype,
    _in_scopes,
    _default_names,
    _not_trainable_and_collections,
    _variables_initializer,
    _empty_initializer,
]


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.__name__.strip("_"))
def test_variable_graph_def_parity(program):
    assert_same_graph_def(program)


@pytest.mark.parametrize("program", [_initializers, _assigns], ids=["init", "assigns"])
def test_graph_def_parity_without_running(program):
    # Built only (running `_assigns` fetches ops); devices and every attr compared.
    assert_same_build(program, normalize=lambda result: None)
