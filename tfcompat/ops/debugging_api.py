"""More ``tf.debugging`` names, the TF1 top-level aliases of checks and conversions, and the
``tf.compat`` helpers (``forward_compatible``, the Python type tuples).

``tf.debugging.is_nan`` & co are the ``tf.math`` ops under their second name, and
``assert_all_finite`` is ``verify_tensor_all_finite``, as in TF. ``assert_shapes`` is TF1's
(v1 signature): static checks raise ValueError with TF's messages while building; sizes known
only at run time become ``Assert`` ops. ``enable_check_numerics`` is an op callback (see
``op_helper.add_op_callback``) that gives every float output made afterwards a
``CheckNumericsV2``.
"""

from __future__ import annotations

import contextlib
import datetime
import enum
import numbers
import os
import threading
import traceback
import weakref

import numpy as np

from tfcompat.client import config as client_config
from tfcompat.framework import config_api, dtypes, op_helper
from tfcompat.framework import indexed_slices as indexed_slices_lib
from tfcompat.framework import sparse_tensor as sparse_tensor_lib
from tfcompat.framework.op_helper import convert_to_tensor
from tfcompat.framework.scopes import control_dependencies, name_scope
from tfcompat.framework.tensor import Tensor
from tfcompat.ops import array_ops, check_ops, checks, control_flow_ops, math_ops, unary_math_ops
from tfcompat.util.tf_export import export_constant, tf_export

export_constant(unary_math_ops.is_nan, "debugging.is_nan")
export_constant(unary_math_ops.is_inf, "debugging.is_inf")
export_constant(unary_math_ops.is_finite, "debugging.is_finite")
export_constant(check_ops.verify_tensor_all_finite, "debugging.assert_all_finite")
export_constant(dtypes.QUANTIZED_DTYPES, "QUANTIZED_DTYPES")
export_constant(config_api.get_log_device_placement, "debugging.get_log_device_placement")
export_constant(config_api.set_log_device_placement, "debugging.set_log_device_placement")

# TF's ``check_ops.NUMERIC_TYPES``: the dtypes ``is_numeric_tensor`` accepts.
NUMERIC_TYPES = frozenset(
    [
        dtypes.float16,
        dtypes.bfloat16,
        dtypes.float32,
        dtypes.float64,
        dtypes.int8,
        dtypes.int16,
        dtypes.int32,
        dtypes.int64,
        dtypes.uint8,
        dtypes.uint16,
        dtypes.uint32,
        dtypes.uint64,
        dtypes.complex64,
        dtypes.complex128,
        dtypes.qint8,
        dtypes.qint16,
        dtypes.qint32,
        dtypes.quint8,
        dtypes.quint16,
    ]
)


@tf_export("debugging.is_numeric_tensor", "is_numeric_tensor")
def is_numeric_tensor(tensor):
    """True for a ``Tensor`` of a numeric dtype (not bool, string, resource, variant)."""
    return isinstance(tensor, Tensor) and tensor.dtype in NUMERIC_TYPES


@tf_export("debugging.assert_proper_iterable", "assert_proper_iterable")
def assert_proper_iterable(values):
    """TypeError unless ``values`` is an iterable that is not itself one value (a Tensor,
    SparseTensor, ndarray, bytes or str)."""
    unintended = (Tensor, sparse_tensor_lib.SparseTensor, np.ndarray, bytes, str)
    if isinstance(values, unintended):
        raise TypeError(
            f'Expected argument "values" to be a "proper" iterable.  Found: {type(values)}'
        )
    if not hasattr(values, "__iter__"):
        raise TypeError(f'Expected argument "values" to be iterable.  Found: {type(values)}')


def _same_base_type(items, expected):
    """The common base dtype of ``items`` (Nones skipped), ValueError naming the first item
    that differs (and the item that set the type, when none was given)."""
    first_name = None
    for item in items:
        if item is None:
            continue
        item_type = item.dtype.base_dtype
        if not expected:
            expected = item_type
            first_name = item.name if hasattr(item, "name") else str(item)
        elif expected != item_type:
            name = item.name if hasattr(item, "name") else str(item)
            as_first = f" as {first_name}" if first_name else ""
            raise ValueError(
                f"{name}, type={item_type}, must be of the same type ({expected}){as_first}."
            )
    return expected


@tf_export("debugging.assert_same_float_dtype", "assert_same_float_dtype")
def assert_same_float_dtype(tensors=None, dtype=None):
    """The floating dtype shared by ``tensors`` and ``dtype`` (float32 if neither gives
    one); ValueError if they differ or the dtype is not floating."""
    if tensors:
        dtype = _same_base_type(tensors, dtype)
    if not dtype:
        dtype = dtypes.float32
    elif not dtype.is_floating:
        raise ValueError(f"Expected floating point type, got {dtype}.")
    return dtype


@tf_export("convert_to_tensor_or_indexed_slices")
def convert_to_tensor_or_indexed_slices(value, dtype=None, name=None):
    """``value`` unchanged if it is an IndexedSlices (or SparseTensor), else as a Tensor."""
    if isinstance(value, sparse_tensor_lib.SparseTensor):
        if dtype and not dtypes.as_dtype(dtype).is_compatible_with(value.dtype):
            raise ValueError(
                "Incompatible tensor conversion requested to `dtype` "
                f"{dtypes.as_dtype(dtype).name} for `value` ({value}) with dtype"
                f" {value.dtype.name}."
            )
        return value
    dtype = None if dtype is None else dtypes.as_dtype(dtype)
    return indexed_slices_lib.convert_to_tensor_or_indexed_slices(value, dtype, name)


export_constant(
    sparse_tensor_lib.convert_to_tensor_or_sparse_tensor, "convert_to_tensor_or_sparse_tensor"
)


@tf_export("initialize_variables")
def initialize_variables(var_list, name="init"):
    """Deprecated TF1 name of ``tf.variables_initializer`` (TF: "Use
    `tf.variables_initializer` instead.")."""
    from tfcompat import variables

    return variables.variables_initializer(var_list, name=name)


@tf_export("VariableSynchronization")
class VariableSynchronization(enum.Enum):
    """When a distributed variable's copies are synchronized (TF's values); accepted by
    ``tf.Variable`` / ``get_variable``, where only ``ON_READ``'s "not trainable" rule
    applies (one process holds one copy)."""

    AUTO = 0
    NONE = 1
    ON_WRITE = 2
    ON_READ = 3


@tf_export("VariableAggregation")
class VariableAggregation(enum.Enum):
    """How a distributed variable's updates are combined (TF's values); accepted and
    recorded only, as a single copy needs no aggregation."""

    NONE = 0
    SUM = 1
    MEAN = 2
    ONLY_FIRST_REPLICA = 3


# -- traceback filtering ----------------------------------------------------------------------
_TRACEBACK_FILTERING = {"enabled": True}


@tf_export("debugging.is_traceback_filtering_enabled")
def is_traceback_filtering_enabled():
    """Whether ``enable_traceback_filtering`` is in force (TF's default: True)."""
    return _TRACEBACK_FILTERING["enabled"]


@tf_export("debugging.enable_traceback_filtering")
def enable_traceback_filtering():
    """Records the switch. No effect: this package does not rewrite tracebacks."""
    _TRACEBACK_FILTERING["enabled"] = True


@tf_export("debugging.disable_traceback_filtering")
def disable_traceback_filtering():
    """Records the switch. No effect: tracebacks here are always complete."""
    _TRACEBACK_FILTERING["enabled"] = False


# -- tf.debugging.assert_shapes (TF1) ---------------------------------------------------------
def _known_size(size):
    if size is None:
        return False
    try:
        int(size)
    except (TypeError, ValueError):
        return False
    return True


def _tensor_name(x):
    return x.name


def _dimension_sizes(x):
    """Sizes of ``x``'s dimensions: ints where static, scalar tensors where not; a scalar
    counts as shape (1,), as in TF (which builds the ``Shape`` op in every case)."""
    rank = x.shape.rank
    if rank is None:
        raise NotImplementedError("assert_shapes of a tensor of unknown rank")
    dynamic = array_ops.shape(x)
    if rank == 0:
        return (1,)
    return [
        int(size) if size is not None else dynamic[i] for i, size in enumerate(x.shape.as_list())
    ]


@tf_export("debugging.assert_shapes")
def assert_shapes(shapes, data=None, summarize=None, message=None, name=None):
    """Checks tensors' shapes against symbolic ones: ``[(x, ("N", "D")), (y, ("N",))]``
    (or a dict): equal symbols must be equal sizes, ints are exact sizes, ``None`` / "."
    any size, a leading ``...`` / "*" any number of outer dimensions. Sizes known while
    building are checked then (ValueError with TF's message); the others become ``Assert``
    ops, grouped into the returned op. Not here (NotImplementedError): SparseTensors and
    tensors of unknown rank."""
    if isinstance(shapes, dict):
        shapes = shapes.items()
    prefix = f"{message}.  " if message else ""
    with name_scope(name, "assert_shapes", [shapes, data]):
        constraints = []
        for x, s in shapes:
            if s is None:
                continue
            if isinstance(x, (sparse_tensor_lib.SparseTensor, sparse_tensor_lib.SparseTensorValue)):
                # TF checks a SparseTensor's dense shape; the rank checks here
                # (tf.debugging.assert_rank & co) take dense tensors only.
                raise NotImplementedError("tf.debugging.assert_shapes of a SparseTensor")
            constraints.append((convert_to_tensor(x), s))
        specs = []
        for tensor, symbolic in constraints:
            if not (hasattr(symbolic, "__iter__") or hasattr(symbolic, "__getitem__")):
                raise ValueError(
                    f"{prefix}Tensor {_tensor_name(tensor)}.  Specified shape must be an "
                    "iterable.  An iterable has the attribute `__iter__` or `__getitem__`.  "
                    f"Received specified shape: {symbolic}"
                )
            symbolic = tuple(symbolic)
            innermost = False
            for i, symbol in enumerate(symbolic):
                if not (symbol is Ellipsis or (isinstance(symbol, str) and symbol == "*")):
                    continue
                if i != 0:
                    raise ValueError(
                        f"{prefix}Tensor {_tensor_name(tensor)} specified shape index {i}.  "
                        "Symbol `...` or `*` for a variable number of unspecified dimensions "
                        "is only allowed as the first entry"
                    )
                innermost = True
            sizes = symbolic[1:] if innermost else symbolic
            # An empty shape is a scalar, treated as shape (1,) like the tensor's sizes.
            specs.append((tensor, innermost, _dimension_sizes(tensor), sizes or (1,)))

        rank_assertions = []
        for tensor, innermost, _, sizes in specs:
            rank = len(sizes)
            kwargs = dict(data=data, summarize=summarize, message=message, name=name)
            if innermost:
                if rank in (0, 1):
                    continue
                assertion = check_ops.assert_rank_at_least(tensor, rank, **kwargs)
            elif rank in (0, 1):
                # Rank 0 and rank 1 of size 1 are not told apart (see _dimension_sizes).
                assertion = check_ops.assert_rank_in(tensor, [0, 1], **kwargs)
            else:
                assertion = check_ops.assert_rank(tensor, rank, **kwargs)
            rank_assertions.append(assertion)

        size_assertions = []
        specified = {}
        for tensor, innermost, actual_sizes, sizes in specs:
            for i, symbol in enumerate(sizes):
                if symbol is None or (isinstance(symbol, str) and symbol == "."):
                    continue
                dim = i - len(sizes) if innermost else i
                if not (_known_size(symbol) or symbol in specified):
                    with control_dependencies(rank_assertions):
                        specified[symbol] = (actual_sizes[dim], tensor, dim)
                    continue
                if _known_size(symbol):
                    want, how = int(symbol), "Specified explicitly"
                else:
                    want, by, at = specified[symbol]
                    how = f"Specified by tensor {_tensor_name(by)} dimension {at}"
                with control_dependencies(rank_assertions):
                    actual = actual_sizes[dim]
                if _known_size(actual) and _known_size(want):
                    if int(actual) != int(want):
                        raise ValueError(
                            f"{prefix}{how}.  Tensor {_tensor_name(tensor)} dimension {dim} "
                            f"must have size {int(want)}.  Received size {int(actual)}, "
                            f"shape {tensor.shape}"
                        )
                    continue
                condition = math_ops.equal(convert_to_tensor(actual), convert_to_tensor(want))
                items = data
                if data is None:
                    items = [
                        prefix,
                        how,
                        f"Tensor {_tensor_name(tensor)} dimension",
                        dim,
                        "must have size",
                        want,
                        "Received shape: ",
                        array_ops.shape(tensor),
                    ]
                size_assertions.append(checks.Assert(condition, items, summarize=summarize))
    with control_dependencies(rank_assertions):
        return control_flow_ops.group(size_assertions)


# -- tf.compat helpers ------------------------------------------------------------------------
export_constant((bytes, str), "compat.bytes_or_text_types")
export_constant((numbers.Integral, np.integer), "compat.integral_types")
export_constant((numbers.Real, np.integer, np.floating), "compat.real_types")
export_constant((numbers.Complex, np.number), "compat.complex_types")

# TF 2.21's forward-compatibility horizon (``tensorflow/python/compat/compat.py``): the
# graphs written here are TF 2.21's, so a date check answers as TF 2.21 does.
_HORIZON = datetime.date(2026, 1, 16)
_DELTA_DAYS_VARIABLE = "TF_FORWARD_COMPATIBILITY_DELTA_DAYS"


def _date_number(year, month, day):
    return (year << 9) | (month << 5) | day


def _initial_date():
    date = _HORIZON
    delta = os.getenv(_DELTA_DAYS_VARIABLE)
    if delta:
        date += datetime.timedelta(days=int(delta))
    return date


_COMPATIBILITY = {"date": _date_number(*_initial_date().timetuple()[:3])}


@tf_export("compat.forward_compatible")
def forward_compatible(year, month, day):
    """True if the forward-compatibility window has passed (year, month, day): TF 2.21's
    horizon, 2026-01-16, plus ``TF_FORWARD_COMPATIBILITY_DELTA_DAYS``."""
    return _COMPATIBILITY["date"] > _date_number(year, month, day)


@tf_export("compat.forward_compatibility_horizon")
@contextlib.contextmanager
def forward_compatibility_horizon(year, month, day):
    """Within the block, ``forward_compatible`` answers as if the horizon were the date
    given (a date before TF's horizon is ignored with a warning, as TF does)."""
    saved = _COMPATIBILITY["date"]
    date = datetime.date(year, month, day)
    if date < _HORIZON:
        from tfcompat.platform import tf_logging

        tf_logging.warning(
            f"Trying to set the forward compatibility date to the past date {date}. "
            "This will be ignored by TensorFlow."
        )
    else:
        _COMPATIBILITY["date"] = _date_number(year, month, day)
    try:
        yield
    finally:
        _COMPATIBILITY["date"] = saved


@tf_export("compat.path_to_str")
def path_to_str(path):
    """A ``PathLike`` as its string (via ``os.fspath``); anything else unchanged."""
    if hasattr(path, "__fspath__"):
        path = os.fspath(path)
        if isinstance(path, bytes):
            path = path.decode("utf-8")
    return path


# -- session option messages ------------------------------------------------------------------
# Protobuf messages with TF's fields (framework/proto/config.proto), recorded only: XLA
# compiles every step whole, so Grappler levels and ``global_jit_level`` change nothing.
export_constant(client_config.GraphOptions, "GraphOptions")
export_constant(client_config.OptimizerOptions, "OptimizerOptions")


# ---------------------------------------------------------------------------------------------
# tf.debugging.enable_check_numerics: an op callback adding a CheckNumericsV2 per float output
# ---------------------------------------------------------------------------------------------
# TF's ``op_callbacks_common.OP_CALLBACK_SKIP_OPS``: control flow and other plumbing.
_CALLBACK_SKIP_OPS = frozenset(
    "Enter Exit Identity If LoopCond Merge NextIteration StatelessIf StatefulPartitionedCall "
    "Switch While RemoteCall TPUReplicatedInput TPUReplicateMetadata TPUCompilationResult "
    "TPUReplicatedOutput ConfigureDistributedTPU DestroyResourceOp".split()
)
# Ops that only move values around cannot make a NaN or Inf (TF's ``SAFE_OPS``).
_NUMERICS_SAFE_OPS = frozenset(
    "Concat ConcatV2 ExpandDims Fill Gather Maximum Minimum Reshape Slice Squeeze Stack "
    "StridedSlice StridedSliceGrad TensorListConcatV2 TensorListGather TensorListGetItem "
    "TensorListPopBack TensorListStack Transpose Unpack".split()
)
# Batch statistics and reserve spaces of FusedBatchNorm* (not checked, as in TF).
_IGNORED_OUTPUTS = frozenset(
    [(f"FusedBatchNorm{v}", slot) for v in ("", "V2") for slot in range(1, 5)]
    + [("FusedBatchNormV3", slot) for slot in range(1, 6)]
)
_TFCOMPAT_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Frames from these are library code; the rest are marked as the user's ("->").
_LIBRARY_DIRS = (
    _TFCOMPAT_DIR + os.sep,
    os.path.join(os.path.dirname(_TFCOMPAT_DIR), "lowering") + os.sep,
)
_check_numerics_state = threading.local()
# graph -> {checked tensor name: the tensor it checks}, so messages name the real inputs.
_checked_originals = weakref.WeakKeyDictionary()


def _limit_length(text, limit):
    return text if limit is None or len(text) <= limit else "..." + text[len(text) - limit :]


def _creation_stack():
    """The stack that made the op being checked, outermost first, ending at ``apply_op``
    (the callback's own frames dropped), as TF's ``op.traceback``."""
    frames = traceback.extract_stack()
    ends = [
        i
        for i, f in enumerate(frames)
        if f.name == "apply_op" and os.path.basename(f.filename) == "op_helper.py"
    ]
    return frames[: ends[-1] + 1] if ends else frames


def _numerics_error_message(slot, outputs, op_type, inputs, graph, frames, height, path_length):
    """TF's ``get_check_numerics_error_message`` for a graph op: the op, the tensor's dtype
    and static shape, its inputs and the (limited) stack of its creation, user frames marked
    ``->``."""
    originals = _checked_originals.get(graph, {})
    tensor = outputs[slot]
    message = (
        f'\n\n!!! Detected Infinity or NaN in output {slot} of graph op "{op_type}" '
        f"(# of outputs: {len(outputs)}) !!!\n"
        f"  dtype: {tensor.dtype}\n  shape: {tensor.shape}\n"
    )
    if len(inputs) > 1:
        message += f"\n  Input tensors ({len(inputs)}):\n"
        for i, t in enumerate(inputs):
            message += f"         {i}: {originals.get(t.name, t)}\n"
    elif len(inputs) == 1:
        message += f"\n  Input tensor: {originals.get(inputs[0].name, inputs[0])}\n"
    if getattr(graph, "name", None):
        message += f'  Graph name: "{graph.name}"\n'
    if frames:
        message += '\n  Stack trace of op\'s creation ("->": inferred user code):\n'
        if height is not None and len(frames) > height:
            message += f"    + ... (Omitted {len(frames) - height} frames)\n"
        for frame in frames[-height:] if height is not None else frames:
            library = os.path.abspath(frame.filename).startswith(_LIBRARY_DIRS)
            path = _limit_length(frame.filename, path_length)
            message += f"    + {path} (L{frame.lineno}) {frame.name}\n"
            # TF 2.21's op tracebacks carry no source text: the line after "|" is empty.
            message += f"{'    ' if library else ' -> '}|   \n"
    return message + "\n"


class _CheckNumericsCallback:
    """The op callback: each float output of a new op gets a ``CheckNumericsV2``, which the
    op's wrapper returns in its place (a placeholder keeps its own output; its check runs
    before the ops that consume it)."""

    def __init__(self, stack_height_limit, path_length_limit):
        self._stack_height_limit = stack_height_limit
        self._path_length_limit = path_length_limit
        self._placeholder_checks = {}

    def callback(self, op_type, inputs, attrs, outputs, op_name=None, graph=None):
        del attrs, op_name
        if op_type in _CALLBACK_SKIP_OPS or op_type in _NUMERICS_SAFE_OPS:
            return None
        for t in inputs:
            if t in self._placeholder_checks and outputs:
                outputs[0].op._add_control_input(self._placeholder_checks[t].op)
        frames = _creation_stack()
        instrumented = []
        for slot, output in enumerate(outputs):
            if not output.dtype.is_floating or (op_type, slot) in _IGNORED_OUTPUTS:
                instrumented.append(output)
                continue
            message = _numerics_error_message(
                slot, outputs, op_type, inputs, graph, frames,
                self._stack_height_limit, self._path_length_limit,
            )  # fmt: skip
            checked = checks.check_numerics_v2(output, message)
            _checked_originals.setdefault(graph, {})[checked.name] = output
            if op_type == "Placeholder":
                self._placeholder_checks[output] = checked
                instrumented.append(output)
            else:
                instrumented.append(checked)
        return instrumented


@tf_export("debugging.enable_check_numerics")
def enable_check_numerics(stack_height_limit=30, path_length_limit=50):
    """From now on (on this thread) every floating-point output of a new op is checked by a
    ``CheckNumericsV2`` op, which later ops consume: a step producing NaN or Inf fails with
    InvalidArgumentError naming the op, its dtype, shape, inputs and the stack that made it
    (at most ``stack_height_limit`` frames, paths cut to ``path_length_limit`` characters).
    Idempotent; ``disable_check_numerics`` stops it."""
    if not hasattr(_check_numerics_state, "callback"):
        _check_numerics_state.callback = _CheckNumericsCallback(
            stack_height_limit, path_length_limit
        )
    op_helper.add_op_callback(_check_numerics_state.callback.callback)


@tf_export("debugging.disable_check_numerics")
def disable_check_numerics():
    """Stops ``enable_check_numerics`` on this thread (ops already checked stay checked).
    Idempotent."""
    if not hasattr(_check_numerics_state, "callback"):
        return
    try:
        op_helper.remove_op_callback(_check_numerics_state.callback.callback)
        del _check_numerics_state.callback
    except KeyError:
        pass
