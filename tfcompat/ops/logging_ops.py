"""``tf.Print`` (TF1): passes its input through and writes a message with a summary of each
``data`` tensor to stderr when it runs, in TF's format (``message[v1 v2 v3...][...]``, at most
``summarize`` elements each, ``first_n`` times at most).

It stays inside the device step: the lowering prints from an XLA host callback
(``lowering/logging.py``), so a ``tf.Print`` in a model does not split the step. The
``first_n`` count is kept per graph op (TF keeps it per session's kernel).
"""

from __future__ import annotations

from tfcompat.framework.gradient_registry import RegisterGradient
from tfcompat.framework.op_def import register_op
from tfcompat.framework.op_helper import apply_op
from tfcompat.util.tf_export import tf_export

register_op(
    "Print",
    inputs=["input: T", "data: U"],
    outputs=["output: T"],
    attrs=[
        "T: type",
        "U: list(type) >= 0",
        "message: string = ''",
        "first_n: int = -1",
        "summarize: int = 3",
    ],
    shape_fn=lambda op: [op.inputs[0].shape],
    is_stateful=True,
)


@RegisterGradient("Print")
def _print_grad(op, *grads):
    """The gradient passes through ``input``; ``data`` gets none (TF's)."""
    return [grads[0]] + [None] * (len(op.inputs) - 1)


@tf_export("Print")
def Print(input_, data, message=None, first_n=None, summarize=None, name=None):  # noqa: N802 - TF's name
    """Returns ``input_``; when it is computed, writes ``message`` and a summary of each
    tensor in ``data`` (``summarize`` elements, default 3) to stderr, the first ``first_n``
    times (default: every time)."""
    attrs = {}
    if message is not None:
        attrs["message"] = message
    if first_n is not None:
        attrs["first_n"] = first_n
    if summarize is not None:
        attrs["summarize"] = summarize
    return apply_op("Print", name=name, input=input_, data=list(data), **attrs).outputs[0]
