"""``tf.image`` colour adjustments and geometric augmentations, built as TF builds them:
``adjust_brightness`` / ``adjust_contrast`` (TF's ``AdjustContrastv2`` op) /
``adjust_gamma`` and their ``random_*`` forms, ``transpose_image``, ``rot90`` (TF's
``case`` over the quarter turns), ``random_crop`` and ``total_variation``."""

from __future__ import annotations

from tfcompat.framework import dtypes
from tfcompat.framework.gradient_registry import RegisterGradient, no_gradient
from tfcompat.framework.op_def import register_op
from tfcompat.framework.op_helper import apply_op, convert_to_tensor
from tfcompat.framework.scopes import name_scope
from tfcompat.ops import array_ops
from tfcompat.ops.image_ops import _image_rank, convert_image_dtype
from tfcompat.util.tf_export import tf_export


def _adjust_contrast_shape(op):
    images, factor = op.inputs[0].shape, op.inputs[1].shape
    if images.rank is not None and images.rank < 3:
        raise ValueError(
            f"Shape must be at least rank 3 but is rank {images.rank} for "
            f"'{{{{node {op.name}}}}} = AdjustContrastv2[T=DT_FLOAT]'"
        )
    if factor.rank is not None and factor.rank != 0:
        raise ValueError(
            f"Shape must be rank 0 but is rank {factor.rank} for "
            f"'{{{{node {op.name}}}}} = AdjustContrastv2[T=DT_FLOAT]'"
        )
    return [images]


# No gradient: TF registers none for it either (tf.gradients through it raises).
register_op(
    "AdjustContrastv2",
    inputs=["images: T", "contrast_factor: float"],
    outputs=["output: T"],
    attrs=["T: {half, float} = DT_FLOAT"],
    shape_fn=_adjust_contrast_shape,
)


def _as_float_image(image):
    """``image`` itself when half or float32 (TF adjusts those in place), else converted."""
    if image.dtype in (dtypes.float16, dtypes.float32):
        return image
    return convert_image_dtype(image, dtypes.float32)


@tf_export("image.adjust_brightness")
def adjust_brightness(image, delta):
    """``image + delta`` in float (an integer image is converted and back, saturating)."""
    from tfcompat.ops import math_ops

    with name_scope(None, "adjust_brightness", [image, delta]) as name:
        image = convert_to_tensor(image, name="image")
        flt_image = _as_float_image(image)
        adjusted = math_ops.add(flt_image, math_ops.cast(delta, flt_image.dtype), name=name)
        return convert_image_dtype(adjusted, image.dtype, saturate=True)


@tf_export("image.adjust_contrast")
def adjust_contrast(images, contrast_factor):
    """Per image and channel, ``(x - mean) * contrast_factor + mean`` over height and
    width."""
    with name_scope(None, "adjust_contrast", [images, contrast_factor]) as name:
        images = convert_to_tensor(images, name="images")
        flt_images = _as_float_image(images)
        adjusted = apply_op(
            "AdjustContrastv2", name=name, images=flt_images, contrast_factor=contrast_factor
        ).outputs[0]
        return convert_image_dtype(adjusted, images.dtype, saturate=True)


@tf_export("image.adjust_gamma")
def adjust_gamma(image, gamma=1, gain=1):
    """``gain * image ** gamma`` in float (an integer image converted and back)."""
    from tfcompat.ops import control_flow_ops
    from tfcompat.ops.checks import Assert

    with name_scope(None, "adjust_gamma", [image, gamma, gain]):
        image = convert_to_tensor(image, name="image")
        flt_image = _as_float_image(image)
        condition = gamma >= 0
        if hasattr(condition, "op"):
            check = Assert(condition, ["Gamma should be a non-negative real number."])
            gamma = control_flow_ops.with_dependencies([check], gamma)
        elif not condition:
            raise ValueError("Gamma should be a non-negative real number.")
        adjusted = gain * flt_image**gamma
        return convert_image_dtype(adjusted, image.dtype, saturate=True)


@tf_export("image.random_brightness")
def random_brightness(image, max_delta, seed=None):
    """``adjust_brightness`` by a delta drawn uniformly from ``[-max_delta, max_delta)``."""
    return adjust_brightness(image, _random_delta(max_delta, seed))


def _random_delta(max_delta, seed):
    """A scalar drawn uniformly from ``[-max_delta, max_delta)`` (TF's checks and message)."""
    from tfcompat.ops import random_ops

    if max_delta < 0:
        raise ValueError("max_delta must be non-negative.")
    return random_ops.random_uniform([], -max_delta, max_delta, seed=seed)


def _random_factor(lower, upper, seed):
    """A scalar drawn uniformly from ``[lower, upper)`` (TF's checks and messages)."""
    from tfcompat.ops import random_ops

    if upper <= lower:
        raise ValueError("upper must be > lower.")
    if lower < 0:
        raise ValueError("lower must be non-negative.")
    return random_ops.random_uniform([], lower, upper, seed=seed)


@tf_export("image.random_contrast")
def random_contrast(image, lower, upper, seed=None):
    """``adjust_contrast`` by a factor drawn uniformly from ``[lower, upper)``."""
    return adjust_contrast(image, _random_factor(lower, upper, seed))


@tf_export("image.transpose_image", "image.transpose")
def transpose_image(image, name=None):
    """Swaps height and width of an image or a batch."""
    with name_scope(name, "transpose", [image]):
        image = convert_to_tensor(image, name="image")
        rank = _image_rank(image)
        if rank not in (3, 4):
            raise ValueError("'image' must have either 3 or 4 dimensions.")
        perm = [1, 0, 2] if rank == 3 else [0, 2, 1, 3]
        return array_ops.transpose(image, perm, name="transpose")


@tf_export("image.rot90")
def rot90(image, k=1, name=None):
    """Rotates an image or a batch by ``k`` quarter turns counter-clockwise (``k`` may be
    a tensor: TF's ``case`` over the four rotations)."""
    from tfcompat.ops import control_flow_ops, math_ops

    with name_scope(name, "rot90", [image, k]) as scope:
        image = convert_to_tensor(image, name="image")
        rank = _image_rank(image)
        if rank not in (3, 4):
            raise ValueError("'image' must have either 3 or 4 dimensions.")
        k = convert_to_tensor(k, dtype=dtypes.int32, name="k")
        k.shape.assert_has_rank(0)
        k = math_ops.mod(k, 4)
        h, w = (0, 1) if rank == 3 else (1, 2)
        perm = [1, 0, 2] if rank == 3 else [0, 2, 1, 3]

        def rot90_once():
            return array_ops.transpose(array_ops.reverse(image, [w]), perm)

        def rot180():
            return array_ops.reverse(image, [h, w])

        def rot270():
            return array_ops.reverse(array_ops.transpose(image, perm), [w])

        cases = [
            (math_ops.equal(k, 1), rot90_once),
            (math_ops.equal(k, 2), rot180),
            (math_ops.equal(k, 3), rot270),
        ]
        result = control_flow_ops.case(cases, default=lambda: image, exclusive=True, name=scope)
        shape = image.shape.as_list()
        if rank == 3:
            result.set_shape([None, None, shape[2]])
        else:
            result.set_shape([shape[0], None, None, shape[3]])
        return result


@tf_export("image.random_crop", "random_crop")
def random_crop(value, size, seed=None, name=None):
    """A ``size`` slice of ``value`` at a uniformly drawn offset (TF's recipe: the offset
    is a random int modulo the room left); a ``size`` larger than ``value`` fails the
    step with TF's assertion."""
    from tfcompat.ops import control_flow_ops, random_ops, reduction_ops
    from tfcompat.ops.checks import Assert

    with name_scope(name, "random_crop", [value, size]) as name:
        value = convert_to_tensor(value, name="value")
        size = convert_to_tensor(size, dtype=dtypes.int32, name="size")
        shape = array_ops.shape(value)
        check = Assert(
            reduction_ops.reduce_all(shape >= size),
            ["Need value.shape >= size, got ", shape, size],
            summarize=1000,
        )
        shape = control_flow_ops.with_dependencies([check], shape)
        limit = shape - size + 1
        offset = (
            random_ops.random_uniform(
                array_ops.shape(shape), dtype=size.dtype, maxval=size.dtype.max, seed=seed
            )
            % limit
        )
        return array_ops.slice(value, offset, size, name=name)


@tf_export("image.total_variation")
def total_variation(images, name=None):
    """The sum of absolute differences of neighbouring pixels (per image of a batch)."""
    from tfcompat.ops import math_ops, reduction_ops

    with name_scope(name, "total_variation"):
        rank = images.shape.ndims
        if rank == 3:
            dif1 = images[1:, :, :] - images[:-1, :, :]
            dif2 = images[:, 1:, :] - images[:, :-1, :]
            axis = None
        elif rank == 4:
            dif1 = images[:, 1:, :, :] - images[:, :-1, :, :]
            dif2 = images[:, :, 1:, :] - images[:, :, :-1, :]
            axis = [1, 2, 3]
        else:
            raise ValueError("'images' must be either 3 or 4-dimensional.")
        return reduction_ops.reduce_sum(math_ops.abs(dif1), axis=axis) + reduction_ops.reduce_sum(
            math_ops.abs(dif2), axis=axis
        )


# ---------------------------------------------------------------------------------------------
# Hue and saturation: TF's AdjustHue / AdjustSaturation ops (HSV round trips per pixel)
# ---------------------------------------------------------------------------------------------
def _hsv_adjust_shape(op):
    images = op.inputs[0].shape
    if images.rank is not None and images.rank < 3:
        raise ValueError(
            f"Shape must be at least rank 3 but is rank {images.rank} for "
            f"'{{{{node {op.name}}}}} = {op.type}[T=DT_FLOAT]'"
        )
    return [images]


# No gradients: TF registers none for either.
register_op(
    "AdjustHue",
    inputs=["images: T", "delta: float"],
    outputs=["output: T"],
    attrs=["T: {half, float} = DT_FLOAT"],
    shape_fn=_hsv_adjust_shape,
)
register_op(
    "AdjustSaturation",
    inputs=["images: T", "scale: float"],
    outputs=["output: T"],
    attrs=["T: {half, float} = DT_FLOAT"],
    shape_fn=_hsv_adjust_shape,
)


def _hsv_adjusted(op_type, default_name, argument, image, value, name):
    with name_scope(name, default_name, [image]):
        image = convert_to_tensor(image, name="image")
        flt_image = _as_float_image(image)
        adjusted = apply_op(op_type, images=flt_image, **{argument: value}).outputs[0]
        return convert_image_dtype(adjusted, image.dtype)


@tf_export("image.adjust_hue")
def adjust_hue(image, delta, name=None):
    """Rotates the hue of RGB ``image`` by ``delta`` (a fraction of the colour circle,
    in [-1, 1])."""
    return _hsv_adjusted("AdjustHue", "adjust_hue", "delta", image, delta, name)


@tf_export("image.adjust_saturation")
def adjust_saturation(image, saturation_factor, name=None):
    """Multiplies the saturation of RGB ``image`` by ``saturation_factor`` (clipped to
    [0, 1])."""
    return _hsv_adjusted(
        "AdjustSaturation", "adjust_saturation", "scale", image, saturation_factor, name
    )


@tf_export("image.random_hue")
def random_hue(image, max_delta, seed=None):
    """``adjust_hue`` by a delta drawn uniformly from ``[-max_delta, max_delta)``."""
    if max_delta > 0.5:
        raise ValueError("max_delta must be <= 0.5.")
    return adjust_hue(image, _random_delta(max_delta, seed))


@tf_export("image.random_saturation")
def random_saturation(image, lower, upper, seed=None):
    """``adjust_saturation`` by a factor drawn uniformly from ``[lower, upper)``."""
    return adjust_saturation(image, _random_factor(lower, upper, seed))


# ---------------------------------------------------------------------------------------------
# RGB <-> HSV (TF's RGBToHSV / HSVToRGB; RGBToHSV's gradient is TF's piecewise derivative)
# ---------------------------------------------------------------------------------------------
_COLOR_T = "T: {half, bfloat16, float, double} = DT_FLOAT"
register_op(
    "RGBToHSV",
    inputs=["images: T"],
    outputs=["output: T"],
    attrs=[_COLOR_T],
    shape_fn=lambda op: [op.inputs[0].shape],
)
register_op(
    "HSVToRGB",
    inputs=["images: T"],
    outputs=["output: T"],
    attrs=[_COLOR_T],
    shape_fn=lambda op: [op.inputs[0].shape],
)
no_gradient("HSVToRGB")


@tf_export("image.rgb_to_hsv")
def rgb_to_hsv(images, name=None):
    """RGB images (last axis, floats in [0, 1]) as hue, saturation, value in [0, 1]."""
    return apply_op("RGBToHSV", name=name, images=images).outputs[0]


@tf_export("image.hsv_to_rgb")
def hsv_to_rgb(images, name=None):
    """HSV images (last axis, floats in [0, 1]) as RGB."""
    return apply_op("HSVToRGB", name=name, images=images).outputs[0]


@RegisterGradient("RGBToHSV")
def _rgb_to_hsv_grad(op, grad):
    """TF's derivative, case by case on which channel is the maximum and the minimum
    (ties broken R > G > B); reciprocals of zero are zero."""
    from tfcompat.ops import math_ops

    r, g, b = (op.inputs[0][..., i] for i in range(3))
    saturation, value = op.outputs[0][..., 1], op.outputs[0][..., 2]

    def mask(x):
        return math_ops.cast(x, dtypes.float32)

    def recip(x):
        return math_ops.div_no_nan(1.0, x)

    r_max = mask((r >= b) & (r >= g))
    g_max = mask((g > r) & (g >= b))
    b_max = mask((b > r) & (b > g))
    r_min = mask((r < b) & (r < g))
    g_min = mask((g <= r) & (g < b))
    b_min = mask((b <= r) & (b <= g))
    r_pos, g_pos, b_pos = mask(r > 0), mask(g > 0), mask(b > 0)

    def ds(pos, c_max, c_min, c, o1_max, o1_min, o1, o2_max, o2_min, o2):
        as_max = c_max * (o1_min * o1 + o2_min * o2) * recip(math_ops.square(c))
        as_min = c_min * -1 * recip(o1_max * o1 + o2_max * o2)
        return pos * (as_max + as_min)

    ds_dr = ds(r_pos, r_max, r_min, r, g_max, g_min, g, b_max, b_min, b)
    ds_dg = ds(g_pos, g_max, g_min, g, r_max, r_min, r, b_max, b_min, b)
    ds_db = ds(b_pos, b_max, b_min, b, g_max, g_min, g, r_max, r_min, r)

    sv = recip(math_ops.square(saturation)) * recip(math_ops.square(value))
    dh_dr = (
        60
        * (
            r_pos * r_max * -1 * (g - b) * sv
            + g_pos * g_max * r_min * (b - g) * recip(math_ops.square(r - g))
            + g_pos * g_max * b_min * -1 * recip(g - b)
            + b_pos * b_max * r_min * (b - g) * recip(math_ops.square(b - r))
            + b_pos * b_max * g_min * recip(b - g)
        )
        / 360
    )
    dh_dg = (
        60
        * (
            g_pos * g_max * -1 * (b - r) * sv
            + r_pos * r_max * g_min * (r - b) * recip(math_ops.square(r - g))
            + r_pos * r_max * b_min * recip(r - b)
            + b_pos * b_max * g_min * (r - b) * recip(math_ops.square(b - g))
            + b_pos * b_max * r_min * -1 * recip(b - r)
        )
        / 360
    )
    dh_db = (
        60
        * (
            b_pos * b_max * -1 * (r - g) * sv
            + r_pos * r_max * b_min * (g - r) * recip(math_ops.square(r - b))
            + r_pos * r_max * g_min * -1 * recip(r - g)
            + g_pos * g_max * b_min * (g - r) * recip(math_ops.square(g - b))
            + g_pos * g_max * r_min * recip(g - r)
        )
        / 360
    )

    def per_channel(channel, dr, dg, db):
        return array_ops.stack([grad[..., channel] * d for d in (dr, dg, db)], axis=-1)

    return (
        per_channel(2, r_max, g_max, b_max)
        + per_channel(1, ds_dr, ds_dg, ds_db)
        + per_channel(0, dh_dr, dh_dg, dh_db)
    )
