"""The global step: an int64 scalar variable named ``global_step`` in the ``GLOBAL_STEP``
collection, counting training steps (``apply_gradients(global_step=...)`` increments it).
"""

from __future__ import annotations

from tfcompat.framework import dtypes
from tfcompat.framework import graph as graph_lib
from tfcompat.framework.graph import GraphKeys
from tfcompat.framework.tensor import Tensor
from tfcompat.util.tf_export import tf_export


@tf_export("train.global_step")
def global_step(sess, global_step_tensor):
    """The global step's value as a Python int."""
    return int(sess.run(global_step_tensor))


def assert_global_step(global_step_tensor):
    """Raises TypeError unless ``global_step_tensor`` is an integer scalar Variable or
    Tensor."""
    from tfcompat.variables import Variable

    if not isinstance(global_step_tensor, (Variable, Tensor)):
        raise TypeError(
            f'Existing "global_step" must be a Variable or Tensor: {global_step_tensor}.'
        )
    if not global_step_tensor.dtype.base_dtype.is_integer:
        raise TypeError(
            f'Existing "global_step" does not have integer type: {global_step_tensor.dtype}'
        )
    shape = global_step_tensor.get_shape()
    if shape.rank != 0 and shape.is_fully_defined():
        raise TypeError(f'Existing "global_step" is not scalar: {shape}')


@tf_export("train.get_global_step")
def get_global_step(graph=None):
    """The graph's global step (the one ``GLOBAL_STEP`` entry, else the tensor
    ``global_step:0``), or None."""
    graph = graph or graph_lib.get_default_graph()
    found = graph.get_collection(GraphKeys.GLOBAL_STEP)
    if len(found) == 1:
        step = found[0]
    elif not found:
        try:
            step = graph.get_tensor_by_name("global_step:0")
        except KeyError:
            return None
    else:
        return None  # TF logs "Multiple tensors in global_step collection."
    assert_global_step(step)
    return step


@tf_export("train.create_global_step")
def create_global_step(graph=None):
    """Creates the global step at the root name scope; ValueError if one exists."""
    from tfcompat.ops import array_ops
    from tfcompat.variables import Variable

    graph = graph or graph_lib.get_default_graph()
    if get_global_step(graph) is not None:
        raise ValueError('"global_step" already exists.')
    with graph.as_default(), graph.name_scope(""):
        return Variable(
            lambda: array_ops.zeros([], dtype=dtypes.int64),
            name=GraphKeys.GLOBAL_STEP,
            trainable=False,
            dtype=dtypes.int64,
            collections=[GraphKeys.GLOBAL_VARIABLES, GraphKeys.GLOBAL_STEP],
        )


@tf_export("train.get_or_create_global_step")
def get_or_create_global_step(graph=None):
    """The graph's global step, created if missing."""
    graph = graph or graph_lib.get_default_graph()
    step = get_global_step(graph)
    if step is None:
        step = create_global_step(graph)
    return step


# The collection caching the global step's read for hooks (TF's GLOBAL_STEP_READ_KEY).
GLOBAL_STEP_READ_KEY = "global_step_read_op_cache"


def get_or_create_global_step_read(graph=None):
    """A Tensor copy of the global step that reads its initial value while the variable is
    uninitialized (TF's ``global_step/cond`` + ``global_step/add``), made once per graph;
    None without a global step. Session run hooks fetch it."""
    from tfcompat.ops import control_flow_ops, state_ops
    from tfcompat.variables import Variable

    graph = graph or graph_lib.get_default_graph()
    cached = graph.get_collection(GLOBAL_STEP_READ_KEY)
    if cached:
        return cached[0]
    step = get_global_step(graph)
    if step is None:
        return None
    with graph.as_default(), graph.name_scope(None), graph.name_scope(step.op.name + "/"):
        if isinstance(step, Variable):
            value = control_flow_ops.cond(
                state_ops.is_variable_initialized(step),
                step.read_value,
                lambda: step.initial_value,
            )
        else:
            value = step
        read = value + 0
        graph.add_to_collection(GLOBAL_STEP_READ_KEY, read)
    return read
