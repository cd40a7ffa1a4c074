"""tf.image colour adjustments and augmentations against TF 2.21: adjust_brightness /
contrast / gamma (float and uint8, saturating), transpose, rot90 for every k (constant
and fed), total_variation and random_crop's failed check; the random_* forms by their
ranges and determinism."""

import numpy as np
import pytest

import tfcompat
from tests.oracle import assert_parity, tf1

rng = np.random.default_rng(5)
IMAGE = rng.uniform(0, 1, size=(5, 6, 3)).astype(np.float32)
BATCH = rng.uniform(0, 1, size=(2, 5, 6, 3)).astype(np.float32)
UINT8 = rng.integers(0, 256, size=(4, 5, 3)).astype(np.uint8)


def test_adjustments_match_tf():
    def program(tf):
        x, batch, u8 = tf.constant(IMAGE), tf.constant(BATCH), tf.constant(UINT8)
        return [
            tf.image.adjust_brightness(x, 0.2),
            tf.image.adjust_brightness(u8, -0.3),
            tf.image.adjust_contrast(batch, 1.7),
            tf.image.adjust_contrast(u8, 2.5),
            tf.image.adjust_gamma(x, 2.2, gain=0.9),
            tf.image.adjust_gamma(u8, 0.5),
            tf.image.transpose_image(x),
            tf.image.transpose(batch),
            tf.image.total_variation(x),
            tf.image.total_variation(batch),
        ]

    assert_parity(program, rtol=2e-3, atol=2e-3)


GRAYS = np.array([[[0.5, 0.5, 0.5], [0.0, 0.0, 0.0], [1.0, 1.0, 1.0]]], np.float32)
PURE = np.array([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]], np.float32)


@pytest.mark.parametrize("delta", [0.0, 0.2, -0.45, 0.5, 1.0])
def test_adjust_hue_matches_tf(delta):
    def program(tf):
        return [
            tf.image.adjust_hue(tf.constant(IMAGE), delta),
            tf.image.adjust_hue(tf.constant(BATCH), delta),
            tf.image.adjust_hue(tf.constant(UINT8), delta),
            tf.image.adjust_hue(tf.constant(GRAYS), delta),
            tf.image.adjust_hue(tf.constant(PURE), delta),
        ]

    assert_parity(program, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("factor", [0.0, 0.5, 1.0, 2.5])
def test_adjust_saturation_matches_tf(factor):
    def program(tf):
        return [
            tf.image.adjust_saturation(tf.constant(IMAGE), factor),
            tf.image.adjust_saturation(tf.constant(UINT8), factor),
            tf.image.adjust_saturation(tf.constant(GRAYS), factor),
            tf.image.adjust_saturation(tf.constant(PURE), factor),
        ]

    assert_parity(program, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("k", [0, 1, 2, 3, 5, -1])
def test_rot90_matches_tf(k):
    def program(tf):
        fed = tf.placeholder(tf.int32, [])
        return [
            tf.image.rot90(tf.constant(IMAGE), k),
            tf.image.rot90(tf.constant(BATCH), fed),
        ], {fed: k}

    assert_parity(program)


def test_random_crop_too_large_fails_like_tf():
    for tf in (tfcompat, tf1()):
        with tf.Graph().as_default():
            crop = tf.random_crop(tf.constant(IMAGE), [6, 6, 3], seed=1)
            with tf.Session() as sess:
                with pytest.raises(tf.errors.InvalidArgumentError, match="Need value.shape"):
                    sess.run(crop)


def test_random_adjustments_stay_in_range_and_repeat_with_a_seed():
    def draws(seed):
        with tfcompat.Graph().as_default():
            tfcompat.set_random_seed(seed)
            x = tfcompat.constant(IMAGE)
            ops = [
                tfcompat.image.random_brightness(x, 0.25),
                tfcompat.image.random_contrast(x, 0.5, 1.5),
                tfcompat.image.random_crop(x, [3, 4, 3]),
                tfcompat.image.random_hue(x, 0.2),
                tfcompat.image.random_saturation(x, 0.5, 1.5),
            ]
            with tfcompat.Session() as sess:
                return [sess.run(ops) for _ in range(20)]

    runs = draws(7)
    deltas = np.array([(run[0] - IMAGE).mean() for run in runs])
    assert np.all(np.abs(deltas) <= 0.25) and deltas.std() > 0.05
    for _, contrasted, crop, hued, saturated in runs:
        assert hued.shape == saturated.shape == IMAGE.shape
        mean = IMAGE.mean(axis=(0, 1))
        factor = (contrasted - mean) / (IMAGE - mean)
        assert 0.5 <= np.median(factor) <= 1.5
        # the crop is a window of the image
        assert any(
            np.array_equal(crop, IMAGE[i : i + 3, j : j + 4]) for i in range(3) for j in range(3)
        )
    assert len({tuple(np.round(c[2].ravel()[:3], 5)) for c in runs}) > 1
    again = draws(7)
    for a, b in zip(runs, again):
        for x, y in zip(a, b):
            np.testing.assert_array_equal(x, y)


def test_argument_errors_match_tf():
    for tf in (tfcompat, tf1()):
        with tf.Graph().as_default():
            x = tf.constant(IMAGE)
            with pytest.raises(ValueError, match="max_delta must be non-negative."):
                tf.image.random_brightness(x, -1.0)
            with pytest.raises(ValueError, match="upper must be > lower."):
                tf.image.random_contrast(x, 1.0, 0.5)
            with pytest.raises(ValueError, match="lower must be non-negative."):
                tf.image.random_contrast(x, -1.0, 0.5)
            with pytest.raises(ValueError, match="Gamma should be a non-negative real number."):
                tf.image.adjust_gamma(x, -1.0)
            with pytest.raises(ValueError, match="max_delta must be <= 0.5."):
                tf.image.random_hue(x, 0.6)
            with pytest.raises(ValueError, match="upper must be > lower."):
                tf.image.random_saturation(x, 1.0, 1.0)


def test_rgb_hsv_round_trip_and_gradient_match_tf():
    # Ties (grays, pure colours) exercise the tie-breaking masks of the gradient.
    ties = [GRAYS[0][None].repeat(5, 0), PURE[0][None].repeat(5, 0)]
    colors = np.concatenate([IMAGE, *ties], axis=1)

    def program(tf):
        x = tf.constant(colors)
        hsv = tf.image.rgb_to_hsv(x)
        back = tf.image.hsv_to_rgb(hsv)
        weights = tf.constant(np.linspace(0.5, 2.0, 3, dtype=np.float32))
        (grad,) = tf.gradients(tf.reduce_sum(hsv * weights), [x])
        return [hsv, back, grad, tf.image.hsv_to_rgb(tf.constant(BATCH))]

    assert_parity(program, rtol=1e-5, atol=1e-5)
