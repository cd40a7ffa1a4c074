"""Grouping and ordering ops: ``NoOp``, ``tf.group``, ``tf.tuple``, ``tf.no_op``."""

from __future__ import annotations

from tfcompat.framework import graph as graph_lib
from tfcompat.framework.op_def import register_op
from tfcompat.framework.op_helper import apply_op
from tfcompat.framework.tensor import Operation, Tensor
from tfcompat.util.tf_export import tf_export

register_op("NoOp")


@tf_export("no_op")
def no_op(name=None):
    """An op that does nothing; useful as a control-dependency anchor."""
    return apply_op("NoOp", name=name)


def _as_op(x):
    if hasattr(x, "_as_graph_element") and not isinstance(x, (Tensor, Operation)):
        x = x._as_graph_element()
    if hasattr(x, "op") and not isinstance(x, Operation):
        return x.op
    return x


@tf_export("group")
def group(*inputs, **kwargs):
    """An op that runs all of ``inputs`` (Tensors or Operations); TF's ``tf.group``."""
    name = kwargs.pop("name", None)
    if kwargs:
        raise TypeError("Unknown keyword arguments: " + ", ".join(kwargs))
    flat = []

    def walk(x):
        if isinstance(x, (list, tuple)):
            for y in x:
                walk(y)
        elif isinstance(x, dict):
            for k in sorted(x):
                walk(x[k])
        elif x is not None:
            flat.append(_as_op(x))

    walk(inputs)
    graph = flat[0].graph if flat else graph_lib.get_default_graph()
    with graph.as_default(), graph.name_scope(name or "group_deps") as scope:
        if not flat:
            return no_op(name=scope)
        by_device = {}
        for op in flat:
            by_device.setdefault(op.device, []).append(op)
        if len(by_device) == 1:
            return _group_on_device(graph, flat, scope)
        # One NoOp per device, then a root NoOp depending on them (TF's two-level tree).
        per_device = [_group_on_device(graph, by_device[d], None) for d in sorted(by_device)]
        with graph.control_dependencies(per_device):
            return no_op(name=scope)


def _group_on_device(graph, deps, name):
    with graph.control_dependencies(deps):
        return no_op(name=name)


@tf_export("tuple")
def tuple_(tensors, name=None, control_inputs=None):
    """Tensors equal to ``tensors``, each available only after all have been computed."""
    from tfcompat.ops import array_ops

    graph = graph_lib.get_default_graph()
    with graph.name_scope(name or "tuple") as scope:
        deps = [t for t in tensors if t is not None]
        gate = group(*(deps + list(control_inputs or [])))
        out = []
        for t in tensors:
            if t is None:
                out.append(None)
            else:
                with graph.control_dependencies([gate]):
                    out.append(array_ops.identity(t))
        _ = scope
        return out
