"""Where feature columns keep what they build: the per-call transformation cache
(``_LazyBuilder``) and the ``StateManager`` that owns column variables and tables.

A column used by several others (a bucketized column that is also crossed, a categorical
column behind an embedding and an indicator) is transformed once per ``input_layer`` /
``linear_model`` call: ``_LazyBuilder.get`` caches each column's transformed tensor.
"""

from __future__ import annotations

import tfcompat as tf
from tfcompat.feature_column import feature_column as fc
from tfcompat.framework.sparse_tensor import SparseTensor, convert_to_tensor_or_sparse_tensor
from tfcompat.ops import sparse_ops
from tfcompat.ops.variable_scope import get_variable


class _LazyBuilder:
    """Transforms features on demand and caches them: ``get("key")`` is the raw feature
    (rank 1 expanded to ``[batch, 1]``), ``get(column)`` its cached transformation."""

    def __init__(self, features, state_manager=None):
        self._features = features.copy()
        self._feature_tensors = {}
        self.state_manager = state_manager or StateManager()

    def get(self, key):
        if key in self._feature_tensors:
            return self._feature_tensors[key]
        if key in self._features:
            feature_tensor = self._get_raw_feature_as_tensor(key)
            self._feature_tensors[key] = feature_tensor
            return feature_tensor
        if isinstance(key, str):
            raise ValueError(f"Feature {key} is not in features dictionary.")
        if not isinstance(key, fc._FeatureColumn):
            raise TypeError(f'"key" must be either a "str" or "_FeatureColumn". Provided: {key}')
        transformed = key._transform_feature(self)
        if transformed is None:
            raise ValueError(f"Column {key.name} is not supported.")
        self._feature_tensors[key] = transformed
        return transformed

    def _get_raw_feature_as_tensor(self, key):
        """The raw feature as a (Sparse)Tensor of rank >= 2."""
        feature_tensor = convert_to_tensor_or_sparse_tensor(self._features[key])
        rank = feature_tensor.get_shape().ndims
        if rank is not None:
            if rank == 0:
                raise ValueError(
                    f"Feature (key: {key}) cannot have rank 0. Given: {feature_tensor}"
                )
            return feature_tensor if rank != 1 else _expand_dims(feature_tensor)
        # Rank known only at run time: check it there (TF uses check_ops.assert_positive;
        # one Assert on rank > 0 fails the same way).
        message = f"Feature (key: {key}) cannot have rank 0. Given: {feature_tensor}"
        rank_is_positive = tf.Assert(tf.greater(tf.rank(feature_tensor), 0), [message])
        with tf.control_dependencies([rank_is_positive]):
            return tf.cond(
                tf.equal(1, tf.rank(feature_tensor)),
                lambda: _expand_dims(feature_tensor),
                lambda: feature_tensor,
            )


def _expand_dims(input_tensor):
    """``[batch]`` -> ``[batch, 1]`` for dense and sparse features."""
    if isinstance(input_tensor, SparseTensor):
        reshape = sparse_ops.sparse_reshape
        return reshape(input_tensor, [tf.shape(input_tensor)[0], 1])
    return tf.expand_dims(input_tensor, -1)


class StateManager:
    """Owns the variables and resources (lookup tables) of feature columns.

    Variables are created with ``tf.get_variable`` in the caller's variable scope (so their
    names are TF's: ``input_layer/<column>/embedding_weights``) and recorded per column.
    Each ``_LazyBuilder`` (one per input_layer / linear_model call) has one.
    """

    def __init__(self):
        self._variables = {}  # column -> {name: variable}
        self._resources = {}  # column -> {name: resource}

    def create_variable(self, feature_column, name, shape, dtype=None, trainable=True,
                        initializer=None, collections=None):  # fmt: skip
        var = get_variable(
            name=name,
            shape=shape,
            dtype=dtype,
            initializer=initializer,
            trainable=trainable,
            collections=collections,
        )
        self._variables.setdefault(feature_column, {})[name] = var
        return var

    def get_variable(self, feature_column, name):
        try:
            return self._variables[feature_column][name]
        except KeyError:
            raise ValueError(f"Variable does not exist: {feature_column.name}/{name}") from None

    def variables(self, feature_column):
        return list(self._variables.get(feature_column, {}).values())

    def add_resource(self, feature_column, name, resource):
        self._resources.setdefault(feature_column, {})[name] = resource

    def has_resource(self, feature_column, name):
        return name in self._resources.get(feature_column, {})

    def get_resource(self, feature_column, name):
        if not self.has_resource(feature_column, name):
            raise ValueError(f"Resource does not exist: {feature_column.name}/{name}")
        return self._resources[feature_column][name]
