"""tf.layers vs TF 2.21's tf.compat.v1.layers: GraphDefs (layer, variable and op names,
attrs, inputs), variable collections, Layer properties, scoping and reuse, input checks."""

from __future__ import annotations

import numpy as np
import pytest

import tfcompat
from tests.oracle import assert_same_graph_def, tf1


def _nothing(build):
    """A program that only builds (its GraphDef is compared) and fetches nothing."""

    def program(tf):
        build(tf)
        return []

    return program


def _dense_stack(tf):
    x = tf.placeholder(tf.float32, [None, 3])
    y = tf.layers.dense(x, 4, activation=tf.nn.relu, kernel_regularizer=tf.nn.l2_loss)
    y = tf.layers.dense(y, 2, use_bias=False, bias_regularizer=tf.nn.l2_loss)
    y = tf.layers.dropout(y, 0.3, training=True)
    tf.layers.flatten(y)


def _dense_shapes(tf):
    tf.layers.dense(tf.placeholder(tf.float32, [None, 5, 3]), 4)  # dynamic Tensordot
    tf.layers.dense(tf.placeholder(tf.float32, [2, 5, 3]), 4)  # static Tensordot
    tf.layers.dense(tf.placeholder(tf.float64, [None, 3]), 2, name="fc")
    tf.layers.dense(tf.placeholder(tf.float64, [None, 3]), 2, name="fc", reuse=True)
    layer = tf.layers.Dense(2, dtype=tf.float64)
    layer(tf.placeholder(tf.float32, [None, 3]))  # inputs cast to the layer's dtype
    layer(tf.placeholder(tf.float64, [None, 3]))  # second call: ops under dense_1/, _1


def _dropouts(tf):
    x = tf.placeholder(tf.float32, [None, 3])
    t = tf.placeholder(tf.bool, [])
    y = tf.layers.dropout(x, 0.3, training=t, seed=3)  # tf.cond
    y = tf.layers.dropout(y, 0.3, noise_shape=[1, 3], training=True)
    y = tf.layers.dropout(y, 0.3, noise_shape=[None, 3], training=True)
    tf.layers.dropout(y, 0.3)  # training=False: Identity
    tf.layers.dropout(y, 0.0, training=True)
    tf.nn.dropout(x, keep_prob=0.5)
    tf.nn.dropout(x, rate=0.25, seed=2)
    tf.nn.dropout(x, rate=tf.constant(0.25), noise_shape=[1, 3])


def _flattens(tf):
    tf.layers.flatten(tf.placeholder(tf.float32, [None, 5, 3]))
    tf.layers.flatten(tf.placeholder(tf.float32, [None, None, 3]))
    tf.layers.flatten(tf.placeholder(tf.float32, [2, None, 3]))
    tf.layers.flatten(tf.placeholder(tf.float32, [4]))
    tf.layers.flatten(tf.placeholder(tf.float32, [None, 3, 2, 2]), data_format="channels_first")


def _convolutions(tf):
    x = tf.placeholder(tf.float32, [None, 8, 8, 3])
    y = tf.layers.conv2d(x, 4, 3, padding="same", activation=tf.nn.relu)
    y = tf.layers.conv2d(y, 4, (3, 2), strides=(2, 1), use_bias=False)
    y = tf.layers.conv2d_transpose(y, 2, 3, strides=2)
    y = tf.layers.conv2d_transpose(y, 2, 2, strides=2, padding="same")
    tf.layers.separable_conv2d(y, 5, 3, depth_multiplier=2, padding="same")
    x1 = tf.placeholder(tf.float32, [None, 8, 3])
    z = tf.layers.conv1d(x1, 2, 3, strides=2)
    tf.layers.conv1d(z, 2, 2, padding="causal")
    tf.layers.conv1d(tf.placeholder(tf.float32, [None, 3, 8]), 2, 2, data_format="channels_first")
    tf.layers.conv3d(tf.placeholder(tf.float32, [None, 4, 4, 4, 3]), 2, 2, padding="same")
    xc = tf.placeholder(tf.float32, [None, 3, 8, 8])
    tf.layers.conv2d(xc, 4, 3, data_format="channels_first")
    tf.layers.separable_conv2d(xc, 2, 3, data_format="channels_first")


def _poolings(tf):
    x = tf.placeholder(tf.float32, [None, 8, 8, 3])
    tf.layers.max_pooling2d(x, 2, 2)
    tf.layers.average_pooling2d(x, 3, 1, padding="same")
    tf.layers.max_pooling2d(tf.placeholder(tf.float32, [None, 3, 8, 8]), 2, 2,
                            data_format="channels_first")  # fmt: skip
    x1 = tf.placeholder(tf.float32, [None, 8, 3])
    tf.layers.max_pooling1d(x1, 2, 2)
    tf.layers.average_pooling1d(x1, 3, 2, padding="same")
    x3 = tf.placeholder(tf.float32, [None, 4, 4, 4, 3])
    tf.layers.max_pooling3d(x3, 2, 1)
    tf.layers.average_pooling3d(x3, 2, 2, padding="same")
    tf.layers.average_pooling3d(tf.placeholder(tf.float32, [None, 3, 4, 4, 4]), 2, 2,
                                data_format="channels_first")  # fmt: skip


def _batch_norms(tf):
    x = tf.placeholder(tf.float32, [None, 4, 4, 3])
    t = tf.placeholder(tf.bool, [])
    tf.layers.batch_normalization(x, training=True)
    tf.layers.batch_normalization(x, training=False)
    tf.layers.batch_normalization(x, training=t)
    tf.layers.batch_normalization(x, training=True, fused=False, center=False)
    tf.layers.batch_normalization(x, training=t, fused=False, scale=False)
    tf.layers.batch_normalization(
        tf.placeholder(tf.float32, [None, 3]), training=True, momentum=0.9
    )
    tf.layers.batch_normalization(tf.placeholder(tf.float32, [None, 3]), training=False)
    tf.layers.batch_normalization(tf.placeholder(tf.float32, [None, 3]), training=t)
    tf.layers.batch_normalization(x, axis=1, training=True)
    tf.layers.batch_normalization(x, axis=2, training=True)  # not fusable: composite
    tf.layers.batch_normalization(x, axis=[1, 3], training=True)
    tf.layers.batch_normalization(x, training=True, center=False, scale=False, epsilon=0.01)
    tf.layers.batch_normalization(tf.placeholder(tf.float32, [None, 2, 2, 2, 3]), training=True)
    tf.layers.batch_normalization(x, training=True, gamma_regularizer=tf.nn.l2_loss, name="bn")
    tf.layers.batch_normalization(x, training=True, name="bn", reuse=True)
    tf.layers.batch_normalization(tf.ones([4, 4, 4, 3]), training=True, virtual_batch_size=2)
    tf.layers.batch_normalization(tf.ones([6, 3]), training=t, virtual_batch_size=3)
    tf.layers.batch_normalization(x, training=True, renorm=True)
    tf.layers.batch_normalization(
        x, training=t, renorm=True, renorm_clipping={"rmax": 2.0, "rmin": 0.5, "dmax": 1.0}
    )
    tf.layers.batch_normalization(tf.ones([4, 3]), training=t, renorm=True, scale=False)


def _layer_objects(tf):
    x = tf.placeholder(tf.float32, [None, 3])
    layer = tf.layers.Dense(2, name="shared")
    layer(x)
    layer(x)
    with tf.variable_scope("outer"):
        tf.layers.Dense(2)(x)
        tf.layers.Dense(2)(x)
        with tf.variable_scope("inner", reuse=tf.AUTO_REUSE):
            tf.layers.dense(x, 2, name="auto")
            tf.layers.dense(x, 2, name="auto")
    with tf.name_scope("ns"):
        tf.layers.dense(x, 2)
    tf.layers.Dense(2, trainable=False)(x)
    tf.layers.Dense(2, kernel_initializer=tf.zeros_initializer())(x)


@pytest.mark.parametrize(
    "build",
    [
        _dense_stack,
        _dense_shapes,
        _dropouts,
        _flattens,
        _convolutions,
        _poolings,
        _batch_norms,
        _layer_objects,
    ],  # fmt: skip
    ids=lambda f: f.__name__.strip("_"),
)
def test_graph_def_matches_tf(build):
    assert_same_graph_def(_nothing(build))


def _collections(tf, build):
    graph = tf.Graph()
    with graph.as_default():
        build(tf)
        keys = ("variables", "trainable_variables", "update_ops", "regularization_losses")
        return {
            key: [
                (getattr(v, "name", None), getattr(v, "shape", None) and v.shape.as_list())
                for v in graph.get_collection(key)
            ]
            for key in keys
        }


@pytest.mark.parametrize(
    "build", [_dense_stack, _dense_shapes, _convolutions, _batch_norms, _layer_objects],
    ids=lambda f: f.__name__.strip("_"),
)  # fmt: skip
def test_collections_match_tf(build):
    ours = _collections(tfcompat, build)
    theirs = _collections(tf1(), build)
    assert ours == theirs


def _properties(tf):
    """A summary of Layer properties over a few layers' lifetimes."""
    out = {}
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [None, 3])
        dense = tf.layers.Dense(4, kernel_regularizer=tf.nn.l2_loss)
        out["before"] = (dense.name, dense.dtype, dense.built)
        with pytest.raises(ValueError) as info:
            dense.scope_name  # noqa: B018
        out["scope_name error"] = str(info.value)
        y = dense(x)
        out["after"] = (dense.name, dense.scope_name, dense.dtype, dense.built, y.name)
        out["weights"] = [v.name for v in dense.weights]
        out["trainable"] = [v.name for v in dense.trainable_weights]
        out["variables"] = [v.name for v in dense.variables]
        out["losses"] = [t.name for t in dense.losses]
        out["second call"] = dense(x).name
        other = tf.layers.Dense(4)
        other(x)
        out["other"] = (other.name, other.scope_name)
        frozen = tf.layers.Dense(3, trainable=False)
        frozen(x)
        out["frozen"] = (
            [v.name for v in frozen.trainable_weights],
            [v.name for v in frozen.non_trainable_weights],
        )
        dense.trainable = False
        out["untrained"] = ([v.name for v in dense.trainable_weights], len(dense.weights))
        bn = tf.layers.BatchNormalization()
        bn(tf.placeholder(tf.float32, [None, 2, 2, 3]), training=True)
        out["bn"] = (
            bn.name,
            [v.name for v in bn.trainable_weights],
            [v.name for v in bn.non_trainable_weights],
            [u.name for u in bn.updates],
        )
        frozen_bn = tf.layers.BatchNormalization(trainable=False)
        frozen_bn(tf.placeholder(tf.float32, [None, 3]), training=True)
        out["frozen bn"] = (frozen_bn.updates, [v.name for v in frozen_bn.weights])
        out["update_ops"] = [u.name for u in graph.get_collection("update_ops")]
        with tf.variable_scope("outer"):
            fc = tf.layers.Dense(2, name="fc")
            out["fc"] = (fc(x).name, fc.scope_name, fc.name)
        out["dtype64"] = tf.layers.Dense(3, dtype=tf.float64).dtype
        conv = tf.layers.Conv2D(2, 3)
        out["conv"] = (conv.name, conv.kernel_size, conv.strides, conv.padding, conv.data_format)
        pool = tf.layers.MaxPooling1D(2, 1)
        out["pool"] = (pool.name, pool.pool_size, pool.strides)
    return out


def test_layer_properties_match_tf():
    assert _properties(tfcompat) == _properties(tf1())


def _error(tf, build):
    graph = tf.Graph()
    with graph.as_default():
        try:
            build(tf)
        except Exception as e:  # noqa: BLE001 - the error is what is compared
            return type(e).__name__, str(e)
    return None


_ERROR_CASES = {
    "wrong last dim": lambda tf: (
        tf.layers.Dense(3)(tf.placeholder(tf.float32, [None, 5])) or tf.layers.Dense(3)
    ),
    "min_ndim": lambda tf: tf.layers.dense(tf.placeholder(tf.float32, [None]), 3),
    "undefined last dim": lambda tf: tf.layers.dense(tf.placeholder(tf.float32, [None, None]), 3),
    "int dense": lambda tf: tf.layers.dense(tf.placeholder(tf.int32, [None, 3]), 3),
    "pool ndim": lambda tf: tf.layers.max_pooling2d(tf.placeholder(tf.float32, [2, 3, 4]), 2, 2),
    "conv channel": lambda tf: tf.layers.conv2d(
        tf.placeholder(tf.float32, [None, 4, 4, None]), 2, 3
    ),
    "conv too small": lambda tf: tf.layers.conv2d(tf.placeholder(tf.float32, [1, 2, 2, 1]), 2, 3),
    "kernel_size": lambda tf: tf.layers.Conv2D(2, (3, 3, 3)),
    "padding": lambda tf: tf.layers.Conv2D(2, 3, padding="full"),
    "causal 2d": lambda tf: tf.layers.Conv2D(2, 3, padding="causal"),
    "dropout rate": lambda tf: tf.layers.Dropout(1.5),
    "nn.dropout rate": lambda tf: tf.nn.dropout(tf.ones([2]), rate=1.0),
    "nn.dropout int": lambda tf: tf.nn.dropout(tf.ones([2], tf.int32), rate=0.5),
    "bn axis": lambda tf: tf.layers.batch_normalization(tf.ones([2, 3]), axis=2),
    "bn axis type": lambda tf: tf.layers.BatchNormalization(axis="x"),
    "bn undefined axis": lambda tf: tf.layers.batch_normalization(
        tf.placeholder(tf.float32, [None, None])
    ),
    "bn ghost axis 0": lambda tf: tf.layers.batch_normalization(
        tf.ones([4, 3]), axis=0, virtual_batch_size=2
    ),
    "bn ghost size": lambda tf: tf.layers.batch_normalization(
        tf.ones([4, 3]), virtual_batch_size=-1
    ),
    "bn renorm clipping": lambda tf: tf.layers.BatchNormalization(
        renorm=True, renorm_clipping={"rmax": 2.0, "bad": 1.0}
    ),
    "reuse missing": lambda tf: tf.layers.dense(tf.ones([2, 3]), 2, name="nope", reuse=True),
    "kwarg": lambda tf: tf.layers.Dense(2, bogus=1),
}


@pytest.mark.parametrize("case", sorted(_ERROR_CASES))
def test_errors_match_tf(case):
    theirs = _error(tf1(), _ERROR_CASES[case])
    ours = _error(tfcompat, _ERROR_CASES[case])
    assert theirs is not None
    assert ours is not None
    assert ours[0] == theirs[0]
    # TF's messages name its own source line, or (shape functions) print attrs.
    if case not in ("reuse missing", "conv too small"):
        assert ours[1] == theirs[1]


def test_unsupported_options_raise():
    with pytest.raises(NotImplementedError):
        tfcompat.layers.BatchNormalization(adjustment=lambda shape: (1.0, 0.0))


def test_layer_reuse_shares_variables():
    graph = tfcompat.Graph()
    with graph.as_default():
        x = tfcompat.placeholder(tfcompat.float32, [None, 3])
        a = tfcompat.layers.dense(x, 2, name="fc")
        b = tfcompat.layers.dense(x, 2, name="fc", reuse=True)
        assert len(tfcompat.global_variables()) == 2
        with tfcompat.Session() as sess:
            sess.run(tfcompat.global_variables_initializer())
            feed = {x: np.arange(6, dtype=np.float32).reshape(2, 3)}
            va, vb = sess.run([a, b], feed)
    np.testing.assert_array_equal(va, vb)
