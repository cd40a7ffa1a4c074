"""Sequence columns: per-example sequences (``[batch, time, ...]`` SparseTensors), for RNN
inputs. ``sequence_categorical_column_with_*`` keep one id per time step (no combining
across steps); ``sequence_numeric_column`` densifies values per step;
``sequence_input_layer`` concatenates them into ``[batch, time, n]`` plus lengths.
"""

from __future__ import annotations

import collections

import tfcompat as tf
from tfcompat.feature_column import categorical
from tfcompat.feature_column import feature_column as fc
from tfcompat.feature_column.state import _LazyBuilder
from tfcompat.framework import dtypes, tensor_shape
from tfcompat.framework.scopes import name_scope
from tfcompat.ops import sparse_ops
from tfcompat.ops.variable_scope import variable_scope
from tfcompat.util.tf_export import tf_export


class SequenceCategoricalColumn(
    fc._CategoricalColumn,
    fc._SequenceCategoricalMarker,
    collections.namedtuple("SequenceCategoricalColumn", ("categorical_column",)),
):
    """A categorical column whose ids get a third (per step) dimension, so embedding
    lookups combine nothing across time steps."""

    @property
    def name(self):
        return self.categorical_column.name

    @property
    def parse_example_spec(self):
        return self.categorical_column._parse_example_spec

    def _transform_feature(self, inputs):
        return self.categorical_column._transform_feature(inputs)

    @property
    def num_buckets(self):
        return self.categorical_column._num_buckets

    def _get_sparse_tensors(self, inputs, weight_collections=None, trainable=None):
        id_tensor, weight_tensor = self.categorical_column._get_sparse_tensors(inputs)
        # the third dimension computed, not -1: empty sequences have zero values
        shape = tf.shape(id_tensor)
        target_shape = [shape[0], shape[1], tf.reduce_prod(shape[2:])]
        sparse_reshape = sparse_ops.sparse_reshape
        id_tensor = sparse_reshape(id_tensor, target_shape)
        if weight_tensor is not None:
            weight_tensor = sparse_reshape(weight_tensor, target_shape)
        return fc.IdWeightPair(id_tensor, weight_tensor)


class SequenceNumericColumn(
    fc._SequenceDenseColumn,
    collections.namedtuple(
        "SequenceNumericColumn", ("key", "shape", "default_value", "dtype", "normalizer_fn")
    ),
):
    """See ``sequence_numeric_column``."""

    @property
    def name(self):
        return self.key

    @property
    def parse_example_spec(self):
        return {self.key: fc.parsing_spec("VarLenFeature", self.dtype)}

    def _transform_feature(self, inputs):
        input_tensor = inputs.get(self.key)
        if self.normalizer_fn is not None:
            input_tensor = self.normalizer_fn(input_tensor)
        return input_tensor

    @property
    def variable_shape(self):
        return tensor_shape.TensorShape(self.shape)

    @property
    def _variable_shape(self):
        return self.variable_shape

    def _get_sequence_dense_tensor(self, inputs, weight_collections=None, trainable=None):
        sp_tensor = inputs.get(self)
        to_dense = sparse_ops.sparse_tensor_to_dense
        dense_tensor = to_dense(sp_tensor, default_value=self.default_value)
        dense_shape = tf.concat(
            [tf.shape(dense_tensor)[:1], [-1], self.variable_shape.as_list()], axis=0
        )
        dense_tensor = tf.reshape(dense_tensor, shape=dense_shape)
        # a [batch, values] input holds shape.num_elements() values per step
        num_elements = self.variable_shape.num_elements() if sp_tensor.shape.ndims == 2 else 1
        seq_length = fc.sequence_length_from_sparse_tensor(sp_tensor, num_elements=num_elements)
        return fc._SequenceDenseColumn.TensorSequenceLengthPair(dense_tensor, seq_length)


@tf_export("feature_column.sequence_categorical_column_with_identity")
def sequence_categorical_column_with_identity(key, num_buckets, default_value=None):
    """``categorical_column_with_identity`` over sequences."""
    return SequenceCategoricalColumn(
        categorical.categorical_column_with_identity(key, num_buckets, default_value)
    )


@tf_export("feature_column.sequence_categorical_column_with_hash_bucket")
def sequence_categorical_column_with_hash_bucket(key, hash_bucket_size, dtype=dtypes.string):
    """``categorical_column_with_hash_bucket`` over sequences."""
    return SequenceCategoricalColumn(
        categorical.categorical_column_with_hash_bucket(key, hash_bucket_size, dtype)
    )


@tf_export("feature_column.sequence_categorical_column_with_vocabulary_file")
def sequence_categorical_column_with_vocabulary_file(key, vocabulary_file, vocabulary_size=None,
                                                     num_oov_buckets=0, default_value=None,
                                                     dtype=dtypes.string):  # fmt: skip
    """``categorical_column_with_vocabulary_file`` over sequences."""
    return SequenceCategoricalColumn(
        categorical.categorical_column_with_vocabulary_file(
            key=key,
            vocabulary_file=vocabulary_file,
            vocabulary_size=vocabulary_size,
            num_oov_buckets=num_oov_buckets,
            default_value=default_value,
            dtype=dtype,
        )
    )


@tf_export("feature_column.sequence_categorical_column_with_vocabulary_list")
def sequence_categorical_column_with_vocabulary_list(
    key, vocabulary_list, dtype=None, default_value=-1, num_oov_buckets=0
):
    """``categorical_column_with_vocabulary_list`` over sequences."""
    return SequenceCategoricalColumn(
        categorical.categorical_column_with_vocabulary_list(
            key=key,
            vocabulary_list=vocabulary_list,
            dtype=dtype,
            default_value=default_value,
            num_oov_buckets=num_oov_buckets,
        )
    )


@tf_export("feature_column.sequence_numeric_column")
def sequence_numeric_column(key, shape=(1,), default_value=0.0, dtype=dtypes.float32,
                            normalizer_fn=None):  # fmt: skip
    """Sequences of ``shape``-shaped numeric values; ``default_value`` pads short ones."""
    shape = fc.check_shape(shape, key)
    if not (dtype.is_integer or dtype.is_floating):
        raise ValueError(f"dtype must be convertible to float. dtype: {dtype}, key: {key}")
    if normalizer_fn is not None and not callable(normalizer_fn):
        raise TypeError(f"normalizer_fn must be a callable. Given: {normalizer_fn}")
    return SequenceNumericColumn(key, shape=shape, default_value=default_value, dtype=dtype,
                                 normalizer_fn=normalizer_fn)  # fmt: skip


def _assert_all_equal_and_return(tensors, name=None):
    """The first tensor, after checking (at run time) that all are equal."""
    with name_scope(name, "assert_all_equal", tensors):
        if len(tensors) == 1:
            return tensors[0]
        checks = [
            tf.Assert(tf.reduce_all(tf.equal(tensors[0], t)), [tensors[0], t]) for t in tensors[1:]
        ]
        with tf.control_dependencies(checks):
            return tf.identity(tensors[0])


def sequence_input_layer(features, feature_columns, weight_collections=None, trainable=True):
    """``(input, sequence_length)``: the sequence dense columns (sorted by name) as one
    ``[batch, time, n]`` float tensor, and the per-example lengths (equal across columns)."""
    feature_columns = fc.normalize_feature_columns(feature_columns)
    for column in feature_columns:
        if not isinstance(column, fc._SequenceDenseColumn):
            raise ValueError(
                "All feature_columns must be of type _SequenceDenseColumn. You can wrap a "
                "sequence_categorical_column with an embedding_column or indicator_column. "
                f"Given (type {type(column)}): {column}"
            )
    with variable_scope(None, default_name="sequence_input_layer", values=features.values()):
        builder = _LazyBuilder(features)
        output_tensors, sequence_lengths, ordered_columns = [], [], []
        for column in sorted(feature_columns, key=lambda x: x.name):
            ordered_columns.append(column)
            with variable_scope(None, default_name=column._var_scope_name):
                dense_tensor, sequence_length = column._get_sequence_dense_tensor(
                    builder, weight_collections=weight_collections, trainable=trainable
                )
                # flatten each step's values: a [batch, time, n] tensor
                num_elements = column._variable_shape.num_elements()
                shape = tf.shape(dense_tensor)
                target_shape = [shape[0], shape[1], num_elements]
                output_tensors.append(tf.reshape(dense_tensor, shape=target_shape))
                sequence_lengths.append(sequence_length)
        fc.verify_static_batch_size_equality(output_tensors, ordered_columns)
        fc.verify_static_batch_size_equality(sequence_lengths, ordered_columns)
        sequence_length = _assert_all_equal_and_return(sequence_lengths)
        return tf.concat(output_tensors, -1), sequence_length


tf_export("feature_column.sequence_input_layer")(sequence_input_layer)
