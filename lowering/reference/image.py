"""Numpy kernels of the resize ops, with TF's CPU arithmetic, and the source indices and
weights the JAX rules gather with (``lowering/image.py``).

Per output row (and column) TF computes in float32 a source coordinate: ``out * scale``
(legacy), ``(out + 0.5) * scale - 0.5`` (``half_pixel_centers``, bilinear) or
``(out + 0.5) * scale`` (nearest neighbour); ``scale`` is ``in / out``, or ``(in - 1) /
(out - 1)`` with ``align_corners``. Bilinear reads rows ``max(floor(c), 0)`` and
``min(ceil(c), in - 1)`` weighted by ``c - floor(c)``; nearest reads ``min(floor(c), in - 1)``
(``round`` with ``align_corners``, and at least 0 with half-pixel centers)."""

from __future__ import annotations

import numpy as np

from lowering.registry import reference
from tfcompat.framework import errors


def _scale(in_size, out_size, align_corners):
    if align_corners and out_size > 1:
        return np.float32((in_size - 1) / np.float32(out_size - 1))
    return np.float32(in_size / np.float32(out_size))


def bilinear_taps(in_size, out_size, align_corners, half_pixel_centers):
    """``(lower, upper, lerp)`` per output index (int64, int64, float32)."""
    scale = _scale(in_size, out_size, align_corners)
    out = np.arange(out_size, dtype=np.float32)
    if half_pixel_centers:
        coord = (out + np.float32(0.5)) * scale - np.float32(0.5)
    else:
        coord = out * scale
    floor = np.floor(coord)
    lower = np.maximum(floor.astype(np.int64), 0)
    upper = np.minimum(np.ceil(coord).astype(np.int64), in_size - 1)
    return lower, upper, (coord - floor).astype(np.float32)


def nearest_taps(in_size, out_size, align_corners, half_pixel_centers):
    """The source index of each output index."""
    scale = _scale(in_size, out_size, align_corners)
    out = np.arange(out_size, dtype=np.float32)
    coord = (out + np.float32(0.5)) * scale if half_pixel_centers else out * scale
    # C's roundf rounds halves away from zero (numpy's round goes to even).
    index = np.floor(coord + np.float32(0.5)) if align_corners else np.floor(coord)
    index = np.minimum(index.astype(np.int64), in_size - 1)
    return np.maximum(index, 0) if half_pixel_centers else index


def check_resize(op, images_shape, size):
    """TF's input checks: 4-D images, two positive output dims."""
    if len(images_shape) != 4:
        raise errors.InvalidArgumentError(
            None, op, f"input must be 4-dimensional{list(images_shape)}"
        )
    size = [int(s) for s in np.asarray(size).reshape(-1)]
    if len(size) != 2:
        raise errors.InvalidArgumentError(None, op, f"shape_t must be 1-dimensional{[len(size)]}")
    if size[0] <= 0 or size[1] <= 0:
        raise errors.InvalidArgumentError(None, op, "output dimensions must be positive")
    if images_shape[1] == 0 or images_shape[2] == 0:
        raise errors.InvalidArgumentError(None, op, "input image must be of non-zero size")
    return size


def _flags(op):
    return op.attrs["align_corners"], op.attrs["half_pixel_centers"]


@reference("ResizeBilinear")
def _resize_bilinear(ctx, op, images, size):
    images = np.asarray(images).astype(np.float32)
    height, width = check_resize(op, images.shape, size)
    top, bottom, y_lerp = bilinear_taps(images.shape[1], height, *_flags(op))
    left, right, x_lerp = bilinear_taps(images.shape[2], width, *_flags(op))
    y_lerp, x_lerp = y_lerp[None, :, None, None], x_lerp[None, None, :, None]
    rows_top, rows_bottom = images[:, top], images[:, bottom]
    top_values = rows_top[:, :, left] + (rows_top[:, :, right] - rows_top[:, :, left]) * x_lerp
    bottom_values = (
        rows_bottom[:, :, left] + (rows_bottom[:, :, right] - rows_bottom[:, :, left]) * x_lerp
    )
    return (top_values + (bottom_values - top_values) * y_lerp).astype(np.float32)


@reference("ResizeNearestNeighbor")
def _resize_nearest_neighbor(ctx, op, images, size):
    images = np.asarray(images)
    height, width = check_resize(op, images.shape, size)
    rows = nearest_taps(images.shape[1], height, *_flags(op))
    cols = nearest_taps(images.shape[2], width, *_flags(op))
    return images[:, rows][:, :, cols]


@reference("ResizeBilinearGrad")
def _resize_bilinear_grad(ctx, op, grads, original):
    grads, original = np.asarray(grads, np.float32), np.asarray(original)
    in_h, in_w = original.shape[1:3]
    top, bottom, y_lerp = bilinear_taps(in_h, grads.shape[1], *_flags(op))
    left, right, x_lerp = bilinear_taps(in_w, grads.shape[2], *_flags(op))
    out = np.zeros((grads.shape[0], in_h, in_w, grads.shape[3]), np.float32)
    for rows, y_weight in ((top, 1 - y_lerp), (bottom, y_lerp)):
        for cols, x_weight in ((left, 1 - x_lerp), (right, x_lerp)):
            weight = (y_weight[:, None] * x_weight[None, :])[None, :, :, None]
            np.add.at(out, (slice(None), rows[:, None], cols[None, :]), grads * weight)
    return out.astype(original.dtype)


@reference("ResizeNearestNeighborGrad")
def _resize_nearest_neighbor_grad(ctx, op, grads, size):
    grads = np.asarray(grads)
    height, width = [int(s) for s in np.asarray(size).reshape(-1)]
    rows = nearest_taps(height, grads.shape[1], *_flags(op))
    cols = nearest_taps(width, grads.shape[2], *_flags(op))
    out = np.zeros((grads.shape[0], height, width, grads.shape[3]), grads.dtype)
    np.add.at(out, (slice(None), rows[:, None], cols[None, :]), grads)
    return out


@reference("AdjustContrastv2")
def _adjust_contrast(ctx, op, images, contrast_factor):
    images = np.asarray(images)
    factor = np.asarray(contrast_factor)
    if factor.ndim != 0:
        raise errors.InvalidArgumentError(
            None, op, f"contrast_factor must be scalar: {list(factor.shape)}"
        )
    if images.ndim < 3:
        raise errors.InvalidArgumentError(
            None, op, f"input must be at least 3-D, got shape{list(images.shape)}"
        )
    x = images.astype(np.float32)
    mean = x.mean(axis=(-3, -2), keepdims=True, dtype=np.float32)
    return ((x - mean) * np.float32(factor) + mean).astype(images.dtype)


# ---------------------------------------------------------------------------------------------
# AdjustHue / AdjustSaturation: TF's CPU kernels' HSV conversions, pixel-wise and vectorised
# (shared with the JAX rules through ``xp``, numpy or jax.numpy)
# ---------------------------------------------------------------------------------------------
def rgb_to_hsv(xp, r, g, b):
    """TF's float32 arithmetic; its ``+ 2.0 / 6.0`` and ``+ 4.0 / 6.0`` are in double."""
    vv = xp.maximum(r, xp.maximum(g, b))
    value_range = vv - xp.minimum(r, xp.minimum(g, b))
    s = xp.where(vv > 0, value_range / xp.where(vv > 0, vv, 1), 0).astype(r.dtype)
    safe = xp.where(value_range > 0, value_range, 1)
    norm = (1.0 / (6.0 * safe)).astype(r.dtype)

    def plus_sixths(x, k):
        return (x.astype(xp.float64) + k / 6.0).astype(r.dtype)

    otherwise = xp.where(g == vv, plus_sixths(norm * (b - r), 2), plus_sixths(norm * (r - g), 4))
    hh = xp.where(r == vv, norm * (g - b), otherwise)
    hh = xp.where(value_range <= 0, 0, hh).astype(r.dtype)
    hh = xp.where(hh < 0, hh + 1, hh)
    return hh, s, vv


def hsv_to_rgb(xp, h, s, v):
    c = s * v
    m = v - c
    dh = h * 6
    category = xp.trunc(dh).astype(xp.int32)
    fmodu = xp.mod(dh, 2.0).astype(h.dtype)
    x = c * (1 - xp.abs(fmodu - 1))
    zero = xp.zeros_like(c)
    choices = [
        (c, x, zero),
        (x, c, zero),
        (zero, c, x),
        (zero, x, c),
        (x, zero, c),
        (c, zero, x),
    ]
    out = []
    for channel in range(3):
        value = zero
        for k, triple in enumerate(choices):
            value = xp.where(category == k, triple[channel], value)
        out.append(value + m)
    return out


def adjust_hsv(xp, images, hue_delta=None, saturation_scale=None):
    x = images.astype(xp.float32)
    h, s, v = rgb_to_hsv(xp, x[..., 0], x[..., 1], x[..., 2])
    if hue_delta is not None:
        h = xp.fmod(h + xp.float32(hue_delta), xp.float32(1.0))
        h = xp.where(h < 0, h + 1, h)
    if saturation_scale is not None:
        s = xp.clip(s * xp.float32(saturation_scale), 0, 1)
    r, g, b = hsv_to_rgb(xp, h, s, v)
    return xp.stack([r, g, b], axis=-1).astype(images.dtype)


def _check_rgb(op, images):
    if images.ndim < 3 or images.shape[-1] != 3:
        raise errors.InvalidArgumentError(
            None, op, f"input must have 3 channels but instead has {images.shape[-1]} channels."
        )


@reference("AdjustHue")
def _adjust_hue(ctx, op, images, delta):
    images = np.asarray(images)
    _check_rgb(op, images)
    return adjust_hsv(np, images, hue_delta=np.asarray(delta))


@reference("AdjustSaturation")
def _adjust_saturation(ctx, op, images, scale):
    images = np.asarray(images)
    _check_rgb(op, images)
    return adjust_hsv(np, images, saturation_scale=np.asarray(scale))


# ---------------------------------------------------------------------------------------------
# RGBToHSV / HSVToRGB: TF's colorspace kernels (Eigen expressions in the image's dtype)
# ---------------------------------------------------------------------------------------------
def rgb_to_hsv_image(xp, images):
    r, g, b = images[..., 0], images[..., 1], images[..., 2]
    dtype = images.dtype
    v = xp.maximum(xp.maximum(r, g), b)
    value_range = v - xp.minimum(xp.minimum(r, g), b)
    s = xp.where(v > 0, value_range / xp.where(v > 0, v, 1), 0).astype(dtype)
    norm = (1 / xp.where(value_range > 0, value_range, 1)).astype(dtype) * dtype.type(1.0 / 6.0)
    h = xp.where(
        r == v,
        norm * (g - b),
        xp.where(
            g == v, norm * (b - r) + dtype.type(2.0 / 6.0), norm * (r - g) + dtype.type(4.0 / 6.0)
        ),
    )
    h = xp.where(value_range > 0, h, 0).astype(dtype)
    h = xp.where(h < 0, h + 1, h)
    return xp.stack([h, s, v], axis=-1)


def hsv_to_rgb_image(xp, images):
    h, s, v = images[..., 0], images[..., 1], images[..., 2]
    dh = h * 6
    dr = xp.clip(xp.abs(dh - 3) - 1, 0, 1)
    dg = xp.clip(-xp.abs(dh - 2) + 2, 0, 1)
    db = xp.clip(-xp.abs(dh - 4) + 2, 0, 1)
    one_s = 1 - s
    return xp.stack([(one_s + s * d) * v for d in (dr, dg, db)], axis=-1).astype(images.dtype)


@reference("RGBToHSV")
def _rgb_to_hsv(ctx, op, images):
    images = np.asarray(images)
    _check_rgb(op, images)
    return rgb_to_hsv_image(np, images)


@reference("HSVToRGB")
def _hsv_to_rgb(ctx, op, images):
    images = np.asarray(images)
    _check_rgb(op, images)
    return hsv_to_rgb_image(np, images)
