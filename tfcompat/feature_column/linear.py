"""``tf.feature_column.linear_model``: ``sum_c x_c W_c + b`` over dense and categorical
columns (categorical ones as sparse multi-hot inputs, combined by ``sparse_combiner``).

TF builds it from Keras-style layers; we open the same scopes directly, so variables are
TF's (``linear_model/<column>/weights``, ``linear_model/bias_weights``) and ops live under
``linear_model_1/linear_model/<column>/``. (TF's layers make resource variables; tfcompat's
are reference variables with the same names, shapes and values.)
"""

from __future__ import annotations

import tfcompat as tf
from tfcompat.feature_column import feature_column as fc
from tfcompat.feature_column.inputs import weight_collections_with_defaults
from tfcompat.feature_column.state import _LazyBuilder
from tfcompat.framework.graph import GraphKeys
from tfcompat.framework.scopes import add_to_collection, get_collection, name_scope
from tfcompat.initializers import zeros_initializer
from tfcompat.ops import embedding_ops, sparse_ops
from tfcompat.ops.variable_scope import get_variable, variable_scope
from tfcompat.util.tf_export import tf_export


def _strip_leading_slashes(name):
    return name.rsplit("/", 1)[-1]


def _add_to_collections(var, weight_collections):
    for key in weight_collections:
        if key != GraphKeys.GLOBAL_VARIABLES:
            add_to_collection(key, var)


def _zeros_variable(name, shape, trainable, weight_collections):
    var = get_variable(name=name, shape=shape, initializer=zeros_initializer(),
                       trainable=trainable)  # fmt: skip
    _add_to_collections(var, weight_collections)
    return var


def _dense_weighted_sum(column, builder, units, weight_collections, trainable):
    num_elements = column._variable_shape.num_elements()
    weight = _zeros_variable("weights", [num_elements, units], trainable, weight_collections)
    tensor = column._get_dense_tensor(builder, weight_collections=weight_collections,
                                      trainable=trainable)  # fmt: skip
    batch_size = tf.shape(tensor)[0]
    tensor = tf.reshape(tensor, shape=(batch_size, num_elements))
    return tf.matmul(tensor, weight, name="weighted_sum")


def _categorical_weighted_sum(column, builder, units, sparse_combiner, weight_collections,
                              trainable):  # fmt: skip
    """The rows of ``weights`` at the example's ids, combined: an embedding lookup."""
    weight = _zeros_variable("weights", (column._num_buckets, units), trainable,
                             weight_collections)  # fmt: skip
    id_tensor, weight_tensor = column._get_sparse_tensors(
        builder, weight_collections=weight_collections, trainable=trainable
    )
    sparse_reshape = sparse_ops.sparse_reshape
    id_tensor = sparse_reshape(id_tensor, [tf.shape(id_tensor)[0], -1])
    if weight_tensor is not None:
        weight_tensor = sparse_reshape(weight_tensor, [tf.shape(weight_tensor)[0], -1])
    lookup = embedding_ops.safe_embedding_lookup_sparse
    return lookup(weight, id_tensor, sparse_weights=weight_tensor, combiner=sparse_combiner,
                  name="weighted_sum")  # fmt: skip


@tf_export("feature_column.linear_model")
def linear_model(features, feature_columns, units=1, sparse_combiner="sum",
                 weight_collections=None, trainable=True, cols_to_vars=None):  # fmt: skip
    """``[batch, units]`` predictions of a linear model over ``feature_columns``: one zero-
    initialized weight matrix per column plus ``bias_weights``. Categorical columns act
    as multi-hot inputs, combined per column by ``sparse_combiner`` ("sum", "mean",
    "sqrtn"). ``cols_to_vars`` receives each column's variables and ``'bias'``."""
    with variable_scope(None, "linear_model") as vs:
        model_name = _strip_leading_slashes(vs.name)
    feature_columns = fc.normalize_feature_columns(feature_columns)
    weight_collections = weight_collections_with_defaults(weight_collections)
    # TF names one layer per column here, in a fresh variable scope of its own (so these
    # scope names are taken even though nothing is created in them).
    layer_names = {}
    for column in sorted(feature_columns, key=lambda x: x.name):
        with variable_scope(None, default_name=column._var_scope_name) as vs:
            layer_names[column] = _strip_leading_slashes(vs.name)
    result_vars = {}
    with name_scope(None, model_name), variable_scope(model_name):
        for column in feature_columns:
            if not isinstance(column, (fc._DenseColumn, fc._CategoricalColumn)):
                raise ValueError(
                    "Items of feature_columns must be either a _DenseColumn or "
                    f"_CategoricalColumn. Given: {column}"
                )
        builder = _LazyBuilder(features)
        weighted_sums, ordered_columns = [], []
        for column in sorted(feature_columns, key=lambda c: layer_names[c]):
            ordered_columns.append(column)
            with variable_scope(layer_names[column]) as layer_scope:
                if isinstance(column, fc._CategoricalColumn):
                    weighted_sum = _categorical_weighted_sum(
                        column, builder, units, sparse_combiner, weight_collections, trainable
                    )
                else:
                    weighted_sum = _dense_weighted_sum(
                        column, builder, units, weight_collections, trainable
                    )
            weighted_sums.append(weighted_sum)
            result_vars[column] = get_collection(GraphKeys.GLOBAL_VARIABLES, scope=layer_scope.name)
        fc.verify_static_batch_size_equality(weighted_sums, ordered_columns)
        predictions_no_bias = tf.add_n(weighted_sums, name="weighted_sum_no_bias")
        bias = _zeros_variable("bias_weights", [units], trainable, weight_collections)
        predictions = tf.nn.bias_add(predictions_no_bias, bias, name="weighted_sum")
        result_vars["bias"] = [bias]
    if cols_to_vars is not None:
        cols_to_vars.update(result_vars)
    return predictions
