"""Numpy kernels of the summary ops (host ops: these kernels are the implementation). Each
returns a serialized ``tf.Summary``, byte-identical to TF's.

``HistogramSummary`` follows TF's ``histogram::Histogram``: buckets whose limits grow by 10%
from 1e-12 to 1e20 (and their negatives, zero, and +-DBL_MAX), a value counted in the first
bucket whose limit exceeds it, and consecutive empty buckets collapsed into the last of
their run when encoded. Sums run in the values' order, as TF's loop adds them.
"""

from __future__ import annotations

import sys

import numpy as np
from google.protobuf.message import DecodeError

from lowering.registry import reference
from tfcompat.framework import errors
from tfcompat.framework.proto import summary_pb2

_DBL_MAX = sys.float_info.max


def _default_bucket_limits():
    positive = []
    v = 1.0e-12
    while v < 1.0e20:  # Python floats are C doubles: the same limits as TF's loop
        positive.append(v)
        v *= 1.1
    positive.append(_DBL_MAX)
    negative = [-x for x in reversed(positive)]
    return np.array(negative + [0.0] + positive, dtype=np.float64)


_BUCKET_LIMITS = _default_bucket_limits()


def _invalid(op, message):
    return errors.InvalidArgumentError(None, op, f"{message}\n\t [[{{{{node {op.name}}}}}]]")


def _text(value) -> str:
    return value.decode("utf-8", "surrogateescape") if isinstance(value, bytes) else str(value)


def _shape_text(shape) -> str:
    return "[" + ",".join(str(d) for d in shape) + "]"


@reference("ScalarSummary")
def _scalar_summary(ctx, op, tags, values):
    tags, values = np.asarray(tags, dtype=object), np.asarray(values)
    if tags.shape != values.shape:
        single = f" (tag '{_text(tags.reshape(-1)[0])}')" if tags.size == 1 else ""
        raise _invalid(
            op,
            f"tags and values are not the same shape: {_shape_text(tags.shape)} != "
            f"{_shape_text(values.shape)}{single}",
        )
    summary = summary_pb2.Summary()
    for tag, value in zip(tags.reshape(-1), values.reshape(-1).astype(np.float32).tolist()):
        summary.value.add(tag=_text(tag), simple_value=value)
    return np.array(summary.SerializeToString(), dtype=object)


def histogram_proto(values, proto):
    """Fills ``HistogramProto`` ``proto`` from the finite float64 ``values``."""
    values = np.asarray(values, dtype=np.float64).reshape(-1)
    counts = np.bincount(
        np.searchsorted(_BUCKET_LIMITS, values, side="right"), minlength=len(_BUCKET_LIMITS)
    )[: len(_BUCKET_LIMITS)].astype(np.float64)
    proto.min = float(values.min()) if values.size else _DBL_MAX
    proto.max = float(values.max()) if values.size else -_DBL_MAX
    proto.num = float(values.size)
    proto.sum = float(np.cumsum(values)[-1]) if values.size else 0.0
    proto.sum_squares = float(np.cumsum(values * values)[-1]) if values.size else 0.0
    # Each non-empty bucket, and each run of empty ones as its last limit with count 0.
    nonempty = counts > 0
    last_of_empty_run = ~nonempty & np.append(nonempty[1:], True)
    keep = np.flatnonzero(nonempty | last_of_empty_run)
    proto.bucket_limit.extend(_BUCKET_LIMITS[keep].tolist())
    proto.bucket.extend(counts[keep].tolist())


@reference("HistogramSummary")
def _histogram_summary(ctx, op, tag, values):
    tag = np.asarray(tag, dtype=object)
    if tag.ndim != 0:
        raise _invalid(op, "tags must be scalar")
    values = np.asarray(values).astype(np.float64).reshape(-1)
    bad = np.flatnonzero(~np.isfinite(values))
    if bad.size:
        kind = "Nan" if np.isnan(values[bad[0]]) else "Infinity"
        raise _invalid(op, f"{kind} in summary histogram for: {op.name}")
    summary = summary_pb2.Summary()
    histogram_proto(values, summary.value.add(tag=_text(tag.item())).histo)
    return np.array(summary.SerializeToString(), dtype=object)


@reference("MergeSummary")
def _merge_summary(ctx, op, *inputs):
    merged = summary_pb2.Summary()
    seen = set()
    for serialized in inputs:
        for record in np.asarray(serialized, dtype=object).reshape(-1):
            summary = summary_pb2.Summary()
            try:
                summary.ParseFromString(bytes(record))
            except DecodeError:
                raise _invalid(op, "Could not parse one of the summary inputs") from None
            for value in summary.value:
                if value.tag and value.tag in seen:
                    raise _invalid(op, f"Duplicate tag {value.tag} found in summary inputs ")
                seen.add(value.tag)
                merged.value.add().CopyFrom(value)
    return np.array(merged.SerializeToString(), dtype=object)
