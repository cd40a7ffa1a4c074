"""Categorical columns: features that become sparse int64 ids in ``[0, num_buckets)``.

* ``categorical_column_with_hash_bucket``: FarmHash fingerprint of the string (integers
  are first printed as strings) modulo the bucket count.
* ``categorical_column_with_vocabulary_list`` / ``_file``: the index in a vocabulary (a
  lookup table), with ``num_oov_buckets`` hash buckets or ``default_value`` for the rest.
* ``categorical_column_with_identity``: the integer value is the id.
* ``weighted_categorical_column``: ids of another column with a weight per id.

Dense inputs are first made sparse without their "missing" cells ('' or -1).
"""

from __future__ import annotations

import collections
import os

import numpy as np

import tfcompat as tf
from tfcompat.feature_column import feature_column as fc
from tfcompat.framework import dtypes
from tfcompat.framework.graph import get_default_graph
from tfcompat.framework.sparse_tensor import SparseTensor, convert_to_tensor_or_sparse_tensor
from tfcompat.ops.variable_scope import _init_scope
from tfcompat.util.tf_export import tf_export


def _check_input_dtype(column, input_tensor):
    if column.dtype.is_integer != input_tensor.dtype.is_integer:
        raise ValueError(
            "Column dtype and SparseTensors dtype must be compatible. "
            f"key: {column.key}, column dtype: {column.dtype}, "
            f"tensor dtype: {input_tensor.dtype}"
        )
    fc.assert_string_or_int(input_tensor.dtype, prefix=f"column_name: {column.key} input_tensor")


class _SparseIdsColumn(fc._CategoricalColumn):
    """Categorical columns whose transformation is their id tensor (no weights)."""

    @property
    def name(self):
        return self.key

    @property
    def parse_example_spec(self):
        return {self.key: fc.parsing_spec("VarLenFeature", self.dtype)}

    def _transform_feature(self, inputs):
        input_tensor = fc.to_sparse_input_and_drop_ignore_values(inputs.get(self.key))
        return self._transform_input_tensor(input_tensor)

    def _get_sparse_tensors(self, inputs, weight_collections=None, trainable=None):
        return fc.IdWeightPair(inputs.get(self), None)


class HashedCategoricalColumn(
    _SparseIdsColumn,
    collections.namedtuple("HashedCategoricalColumn", ("key", "hash_bucket_size", "dtype")),
):
    """See ``categorical_column_with_hash_bucket``."""

    def _transform_input_tensor(self, input_tensor):
        if not isinstance(input_tensor, SparseTensor):
            raise ValueError("SparseColumn input must be a SparseTensor.")
        fc.assert_string_or_int(input_tensor.dtype, prefix=f"column_name: {self.key} input_tensor")
        if self.dtype.is_integer != input_tensor.dtype.is_integer:
            raise ValueError(
                "Column dtype and SparseTensors dtype must be compatible. "
                f"key: {self.key}, column dtype: {self.dtype}, tensor dtype: {input_tensor.dtype}"
            )
        values = input_tensor.values
        if self.dtype != dtypes.string:
            values = tf.as_string(values)
        ids = tf.string_to_hash_bucket_fast(values, self.hash_bucket_size, name="lookup")
        return SparseTensor(input_tensor.indices, ids, input_tensor.dense_shape)

    @property
    def num_buckets(self):
        return self.hash_bucket_size


class _VocabularyColumn(_SparseIdsColumn):
    """Shared by the list and file vocabularies: ids come from a lookup table named
    ``<key>_lookup``, built outside any control-flow context."""

    def _transform_input_tensor(self, input_tensor):
        _check_input_dtype(self, input_tensor)
        key_dtype = self.dtype
        if input_tensor.dtype.is_integer:
            key_dtype = dtypes.int64  # tables key integers as int64
            input_tensor = tf.cast(input_tensor, dtypes.int64)
        with _init_scope(get_default_graph()):
            table = self._make_table(key_dtype, name=f"{self.key}_lookup")
        return table.lookup(input_tensor)

    @property
    def num_buckets(self):
        return self.vocabulary_size + self.num_oov_buckets


class VocabularyListCategoricalColumn(
    _VocabularyColumn,
    collections.namedtuple(
        "VocabularyListCategoricalColumn",
        ("key", "vocabulary_list", "dtype", "default_value", "num_oov_buckets"),
    ),
):
    """See ``categorical_column_with_vocabulary_list``."""

    @property
    def vocabulary_size(self):
        return len(self.vocabulary_list)

    def _make_table(self, key_dtype, name):
        return tf.lookup.index_table_from_tensor(
            vocabulary_list=tuple(self.vocabulary_list),
            default_value=self.default_value,
            num_oov_buckets=self.num_oov_buckets,
            dtype=key_dtype,
            name=name,
        )


class VocabularyFileCategoricalColumn(
    _VocabularyColumn,
    collections.namedtuple(
        "VocabularyFileCategoricalColumn",
        (
            "key",
            "vocabulary_file",
            "vocabulary_size",
            "num_oov_buckets",
            "dtype",
            "default_value",
            "file_format",
        ),
    ),  # fmt: skip
):
    """See ``categorical_column_with_vocabulary_file``."""

    def _make_table(self, key_dtype, name):
        if self.file_format == "tfrecord_gzip":
            raise NotImplementedError(
                "categorical_column_with_vocabulary_file: GZIP TFRecord vocabularies "
                "(tf.data) are not supported by tfcompat; use a text file."
            )
        return tf.lookup.index_table_from_file(
            vocabulary_file=self.vocabulary_file,
            num_oov_buckets=self.num_oov_buckets,
            vocab_size=self.vocabulary_size,
            default_value=self.default_value,
            key_dtype=key_dtype,
            name=name,
        )


class IdentityCategoricalColumn(
    _SparseIdsColumn,
    collections.namedtuple("IdentityCategoricalColumn", ("key", "number_buckets", "default_value")),
):
    """See ``categorical_column_with_identity``."""

    @property
    def parse_example_spec(self):
        return {self.key: fc.parsing_spec("VarLenFeature", dtypes.int64)}

    def _transform_input_tensor(self, input_tensor):
        if not input_tensor.dtype.is_integer:
            raise ValueError(
                f"Invalid input, not integer. key: {self.key} dtype: {input_tensor.dtype}"
            )
        values = input_tensor.values
        if input_tensor.values.dtype != dtypes.int64:
            values = tf.cast(values, dtypes.int64, name="values")
        if self.default_value is not None:
            values = self._replace_out_of_range(input_tensor.values)
        return SparseTensor(input_tensor.indices, values, input_tensor.dense_shape)

    def _replace_out_of_range(self, raw_values):
        """Ids outside ``[0, num_buckets)`` become ``default_value``."""
        values = tf.cast(raw_values, dtypes.int64, name="values")
        num_buckets = tf.cast(self.num_buckets, dtypes.int64, name="num_buckets")
        zero = tf.cast(0, dtypes.int64, name="zero")
        out_of_range = tf.logical_or(values < zero, values >= num_buckets, name="out_of_range")
        defaults = tf.fill(
            dims=tf.shape(values),
            value=tf.cast(self.default_value, dtypes.int64),
            name="default_values",
        )
        return tf.where_v2(out_of_range, defaults, values)

    @property
    def num_buckets(self):
        return self.number_buckets


class WeightedCategoricalColumn(
    fc._CategoricalColumn,
    collections.namedtuple(
        "WeightedCategoricalColumn", ("categorical_column", "weight_feature_key", "dtype")
    ),
):
    """See ``weighted_categorical_column``."""

    @property
    def name(self):
        return f"{self.categorical_column.name}_weighted_by_{self.weight_feature_key}"

    @property
    def parse_example_spec(self):
        config = dict(self.categorical_column._parse_example_spec)
        if self.weight_feature_key in config:
            raise ValueError(
                f"Parse config {config[self.weight_feature_key]} already exists for "
                f"{self.weight_feature_key}."
            )
        config[self.weight_feature_key] = fc.parsing_spec("VarLenFeature", self.dtype)
        return config

    @property
    def num_buckets(self):
        return self.categorical_column._num_buckets

    def _transform_weight_tensor(self, weight_tensor):
        if weight_tensor is None:
            raise ValueError(f"Missing weights {self.weight_feature_key}.")
        weight_tensor = convert_to_tensor_or_sparse_tensor(weight_tensor)
        if self.dtype != weight_tensor.dtype.base_dtype:
            raise ValueError(f"Bad dtype, expected {self.dtype}, but got {weight_tensor.dtype}.")
        if not isinstance(weight_tensor, SparseTensor):
            weight_tensor = fc.to_sparse_input_and_drop_ignore_values(weight_tensor, 0.0)
        if not weight_tensor.dtype.is_floating:
            weight_tensor = tf.cast(weight_tensor, dtypes.float32)
        return weight_tensor

    def _transform_feature(self, inputs):
        weight_tensor = self._transform_weight_tensor(inputs.get(self.weight_feature_key))
        return (inputs.get(self.categorical_column), weight_tensor)

    def _get_sparse_tensors(self, inputs, weight_collections=None, trainable=None):
        ids, weights = inputs.get(self)
        return fc.IdWeightPair(ids, weights)


# ---------------------------------------------------------------------------------------------
# Constructors
# ---------------------------------------------------------------------------------------------
@tf_export("feature_column.categorical_column_with_hash_bucket")
def categorical_column_with_hash_bucket(key, hash_bucket_size, dtype=dtypes.string):
    """Ids ``Fingerprint64(value) % hash_bucket_size`` of string (or int) values."""
    if hash_bucket_size is None:
        raise ValueError(f"hash_bucket_size must be set. key: {key}")
    if hash_bucket_size < 1:
        raise ValueError(
            f"hash_bucket_size must be at least 1. hash_bucket_size: {hash_bucket_size}, key: {key}"
        )
    fc.assert_key_is_string(key)
    fc.assert_string_or_int(dtype, prefix=f"column_name: {key}")
    return HashedCategoricalColumn(key, hash_bucket_size, dtype)


def _check_oov(key, num_oov_buckets, default_value, unset_default):
    if num_oov_buckets:
        if default_value != unset_default:
            raise ValueError(f"Can't specify both num_oov_buckets and default_value in {key}.")
        if num_oov_buckets < 0:
            raise ValueError(f"Invalid num_oov_buckets {num_oov_buckets} in {key}.")


@tf_export("feature_column.categorical_column_with_vocabulary_list")
def categorical_column_with_vocabulary_list(key, vocabulary_list, dtype=None, default_value=-1,
                                            num_oov_buckets=0):  # fmt: skip
    """Ids are positions in ``vocabulary_list``; other values get ``default_value`` or one
    of ``num_oov_buckets`` hash buckets after the vocabulary."""
    if vocabulary_list is None or len(vocabulary_list) < 1:
        raise ValueError(f"vocabulary_list {vocabulary_list} must be non-empty, column_name: {key}")
    if len(set(vocabulary_list)) != len(vocabulary_list):
        raise ValueError(f"Duplicate keys in vocabulary_list {vocabulary_list}, column_name: {key}")
    vocabulary_dtype = dtypes.as_dtype(np.array(vocabulary_list).dtype)
    _check_oov(key, num_oov_buckets, default_value, -1)
    fc.assert_string_or_int(vocabulary_dtype, prefix=f"column_name: {key} vocabulary")
    if dtype is None:
        dtype = vocabulary_dtype
    elif dtype.is_integer != vocabulary_dtype.is_integer:
        raise ValueError(
            f"dtype {dtype} and vocabulary dtype {vocabulary_dtype} do not match, "
            f"column_name: {key}"
        )
    fc.assert_string_or_int(dtype, prefix=f"column_name: {key}")
    fc.assert_key_is_string(key)
    return VocabularyListCategoricalColumn(
        key=key,
        vocabulary_list=tuple(vocabulary_list),
        dtype=dtype,
        default_value=default_value,
        num_oov_buckets=num_oov_buckets,
    )


@tf_export("feature_column.categorical_column_with_vocabulary_file")
def categorical_column_with_vocabulary_file(key, vocabulary_file, vocabulary_size=None,
                                            num_oov_buckets=0, default_value=None,
                                            dtype=dtypes.string):  # fmt: skip
    """Ids are line numbers in ``vocabulary_file`` (its first ``vocabulary_size`` lines);
    other values get ``default_value`` or one of ``num_oov_buckets`` hash buckets."""
    if not vocabulary_file:
        raise ValueError(f"Missing vocabulary_file in {key}.")
    file_format = "tfrecord_gzip" if vocabulary_file.endswith("tfrecord.gz") else None
    if vocabulary_size is None:
        if not os.path.exists(vocabulary_file):
            raise ValueError(f"vocabulary_file in {key} does not exist.")
        if file_format == "tfrecord_gzip":
            raise NotImplementedError(
                "categorical_column_with_vocabulary_file: GZIP TFRecord vocabularies are "
                "not supported by tfcompat; use a text file."
            )
        with open(vocabulary_file, "rb") as f:
            vocabulary_size = sum(1 for _ in f)
    if vocabulary_size < 1:
        raise ValueError(f"Invalid vocabulary_size in {key}.")
    _check_oov(key, num_oov_buckets, default_value, None)
    fc.assert_string_or_int(dtype, prefix=f"column_name: {key}")
    fc.assert_key_is_string(key)
    return VocabularyFileCategoricalColumn(
        key=key,
        vocabulary_file=vocabulary_file,
        vocabulary_size=vocabulary_size,
        num_oov_buckets=0 if num_oov_buckets is None else num_oov_buckets,
        default_value=-1 if default_value is None else default_value,
        dtype=dtype,
        file_format=file_format,
    )


@tf_export("feature_column.categorical_column_with_identity")
def categorical_column_with_identity(key, num_buckets, default_value=None):
    """Integer values are their own ids; values outside ``[0, num_buckets)`` become
    ``default_value`` (or fail the lookup downstream when it is None)."""
    if num_buckets < 1:
        raise ValueError(f"num_buckets {num_buckets} < 1, column_name {key}")
    if default_value is not None and (default_value < 0 or default_value >= num_buckets):
        raise ValueError(
            f"default_value {default_value} not in range [0, {num_buckets}), column_name {key}"
        )
    fc.assert_key_is_string(key)
    return IdentityCategoricalColumn(key=key, number_buckets=num_buckets,
                                     default_value=default_value)  # fmt: skip


@tf_export("feature_column.weighted_categorical_column")
def weighted_categorical_column(categorical_column, weight_feature_key, dtype=dtypes.float32):
    """``categorical_column``'s ids, each weighted by feature ``weight_feature_key`` (a
    tensor with the same indices)."""
    if dtype is None or not (dtype.is_integer or dtype.is_floating):
        raise ValueError(f"dtype {dtype} is not convertible to float.")
    return WeightedCategoricalColumn(
        categorical_column=categorical_column, weight_feature_key=weight_feature_key, dtype=dtype
    )
