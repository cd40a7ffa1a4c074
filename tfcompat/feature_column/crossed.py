"""``crossed_column``: hashed conjunctions of categorical features.

Each combination of one value per crossed feature hashes (FingerprintCat64 chained over the
features, TF's ``SparseCrossHashed`` with its default ``hash_key``) to a bucket in
``[0, hash_bucket_size)``. String keys cross the raw feature; categorical columns cross
their ids.
"""

from __future__ import annotations

import collections

from tfcompat.feature_column import feature_column as fc
from tfcompat.feature_column.categorical import HashedCategoricalColumn
from tfcompat.framework import dtypes
from tfcompat.ops import sparse_ops
from tfcompat.util.tf_export import tf_export


def _collect_leaf_level_keys(cross):
    """The crossed keys, with nested crosses expanded in place."""
    leaves = []
    for key in cross.keys:
        if isinstance(key, CrossedColumn):
            leaves.extend(_collect_leaf_level_keys(key))
        else:
            leaves.append(key)
    return leaves


class CrossedColumn(
    fc._CategoricalColumn,
    collections.namedtuple("CrossedColumn", ("keys", "hash_bucket_size", "hash_key")),
):
    """See ``crossed_column``."""

    @property
    def name(self):
        names = [
            k.name if isinstance(k, fc._FeatureColumn) else k
            for k in _collect_leaf_level_keys(self)
        ]
        return "_X_".join(sorted(names))

    @property
    def parse_example_spec(self):
        config = {}
        for key in self.keys:
            if isinstance(key, fc._FeatureColumn):
                config.update(key._parse_example_spec)
            else:
                config[key] = fc.parsing_spec("VarLenFeature", dtypes.string)
        return config

    def _transform_feature(self, inputs):
        feature_tensors = []
        for key in _collect_leaf_level_keys(self):
            if isinstance(key, str):
                feature_tensors.append(inputs.get(key))
            elif isinstance(key, fc._CategoricalColumn):
                ids_and_weights = key._get_sparse_tensors(inputs)
                if ids_and_weights.weight_tensor is not None:
                    raise ValueError(
                        "crossed_column does not support weight_tensor, but the given column "
                        f"populates weight_tensor. Given column: {key.name}"
                    )
                feature_tensors.append(ids_and_weights.id_tensor)
            else:
                raise ValueError(f"Unsupported column type. Given: {key}")
        sparse_cross_hashed = sparse_ops.sparse_cross_hashed
        return sparse_cross_hashed(
            inputs=feature_tensors, num_buckets=self.hash_bucket_size, hash_key=self.hash_key
        )

    @property
    def num_buckets(self):
        return self.hash_bucket_size

    def _get_sparse_tensors(self, inputs, weight_collections=None, trainable=None):
        return fc.IdWeightPair(inputs.get(self), None)


@tf_export("feature_column.crossed_column")
def crossed_column(keys, hash_bucket_size, hash_key=None):
    """The hashed cross of ``keys`` (feature names and categorical columns, not hashed
    ones) into ``hash_bucket_size`` buckets."""
    if not hash_bucket_size or hash_bucket_size < 1:
        raise ValueError(f"hash_bucket_size must be > 1. hash_bucket_size: {hash_bucket_size}")
    if not keys or len(keys) < 2:
        raise ValueError(f"keys must be a list with length > 1. Given: {keys}")
    for key in keys:
        if not isinstance(key, (str, fc._CategoricalColumn)):
            raise ValueError(
                "Unsupported key type. All keys must be either string, or categorical column "
                f"except HashedCategoricalColumn. Given: {key}"
            )
        if isinstance(key, HashedCategoricalColumn):
            raise ValueError(
                "categorical_column_with_hash_bucket is not supported for crossing. Hashing "
                "before crossing will increase probability of collision. Instead, use the "
                f"feature name as a string. Given: {key}"
            )
    return CrossedColumn(keys=tuple(keys), hash_bucket_size=hash_bucket_size, hash_key=hash_key)
