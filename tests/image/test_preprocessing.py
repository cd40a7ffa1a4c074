"""tf.image preprocessing against TF 2.21: flips, crops and pads, dtype conversions,
standardization and grayscale (values and dtypes); random flips by their statistics."""

import numpy as np

import tfcompat
from tests.oracle import assert_parity

rng = np.random.default_rng(3)
IMAGE = rng.normal(size=(5, 6, 3)).astype(np.float32)
BATCH = rng.normal(size=(2, 5, 6, 3)).astype(np.float32)
UINT8 = rng.integers(0, 256, size=(4, 4, 3)).astype(np.uint8)


def test_deterministic_ops_match_tf():
    def program(tf):
        x = tf.constant(IMAGE)
        batch = tf.constant(BATCH)
        u8 = tf.constant(UINT8)
        return [
            tf.image.flip_left_right(x),
            tf.image.flip_up_down(batch),
            tf.image.crop_to_bounding_box(x, 1, 2, 3, 3),
            tf.image.pad_to_bounding_box(batch, 1, 0, 7, 8),
            tf.image.central_crop(x, 0.5),
            tf.image.convert_image_dtype(u8, tf.float32),
            tf.image.convert_image_dtype(tf.constant(IMAGE * 0 + 0.25), tf.uint8),
            tf.image.convert_image_dtype(u8, tf.int32),
            tf.image.convert_image_dtype(tf.constant(UINT8.astype(np.int32) * 1000), tf.uint8),
            tf.image.per_image_standardization(x),
            tf.image.per_image_standardization(u8),
            tf.image.rgb_to_grayscale(u8),
            tf.image.rgb_to_grayscale(batch),
        ]

    assert_parity(program, rtol=1e-5, atol=1e-5)


def test_random_flips_flip_about_half_the_images():
    graph = tfcompat.Graph()
    with graph.as_default():
        tfcompat.set_random_seed(4)
        batch = np.broadcast_to(np.arange(6, dtype=np.float32)[None, None, :, None], (400, 2, 6, 1))
        flipped = tfcompat.image.random_flip_left_right(tfcompat.constant(batch))
        single = tfcompat.image.random_flip_up_down(tfcompat.constant(IMAGE))
        with tfcompat.Session() as sess:
            out, one = sess.run([flipped, single])
    reversed_rows = out[:, 0, 0, 0] == 5.0
    assert ((out == batch) | (out == batch[:, :, ::-1])).all()
    assert 0.4 < reversed_rows.mean() < 0.6
    assert np.array_equal(one, IMAGE) or np.array_equal(one, IMAGE[::-1])
