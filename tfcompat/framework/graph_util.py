"""``tf.graph_util``: the GraphDef rewrites of TF1's deployment path, as TF 2.21 performs
them: ``extract_sub_graph`` (the nodes an output needs, in their original order),
``convert_variables_to_constants`` (the graph "freezing" of ``freeze_graph``: each needed
variable becomes a ``Const`` holding its value in the session, reads of resource variables
become ``Identity``, a ``ResourceGather`` a ``GatherV2``) and ``remove_training_nodes``
(``CheckNumerics`` removed, plain ``Identity`` nodes spliced out).

They work on GraphDef protos, so the result can be written with ``tf.train.write_graph``
and loaded by TensorFlow or by ``tf.import_graph_def`` here.
"""

from __future__ import annotations

import collections
import copy
import re

import numpy as np

from tfcompat.framework import dtypes
from tfcompat.framework.proto import graph_pb2, node_def_pb2
from tfcompat.framework.tensor_util import make_tensor_proto
from tfcompat.util.tf_export import tf_export

_VARIABLE_OPS = ("Variable", "VariableV2", "VarHandleOp")


def _node_name(name: str) -> str:
    """The node an input string names (``^x`` and ``x:1`` name ``x``)."""
    if name.startswith("^"):
        name = name[1:]
    return name.split(":")[0]


@tf_export("graph_util.tensor_shape_from_node_def_name")
def tensor_shape_from_node_def_name(graph, input_name):
    """The static shape of the tensor ``input_name`` (``"node"`` means ``"node:0"``)."""
    name = input_name if ":" in input_name else input_name + ":0"
    return graph.get_tensor_by_name(name).get_shape()


@tf_export("graph_util.extract_sub_graph")
def extract_sub_graph(graph_def, dest_nodes):
    """The GraphDef of the nodes ``dest_nodes`` (node names) reach through their data and
    control inputs, in ``graph_def``'s order; its function library and versions are kept."""
    if not isinstance(graph_def, graph_pb2.GraphDef):
        raise TypeError(
            f"graph_def must be a graph_pb2.GraphDef proto, but got type {type(graph_def)}."
        )
    if isinstance(dest_nodes, str):
        raise TypeError("dest_nodes must be an iterable of strings.")
    nodes = {node.name: (i, node) for i, node in enumerate(graph_def.node)}
    for name in dest_nodes:
        if name not in nodes:
            raise AssertionError(f"{name} is not in graph")
    keep, frontier = set(dest_nodes), collections.deque(dest_nodes)
    while frontier:
        for input_name in nodes[frontier.popleft()][1].input:
            source = _node_name(input_name)
            if source not in keep:
                keep.add(source)
                frontier.append(source)
    out = graph_pb2.GraphDef()
    for name in sorted(keep, key=lambda n: nodes[n][0]):
        out.node.append(copy.deepcopy(nodes[name][1]))
    out.library.CopyFrom(graph_def.library)
    out.versions.CopyFrom(graph_def.versions)
    return out


def _const_node(name, dtype_enum, value) -> node_def_pb2.NodeDef:
    node = node_def_pb2.NodeDef(name=name, op="Const")
    node.attr["dtype"].type = dtype_enum
    proto = make_tensor_proto(np.asarray(value), dtype=dtypes.as_dtype(dtype_enum))
    node.attr["value"].tensor.CopyFrom(proto)
    return node


def _resource_reader(node, dtype_enum) -> node_def_pb2.NodeDef:
    """A ``ReadVariableOp`` as the ``Identity`` of the frozen value; a
    ``ResourceGather`` as ``GatherV2`` reading a new ``<name>/axis`` Const."""
    out = node_def_pb2.NodeDef(name=node.name, device=node.device)
    out.input.extend(node.input)
    if node.op == "ReadVariableOp":
        out.op = "Identity"
        out.attr["T"].type = dtype_enum
    else:  # ResourceGather
        out.op = "GatherV2"
        out.attr["Tparams"].type = dtype_enum
        out.attr["Tindices"].CopyFrom(node.attr["Tindices"])
        out.attr["Taxis"].type = dtypes.int32.as_datatype_enum
        if node.attr["batch_dims"].i:  # TF writes none (GatherV2's default is 0)
            out.attr["batch_dims"].i = node.attr["batch_dims"].i
        out.input.append(node.name + "/axis")
    if "_class" in node.attr:
        out.attr["_class"].CopyFrom(node.attr["_class"])
    return out


@tf_export("graph_util.convert_variables_to_constants")
def convert_variables_to_constants(
    sess,
    input_graph_def,
    output_node_names,
    variable_names_whitelist=None,
    variable_names_blacklist=None,
):
    """``input_graph_def`` cut down to what ``output_node_names`` need, with each of its
    variables (those in the whitelist if given, none in the blacklist) replaced by a
    ``Const`` holding its current value in ``sess``."""
    graph_def = extract_sub_graph(input_graph_def, output_node_names)
    allow = set(variable_names_whitelist) if variable_names_whitelist is not None else None
    deny = set(variable_names_blacklist or ())
    variables = [
        node
        for node in graph_def.node
        if node.op in _VARIABLE_OPS
        and (allow is None or node.name in allow)
        and node.name not in deny
    ]
    fetches = [
        (n.name + "/Read/ReadVariableOp:0" if n.op == "VarHandleOp" else n.name + ":0")
        for n in variables
    ]
    values = dict(zip((n.name for n in variables), sess.run(fetches) if fetches else []))
    frozen_dtypes = {n.name: n.attr["dtype"].type for n in variables}
    out, axes = graph_pb2.GraphDef(), []
    for node in graph_def.node:
        if node.name in values:
            out.node.append(_const_node(node.name, frozen_dtypes[node.name], values[node.name]))
            continue
        source = _node_name(node.input[0]) if node.input else None
        if node.op in ("ReadVariableOp", "ResourceGather") and source in values:
            if node.op == "ResourceGather":  # TF appends the axes after every other node
                axes.append(_const_node(node.name + "/axis", dtypes.int32.as_datatype_enum, 0))
            out.node.append(_resource_reader(node, frozen_dtypes[source]))
            continue
        out.node.append(copy.deepcopy(node))
    out.node.extend(axes)
    out.library.CopyFrom(graph_def.library)
    out.versions.CopyFrom(graph_def.versions)
    return out


def _colocated_name(entry: bytes) -> str:
    text = entry.decode("utf-8")
    return text[5:] if text.startswith("loc:@") else text


def _without_inputs_from(node, removed) -> node_def_pb2.NodeDef:
    new = node_def_pb2.NodeDef()
    new.CopyFrom(node)
    del new.input[:]
    new.input.extend(i for i in node.input if re.sub(r"^\^", "", i) not in removed)
    return new


@tf_export("graph_util.remove_training_nodes")
def remove_training_nodes(input_graph, protected_nodes=None):
    """``input_graph`` without the nodes only training needs: ``CheckNumerics`` nodes are
    removed and ``Identity`` nodes spliced out (except protected ones, those colocated
    with, those with control inputs and those used as control inputs)."""
    protected = set(protected_nodes or ())
    removed = {n.name for n in input_graph.node if n.op == "CheckNumerics"} - protected
    nodes = [_without_inputs_from(n, removed) for n in input_graph.node if n.name not in removed]
    control_sources, with_control_inputs, colocated = set(), set(), set()
    for node in nodes:
        for name in node.input:
            if "^" in name:
                control_sources.add(name.replace("^", ""))
                with_control_inputs.add(node.name)
        if "_class" in node.attr:
            colocated.update(_colocated_name(s) for s in node.attr["_class"].list.s)
    splice = {
        node.name: node.input[0]
        for node in nodes
        if node.op == "Identity"
        and node.name not in protected
        and node.name not in colocated
        and node.name not in with_control_inputs
        and node.name not in control_sources
    }
    out = graph_pb2.GraphDef()
    for node in nodes:
        if node.name in splice:
            continue
        new = node_def_pb2.NodeDef()
        new.CopyFrom(node)
        del new.input[:]
        for full_name in node.input:
            name = re.sub(r"^\^", "", full_name)
            while name in splice:
                full_name = splice[name]
                name = re.sub(r"^\^", "", full_name)
            new.input.append(full_name)
        out.node.append(new)
    return out


# Ops TF pins to the CPU with ``pin_variables_on_cpu``.
_CPU_PINNED_VARIABLE_OPS = frozenset(
    {
        "Assign",
        "AssignAdd",
        "AssignSub",
        "Queue",
        "ScatterAdd",
        "ScatterSub",
        "ScatterUpdate",
        "TruncatedNormal",
        "Variable",
        "VariableV2",
    }
)


@tf_export("graph_util.must_run_on_cpu")
def must_run_on_cpu(node, pin_variables_on_cpu=False):
    """Whether ``node`` (a NodeDef or Operation) must run on the CPU, by TF's rules:
    string or int32 constants, int32 ``DynamicStitch`` and ``Cast`` from int32, and
    variable ops when ``pin_variables_on_cpu``."""
    node_def = node.node_def if hasattr(node, "node_def") else node
    int32 = dtypes.int32.as_datatype_enum
    if pin_variables_on_cpu and node_def.op in _CPU_PINNED_VARIABLE_OPS:
        return True
    if node_def.op == "Const" and node_def.attr["dtype"].type in (
        dtypes.string.as_datatype_enum,
        int32,
    ):
        return True
    if node_def.op in ("DynamicStitch", "ParallelDynamicStitch"):
        return node_def.attr["T"].type == int32
    if node_def.op == "Cast":
        return node_def.attr["SrcT"].type == int32
    return False
