"""The feature-column base classes and helpers every column kind shares.

A feature column says how one raw feature (or a combination of them) becomes model input:
*dense* columns (``_DenseColumn``) produce a float tensor per example, *categorical*
columns (``_CategoricalColumn``) produce sparse ids (and optional weights) that
``linear_model`` weighs directly and ``embedding_column`` / ``indicator_column`` turn dense.
Columns are immutable namedtuples, so equal columns are equal dict keys: the transformation
cache (``state._LazyBuilder``) relies on that to transform a shared column once.

The column classes carry both TF1 (``_transform_feature``, ``_get_dense_tensor``...) and TF2
spellings of their properties (``name``, ``num_buckets``, ``variable_shape``,
``parse_example_spec``), as TF 2.21's ``tf.compat.v1.feature_column`` columns do.
"""

from __future__ import annotations

import collections

import tfcompat as tf
from tfcompat.framework import dtypes, tensor_shape
from tfcompat.framework.scopes import name_scope
from tfcompat.framework.sparse_tensor import SparseTensor, convert_to_tensor_or_sparse_tensor
from tfcompat.util.tf_export import tf_export


class _FeatureColumn:
    """A column: a ``name``, its parse spec and a transformation of the raw features."""

    @property
    def name(self):
        raise NotImplementedError

    # Columns sort by their string form, as TF's do (input_layer sorts by name instead).
    def __lt__(self, other):
        return str(self) < str(other)

    def __gt__(self, other):
        return str(self) > str(other)

    @property
    def _var_scope_name(self):
        """The variable scope (default name) input_layer / linear_model open for it."""
        return self.name

    def _transform_feature(self, inputs):
        """The transformed feature, computed from ``inputs`` (a ``_LazyBuilder``)."""
        raise NotImplementedError

    @property
    def _parse_example_spec(self):
        return self.parse_example_spec

    @property
    def _is_v2_column(self):
        return True


class _DenseColumn(_FeatureColumn):
    """A column that yields a float tensor of shape ``[batch] + _variable_shape``."""

    @property
    def _variable_shape(self):
        return self.variable_shape

    def _get_dense_tensor(self, inputs, weight_collections=None, trainable=None):
        raise NotImplementedError


class _CategoricalColumn(_FeatureColumn):
    """A column that yields sparse ids in ``[0, _num_buckets)`` and optional weights."""

    IdWeightPair = collections.namedtuple("IdWeightPair", ["id_tensor", "weight_tensor"])

    @property
    def _num_buckets(self):
        return self.num_buckets

    def _get_sparse_tensors(self, inputs, weight_collections=None, trainable=None):
        raise NotImplementedError


class _SequenceDenseColumn(_FeatureColumn):
    """A column that yields ``[batch, time, ...]`` dense values and sequence lengths."""

    TensorSequenceLengthPair = collections.namedtuple(
        "TensorSequenceLengthPair", ["dense_tensor", "sequence_length"]
    )


IdWeightPair = _CategoricalColumn.IdWeightPair


class _SequenceCategoricalMarker:
    """Mixin marking sequence categorical columns (which dense layers reject)."""


# ---------------------------------------------------------------------------------------------
# Argument checks shared by the column constructors
# ---------------------------------------------------------------------------------------------
def assert_key_is_string(key):
    if not isinstance(key, str):
        raise ValueError(f"key must be a string. Got: type {type(key)}. Given key: {key}.")


def assert_string_or_int(dtype, prefix):
    if dtype != dtypes.string and not dtype.is_integer:
        raise ValueError(f"{prefix} dtype must be string or integer. dtype: {dtype}.")


def check_shape(shape, key):
    """``shape`` as a tuple of positive ints (an int is a 1-element shape)."""
    if not isinstance(shape, (list, tuple)):
        shape = [shape]
    shape = tuple(shape)
    for dimension in shape:
        if not isinstance(dimension, int):
            raise TypeError(f"shape dimensions must be integer. shape: {shape}, key: {key}")
        if dimension < 1:
            raise ValueError(f"shape dimensions must be greater than 0. shape: {shape}, key: {key}")
    return shape


def _is_nested(value):
    return isinstance(value, (list, tuple))


def _filled(shape, value):
    if shape:
        return tuple(_filled(shape[1:], value) for _ in range(shape[0]))
    return value


def _as_tuple(value):
    return tuple(_as_tuple(v) for v in value) if _is_nested(value) else value


def _flatten(value):
    return [x for v in value for x in _flatten(v)] if _is_nested(value) else [value]


def _matches_shape(value, shape):
    if _is_nested(value) != bool(shape):
        return False
    if not shape:
        return True
    return len(value) == shape[0] and all(_matches_shape(v, shape[1:]) for v in value)


def check_default_value(shape, default_value, dtype, key):
    """``default_value`` as a nested tuple of ``shape`` (a scalar is broadcast), checked
    against ``dtype`` (floats need a floating column)."""
    if default_value is None:
        return None
    if isinstance(default_value, int):
        return _filled(shape, default_value)
    if isinstance(default_value, float) and dtype.is_floating:
        return _filled(shape, default_value)
    if callable(getattr(default_value, "tolist", None)):  # numpy arrays
        default_value = default_value.tolist()
    if _is_nested(default_value):
        if not _matches_shape(default_value, shape):
            raise ValueError(
                "The shape of default_value must be equal to given shape. "
                f"default_value: {default_value}, shape: {shape}, key: {key}"
            )
        flat = _flatten(default_value)
        if all(isinstance(v, int) for v in flat):
            return _as_tuple(default_value)
        if any(isinstance(v, float) for v in flat) and dtype.is_floating:
            return _as_tuple(default_value)
    raise TypeError(
        "default_value must be compatible with dtype. "
        f"default_value: {default_value}, dtype: {dtype}, key: {key}"
    )


# ---------------------------------------------------------------------------------------------
# Graph helpers
# ---------------------------------------------------------------------------------------------
def to_sparse_input_and_drop_ignore_values(input_tensor, ignore_value=None):
    """A dense string/int tensor as a SparseTensor without its "missing" cells ('' for
    strings, -1 for integers, else ``ignore_value``); SparseTensors pass through."""
    input_tensor = convert_to_tensor_or_sparse_tensor(input_tensor)
    if isinstance(input_tensor, SparseTensor):
        return input_tensor
    with name_scope(None, "to_sparse_input", (input_tensor, ignore_value)):
        if ignore_value is None:
            if input_tensor.dtype == dtypes.string:
                ignore_value = ""
            elif input_tensor.dtype.is_integer:
                ignore_value = -1  # the conventional "missing" id
            else:
                ignore_value = input_tensor.dtype.as_numpy_dtype()
        ignore_value = tf.cast(ignore_value, input_tensor.dtype, name="ignore_value")
        indices = tf.where(tf.not_equal(input_tensor, ignore_value), name="indices")
        return SparseTensor(
            indices=indices,
            values=tf.gather_nd(input_tensor, indices, name="values"),
            dense_shape=tf.shape(input_tensor, out_type=dtypes.int64, name="dense_shape"),
        )


def normalize_feature_columns(feature_columns):
    """``feature_columns`` as a non-empty list of columns with distinct names."""
    if isinstance(feature_columns, _FeatureColumn):
        feature_columns = [feature_columns]
    if isinstance(feature_columns, collections.abc.Iterator):
        feature_columns = list(feature_columns)
    if isinstance(feature_columns, dict):
        raise ValueError("Expected feature_columns to be iterable, found dict.")
    for column in feature_columns:
        if not isinstance(column, _FeatureColumn):
            raise ValueError(
                "Items of feature_columns must be a _FeatureColumn. "
                f"Given (type {type(column)}): {column}."
            )
    if not feature_columns:
        raise ValueError("feature_columns must not be empty.")
    by_name = {}
    for column in feature_columns:
        if column.name in by_name:
            raise ValueError(
                f"Duplicate feature column name found for columns: {column} and "
                f"{by_name[column.name]}. This usually means that these columns refer to "
                "same base feature. Either one must be discarded or a duplicated but renamed "
                "item must be inserted in features dict."
            )
        by_name[column.name] = column
    return list(feature_columns)


def verify_static_batch_size_equality(tensors, columns):
    """Raises ValueError when two outputs have different static batch sizes."""
    expected, first = None, None
    for i, tensor in enumerate(tensors):
        batch_size = tensor_shape.Dimension(tensor.shape[0] if tensor.shape.rank else None)
        if batch_size.value is None:
            continue
        if expected is None:
            expected, first = batch_size, i
        elif not expected.is_compatible_with(batch_size):
            raise ValueError(
                "Batch size (first dimension) of each feature must be same. "
                f"Batch size of columns ({columns[first].name}, {columns[i].name}): "
                f"({expected}, {batch_size})"
            )


def sequence_length_from_sparse_tensor(sp_tensor, num_elements=1):
    """Per example, one past the largest time index present (in steps of
    ``num_elements`` values), zero-padded to the batch size."""
    with name_scope(None, "sequence_length") as scope:
        row_ids = sp_tensor.indices[:, 0]
        column_ids = sp_tensor.indices[:, 1]
        column_ids += tf.ones_like(column_ids)
        seq_length = tf.math.segment_max(column_ids, segment_ids=row_ids)
        seq_length = tf.cast(tf.math.ceil(seq_length / num_elements), dtypes.int64)
        n_pad = tf.shape(sp_tensor)[:1] - tf.shape(seq_length)[:1]
        padding = tf.zeros(n_pad, dtype=seq_length.dtype)
        return tf.concat([seq_length, padding], axis=0, name=scope)


@tf_export("feature_column.make_parse_example_spec")
def make_parse_example_spec(feature_columns):
    """The ``tf.io.parse_example`` spec (feature key -> FixedLenFeature / VarLenFeature)
    that ``feature_columns`` need."""
    result = {}
    for column in feature_columns:
        if not isinstance(column, _FeatureColumn):
            raise ValueError(
                f"All feature_columns must be _FeatureColumn instances. Given: {column}"
            )
        config = column._parse_example_spec
        for key, value in config.items():
            if key in result and value != result[key]:
                raise ValueError(
                    f"feature_columns contain different parse_spec for key {key}. "
                    f"Given {value} and {result[key]}"
                )
        result.update(config)
    return result


def parsing_spec(kind, *args):
    """``tf.io.FixedLenFeature`` / ``VarLenFeature`` (from the parsing module)."""
    from tfcompat.ops import parsing_ops

    spec = getattr(parsing_ops, kind, None)
    if spec is None:
        raise NotImplementedError(
            f"make_parse_example_spec needs tf.io.{kind}, which tfcompat does not provide yet."
        )
    return spec(*args)
