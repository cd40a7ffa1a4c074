"""``tf.math.confusion_matrix`` (TF's ``confusion_matrix``): counts, or sums of ``weights``,
of each (label, prediction) pair by ``ScatterNd``, with TF's value checks and names.

Without ``num_classes`` the graph computes the size as ``max(labels, predictions) + 1``, as
TF's does; running it needs that size when the step is compiled (output shapes are static),
so give ``num_classes`` to run it.
"""

from __future__ import annotations

from tfcompat.framework import dtypes
from tfcompat.framework.op_helper import convert_to_tensor
from tfcompat.framework.scopes import control_dependencies, name_scope
from tfcompat.losses.util import remove_squeezable_dimensions
from tfcompat.ops import array_ops, check_ops, math_ops, reduction_ops
from tfcompat.util.tf_export import tf_export


def _with_dependencies(dependencies, output_tensor, name=None):
    """``output_tensor`` through an Identity that runs after ``dependencies``."""
    with name_scope(name, "control_dependency", list(dependencies) + [output_tensor]) as name:
        graph = output_tensor.graph
        with graph.colocate_with(output_tensor.op), control_dependencies(dependencies):
            return array_ops.identity(output_tensor, name=name)


def _checked(tensor, checks):
    """``tensor`` after each check in turn (TF's chain of ``with_dependencies``)."""
    for check in checks:
        tensor = _with_dependencies([check(tensor)], tensor)
    return tensor


def _nonnegative(what):
    return lambda t: check_ops.assert_non_negative(t, message=f"`{what}` contains negative values")


def _below(bound, what):
    return lambda t: check_ops.assert_less(t, bound, message=f"`{what}` out of bound")


def confusion_matrix_v2(
    labels, predictions, num_classes=None, weights=None, dtype=dtypes.int32, name=None
):
    """The ``[num_classes, num_classes]`` matrix whose ``[i, j]`` entry counts (or sums the
    ``weights`` of) examples with label ``i`` predicted as ``j``."""
    with name_scope(name, "confusion_matrix", (predictions, labels, num_classes, weights)):
        labels, predictions = remove_squeezable_dimensions(
            convert_to_tensor(labels, name="labels"),
            convert_to_tensor(predictions, name="predictions"),
        )
        predictions = math_ops.cast(predictions, dtypes.int64)
        labels = math_ops.cast(labels, dtypes.int64)
        labels = _checked(labels, [_nonnegative("labels")])
        predictions = _checked(predictions, [_nonnegative("predictions")])
        if num_classes is None:
            num_classes = (
                math_ops.maximum(
                    reduction_ops.reduce_max(predictions), reduction_ops.reduce_max(labels)
                )
                + 1
            )
        else:
            bound = math_ops.cast(num_classes, dtypes.int64)
            labels = _checked(labels, [_below(bound, "labels")])
            predictions = _checked(predictions, [_below(bound, "predictions")])
        if weights is not None:
            weights = convert_to_tensor(weights, name="weights")
            predictions.shape.assert_is_compatible_with(weights.shape)
            weights = math_ops.cast(weights, dtype)
        shape = array_ops.stack([num_classes, num_classes])
        indices = array_ops.stack([labels, predictions], axis=1)
        values = array_ops.ones_like(predictions, dtype) if weights is None else weights
        return array_ops.scatter_nd(
            indices=indices, updates=values, shape=math_ops.cast(shape, dtypes.int64)
        )


@tf_export("math.confusion_matrix", "confusion_matrix")
def confusion_matrix(
    labels, predictions, num_classes=None, dtype=dtypes.int32, name=None, weights=None
):
    """TF1's argument order of ``confusion_matrix_v2``."""
    return confusion_matrix_v2(labels, predictions, num_classes, weights, dtype, name)
