"""TF1 initializers vs TF 2.21: values of the deterministic ones (and their graphs, through
``get_variable``), statistics of the random ones, TF's argument errors."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

import tfcompat
from tests.oracle import assert_parity, assert_same_graph_def, tf1

DETERMINISTIC = {
    "zeros": lambda tf: tf.zeros_initializer()([2, 3]),
    "zeros_int": lambda tf: tf.initializers.zeros()([4], dtype=tf.int32),
    "ones": lambda tf: tf.ones_initializer(dtype=tf.float64)([3]),
    "ones_ns": lambda tf: tf.initializers.ones()([2, 2], tf.int64),
    "constant_scalar": lambda tf: tf.constant_initializer(2.5)([2, 3]),
    "constant_array": lambda tf: tf.constant_initializer(np.arange(6.0).reshape(2, 3))([2, 3]),
    "constant_list_fills": lambda tf: tf.constant_initializer([1, 2, 3, 4, 5, 6])([3, 2]),
    "constant_int": lambda tf: tf.initializers.constant(7, dtype=tf.int32)([2]),
    "constant_verify": lambda tf: tf.constant_initializer([[1, 2]], verify_shape=True)([1, 2]),
    "identity": lambda tf: tf.initializers.identity()([3, 3]),
    "identity_gain": lambda tf: tf.initializers.identity(gain=0.5)([4, 4], tf.float64),
}


@pytest.mark.parametrize("name", sorted(DETERMINISTIC))
def test_deterministic_initializer_values(name):
    assert_parity(DETERMINISTIC[name])


def test_rectangular_identity_values():
    assert_parity(lambda tf: tf.initializers.identity(gain=2.0)([2, 3]))


@pytest.mark.parametrize("name", sorted(set(DETERMINISTIC) - {"zeros_int", "constant_int"}))
def test_get_variable_graph_with_initializer(name):
    """The initializer's ops under ``v/Initializer`` with the variable's colocation."""

    def program(tf):
        init = {
            "zeros": tf.zeros_initializer(),
            "ones": tf.ones_initializer(),
            "ones_ns": tf.initializers.ones(),
            "constant_scalar": tf.constant_initializer(2.5),
            "constant_array": tf.constant_initializer(np.arange(6.0).reshape(2, 3)),
            "constant_list_fills": tf.constant_initializer([1, 2, 3, 4, 5, 6]),
            "constant_verify": tf.constant_initializer(np.ones((2, 3)), verify_shape=True),
            "identity": tf.initializers.identity(),
            "identity_gain": tf.initializers.identity(gain=0.5),
        }[name]
        with tf.variable_scope("layer"):
            v = tf.get_variable("v", [2, 3] if "identity" not in name else [3, 3], initializer=init)
        return v.value()

    assert_same_graph_def(program)
    assert_parity(program)


def test_constant_verify_shape_error():
    for tf in (tf1(), tfcompat):
        with tf.Graph().as_default():
            with pytest.raises(TypeError):
                tf.constant_initializer([1.0, 2.0], verify_shape=True)([3])


def test_constant_rejects_other_types():
    for tf in (tf1(), tfcompat):
        with pytest.raises(TypeError, match="Invalid type for initial value"):
            tf.constant_initializer({"a": 1})


# ---------------------------------------------------------------------------------------------
# Random initializers: graphs (seeds included) and statistics
# ---------------------------------------------------------------------------------------------
RANDOM = {
    "random_uniform": lambda tf: tf.random_uniform_initializer(-0.5, 0.5, seed=1),
    "random_uniform_ns": lambda tf: tf.initializers.random_uniform(),
    "random_normal": lambda tf: tf.random_normal_initializer(0.0, 0.1),
    "truncated_normal": lambda tf: tf.truncated_normal_initializer(stddev=0.02, seed=3),
    "glorot_uniform": lambda tf: tf.glorot_uniform_initializer(),
    "glorot_normal": lambda tf: tf.initializers.glorot_normal(seed=2),
    "he_normal": lambda tf: tf.initializers.he_normal(),
    "he_uniform": lambda tf: tf.initializers.he_uniform(),
    "lecun_normal": lambda tf: tf.initializers.lecun_normal(),
    "lecun_uniform": lambda tf: tf.initializers.lecun_uniform(seed=4),
    "variance_scaling": lambda tf: tf.variance_scaling_initializer(2.0, "fan_out", "uniform"),
    "uniform_unit_scaling": lambda tf: tf.uniform_unit_scaling_initializer(1.5),
    "orthogonal": lambda tf: tf.orthogonal_initializer(gain=2.0),
}


@pytest.mark.parametrize("graph_seed", [None, 9])
@pytest.mark.parametrize("name", sorted(RANDOM))
def test_random_initializer_graph(name, graph_seed):
    def program(tf):
        if graph_seed is not None:
            tf.set_random_seed(graph_seed)
        with tf.variable_scope("dense"):
            kernel = tf.get_variable("kernel", [4, 6], initializer=RANDOM[name](tf))
        return kernel.value()

    assert_same_graph_def(program)


def test_default_initializer_is_glorot_uniform():
    def program(tf):
        tf.set_random_seed(1)
        return [
            tf.get_variable("w", [3, 5]).value(),
            tf.get_variable("n", [2], dtype=tf.int32).value(),
            tf.get_variable("flag", [2], dtype=tf.bool).value(),
        ]

    assert_same_graph_def(program)


def _values(init, shape, backend="xla"):
    with tfcompat.Graph().as_default():
        tfcompat.set_random_seed(17)
        value = init(shape)
        with tfcompat.Session(backend=backend) as sess:
            return sess.run(value)


def _fans(shape):
    """TF's fans of a convolution kernel ``[h, w, in, out]``: the receptive field counts."""
    receptive = int(np.prod(shape[:-2]))
    return shape[-2] * receptive, shape[-1] * receptive


@pytest.mark.parametrize("backend", ["xla", "reference"])
@pytest.mark.parametrize("mode", ["fan_in", "fan_out", "fan_avg"])
@pytest.mark.parametrize(
    "distribution", ["normal", "truncated_normal", "untruncated_normal", "uniform"]
)
def test_variance_scaling_statistics(mode, distribution, backend):
    shape = (5, 5, 16, 40)
    fan_in, fan_out = _fans(shape)
    n = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2}[mode]
    scale = 1.7
    values = _values(
        tfcompat.variance_scaling_initializer(scale, mode, distribution), shape, backend
    ).ravel()
    variance = scale / n
    if distribution == "uniform":
        limit = math.sqrt(3 * variance)
        assert np.abs(values).max() <= limit
        assert stats.kstest(values, stats.uniform(-limit, 2 * limit).cdf).pvalue > 1e-4
    elif distribution == "untruncated_normal":
        assert stats.kstest(values, stats.norm(0, math.sqrt(variance)).cdf).pvalue > 1e-4
    else:
        sigma = math.sqrt(variance) / 0.87962566103423978
        assert np.abs(values).max() <= 2 * sigma * (1 + 1e-6)
        assert stats.kstest(values, stats.truncnorm(-2, 2, 0, sigma).cdf).pvalue > 1e-4
    assert abs(values.var() / variance - 1) < 0.05


@pytest.mark.parametrize(
    ("factory", "scale", "mode", "uniform"),
    [
        ("glorot_uniform", 1.0, "fan_avg", True),
        ("glorot_normal", 1.0, "fan_avg", False),
        ("he_normal", 2.0, "fan_in", False),
        ("he_uniform", 2.0, "fan_in", True),
        ("lecun_normal", 1.0, "fan_in", False),
        ("lecun_uniform", 1.0, "fan_in", True),
    ],
)
def test_named_variance_scaling_initializers(factory, scale, mode, uniform):
    shape = (200, 300)
    init = getattr(tfcompat.initializers, factory)()
    values = _values(init, shape).ravel()
    n = {"fan_in": 200, "fan_avg": 250}[mode]
    assert abs(values.var() / (scale / n) - 1) < 0.05
    if uniform:
        assert np.abs(values).max() <= math.sqrt(3 * scale / n)


@pytest.mark.parametrize("backend", ["xla", "reference"])
@pytest.mark.parametrize("shape", [(6, 6), (4, 9), (9, 4), (3, 2, 5)])
def test_orthogonal(shape, backend):
    values = _values(tfcompat.orthogonal_initializer(gain=1.5), shape, backend)
    assert values.shape == shape
    flat = values.reshape(-1, shape[-1]) / 1.5
    gram = flat.T @ flat if flat.shape[0] >= flat.shape[1] else flat @ flat.T
    np.testing.assert_allclose(gram, np.eye(gram.shape[0]), atol=1e-5)


def test_truncated_and_uniform_initializer_statistics():
    trunc = _values(tfcompat.truncated_normal_initializer(1.0, 0.5), (40000,))
    assert trunc.min() >= 0.0 and trunc.max() <= 2.0
    assert stats.kstest(trunc, stats.truncnorm(-2, 2, 1.0, 0.5).cdf).pvalue > 1e-4
    uniform = _values(tfcompat.random_uniform_initializer(-3, 1), (40000,))
    assert stats.kstest(uniform, stats.uniform(-3, 4).cdf).pvalue > 1e-4


def test_partition_info_uses_full_shape():
    """Scaling initializers see the full variable's shape through ``partition_info``."""
    info = tfcompat.ops.partitioned_variables.PartitionInfo([400, 10], [200, 0])
    values = _values(
        lambda shape: tfcompat.initializers.he_uniform()(shape, partition_info=info), [200, 10]
    )
    assert np.abs(values).max() <= math.sqrt(3 * 2.0 / 400)
    assert np.abs(values).max() > math.sqrt(3 * 2.0 / 400) * 0.9


@pytest.mark.parametrize(
    "build",
    [
        lambda tf: tf.variance_scaling_initializer(scale=0.0),
        lambda tf: tf.variance_scaling_initializer(mode="fan_sum"),
        lambda tf: tf.variance_scaling_initializer(distribution="cauchy"),
        lambda tf: tf.random_normal_initializer(dtype=tf.int32),
        lambda tf: tf.orthogonal_initializer()([3]),
        lambda tf: tf.initializers.identity()([2, 2, 2]),
    ],
)
def test_argument_errors_like_tf(build):
    for tf in (tf1(), tfcompat):
        with tf.Graph().as_default():
            with pytest.raises(ValueError):
                build(tf)


def test_get_config_round_trip():
    init = tfcompat.variance_scaling_initializer(2.0, "fan_avg", "uniform", seed=3)
    clone = tfcompat.initializers.variance_scaling.from_config(init.get_config())
    assert (
        clone.get_config()
        == init.get_config()
        == tf1().variance_scaling_initializer(2.0, "fan_avg", "uniform", seed=3).get_config()
    )


@pytest.mark.parametrize("full_matrices", [False, True])
@pytest.mark.parametrize("shape", [(4, 3), (3, 5), (2, 5, 3)])
def test_qr_matches_tf(shape, full_matrices):
    """``Qr``, which the orthogonal initializer uses: values and static shapes."""
    x = np.random.default_rng(0).normal(size=shape).astype(np.float32)
    assert_parity(lambda tf: list(tf.qr(x, full_matrices=full_matrices)), rtol=1e-4, atol=1e-5)
