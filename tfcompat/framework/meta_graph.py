"""MetaGraphDef: a graph with its saver, collections and op signatures, as TF1 writes it
to a checkpoint's ``.meta`` file (``tf.train.export_meta_graph`` / ``import_meta_graph``).

Export serialises the default graph (with ``_output_shapes``), the OpDefs of the ops it uses
(``meta_info_def.stripped_op_list``), the SaverDef, and every collection the way TF does:

* collections with a proto function (the variable collections, ``savers``) as a
  ``bytes_list`` of serialized protos (``VariableDef``, ``SaverDef``);
* Tensors and Operations as a ``node_list`` of names, ``str``/``bytes`` as a
  ``bytes_list``, ``int`` as an ``int64_list``, ``float`` as a ``float_list``;
* anything else is skipped with a warning, as TF skips what it cannot serialize.

Control-flow contexts (``cond_context`` / ``while_context``) are written as TF writes them,
CondContextDef / WhileContextDef (``tfcompat/ops/control_flow_protos.py``), so TF importing
the graph gets its loops and conds back; on import here they are not read, as
``import_graph_def`` recovers v1 control-flow contexts from the dataflow ops. Queue runners
are skipped in both directions.

Import adds the GraphDef's nodes (``import_graph_def``), rebuilds each collection (variables
as ``Variable`` / ``ResourceVariable`` objects over the imported nodes, one object per
variable however many collections hold it) and returns a ``Saver`` over the SaverDef.
"""

from __future__ import annotations

import copy
import logging
import os
import re

from google.protobuf import message, text_format

from tfcompat.framework import graph as graph_lib
from tfcompat.framework import graph_io
from tfcompat.framework import op_def as op_def_lib
from tfcompat.framework.graph import GraphKeys
from tfcompat.framework.proto import (
    attr_value_pb2,
    control_flow_pb2,
    graph_pb2,
    meta_graph_pb2,
    op_def_pb2,
    saver_pb2,
    variable_pb2,
)
from tfcompat.framework.tensor import Operation, Tensor
from tfcompat.util.tf_export import tf_export

_logger = logging.getLogger("tfcompat")

# Inputs from outside ``export_scope`` are renamed with this prefix and listed in the
# ``unbound_inputs`` collection; import then requires an ``input_map`` for each.
_UNBOUND_INPUT_PREFIX = "$unbound_inputs_"
_UNBOUND_INPUTS_KEY = "unbound_inputs"

# The version we record: TF reads ``tensorflow_version`` as a PEP 440 version (a VariableDef
# of a graph older than 1.9 lacks ``trainable``), so it is the TF API version we follow.
_API_VERSION = "2.21.0"
_GIT_VERSION = "tfcompat"

# Collections TF serializes with protos that tfcompat does not have; skipped both ways.
_UNSERIALIZED_COLLECTIONS = {
    GraphKeys.QUEUE_RUNNERS: "tfcompat has no queue runners",
}
# Collections written on export but not read on import.
_UNRESTORED_COLLECTIONS = {
    GraphKeys.COND_CONTEXT: "control-flow contexts are recovered from the graph on import",
    GraphKeys.WHILE_CONTEXT: "control-flow contexts are recovered from the graph on import",
}

_WARNED: set = set()

# Collections TF once wrote as node lists (importing one warns).
_COMPAT_COLLECTIONS = (
    GraphKeys.LOCAL_VARIABLES,
    GraphKeys.MODEL_VARIABLES,
    GraphKeys.METRIC_VARIABLES,
)


# ---------------------------------------------------------------------------------------------
# Name scopes
# ---------------------------------------------------------------------------------------------
def strip_name_scope(name: str, export_scope) -> str:
    """``name`` without a leading ``export_scope/`` (also after ``^`` or ``loc:@``)."""
    if not export_scope:
        return name
    scope = export_scope[:-1] if export_scope.endswith("/") else export_scope
    text = name.decode() if isinstance(name, bytes) else name
    return re.sub(r"([\^]|loc:@|^)" + scope + r"[\/]+(.*)", r"\1\2", text, count=1)


def prepend_name_scope(name, import_scope):
    """``name`` under ``import_scope/`` (after a ``^`` or ``loc:@`` prefix); values that are
    not strings come back unchanged."""
    if not import_scope:
        return name
    scope = import_scope[:-1] if import_scope.endswith("/") else import_scope
    if isinstance(name, bytes):
        name = name.decode()
    if not isinstance(name, str):
        return name
    return re.sub(r"([\^]|loc:@|^)(.*)", r"\1" + scope + r"/\2", name)


# ---------------------------------------------------------------------------------------------
# Collections serialized as protos
# ---------------------------------------------------------------------------------------------
def _variable_to_proto(variable, export_scope=None):
    return variable.to_proto(export_scope=export_scope)


def _variable_from_proto(variable_def, import_scope=None):
    from tfcompat import variables

    return variables._from_proto_fn(variable_def, import_scope=import_scope)


def _saver_to_proto(saver, export_scope=None):
    return saver.to_proto(export_scope=export_scope)


def _saver_from_proto(saver_def, import_scope=None):
    from tfcompat.train.saver import Saver

    return Saver.from_proto(saver_def, import_scope=import_scope)


# Collection key -> (proto class, to_proto(value, export_scope), from_proto(proto, scope)).
_PROTO_FUNCTIONS: dict[str, tuple] = {}

# TF's variable collections: one object per variable across them on import.
_VARIABLE_COLLECTIONS = (
    GraphKeys.GLOBAL_VARIABLES,
    GraphKeys.LOCAL_VARIABLES,
    GraphKeys.METRIC_VARIABLES,
    GraphKeys.MODEL_VARIABLES,
    GraphKeys.TRAINABLE_VARIABLES,
    GraphKeys.MOVING_AVERAGE_VARIABLES,
    GraphKeys.CONCATENATED_VARIABLES,
    GraphKeys.TRAINABLE_RESOURCE_VARIABLES,
)


def register_proto_function(key, proto_type=None, to_proto=None, from_proto=None):
    """Collection ``key`` is exported as a ``bytes_list`` of ``to_proto`` results and
    imported through ``from_proto`` (TF's ``ops.register_proto_function``)."""
    _PROTO_FUNCTIONS[key] = (proto_type, to_proto, from_proto)


for _key in (
    GraphKeys.GLOBAL_VARIABLES,
    GraphKeys.TRAINABLE_VARIABLES,
    GraphKeys.MOVING_AVERAGE_VARIABLES,
    GraphKeys.LOCAL_VARIABLES,
    GraphKeys.MODEL_VARIABLES,
    GraphKeys.GLOBAL_STEP,
    GraphKeys.METRIC_VARIABLES,
):
    register_proto_function(
        _key, variable_pb2.VariableDef, _variable_to_proto, _variable_from_proto
    )
register_proto_function(GraphKeys.SAVERS, saver_pb2.SaverDef, _saver_to_proto, _saver_from_proto)


def _context_to_proto(context, export_scope=None):
    from tfcompat.ops import control_flow_protos  # ops build on the framework

    return control_flow_protos.to_proto(context, export_scope)


register_proto_function(
    GraphKeys.WHILE_CONTEXT, control_flow_pb2.WhileContextDef, _context_to_proto
)
register_proto_function(GraphKeys.COND_CONTEXT, control_flow_pb2.CondContextDef, _context_to_proto)


# ---------------------------------------------------------------------------------------------
# Stripped op list: the OpDefs of the ops a graph uses
# ---------------------------------------------------------------------------------------------
def _arg_to_proto(arg: op_def_lib.ArgDef) -> op_def_pb2.OpDef.ArgDef:
    proto = op_def_pb2.OpDef.ArgDef(name=arg.name, is_ref=arg.is_ref)
    if arg.dtype is not None:
        proto.type = arg.dtype.base_dtype.as_datatype_enum
    proto.type_attr = arg.type_attr or ""
    proto.number_attr = arg.number_attr or ""
    proto.type_list_attr = arg.type_list_attr or ""
    return proto


def _attr_to_proto(attr: op_def_lib.AttrDef) -> op_def_pb2.OpDef.AttrDef:
    proto = op_def_pb2.OpDef.AttrDef(name=attr.name, type=attr.type)
    if attr.has_default:
        proto.default_value.CopyFrom(graph_io.attr_to_proto(attr.type, attr.default))
    if attr.minimum is not None:
        proto.has_minimum = True
        proto.minimum = attr.minimum
    if attr.allowed_values is not None:
        base = attr.type[5:-1] if attr.type.startswith("list(") else attr.type
        proto.allowed_values.CopyFrom(
            graph_io.attr_to_proto(f"list({base})", list(attr.allowed_values))
        )
    return proto


def op_def_to_proto(op_def: op_def_lib.OpDef) -> op_def_pb2.OpDef:
    """A registered op's signature as an ``OpDef`` proto (without documentation)."""
    return op_def_pb2.OpDef(
        name=op_def.name,
        input_arg=[_arg_to_proto(a) for a in op_def.inputs],
        output_arg=[_arg_to_proto(a) for a in op_def.outputs],
        attr=[_attr_to_proto(a) for a in op_def.attrs.values()],
        is_commutative=op_def.is_commutative,
        is_stateful=op_def.is_stateful,
        allows_uninitialized_input=op_def.allows_uninitialized_input,
    )


def ops_used_by_graph_def(graph_def) -> list[str]:
    """Op types of the graph's nodes and of the nodes of the library functions they call."""
    functions = {f.signature.name: f for f in graph_def.library.function}
    used, pending = set(), []

    def mark(op_type):
        if op_type not in used and op_type in functions:
            pending.append(functions[op_type])
        used.add(op_type)

    def visit(node):
        mark(node.op)
        if node.op in ("PartitionedCall", "StatefulPartitionedCall"):
            mark(node.attr["f"].func.name)

    for node in graph_def.node:
        visit(node)
    while pending:
        for node in pending.pop().node_def:
            visit(node)
    return [op for op in used if op not in functions]


def stripped_op_list_for_graph(graph_def) -> op_def_pb2.OpList:
    """The OpDefs of the registered ops the graph uses, sorted by name."""
    op_defs = []
    for op_type in sorted(ops_used_by_graph_def(graph_def)):
        registered = op_def_lib.OPDEFS.get(op_type)
        if registered is not None:
            op_defs.append(op_def_to_proto(registered))
    return op_def_pb2.OpList(op=op_defs)


def strip_graph_default_valued_attrs(meta_graph_def):
    """Removes node attrs equal to their OpDef default; sets ``stripped_default_attrs``."""
    functions = {f.signature.name for f in meta_graph_def.graph_def.library.function}

    def strip(node):
        registered = op_def_lib.OPDEFS.get(node.op)
        if node.op in functions or registered is None:
            return
        for name in list(node.attr):
            attr = registered.attrs.get(name)
            if attr is None or not attr.has_default:
                continue
            default = graph_io.attr_to_proto(attr.type, attr.default)
            if node.attr[name].SerializeToString() == default.SerializeToString():
                del node.attr[name]

    for node in meta_graph_def.graph_def.node:
        strip(node)
    for function in meta_graph_def.graph_def.library.function:
        for node in function.node_def:
            strip(node)
    meta_graph_def.meta_info_def.stripped_default_attrs = True


# ---------------------------------------------------------------------------------------------
# Export
# ---------------------------------------------------------------------------------------------
def _node_name(item):
    return item if isinstance(item, str) else getattr(item, "name", None)


def _should_include(item, export_scope, exclude_nodes) -> bool:
    """Whether a node (or collection item) belongs in the export: inside ``export_scope``,
    not excluded; items without a name always do."""
    name = _node_name(item)
    if name is None:
        return True
    if exclude_nodes and (name in exclude_nodes or item in exclude_nodes):
        return False
    return (
        name.startswith(_UNBOUND_INPUT_PREFIX) or not export_scope or name.startswith(export_scope)
    )


def _scoped_node_def(node, export_scope, unbound_inputs, clear_devices):
    """A copy of ``node`` with ``export_scope`` stripped from its names; inputs from outside
    the scope become ``$unbound_inputs_<name>`` and are recorded in ``unbound_inputs``."""
    out = copy.deepcopy(node)
    for i, text in enumerate(node.input):
        if export_scope and not text.lstrip("^").startswith(export_scope):
            out.input[i] = re.sub(r"([\^]|^)(.*)", r"\1" + _UNBOUND_INPUT_PREFIX + r"\2", text)
            unbound_inputs.append(out.input[i])
        else:
            out.input[i] = strip_name_scope(text, export_scope)
    out.name = strip_name_scope(node.name, export_scope)
    if "_class" in node.attr:
        groups = [
            strip_name_scope(s.decode(), export_scope).encode()
            for s in node.attr["_class"].list.s
            if not export_scope or s.decode().split("@")[1].startswith(export_scope)
        ]
        out.attr["_class"].CopyFrom(
            attr_value_pb2.AttrValue(list=attr_value_pb2.AttrValue.ListValue(s=groups))
        )
    if node.op in ("Enter", "RefEnter") and "frame_name" in node.attr:
        frame = node.attr["frame_name"].s.decode()
        if not export_scope or frame.startswith(export_scope):
            out.attr["frame_name"].s = strip_name_scope(frame, export_scope).encode()
    if clear_devices:
        out.device = ""
    return out


def _scope_of(node_name: str) -> str:
    """The deepest name scope holding a node (``""`` at the root)."""
    node_name = node_name.lstrip("^")
    return node_name.rsplit("/", 1)[0] if "/" in node_name else ""


_SAVE_AND_RESTORE_OPS = (
    "SaveV2",
    "Save",
    "SaveSlice",
    "LegacySave",
    "LegacySaveSlice",
    "RestoreV2",
    "Restore",
    "RestoreSlice",
    "LegacyRestore",
    "LegacyRestoreSlice",
)


def _find_extraneous_saver_nodes(graph_def, saver_def) -> set:
    """Names of the nodes in the scopes of savers other than ``saver_def``'s (each saver is
    assumed to live in its own name scope, as TF assumes)."""
    keep = set()
    if saver_def is not None:
        for name in (saver_def.save_tensor_name, saver_def.restore_op_name):
            keep.add(_scope_of(name.split(":")[0]) + "/")
    saver_nodes = {n.name for n in graph_def.node if n.op in _SAVE_AND_RESTORE_OPS}
    scopes = {_scope_of(n) for n in saver_nodes} - saver_nodes
    extraneous = {s + "/" for s in scopes} - keep
    return {n.name for n in graph_def.node if any(n.name.startswith(s) for s in extraneous)}


def _kind_of(item) -> str:
    """The CollectionDef field TF stores a collection in, judged by its first item."""
    if isinstance(item, (str, bytes)):
        return "bytes_list"
    if isinstance(item, int):
        return "int64_list"
    if isinstance(item, float):
        return "float_list"
    return "node_list"


def _fill_collection_def(col_def, key, items, export_scope):
    proto_type, to_proto, _ = _PROTO_FUNCTIONS.get(key, (None, None, None))
    if to_proto is not None:
        for item in items:
            proto = to_proto(item, export_scope=export_scope)
            if proto:
                if not isinstance(proto, proto_type):
                    raise TypeError(f"expected {proto_type.__name__}, got {type(proto).__name__}")
                col_def.bytes_list.value.append(proto.SerializeToString())
        return
    kind = _kind_of(items[0])
    field = getattr(col_def, kind)
    if kind == "node_list":
        for item in items:
            if not isinstance(item, (Tensor, Operation)):
                raise TypeError(f"{item!r} is not a Tensor or Operation")
            if not export_scope or item.name.startswith(export_scope):
                field.value.append(strip_name_scope(item.name, export_scope))
    elif kind == "bytes_list":
        field.value.extend(i.encode() if isinstance(i, str) else i for i in items)
    else:
        field.value.extend(items)


def add_collection_def(
    meta_graph_def, key, graph=None, export_scope=None, exclude_nodes=None, override_contents=None
):
    """Adds collection ``key`` of ``graph`` to ``meta_graph_def`` (see the module docstring
    for the encoding); collections that cannot be serialized are skipped with a warning."""
    if not isinstance(key, (str, bytes)):
        _logger.warning(
            "Only collections with string type keys will be serialized. This key has %s",
            type(key),
        )
        return
    if key in _UNSERIALIZED_COLLECTIONS:
        if key not in _WARNED:  # once per process: every checkpoint of a graph would repeat it
            _WARNED.add(key)
            _logger.warning(
                "Collection %s is not serialized: %s.", key, _UNSERIALIZED_COLLECTIONS[key]
            )
        return
    graph = graph or graph_lib.get_default_graph()
    items = override_contents or graph.get_collection(key)
    items = [x for x in items if _should_include(x, export_scope, exclude_nodes)]
    if not items:
        return
    try:
        _fill_collection_def(meta_graph_def.collection_def[key], key, items, export_scope)
    except Exception as e:  # noqa: BLE001 - any unserializable item skips the collection
        _logger.warning(
            "Issue encountered when serializing %s.\nType is unsupported, or the types of the "
            "items don't match field type in CollectionDef. Note this is a warning and "
            "probably safe to ignore.\n%s",
            key,
            e,
        )
        if key in meta_graph_def.collection_def:
            del meta_graph_def.collection_def[key]


def _check_proto(value, proto_type, what):
    if value and not isinstance(value, proto_type):
        raise TypeError(
            f"{what} must be of type {proto_type.__name__}. Received type: {type(value)}."
        )


def create_meta_graph_def(
    meta_info_def=None,
    graph_def=None,
    saver_def=None,
    collection_list=None,
    graph=None,
    export_scope=None,
    exclude_nodes=None,
    clear_extraneous_savers=False,
    strip_default_attrs=False,
):
    """A MetaGraphDef of ``graph`` (or of ``graph_def`` with ``graph``'s collections)."""
    if graph is not None and not isinstance(graph, graph_lib.Graph):
        raise TypeError(f"graph must be of type Graph. Received type: {type(graph)}.")
    _check_proto(meta_info_def, meta_graph_pb2.MetaGraphDef.MetaInfoDef, "meta_info_def")
    _check_proto(graph_def, graph_pb2.GraphDef, "graph_def")
    _check_proto(saver_def, saver_pb2.SaverDef, "saver_def")
    graph = graph or graph_lib.get_default_graph()
    meta_graph_def = meta_graph_pb2.MetaGraphDef()
    info = meta_info_def or meta_graph_pb2.MetaGraphDef.MetaInfoDef()
    info.tensorflow_version = _API_VERSION
    info.tensorflow_git_version = _GIT_VERSION
    meta_graph_def.meta_info_def.MergeFrom(info)
    meta_graph_def.graph_def.MergeFrom(graph_def or graph.as_graph_def(add_shapes=True))
    if not meta_graph_def.meta_info_def.stripped_op_list.op:
        meta_graph_def.meta_info_def.stripped_op_list.MergeFrom(
            stripped_op_list_for_graph(meta_graph_def.graph_def)
        )
    if strip_default_attrs:
        strip_graph_default_valued_attrs(meta_graph_def)
    if saver_def:
        meta_graph_def.saver_def.MergeFrom(saver_def)
    if collection_list is None:
        # Every string-keyed collection (Python-object caches use tuple keys).
        keys = [k for k in graph.get_all_collection_keys() if isinstance(k, str)]
    else:
        keys = collection_list
    for key in keys:
        override = None
        if clear_extraneous_savers and key == GraphKeys.SAVERS:
            override = [_saver_from_proto(saver_def)]
        add_collection_def(
            meta_graph_def,
            key,
            graph=graph,
            export_scope=export_scope,
            exclude_nodes=exclude_nodes,
            override_contents=override,
        )
    return meta_graph_def


def _scoped_graph_def(graph, graph_def, export_scope, clear_devices, exclude_fn):
    """The GraphDef to export when a scope, device clearing or saver pruning applies:
    nodes filtered and renamed; returns it and the unbound inputs it found."""
    source = graph_def or graph.as_graph_def(add_shapes=True)
    exclude_nodes = exclude_fn(source)
    out = graph_pb2.GraphDef()
    out.versions.CopyFrom(source.versions)
    out.library.CopyFrom(source.library)
    unbound = []
    for node in source.node:
        if _should_include(node.name, export_scope, exclude_nodes):
            out.node.append(_scoped_node_def(node, export_scope, unbound, clear_devices))
    return out, unbound, exclude_nodes


def export_scoped_meta_graph(
    filename=None,
    graph_def=None,
    graph=None,
    export_scope=None,
    as_text=False,
    unbound_inputs_col_name=_UNBOUND_INPUTS_KEY,
    clear_devices=False,
    saver_def=None,
    clear_extraneous_savers=False,
    strip_default_attrs=False,
    save_debug_info=False,
    **kwargs,
):
    """Exports the graph (or the part under ``export_scope``, names relative to it) as a
    MetaGraphDef, written to ``filename`` if given; returns it and ``{name: variable}`` of
    the exported global variables."""
    del save_debug_info  # tfcompat ops record no stack traces: there is no debug info to write
    graph = graph or graph_lib.get_default_graph()
    exclude_nodes = None
    if export_scope or clear_extraneous_savers or clear_devices:

        def exclude_fn(source):
            if clear_extraneous_savers:
                return _find_extraneous_saver_nodes(source, saver_def)
            return None

        graph_def, unbound, exclude_nodes = _scoped_graph_def(
            graph, graph_def, export_scope, clear_devices, exclude_fn
        )
        if unbound_inputs_col_name:
            graph.clear_collection(unbound_inputs_col_name)
            for name in unbound:
                graph.add_to_collection(unbound_inputs_col_name, name)
    var_list = {}
    for v in graph.get_collection(GraphKeys.GLOBAL_VARIABLES, scope=export_scope):
        if _should_include(v, export_scope, exclude_nodes):
            var_list[strip_name_scope(v.name, export_scope)] = v
    meta_graph_def = create_meta_graph_def(
        graph_def=graph_def,
        graph=graph,
        export_scope=export_scope,
        exclude_nodes=exclude_nodes,
        clear_extraneous_savers=clear_extraneous_savers,
        saver_def=saver_def,
        strip_default_attrs=strip_default_attrs,
        **kwargs,
    )
    if filename:
        graph_io.write_graph(
            meta_graph_def,
            os.path.dirname(filename),
            os.path.basename(filename),
            as_text=as_text,
        )
    return meta_graph_def, var_list


@tf_export("train.export_meta_graph")
def export_meta_graph(
    filename=None,
    meta_info_def=None,
    graph_def=None,
    saver_def=None,
    collection_list=None,
    as_text=False,
    graph=None,
    export_scope=None,
    clear_devices=False,
    clear_extraneous_savers=False,
    strip_default_attrs=False,
    save_debug_info=False,
    **kwargs,
):
    """Returns the MetaGraphDef of the default graph (or ``graph``), optionally written to
    ``filename`` (binary, or text with ``as_text``).

    ``export_scope`` exports only the nodes under that scope, with it stripped from their
    names; ``clear_devices`` empties device fields; ``clear_extraneous_savers`` drops the
    nodes and SaverDefs of savers other than ``saver_def``'s; ``strip_default_attrs`` drops
    attrs equal to their defaults. ``save_debug_info`` is accepted; no debug file is written.
    """
    meta_graph_def, _ = export_scoped_meta_graph(
        filename=filename,
        meta_info_def=meta_info_def,
        graph_def=graph_def,
        saver_def=saver_def,
        collection_list=collection_list,
        as_text=as_text,
        graph=graph,
        export_scope=export_scope,
        clear_devices=clear_devices,
        clear_extraneous_savers=clear_extraneous_savers,
        strip_default_attrs=strip_default_attrs,
        save_debug_info=save_debug_info,
        **kwargs,
    )
    return meta_graph_def


# ---------------------------------------------------------------------------------------------
# Import
# ---------------------------------------------------------------------------------------------
def read_meta_graph_file(filename) -> meta_graph_pb2.MetaGraphDef:
    """Reads a binary or text MetaGraphDef. As in TF: IOError (OSError) if the file is
    missing or is text that does not parse; bytes that parse as neither binary nor UTF-8
    text raise UnicodeDecodeError."""
    meta_graph_def = meta_graph_pb2.MetaGraphDef()
    if not os.path.exists(filename):
        raise OSError(f"File does not exist. Received: {filename}.")
    with open(filename, "rb") as f:
        content = f.read()
    try:
        meta_graph_def.ParseFromString(content)
        return meta_graph_def
    except message.DecodeError:
        pass
    try:
        text_format.Merge(content.decode("utf-8"), meta_graph_def)
    except text_format.ParseError as e:
        raise OSError(f"Cannot parse file {filename}: {e}.") from None
    return meta_graph_def


def _check_unbound_inputs(meta_graph_def, input_map, key):
    col_def = meta_graph_def.collection_def.get(key) if key else None
    if col_def is None or col_def.WhichOneof("kind") is None:
        return
    values = [v.decode() if isinstance(v, bytes) else v for v in _values_of(col_def)]
    if values and (not input_map or sorted(values) != sorted(input_map)):
        missing = [v for v in values if not input_map or v not in input_map]
        raise ValueError(
            f"Graph contains unbound inputs: {','.join(missing)}. Must provide these inputs "
            "through input_map."
        )


def _values_of(col_def):
    return getattr(col_def, col_def.WhichOneof("kind")).value


def _restore_variables(graph, key, col_def, scope, cache, has_trainable):
    """Adds a variable collection's variables, one object per VariableDef across
    collections (``cache``: serialized VariableDef -> variable)."""
    _, _, from_proto = _PROTO_FUNCTIONS[GraphKeys.GLOBAL_VARIABLES]
    for value in col_def.bytes_list.value:
        variable = cache.get(value)
        if variable is None:
            proto = variable_pb2.VariableDef.FromString(value)
            if not has_trainable:
                # Graphs before TF 1.9 leave ``trainable`` unset: the collection says it.
                proto.trainable = key == GraphKeys.TRAINABLE_VARIABLES
            variable = cache[value] = from_proto(proto, import_scope=scope)
        graph.add_to_collection(key, variable)


def _restore_collection(graph, key, col_def, scope, cache, has_trainable):
    kind = col_def.WhichOneof("kind")
    if kind is None:
        _logger.error("Cannot identify data type for collection %s. Skipping.", key)
        return
    skipped = _UNSERIALIZED_COLLECTIONS.get(key) or _UNRESTORED_COLLECTIONS.get(key)
    if skipped:
        _logger.info("Collection %s is not restored: %s.", key, skipped)
        return
    proto_type, _, from_proto = _PROTO_FUNCTIONS.get(key, (None, None, None))
    if key == GraphKeys.METRIC_VARIABLES:
        # TF reads metric variables with the global variables' proto functions.
        proto_type, _, from_proto = _PROTO_FUNCTIONS[GraphKeys.GLOBAL_VARIABLES]
    if from_proto is not None and kind == "bytes_list":
        if key in _VARIABLE_COLLECTIONS:
            _restore_variables(graph, key, col_def, scope, cache, has_trainable)
            return
        for value in col_def.bytes_list.value:
            proto = proto_type.FromString(value)
            graph.add_to_collection(key, from_proto(proto, import_scope=scope))
        return
    if key in _COMPAT_COLLECTIONS:
        _logger.warning(
            "The saved meta_graph is possibly from an older release:\n'%s' collection should "
            "be of type 'byte_list', but instead is of type '%s'.",
            key,
            kind,
        )
    for value in _values_of(col_def):
        if kind == "node_list":
            graph.add_to_collection(key, graph.as_graph_element(prepend_name_scope(value, scope)))
        elif kind == "int64_list":
            graph.add_to_collection(key, int(value))
        else:
            graph.add_to_collection(key, prepend_name_scope(value, scope))


def _has_trainable_field(tf_version: str) -> bool:
    """Whether VariableDefs of a graph written by ``tf_version`` set ``trainable`` (1.9+)."""
    if not tf_version:
        return True
    match = re.match(r"(\d+)\.(\d+)", tf_version)
    return match is None or (int(match.group(1)), int(match.group(2))) >= (1, 9)


def _sorted_collections(meta_graph_def):
    """Trainable variables first (their VariableDefs decide ``trainable`` for old graphs),
    then every other collection by key."""
    items = sorted(meta_graph_def.collection_def.items())
    first = [(k, v) for k, v in items if k == GraphKeys.TRAINABLE_VARIABLES]
    return first + [(k, v) for k, v in items if k != GraphKeys.TRAINABLE_VARIABLES]


def import_scoped_meta_graph_with_return_elements(
    meta_graph_or_file,
    clear_devices=False,
    graph=None,
    import_scope=None,
    input_map=None,
    unbound_inputs_col_name=_UNBOUND_INPUTS_KEY,
    restore_collections_predicate=(lambda key: True),
    return_elements=None,
):
    """Imports a MetaGraphDef's graph under ``import_scope`` and rebuilds its collections;
    returns ``({name: variable} of the imported global variables, return elements)``."""
    meta_graph_def = _as_meta_graph_def(meta_graph_or_file)
    _check_unbound_inputs(meta_graph_def, input_map, unbound_inputs_col_name)
    graph = graph or graph_lib.get_default_graph()
    with graph.as_default():
        producer_op_list = None
        if meta_graph_def.meta_info_def.HasField("stripped_op_list"):
            producer_op_list = meta_graph_def.meta_info_def.stripped_op_list
        graph_def = meta_graph_def.graph_def
        if clear_devices:
            graph_def = graph_pb2.GraphDef.FromString(graph_def.SerializeToString())
            for node in graph_def.node:
                node.device = ""
        scope = graph.unique_name(import_scope or "", mark_as_used=False)
        returned = graph_io.import_graph_def(
            graph_def,
            name=import_scope or scope,
            input_map=input_map,
            producer_op_list=producer_op_list,
            return_elements=return_elements,
        )
        has_trainable = _has_trainable_field(meta_graph_def.meta_info_def.tensorflow_version)
        cache = {}
        for key, col_def in _sorted_collections(meta_graph_def):
            if key == unbound_inputs_col_name or not restore_collections_predicate(key):
                continue
            _restore_collection(graph, key, col_def, scope, cache, has_trainable)
        var_list = {}
        for v in graph.get_collection(GraphKeys.GLOBAL_VARIABLES, scope=scope):
            var_list[strip_name_scope(v.name, scope)] = v
    return var_list, returned


def import_scoped_meta_graph(meta_graph_or_file, clear_devices=False, graph=None, **kwargs):
    """Like ``import_scoped_meta_graph_with_return_elements``; returns the variables only."""
    return import_scoped_meta_graph_with_return_elements(
        meta_graph_or_file, clear_devices, graph, **kwargs
    )[0]


def _as_meta_graph_def(meta_graph_or_file):
    """Our MetaGraphDef from ours, another library's (same wire format) or a file."""
    if isinstance(meta_graph_or_file, meta_graph_pb2.MetaGraphDef):
        return meta_graph_or_file
    if hasattr(meta_graph_or_file, "SerializeToString"):
        return meta_graph_pb2.MetaGraphDef.FromString(meta_graph_or_file.SerializeToString())
    return read_meta_graph_file(os.fspath(meta_graph_or_file))


def _saver_for(meta_graph_def, import_scope, imported_vars):
    """The Saver of an imported graph: over its SaverDef (names under the scope the import
    used), a new Saver if it has variables but no SaverDef, else None."""
    from tfcompat import variables
    from tfcompat.train.saver import Saver

    if meta_graph_def.HasField("saver_def"):
        scope = import_scope
        if imported_vars:
            key, var = next(iter(imported_vars.items()))
            scope = var.name[: -len(key)]
        saver_def = saver_pb2.SaverDef()
        saver_def.CopyFrom(meta_graph_def.saver_def)
        return Saver(saver_def=saver_def, name=scope)
    graph = graph_lib.get_default_graph()
    saveables = variables.global_variables(import_scope) + graph.get_collection(
        GraphKeys.SAVEABLE_OBJECTS, import_scope
    )
    if saveables:
        return Saver()
    _logger.info("Saver not created because there are no variables in the graph to restore")
    return None


@tf_export("train.import_meta_graph")
def import_meta_graph(meta_graph_or_file, clear_devices=False, import_scope=None, **kwargs):
    """Adds the graph of a MetaGraphDef (a proto or a ``.meta`` file) to the default graph,
    rebuilds its collections, and returns a Saver over its SaverDef (or None when the
    graph has no variables to restore).

    ``import_scope`` prefixes the imported names; ``clear_devices`` drops device fields.
    Other keyword arguments (``input_map``, ``restore_collections_predicate``,
    ``return_elements``...) go to ``import_scoped_meta_graph_with_return_elements``.
    """
    return _import_meta_graph_with_return_elements(
        meta_graph_or_file, clear_devices, import_scope, **kwargs
    )[0]


def _import_meta_graph_with_return_elements(
    meta_graph_or_file, clear_devices=False, import_scope=None, return_elements=None, **kwargs
):
    meta_graph_def = _as_meta_graph_def(meta_graph_or_file)
    imported_vars, returned = import_scoped_meta_graph_with_return_elements(
        meta_graph_def,
        clear_devices=clear_devices,
        import_scope=import_scope,
        return_elements=return_elements,
        **kwargs,
    )
    return _saver_for(meta_graph_def, import_scope, imported_vars), returned


# tf.MetaGraphDef: the proto class, as TF publishes it.
tf_export("MetaGraphDef")(meta_graph_pb2.MetaGraphDef)
