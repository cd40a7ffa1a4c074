"""tf.layers values vs TF 2.21: outputs of every layer type (initial values from numpy via
constant initializers), batch normalization in training and inference with its moving
averages over several steps, dropout statistics and seeding, and training trajectories."""

from __future__ import annotations

import numpy as np
import pytest

import tfcompat
from tests.oracle import assert_parity, tf1

RNG = np.random.RandomState(42)
X4 = RNG.randn(2, 6, 6, 3).astype(np.float32)
X3 = RNG.randn(2, 7, 3).astype(np.float32)
X5 = RNG.randn(2, 4, 4, 4, 3).astype(np.float32)
X2 = RNG.randn(5, 3).astype(np.float32)


def _const(tf, shape, seed):
    values = np.random.RandomState(seed).uniform(-0.5, 0.5, shape).astype(np.float32)
    return tf.constant_initializer(values)


def _layers_program(build, x):
    def program(tf):
        inputs = tf.placeholder(tf.float32, [None, *x.shape[1:]])
        return build(tf, inputs), {inputs: x}

    return program


_LAYER_CASES = {
    "dense relu": (X2, lambda tf, x: tf.layers.dense(
        x, 4, tf.nn.relu, kernel_initializer=_const(tf, (3, 4), 1),
        bias_initializer=_const(tf, (4,), 2))),
    "dense no bias": (X2, lambda tf, x: tf.layers.dense(
        x, 2, use_bias=False, kernel_initializer=_const(tf, (3, 2), 1))),
    "dense rank 3": (X3, lambda tf, x: tf.layers.dense(
        x, 4, kernel_initializer=_const(tf, (3, 4), 1), bias_initializer=_const(tf, (4,), 2))),
    "flatten": (X4, lambda tf, x: tf.layers.flatten(x)),
    "flatten channels_first": (X4, lambda tf, x: tf.layers.flatten(
        x, data_format="channels_first")),
    "conv2d same": (X4, lambda tf, x: tf.layers.conv2d(
        x, 4, 3, padding="same", activation=tf.nn.relu,
        kernel_initializer=_const(tf, (3, 3, 3, 4), 1), bias_initializer=_const(tf, (4,), 2))),
    "conv2d strided": (X4, lambda tf, x: tf.layers.conv2d(
        x, 2, (3, 2), strides=(2, 1), kernel_initializer=_const(tf, (3, 2, 3, 2), 1))),
    "conv2d channels_first": (X4, lambda tf, x: tf.layers.conv2d(
        x, 2, 3, data_format="channels_first", kernel_initializer=_const(tf, (3, 3, 6, 2), 1))),
    "conv1d": (X3, lambda tf, x: tf.layers.conv1d(
        x, 2, 3, strides=2, kernel_initializer=_const(tf, (3, 3, 2), 1))),
    "conv1d causal": (X3, lambda tf, x: tf.layers.conv1d(
        x, 2, 3, padding="causal", kernel_initializer=_const(tf, (3, 3, 2), 1),
        bias_initializer=_const(tf, (2,), 3))),
    "conv3d": (X5, lambda tf, x: tf.layers.conv3d(
        x, 2, 2, padding="same", kernel_initializer=_const(tf, (2, 2, 2, 3, 2), 1))),
    "conv2d_transpose valid": (X4, lambda tf, x: tf.layers.conv2d_transpose(
        x, 2, 3, strides=2, kernel_initializer=_const(tf, (3, 3, 2, 3), 1),
        bias_initializer=_const(tf, (2,), 2))),
    "conv2d_transpose same": (X4, lambda tf, x: tf.layers.conv2d_transpose(
        x, 2, 2, strides=2, padding="same", kernel_initializer=_const(tf, (2, 2, 2, 3), 1))),
    "conv2d_transpose channels_first": (X4, lambda tf, x: tf.layers.conv2d_transpose(
        x, 2, 3, strides=2, padding="same", data_format="channels_first",
        kernel_initializer=_const(tf, (3, 3, 2, 6), 1))),
    "separable_conv2d": (X4, lambda tf, x: tf.layers.separable_conv2d(
        x, 4, 3, depth_multiplier=2, padding="same",
        depthwise_initializer=_const(tf, (3, 3, 3, 2), 1),
        pointwise_initializer=_const(tf, (1, 1, 6, 4), 2), bias_initializer=_const(tf, (4,), 3))),
    "max_pooling2d": (X4, lambda tf, x: tf.layers.max_pooling2d(x, 2, 2)),
    "average_pooling2d same": (X4, lambda tf, x: tf.layers.average_pooling2d(
        x, 3, 2, padding="same")),
    "max_pooling1d": (X3, lambda tf, x: tf.layers.max_pooling1d(x, 2, 2)),
    "average_pooling1d": (X3, lambda tf, x: tf.layers.average_pooling1d(
        x, 3, 1, padding="same")),
    "max_pooling1d channels_first": (X3, lambda tf, x: tf.layers.max_pooling1d(
        x, 2, 1, data_format="channels_first")),
    "max_pooling3d": (X5, lambda tf, x: tf.layers.max_pooling3d(x, 2, 1)),
    "average_pooling3d": (X5, lambda tf, x: tf.layers.average_pooling3d(x, 2, 2)),
    "dropout inference": (X2, lambda tf, x: tf.layers.dropout(x, 0.5, training=False)),
}  # fmt: skip


@pytest.mark.parametrize("case", sorted(_LAYER_CASES))
def test_layer_outputs_match_tf(case):
    x, build = _LAYER_CASES[case]
    assert_parity(_layers_program(build, x), rtol=1e-5, atol=1e-5)


# ---------------------------------------------------------------------------------------------
# Batch normalization: outputs and moving statistics over steps
# ---------------------------------------------------------------------------------------------
def _run_steps(tf, build, steps, backend=None):
    """Builds ``build(tf) -> (fetches, train, feed)`` and runs ``train`` ``steps`` times,
    collecting the fetches after each step."""
    graph = tf.Graph()
    with graph.as_default():
        fetches, train, feed = build(tf)
        kwargs = {"backend": backend} if tf is tfcompat and backend else {}
        with tf.Session(graph=graph, **kwargs) as sess:
            sess.run(tf.global_variables_initializer())
            history = []
            for step in range(steps):
                step_feed = feed(step) if callable(feed) else feed
                history.append(sess.run(fetches, step_feed))
                sess.run(train, step_feed)
            history.append(sess.run(fetches, step_feed))
    return history


def _assert_histories(build, steps, rtol=1e-5, atol=1e-5, backends=("xla", "reference")):
    theirs = _run_steps(tf1(), build, steps)
    for backend in backends:
        ours = _run_steps(tfcompat, build, steps, backend)
        for step, (a, b) in enumerate(zip(ours, theirs)):
            for name in b:
                np.testing.assert_allclose(
                    a[name], b[name], rtol=rtol, atol=atol,
                    err_msg=f"[{backend}] step {step}: {name}",
                )  # fmt: skip


def _batch_norm_steps(x_shape, **options):
    def build(tf):
        x = tf.placeholder(tf.float32, x_shape)
        training = tf.placeholder_with_default(True, [])
        channels = (x_shape[options.get("axis", -1)],)
        layer = tf.layers.BatchNormalization(
            momentum=0.8,
            gamma_initializer=_const(tf, channels, 5),
            beta_initializer=_const(tf, channels, 6),
            **options,
        )
        y = layer(x, training=training)
        updates = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
        fetches = {
            "y": y,
            "mean": layer.moving_mean,
            "variance": layer.moving_variance,
            "y_inference": layer.apply(x, training=False),
        }
        data = np.random.RandomState(7).randn(4, *x_shape).astype(np.float32) * 2 + 1

        def feed(step):
            return {x: data[step % 4]}

        return fetches, updates, feed

    return build


@pytest.mark.parametrize(
    "shape,options",
    [
        ((4, 3, 3, 2), {}),  # fused (FusedBatchNormV3)
        ((4, 3, 3, 2), {"fused": False}),
        ((4, 2, 3, 3), {"axis": 1}),  # fused NCHW
        ((6, 3), {}),  # composite
        ((4, 3, 3, 2), {"center": False, "scale": False, "epsilon": 0.1}),
        ((4, 2, 2, 2, 2), {}),  # fused NDHWC
        ((4, 3, 3, 2), {"virtual_batch_size": 2}),  # ghost batches of 2
        ((6, 3), {"virtual_batch_size": 3, "axis": 1}),
        ((4, 3, 3, 2), {"renorm": True, "renorm_momentum": 0.7}),  # batch renormalization
        ((6, 3), {"renorm": True, "renorm_clipping": {"rmax": 1.2, "rmin": 0.9, "dmax": 0.1}}),
    ],
    ids=[
        "fused",
        "composite4d",
        "nchw",
        "2d",
        "no-params",
        "5d",
        "ghost4d",
        "ghost2d",
        "renorm4d",
        "renorm2d-clipped",
    ],  # fmt: skip
)
def test_batch_norm_training_and_moving_averages_match_tf(shape, options):
    _assert_histories(_batch_norm_steps(shape, **options), steps=4, rtol=2e-5, atol=2e-5)


def _batch_norm_tensor_training(tf):
    x = tf.placeholder(tf.float32, [4, 2, 2, 3])
    flag = tf.placeholder(tf.bool, [])
    y = tf.layers.batch_normalization(x, training=flag, momentum=0.5)
    z = tf.layers.batch_normalization(tf.reshape(x, [8, 6]), training=flag, momentum=0.5)
    with tf.control_dependencies(tf.get_collection(tf.GraphKeys.UPDATE_OPS)):
        y_after = tf.identity(y)
    data = np.random.RandomState(3).randn(4, 2, 2, 3).astype(np.float32)
    return [y_after, z], {x: data, flag: True}


def test_batch_norm_training_tensor_matches_tf():
    assert_parity(_batch_norm_tensor_training, rtol=2e-5, atol=2e-5)


# ---------------------------------------------------------------------------------------------
# Dropout: statistics and seeding (values differ from TF's generator)
# ---------------------------------------------------------------------------------------------
def _dropout_values(seed, rate=0.3, shape=(200, 50), runs=1, noise_shape=None):
    graph = tfcompat.Graph()
    with graph.as_default():
        x = tfcompat.ones(shape)
        y = tfcompat.layers.dropout(x, rate, noise_shape=noise_shape, seed=seed, training=True)
        with tfcompat.Session() as sess:
            return [sess.run(y) for _ in range(runs)]


def test_dropout_statistics():
    (y,) = _dropout_values(seed=1, rate=0.3)
    kept = y != 0
    np.testing.assert_allclose(y[kept], 1 / 0.7, rtol=1e-6)
    # 10,000 Bernoulli(0.7) draws: the kept fraction is within 4 standard deviations.
    assert abs(kept.mean() - 0.7) < 4 * np.sqrt(0.7 * 0.3 / kept.size)


def test_dropout_noise_shape_shares_the_mask():
    (y,) = _dropout_values(seed=1, noise_shape=[200, 1])
    assert np.all((y == 0).all(axis=1) | (y != 0).all(axis=1))


def test_dropout_seeded_runs_repeat_across_sessions_and_vary_within():
    first = _dropout_values(seed=5, runs=2)
    second = _dropout_values(seed=5, runs=2)
    np.testing.assert_array_equal(first[0], second[0])
    assert not np.array_equal(first[0], first[1])
    assert not np.array_equal(first[0], _dropout_values(seed=6)[0])


def test_dropout_training_tensor_selects_mode():
    graph = tfcompat.Graph()
    with graph.as_default():
        x = tfcompat.ones([100, 10])
        flag = tfcompat.placeholder(tfcompat.bool, [])
        y = tfcompat.layers.dropout(x, 0.5, training=flag, seed=2)
        with tfcompat.Session() as sess:
            np.testing.assert_array_equal(sess.run(y, {flag: False}), np.ones([100, 10]))
            dropped = sess.run(y, {flag: True})
    assert 0.3 < (dropped == 0).mean() < 0.7


def test_dropout_layer_seed_increments_per_call():
    graph = tfcompat.Graph()
    with graph.as_default():
        layer = tfcompat.layers.Dropout(0.5, seed=3)
        a = layer(tfcompat.ones([4]), training=True)
        b = layer(tfcompat.ones([4]), training=True)
        assert a is not b
        seeds = [op.attrs["seed2"] for op in graph.get_operations() if op.type == "RandomUniform"]
    assert seeds == [3, 4]


# ---------------------------------------------------------------------------------------------
# Training trajectories: 20 steps of a dense net and of a conv net with batch norm
# ---------------------------------------------------------------------------------------------
def _dense_net(tf):
    rng = np.random.RandomState(0)
    data = rng.randn(16, 4).astype(np.float32)
    labels = rng.randint(0, 3, 16)
    x = tf.placeholder(tf.float32, [None, 4])
    h = tf.layers.dense(x, 8, tf.nn.relu, kernel_initializer=_const(tf, (4, 8), 1),
                        bias_initializer=_const(tf, (8,), 2),
                        kernel_regularizer=tf.nn.l2_loss)  # fmt: skip
    h = tf.layers.dropout(h, 0.5, training=False)
    logits = tf.layers.dense(h, 3, kernel_initializer=_const(tf, (8, 3), 3))
    loss = tf.reduce_mean(
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    ) + 0.01 * tf.add_n(tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES))
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    fetches = {"loss": loss, **{v.name: v for v in tf.trainable_variables()}}
    return fetches, train, {x: data}


def _conv_net(tf):
    rng = np.random.RandomState(1)
    data = rng.randn(8, 6, 6, 2).astype(np.float32)
    labels = rng.randint(0, 2, 8)
    x = tf.placeholder(tf.float32, [None, 6, 6, 2])
    h = tf.layers.conv2d(x, 4, 3, padding="same", kernel_initializer=_const(tf, (3, 3, 2, 4), 1))
    h = tf.layers.batch_normalization(h, training=True, momentum=0.9)
    h = tf.nn.relu(h)
    h = tf.layers.max_pooling2d(h, 2, 2)
    h = tf.layers.conv2d(h, 3, 2, kernel_initializer=_const(tf, (2, 2, 4, 3), 2))
    h = tf.layers.batch_normalization(h, training=True, fused=False)
    h = tf.layers.flatten(h)
    logits = tf.layers.dense(h, 2, kernel_initializer=_const(tf, (12, 2), 3))
    loss = tf.reduce_mean(
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    )
    with tf.control_dependencies(tf.get_collection(tf.GraphKeys.UPDATE_OPS)):
        train = tf.train.MomentumOptimizer(0.05, 0.9).minimize(loss)
    fetches = {"loss": loss, **{v.name: v for v in tf.global_variables()
                                if "Momentum" not in v.name}}  # fmt: skip
    return fetches, train, {x: data}


@pytest.mark.parametrize("build", [_dense_net, _conv_net], ids=["dense", "conv-bn"])
def test_training_trajectory_matches_tf(build):
    _assert_histories(build, steps=20, rtol=1e-4, atol=1e-4, backends=("xla",))
