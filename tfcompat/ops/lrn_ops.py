"""``tf.nn.local_response_normalization`` / ``tf.nn.lrn`` (TF's ``LRN`` and ``LRNGrad``):
each value divided by ``(bias + alpha * sum of squares over depth_radius neighbouring
channels) ** beta`` (NHWC, channels last), as AlexNet-era models normalise."""

from __future__ import annotations

from tfcompat.framework.gradient_registry import RegisterGradient
from tfcompat.framework.op_def import register_op
from tfcompat.framework.op_helper import apply_op
from tfcompat.util.tf_export import tf_export

_LRN_ATTRS = [
    "depth_radius: int = 5",
    "bias: float = 1",
    "alpha: float = 1",
    "beta: float = 0.5",
    "T: {half, bfloat16, float} = DT_FLOAT",
]
register_op(
    "LRN",
    inputs=["input: T"],
    outputs=["output: T"],
    attrs=_LRN_ATTRS,
    shape_fn=lambda op: [op.inputs[0].shape.with_rank(4)],
)
register_op(
    "LRNGrad",
    inputs=["input_grads: T", "input_image: T", "output_image: T"],
    outputs=["output: T"],
    attrs=_LRN_ATTRS,
    shape_fn=lambda op: [op.inputs[1].shape.with_rank(4)],
)


@tf_export("nn.local_response_normalization", "nn.lrn")
def local_response_normalization(
    input,
    depth_radius=5,
    bias=1,
    alpha=1,
    beta=0.5,
    name=None,  # noqa: A002 - TF's name
):
    """Local response normalisation over the channel axis of a 4-D NHWC ``input``."""
    return apply_op(
        "LRN",
        name=name,
        input=input,
        depth_radius=depth_radius,
        bias=bias,
        alpha=alpha,
        beta=beta,
    ).outputs[0]


@RegisterGradient("LRN")
def _lrn_grad(op, grad):
    attrs = {k: op.attrs[k] for k in ("depth_radius", "bias", "alpha", "beta")}
    return [
        apply_op(
            "LRNGrad",
            input_grads=grad,
            input_image=op.inputs[0],
            output_image=op.outputs[0],
            **attrs,
        ).outputs[0]
    ]
