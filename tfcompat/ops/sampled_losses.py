"""Sampled losses (TF's ``nn_impl``): ``tf.nn.nce_loss`` and ``tf.nn.sampled_softmax_loss``,
built from TF 2.21's ``_compute_sampled_logits`` graph: one embedding lookup of the true and
sampled classes' weights and biases, true logits as row-wise dots, sampled logits as a
matmul, accidental hits pushed to ``-FLT_MAX`` and ``log Q`` subtracted."""

from __future__ import annotations

from tfcompat.framework import dtypes
from tfcompat.framework.scopes import name_scope
from tfcompat.ops import candidate_sampling_ops
from tfcompat.util.tf_export import tf_export


def _sum_rows(x):
    """Row sums as TF computes them: ``x @ ones([cols, 1])`` (faster than reduce_sum on
    GPUs), reshaped to a vector."""
    from tfcompat.ops import array_ops
    from tfcompat.ops.matmul_ops import matmul

    cols = array_ops.shape(x)[1]
    ones = array_ops.ones(array_ops.stack([cols, 1]), x.dtype)
    return array_ops.reshape(matmul(x, ones), [-1])


def _lookup_rows(params, ids, inputs, partition_strategy):
    from tfcompat.ops import embedding_ops, math_ops

    rows = embedding_ops.embedding_lookup(params, ids, partition_strategy=partition_strategy)
    if rows.dtype != inputs.dtype:
        rows = math_ops.cast(rows, inputs.dtype)
    return rows


def _accidental_hit_logits(labels, sampled, sampled_logits, num_true, num_sampled):
    """``-FLT_MAX`` where a sampled class is one of the row's true classes, else 0."""
    from tfcompat.ops import array_ops, math_ops, sparse_ops

    indices, ids, weights = candidate_sampling_ops.compute_accidental_hits(
        labels, sampled, num_true=num_true
    )
    indices_2d = array_ops.reshape(indices, [-1, 1])
    ids_2d = array_ops.reshape(math_ops.cast(ids, dtypes.int32), [-1, 1])
    sparse_indices = array_ops.concat([indices_2d, ids_2d], 1, "sparse_indices")
    shape = array_ops.concat(
        [array_ops.shape(labels)[:1], array_ops.expand_dims(num_sampled, 0)], 0
    )
    if sampled_logits.dtype != weights.dtype:
        weights = math_ops.cast(weights, sampled_logits.dtype)
    return sparse_ops.sparse_to_dense(
        sparse_indices, shape, weights, default_value=0.0, validate_indices=False
    )


def compute_sampled_logits(weights, biases, labels, inputs, num_sampled, num_classes,
                           num_true=1, sampled_values=None, subtract_log_q=True,
                           remove_accidental_hits=False, partition_strategy="mod", name=None,
                           seed=None):  # fmt: skip
    """``(logits, labels)`` over ``num_true`` true and ``num_sampled`` sampled classes per
    row (TF's ``_compute_sampled_logits``); samples come from the log-uniform sampler
    unless ``sampled_values`` gives them."""
    from tfcompat.ops import array_ops, math_ops
    from tfcompat.ops.matmul_ops import matmul
    from tfcompat.ops.partitioned_variables import PartitionedVariable

    if isinstance(weights, PartitionedVariable):
        weights = list(weights)
    if not isinstance(weights, list):
        weights = [weights]
    with name_scope(name, "compute_sampled_logits", weights + [biases, inputs, labels]):
        if labels.dtype != dtypes.int64:
            labels = math_ops.cast(labels, dtypes.int64)
        labels_flat = array_ops.reshape(labels, [-1])
        if sampled_values is None:
            sampled_values = candidate_sampling_ops.log_uniform_candidate_sampler(
                true_classes=labels, num_true=num_true, num_sampled=num_sampled, unique=True,
                range_max=num_classes, seed=seed,
            )  # fmt: skip
        sampled, true_expected_count, sampled_expected_count = (
            array_ops.stop_gradient(s) for s in sampled_values
        )
        sampled = math_ops.cast(sampled, dtypes.int64)
        all_ids = array_ops.concat([labels_flat, sampled], 0)
        all_w = _lookup_rows(weights, all_ids, inputs, partition_strategy)
        num_labels = array_ops.shape(labels_flat)[0]
        true_w = array_ops.slice(all_w, [0, 0], array_ops.stack([num_labels, -1]))
        sampled_w = array_ops.slice(
            all_w, array_ops.stack([array_ops.shape(labels_flat)[0], 0]), [-1, -1]
        )
        sampled_logits = matmul(inputs, sampled_w, transpose_b=True)
        all_b = _lookup_rows(biases, all_ids, inputs, partition_strategy)
        true_b = array_ops.slice(all_b, [0], array_ops.shape(labels_flat))
        sampled_b = array_ops.slice(all_b, array_ops.shape(labels_flat), [-1])
        # Row-wise dots of each input with its num_true true classes' weights.
        dim = array_ops.shape(true_w)[1:2]
        new_true_w_shape = array_ops.concat([[-1, num_true], dim], 0)
        row_wise_dots = math_ops.multiply(
            array_ops.expand_dims(inputs, 1), array_ops.reshape(true_w, new_true_w_shape)
        )
        dots_as_matrix = array_ops.reshape(row_wise_dots, array_ops.concat([[-1], dim], 0))
        true_logits = array_ops.reshape(_sum_rows(dots_as_matrix), [-1, num_true])
        true_b = array_ops.reshape(true_b, [-1, num_true])
        true_logits += true_b
        sampled_logits += sampled_b
        if remove_accidental_hits:
            sampled_logits += _accidental_hit_logits(
                labels, sampled, sampled_logits, num_true, num_sampled
            )
        if subtract_log_q:
            true_logits -= math_ops.log(true_expected_count)
            sampled_logits -= math_ops.log(sampled_expected_count)
        out_logits = array_ops.concat([true_logits, sampled_logits], 1)
        out_labels = array_ops.concat(
            [array_ops.ones_like(true_logits) / num_true, array_ops.zeros_like(sampled_logits)],
            1,
        )
        return out_logits, out_labels


@tf_export("nn.nce_loss")
def nce_loss(weights, biases, labels, inputs, num_sampled, num_classes, num_true=1,
             sampled_values=None, remove_accidental_hits=False, partition_strategy="mod",
             name="nce_loss"):  # fmt: skip
    """Noise-contrastive estimation loss per example: sigmoid cross entropy of the true
    classes (label ``1 / num_true``) and the sampled ones (label 0), summed per row."""
    from tfcompat.ops import nn_impl

    logits, labels = compute_sampled_logits(
        weights=weights, biases=biases, labels=labels, inputs=inputs, num_sampled=num_sampled,
        num_classes=num_classes, num_true=num_true, sampled_values=sampled_values,
        subtract_log_q=True, remove_accidental_hits=remove_accidental_hits,
        partition_strategy=partition_strategy, name=name,
    )  # fmt: skip
    sampled_losses = nn_impl.sigmoid_cross_entropy_with_logits(
        labels=labels, logits=logits, name="sampled_losses"
    )
    return _sum_rows(sampled_losses)


@tf_export("nn.sampled_softmax_loss")
def sampled_softmax_loss(weights, biases, labels, inputs, num_sampled, num_classes,
                         num_true=1, sampled_values=None, remove_accidental_hits=True,
                         partition_strategy="mod", name="sampled_softmax_loss",
                         seed=None):  # fmt: skip
    """Softmax cross entropy over the true and sampled classes only (an estimate of the
    full softmax loss for large ``num_classes``), per example."""
    from tfcompat.ops import array_ops, nn_ops

    logits, labels = compute_sampled_logits(
        weights=weights, biases=biases, labels=labels, inputs=inputs, num_sampled=num_sampled,
        num_classes=num_classes, num_true=num_true, sampled_values=sampled_values,
        subtract_log_q=True, remove_accidental_hits=remove_accidental_hits,
        partition_strategy=partition_strategy, name=name, seed=seed,
    )  # fmt: skip
    labels = array_ops.stop_gradient(labels, name="labels_stop_gradient")
    return nn_ops.softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits)
