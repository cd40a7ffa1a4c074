"""Dense views of categorical columns: ``embedding_column`` (a learned table combined per
example by ``combiner``), ``shared_embedding_columns`` (one table for several columns) and
``indicator_column`` (multi-hot counts or weights).

Embeddings are looked up with ``safe_embedding_lookup_sparse`` over a ``get_variable``
table: the lookup is a gather, so the table's gradient is an IndexedSlices and optimizers
update only the rows a batch touched.
"""

from __future__ import annotations

import collections
import math

import tfcompat as tf
from tfcompat.feature_column import feature_column as fc
from tfcompat.framework import dtypes, tensor_shape
from tfcompat.framework.graph import GraphKeys
from tfcompat.framework.scopes import add_to_collection, get_collection, name_scope
from tfcompat.initializers import truncated_normal_initializer
from tfcompat.ops import embedding_ops, sparse_ops, sparse_slice_ops
from tfcompat.util.tf_export import tf_export


def _not_sequence(column, kind):
    if isinstance(column.categorical_column, fc._SequenceCategoricalMarker):
        raise ValueError(
            f"In {kind}: {column.name}. categorical_column must not be of type "
            "_SequenceCategoricalColumn. Suggested fix A: If you wish to use input_layer, use "
            "a non-sequence categorical_column_with_*. Suggested fix B: If you wish to create "
            "sequence input, use sequence_input_layer instead of input_layer. Given (type "
            f"{type(column.categorical_column)}): {column.categorical_column}"
        )


def _is_sequence(column, kind):
    if not isinstance(column.categorical_column, fc._SequenceCategoricalMarker):
        raise ValueError(
            f"In {kind}: {column.name}. categorical_column must be of type "
            "_SequenceCategoricalColumn to use sequence_input_layer. Suggested fix: Use one of "
            f"sequence_categorical_column_with_*. Given (type {type(column.categorical_column)}): "
            f"{column.categorical_column}"
        )


def _lookup(column, weights, sparse_tensors, name):
    """Combines the embeddings of each example's ids (TF's choice of lookup function)."""
    sparse_ids, sparse_weights = sparse_tensors
    rank = sparse_ids.dense_shape.shape[0]
    if not column.use_safe_embedding_lookup and rank is not None and rank <= 2:
        lookup = embedding_ops.embedding_lookup_sparse
        return lookup(weights, sparse_ids, sparse_weights, combiner=column.combiner,
                      name=name, max_norm=column.max_norm)  # fmt: skip
    lookup = embedding_ops.safe_embedding_lookup_sparse
    return lookup(weights, sparse_ids, sparse_weights, combiner=column.combiner, name=name,
                  max_norm=column.max_norm)  # fmt: skip


def _with_global(weight_collections):
    if weight_collections and GraphKeys.GLOBAL_VARIABLES not in weight_collections:
        weight_collections.append(GraphKeys.GLOBAL_VARIABLES)
    return weight_collections


class EmbeddingColumn(
    fc._DenseColumn,
    fc._SequenceDenseColumn,
    collections.namedtuple(
        "EmbeddingColumn",
        (
            "categorical_column",
            "dimension",
            "combiner",
            "initializer",
            "ckpt_to_load_from",
            "tensor_name_in_ckpt",
            "max_norm",
            "trainable",
            "use_safe_embedding_lookup",
        ),
    ),  # fmt: skip
):
    """See ``embedding_column``."""

    @property
    def name(self):
        return f"{self.categorical_column.name}_embedding"

    @property
    def parse_example_spec(self):
        return self.categorical_column._parse_example_spec

    def _transform_feature(self, inputs):
        return inputs.get(self.categorical_column)

    @property
    def variable_shape(self):
        return tensor_shape.TensorShape([self.dimension])

    def _embedding_weights(self, inputs, weight_collections, trainable):
        """The ``embedding_weights`` table, created through the builder's StateManager."""
        shape = (self.categorical_column._num_buckets, self.dimension)
        manager = getattr(inputs, "state_manager", None)
        if manager is None:  # a caller's own builder: plain get_variable
            from tfcompat.feature_column.state import StateManager

            manager = StateManager()
        return manager.create_variable(
            self,
            name="embedding_weights",
            shape=shape,
            dtype=dtypes.float32,
            initializer=self.initializer,
            trainable=self.trainable and trainable,
            collections=_with_global(weight_collections),
        )

    def _get_dense_tensor(self, inputs, weight_collections=None, trainable=None):
        _not_sequence(self, "embedding_column")
        sparse_tensors = self.categorical_column._get_sparse_tensors(
            inputs, weight_collections, trainable
        )
        weights = self._embedding_weights(inputs, weight_collections, trainable)
        return _lookup(self, weights, sparse_tensors, f"{self.name}_weights")

    def _get_sequence_dense_tensor(self, inputs, weight_collections=None, trainable=None):
        _is_sequence(self, "embedding_column")
        sparse_tensors = self.categorical_column._get_sparse_tensors(inputs)
        weights = self._embedding_weights(inputs, weight_collections, trainable)
        dense_tensor = _lookup(self, weights, sparse_tensors, f"{self.name}_weights")
        sequence_length = fc.sequence_length_from_sparse_tensor(sparse_tensors.id_tensor)
        return fc._SequenceDenseColumn.TensorSequenceLengthPair(dense_tensor, sequence_length)


class _SharedEmbeddingColumn(
    fc._DenseColumn,
    fc._SequenceDenseColumn,
    collections.namedtuple(
        "_SharedEmbeddingColumn",
        (
            "categorical_column",
            "dimension",
            "combiner",
            "initializer",
            "shared_embedding_collection_name",
            "ckpt_to_load_from",
            "tensor_name_in_ckpt",
            "max_norm",
            "trainable",
            "use_safe_embedding_lookup",
        ),
    ),  # fmt: skip
):
    """See ``shared_embedding_columns``: the table is the one variable in graph collection
    ``shared_embedding_collection_name``, created by the first column that needs it."""

    @property
    def name(self):
        return f"{self.categorical_column.name}_shared_embedding"

    @property
    def _var_scope_name(self):
        return self.shared_embedding_collection_name

    @property
    def parse_example_spec(self):
        return self.categorical_column._parse_example_spec

    def _transform_feature(self, inputs):
        return inputs.get(self.categorical_column)

    @property
    def variable_shape(self):
        return tensor_shape.TensorShape([self.dimension])

    def _shared_weights(self, weight_collections, trainable):
        shape = (self.categorical_column._num_buckets, self.dimension)
        shared = get_collection(self.shared_embedding_collection_name)
        if not shared:
            weights = tf.get_variable(
                name="embedding_weights",
                shape=shape,
                dtype=dtypes.float32,
                initializer=self.initializer,
                trainable=self.trainable and trainable,
                collections=weight_collections,
            )
            add_to_collection(self.shared_embedding_collection_name, weights)
            return weights
        if len(shared) > 1:
            raise ValueError(
                f"Collection {shared} can only contain one variable. Suggested fix A: Choose a "
                "unique name for this collection. Suggested fix B: Do not add any variables to "
                "this collection. The feature_column library already adds a variable under "
                "the hood."
            )
        weights = shared[0]
        if weights.get_shape() != shape:
            raise ValueError(
                f"Shared embedding collection {self.shared_embedding_collection_name} contains "
                f"variable {weights.name} of unexpected shape {weights.get_shape()}. Expected "
                f"shape is {shape}. Suggested fix A: Choose a unique name for this collection. "
                "Suggested fix B: Do not add any variables to this collection. The "
                "feature_column library already adds a variable under the hood."
            )
        return weights

    def _get_dense_tensor_internal(self, inputs, weight_collections=None, trainable=None):
        # The variable scope is shared by all columns of the table; a name scope per
        # column keeps their ops apart.
        with name_scope(None, self.name):
            sparse_tensors = self.categorical_column._get_sparse_tensors(
                inputs, weight_collections=weight_collections, trainable=trainable
            )
            weights = self._shared_weights(weight_collections, trainable)
            return _lookup(self, weights, sparse_tensors, f"{self.name}_weights")

    def _get_dense_tensor(self, inputs, weight_collections=None, trainable=None):
        _not_sequence(self, "embedding_column")
        return self._get_dense_tensor_internal(inputs, weight_collections, trainable)

    def _get_sequence_dense_tensor(self, inputs, weight_collections=None, trainable=None):
        _is_sequence(self, "embedding_column")
        dense_tensor = self._get_dense_tensor_internal(inputs, weight_collections, trainable)
        sparse_tensors = self.categorical_column._get_sparse_tensors(inputs)
        sequence_length = fc.sequence_length_from_sparse_tensor(sparse_tensors.id_tensor)
        return fc._SequenceDenseColumn.TensorSequenceLengthPair(dense_tensor, sequence_length)


class IndicatorColumn(
    fc._DenseColumn,
    fc._SequenceDenseColumn,
    collections.namedtuple("IndicatorColumn", ("categorical_column",)),
):
    """See ``indicator_column``."""

    @property
    def name(self):
        return f"{self.categorical_column.name}_indicator"

    @property
    def parse_example_spec(self):
        return self.categorical_column._parse_example_spec

    @property
    def variable_shape(self):
        return tensor_shape.TensorShape([1, self.categorical_column._num_buckets])

    def _transform_feature(self, inputs):
        """Multi-hot counts of the ids, or the sum of weights per id when weighted."""
        id_tensor, weight_tensor = self.categorical_column._get_sparse_tensors(inputs)
        size = self.categorical_column._num_buckets
        if weight_tensor is not None:
            weighted = sparse_slice_ops.sparse_merge(
                sp_ids=id_tensor, sp_values=weight_tensor, vocab_size=int(size)
            )
            weighted = sparse_slice_ops.sparse_slice(weighted, [0, 0], weighted.dense_shape)
            return tf.scatter_nd(weighted.indices, weighted.values, weighted.dense_shape)
        dense_ids = sparse_ops.sparse_tensor_to_dense(id_tensor, default_value=-1)
        one_hot = tf.one_hot(dense_ids, depth=size, on_value=1.0, off_value=0.0)
        return tf.reduce_sum(one_hot, axis=[-2])

    def _get_dense_tensor(self, inputs, weight_collections=None, trainable=None):
        _not_sequence(self, "indicator_column")
        return inputs.get(self)

    def _get_sequence_dense_tensor(self, inputs, weight_collections=None, trainable=None):
        _is_sequence(self, "indicator_column")
        dense_tensor = inputs.get(self)
        sparse_tensors = self.categorical_column._get_sparse_tensors(inputs)
        sequence_length = fc.sequence_length_from_sparse_tensor(sparse_tensors.id_tensor)
        return fc._SequenceDenseColumn.TensorSequenceLengthPair(dense_tensor, sequence_length)


# ---------------------------------------------------------------------------------------------
# Constructors
# ---------------------------------------------------------------------------------------------
def _check_embedding_args(dimension, ckpt_to_load_from, tensor_name_in_ckpt, initializer,
                          column_text):  # fmt: skip
    if dimension is None or dimension < 1:
        raise ValueError(f"Invalid dimension {dimension}.")
    if (ckpt_to_load_from is None) != (tensor_name_in_ckpt is None):
        raise ValueError(
            "Must specify both `ckpt_to_load_from` and `tensor_name_in_ckpt` or none of them."
        )
    if ckpt_to_load_from is not None:
        raise NotImplementedError(
            "Embedding columns with `ckpt_to_load_from` / `tensor_name_in_ckpt` need "
            "tf.train.init_from_checkpoint, and tfcompat does not read checkpoints yet. Load "
            "the table with an `initializer` (e.g. tf.constant_initializer(array)) instead."
        )
    if initializer is not None and not callable(initializer):
        raise ValueError(f"initializer must be callable if specified.{column_text}")
    if initializer is None:
        initializer = truncated_normal_initializer(mean=0.0, stddev=1 / math.sqrt(dimension))
    return initializer


@tf_export("feature_column.embedding_column")
def embedding_column(categorical_column, dimension, combiner="mean", initializer=None,
                     ckpt_to_load_from=None, tensor_name_in_ckpt=None, max_norm=None,
                     trainable=True, use_safe_embedding_lookup=True):  # fmt: skip
    """A ``dimension``-wide learned embedding of ``categorical_column``'s ids, combined per
    example by ``combiner`` ("mean", "sqrtn" or "sum"); rows initialized by ``initializer``
    (default: truncated normal, stddev ``1/sqrt(dimension)``)."""
    initializer = _check_embedding_args(
        dimension, ckpt_to_load_from, tensor_name_in_ckpt, initializer,
        f" Embedding of column_name: {categorical_column.name}",
    )  # fmt: skip
    return EmbeddingColumn(
        categorical_column=categorical_column,
        dimension=dimension,
        combiner=combiner,
        initializer=initializer,
        ckpt_to_load_from=ckpt_to_load_from,
        tensor_name_in_ckpt=tensor_name_in_ckpt,
        max_norm=max_norm,
        trainable=trainable,
        use_safe_embedding_lookup=use_safe_embedding_lookup,
    )


def _unwrap(column):
    """The id-producing column under weighted / sequence wrappers."""
    from tfcompat.feature_column.categorical import WeightedCategoricalColumn

    while isinstance(column, (WeightedCategoricalColumn, fc._SequenceCategoricalMarker)):
        column = column.categorical_column
    return column


@tf_export("feature_column.shared_embedding_columns")
def shared_embedding_columns(categorical_columns, dimension, combiner="mean", initializer=None,
                             shared_embedding_collection_name=None, ckpt_to_load_from=None,
                             tensor_name_in_ckpt=None, max_norm=None, trainable=True,
                             use_safe_embedding_lookup=True):  # fmt: skip
    """One embedding column per categorical column, all reading one table (the columns must
    be of one kind with equal bucket counts)."""
    initializer = _check_embedding_args(
        dimension, ckpt_to_load_from, tensor_name_in_ckpt, initializer, ""
    )
    # sorted, so the default collection name does not depend on the argument order
    sorted_columns = sorted(categorical_columns, key=lambda x: x.name)
    c0 = sorted_columns[0]
    num_buckets = c0._num_buckets
    if not isinstance(c0, fc._CategoricalColumn):
        raise ValueError(
            "All categorical_columns must be subclasses of _CategoricalColumn. "
            f"Given: {c0}, of type: {type(c0)}"
        )
    c0 = _unwrap(c0)
    for c in sorted_columns[1:]:
        c = _unwrap(c)
        if not isinstance(c, type(c0)):
            raise ValueError(
                "To use shared_embedding_column, all categorical_columns must have the same "
                "type, or be weighted_categorical_column or sequence column of the same type. "
                f"Given column: {c0} of type: {type(c0)} does not match given column: {c} of "
                f"type: {type(c)}"
            )
        if num_buckets != c._num_buckets:
            raise ValueError(
                "To use shared_embedding_column, all categorical_columns must have the same "
                f"number of buckets. ven column: {c0} with buckets: {num_buckets} does  not "
                f"match column: {c} with buckets: {c._num_buckets}"
            )
    if not shared_embedding_collection_name:
        shared_embedding_collection_name = "_".join(c.name for c in sorted_columns)
        shared_embedding_collection_name += "_shared_embedding"
    return [
        _SharedEmbeddingColumn(
            categorical_column=column,
            initializer=initializer,
            dimension=dimension,
            combiner=combiner,
            shared_embedding_collection_name=shared_embedding_collection_name,
            ckpt_to_load_from=ckpt_to_load_from,
            tensor_name_in_ckpt=tensor_name_in_ckpt,
            max_norm=max_norm,
            trainable=trainable,
            use_safe_embedding_lookup=use_safe_embedding_lookup,
        )
        for column in categorical_columns
    ]


@tf_export("feature_column.indicator_column")
def indicator_column(categorical_column):
    """A multi-hot ``[batch, num_buckets]`` view of ``categorical_column`` (weights summed
    per id for weighted columns)."""
    if not isinstance(categorical_column, fc._CategoricalColumn):
        raise ValueError(
            "Unsupported input type. Input must be a CategoricalColumn. "
            f"Given: {categorical_column}"
        )
    return IndicatorColumn(categorical_column)
