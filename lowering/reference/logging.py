"""The numpy kernel of ``Print``, and TF's text for a tensor (``Tensor::SummarizeValue``),
which the JAX rule prints too (``lowering/logging.py``).

TF writes numbers as C's ``%g``: a float with 6 significant digits, or 9 when 6 do not read
back as the same float32 (``0.1``, ``0.333333343``); a double with 15, else 17; booleans as
``1``/``0``, strings as their bytes. A tensor of rank > 1 nests brackets per row, and past
``summarize`` elements the text stops with ``...`` (TF's ``PrintOneDim``)."""

from __future__ import annotations

import sys
import weakref

import numpy as np

from lowering.registry import reference


def _float_text(value, dtype) -> str:
    if np.isnan(value):
        return "-nan" if np.signbit(value) else "nan"
    if dtype == np.float64:
        text = f"{value:.15g}"
        return text if float(text) == value else f"{value:.17g}"
    text = f"{value:.6g}"
    return text if np.float32(float(text)) == np.float32(value) else f"{value:.9g}"


def _element_text(value, dtype) -> str:
    if dtype.kind == "f":
        return _float_text(
            float(value), np.dtype(np.float64 if dtype == np.float64 else np.float32)
        )
    if dtype.kind == "b":
        return "1" if value else "0"
    if dtype.kind in "OSU":
        return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)
    return str(int(value))


def summarize(value, limit) -> str:
    """TF's ``SummarizeValue(limit)`` of ``value`` (``limit`` < 0: every element)."""
    value = np.asarray(value)
    flat = value.reshape(-1)
    total = flat.size
    limit = total if limit < 0 else min(limit, total)
    texts = [_element_text(v, value.dtype) for v in flat[:limit]]
    if value.ndim == 0:
        return " ".join(texts)
    out = []
    position = [0]

    def one_dim(dim):
        if position[0] >= limit:
            return
        if dim == value.ndim - 1:
            for i in range(value.shape[dim]):
                if position[0] >= limit:
                    if dim != 0:
                        out.append("...")
                    return
                if i > 0:
                    out.append(" ")
                out.append(texts[position[0]])
                position[0] += 1
            return
        for _ in range(value.shape[dim]):
            opened = position[0] < limit
            if opened:
                out.append("[")
            one_dim(dim + 1)
            if position[0] < limit or opened:
                out.append("]")

    one_dim(0)
    return "".join(out) + ("..." if total > limit else "")


# Print op -> how many times it has printed (for ``first_n``).
_PRINTED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def print_message(op, data):
    """Writes ``op``'s line for the ``data`` values to stderr, unless ``first_n`` is spent."""
    first_n = op.attrs["first_n"]
    if first_n >= 0:
        count = _PRINTED.get(op, 0)
        if count >= first_n:
            return
        _PRINTED[op] = count + 1
    message = op.attrs["message"]
    message = message.decode("utf-8", "replace") if isinstance(message, bytes) else message
    parts = [message] + [f"[{summarize(d, op.attrs['summarize'])}]" for d in data]
    sys.stderr.write("".join(parts) + "\n")
    sys.stderr.flush()


@reference("Print")
def _print(ctx, op, input_, *data):
    print_message(op, data)
    return input_
