"""FusedBatchNorm ops and tf.nn.fused_batch_norm / batch_normalization vs TF 2.21: values
in training and inference (running averages, Bessel's correction, data formats), static
shapes and construction errors, first and second derivatives (TF parity, and the
registered gradients against jax.vjp of the lowering)."""

from __future__ import annotations

import numpy as np
import pytest

import tfcompat
from lowering.gradcheck import check_gradients
from tests.oracle import assert_parity, tf1

RNG = np.random.RandomState(0)
SCALE = np.array([1.0, 2.0, 0.5], np.float32)
OFFSET = np.array([0.0, 1.0, -1.0], np.float32)
MEAN = np.array([0.5, 0.1, -0.2], np.float32)
VARIANCE = np.array([2.0, 3.0, 0.5], np.float32)

# data format -> input shape (3 channels)
_FORMATS = {"NHWC": (2, 3, 4, 3), "NCHW": (2, 3, 4, 5), "NDHWC": (2, 2, 3, 2, 3),
            "NCDHW": (2, 3, 2, 2, 3)}  # fmt: skip


def _x(data_format):
    return RNG.randn(*_FORMATS[data_format]).astype(np.float32) * 1.5 + 0.3


@pytest.mark.parametrize("data_format", sorted(_FORMATS))
@pytest.mark.parametrize("factor", [1.0, 0.3])
def test_training_outputs_match_tf(data_format, factor):
    x = _x(data_format)

    def program(tf):
        xp = tf.placeholder(tf.float32, x.shape)
        outs = tf.nn.fused_batch_norm(
            xp, SCALE, OFFSET, mean=MEAN, variance=VARIANCE, epsilon=0.01,
            data_format=data_format, exponential_avg_factor=factor,
        )  # fmt: skip
        return list(outs), {xp: x}

    assert_parity(program, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("data_format", sorted(_FORMATS))
def test_inference_output_matches_tf(data_format):
    # Only y: TF's graph optimizer rewrites inference batch norm into elementwise ops and
    # cannot fetch the statistics outputs then.
    x = _x(data_format)

    def program(tf):
        xp = tf.placeholder(tf.float32, x.shape)
        y = tf.nn.fused_batch_norm(
            xp, SCALE, OFFSET, mean=MEAN, variance=VARIANCE, is_training=False,
            data_format=data_format,
        )[0]  # fmt: skip
        return y, {xp: x}

    assert_parity(program, rtol=1e-5, atol=1e-5)


def test_inference_statistics_outputs_repeat_the_inputs():
    graph = tfcompat.Graph()
    with graph.as_default():
        op = tfcompat.nn.fused_batch_norm(
            _x("NHWC"), SCALE, OFFSET, mean=MEAN, variance=VARIANCE, is_training=False
        )[0].op
        for backend in ("xla", "reference"):
            with tfcompat.Session(backend=backend) as sess:
                _, mean, var, saved_mean, saved_var, reserve = sess.run(list(op.outputs))
            for got, want in ((mean, MEAN), (var, VARIANCE), (saved_mean, MEAN),
                              (saved_var, VARIANCE)):  # fmt: skip
                np.testing.assert_array_equal(got, want)
            assert reserve.shape == (0,)


def test_batch_normalization_composite_matches_tf():
    x = _x("NHWC")

    def program(tf):
        xp = tf.placeholder(tf.float32, x.shape)
        return [
            tf.nn.batch_normalization(xp, MEAN, VARIANCE, OFFSET, SCALE, 0.001),
            tf.nn.batch_normalization(xp, MEAN, VARIANCE, None, None, 0.1, name="bn"),
            tf.nn.batch_normalization(xp, 0.5, 2.0, 0.1, 3.0, 0.001),
        ], {xp: x}

    assert_parity(program, rtol=1e-5, atol=1e-5)


def test_static_shapes_match_tf():
    def program(tf):
        x = tf.placeholder(tf.float32, [None, 4, None, 3])
        y = tf.nn.fused_batch_norm(x, tf.placeholder(tf.float32, [None]), OFFSET)
        z = tf.nn.fused_batch_norm(tf.placeholder(tf.float32), SCALE, OFFSET)
        shapes = [t.shape.as_list() if t.shape.rank is not None else None for t in y + z]
        ops = [y[0].op, z[0].op]
        shapes += [t.shape.as_list() if t.shape.rank is not None else None
                   for op in ops for t in op.outputs[3:]]  # fmt: skip
        return tf.constant(str(shapes))

    assert_parity(program, backends=("xla",))


_ERRORS = {
    "rank": lambda tf: tf.nn.fused_batch_norm(tf.ones([2, 3]), SCALE, OFFSET),
    "channels": lambda tf: tf.nn.fused_batch_norm(tf.ones([1, 2, 2, 4]), SCALE, OFFSET),
    "mean rank": lambda tf: tf.nn.fused_batch_norm(
        tf.ones([1, 2, 2, 3]),
        SCALE,
        OFFSET,
        mean=[[1.0]],
        variance=VARIANCE,
        is_training=False,
    ),  # fmt: skip
    "missing mean": lambda tf: tf.nn.fused_batch_norm(
        tf.ones([1, 2, 2, 3]), SCALE, OFFSET, is_training=False
    ),
    "dtype": lambda tf: tf.nn.fused_batch_norm(
        tf.ones([1, 2, 2, 3], tf.float64), SCALE.astype(np.float64), OFFSET.astype(np.float64)
    ),
}


@pytest.mark.parametrize("case", sorted(_ERRORS))
def test_construction_errors_match_tf(case):
    def error(tf):
        with tf.Graph().as_default():
            try:
                _ERRORS[case](tf)
            except (TypeError, ValueError) as e:
                return type(e).__name__
        return None

    theirs = error(tf1())
    assert theirs is not None
    assert error(tfcompat) == theirs


# ---------------------------------------------------------------------------------------------
# Gradients
# ---------------------------------------------------------------------------------------------
_GRAD_CASES = [(fmt, training) for fmt in ("NHWC", "NCHW", "NCDHW") for training in (True, False)]


@pytest.mark.parametrize("data_format,training", _GRAD_CASES)
def test_gradients_match_tf(data_format, training):
    x = _x(data_format)
    weights = RNG.randn(*x.shape).astype(np.float32)

    def program(tf):
        xp = tf.placeholder(tf.float32, x.shape)
        scale, offset = tf.constant(SCALE), tf.constant(OFFSET)
        y = tf.nn.fused_batch_norm(
            xp, scale, offset, mean=MEAN, variance=VARIANCE, is_training=training,
            data_format=data_format,
        )[0]  # fmt: skip
        loss = tf.reduce_sum(y * y * weights)
        first = tf.gradients(loss, [xp, scale, offset])
        second = tf.gradients(tf.reduce_sum(first[0] * first[0]), [xp, scale])
        return first + second, {xp: x}

    assert_parity(program, rtol=2e-4, atol=2e-4)


@pytest.mark.parametrize("data_format,training", _GRAD_CASES)
def test_registered_gradients_agree_with_jax_vjp(data_format, training):
    x = _x(data_format)
    graph = tfcompat.Graph()
    with graph.as_default():
        xp = tfcompat.placeholder(tfcompat.float32, x.shape)
        scale = tfcompat.placeholder(tfcompat.float32, [3])
        offset = tfcompat.placeholder(tfcompat.float32, [3])
        y = tfcompat.nn.fused_batch_norm(
            xp, scale, offset, mean=MEAN, variance=VARIANCE, is_training=training,
            data_format=data_format,
        )[0]  # fmt: skip
        cotangent = tfcompat.constant(RNG.randn(*x.shape).astype(np.float32))
        report = check_gradients(
            y, [xp, scale, offset], feed_dict={xp: x, scale: SCALE, offset: OFFSET},
            grad_ys=cotangent,
        )  # fmt: skip
    report.assert_close(atol=1e-3, rtol=1e-4)
