"""``tf.tensordot``: contraction over chosen axes of two tensors, as TF builds it: each side
transposed so its free axes come first (``a``) or last (``b``) and reshaped to a matrix, one
``MatMul``, and the product reshaped to the free dimensions; static shapes where known,
``Shape``/``GatherV2`` arithmetic where not."""

from __future__ import annotations

import numpy as np

from tfcompat.framework import graph as graph_lib
from tfcompat.framework.op_helper import convert_to_tensor
from tfcompat.ops import array_ops, matmul_ops, reduction_ops
from tfcompat.util.tf_export import tf_export


def _axes_lists(a_rank, axes):
    if isinstance(axes, (int, np.integer)):
        if axes < 0:
            raise ValueError(f"'axes' must be at least 0, got {axes}.")
        if a_rank is not None and axes > a_rank:
            raise ValueError(
                f"'axes' must not be larger than the number of dimensions of tensor a. "
                f"Got {axes} for a tensor of {a_rank} dimensions."
            )
        return list(range(a_rank - axes, a_rank)), list(range(axes))
    axes = list(axes)
    if len(axes) != 2:
        raise ValueError(f"'axes' must be an integer or have length 2, got {axes}.")
    a_axes, b_axes = axes
    a_axes = [a_axes] if isinstance(a_axes, (int, np.integer)) else list(a_axes)
    b_axes = [b_axes] if isinstance(b_axes, (int, np.integer)) else list(b_axes)
    if len(a_axes) != len(b_axes):
        raise ValueError(
            f"Different number of contraction axes 'a' and 'b', {len(a_axes)} != {len(b_axes)}."
        )
    return a_axes, b_axes


def _matrix(x, axes, contract_first):
    """``x`` transposed (contracted axes first or last) and reshaped to 2-D; the free
    dimensions (static list, or a tensor where some is unknown)."""
    rank = x.shape.rank
    axes = [a % rank for a in axes]
    free = [i for i in range(rank) if i not in axes]
    perm = axes + free if contract_first else free + axes
    dims = x.shape.as_list()
    free_dims = [dims[i] for i in free]
    if all(d is not None for d in dims):
        prod_free = int(np.prod(free_dims, dtype=np.int64))
        prod_axes = int(np.prod([dims[i] for i in axes], dtype=np.int64))
        shape = [prod_axes, prod_free] if contract_first else [prod_free, prod_axes]
        return array_ops.reshape(array_ops.transpose(x, perm), shape), free_dims
    dynamic = array_ops.shape(x)
    free_tensor = array_ops.gather(dynamic, free)
    prod_free = reduction_ops.reduce_prod(free_tensor)
    prod_axes = reduction_ops.reduce_prod(array_ops.gather(dynamic, axes))
    shape = array_ops.stack([prod_axes, prod_free] if contract_first else [prod_free, prod_axes])
    return array_ops.reshape(array_ops.transpose(x, perm), shape), free_tensor


@tf_export("tensordot", "linalg.tensordot")
def tensordot(a, b, axes, name=None):
    """Sums the products of ``a`` and ``b`` over ``axes`` (an int N: the last N axes of
    ``a`` with the first N of ``b``; or ``[a_axes, b_axes]``)."""
    graph = graph_lib.get_default_graph()
    with graph.name_scope(name or "Tensordot"):
        a = convert_to_tensor(a, name="a")
        b = convert_to_tensor(b, name="b")
        if a.shape.rank is None or b.shape.rank is None:
            raise ValueError("tensordot needs the ranks of a and b")
        a_axes, b_axes = _axes_lists(a.shape.rank, axes)
        a_matrix, a_free = _matrix(a, a_axes, contract_first=False)
        b_matrix, b_free = _matrix(b, b_axes, contract_first=True)
        product = matmul_ops.matmul(a_matrix, b_matrix)
        if isinstance(a_free, list) and isinstance(b_free, list):
            return array_ops.reshape(product, a_free + b_free, name=None)
        parts = [f if not isinstance(f, list) else np.array(f, np.int32) for f in (a_free, b_free)]
        result = array_ops.reshape(product, array_ops.concat(parts, 0))
        # As TF: the free dimensions known statically stay known.
        static = [
            [
                a.shape[i]
                for i in range(a.shape.rank)
                if i not in [x % a.shape.rank for x in a_axes]
            ],
            [
                b.shape[i]
                for i in range(b.shape.rank)
                if i not in [x % b.shape.rank for x in b_axes]
            ],
        ]
        result.set_shape(static[0] + static[1])
        return result
