"""Numpy kernels of ``tfcompat/ops/misc_ops.py``: ``Fingerprint`` and ``IdentityReaderV2``
(host ops: these kernels are their implementation), ``GuaranteeConst``,
``ExtractVolumePatches`` (written as the definition reads, one output position and kernel
tap at a time), ``NextAfter`` and ``ApproxTopK`` (the exact top-k of TF's CPU kernel). Also
the volume-patch geometry and TF's kernel checks, shared with the JAX lowerings in
``lowering/misc.py``."""

from __future__ import annotations

import time

import farmhash
import numpy as np

from lowering.reference import string_hash
from lowering.reference.readers import _make_reader
from lowering.registry import reference
from tfcompat.framework import errors
from tfcompat.ops.misc_ops import FINGERPRINT_SIZE, windowed_output_size


def _shape_text(shape):
    return "[" + ",".join(str(d) for d in shape) + "]"


# ---------------------------------------------------------------------------------------------
# Fingerprint
# ---------------------------------------------------------------------------------------------
def _as_bytes(fingerprints):
    """uint64 fingerprints as TF writes them: 8 bytes each, little-endian."""
    values = np.asarray(fingerprints, dtype="<u8").reshape(-1)
    return values.view(np.uint8).reshape(len(values), FINGERPRINT_SIZE)


@reference("Fingerprint")
def _fingerprint(ctx, op, data, method):
    method = np.asarray(method, dtype=object)
    if method.ndim != 0:
        raise errors.InvalidArgumentError(
            None, op, f"`method` should be a scalar string: {_shape_text(method.shape)}"
        )
    if method.item() != b"farmhash64":
        raise errors.InvalidArgumentError(
            None, op, f"Unsupported fingerprint method: {method.item().decode(errors='replace')}"
        )
    data = np.asarray(data)
    if data.ndim < 1:
        raise errors.InvalidArgumentError(
            None, op, f"`data` should have at least one dimension: {_shape_text(data.shape)}"
        )
    rows = data.shape[0]
    if data.dtype == object:  # strings: each string's fingerprint, then each row's
        per_string = string_hash.fingerprint64(data.reshape(-1))
        width = data.size // rows if rows else 0
        if width == 1:
            return _as_bytes(per_string)
        # A row hashes the bytes of its strings' fingerprints (TF's kernel, for more than
        # one string per row; an empty row hashes no bytes).
        row_bytes = _as_bytes(per_string).reshape(rows, width * FINGERPRINT_SIZE)
        return _as_bytes([farmhash.fingerprint64(row.tobytes()) for row in row_bytes])
    # Other dtypes: the raw buffer of each row (little-endian hosts only, as TF's kernel
    # requires; bool: one byte per value).
    raw = np.ascontiguousarray(data).reshape(rows, -1) if rows else data.reshape(0, 0)
    hashes = [farmhash.fingerprint64(row.tobytes()) for row in raw]
    return _as_bytes(hashes).reshape(rows, FINGERPRINT_SIZE)


# ---------------------------------------------------------------------------------------------
# GuaranteeConst, NextAfter
# ---------------------------------------------------------------------------------------------
@reference("GuaranteeConst")
def _guarantee_const(ctx, op, x):
    return np.asarray(x)


@reference("NextAfter")
def _next_after(ctx, op, x1, x2):
    x1, x2 = np.asarray(x1), np.asarray(x2)
    return np.nextafter(x1, x2).astype(x1.dtype)


# ---------------------------------------------------------------------------------------------
# ExtractVolumePatches
# ---------------------------------------------------------------------------------------------
def volume_patch_geometry(op, shape):
    """``(ksizes, strides, output sizes, (before, after) pads)`` over the three spatial axes
    of an input of ``shape``, after TF's kernel checks (UnimplementedError for sizes or
    strides other than 1 in the batch and depth axes)."""
    ksizes, strides = list(op.attrs["ksizes"]), list(op.attrs["strides"])
    for key, values in (("ksizes", ksizes), ("strides", strides)):
        if values[0] != 1 or values[4] != 1:
            raise errors.UnimplementedError(None, op, f"Only support {key} across space.")
    outs, pads = [], []
    for size, k, s in zip(shape[1:4], ksizes[1:4], strides[1:4]):
        out, before = windowed_output_size(size, k, s, op.attrs["padding"])
        outs.append(out)
        pads.append((before, max(0, (out - 1) * s + k - size - before)))
    return ksizes[1:4], strides[1:4], outs, pads


@reference("ExtractVolumePatches")
def _extract_volume_patches(ctx, op, x):
    x = np.asarray(x)
    batch, depth = x.shape[0], x.shape[4]
    (kp, kr, kc), (sp, sr, sc), (op_, or_, oc), pads = volume_patch_geometry(op, x.shape)
    padded = np.pad(x, [(0, 0), *pads, (0, 0)])
    out = np.zeros((batch, op_, or_, oc, kp, kr, kc, depth), x.dtype)
    for p in range(op_):
        for r in range(or_):
            for c in range(oc):
                for a in range(kp):
                    for b in range(kr):
                        for d in range(kc):
                            out[:, p, r, c, a, b, d, :] = padded[
                                :, p * sp + a, r * sr + b, c * sc + d, :
                            ]
    return out.reshape(batch, op_, or_, oc, kp * kr * kc * depth)


# ---------------------------------------------------------------------------------------------
# ApproxTopK: exact, as TF's CPU kernel
# ---------------------------------------------------------------------------------------------
@reference("ApproxTopK")
def _approx_top_k(ctx, op, x):
    x = np.asarray(x)
    k = op.attrs["k"]
    axis = op.attrs["reduction_dimension"] % x.ndim
    moved = np.moveaxis(x, axis, -1)
    # Ties keep index order (a stable sort; -0.0 and 0.0 compare equal, as in TF). TF's CPU
    # kernel orders NaNs inconsistently, so their places are not specified.
    keys = -moved if op.attrs["is_max_k"] else moved
    indices = np.argsort(keys, axis=-1, kind="stable")[..., :k]
    values = np.take_along_axis(moved, indices, axis=-1)
    return np.moveaxis(values, -1, axis), np.moveaxis(indices.astype(np.int32), -1, axis)


# ---------------------------------------------------------------------------------------------
# IdentityReaderV2: a reader (``lowering/reference/readers.py``) whose one record per work
# unit is the work string as both key and value
# ---------------------------------------------------------------------------------------------
def _work_as_record(op, work):
    work = work.encode()  # the readers hand the dequeued string over decoded
    return [(work, work)]


@reference("IdentityReaderV2")
def _identity_reader(ctx, op):
    return _make_reader(ctx, op, _work_as_record)


@reference("Timestamp")
def _timestamp(ctx, op):
    return np.float64(time.time())
