"""``tf.Module`` vs TF 2.21 in TF1 graph mode: names and name scopes, variable and submodule
discovery (order, trainability, paths), ``with_name_scope`` and name validation."""

from __future__ import annotations

import tfcompat
from tests.oracle import tf1


def _describe(tf):
    class Dense(tf.Module):
        def __init__(self, i, o, name=None):
            super().__init__(name=name)
            with self.name_scope:
                self.w = tf.Variable(tf.ones([i, o]), name="w")
                self.b = tf.Variable(tf.zeros([o]), name="b", trainable=False)

        @tf.Module.with_name_scope
        def __call__(self, x):
            return tf.nn.relu(tf.matmul(x, self.w) + self.b)

    class MLPNet(tf.Module):
        def __init__(self, name=None):
            super().__init__(name=name)
            with self.name_scope:
                self.layers = [Dense(3, 4), Dense(4, 2)]
                self.extra = {"z": Dense(2, 1, name="zz"), "a": [tf.Variable(1.0, name="s")]}
                self.shared = self.layers[0]  # reachable twice: listed once

        @tf.Module.with_name_scope
        def __call__(self, x):
            for layer in self.layers:
                x = layer(x)
            return self.extra["z"](x)

    with tf.Graph().as_default():
        net, other = MLPNet(), MLPNet(name="custom")
        y = net(tf.ones([2, 3]))
        try:
            tf.Module(name="bad name")
            error = None
        except ValueError as e:
            error = str(e)
        paths = net._flatten(predicate=lambda v: hasattr(v, "assign"), with_path=True)
        return {
            "names": (net.name, other.name, tf.Module().name, y.name),
            "variables": [v.name for v in net.variables],
            "trainable": [v.name for v in net.trainable_variables],
            "non_trainable": [v.name for v in net.non_trainable_variables],
            "submodules": [m.name for m in net.submodules],
            "paths": [(p, v.name) for p, v in paths],
            "error": error,
        }


def test_module_matches_tf():
    assert _describe(tfcompat) == _describe(tf1())
