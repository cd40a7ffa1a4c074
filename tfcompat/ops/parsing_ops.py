"""``tf.train.Example`` parsing: the Example protos, the parse ops and their wrappers.

Ops (TensorFlow's OpDefs from ``core/ops/parsing_ops.cc``): ``ParseExampleV2`` (what
``tf.io.parse_example`` and ``tf.io.parse_single_example`` build in TF 2.21), and the
legacy ``ParseExample`` / ``ParseSingleExample`` that imported graphs may hold. They are
host ops: the kernels in ``lowering/reference/parsing.py`` decode the serialized protos in
numpy on the host, before the jitted device function. ``SparseReorder`` (TF's
``sparse_ops``) is here because ``SparseFeature`` parsing builds it; it runs on the device.

Feature specs (``tf.io.FixedLenFeature`` ...) live in ``parsing_config``.
"""

from __future__ import annotations

from tfcompat.framework import tensor_shape
from tfcompat.framework.gradient_registry import RegisterGradient
from tfcompat.framework.op_def import register_op
from tfcompat.framework.op_helper import apply_op, convert_to_tensor
from tfcompat.framework.proto import example_pb2, feature_pb2
from tfcompat.framework.scopes import name_scope
from tfcompat.framework.sparse_tensor import SparseTensor
from tfcompat.ops import parsing_config
from tfcompat.ops.parsing_config import (  # noqa: F401 - published feature specs
    FixedLenFeature,
    FixedLenSequenceFeature,
    SparseFeature,
    VarLenFeature,
)
from tfcompat.util.tf_export import export_constant, tf_export

for _name, _proto in {
    "Example": example_pb2.Example,
    "SequenceExample": example_pb2.SequenceExample,
    "Features": feature_pb2.Features,
    "Feature": feature_pb2.Feature,
    "BytesList": feature_pb2.BytesList,
    "FloatList": feature_pb2.FloatList,
    "Int64List": feature_pb2.Int64List,
    "FeatureList": feature_pb2.FeatureList,
    "FeatureLists": feature_pb2.FeatureLists,
}.items():
    export_constant(_proto, f"train.{_name}")


# ---------------------------------------------------------------------------------------------
# Shape functions
# ---------------------------------------------------------------------------------------------
def _rank_at_most(shape, rank):
    if shape.rank is not None and shape.rank > rank:
        raise ValueError(f"Shape must be at most rank {rank} but is rank {shape.rank}")


def _rank_exactly(shape, rank):
    if shape.rank is not None and shape.rank != rank:
        raise ValueError(f"Shape must be rank {rank} but is rank {shape.rank}")


def _sparse_shapes(num_sparse, input_shape):
    """indices ``[?, rank]``, values ``[?]``, dense shape ``[rank]`` per sparse output, where
    rank is the input's plus one (the position within a feature's value list)."""
    rank = None if input_shape.rank is None else input_shape.rank + 1
    return (
        [tensor_shape.TensorShape([None, rank])] * num_sparse
        + [tensor_shape.TensorShape([None])] * num_sparse
        + [tensor_shape.TensorShape([rank])] * num_sparse
    )


def _dense_shapes(dense_shapes, input_shape):
    return [input_shape.concatenate(s) for s in dense_shapes]


def _check_counts(op, num_sparse, num_dense):
    if len(op.attrs["sparse_types"]) != num_sparse:
        raise ValueError(
            f"len(sparse_keys) != len(sparse_types): {num_sparse} vs "
            f"{len(op.attrs['sparse_types'])}"
        )
    if len(op.attrs["dense_shapes"]) != num_dense:
        raise ValueError(
            f"len(dense_keys) != len(dense_shapes): {num_dense} vs {len(op.attrs['dense_shapes'])}"
        )


def _parse_example_v2_shape(op):
    serialized, names = op.inputs[0].shape, op.inputs[1].shape
    _rank_at_most(serialized, 1)
    _rank_at_most(names, 1)
    num_sparse = op.attrs["num_sparse"]
    _check_counts(op, num_sparse, len(op.attrs["Tdense"]))
    num_ragged = len(op.attrs["ragged_value_types"])
    if len(op.attrs["ragged_split_types"]) != num_ragged:
        raise ValueError("len(ragged_keys) != len(ragged_split_types)")
    batch = serialized[0].value if serialized.rank == 1 else None
    splits = None if batch is None else batch + 1
    return (
        _sparse_shapes(num_sparse, serialized)
        + _dense_shapes(op.attrs["dense_shapes"], serialized)
        + [tensor_shape.TensorShape([None])] * num_ragged
        + [tensor_shape.TensorShape([splits])] * num_ragged
    )


def _parse_example_shape(op):
    serialized, names = op.inputs[0].shape, op.inputs[1].shape
    _rank_exactly(serialized, 1)
    _rank_exactly(names, 1)
    if serialized.rank is None:
        serialized = tensor_shape.TensorShape([None])
    _check_counts(op, op.attrs["Nsparse"], op.attrs["Ndense"])
    return _sparse_shapes(op.attrs["Nsparse"], serialized) + _dense_shapes(
        op.attrs["dense_shapes"], serialized
    )


def _parse_single_example_shape(op):
    _rank_exactly(op.inputs[0].shape, 0)
    if len(op.attrs["sparse_keys"]) != op.attrs["num_sparse"]:
        raise ValueError("len(sparse_keys) != num_sparse")
    if len(op.attrs["dense_keys"]) != len(op.attrs["Tdense"]):
        raise ValueError("len(dense_keys) != len(Tdense)")
    _check_counts(op, op.attrs["num_sparse"], len(op.attrs["Tdense"]))
    scalar = tensor_shape.TensorShape([])
    return _sparse_shapes(op.attrs["num_sparse"], scalar) + _dense_shapes(
        op.attrs["dense_shapes"], scalar
    )


_TYPES = "{float, int64, string}"

register_op(
    "ParseExampleV2",
    inputs=[
        "serialized: string",
        "names: string",
        "sparse_keys: string",
        "dense_keys: string",
        "ragged_keys: string",
        "dense_defaults: Tdense",
    ],
    outputs=[
        "sparse_indices: num_sparse * int64",
        "sparse_values: sparse_types",
        "sparse_shapes: num_sparse * int64",
        "dense_values: Tdense",
        "ragged_values: ragged_value_types",
        "ragged_row_splits: ragged_split_types",
    ],
    attrs=[
        f"Tdense: list({_TYPES}) >= 0",
        "num_sparse: int >= 0",
        f"sparse_types: list({_TYPES}) >= 0",
        f"ragged_value_types: list({_TYPES}) >= 0",
        "ragged_split_types: list({int32, int64}) >= 0",
        "dense_shapes: list(shape) >= 0",
    ],
    shape_fn=_parse_example_v2_shape,
    host=True,
)
register_op(
    "ParseExample",
    inputs=[
        "serialized: string",
        "names: string",
        "sparse_keys: Nsparse * string",
        "dense_keys: Ndense * string",
        "dense_defaults: Tdense",
    ],
    outputs=[
        "sparse_indices: Nsparse * int64",
        "sparse_values: sparse_types",
        "sparse_shapes: Nsparse * int64",
        "dense_values: Tdense",
    ],
    attrs=[
        "Nsparse: int >= 0",
        "Ndense: int >= 0",
        f"sparse_types: list({_TYPES}) >= 0",
        f"Tdense: list({_TYPES}) >= 0",
        "dense_shapes: list(shape) >= 0",
    ],
    shape_fn=_parse_example_shape,
    host=True,
)
register_op(
    "ParseSingleExample",
    inputs=["serialized: string", "dense_defaults: Tdense"],
    outputs=[
        "sparse_indices: num_sparse * int64",
        "sparse_values: sparse_types",
        "sparse_shapes: num_sparse * int64",
        "dense_values: Tdense",
    ],
    attrs=[
        "num_sparse: int >= 0",
        "sparse_keys: list(string) >= 0",
        "dense_keys: list(string) >= 0",
        f"sparse_types: list({_TYPES}) >= 0",
        f"Tdense: list({_TYPES}) >= 0",
        "dense_shapes: list(shape) >= 0",
    ],
    shape_fn=_parse_single_example_shape,
    host=True,
)


def _sparse_reorder_shape(op):
    indices, values, shape = (t.shape for t in op.inputs)
    indices = indices.with_rank(2)
    values = values.with_rank(1)
    shape.with_rank(1)
    return [indices, values]


register_op(
    "SparseReorder",
    inputs=["input_indices: int64", "input_values: T", "input_shape: int64"],
    outputs=["output_indices: int64", "output_values: T"],
    attrs=["T: type"],
    shape_fn=_sparse_reorder_shape,
)


def sparse_reorder_op(input_indices, input_values, input_shape, name=None):
    """The raw ``SparseReorder`` op: (indices, values) in row-major order."""
    op = apply_op(
        "SparseReorder",
        name=name,
        input_indices=input_indices,
        input_values=input_values,
        input_shape=input_shape,
    )
    return op.outputs[0], op.outputs[1]


@RegisterGradient("SparseReorder")
def _sparse_reorder_grad(op, unused_indices_grad, values_grad):
    """Values flow back through the inverse of the permutation the op applied (found by
    reordering the entry numbers ``0..N-1``)."""
    from tfcompat.ops import array_ops, gather_ops, reduction_ops

    indices, shape = op.inputs[0], op.inputs[2]
    entries = reduction_ops.range(array_ops.shape(indices)[0])
    _, permutation = sparse_reorder_op(indices, entries, shape)
    inverse = reduction_ops.invert_permutation(permutation)
    return None, gather_ops.gather(values_grad, inverse), None


# ---------------------------------------------------------------------------------------------
# Wrappers
# ---------------------------------------------------------------------------------------------
_EXAMPLE_FEATURE_TYPES = (VarLenFeature, SparseFeature, FixedLenFeature, FixedLenSequenceFeature)


@tf_export("io.parse_example", "parse_example")
def parse_example(serialized, features, name=None, example_names=None):
    """Parses a batch (vector) of serialized ``Example`` protos into a dict: a Tensor per
    FixedLen(Sequence)Feature (batch dimension first) and a SparseTensor per VarLenFeature
    and SparseFeature. Missing required features, wrong types and wrong value counts fail
    the step with InvalidArgumentError naming the feature and the example."""
    if not features:
        raise ValueError(f"Argument `features` cannot be None or falsy. Got {features}")
    features = parsing_config.prepend_none_dimension(features)
    params = parsing_config.ParseParams.from_features(features, _EXAMPLE_FEATURE_TYPES)
    outputs = _parse_example_raw(serialized, example_names, params, name=name)
    return parsing_config.combine_sparse_features(features, outputs)


def _parse_example_raw(serialized, names, params, name):
    """Builds one ``ParseExampleV2`` under ``name`` (default scope ``ParseExample``) and
    returns ``{key: Tensor or SparseTensor}``."""
    if params.num_features == 0:
        raise ValueError("Must provide at least one feature key.")
    with name_scope(name, "ParseExample", [serialized, names]):
        names = [] if names is None else names
        serialized = convert_to_tensor(serialized, name="serialized")
        op = apply_op(
            "ParseExampleV2",
            name=name,
            serialized=serialized,
            names=names,
            sparse_keys=params.sparse_keys,
            dense_keys=params.dense_keys,
            ragged_keys=[],
            dense_defaults=params.dense_default_tensors(),
            num_sparse=len(params.sparse_keys),
            sparse_types=params.sparse_types,
            ragged_value_types=[],
            ragged_split_types=[],
            dense_shapes=params.dense_shapes,
        )
    n = len(params.sparse_keys)
    outs = op.outputs
    sparse = [SparseTensor(outs[i], outs[n + i], outs[2 * n + i]) for i in range(n)]
    dense = outs[3 * n : 3 * n + len(params.dense_keys)]
    return dict(zip(params.sparse_keys + params.dense_keys, sparse + list(dense)))


@tf_export("io.parse_single_example", "parse_single_example")
def parse_single_example(serialized, features, name=None, example_names=None):
    """Parses one serialized ``Example`` (a scalar string) like ``parse_example`` without
    the batch dimension: dense values have the feature's shape, SparseTensors rank 1."""
    if features is None:
        raise ValueError("Invalid argument: features cannot be None.")
    if not features:
        raise ValueError("Invalid argument: features cannot be empty.")
    with name_scope(name, "ParseSingleExample", [serialized, example_names]):
        serialized = convert_to_tensor(serialized, name="serialized")
        serialized = _assert_scalar(serialized, "serialized")
        return parse_example(serialized, features, name, example_names)


def _assert_scalar(value, name):
    """``value`` if its rank is 0; ValueError for another static rank; for an unknown rank,
    ``value`` behind an ``Assert`` that it is a scalar (TF's node names)."""
    from tfcompat.ops import array_ops, checks, math_ops

    rank = value.shape.rank
    if rank == 0:
        return value
    if rank is not None:
        raise ValueError(f"Input {name} must be a scalar")
    check = checks.Assert(
        math_ops.equal(array_ops.rank(value), 0),
        [f"Input {name} must be a scalar"],
        name=f"{name.capitalize()}IsScalar",
    )
    graph = value.graph
    with name_scope(None, f"{name}Dependencies", [check, value]) as scope:
        with graph.colocate_with(value.op), graph.control_dependencies([check]):
            result = array_ops.identity(value, name=scope)
    result.set_shape([])
    return result
