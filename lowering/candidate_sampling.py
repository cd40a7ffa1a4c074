"""JAX lowerings of the candidate samplers whose distribution is fixed by attrs (uniform,
log-uniform, fixed unigram, all classes).

Sampling with replacement draws ``num_sampled`` classes by inverting the CDF. Sampling
``unique`` classes follows TF's rejection scheme with a static bound: a stream of
``stream_length(k)`` draws with replacement, of which the first ``k`` distinct classes (in
draw order) are kept and ``num_tries`` is the position of the k-th one. When the stream
holds fewer than ``k`` distinct classes (only for distributions concentrated on fewer than
about ``k`` classes), the rest are the top of Gumbel-perturbed log-probabilities over the
unseen classes (sampling without replacement) and ``num_tries`` is the stream length.
Expected counts use TF's float32 formula.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from lowering.compile import RANDOM_OP_TYPES
from lowering.random import op_key
from lowering.registry import lowering
from tfcompat.framework import errors
from tfcompat.ops.candidate_sampling_ops import RANDOM_OP_TYPES as _OP_TYPES

RANDOM_OP_TYPES.update(_OP_TYPES)


def stream_length(k: int) -> int:
    """Draws reserved for finding ``k`` distinct classes."""
    return 16 * k + 1024


def fixed_unigram_weights(op) -> np.ndarray:
    """TF's FixedUnigramSampler weights: reserved ids weigh 0, then ``unigrams ** distortion``;
    with sharding, only ids with ``id % num_shards == shard`` are kept (numbering as TF)."""
    if op.attrs["vocab_file"]:
        raise errors.UnimplementedError(
            None, op, "FixedUnigramCandidateSampler with a vocab_file is not supported by tfcompat"
        )
    unigrams = op.attrs["unigrams"]
    if not unigrams:
        raise errors.InvalidArgumentError(None, op, "Must provide either vocab_file or unigrams.")
    shards, shard = op.attrs["num_shards"], op.attrs["shard"]
    weights = [0.0 for i in range(op.attrs["num_reserved_ids"]) if i % shards == shard]
    word_id = len(weights)
    for w in unigrams:
        if word_id % shards == shard:
            weights.append(float(np.float32(w) ** np.float32(op.attrs["distortion"])))
        word_id += 1
    if len(weights) != op.attrs["range_max"]:
        raise errors.InvalidArgumentError(
            None, op, f"range_max {op.attrs['range_max']} != number of unigram weights "
            f"{len(weights)}",
        )  # fmt: skip
    return np.asarray(weights, np.float32)


def fixed_unigram_probs(weights) -> np.ndarray:
    """``weight / total`` in float32 with the total summed in order, as TF computes them."""
    total = np.cumsum(weights, dtype=np.float32)[-1]
    return (weights / total).astype(np.float32)


class _Distribution:
    """Per sampler type: ``draw(key, shape)`` class ids, ``prob(ids)`` float64 probabilities
    and ``log_probs()`` over all classes."""

    def __init__(self, op):
        self.op_type = op.type
        self.n = op.attrs["range_max"]
        if op.type == "FixedUnigramCandidateSampler":
            w = fixed_unigram_weights(op)
            self.table = fixed_unigram_probs(w).astype(np.float64)
            self.cdf = np.cumsum(w.astype(np.float64))

    def draw(self, key, shape):
        u = jax.random.uniform(key, shape, jnp.float64)
        if self.op_type == "UniformCandidateSampler":
            return jnp.minimum(jnp.floor(u * self.n).astype(jnp.int64), self.n - 1)
        if self.op_type == "LogUniformCandidateSampler":
            value = jnp.floor(jnp.exp(u * np.log(self.n + 1.0)) - 1).astype(jnp.int64)
            return value % self.n
        ids = jnp.searchsorted(jnp.asarray(self.cdf), u * self.cdf[-1], side="right")
        return jnp.minimum(ids, self.n - 1).astype(jnp.int64)

    def prob(self, ids):
        ids = jnp.asarray(ids)
        if self.op_type == "UniformCandidateSampler":
            return jnp.full(ids.shape, 1.0 / self.n)
        if self.op_type == "LogUniformCandidateSampler":
            x = ids.astype(jnp.float64)
            return jnp.log((x + 2.0) / (x + 1.0)) / np.log(self.n + 1.0)
        inside = (ids >= 0) & (ids < self.n)
        return jnp.where(inside, jnp.asarray(self.table)[jnp.clip(ids, 0, self.n - 1)], 0.0)

    def log_probs(self):
        return jnp.log(self.prob(jnp.arange(self.n, dtype=jnp.int64)))


def expected_count(p, num_sampled, num_tries):
    """TF's ExpectedCountHelper in float32: ``p * k`` when every draw was kept, else the
    chance of at least one hit in ``num_tries`` draws."""
    p = jnp.asarray(p).astype(jnp.float32)
    with_replacement = p * jnp.float32(num_sampled)
    tries = jnp.asarray(num_tries).astype(jnp.float32)
    unique = -jnp.expm1(tries * jnp.log1p(-p))
    return jnp.where(jnp.asarray(num_tries) == num_sampled, with_replacement, unique)


def first_occurrences(stream):
    """Mask of the positions where a value appears for the first time (sort-based)."""
    order = jnp.argsort(stream, stable=True)
    ordered = stream[order]
    new = jnp.concatenate([jnp.ones(1, bool), ordered[1:] != ordered[:-1]])
    return jnp.zeros(stream.shape, bool).at[order].set(new)


def _unique_sample(dist, key, k):
    stream_key, gumbel_key = jax.random.split(key)
    length = stream_length(k)
    stream = dist.draw(stream_key, (length,))
    first = first_occurrences(stream)
    found = jnp.sum(first)
    positions = jnp.nonzero(first, size=k, fill_value=length - 1)[0]
    kept = stream[positions]
    num_tries = jnp.where(found >= k, positions[k - 1] + 1, length)
    # Fallback: unseen classes by Gumbel-top-k (only used when found < k).
    valid = jnp.arange(k) < found
    seen = jnp.zeros(dist.n + 1, bool).at[jnp.where(valid, kept, dist.n)].set(True)[:-1]
    scores = dist.log_probs() + jax.random.gumbel(gumbel_key, (dist.n,), jnp.float64)
    _, extra = jax.lax.top_k(jnp.where(seen, -jnp.inf, scores), k)
    fill = extra[jnp.clip(jnp.arange(k) - found, 0, k - 1)].astype(jnp.int64)
    return jnp.where(valid, kept, fill), num_tries


@lowering("UniformCandidateSampler", "LogUniformCandidateSampler", "FixedUnigramCandidateSampler")
def _range_sampler(ctx, op, true_classes):
    k, unique = op.attrs["num_sampled"], op.attrs["unique"]
    dist = _Distribution(op)
    if unique and k > dist.n:
        raise errors.InvalidArgumentError(
            None, op, f"Sampler's range is too small.\n\t [[{{{{node {op.name}}}}}]]"
        )
    key = op_key(ctx, op)
    if unique:
        sampled, num_tries = _unique_sample(dist, key, k)
    else:
        sampled, num_tries = dist.draw(key, (k,)), k
    true_count = expected_count(dist.prob(true_classes), k, num_tries)
    sampled_count = expected_count(dist.prob(sampled), k, num_tries)
    return sampled, true_count, sampled_count


@lowering("AllCandidateSampler")
def _all_sampler(ctx, op, true_classes):
    k = op.attrs["num_sampled"]
    ones = np.ones(np.shape(true_classes), np.float32)
    return np.arange(k, dtype=np.int64), ones, np.ones(k, np.float32)
