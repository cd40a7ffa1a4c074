"""JAX lowerings of the image ops: resizes as gathers with the source indices and weights
the reference computes in numpy (static sizes, so they are compile-time constants), their
gradients as scatter-adds of the same taps; ``AdjustContrastv2``."""

from __future__ import annotations

import jax.numpy as jnp

from lowering.reference.image import (
    adjust_hsv,
    bilinear_taps,
    check_resize,
    hsv_to_rgb_image,
    nearest_taps,
    rgb_to_hsv_image,
)
from lowering.registry import lowering
from lowering.static import static_ints


def _flags(op):
    return op.attrs["align_corners"], op.attrs["half_pixel_centers"]


@lowering("ResizeBilinear")
def _resize_bilinear(ctx, op, images, size):
    height, width = check_resize(op, images.shape, static_ints(op, 1, size, "size"))
    images = images.astype(jnp.float32)
    top, bottom, y_lerp = bilinear_taps(images.shape[1], height, *_flags(op))
    left, right, x_lerp = bilinear_taps(images.shape[2], width, *_flags(op))
    y_lerp, x_lerp = y_lerp[None, :, None, None], x_lerp[None, None, :, None]
    rows_top, rows_bottom = images[:, top], images[:, bottom]
    top_values = rows_top[:, :, left] + (rows_top[:, :, right] - rows_top[:, :, left]) * x_lerp
    bottom_values = (
        rows_bottom[:, :, left] + (rows_bottom[:, :, right] - rows_bottom[:, :, left]) * x_lerp
    )
    return top_values + (bottom_values - top_values) * y_lerp


@lowering("ResizeNearestNeighbor")
def _resize_nearest_neighbor(ctx, op, images, size):
    height, width = check_resize(op, images.shape, static_ints(op, 1, size, "size"))
    rows = nearest_taps(images.shape[1], height, *_flags(op))
    cols = nearest_taps(images.shape[2], width, *_flags(op))
    return images[:, rows][:, :, cols]


@lowering("ResizeBilinearGrad")
def _resize_bilinear_grad(ctx, op, grads, original):
    in_h, in_w = original.shape[1:3]
    top, bottom, y_lerp = bilinear_taps(in_h, grads.shape[1], *_flags(op))
    left, right, x_lerp = bilinear_taps(in_w, grads.shape[2], *_flags(op))
    out = jnp.zeros((grads.shape[0], in_h, in_w, grads.shape[3]), jnp.float32)
    for rows, y_weight in ((top, 1 - y_lerp), (bottom, y_lerp)):
        for cols, x_weight in ((left, 1 - x_lerp), (right, x_lerp)):
            weight = (y_weight[:, None] * x_weight[None, :])[None, :, :, None]
            out = out.at[:, rows[:, None], cols[None, :]].add(grads * weight)
    return out.astype(original.dtype)


@lowering("ResizeNearestNeighborGrad")
def _resize_nearest_neighbor_grad(ctx, op, grads, size):
    height, width = static_ints(op, 1, size, "size")
    rows = nearest_taps(height, grads.shape[1], *_flags(op))
    cols = nearest_taps(width, grads.shape[2], *_flags(op))
    out = jnp.zeros((grads.shape[0], height, width, grads.shape[3]), grads.dtype)
    return out.at[:, rows[:, None], cols[None, :]].add(grads)


@lowering("AdjustContrastv2")
def _adjust_contrast(ctx, op, images, contrast_factor):
    # As TF's kernel: float32 arithmetic (half images too), means over height and width.
    x = images.astype(jnp.float32)
    mean = jnp.mean(x, axis=(-3, -2), keepdims=True)
    return ((x - mean) * jnp.float32(contrast_factor) + mean).astype(images.dtype)


@lowering("AdjustHue")
def _adjust_hue(ctx, op, images, delta):
    return adjust_hsv(jnp, images, hue_delta=delta)


@lowering("AdjustSaturation")
def _adjust_saturation(ctx, op, images, scale):
    return adjust_hsv(jnp, images, saturation_scale=scale)


@lowering("RGBToHSV")
def _rgb_to_hsv(ctx, op, images):
    return rgb_to_hsv_image(jnp, images)


@lowering("HSVToRGB")
def _hsv_to_rgb(ctx, op, images):
    return hsv_to_rgb_image(jnp, images)
