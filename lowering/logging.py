"""``Print`` inside the jitted step: an XLA host callback writes TF's message when the step
runs (``jax.debug.callback``), so printing does not split the step into host and device
parts. The text is the reference kernel's (``lowering/reference/logging.py``)."""

from __future__ import annotations

import functools

import jax

from lowering.reference.logging import print_message
from lowering.registry import lowering


@lowering("Print")
def _print(ctx, op, input_, *data):
    jax.debug.callback(functools.partial(_print_on_host, op), *data)
    return input_


def _print_on_host(op, *data):
    import numpy as np

    print_message(op, [np.asarray(d) for d in data])
