"""Graph-level and op-level seeds: ``tf.set_random_seed`` and ``tf.get_seed``.

A random op records two attrs, ``seed`` and ``seed2``, computed by ``get_seed`` from the
graph's seed (``Graph.seed``) and the op's own ``seed`` argument with TensorFlow's rules:

* neither set: ``(None, None)``, recorded as ``seed=0, seed2=0``: the op draws from the
  Session's own entropy, so every Session gives different values;
* graph seed set, op seed None: the op seed is the number of such ops created so far in
  the graph (0, 1, 2, ...), so each op gets its own, repeatable stream;
* op seed set, graph seed not: the graph seed defaults to ``DEFAULT_GRAPH_SEED``;
* both set: both are used.

Seeds are taken modulo 2**31 - 1, and ``(0, 0)`` (which kernels read as "unseeded") is
replaced by ``(0, 2**31 - 1)``. How the lowering turns the pair into values is in
``lowering/random.py``.
"""

from __future__ import annotations

from tfcompat.framework import graph as graph_lib
from tfcompat.util.tf_export import tf_export

DEFAULT_GRAPH_SEED = 87654321
_MAXINT32 = 2**31 - 1
# Graph._extensions key of the count of ops seeded from the graph seed alone.
_OP_SEED_COUNT_KEY = "random_seed.op_count"


def _truncate_seed(seed):
    return seed % _MAXINT32


@tf_export("random.get_seed", "get_seed")
def get_seed(op_seed):
    """The ``(seed, seed2)`` pair an op with seed argument ``op_seed`` records."""
    graph = graph_lib.get_default_graph()
    global_seed = graph.seed
    if global_seed is not None:
        if op_seed is None:
            op_seed = graph._extensions.get(_OP_SEED_COUNT_KEY, 0)
            graph._extensions[_OP_SEED_COUNT_KEY] = op_seed + 1
        seeds = _truncate_seed(global_seed), _truncate_seed(op_seed)
    elif op_seed is not None:
        seeds = DEFAULT_GRAPH_SEED, _truncate_seed(op_seed)
    else:
        seeds = None, None
    # (0, 0) means "unseeded" to the kernels; a user who set seeds asked for determinism.
    if seeds == (0, 0):
        return 0, _MAXINT32
    return seeds


@tf_export("random.set_random_seed", "set_random_seed")
def set_random_seed(seed):
    """Sets the graph-level seed of the default graph (``Graph.seed``)."""
    graph_lib.get_default_graph().seed = seed
