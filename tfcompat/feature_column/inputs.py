"""``tf.feature_column.input_layer``: dense columns concatenated into one ``[batch, n]``
float tensor, columns in name order, each under its own variable scope."""

from __future__ import annotations

import tfcompat as tf
from tfcompat.feature_column import feature_column as fc
from tfcompat.feature_column.state import _LazyBuilder
from tfcompat.framework.graph import GraphKeys
from tfcompat.framework.scopes import get_collection
from tfcompat.ops.variable_scope import get_variable_scope, variable_scope
from tfcompat.util.tf_export import tf_export


def weight_collections_with_defaults(weight_collections):
    """The given collections plus GLOBAL_VARIABLES and MODEL_VARIABLES."""
    weight_collections = list(weight_collections or [])
    for key in (GraphKeys.GLOBAL_VARIABLES, GraphKeys.MODEL_VARIABLES):
        if key not in weight_collections:
            weight_collections.append(key)
    return weight_collections


def _internal_input_layer(features, feature_columns, weight_collections=None, trainable=True,
                          cols_to_vars=None, scope=None, cols_to_output_tensors=None):  # fmt: skip
    feature_columns = fc.normalize_feature_columns(feature_columns)
    for column in feature_columns:
        if not isinstance(column, fc._DenseColumn):
            raise ValueError(
                "Items of feature_columns must be a _DenseColumn. You can wrap a categorical "
                f"column with an embedding_column or indicator_column. Given: {column}"
            )
    weight_collections = weight_collections_with_defaults(weight_collections)
    with variable_scope(scope, default_name="input_layer", values=features.values()):
        builder = _LazyBuilder(features)
        output_tensors, ordered_columns = [], []
        for column in sorted(feature_columns, key=lambda x: x.name):
            ordered_columns.append(column)
            with variable_scope(None, default_name=column._var_scope_name):
                tensor = column._get_dense_tensor(
                    builder, weight_collections=weight_collections, trainable=trainable
                )
                num_elements = column._variable_shape.num_elements()
                batch_size = tf.shape(tensor)[0]
                output_tensor = tf.reshape(tensor, shape=(batch_size, num_elements))
                output_tensors.append(output_tensor)
                if cols_to_vars is not None:
                    cols_to_vars[column] = get_collection(
                        GraphKeys.GLOBAL_VARIABLES, scope=get_variable_scope().name
                    )
                if cols_to_output_tensors is not None:
                    cols_to_output_tensors[column] = output_tensor
        fc.verify_static_batch_size_equality(output_tensors, ordered_columns)
        return tf.concat(output_tensors, 1)


@tf_export("feature_column.input_layer")
def input_layer(features, feature_columns, weight_collections=None, trainable=True,
                cols_to_vars=None, cols_to_output_tensors=None):  # fmt: skip
    """The ``[batch, sum of column widths]`` float32 input of a model: each dense column of
    ``feature_columns`` (sorted by name) computed from ``features`` (a dict of Tensors and
    SparseTensors by key) and flattened per example, then concatenated.

    Variables go to ``weight_collections`` plus GLOBAL_VARIABLES and MODEL_VARIABLES;
    ``cols_to_vars`` / ``cols_to_output_tensors`` (dicts) receive each column's variables
    and output.
    """
    return _internal_input_layer(
        features,
        feature_columns,
        weight_collections=weight_collections,
        trainable=trainable,
        cols_to_vars=cols_to_vars,
        cols_to_output_tensors=cols_to_output_tensors,
    )
