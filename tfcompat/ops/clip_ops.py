"""Norm clipping: ``tf.clip_by_norm``, ``tf.global_norm``, ``tf.clip_by_global_norm``.

Composite wrappers building the ops TF 2.21 builds (same scopes and names). IndexedSlices
are clipped on their values and keep their indices. (``clip_by_value`` is a math op.)
"""

from __future__ import annotations

import collections.abc

import numpy as np

from tfcompat.framework import scopes
from tfcompat.framework.constant_op import constant
from tfcompat.framework.indexed_slices import IndexedSlices
from tfcompat.framework.op_helper import convert_to_tensor
from tfcompat.ops import array_ops, math_ops, nn_ops, reduction_ops
from tfcompat.util.tf_export import tf_export


def _values(t, name):
    return convert_to_tensor(t.values if isinstance(t, IndexedSlices) else t, name=name)


def _like(t, clipped):
    """``clipped`` values in the form of ``t`` (IndexedSlices keep their indices)."""
    if isinstance(t, IndexedSlices):
        return IndexedSlices(clipped, t.indices, t.dense_shape)
    return clipped


def _check_sequence(t_list):
    if not isinstance(t_list, collections.abc.Sequence) or isinstance(t_list, str):
        raise TypeError(f"`t_list` should be a sequence of tensors. Received {type(t_list)}.")
    return list(t_list)


@tf_export("clip_by_norm")
def clip_by_norm(t, clip_norm, axes=None, name=None):
    """``t * clip_norm / max(l2norm(t, axes), clip_norm)``: rescales ``t`` so its L2 norm
    (over ``axes``) is at most ``clip_norm``."""
    with scopes.name_scope(name, "clip_by_norm", [t, clip_norm]) as name:
        values = _values(t, "t")
        if np.isscalar(clip_norm):
            clip_norm = max(clip_norm, 0)
        else:
            clip_norm = math_ops.cast(math_ops.maximum(clip_norm, 0), dtype=values.dtype)
        l2sum = reduction_ops.reduce_sum(values * values, axes, keepdims=True)
        pred = l2sum > 0
        # sqrt's gradient at 0 is infinite: take it of a safe value and select.
        l2sum_safe = math_ops.where(pred, l2sum, array_ops.ones_like(l2sum))
        l2norm = math_ops.where(pred, math_ops.sqrt(l2sum_safe), l2sum)
        intermediate = values * clip_norm
        values.shape.assert_is_compatible_with(intermediate.shape)
        clipped = array_ops.identity(intermediate / math_ops.maximum(l2norm, clip_norm), name=name)
        return _like(t, clipped)


@tf_export("global_norm", "linalg.global_norm")
def global_norm(t_list, name=None):
    """``sqrt(sum(l2norm(t)**2 for t in t_list))``; None entries are ignored."""
    t_list = _check_sequence(t_list)
    graph = scopes._graph_from(t_list)
    with scopes.name_scope(name, "global_norm", t_list) as name:
        values = [None if t is None else _values(t, f"t_{i}") for i, t in enumerate(t_list)]
        half_squared_norms = []
        for v in values:
            if v is not None:
                with graph.colocate_with(v.op):
                    half_squared_norms.append(nn_ops.l2_loss(v))
        half_squared_norm = reduction_ops.reduce_sum(array_ops.stack(half_squared_norms))
        return math_ops.sqrt(
            half_squared_norm * constant(2.0, dtype=half_squared_norm.dtype),
            name="global_norm",
        )


@tf_export("clip_by_global_norm")
def clip_by_global_norm(t_list, clip_norm, use_norm=None, name=None):
    """Scales every tensor by ``clip_norm / max(global_norm, clip_norm)``; returns
    ``(clipped list, global norm)``. An infinite or NaN norm makes every value NaN."""
    t_list = _check_sequence(t_list)
    if use_norm is None:
        use_norm = global_norm(t_list, name)
    graph = scopes._graph_from(t_list)
    with scopes.name_scope(name, "clip_by_global_norm", t_list + [clip_norm]) as name:
        scale_for_finite = clip_norm * math_ops.minimum(
            1.0 / use_norm, constant(1.0, dtype=use_norm.dtype) / clip_norm
        )
        # (norm - norm) is NaN for an infinite norm, so a bad norm poisons the result.
        scale = scale_for_finite + (use_norm - use_norm)
        values = [None if t is None else _values(t, f"t_{i}") for i, t in enumerate(t_list)]
        clipped = []
        for i, v in enumerate(values):
            if v is None:
                clipped.append(None)
                continue
            with graph.colocate_with(v.op):
                clipped.append(
                    array_ops.identity(v * math_ops.cast(scale, v.dtype), name=f"{name}_{i}")
                )
        return [c if c is None else _like(t, c) for c, t in zip(clipped, t_list)], use_norm
