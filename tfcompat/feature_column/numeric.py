"""Numeric columns: ``numeric_column`` (a dense feature cast to float32, optionally
normalized) and ``bucketized_column`` (its values split into buckets by boundaries, usable
as a one-hot dense column and as a categorical column)."""

from __future__ import annotations

import collections

import tfcompat as tf
from tfcompat.feature_column import feature_column as fc
from tfcompat.framework import dtypes, tensor_shape
from tfcompat.framework.sparse_tensor import SparseTensor
from tfcompat.ops.bucketize_ops import bucketize
from tfcompat.util.tf_export import tf_export


class NumericColumn(
    fc._DenseColumn,
    collections.namedtuple(
        "NumericColumn", ("key", "shape", "default_value", "dtype", "normalizer_fn")
    ),
):
    """See ``numeric_column``."""

    @property
    def name(self):
        return self.key

    @property
    def parse_example_spec(self):
        return {self.key: fc.parsing_spec("FixedLenFeature", self.shape, self.dtype,
                                          self.default_value)}  # fmt: skip

    def _transform_feature(self, inputs):
        input_tensor = inputs.get(self.key)
        if isinstance(input_tensor, SparseTensor):
            raise ValueError(
                "The corresponding Tensor of numerical column must be a Tensor. "
                f"SparseTensor is not supported. key: {self.key}"
            )
        if self.normalizer_fn is not None:
            input_tensor = self.normalizer_fn(input_tensor)
        return tf.cast(input_tensor, dtypes.float32)

    @property
    def variable_shape(self):
        return tensor_shape.TensorShape(self.shape)

    def _get_dense_tensor(self, inputs, weight_collections=None, trainable=None):
        return inputs.get(self)


class BucketizedColumn(
    fc._DenseColumn,
    fc._CategoricalColumn,
    collections.namedtuple("BucketizedColumn", ("source_column", "boundaries")),
):
    """See ``bucketized_column``."""

    @property
    def name(self):
        return f"{self.source_column.name}_bucketized"

    @property
    def parse_example_spec(self):
        return self.source_column.parse_example_spec

    def _transform_feature(self, inputs):
        return bucketize(inputs.get(self.source_column), boundaries=self.boundaries)

    @property
    def variable_shape(self):
        return tensor_shape.TensorShape(
            tuple(self.source_column.shape) + (len(self.boundaries) + 1,)
        )

    def _get_dense_tensor(self, inputs, weight_collections=None, trainable=None):
        return tf.one_hot(
            indices=tf.cast(inputs.get(self), dtypes.int64),
            depth=len(self.boundaries) + 1,
            on_value=1.0,
            off_value=0.0,
        )

    @property
    def num_buckets(self):
        # each source dimension has its own range of buckets
        return (len(self.boundaries) + 1) * self.source_column.shape[0]

    def _get_sparse_tensors(self, inputs, weight_collections=None, trainable=None):
        """One id per (example, source dimension): ``bucket + dimension * buckets``."""
        input_tensor = inputs.get(self)
        batch_size = tf.shape(input_tensor)[0]
        source_dimension = self.source_column.shape[0]
        i1 = tf.reshape(
            tf.tile(tf.expand_dims(tf.range(0, batch_size), 1), [1, source_dimension]), (-1,)
        )
        i2 = tf.tile(tf.range(0, source_dimension), [batch_size])
        bucket_indices = tf.reshape(input_tensor, (-1,)) + (len(self.boundaries) + 1) * i2
        indices = tf.cast(tf.transpose(tf.stack((i1, i2))), dtypes.int64)
        dense_shape = tf.cast(tf.stack([batch_size, source_dimension]), dtypes.int64)
        sparse = SparseTensor(indices=indices, values=bucket_indices, dense_shape=dense_shape)
        return fc.IdWeightPair(sparse, None)


@tf_export("feature_column.numeric_column")
def numeric_column(key, shape=(1,), default_value=None, dtype=dtypes.float32,
                   normalizer_fn=None):  # fmt: skip
    """A dense feature ``key`` of ``shape`` per example, cast to float32 after
    ``normalizer_fn``; ``default_value`` fills it when parsing Examples that lack it."""
    shape = fc.check_shape(shape, key)
    if not (dtype.is_integer or dtype.is_floating):
        raise ValueError(f"dtype must be convertible to float. dtype: {dtype}, key: {key}")
    default_value = fc.check_default_value(shape, default_value, dtype, key)
    if normalizer_fn is not None and not callable(normalizer_fn):
        raise TypeError(f"normalizer_fn must be a callable. Given: {normalizer_fn}")
    fc.assert_key_is_string(key)
    return NumericColumn(key, shape=shape, default_value=default_value, dtype=dtype,
                         normalizer_fn=normalizer_fn)  # fmt: skip


@tf_export("feature_column.bucketized_column")
def bucketized_column(source_column, boundaries):
    """``source_column``'s values bucketed by sorted ``boundaries``: ``[-inf, b0)``,
    ``[b0, b1)``, ..., ``[b_last, inf)``."""
    if not isinstance(source_column, NumericColumn):
        raise ValueError(
            "source_column must be a column generated with numeric_column(). "
            f"Given: {source_column}"
        )
    if len(source_column.shape) > 1:
        raise ValueError(f"source_column must be one-dimensional column. Given: {source_column}")
    if not boundaries:
        raise ValueError("boundaries must not be empty.")
    if not isinstance(boundaries, (list, tuple)):
        raise ValueError("boundaries must be a sorted list.")
    for low, high in zip(boundaries, boundaries[1:]):
        if low >= high:
            raise ValueError("boundaries must be a sorted list.")
    return BucketizedColumn(source_column, tuple(boundaries))
