"""``apply_op``: validates inputs and attrs against an OpDef and adds the op to a graph.

This is the single place where user values become graph inputs: it converts Python values
to constants (named after the input arg, under the op's name scope, as TF does), infers type
and length attrs from the inputs, fills defaults, checks allowed values, and runs the shape
function. Errors are TF's TypeError / ValueError and name the op.
"""

from __future__ import annotations

import collections
import contextlib
import functools
import threading

from tfcompat.framework import dtypes, tensor_shape
from tfcompat.framework import func_graph as func_graph_lib
from tfcompat.framework import graph as graph_lib
from tfcompat.framework import op_def as op_def_lib
from tfcompat.framework.tensor import Operation, Tensor

# base type -> [(priority, fn(value, dtype, name, as_ref) -> Tensor)]
_CONVERSION_FUNCTIONS: list = []


def register_tensor_conversion_function(base_type, conversion_func, priority=100):
    """Lets objects of ``base_type`` (e.g. Variables) be used wherever a Tensor is expected."""
    _CONVERSION_FUNCTIONS.append((priority, base_type, conversion_func))
    _CONVERSION_FUNCTIONS.sort(key=lambda item: item[0])


def is_tensor_like(value) -> bool:
    if isinstance(value, Tensor):
        return True
    if isinstance(value, (list, tuple)):
        return False  # lists may convert (auto-packing) but are not tensors themselves
    return any(isinstance(value, base) for _, base, _ in _CONVERSION_FUNCTIONS)


def convert_to_tensor(value, dtype=None, name=None, as_ref=False, preferred_dtype=None):
    """``value`` as a Tensor of the default graph: Tensors pass through (dtype checked),
    registered types convert, and anything else becomes a ``Const``."""
    if dtype is not None:
        dtype = dtypes.as_dtype(dtype)
    if isinstance(value, Tensor):
        if dtype is not None and not dtype.is_compatible_with(value.dtype):
            raise ValueError(
                f"Tensor conversion requested dtype {dtype.name} for Tensor with dtype "
                f"{value.dtype.name}: {value!r}"
            )
        return value
    for _, base_type, fn in _CONVERSION_FUNCTIONS:
        if isinstance(value, base_type):
            result = fn(value, dtype=dtype, name=name, as_ref=as_ref)
            if result is not NotImplemented:
                return convert_to_tensor(result, dtype=dtype, name=name)
    from tfcompat.framework import constant_op

    if dtype is None and preferred_dtype is not None:
        try:
            return constant_op.constant(value, dtype=preferred_dtype, name=name or "Const")
        except (TypeError, ValueError):
            pass
    return constant_op.constant(value, dtype=dtype, name=name or "Const")


def _graph_of(values):
    """The graph the inputs live in (must be one), else the default graph. Inside a
    function body (the default graph is a FuncGraph), inputs from enclosing graphs are
    captured: the op goes into the body."""
    default = graph_lib.get_default_graph()
    inside_function = getattr(default, "outer_graph", None) is not None
    found = None
    for value in values:
        items = value if isinstance(value, (list, tuple)) else [value]
        for item in items:
            g = getattr(item, "graph", None)
            if isinstance(item, (Tensor, Operation)) or (g is not None and is_tensor_like(item)):
                if inside_function and func_graph_lib.encloses(g, default):
                    g = default
                if found is None:
                    found = g
                elif g is not found:
                    raise ValueError(f"{item!r} must be from the same graph as {found!r}.")
    return found or default


# ---------------------------------------------------------------------------------------------
# Op callbacks (TF's ``op_callbacks``): functions called for each op ``apply_op`` makes
# ---------------------------------------------------------------------------------------------
_callback_state = threading.local()  # per thread, as TF's


def _callbacks() -> list:
    if not hasattr(_callback_state, "callbacks"):
        _callback_state.callbacks, _callback_state.invoking = [], False
    return _callback_state.callbacks


def add_op_callback(callback_fn):
    """Calls ``callback_fn(op_type, inputs, attrs, outputs, op_name=, graph=)`` after each op
    made on this thread; a callback returning a list replaces the outputs the op's wrapper
    returns (it must keep their number). Adding one twice has no effect."""
    if callback_fn is None:
        raise ValueError("Passed callback function cannot be None.")
    if not callable(callback_fn):
        raise ValueError(
            "Callback function passed to op_callback() is expected to be callable, "
            f"but got {callback_fn} of type {type(callback_fn)}."
        )
    if callback_fn not in _callbacks():
        _callbacks().append(callback_fn)


def remove_op_callback(op_callback):
    """Undoes ``add_op_callback``; KeyError if ``op_callback`` is not registered."""
    if op_callback not in _callbacks():
        raise KeyError(
            "The specified op callback has not been registered, and hence cannot be removed."
        )
    _callbacks().remove(op_callback)


def should_invoke_op_callbacks() -> bool:
    """True if callbacks are registered and none is running (ops a callback makes are not
    passed to the callbacks again)."""
    return bool(_callbacks()) and not _callback_state.invoking


def invoke_op_callbacks(op_type, inputs, attrs, outputs, op_name=None, graph=None):
    """Runs the callbacks in order, each on the previous one's outputs; the final outputs,
    or None if no callback replaced them."""
    _callback_state.invoking = True
    try:
        new_outputs = None
        for callback in list(_callbacks()):
            result = callback(
                op_type, inputs, attrs, new_outputs or outputs, op_name=op_name, graph=graph
            )
            if result is not None:
                if len(result) != len(outputs):
                    raise ValueError(
                        f"The op callback returned {len(result)} tensors, which does not "
                        f"match the original number of outputs of op {op_name} "
                        f"({len(outputs)})."
                    )
                new_outputs = list(result)
        return new_outputs
    finally:
        _callback_state.invoking = False


class _CallbackOperation(Operation):
    """An op as its wrapper sees it once a callback replaced its outputs (TF's op helper
    returns the op and the outputs separately; ``apply_op`` returns only the op). It shares
    the op's state and compares and hashes equal to it; only ``outputs`` differ."""

    __slots__ = ("_callback_op", "_callback_outputs")

    def __init__(self, op, outputs):  # noqa: D107 - no Operation.__init__: the state is op's
        self.__dict__ = op.__dict__
        self._callback_op = op
        self._callback_outputs = outputs

    @property
    def outputs(self):
        return list(self._callback_outputs)

    def values(self):
        return tuple(self._callback_outputs)

    def __eq__(self, other):
        return getattr(other, "_callback_op", other) is self._callback_op

    def __hash__(self):
        return hash(self._callback_op)


def apply_op(op_type: str, name=None, **keywords) -> Operation:
    """Adds an ``op_type`` op; keywords name its inputs (by arg name) and attrs."""
    op_def = op_def_lib.get_op_def(op_type)
    graph = _graph_of([keywords[a.name] for a in op_def.inputs if a.name in keywords])
    with graph.as_default(), graph.name_scope(name if name else op_type) as scope:
        inputs, attrs = _bind_inputs(op_def, keywords)
        attrs.update(_bind_attrs(op_def, keywords, attrs))
        output_dtypes = _output_dtypes(op_def, attrs)
        op = graph._create_op(op_type, inputs, output_dtypes, attrs, scope[:-1], op_def)
    _infer_shapes(op)
    if should_invoke_op_callbacks():
        # In the op's name scope, as TF's op helper; a constant's callbacks run in the
        # caller's scope, as TF's ``constant`` calls them after making the op.
        op_scope = contextlib.nullcontext() if op_type == "Const" else graph.name_scope(scope)
        with graph.as_default(), op_scope:
            outputs = invoke_op_callbacks(
                op_type, op.inputs, op.attrs, op.outputs, op_name=op.name, graph=graph
            )
        if outputs is not None:
            return _CallbackOperation(op, outputs)
    return op


def op_outputs(op):
    """``op``'s outputs as TF's generated op wrappers return them: the Operation when it
    has none, the Tensor of a single output (a list for one list-valued output arg), else
    a namedtuple named after the op type with a field per OpDef output arg
    (``tf.unique(x)`` -> ``Unique(y=..., idx=...)``)."""
    op_def = op_def_lib.get_op_def(op.type)
    outputs = list(op.outputs)
    if not op_def.outputs:
        return op
    values, at = [], 0
    for arg in op_def.outputs:
        if arg.number_attr or arg.type_list_attr:
            key = arg.number_attr or arg.type_list_attr
            count = op.attrs[key] if arg.number_attr else len(op.attrs[key])
            values.append(outputs[at : at + count])
            at += count
        else:
            values.append(outputs[at])
            at += 1
    if len(values) == 1:
        return values[0]
    return _outputs_tuple(op_def.name, tuple(a.name for a in op_def.outputs))(*values)


@functools.cache
def _outputs_tuple(op_type: str, fields: tuple):
    return collections.namedtuple(op_type, fields)


def create_op_from_node(graph, name, op_type, inputs, attrs) -> Operation:
    """Adds an op with given attrs and input Tensors (used by import_graph_def)."""
    op_def = op_def_lib.get_op_def(op_type)
    canonical = {}
    for key, value in attrs.items():
        attr_def = op_def.attrs.get(key)
        canonical[key] = op_def_lib.canonicalize_attr(attr_def.type, value) if attr_def else value
    for attr in op_def.attrs.values():
        if attr.name not in canonical:
            if not attr.has_default:
                raise ValueError(f"NodeDef '{name}' ({op_type}) is missing attr '{attr.name}'")
            canonical[attr.name] = attr.default
    output_dtypes = _output_dtypes(op_def, canonical)
    op = graph._create_op(op_type, inputs, output_dtypes, canonical, name, op_def)
    # As TF's importer: the name is taken, so later ops and scopes (a second
    # ``tf.gradients`` after importing a training graph) pick the next free one.
    graph._names_in_use.setdefault(name.lower(), 1)
    _infer_shapes(op)
    return op


def _bind_inputs(op_def, keywords):
    attrs = {}
    # Type attrs fixed by an explicit keyword or by an input that is already a Tensor.
    for arg in op_def.inputs:
        if arg.name not in keywords:
            raise TypeError(f"{op_def.name} missing required input '{arg.name}'")
        if arg.type_attr and arg.type_attr not in attrs:
            if arg.type_attr in keywords and keywords[arg.type_attr] is not None:
                attrs[arg.type_attr] = dtypes.as_dtype(keywords[arg.type_attr])
                continue
            values = keywords[arg.name]
            values = values if arg.number_attr else [values]
            if not isinstance(values, (list, tuple)):
                raise TypeError(
                    f"Expected list for '{arg.name}' argument to '{op_def.name}' Op, not "
                    f"{values!r}."
                )
            for v in values:
                if is_tensor_like(v):
                    # Read the dtype without converting: converting an IndexedSlices here
                    # would add its densifying ops outside the op's scope (and twice).
                    known = getattr(v, "dtype", None)
                    if known is None and not arg.number_attr:
                        # Convert once, under the arg's name, and bind that tensor (a
                        # TensorShape converted here and again below left a stray Const).
                        v = keywords[arg.name] = convert_to_tensor(v, name=arg.name)
                        known = v.dtype
                    elif known is None:
                        known = convert_to_tensor(v).dtype
                    attrs[arg.type_attr] = dtypes.as_dtype(known).base_dtype
                    break
    inputs = []
    for arg in op_def.inputs:
        value = keywords[arg.name]
        if arg.number_attr or arg.type_list_attr:
            if not isinstance(value, (list, tuple)):
                raise TypeError(
                    f"Expected list for '{arg.name}' argument to '{op_def.name}' Op, not {value!r}."
                )
            tensors = [_convert_input(op_def, arg, v, attrs, i) for i, v in enumerate(value)]
            if arg.number_attr:
                attrs[arg.number_attr] = len(tensors)
            else:
                attrs[arg.type_list_attr] = [t.dtype.base_dtype for t in tensors]
            inputs.extend(tensors)
        else:
            inputs.append(_convert_input(op_def, arg, value, attrs, None))
    return inputs, attrs


def _convert_input(op_def, arg, value, attrs, index):
    expected = arg.dtype if arg.dtype is not None else attrs.get(arg.type_attr)
    preferred = None
    if expected is None and arg.type_attr:
        attr_def = op_def.attrs[arg.type_attr]
        if attr_def.has_default:
            preferred = attr_def.default
    label = arg.name if index is None else f"{arg.name}_{index}"  # list items: x_0, x_1, ...
    if preferred is not None and index is None and op_def.attrs[arg.type_attr].allowed_values:
        # TF first converts without the preference and keeps the result if its dtype is
        # allowed (MatrixBandPart(x, 0, -1) gets int32 bounds although Tindex defaults to
        # int64); only otherwise does the default dtype apply.
        try:
            inferred = convert_to_tensor(value, name=label, as_ref=arg.is_ref)
        except TypeError:
            inferred = None
        if inferred is not None:
            if inferred.dtype.base_dtype in op_def.attrs[arg.type_attr].allowed_values:
                value = inferred
    try:
        tensor = convert_to_tensor(
            value, dtype=expected, name=label, as_ref=arg.is_ref, preferred_dtype=preferred
        )
    except (TypeError, ValueError) as e:
        if expected is not None and not is_tensor_like(value):
            raise TypeError(
                f"Expected {expected.name} passed to parameter '{arg.name}' of op "
                f"'{op_def.name}', got {value!r} of type '{type(value).__name__}' instead. "
                f"Error: {e}"
            ) from None
        if expected is not None:
            raise TypeError(
                f"Input '{arg.name}' of '{op_def.name}' Op has type "
                f"{_base_name(value)} that does not match expected type of {expected.name}."
            ) from None
        raise
    if arg.is_ref and not tensor.dtype.is_ref_dtype:
        raise TypeError(
            f"'{op_def.name}' Op requires that input '{arg.name}' be a mutable tensor "
            "(e.g.: a tf.Variable)"
        )
    base = tensor.dtype.base_dtype
    if arg.type_attr:
        if arg.type_attr in attrs and attrs[arg.type_attr] != base:
            first = next(a.name for a in op_def.inputs if a.type_attr == arg.type_attr)
            raise TypeError(
                f"Input '{arg.name}' of '{op_def.name}' Op has type {base.name} that does "
                f"not match type {attrs[arg.type_attr].name} of argument '{first}'."
            )
        attrs[arg.type_attr] = base
    elif arg.dtype is not None and base != arg.dtype:
        raise TypeError(
            f"Input '{arg.name}' of '{op_def.name}' Op has type {base.name} that does not "
            f"match expected type of {arg.dtype.name}."
        )
    return tensor


def _base_name(value):
    try:
        return convert_to_tensor(value).dtype.base_dtype.name
    except Exception:  # noqa: BLE001 - only used to word an error message
        return type(value).__name__


def _bind_attrs(op_def, keywords, inferred):
    input_names = {a.name for a in op_def.inputs}
    unknown = [k for k in keywords if k not in input_names and k not in op_def.attrs]
    if unknown:
        raise TypeError(
            f"{op_def.name} got unexpected keyword arguments: {', '.join(sorted(unknown))}"
        )
    attrs = {}
    for attr in op_def.attrs.values():
        if attr.name in inferred:
            value = inferred[attr.name]
        elif attr.name in keywords and keywords[attr.name] is not None:
            try:
                value = op_def_lib.canonicalize_attr(attr.type, keywords[attr.name])
            except TypeError as e:
                raise TypeError(f"Attr '{attr.name}' of '{op_def.name}' Op: {e}") from None
        elif attr.has_default:
            value = attr.default
        else:
            raise TypeError(f"No argument for attr {attr.name} of '{op_def.name}' Op")
        op_def_lib.validate_attr(op_def.name, attr, value)
        attrs[attr.name] = value
    return attrs


def _output_dtypes(op_def, attrs):
    out = []
    for arg in op_def.outputs:
        if arg.type_list_attr:
            out.extend(attrs[arg.type_list_attr])
            continue
        dtype = arg.dtype if arg.dtype is not None else attrs[arg.type_attr]
        if arg.is_ref:
            dtype = dtype._as_ref
        count = attrs[arg.number_attr] if arg.number_attr else 1
        out.extend([dtype] * count)
    return out


def _infer_shapes(op):
    shape_fn = op.op_def.shape_fn
    if shape_fn is None:
        return
    try:
        shapes = shape_fn(op)
    except ValueError as e:
        # TF rejects the node at construction time and names it; the graph keeps nothing.
        op.graph._remove_op(op)
        shapes = ", ".join(_shape_text(t.shape) for t in op.inputs)
        raise ValueError(
            f"{e} for '{{{{node {op.name}}}}} = {op.type}[]' with input shapes: {shapes}."
        ) from None
    if isinstance(shapes, tensor_shape.TensorShape) or shapes is None:
        shapes = [shapes]
    for tensor, shape in zip(op.outputs, shapes):
        if shape is not None:
            tensor._shape = tensor_shape.as_shape(shape)


def _shape_text(shape):
    if shape.rank is None:
        return "?"
    return "[" + ",".join("?" if d is None else str(d) for d in shape.as_list()) + "]"
