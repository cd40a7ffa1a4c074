"""Feature specs of ``tf.io.parse_example`` and how they become the parse op's arguments.

A ``features`` dict maps keys to ``FixedLenFeature``, ``FixedLenSequenceFeature``,
``VarLenFeature`` or ``SparseFeature``. ``ParseParams.from_features`` turns it into the
op's key lists, types, shapes and default tensors, in TF's order (keys sorted; a
SparseFeature contributes its index keys, sorted, then its value key as sparse keys) and
with TF's validation errors. ``combine_sparse_features`` then builds one SparseTensor per
SparseFeature from the parsed parts, with the graph TF's ``sparse_merge`` builds.
"""

from __future__ import annotations

import collections
import re

from tfcompat.framework import constant_op, dtypes, tensor_shape
from tfcompat.framework.op_helper import convert_to_tensor
from tfcompat.framework.scopes import name_scope
from tfcompat.framework.sparse_tensor import SparseTensor
from tfcompat.framework.tensor import Tensor
from tfcompat.util.tf_export import tf_export


@tf_export("io.VarLenFeature", "VarLenFeature")
class VarLenFeature(collections.namedtuple("VarLenFeature", ["dtype"])):
    """A variable-length feature, parsed into a SparseTensor ``[batch, max_length]``."""


@tf_export("io.SparseFeature", "SparseFeature")
class SparseFeature(
    collections.namedtuple(
        "SparseFeature", ["index_key", "value_key", "dtype", "size", "already_sorted"]
    )
):
    """A SparseTensor given by index features (``index_key``, one per dimension) and a value
    feature (``value_key``) of equal lengths; ``size`` is the dense shape (an int or a list
    matching ``index_key``). Unless ``already_sorted``, entries are put in row-major order."""

    def __new__(cls, index_key, value_key, dtype, size, already_sorted=False):
        return super().__new__(cls, index_key, value_key, dtype, size, already_sorted)


@tf_export("io.FixedLenFeature", "FixedLenFeature")
class FixedLenFeature(
    collections.namedtuple("FixedLenFeature", ["shape", "dtype", "default_value"])
):
    """A feature with exactly ``shape`` values in every example; examples without it take
    ``default_value`` (without one, the feature is required)."""

    def __new__(cls, shape, dtype, default_value=None):
        return super().__new__(cls, shape, dtype, default_value)


@tf_export("io.FixedLenSequenceFeature", "FixedLenSequenceFeature")
class FixedLenSequenceFeature(
    collections.namedtuple(
        "FixedLenSequenceFeature", ["shape", "dtype", "allow_missing", "default_value"]
    )
):
    """A feature of any number of ``shape`` blocks, parsed into ``[batch, None] + shape``;
    shorter examples are padded with the scalar ``default_value`` ("" or 0 by default)."""

    def __new__(cls, shape, dtype, allow_missing=False, default_value=None):
        return super().__new__(cls, shape, dtype, allow_missing, default_value)


def prepend_none_dimension(features):
    """A copy of ``features`` in which each FixedLenSequenceFeature's shape starts with an
    unknown dimension (what the parse op is given); ``allow_missing`` must be True."""
    if not features:
        return features
    modified = dict(features)
    for key, feature in features.items():
        if isinstance(feature, FixedLenSequenceFeature):
            if not feature.allow_missing:
                raise ValueError(
                    "Unsupported: FixedLenSequenceFeature requires allow_missing to be True."
                )
            modified[key] = FixedLenSequenceFeature(
                [None] + list(feature.shape),
                feature.dtype,
                feature.allow_missing,
                feature.default_value,
            )
    return modified


def _scoped_key(prefix, key):
    """A default value's node name: the key with characters a node name cannot hold as _."""
    return prefix + re.sub("[^A-Za-z0-9_.\\-/]", "_", key)


class ParseParams:
    """The parse op's arguments: sparse keys/types, dense keys/types/shapes/defaults."""

    def __init__(self):
        self.sparse_keys = []
        self.sparse_types = []
        self.dense_keys = []
        self.dense_types = []
        self.dense_shapes = []
        self.dense_defaults = {}

    @classmethod
    def from_features(cls, features, types):
        """Params for ``features`` (keys in sorted order); each must be one of ``types``."""
        params = cls()
        for key in sorted(features or {}):
            feature = features[key]
            if not isinstance(feature, tuple(types)):
                raise ValueError(f"Unsupported {type(feature).__name__} {feature} for key '{key}'")
            _ADDERS[type(feature)](params, key, feature)
        params.validate()
        return params

    @property
    def num_features(self):
        return len(self.dense_keys) + len(self.sparse_keys)

    def add_sparse_key(self, key, dtype):
        """Adds a sparse key; one key used twice (by two SparseFeatures) must agree on type."""
        dtype = dtypes.as_dtype(dtype)
        if key in self.sparse_keys:
            original = self.sparse_types[self.sparse_keys.index(key)]
            if original != dtype:
                raise ValueError(f"Conflicting type {original} vs {dtype} for feature {key}.")
        else:
            self.sparse_keys.append(key)
            self.sparse_types.append(dtype)

    def add_dense_key(self, key, shape, dtype):
        self.dense_keys.append(key)
        self.dense_shapes.append(tensor_shape.as_shape(shape))
        self.dense_types.append(dtypes.as_dtype(dtype))

    def validate(self):
        dense, sparse = set(self.dense_keys), set(self.sparse_keys)
        if not dense.isdisjoint(sparse):
            raise ValueError(
                "Dense and sparse keys must not intersect; dense_keys: "
                f"{self.dense_keys}, sparse_keys: {self.sparse_keys}, intersection: "
                f"{dense.intersection(sparse)}"
            )

    def dense_default_tensors(self):
        """One default tensor per dense key, built as TF builds them (node names included):
        a reshaped ``key_<k>`` constant or an empty ``Const`` (required feature) for fixed
        shapes; a scalar ``padding_<k>`` (or a 0 / "" ``Const``) for sequence features."""
        return [
            self._dense_default(k, s, t)
            for k, s, t in zip(self.dense_keys, self.dense_shapes, self.dense_types)
        ]

    def _dense_default(self, key, shape, dtype):
        from tfcompat.ops import array_ops

        default = self.dense_defaults.get(key)
        if shape.rank is not None and shape.rank > 0 and shape.dims[0].value is None:
            if default is None:
                return convert_to_tensor("" if dtype == dtypes.string else 0, dtype=dtype)
            default = convert_to_tensor(default, dtype=dtype, name=_scoped_key("padding_", key))
            return array_ops.reshape(default, [])
        if default is None:
            return constant_op.constant([], dtype=dtype)
        if isinstance(default, Tensor):
            return default
        default = convert_to_tensor(default, dtype=dtype, name=_scoped_key("key_", key))
        return array_ops.reshape(default, shape)


def _add_var_len(params, key, feature):
    if not feature.dtype:
        raise ValueError(f"Missing type for feature {key}. Received feature={feature}")
    params.add_sparse_key(key, feature.dtype)


def _add_sparse(params, key, feature):
    if not feature.index_key:
        raise ValueError(f"Missing index_key for SparseFeature {feature}.")
    if not feature.value_key:
        raise ValueError(f"Missing value_key for SparseFeature {feature}.")
    if not feature.dtype:
        raise ValueError(f"Missing type for feature {key}. Received feature={feature}.")
    index_keys = feature.index_key
    if isinstance(index_keys, str):
        index_keys = [index_keys]
    for index_key in sorted(index_keys):
        params.add_sparse_key(index_key, dtypes.int64)
    params.add_sparse_key(feature.value_key, feature.dtype)


def _add_fixed_len(params, key, feature):
    if not feature.dtype:
        raise ValueError(f"Missing type for feature {key}. Received feature={feature}.")
    if feature.shape is None:
        raise ValueError(f"Missing shape for feature {key}. Received feature={feature}.")
    shape = tensor_shape.as_shape(feature.shape)
    if feature.shape and shape.rank and shape.dims[0].value is None:
        raise ValueError(
            f"First dimension of shape for feature {key} unknown. Consider using "
            f"FixedLenSequenceFeature. Received feature={feature}."
        )
    if not shape.is_fully_defined():
        raise ValueError(
            f"All dimensions of shape for feature {key} need to be known but received "
            f"{feature.shape!s}."
        )
    params.add_dense_key(key, shape, feature.dtype)
    if feature.default_value is not None:
        params.dense_defaults[key] = feature.default_value


def _add_fixed_len_sequence(params, key, feature):
    if not feature.dtype:
        raise ValueError(f"Missing type for feature {key}. Received feature={feature}.")
    if feature.shape is None:
        raise ValueError(f"Missing shape for feature {key}. Received feature={feature}.")
    params.add_dense_key(key, feature.shape, feature.dtype)
    if feature.default_value is not None:
        params.dense_defaults[key] = feature.default_value


_ADDERS = {
    VarLenFeature: _add_var_len,
    SparseFeature: _add_sparse,
    FixedLenFeature: _add_fixed_len,
    FixedLenSequenceFeature: _add_fixed_len_sequence,
}


# ---------------------------------------------------------------------------------------------
# SparseFeature: index and value SparseTensors merged into one (TF's sparse_merge graph)
# ---------------------------------------------------------------------------------------------
def combine_sparse_features(features, tensors):
    """``tensors`` (parsed key -> Tensor / SparseTensor) with each SparseFeature's parts
    merged into one SparseTensor under its key, and keys not in ``features`` dropped."""
    tensors = dict(tensors)
    updates = {}
    for key in sorted(features):
        feature = features[key]
        if isinstance(feature, SparseFeature):
            if isinstance(feature.index_key, str):
                ids = tensors[feature.index_key]
            else:
                ids = [tensors[k] for k in feature.index_key]
            updates[key] = sparse_merge(
                ids, tensors[feature.value_key], feature.size, feature.already_sorted
            )
    tensors.update(updates)
    return {k: v for k, v in tensors.items() if k in features}


def sparse_merge(sp_ids, sp_values, vocab_size, already_sorted=False, name=None):
    """One SparseTensor whose last dimensions are given by ``sp_ids``' values (one id
    SparseTensor per dimension) and whose values are ``sp_values``' values; leading indices
    come from the first id tensor. Builds TF's ``SparseMerge`` graph (``SparseReorder``
    unless ``already_sorted``)."""
    from tfcompat.ops import array_ops, join_ops, math_ops

    if isinstance(sp_ids, SparseTensor):
        sp_ids, vocab_size = [sp_ids], [vocab_size]
    elif isinstance(vocab_size, int):
        raise TypeError(
            f"vocab_size has to be a list of Tensors or Python ints. Found {type(vocab_size)}"
        )
    if len(sp_ids) != len(vocab_size):
        raise ValueError("sp_ids and vocab_size have to have equal lengths.")
    with name_scope(name, "SparseMerge", [*sp_ids, sp_values]):
        ids = []
        for sp in sp_ids:
            values = sp.values
            if sp.dtype != dtypes.int64:
                values = math_ops.cast(values, dtypes.int64)
            ids.append(array_ops.expand_dims(values, axis=1))
        sizes = [math_ops.cast(x, dtypes.int64) for x in vocab_size]
        new_indices = join_ops.concat([sp_ids[0].indices[:, :-1]] + ids, 1)
        new_shape = join_ops.concat([sp_ids[0].dense_shape[:-1], sizes], 0)
        result = SparseTensor(new_indices, sp_values.values, new_shape)
        if already_sorted:
            return result
        indices, values = sparse_reorder(result)
        return SparseTensor(indices, values, new_shape)


def sparse_reorder(sp_input, name=None):
    """``SparseReorder``'s (indices, values): entries in row-major order. Like TF, it also
    builds the dense shape anew (a constant when static, else an ``Identity``)."""
    from tfcompat.ops import array_ops, parsing_ops

    indices, values = parsing_ops.sparse_reorder_op(
        sp_input.indices, sp_input.values, sp_input.dense_shape, name=name
    )
    if sp_input.shape.is_fully_defined():
        SparseTensor(indices, values, sp_input.shape.as_list())
    else:
        array_ops.identity(sp_input.dense_shape)
    return indices, values
