"""Numpy reference kernels of the candidate samplers and ``ComputeAccidentalHits``.

Unique sampling is TF's unbounded rejection loop (draw with replacement until
``num_sampled`` distinct classes are found), on a numpy Generator seeded like the other
random kernels. ``LearnedUnigramCandidateSampler`` is a host op for every backend: its class
counts (1 + times seen as a true class) persist in the Session's state between runs.
"""

from __future__ import annotations

import numpy as np

from lowering.candidate_sampling import fixed_unigram_probs, fixed_unigram_weights
from lowering.reference.random import op_rng
from lowering.registry import reference
from tfcompat.framework import errors

_INT32_MAX = 2**31 - 1


def _invalid(op, message):
    return errors.InvalidArgumentError(None, op, f"{message}\n\t [[{{{{node {op.name}}}}}]]")


def _check(op, true_classes, n):
    if true_classes.ndim != 2:
        raise _invalid(op, "true_classes must be a matrix")
    if true_classes.shape[1] != op.attrs["num_true"]:
        raise _invalid(
            op,
            f"true_classes must have num_true columns, expected: {true_classes.shape[1]} was: "
            f"{op.attrs['num_true']}",
        )
    if op.attrs["unique"] and op.attrs["num_sampled"] > n:
        raise _invalid(op, "Sampler's range is too small.")
    outside = true_classes[(true_classes < 0) | (true_classes >= n)]
    if outside.size:
        raise _invalid(op, f"`true_candidate` out of range [0, {n}), received {outside[0]}")


def _expected(p, k, num_tries):
    p = np.asarray(p, np.float32)
    if num_tries == k:
        return (p * np.float32(k)).astype(np.float32)
    return (-np.expm1(np.float32(num_tries) * np.log1p(-p))).astype(np.float32)


def _run(op, rng, true_classes, n, draw, prob):
    """Samples with TF's algorithm; ``draw(rng)`` gives one class, ``prob(ids)`` float32."""
    true_classes = np.asarray(true_classes, np.int64)
    _check(op, true_classes, n)
    k = op.attrs["num_sampled"]
    if op.attrs["unique"]:
        picked, seen, tries = [], set(), 0
        while len(picked) < k:
            tries += 1
            value = draw(rng)
            if value not in seen:
                seen.add(value)
                picked.append(value)
    else:
        picked, tries = [draw(rng) for _ in range(k)], k
    sampled = np.asarray(picked, np.int64)
    return sampled, _expected(prob(true_classes), k, tries), _expected(prob(sampled), k, tries)


@reference("UniformCandidateSampler")
def _uniform(ctx, op, true_classes):
    n = op.attrs["range_max"]
    return _run(op, op_rng(ctx, op), true_classes, n, lambda r: int(r.integers(n)),
                lambda ids: np.full(np.shape(ids), np.float32(1.0 / n)))  # fmt: skip


@reference("LogUniformCandidateSampler")
def _log_uniform(ctx, op, true_classes):
    n = op.attrs["range_max"]
    log_range = np.log(n + 1.0)

    def draw(rng):
        return int(np.exp(rng.random() * log_range) - 1) % n

    def prob(ids):
        ids = np.asarray(ids, np.float64)
        return (np.log((ids + 2.0) / (ids + 1.0)) / log_range).astype(np.float32)

    return _run(op, op_rng(ctx, op), true_classes, n, draw, prob)


@reference("FixedUnigramCandidateSampler")
def _fixed_unigram(ctx, op, true_classes):
    weights = fixed_unigram_weights(op).astype(np.float64)
    n, table = len(weights), fixed_unigram_probs(fixed_unigram_weights(op))

    def prob(ids):
        ids = np.asarray(ids, np.int64)
        inside = (ids >= 0) & (ids < n)
        return np.where(inside, table[np.clip(ids, 0, n - 1)], 0.0).astype(np.float32)

    p = weights / weights.sum()
    return _run(op, op_rng(ctx, op), true_classes, n, lambda r: int(r.choice(n, p=p)), prob)


@reference("LearnedUnigramCandidateSampler")
def _learned_unigram(ctx, op, true_classes):
    key = f"{op.name}:learned_unigram_counts"
    n = op.attrs["range_max"]
    counts = ctx.state.get(key)
    if counts is None:
        counts = np.ones(n, np.int64)
    weights = counts.astype(np.float64)
    p = weights / weights.sum()

    def prob(ids):
        ids = np.asarray(ids, np.int64)
        inside = (ids >= 0) & (ids < n)
        c = np.where(inside, counts[np.clip(ids, 0, n - 1)], 0)
        return (c.astype(np.float32) / np.float32(counts.sum())).astype(np.float32)

    result = _run(op, op_rng(ctx, op), true_classes, n, lambda r: int(r.choice(n, p=p)), prob)
    # TF updates the counts after sampling, with as many true classes as int32 total allows.
    seen = np.asarray(true_classes, np.int64).reshape(-1)
    room = max(0, min(len(seen), _INT32_MAX - int(counts.sum())))
    counts = counts.copy()
    np.add.at(counts, seen[:room], 1)
    ctx.state[key] = counts
    return result


@reference("AllCandidateSampler")
def _all(ctx, op, true_classes):
    true_classes = np.asarray(true_classes, np.int64)
    k = op.attrs["num_sampled"]
    _check(op, true_classes, k)
    return (np.arange(k, dtype=np.int64), np.ones(true_classes.shape, np.float32),
            np.ones(k, np.float32))  # fmt: skip


@reference("ComputeAccidentalHits")
def _accidental_hits(ctx, op, true_classes, sampled_candidates):
    true_classes = np.asarray(true_classes, np.int64)
    sampled = np.asarray(sampled_candidates, np.int64)
    if true_classes.ndim != 2 or true_classes.shape[1] != op.attrs["num_true"]:
        raise _invalid(op, "true_candidates must be a batch_size * num_true matrix")
    if sampled.ndim != 1:
        raise _invalid(
            op, "sampled_candidates must be a vector, which is typically an output from "
            "CandidateSampler",
        )  # fmt: skip
    # Each sampled class and its last place among the samples (a repeated class: its last).
    classes, from_end = np.unique(sampled[::-1], return_index=True)
    last = sampled.size - 1 - from_end
    flat = true_classes.reshape(-1)
    at = np.searchsorted(classes, flat)
    hit = at < classes.size
    hit[hit] = classes[at[hit]] == flat[hit]
    # Row-major over (row, true class), as TF lists them.
    rows = np.repeat(np.arange(true_classes.shape[0], dtype=np.int32), true_classes.shape[1])
    ids = last[at[hit]].astype(np.int64)
    weights = np.full(ids.size, -np.finfo(np.float32).max, np.float32)
    return rows[hit], ids, weights
