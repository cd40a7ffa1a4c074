"""Small TF1 utilities on tensors: ``tf.is_tensor``, ``tf.get_static_value``,
``tf.make_tensor_proto`` / ``tf.make_ndarray``, ``tf.init_scope`` and ``tf.ensure_shape``
(TF's ``EnsureShape`` op: the static shape narrowed, the value checked when it runs)."""

from __future__ import annotations

import contextlib

import numpy as np

from tfcompat.framework import errors, tensor_shape, tensor_util
from tfcompat.framework import graph as graph_lib
from tfcompat.framework.constant_value import constant_value
from tfcompat.framework.gradient_registry import RegisterGradient
from tfcompat.framework.op_def import register_op
from tfcompat.framework.op_helper import apply_op
from tfcompat.framework.sparse_tensor import SparseTensor
from tfcompat.framework.tensor import Tensor
from tfcompat.util.tf_export import tf_export

tf_export("make_tensor_proto")(tensor_util.make_tensor_proto)
tf_export("make_ndarray")(tensor_util.make_ndarray)


@tf_export("is_tensor")
def is_tensor(x):
    """Whether ``x`` is a graph tensor (a Tensor, SparseTensor, Variable...)."""
    from tfcompat.variables import Variable

    return isinstance(x, (Tensor, SparseTensor, Variable)) or hasattr(x, "_as_graph_element")


@tf_export("is_symbolic_tensor")
def is_symbolic_tensor(tensor):
    """Whether ``tensor`` is a graph tensor (every Tensor is, in TF1 graphs)."""
    return isinstance(tensor, Tensor)


@tf_export("get_static_value")
def get_static_value(tensor, partial=False):
    """The value of ``tensor`` when the graph determines it (constants and arithmetic on
    them), else None; a non-tensor is returned as a numpy array."""
    if not isinstance(tensor, Tensor):
        return np.asarray(tensor) if not is_tensor(tensor) else None
    return constant_value(tensor)


@tf_export("init_scope")
@contextlib.contextmanager
def init_scope():
    """Ops created in the block run outside control-flow contexts and without control
    dependencies (where TF1 code creates variables' initial values)."""
    from tfcompat.ops import control_flow_contexts as cfc

    graph = graph_lib.get_default_graph()
    stack = graph._extensions.get(cfc._STACK_KEY)
    saved = list(stack) if stack else None
    if stack:
        stack.clear()
    try:
        with graph.control_dependencies(None):
            yield
    finally:
        if saved is not None:
            graph._extensions[cfc._STACK_KEY][:] = saved


def _ensure_shape_shape(op):
    shape = tensor_shape.as_shape(op.attrs["shape"])
    return [op.inputs[0].shape.merge_with(shape)]


register_op(
    "EnsureShape",
    inputs=["input: T"],
    outputs=["output: T"],
    attrs=["shape: shape", "T: type"],
    shape_fn=_ensure_shape_shape,
)


@RegisterGradient("EnsureShape")
def _ensure_shape_grad(op, grad):
    return [grad]


def check_shape(op, actual):
    """TF's run-time check of ``EnsureShape``."""
    expected = tensor_shape.as_shape(op.attrs["shape"])
    if not expected.is_compatible_with(tensor_shape.TensorShape(list(actual))):
        shown = "[" + ",".join("?" if d is None else str(d) for d in expected.as_list()) + "]"
        raise errors.InvalidArgumentError(
            None,
            op,
            f"Shape of tensor {op.inputs[0].op.name} [{','.join(map(str, actual))}] is not "
            f"compatible with expected shape {shown}.",
        )


@tf_export("ensure_shape", "debugging.ensure_shape")
def ensure_shape(x, shape, name=None):
    """``x``, whose shape must be compatible with ``shape`` (checked when it runs)."""
    shape = tensor_shape.as_shape(shape)
    return apply_op("EnsureShape", name=name, input=x, shape=shape).outputs[0]
