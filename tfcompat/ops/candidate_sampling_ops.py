"""Candidate sampling (TF's ``candidate_sampling_ops``): the ``*CandidateSampler`` ops, which
draw ``num_sampled`` classes and report each class's expected count, and
``ComputeAccidentalHits``; with the ``tf.nn`` / ``tf.random`` wrappers. None is
differentiable (as in TF). ``nce_loss`` and ``sampled_softmax_loss`` build on them in
``sampled_losses``.

Expected counts follow TF's formula: ``p * num_sampled`` when sampling with replacement,
``1 - (1 - p) ** num_tries`` when ``unique`` (``num_tries``: the draws it took to find
``num_sampled`` distinct classes).
"""

from __future__ import annotations

from tfcompat.framework import random_seed
from tfcompat.framework.gradient_registry import no_gradient
from tfcompat.framework.op_def import register_op
from tfcompat.framework.op_helper import apply_op, op_outputs
from tfcompat.framework.tensor_shape import TensorShape
from tfcompat.util.tf_export import tf_export

_SAMPLER_OUTPUTS = [
    "sampled_candidates: int64",
    "true_expected_count: float",
    "sampled_expected_count: float",
]
_SEEDS = ["seed: int = 0", "seed2: int = 0"]
_COMMON = ["num_true: int >= 1", "num_sampled: int >= 1", "unique: bool"]


def _sampler_shape(op):
    true_shape = op.inputs[0].shape
    if true_shape.rank is not None and true_shape.rank != 2:
        raise ValueError(f"Shape must be rank 2 but is rank {true_shape.rank}")
    batch = None if true_shape.rank is None else true_shape[0].value
    # TF does not check the column count against num_true here (the kernel does).
    num_true, num_sampled = op.attrs["num_true"], op.attrs["num_sampled"]
    sampled = TensorShape([num_sampled])
    return [sampled, TensorShape([batch, num_true]), sampled]


# Samplers whose distribution is fixed by attrs run on the device (JAX lowering); the learned
# unigram sampler counts the true classes it has seen across runs, so it is a host op that
# keeps its counts in the Session's state.
SAMPLER_ATTRS = {
    "UniformCandidateSampler": _COMMON + ["range_max: int >= 1"],
    "LogUniformCandidateSampler": _COMMON + ["range_max: int >= 1"],
    "LearnedUnigramCandidateSampler": _COMMON + ["range_max: int >= 1"],
    "FixedUnigramCandidateSampler": _COMMON
    + [
        "range_max: int >= 1",
        "vocab_file: string = ''",
        "distortion: float = 1.0",
        "num_reserved_ids: int = 0",
        "num_shards: int >= 1 = 1",
        "shard: int >= 0 = 0",
        "unigrams: list(float) = []",
    ],
    "AllCandidateSampler": _COMMON,
}
for _op_type, _attrs in SAMPLER_ATTRS.items():
    register_op(
        _op_type,
        inputs=["true_classes: int64"],
        outputs=_SAMPLER_OUTPUTS,
        attrs=_attrs + _SEEDS,
        shape_fn=_sampler_shape,
        is_stateful=True,
        host=_op_type == "LearnedUnigramCandidateSampler",
    )
    no_gradient(_op_type)

# The device samplers draw from the run's random key (lowering/random.py's seed rules).
RANDOM_OP_TYPES = tuple(t for t in SAMPLER_ATTRS if t != "LearnedUnigramCandidateSampler")


def _accidental_hits_shape(op):
    true_shape, sampled_shape = op.inputs[0].shape, op.inputs[1].shape
    if true_shape.rank is not None and true_shape.rank != 2:
        raise ValueError(f"Shape must be rank 2 but is rank {true_shape.rank}")
    if sampled_shape.rank is not None and sampled_shape.rank != 1:
        raise ValueError(f"Shape must be rank 1 but is rank {sampled_shape.rank}")
    num_true = op.attrs["num_true"]
    if true_shape.rank is not None:
        got = true_shape[1].value
        if got is not None and got != num_true:
            raise ValueError(f"Dimension must be {num_true} but is {got}")
    return [TensorShape([None])] * 3


# How many true classes were also sampled depends on the values: a host op.
register_op(
    "ComputeAccidentalHits",
    inputs=["true_classes: int64", "sampled_candidates: int64"],
    outputs=["indices: int32", "ids: int64", "weights: float"],
    attrs=["num_true: int"] + _SEEDS,
    shape_fn=_accidental_hits_shape,
    host=True,
)
no_gradient("ComputeAccidentalHits")


# ---------------------------------------------------------------------------------------------
# Wrappers
# ---------------------------------------------------------------------------------------------
def _sample(op_type, true_classes, seed, name, **attrs):
    seed1, seed2 = random_seed.get_seed(seed)
    op = apply_op(op_type, name=name, true_classes=true_classes, seed=seed1, seed2=seed2, **attrs)
    return op_outputs(op)


@tf_export(
    "random.uniform_candidate_sampler", "nn.uniform_candidate_sampler"
)  # fmt: skip
def uniform_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max, seed=None,
                              name=None):  # fmt: skip
    """Samples classes uniformly from ``[0, range_max)``: ``(sampled_candidates,
    true_expected_count, sampled_expected_count)``."""
    return _sample("UniformCandidateSampler", true_classes, seed, name, num_true=num_true,
                   num_sampled=num_sampled, unique=unique, range_max=range_max)  # fmt: skip


@tf_export("random.log_uniform_candidate_sampler", "nn.log_uniform_candidate_sampler")
def log_uniform_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max,
                                  seed=None, name=None):  # fmt: skip
    """Samples classes from the Zipfian ``P(c) = log((c + 2) / (c + 1)) / log(range_max + 1)``
    (classes sorted by decreasing frequency)."""
    return _sample("LogUniformCandidateSampler", true_classes, seed, name, num_true=num_true,
                   num_sampled=num_sampled, unique=unique, range_max=range_max)  # fmt: skip


@tf_export("random.learned_unigram_candidate_sampler", "nn.learned_unigram_candidate_sampler")
def learned_unigram_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max,
                                      seed=None, name=None):  # fmt: skip
    """Samples classes in proportion to ``1 +`` how often each was a true class in earlier
    runs of this op (the counts live as long as the Session)."""
    if range_max > 2147483647:
        raise ValueError(f"Value of range_max:{range_max} is too large to handle")
    return _sample("LearnedUnigramCandidateSampler", true_classes, seed, name,
                   num_true=num_true, num_sampled=num_sampled, unique=unique,
                   range_max=range_max)  # fmt: skip


@tf_export("random.fixed_unigram_candidate_sampler", "nn.fixed_unigram_candidate_sampler")
def fixed_unigram_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max,
                                    vocab_file="", distortion=1.0, num_reserved_ids=0,
                                    num_shards=1, shard=0, unigrams=(), seed=None,
                                    name=None):  # fmt: skip
    """Samples classes from the given ``unigrams`` weights raised to ``distortion``
    (``vocab_file`` is read when the op runs)."""
    return _sample("FixedUnigramCandidateSampler", true_classes, seed, name,
                   num_true=num_true, num_sampled=num_sampled, unique=unique,
                   range_max=range_max, vocab_file=vocab_file, distortion=distortion,
                   num_reserved_ids=num_reserved_ids, num_shards=num_shards, shard=shard,
                   unigrams=list(unigrams))  # fmt: skip


@tf_export("random.all_candidate_sampler", "nn.all_candidate_sampler")
def all_candidate_sampler(true_classes, num_true, num_sampled, unique, seed=None, name=None):
    """ "Samples" every class ``0 .. num_sampled - 1`` once, each with expected count 1."""
    return _sample("AllCandidateSampler", true_classes, seed, name, num_true=num_true,
                   num_sampled=num_sampled, unique=unique)  # fmt: skip


@tf_export("nn.compute_accidental_hits")
def compute_accidental_hits(true_classes, sampled_candidates, num_true, seed=None, name=None):
    """Where a sampled class equals one of a row's true classes: ``(indices, ids,
    weights)`` with the row, the sample's position and ``-FLT_MAX`` per hit."""
    seed1, seed2 = random_seed.get_seed(seed)
    op = apply_op(
        "ComputeAccidentalHits", name=name, true_classes=true_classes,
        sampled_candidates=sampled_candidates, num_true=num_true, seed=seed1, seed2=seed2,
    )  # fmt: skip
    return op_outputs(op)
