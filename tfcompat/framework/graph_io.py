"""GraphDef I/O: ``Graph.as_graph_def``, ``tf.import_graph_def``, ``tf.train.write_graph``.

The protobufs are our own (``framework/proto``) with TensorFlow's field numbers, so bytes and
text written here load in TensorFlow and vice versa. Attr values move between their canonical
Python form and ``AttrValue`` through one table per attr type.
"""

from __future__ import annotations

import os

from google.protobuf import message, text_format

from tfcompat.framework import dtypes, errors, op_helper, tensor_shape, tensor_util
from tfcompat.framework import graph as graph_lib
from tfcompat.framework import op_def as op_def_lib
from tfcompat.framework.proto import attr_value_pb2, graph_pb2, node_def_pb2

# ---------------------------------------------------------------------------------------------
# Attr values: canonical Python <-> AttrValue, one entry per attr type
# ---------------------------------------------------------------------------------------------
# attr type -> (AttrValue / ListValue field, to-proto converter, from-proto converter)
_ATTR_FIELDS = {
    "string": ("s", lambda v: v, lambda v: v),
    "int": ("i", int, int),
    "float": ("f", float, float),
    "bool": ("b", bool, bool),
    "type": ("type", lambda v: v.as_datatype_enum, dtypes.as_dtype),
    "shape": ("shape", lambda v: v.as_proto(), tensor_shape.TensorShape),
    "tensor": ("tensor", tensor_util.make_tensor_proto, tensor_util.make_ndarray),
    "func": ("func", lambda v: attr_value_pb2.NameAttrList(name=v), lambda v: v.name),
}
_MESSAGE_FIELDS = {"shape", "tensor", "func"}


def _guess_attr_type(value) -> str:
    """The attr type of a value set outside any OpDef (``_class`` and friends)."""
    if isinstance(value, list):
        return f"list({_guess_attr_type(value[0]) if value else 'string'})"
    for attr_type, python_type in (
        ("bool", bool),
        ("int", int),
        ("float", float),
        ("string", bytes),
        ("type", dtypes.DType),
        ("shape", tensor_shape.TensorShape),
    ):
        if isinstance(value, python_type):
            return attr_type
    return "tensor"


def attr_to_proto(attr_type: str, value) -> attr_value_pb2.AttrValue:
    proto = attr_value_pb2.AttrValue()
    if attr_type.startswith("list("):
        field, to_proto, _ = _ATTR_FIELDS[attr_type[5:-1]]
        proto.list.SetInParent()
        items = [to_proto(v) for v in value]
        if field in _MESSAGE_FIELDS:
            for item in items:
                getattr(proto.list, field).add().CopyFrom(item)
        else:
            getattr(proto.list, field).extend(items)
        return proto
    field, to_proto, _ = _ATTR_FIELDS[attr_type]
    converted = to_proto(value)
    if field in _MESSAGE_FIELDS:
        getattr(proto, field).CopyFrom(converted)
    else:
        setattr(proto, field, converted)
    return proto


def attr_from_proto(proto: attr_value_pb2.AttrValue):
    """The canonical Python value of an AttrValue (lists by their populated field)."""
    kind = proto.WhichOneof("value")
    if kind == "list":
        for field, _, from_proto in _ATTR_FIELDS.values():
            items = getattr(proto.list, field)
            if len(items):
                return [from_proto(v) for v in items]
        return []
    for field, _, from_proto in _ATTR_FIELDS.values():
        if field == kind:
            return from_proto(getattr(proto, field))
    if kind == "placeholder":
        raise ValueError(f"Attr placeholder '{proto.placeholder}' is only valid in functions")
    return None


# ---------------------------------------------------------------------------------------------
# Export
# ---------------------------------------------------------------------------------------------
def attr_value_of(op, key) -> attr_value_pb2.AttrValue:
    """The ``AttrValue`` proto of one of ``op``'s attrs (typed by its OpDef when declared)."""
    attr_defs = op.op_def.attrs if op.op_def else {}
    value = op.attrs[key]
    attr_type = attr_defs[key].type if key in attr_defs else _guess_attr_type(value)
    return attr_to_proto(attr_type, value)


# AttrValue field -> how TF's ``Operation.get_attr`` presents it (others as stored).
_GET_ATTR_CONVERTERS = {"type": dtypes.as_dtype}


def attr_value_to_python(proto: attr_value_pb2.AttrValue):
    """TF's ``get_attr`` view of an AttrValue: the populated field as is (protos for shapes,
    tensors and funcs), DTypes for types, a Python list for lists (``[]`` when empty)."""
    kind = proto.WhichOneof("value")
    if kind is None:
        return []
    if kind == "list":
        for field in ("s", "i", "f", "b", "type", "shape", "tensor", "func"):
            items = getattr(proto.list, field)
            if len(items):
                convert = _GET_ATTR_CONVERTERS.get(field, lambda v: v)
                return [convert(v) for v in items]
        return []
    return _GET_ATTR_CONVERTERS.get(kind, lambda v: v)(getattr(proto, kind))


def node_def_from_operation(op) -> node_def_pb2.NodeDef:
    node = node_def_pb2.NodeDef(name=op.name, op=op.type, device=op.device)
    node.input.extend(t._as_node_def_input() for t in op.inputs)
    node.input.extend("^" + c.name for c in op.control_inputs)
    for key in op.attrs:
        node.attr[key].CopyFrom(attr_value_of(op, key))
    return node


def graph_to_graph_def(graph, from_version=None, add_shapes=False) -> graph_pb2.GraphDef:
    graph_def = graph_pb2.GraphDef()
    graph_def.versions.CopyFrom(graph.graph_def_versions)
    for op in graph.get_operations():
        if from_version is not None and op._id < from_version:
            continue
        node = graph_def.node.add()
        node.CopyFrom(node_def_from_operation(op))
        if add_shapes:
            node.attr["_output_shapes"].CopyFrom(
                attr_to_proto("list(shape)", [t.shape for t in op.outputs])
            )
    return graph_def


def write_graph(graph_or_graph_def, logdir, name, as_text=True) -> str:
    """Writes a GraphDef to ``logdir/name`` (text format by default); returns the path."""
    graph_def = graph_or_graph_def
    if isinstance(graph_or_graph_def, graph_lib.Graph):
        graph_def = graph_or_graph_def.as_graph_def()
    os.makedirs(logdir, exist_ok=True)
    path = os.path.join(logdir, name)
    if as_text:
        with open(path, "w") as f:
            f.write(text_format.MessageToString(graph_def))
    else:
        with open(path, "wb") as f:
            f.write(graph_def.SerializeToString())
    return path


def read_graph_def(path: str) -> graph_pb2.GraphDef:
    """Reads a binary (``.pb``) or text (``.pbtxt``) GraphDef; DataLossError if malformed."""
    with open(path, "rb") as f:
        data = f.read()
    return parse_graph_def(data, path, text=path.endswith((".pbtxt", ".txt")))


def parse_graph_def(data: bytes, source="<bytes>", text=False) -> graph_pb2.GraphDef:
    graph_def = graph_pb2.GraphDef()
    try:
        if text:
            text_format.Parse(data.decode("utf-8"), graph_def)
        else:
            graph_def.ParseFromString(data)
    except (message.DecodeError, text_format.ParseError, UnicodeDecodeError) as e:
        raise errors.DataLossError(
            None, None, f"Unable to parse GraphDef from {source}: {e}"
        ) from None
    return graph_def


# ---------------------------------------------------------------------------------------------
# Import
# ---------------------------------------------------------------------------------------------
def _parse_input(name: str):
    """``"^op"`` -> (op, None); ``"op:2"`` -> (op, 2); ``"op"`` -> (op, 0)."""
    if name.startswith("^"):
        return name[1:], None
    op_name, sep, index = name.rpartition(":")
    if sep and index.isdigit():
        return op_name, int(index)
    return name, 0


def _topological_order(nodes):
    """Nodes ordered so inputs come first, keeping the GraphDef's order where it already is;
    ValueError naming the nodes of a cycle."""
    import heapq

    by_name = {n.name: n for n in nodes}
    position = {n.name: i for i, n in enumerate(nodes)}
    users = {name: [] for name in by_name}
    remaining = {}
    for n in nodes:
        deps = {_parse_input(i)[0] for i in n.input} & by_name.keys()
        remaining[n.name] = len(deps)
        for d in deps:
            users[d].append(n.name)
    heap = [(position[name], name) for name, count in remaining.items() if count == 0]
    heapq.heapify(heap)
    order = []
    while heap:
        _, name = heapq.heappop(heap)
        order.append(by_name[name])
        for user in users[name]:
            remaining[user] -= 1
            if remaining[user] == 0:
                heapq.heappush(heap, (position[user], user))
    if len(order) != len(nodes):
        stuck = sorted(name for name, count in remaining.items() if count > 0)
        raise ValueError(
            "GraphDef cannot be imported: it contains a cycle through nodes "
            + ", ".join(repr(s) for s in stuck[:10])
        )
    return order


def import_graph_def(
    graph_def, input_map=None, return_elements=None, name=None, op_dict=None, producer_op_list=None
):
    """Adds the GraphDef's nodes to the default graph under scope ``name`` ("import" by
    default). ``input_map`` replaces GraphDef tensors by existing ones; ``return_elements``
    lists names of tensors/ops to return."""
    if isinstance(graph_def, (bytes, bytearray)):
        graph_def = parse_graph_def(bytes(graph_def))
    if not hasattr(graph_def, "node"):
        raise TypeError(f"graph_def must be a GraphDef proto, got {type(graph_def).__name__}")
    missing = sorted({n.op for n in graph_def.node if n.op not in op_def_lib.OPDEFS})
    if missing:
        raise errors.NotFoundError(
            None,
            None,
            "Op type not registered "
            + ", ".join(f"'{m}'" for m in missing)
            + " in binary running on tfcompat: the GraphDef uses "
            + f"{len(missing)} op type(s) that tfcompat does not implement.",
        )
    input_map = dict(input_map or {})
    for key in input_map:
        if not isinstance(key, str):
            raise TypeError("input_map must be a dictionary mapping strings to Tensor objects.")
    graph = graph_lib.get_default_graph()
    names = [n.name for n in graph_def.node]
    if len(set(names)) != len(names):
        dup = next(n for n in names if names.count(n) > 1)
        raise ValueError(f"Duplicate node name in graph: '{dup}'")
    nodes = _topological_order(list(graph_def.node))
    scope_name = "import" if name is None else name
    with graph.name_scope(scope_name or None) as scope:
        prefix = scope if scope_name else ""
        created = {}
        used_inputs = set()
        for node in nodes:
            inputs, controls = [], []
            for inp in node.input:
                src, index = _parse_input(inp)
                key = src if index is None else f"{src}:{index}"
                if index is not None and (key in input_map or (index == 0 and src in input_map)):
                    mapped = input_map.get(key, input_map.get(src))
                    inputs.append(op_helper.convert_to_tensor(mapped))
                    used_inputs.add(key if key in input_map else src)
                    continue
                if index is None and inp in input_map:
                    used_inputs.add(inp)
                    controls.append(input_map[inp])
                    continue
                if src not in created:
                    raise ValueError(f"Node '{node.name}': Unknown input node '{inp}' in GraphDef")
                if index is None:
                    controls.append(created[src])
                else:
                    outputs = created[src].outputs
                    if index >= len(outputs):
                        raise ValueError(
                            f"Node '{node.name}': Connecting to invalid output {index} of "
                            f"source node {src} which has {len(outputs)} outputs."
                        )
                    inputs.append(outputs[index])
            attrs = {key: attr_from_proto(value) for key, value in node.attr.items()}
            attrs = _rename_colocation(attrs, prefix)
            try:
                op = op_helper.create_op_from_node(
                    graph, prefix + node.name, node.op, inputs, attrs
                )
            except (TypeError, ValueError) as e:
                raise ValueError(
                    f"Node '{node.name}' ({node.op}) could not be imported: {e}"
                ) from None
            op._add_control_inputs(
                c if not isinstance(c, str) else graph.get_operation_by_name(c) for c in controls
            )
            if node.device:
                op._set_device(node.device)
            created[node.name] = op
    unused = set(input_map) - used_inputs
    if unused:
        raise ValueError(
            "Attempted to map inputs that were not found in graph_def: ["
            + ", ".join(sorted(unused))
            + "]"
        )
    if return_elements is None:
        return None
    results = []
    for element in return_elements:
        src, index = _parse_input(element)
        if src not in created:
            raise ValueError(f"Requested return_element {element!r} not found in graph_def.")
        if ":" in element:
            results.append(created[src].outputs[index])
        else:
            results.append(created[src])
    return results


def _rename_colocation(attrs, prefix):
    if prefix and "_class" in attrs:
        attrs["_class"] = [
            b"loc:@" + prefix.encode() + g[5:] if g.startswith(b"loc:@") else g
            for g in attrs["_class"]
        ]
    return attrs
