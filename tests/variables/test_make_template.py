"""tf.make_template against TF 2.21: variables created once and shared, the names of
variables and ops across calls, create_scope_now_/unique_name_, bound kwargs, the
template's variable properties, and TF's errors."""

import numpy as np
import pytest

import tfcompat
from tests.oracle import assert_parity, assert_same_graph_def, tf1

X = np.arange(6, dtype=np.float32).reshape(2, 3)


def _dense(tf, x, units, scale=1.0):
    w = tf.get_variable("w", [3, units], initializer=tf.constant_initializer(0.5))
    b = tf.get_variable("b", [units], initializer=tf.constant_initializer(0.25))
    return tf.nn.relu(tf.matmul(x, w) + b) * scale


def _templated(tf, **template_kwargs):
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    layer = tf.make_template("layer", _dense, units=4, **template_kwargs)
    first, second = layer(tf, x), layer(tf, x * 2.0, scale=3.0)
    other = tf.make_template("layer", _dense, units=2)(tf, x)  # a second template: layer_1
    loss = tf.reduce_sum(first) + tf.reduce_sum(second) + tf.reduce_sum(other)
    grads = tf.gradients(loss, tf.trainable_variables())
    return [first, second, other, grads], {x: X}


@pytest.mark.parametrize(
    "kwargs",
    [{}, {"create_scope_now_": True}, {"unique_name_": "shared"}],
    ids=["at_first_call", "create_scope_now", "unique_name"],
)
def test_values_gradients_and_graph_def_match_tf(kwargs):
    assert_parity(lambda tf: _templated(tf, **kwargs))
    assert_same_graph_def(lambda tf: _templated(tf, **kwargs))


@pytest.mark.parametrize("tf", [tfcompat, "tf"], ids=["tfcompat", "tf"])
def test_variables_and_properties(tf):
    tf = tf1() if tf == "tf" else tf
    with tf.Graph().as_default():
        with tf.variable_scope("outer"):
            template = tf.make_template("layer", _dense, units=4)
        assert template.variable_scope is None and template.trainable_variables == []
        x = tf.placeholder(tf.float32, [None, 3])
        with tf.variable_scope("tower"):
            template(tf, x)
        template(tf, x)
        names = sorted(v.op.name for v in tf.global_variables())
        assert names == ["tower/layer/b", "tower/layer/w"]
        assert template.variable_scope_name == "tower/layer/"
        assert template.name == "layer"
        assert sorted(v.op.name for v in template.trainable_variables) == names
        assert sorted(v.op.name for v in template.variables) == names
        assert template.local_variables == [] and template.non_trainable_variables == []


def _creates_a_variable(tf, x):
    return x * tf.Variable(1.0, name="v")


@pytest.mark.parametrize("tf", [tfcompat, "tf"], ids=["tfcompat", "tf"])
def test_new_trainable_variable_on_second_call_raises(tf):
    tf = tf1() if tf == "tf" else tf
    with tf.Graph().as_default():
        template = tf.make_template("bad", _creates_a_variable, tf=tf)
        x = tf.constant(1.0)
        template(x=x)
        with pytest.raises(ValueError, match="Trainable variable created when calling a template"
                                             ) as info:  # fmt: skip
            template(x=x)
        assert "originally defined at:" in str(info.value)


@pytest.mark.parametrize("tf", [tfcompat, "tf"], ids=["tfcompat", "tf"])
def test_reusing_a_unique_name_without_reuse_raises(tf):
    tf = tf1() if tf == "tf" else tf
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 3])
        tf.make_template("a", _dense, unique_name_="same", units=2)(tf, x)
        with pytest.raises(ValueError, match="same/w already exists"):
            tf.make_template("b", _dense, unique_name_="same", units=2)(tf, x)


def test_name_is_required():
    with pytest.raises(ValueError, match="name cannot be None"):
        tfcompat.make_template(None, _dense)
