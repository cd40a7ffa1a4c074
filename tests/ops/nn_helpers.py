"""Shared helpers of the nn-family tests: raw op calls under either module, seeded inputs."""

from __future__ import annotations

import numpy as np

import tfcompat
from tests.oracle import run, tf1
from tfcompat.framework.op_helper import apply_op


def raw_op(tf, op_type, **inputs):
    """The outputs (a list) of op ``op_type`` built directly from its OpDef, under TF
    (``tf.raw_ops``) or tfcompat (``apply_op``)."""
    if tf is tfcompat:
        return list(apply_op(op_type, **inputs).outputs)
    result = getattr(tf.raw_ops, op_type)(**inputs)
    return list(result) if isinstance(result, tuple) else [result]


def sample(shape, dtype=np.float32, seed=0, scale=3.0):
    """Seeded values of ``dtype``: normal floats scaled by ``scale`` or small integers
    (non-negative for unsigned types)."""
    rng = np.random.default_rng(seed)
    dtype = np.dtype(dtype)
    if dtype.kind in "iu":
        low = 0 if dtype.kind == "u" else -20
        return rng.integers(low, 20, size=shape).astype(dtype)
    return (rng.normal(size=shape) * scale).astype(dtype)


def run_expecting_error(program, error_class, backend=None):
    """Runs ``program`` under TF (``backend=None``) or tfcompat's ``backend`` and returns
    the error it raised, which must be a ``error_class``."""
    tf = tf1() if backend is None else tfcompat
    errors = tf.errors
    cls = getattr(errors, error_class) if isinstance(error_class, str) else error_class
    try:
        run(tf, program, backend=backend)
    except cls as e:
        return e
    raise AssertionError(f"expected {cls.__name__} under {backend or 'TF'}")
