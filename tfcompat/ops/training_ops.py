"""Optimizer update ops: ``Apply*`` / ``SparseApply*`` on TF1 reference variables and
``ResourceApply*`` / ``ResourceSparseApply*`` on resource variables.

Each op updates its ``Ref(T)`` inputs (the variable and its slots) in place and returns
the variable's ref, with TensorFlow's exact OpDefs (``core/ops/training_ops.cc``), so a
GraphDef written here names the same ops TF's optimizers build. The resource form of each
takes ``resource`` handles instead of the refs and has no output; the wrappers
(``apply_adam``...) build it when given resource variables, as TF's optimizers do.

Duplicate indices. TF's optimizers sum the rows of a sparse gradient that share an index
(``Unique`` + ``UnsortedSegmentSum``) before calling a ``SparseApply*`` kernel, and so do
ours, with the same ops (``Optimizer._apply_sparse_duplicate_indices``): such a ``Unique``
runs on the device at static size (``lowering/unique.py``), so the step stays one XLA call.
Called directly with duplicate indices, TF's kernels apply the rows one after the other;
ours sum them first.
"""

from __future__ import annotations

from tfcompat.framework import dtypes, tensor_shape
from tfcompat.framework.op_def import register_op
from tfcompat.framework.op_helper import apply_op
from tfcompat.framework.tensor import Tensor

_T = "T: numbertype"
_TINDICES = "Tindices: {int32, int64}"
_LOCKING = "use_locking: bool = false"


# ---------------------------------------------------------------------------------------------
# Shape functions (TF's ApplyX shape fns: scalars are rank 0, slots and grad merge with var)
# ---------------------------------------------------------------------------------------------
def _shape_text(shape):
    if shape.rank is None:
        return "?"
    return "[" + ",".join("?" if d is None else str(d) for d in shape.as_list()) + "]"


def _merge(a: tensor_shape.TensorShape, b: tensor_shape.TensorShape):
    """TF's ``InferenceContext::Merge``, with its error messages."""
    if a.rank is None:
        return b
    if b.rank is None:
        return a
    if a.rank != b.rank:
        raise ValueError(f"Shapes must be equal rank, but are {a.rank} and {b.rank}")
    dims = []
    for i, (x, y) in enumerate(zip(a.as_list(), b.as_list())):
        if x is not None and y is not None and x != y:
            raise ValueError(
                f"Dimension {i} in both shapes must be equal, but are {x} and {y}. "
                f"Shapes are {_shape_text(a)} and {_shape_text(b)}."
            )
        dims.append(x if x is not None else y)
    return tensor_shape.TensorShape(dims)


def _merge_dim(a, b):
    """TF's ``Merge`` of two dimensions."""
    if a is not None and b is not None and a != b:
        raise ValueError(f"Dimensions must be equal, but are {a} and {b}")
    return a if a is not None else b


def _with_rank(shape, rank):
    if shape.rank is not None and shape.rank != rank:
        raise ValueError(f"Shape must be rank {rank} but is rank {shape.rank}")
    return shape if shape.rank is not None else tensor_shape.unknown_shape(rank)


def _is_variable_arg(arg) -> bool:
    """The variable and its slots: ``Ref(T)`` args, or ``resource`` handles."""
    return arg.is_ref or arg.dtype == dtypes.resource


def _variable_shape(arg, tensor):
    if arg.dtype == dtypes.resource:
        from tfcompat.ops.resource_variable_ops import handle_shape

        return handle_shape(tensor)
    return tensor.shape


def _apply_shape(op):
    """Output: the variable's shape merged with every slot and the gradient; every other
    input (hyperparameters, ``global_step``) must be a scalar. (Resource forms check the
    same and have no output.)"""
    names = [arg.name for arg in op.op_def.inputs]
    by_name = dict(zip(names, op.inputs))
    shape = tensor_shape.unknown_shape()
    for arg in op.op_def.inputs:
        if _is_variable_arg(arg):
            shape = _merge(shape, _variable_shape(arg, by_name[arg.name]))
    grad_name = "grad" if "grad" in by_name else "delta"
    grad_shape = by_name[grad_name].shape
    if "indices" in by_name:
        indices = _with_rank(by_name["indices"].shape, 1)
        if grad_shape.rank == 0:
            raise ValueError(
                f"Argument grad must not be a scalar. Got grad with rank {grad_shape.rank}"
            )
        if grad_shape.rank is not None:
            _merge_dim(indices.as_list()[0], grad_shape.as_list()[0])
            grad_shape = tensor_shape.TensorShape([None]).concatenate(grad_shape[1:])
    shape = _merge(shape, grad_shape)
    for name in names:
        if name not in (grad_name, "indices") and not _is_variable_arg(op.op_def.input_arg(name)):
            _with_rank(by_name[name].shape, 0)
    return [shape] if op.outputs else []


# ---------------------------------------------------------------------------------------------
# The ops: (name, inputs, extra attrs). Ref args are the variable and its slots.
# ---------------------------------------------------------------------------------------------
_SPARSE = ["grad: T", "indices: Tindices"]

_OPS = [
    ("ApplyGradientDescent", ["var: Ref(T)", "alpha: T", "delta: T"], []),
    (
        "ApplyProximalGradientDescent",
        ["var: Ref(T)", "alpha: T", "l1: T", "l2: T", "delta: T"],
        [],
    ),
    (
        "SparseApplyProximalGradientDescent",
        ["var: Ref(T)", "alpha: T", "l1: T", "l2: T", *_SPARSE],
        [],
    ),
    (
        "ApplyAdadelta",
        [
            "var: Ref(T)",
            "accum: Ref(T)",
            "accum_update: Ref(T)",
            "lr: T",
            "rho: T",
            "epsilon: T",
            "grad: T",
        ],
        [],
    ),
    (
        "SparseApplyAdadelta",
        [
            "var: Ref(T)",
            "accum: Ref(T)",
            "accum_update: Ref(T)",
            "lr: T",
            "rho: T",
            "epsilon: T",
            *_SPARSE,
        ],
        [],
    ),
    (
        "ApplyAdagrad",
        ["var: Ref(T)", "accum: Ref(T)", "lr: T", "grad: T"],
        ["update_slots: bool = true"],
    ),
    (
        "SparseApplyAdagrad",
        ["var: Ref(T)", "accum: Ref(T)", "lr: T", *_SPARSE],
        ["update_slots: bool = true"],
    ),
    (
        "ApplyAdagradV2",
        ["var: Ref(T)", "accum: Ref(T)", "lr: T", "epsilon: T", "grad: T"],
        ["update_slots: bool = true"],
    ),
    (
        "SparseApplyAdagradV2",
        ["var: Ref(T)", "accum: Ref(T)", "lr: T", "epsilon: T", *_SPARSE],
        ["update_slots: bool = true"],
    ),
    (
        "ApplyAdagradDA",
        [
            "var: Ref(T)",
            "gradient_accumulator: Ref(T)",
            "gradient_squared_accumulator: Ref(T)",
            "grad: T",
            "lr: T",
            "l1: T",
            "l2: T",
            "global_step: int64",
        ],
        [],
    ),
    (
        "SparseApplyAdagradDA",
        [
            "var: Ref(T)",
            "gradient_accumulator: Ref(T)",
            "gradient_squared_accumulator: Ref(T)",
            *_SPARSE,
            "lr: T",
            "l1: T",
            "l2: T",
            "global_step: int64",
        ],
        [],
    ),
    (
        "ApplyProximalAdagrad",
        ["var: Ref(T)", "accum: Ref(T)", "lr: T", "l1: T", "l2: T", "grad: T"],
        [],
    ),
    (
        "SparseApplyProximalAdagrad",
        ["var: Ref(T)", "accum: Ref(T)", "lr: T", "l1: T", "l2: T", *_SPARSE],
        [],
    ),
    (
        "ApplyFtrl",
        [
            "var: Ref(T)",
            "accum: Ref(T)",
            "linear: Ref(T)",
            "grad: T",
            "lr: T",
            "l1: T",
            "l2: T",
            "lr_power: T",
        ],
        ["multiply_linear_by_lr: bool = false"],
    ),
    (
        "SparseApplyFtrl",
        [
            "var: Ref(T)",
            "accum: Ref(T)",
            "linear: Ref(T)",
            *_SPARSE,
            "lr: T",
            "l1: T",
            "l2: T",
            "lr_power: T",
        ],
        ["multiply_linear_by_lr: bool = false"],
    ),
    (
        "ApplyFtrlV2",
        [
            "var: Ref(T)",
            "accum: Ref(T)",
            "linear: Ref(T)",
            "grad: T",
            "lr: T",
            "l1: T",
            "l2: T",
            "l2_shrinkage: T",
            "lr_power: T",
        ],
        ["multiply_linear_by_lr: bool = false"],
    ),
    (
        "SparseApplyFtrlV2",
        [
            "var: Ref(T)",
            "accum: Ref(T)",
            "linear: Ref(T)",
            *_SPARSE,
            "lr: T",
            "l1: T",
            "l2: T",
            "l2_shrinkage: T",
            "lr_power: T",
        ],
        ["multiply_linear_by_lr: bool = false"],
    ),
    (
        "ApplyMomentum",
        ["var: Ref(T)", "accum: Ref(T)", "lr: T", "grad: T", "momentum: T"],
        ["use_nesterov: bool = false"],
    ),
    (
        "SparseApplyMomentum",
        ["var: Ref(T)", "accum: Ref(T)", "lr: T", *_SPARSE, "momentum: T"],
        ["use_nesterov: bool = false"],
    ),
    (
        "ApplyAdam",
        [
            "var: Ref(T)",
            "m: Ref(T)",
            "v: Ref(T)",
            "beta1_power: T",
            "beta2_power: T",
            "lr: T",
            "beta1: T",
            "beta2: T",
            "epsilon: T",
            "grad: T",
        ],
        ["use_nesterov: bool = false"],
    ),
    (
        "ApplyAdaMax",
        [
            "var: Ref(T)",
            "m: Ref(T)",
            "v: Ref(T)",
            "beta1_power: T",
            "lr: T",
            "beta1: T",
            "beta2: T",
            "epsilon: T",
            "grad: T",
        ],
        [],
    ),
    (
        "ApplyRMSProp",
        [
            "var: Ref(T)",
            "ms: Ref(T)",
            "mom: Ref(T)",
            "lr: T",
            "rho: T",
            "momentum: T",
            "epsilon: T",
            "grad: T",
        ],
        [],
    ),
    (
        "SparseApplyRMSProp",
        [
            "var: Ref(T)",
            "ms: Ref(T)",
            "mom: Ref(T)",
            "lr: T",
            "rho: T",
            "momentum: T",
            "epsilon: T",
            *_SPARSE,
        ],
        [],
    ),
    (
        "ApplyCenteredRMSProp",
        [
            "var: Ref(T)",
            "mg: Ref(T)",
            "ms: Ref(T)",
            "mom: Ref(T)",
            "lr: T",
            "rho: T",
            "momentum: T",
            "epsilon: T",
            "grad: T",
        ],
        [],
    ),
    (
        "SparseApplyCenteredRMSProp",
        [
            "var: Ref(T)",
            "mg: Ref(T)",
            "ms: Ref(T)",
            "mom: Ref(T)",
            "lr: T",
            "rho: T",
            "momentum: T",
            "epsilon: T",
            *_SPARSE,
        ],
        [],
    ),
    (
        "ApplyAddSign",
        ["var: Ref(T)", "m: Ref(T)", "lr: T", "alpha: T", "sign_decay: T", "beta: T", "grad: T"],
        [],
    ),
    (
        "ApplyPowerSign",
        ["var: Ref(T)", "m: Ref(T)", "lr: T", "logbase: T", "sign_decay: T", "beta: T", "grad: T"],
        [],
    ),
]

APPLY_OP_TYPES = tuple(name for name, _, _ in _OPS)
# ResourceApplyAdam, ResourceSparseApplyAdagrad, ...: the resource form of each.
RESOURCE_APPLY_OP_TYPES = {"Resource" + name: name for name in APPLY_OP_TYPES}


def _snake(op_type: str) -> str:
    """``SparseApplyRMSProp`` -> ``sparse_apply_rms_prop`` (TF's gen_* naming)."""
    out = []
    for i, ch in enumerate(op_type):
        prev = op_type[i - 1] if i else ""
        nxt = op_type[i + 1] if i + 1 < len(op_type) else ""
        if ch.isupper() and i and (prev.islower() or (nxt.islower() and prev.isupper())):
            out.append("_")
        out.append(ch.lower())
    return "".join(out)


def _is_resource(value) -> bool:
    """A resource variable or a handle: the update is the op's resource form."""
    from tfcompat.resource_variables import is_resource_variable

    return is_resource_variable(value) or getattr(value, "dtype", None) == dtypes.resource


def _make_wrapper(op_type, input_names, attr_names, var_names):
    def wrapper(*args, name=None, **kwargs):
        if len(args) > len(input_names):
            raise TypeError(f"{op_type} takes {len(input_names)} inputs, got {len(args)}")
        keywords = dict(zip(input_names, args))
        for key, value in kwargs.items():
            if key not in input_names and key not in attr_names:
                raise TypeError(f"{op_type} got an unexpected keyword argument '{key}'")
            keywords[key] = value
        # A Variable's ``_ref()`` is its ref tensor, or a resource variable's handle (only
        # the variable and slot args take handles; other args read the variable).
        keywords = {
            k: (v._ref() if k in var_names and hasattr(v, "_ref") else v)
            for k, v in keywords.items()
        }
        if _is_resource(keywords.get(input_names[0])) and not op_type.startswith("Resource"):
            return apply_op("Resource" + op_type, name=name, **keywords)
        op = apply_op(op_type, name=name, **keywords)
        return op.outputs[0] if op.outputs else op

    wrapper.__name__ = _snake(op_type)
    wrapper.__doc__ = (
        f"Adds a ``{op_type}`` op ({', '.join(input_names)}); updates the variable and its "
        "slots in place. Returns the variable's ref, or the op for the resource form (built "
        "when ``var`` is a resource variable)."
    )
    return wrapper


for _name, _inputs, _attrs in _OPS:
    _attr_specs = [_T] + ([_TINDICES] if "indices: Tindices" in _inputs else [])
    _attr_specs += [_LOCKING] + _attrs
    register_op(
        _name,
        inputs=_inputs,
        outputs=["out: Ref(T)"],
        attrs=_attr_specs,
        shape_fn=_apply_shape,
    )
    register_op(
        "Resource" + _name,
        inputs=[spec.replace("Ref(T)", "resource") for spec in _inputs],
        attrs=_attr_specs,
        shape_fn=_apply_shape,
        is_stateful=True,
    )
    _input_names = [s.split(":")[0] for s in _inputs]
    _attr_names = [s.split(":")[0] for s in _attr_specs]
    _var_names = {s.split(":")[0] for s in _inputs if "Ref(T)" in s}
    globals()[_snake(_name)] = _make_wrapper(_name, _input_names, _attr_names, _var_names)
    globals()[_snake("Resource" + _name)] = _make_wrapper(
        "Resource" + _name, _input_names, _attr_names, _var_names
    )


def update_op(result):
    """The op of an update: a ref form's output tensor, or the resource form's op."""
    return result.op if isinstance(result, Tensor) else result


def is_apply_op_type(op_type: str) -> bool:
    return op_type in APPLY_OP_TYPES


# ---------------------------------------------------------------------------------------------
# OptaxInit / OptaxApply: an optax GradientTransformation as graph ops (tfcompat ops)
# ---------------------------------------------------------------------------------------------
class OptaxProgram:
    """What the Optax ops need at lowering time, kept out of the GraphDef: the transform,
    the treedef of its state, and the static shapes and dtypes of the state's leaves."""

    def __init__(self, transform, state_treedef, state_leaves):
        self.transform = transform
        self.state_treedef = state_treedef
        self.state_leaves = state_leaves  # [(TensorShape, DType)]


# attr ``transform`` (a string key) -> OptaxProgram
OPTAX_PROGRAMS: dict[str, OptaxProgram] = {}


def register_optax_program(program: OptaxProgram) -> str:
    key = f"optax_{len(OPTAX_PROGRAMS)}"
    OPTAX_PROGRAMS[key] = program
    return key


def _optax_init_shape(op):
    program = OPTAX_PROGRAMS[op.attrs["transform"].decode()]
    return [shape for shape, _ in program.state_leaves]


register_op(
    "OptaxInit",
    inputs=["params: Tparams"],
    outputs=["state: Tstate"],
    attrs=["Tparams: list(type) >= 1", "Tstate: list(type) >= 0", "transform: string"],
    shape_fn=_optax_init_shape,
)

register_op(
    "OptaxApply",
    inputs=["params: Ref(Tparams)", "state: Ref(Tstate)", "grads: Tparams"],
    outputs=[],
    attrs=["Tparams: list(type) >= 1", "Tstate: list(type) >= 0", "transform: string"],
    shape_fn=lambda op: [],
)


def optax_init(params, key, name=None):
    """The transform's initial state (one Tensor per state leaf) for ``params``."""
    program = OPTAX_PROGRAMS[key]
    op = apply_op(
        "OptaxInit",
        name=name,
        params=list(params),
        Tstate=[dtype for _, dtype in program.state_leaves],
        transform=key,
    )
    return op.outputs


def optax_apply(params, state, grads, key, name=None):
    """One optax step: ``updates, state = update(grads, state, params)``, then
    ``params += updates``, in place on the variables ``params`` and ``state``."""
    refs = [p._ref() if hasattr(p, "_ref") else p for p in params]
    state_refs = [s._ref() if hasattr(s, "_ref") else s for s in state]
    return apply_op(
        "OptaxApply", name=name, params=refs, state=state_refs, grads=list(grads), transform=key
    )
