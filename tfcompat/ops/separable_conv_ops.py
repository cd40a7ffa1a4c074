"""``tf.nn.separable_conv2d``: a depthwise convolution (``<scope>/depthwise``) followed by
a 1x1 pointwise ``Conv2D`` named by the scope, as TF 2.21 builds it (dilation rates above 1
put the depthwise step between SpaceToBatchND and BatchToSpaceND)."""

from __future__ import annotations

from tfcompat.framework.op_helper import convert_to_tensor
from tfcompat.framework.scopes import name_scope
from tfcompat.ops import conv_ops
from tfcompat.ops.conv_ops import deprecated_argument_lookup
from tfcompat.ops.nn_ops import with_rank
from tfcompat.util.tf_export import tf_export


@tf_export("nn.separable_conv2d")
def separable_conv2d(input, depthwise_filter, pointwise_filter, strides, padding, rate=None,  # noqa: A002
                     name=None, data_format=None, dilations=None):  # fmt: skip
    """Depthwise-separable 2-D convolution: ``depthwise_filter`` ``[h, w, in, multiplier]``
    convolves each channel, then ``pointwise_filter`` ``[1, 1, in * multiplier, out]``
    mixes channels."""
    from tfcompat.ops import array_ops, space_batch_ops

    rate = deprecated_argument_lookup("dilations", dilations, "rate", rate)
    with name_scope(name, "separable_conv2d", [input, depthwise_filter, pointwise_filter]) as scope:
        input = convert_to_tensor(input, name="tensor_in")  # noqa: A001
        depthwise_filter = convert_to_tensor(depthwise_filter, name="depthwise_filter")
        pointwise_filter = convert_to_tensor(pointwise_filter, name="pointwise_filter")
        pointwise_shape = with_rank(pointwise_filter.shape, 4).as_list()
        for dim in pointwise_shape[:2]:
            if dim not in (None, 1):
                raise ValueError(f"Dimensions {dim} and 1 are not compatible")
        rate = [1, 1] if rate is None else rate
        filter_shape = array_ops.shape(depthwise_filter)

        def op(converted, _, pad):
            return conv_ops.depthwise_conv2d_native(
                converted, depthwise_filter, strides, pad,
                data_format=data_format or "NHWC", name="depthwise",
            )  # fmt: skip

        depthwise = space_batch_ops.with_space_to_batch(
            input, rate, padding, op, filter_shape=filter_shape
        )
        return conv_ops.conv2d(
            depthwise,
            pointwise_filter,
            [1, 1, 1, 1],
            padding="VALID",
            data_format=data_format or "NHWC",
            name=scope,
        )
