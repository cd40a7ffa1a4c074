"""``tf.image`` resizing (TF1): ``resize_images`` / ``resize`` / ``resize_bilinear`` /
``resize_nearest_neighbor`` record TF's ``ResizeBilinear`` / ``ResizeNearestNeighbor`` ops
(``align_corners``, ``half_pixel_centers``) with TF's node names, and their gradients TF's
``ResizeBilinearGrad`` / ``ResizeNearestNeighborGrad``. The kernels follow TF's CPU kernels'
arithmetic (source coordinates and interpolation weights in float32), see
``lowering/reference/image.py``. Bicubic and area resizing are not provided."""

from __future__ import annotations

import enum

from tfcompat.framework import dtypes, tensor_shape
from tfcompat.framework import graph as graph_lib
from tfcompat.framework.constant_value import constant_value
from tfcompat.framework.gradient_registry import RegisterGradient, no_gradient
from tfcompat.framework.op_def import register_op
from tfcompat.framework.op_helper import apply_op, convert_to_tensor
from tfcompat.ops import array_ops
from tfcompat.util.tf_export import tf_export

_FLAGS = ["align_corners: bool = false", "half_pixel_centers: bool = false"]


def _resized_shape(op):
    images = op.inputs[0].shape.with_rank(4)
    size = constant_value(op.inputs[1])
    height, width = (None, None) if size is None else (int(size[0]), int(size[1]))
    return [tensor_shape.TensorShape([images[0], height, width, images[3]])]


register_op(
    "ResizeBilinear",
    inputs=["images: T", "size: int32"],
    outputs=["resized_images: float"],
    attrs=["T: {int8, uint8, int16, uint16, int32, int64, bfloat16, half, float, double}"] + _FLAGS,
    shape_fn=_resized_shape,
)
register_op(
    "ResizeNearestNeighbor",
    inputs=["images: T", "size: int32"],
    outputs=["resized_images: T"],
    attrs=["T: {int8, uint8, int16, uint16, int32, int64, half, float, double, bfloat16}"] + _FLAGS,
    shape_fn=_resized_shape,
)
register_op(
    "ResizeBilinearGrad",
    inputs=["grads: float", "original_image: T"],
    outputs=["output: T"],
    attrs=["T: {float, bfloat16, half, double}"] + _FLAGS,
    shape_fn=lambda op: [op.inputs[1].shape.with_rank(4)],
)
register_op(
    "ResizeNearestNeighborGrad",
    inputs=["grads: T", "size: int32"],
    outputs=["output: T"],
    attrs=["T: {uint8, int8, int32, half, float, double, bfloat16}"] + _FLAGS,
    shape_fn=_resized_shape,
)

no_gradient("ResizeBilinearGrad")  # as TF


def _flags(op):
    return {
        "align_corners": op.attrs["align_corners"],
        "half_pixel_centers": op.attrs["half_pixel_centers"],
    }


@RegisterGradient("ResizeBilinear")
def _resize_bilinear_grad(op, grad):
    return [
        apply_op(
            "ResizeBilinearGrad", grads=grad, original_image=op.inputs[0], **_flags(op)
        ).outputs[0],
        None,
    ]


@RegisterGradient("ResizeNearestNeighbor")
def _resize_nearest_neighbor_grad(op, grad):
    image = op.inputs[0]
    if image.shape[1:3].is_fully_defined():
        size = image.shape[1:3].as_list()
    else:
        size = array_ops.shape(image)[1:3]
    return [
        apply_op("ResizeNearestNeighborGrad", grads=grad, size=size, **_flags(op)).outputs[0],
        None,
    ]


@tf_export("image.ResizeMethod")
class ResizeMethod(enum.IntEnum):
    """TF1's resize methods (``tf.compat.v1.image.ResizeMethod``)."""

    BILINEAR = 0
    NEAREST_NEIGHBOR = 1
    BICUBIC = 2
    AREA = 3


@tf_export("image.resize_bilinear")
def resize_bilinear(images, size, align_corners=False, name=None, half_pixel_centers=False):
    """``ResizeBilinear``: 4-D ``images`` to ``size`` = [height, width], as float32."""
    return apply_op(
        "ResizeBilinear",
        name=name,
        images=images,
        size=size,
        align_corners=align_corners,
        half_pixel_centers=half_pixel_centers,
    ).outputs[0]


@tf_export("image.resize_nearest_neighbor")
def resize_nearest_neighbor(images, size, align_corners=False, name=None, half_pixel_centers=False):
    """``ResizeNearestNeighbor``: 4-D ``images`` to ``size``, keeping their dtype."""
    return apply_op(
        "ResizeNearestNeighbor",
        name=name,
        images=images,
        size=size,
        align_corners=align_corners,
        half_pixel_centers=half_pixel_centers,
    ).outputs[0]


@tf_export("image.resize_images", "image.resize")
def resize_images(
    images,
    size,
    method=ResizeMethod.BILINEAR,
    align_corners=False,
    preserve_aspect_ratio=False,
    name=None,
):
    """Resizes 3-D (one image) or 4-D ``images`` to ``size`` by ``method`` (bilinear
    output is float32); a resize to the same static size returns ``images``."""
    if preserve_aspect_ratio:
        raise NotImplementedError("resize_images(preserve_aspect_ratio=True)")
    method = ResizeMethod(method)
    if method not in (ResizeMethod.BILINEAR, ResizeMethod.NEAREST_NEIGHBOR):
        raise NotImplementedError(f"Resize method {method.name} is not provided")
    graph = graph_lib.get_default_graph()
    with graph.name_scope(name or "resize"):
        images = convert_to_tensor(images, name="images")
        rank = images.shape.rank
        if rank is None:
            raise ValueError("'images' contains no shape.")
        is_batch = rank == 4
        if rank == 3:
            images = array_ops.expand_dims(images, 0)
        elif rank != 4:
            raise ValueError("'images' must have either 3 or 4 dimensions.")
        _, height, width, _ = images.shape.as_list()
        try:
            size = convert_to_tensor(size, dtypes.int32, name="size")
        except (TypeError, ValueError):
            raise ValueError("'size' must be a 1-D int32 Tensor") from None
        if not size.shape.is_compatible_with([2]):
            raise ValueError("'size' must be a 1-D Tensor of 2 elements: new_height, new_width")
        static = constant_value(size)
        new_height, new_width = (None, None) if static is None else (int(static[0]), int(static[1]))
        if (new_height, new_width) == (height, width) and height is not None:
            return images if is_batch else array_ops.squeeze(images, axis=[0])
        resize = resize_bilinear if method == ResizeMethod.BILINEAR else resize_nearest_neighbor
        images = resize(images, size, align_corners=align_corners)
        images.set_shape([None, new_height, new_width, None])
        return images if is_batch else array_ops.squeeze(images, axis=[0])
