"""Loss collections (``tf.losses.add_loss``, ``get_losses``, ``get_total_loss`` ...) and the
rank alignment of labels and predictions that losses and metrics share."""

from __future__ import annotations

from tfcompat.framework.constant_op import constant
from tfcompat.framework.graph import GraphKeys
from tfcompat.framework.op_helper import convert_to_tensor
from tfcompat.framework.scopes import add_to_collection, get_collection, name_scope
from tfcompat.ops import array_ops, math_ops, reduction_ops
from tfcompat.ops.cond import cond
from tfcompat.util.tf_export import tf_export


@tf_export("losses.add_loss")
def add_loss(loss, loss_collection=GraphKeys.LOSSES):
    """Adds ``loss`` to the ``loss_collection`` collection (nothing when it is falsy)."""
    if loss_collection:
        add_to_collection(loss_collection, loss)


@tf_export("losses.get_losses")
def get_losses(scope=None, loss_collection=GraphKeys.LOSSES):
    """The losses of ``loss_collection`` whose names match ``scope``."""
    return get_collection(loss_collection, scope)


@tf_export("losses.get_regularization_losses")
def get_regularization_losses(scope=None):
    """The regularization losses (``GraphKeys.REGULARIZATION_LOSSES``) matching ``scope``."""
    return get_collection(GraphKeys.REGULARIZATION_LOSSES, scope)


@tf_export("losses.get_regularization_loss")
def get_regularization_loss(scope=None, name="total_regularization_loss"):
    """The sum of the regularization losses, or a constant 0.0 when there are none."""
    losses = get_regularization_losses(scope)
    if losses:
        return reduction_ops.add_n(losses, name=name)
    return constant(0.0)


@tf_export("losses.get_total_loss")
def get_total_loss(add_regularization_losses=True, name="total_loss", scope=None):
    """The sum of the collected losses (and of the regularization losses, by default)."""
    losses = get_losses(scope=scope)
    if add_regularization_losses:
        losses += get_regularization_losses(scope=scope)
    return reduction_ops.add_n(losses, name=name)


def _last_dim_may_be_one(shape):
    return shape.rank is None or shape.dims[-1].is_compatible_with(1)


def remove_squeezable_dimensions(labels, predictions, expected_rank_diff=0, name=None):
    """Drops a trailing size-1 dimension of ``predictions`` or ``labels`` so that
    ``rank(predictions) - rank(labels) == expected_rank_diff`` (TF's
    ``confusion_matrix.remove_squeezable_dimensions``); by ``tf.cond`` when ranks are unknown."""
    with name_scope(name, "remove_squeezable_dimensions", [labels, predictions]):
        predictions = convert_to_tensor(predictions)
        labels = convert_to_tensor(labels)
        p_shape, l_shape = predictions.shape, labels.shape
        if p_shape.rank is not None and l_shape.rank is not None:
            rank_diff = p_shape.rank - l_shape.rank
            if rank_diff == expected_rank_diff + 1 and p_shape.dims[-1].is_compatible_with(1):
                predictions = array_ops.squeeze(predictions, [-1])
            elif rank_diff == expected_rank_diff - 1 and l_shape.dims[-1].is_compatible_with(1):
                labels = array_ops.squeeze(labels, [-1])
            return labels, predictions
        rank_diff = array_ops.rank(predictions) - array_ops.rank(labels)
        if _last_dim_may_be_one(p_shape):
            p = predictions
            predictions = cond(
                math_ops.equal(expected_rank_diff + 1, rank_diff),
                lambda: array_ops.squeeze(p, [-1]),
                lambda: p,
            )
        if _last_dim_may_be_one(l_shape):
            lab = labels
            labels = cond(
                math_ops.equal(expected_rank_diff - 1, rank_diff),
                lambda: array_ops.squeeze(lab, [-1]),
                lambda: lab,
            )
        return labels, predictions
