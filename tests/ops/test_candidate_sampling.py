"""Candidate samplers, ComputeAccidentalHits, nce_loss and sampled_softmax_loss vs TF 2.21.

Sampled classes are random (JAX's / numpy's generators, not TF's), so the samplers are
checked by what is deterministic: expected counts (TF's formula, equal to TF's outputs when
sampling with replacement), uniqueness, ranges, frequencies and seeding. The losses are
compared with TF given the same ``sampled_values``.
"""

import numpy as np
import pytest

import tfcompat
from lowering.candidate_sampling import stream_length
from tests.oracle import assert_parity, assert_same_graph_def, tf1

_BACKENDS = ("xla", "reference")
_TRUE = np.array([[0, 3], [7, 1], [2, 2], [9, 5]], np.int64)


def _run(tf, build, backend=None, runs=1):
    with tf.Graph().as_default():
        fetches = build(tf)
        kwargs = {"backend": backend} if backend else {}
        with tf.Session(**kwargs) as sess:
            return [sess.run(fetches) for _ in range(runs)]


def _sampler(name, unique, k=5, range_max=10, seed=3, **extra):
    def build(tf):
        fn = getattr(tf.random, name)
        if name == "all_candidate_sampler":
            return fn(_TRUE, 2, k, unique, seed=seed)
        return fn(_TRUE, 2, k, unique, range_max, seed=seed, **extra)

    return build


_FIXED = {"unigrams": [3.0, 1.0, 0.5, 2.0, 4.0, 1.0, 1.0, 6.0, 2.0, 1.5], "distortion": 0.75}
_FIXED_SHARDED = {
    "unigrams": [float(i + 1) for i in range(17)],
    "num_reserved_ids": 3,
    "num_shards": 2,
    "shard": 1,
}
_SAMPLERS = {
    "uniform": ("uniform_candidate_sampler", {}),
    "log_uniform": ("log_uniform_candidate_sampler", {}),
    "fixed": ("fixed_unigram_candidate_sampler", _FIXED),
    "fixed_sharded": ("fixed_unigram_candidate_sampler", _FIXED_SHARDED),
}


@pytest.mark.parametrize("case", sorted(_SAMPLERS))
@pytest.mark.parametrize("backend", _BACKENDS)
def test_expected_counts_with_replacement_equal_tf(case, backend):
    """Without ``unique`` the expected counts are ``p * num_sampled``: deterministic."""
    name, extra = _SAMPLERS[case]
    build = _sampler(name, False, k=6, **extra)
    ((_, theirs_true, _),) = _run(tf1(), build)
    ((sampled, ours_true, ours_sampled),) = _run(tfcompat, build, backend)
    np.testing.assert_array_equal(ours_true, theirs_true)
    assert ours_true.dtype == np.float32 and sampled.dtype == np.int64
    # The sampled classes' counts by the same formula: compare with TF's for those ids.
    ((_, theirs_for_ours, _),) = _run(
        tf1(), lambda tf: getattr(tf.random, name)(
            np.repeat(sampled[:, None], 2, 1), 2, 6, False, 10, **extra)
    )  # fmt: skip
    np.testing.assert_array_equal(ours_sampled, theirs_for_ours[:, 0])


def _formula(p, k, tries):
    p = np.asarray(p, np.float32)
    if tries == k:
        return p * np.float32(k)
    return -np.expm1(np.float32(tries) * np.log1p(-p))


@pytest.mark.parametrize("case", sorted(_SAMPLERS))
@pytest.mark.parametrize("backend", _BACKENDS)
def test_unique_samples_and_expected_counts(case, backend):
    """Unique samples are distinct and in range; every expected count is TF's formula for
    one number of tries (the same for true and sampled classes)."""
    name, extra = _SAMPLERS[case]
    k = 6
    build = _sampler(name, True, k=k, **extra)
    # TF's counts for the true classes with p from TF itself (sampling with replacement).
    ((_, p_true, _),) = _run(tf1(), _sampler(name, False, k=1, **extra))
    for sampled, true_count, sampled_count in _run(tfcompat, build, backend, runs=3):
        assert len(set(sampled.tolist())) == k
        assert sampled.min() >= 0 and sampled.max() < 10
        ((_, p_sampled, _),) = _run(
            tf1(), lambda tf, ids=sampled: getattr(tf.random, name)(
                np.repeat(ids[:, None], 2, 1), 2, 1, False, 10, **extra)
        )  # fmt: skip
        candidates = [
            t
            for t in range(k, stream_length(k) + 1)
            if np.allclose(_formula(p_true, k, t), true_count, rtol=2e-6, atol=0)
        ]
        assert candidates, "no number of tries explains the true expected counts"
        tries = candidates[0]
        np.testing.assert_allclose(true_count, _formula(p_true, k, tries), rtol=2e-6)
        np.testing.assert_allclose(sampled_count, _formula(p_sampled[:, 0], k, tries), rtol=2e-6)


@pytest.mark.parametrize("case", ["uniform", "log_uniform", "fixed"])
@pytest.mark.parametrize("backend", _BACKENDS)
def test_sampled_frequencies_follow_the_distribution(case, backend):
    name, extra = _SAMPLERS[case]
    k = 4000
    ((_, p, _),) = _run(
        tf1(), lambda tf: getattr(tf.random, name)(
            np.arange(10, dtype=np.int64)[:, None], 1, 1, False, 10, **extra)
    )  # fmt: skip
    p = p[:, 0].astype(np.float64)
    draws = np.concatenate(
        [r[0] for r in _run(tfcompat, _sampler(name, False, k=k, **extra), backend, runs=3)]
    )
    freq = np.bincount(draws, minlength=10) / len(draws)
    sigma = np.sqrt(p * (1 - p) / len(draws))
    assert np.all(np.abs(freq - p) < 5 * sigma + 1e-12), (freq, p)


@pytest.mark.parametrize("backend", _BACKENDS)
def test_unique_sampling_favours_likely_classes(backend):
    """Without replacement the first pick follows p: class 0 of the log-uniform sampler
    (p = log 2 / log 11) is picked in about that share of runs."""
    runs = _run(tfcompat, _sampler("log_uniform_candidate_sampler", True, k=3, seed=5),
                backend, runs=400)  # fmt: skip
    first = np.array([r[0][0] for r in runs])
    share = np.mean(first == 0)
    p0 = np.log(2) / np.log(11)
    assert abs(share - p0) < 5 * np.sqrt(p0 * (1 - p0) / 400)


@pytest.mark.parametrize("backend", _BACKENDS)
def test_seeds_make_samples_repeatable(backend):
    a = _run(tfcompat, _sampler("uniform_candidate_sampler", False, k=8), backend, runs=2)
    b = _run(tfcompat, _sampler("uniform_candidate_sampler", False, k=8), backend, runs=2)
    for x, y in zip(a, b):  # a fresh Session repeats the sequence run by run
        np.testing.assert_array_equal(x[0], y[0])
    assert not np.array_equal(a[0][0], a[1][0])  # each run draws anew

    def two_ops(tf):
        tf.set_random_seed(1)
        s1 = tf.nn.uniform_candidate_sampler(_TRUE, 2, 8, True, 1000)[0]
        s2 = tf.nn.uniform_candidate_sampler(_TRUE, 2, 8, True, 1000)[0]
        return s1, s2

    ((s1, s2),) = _run(tfcompat, two_ops, backend)
    assert not np.array_equal(s1, s2)


def test_all_candidate_sampler_and_accidental_hits_parity():
    sampled = np.array([3, 9, 4, 2, 9], np.int64)

    def program(tf):
        all_out = tf.random.all_candidate_sampler(_TRUE, 2, 10, True, seed=1)
        hits = tf.nn.compute_accidental_hits(_TRUE, sampled, num_true=2)
        return [list(all_out), list(hits)]

    assert_parity(program)
    assert_same_graph_def(program)


@pytest.mark.parametrize("backend", _BACKENDS)
def test_learned_unigram_counts_persist_across_runs_as_tf(backend):
    def build(tf):
        true = tf.constant([[0], [0], [2]], tf.int64)
        return tf.nn.learned_unigram_candidate_sampler(true, 1, 2, False, 4, seed=2)[1]

    theirs = _run(tf1(), build, runs=3)
    ours = _run(tfcompat, build, backend, runs=3)
    np.testing.assert_array_equal(np.array(ours), np.array(theirs))


@pytest.mark.parametrize("backend", _BACKENDS)
def test_range_too_small_for_unique_sampling(backend):
    for tf, kwargs in ((tf1(), {}), (tfcompat, {"backend": backend})):
        with tf.Graph().as_default():
            out = tf.random.uniform_candidate_sampler(_TRUE, 2, 11, True, 10)
            with tf.Session(**kwargs) as sess:
                with pytest.raises(tf.errors.InvalidArgumentError, match="range is too small"):
                    sess.run(out)


def test_sampler_shape_errors_at_construction():
    for tf in (tf1(), tfcompat):
        with tf.Graph().as_default():
            with pytest.raises(ValueError, match="rank 2"):
                tf.random.uniform_candidate_sampler(np.zeros(3, np.int64), 1, 2, True, 5)
            with pytest.raises(ValueError, match="Dimension must be 3 but is 2"):
                tf.nn.compute_accidental_hits(_TRUE, np.array([1], np.int64), 3)


# ---------------------------------------------------------------------------------------------
# nce_loss / sampled_softmax_loss
# ---------------------------------------------------------------------------------------------
_R = np.random.default_rng(0)
_W = _R.standard_normal((20, 5)).astype(np.float32)
_B = _R.standard_normal(20).astype(np.float32)
_X = _R.standard_normal((4, 5)).astype(np.float32)
_LABELS = {1: np.array([[3], [0], [5], [19]], np.int64), 2: _TRUE * 2}
_SAMPLED = (
    np.array([3, 0, 8, 11, 2, 6], np.int64),
    np.linspace(0.2, 0.5, 4).astype(np.float32),
    np.linspace(0.1, 0.6, 6).astype(np.float32),
)


def _loss_program(loss, num_true, remove_hits, sharded, strategy, int32_labels=False,
                  with_grads=True):  # fmt: skip
    def program(tf):
        if sharded:
            w = [tf.Variable(_W[i::3] if strategy == "mod" else s, name=f"w{i}")
                 for i, s in enumerate(np.array_split(_W, 3))]  # fmt: skip
        else:
            w = tf.Variable(_W, name="w")
        b = tf.Variable(_B, name="b")
        x = tf.placeholder(tf.float32, [None, 5], name="x")
        labels = _LABELS[num_true].astype(np.int32 if int32_labels else np.int64)
        true_count = np.repeat(_SAMPLED[1][:, None], num_true, 1)
        sampled = (tf.constant(_SAMPLED[0]), tf.constant(true_count), tf.constant(_SAMPLED[2]))
        fn = getattr(tf.nn, loss)
        out = fn(w, b, labels, x, 6, 20, num_true=num_true, sampled_values=sampled,
                 remove_accidental_hits=remove_hits, partition_strategy=strategy)  # fmt: skip
        variables = w if isinstance(w, list) else [w]
        if not with_grads:
            return out, {x: _X}
        grads = tf.gradients(tf.reduce_sum(out * out), [x, b] + variables)
        return [out, [tf.convert_to_tensor(g) for g in grads]], {x: _X}

    return program


@pytest.mark.parametrize("loss", ["nce_loss", "sampled_softmax_loss"])
@pytest.mark.parametrize("num_true", [1, 2])
@pytest.mark.parametrize("remove_hits", [False, True])
def test_sampled_losses_parity(loss, num_true, remove_hits):
    program = _loss_program(loss, num_true, remove_hits, False, "mod")
    assert_parity(program, rtol=1e-5, atol=1e-5)
    assert_same_graph_def(program)


@pytest.mark.parametrize("loss", ["nce_loss", "sampled_softmax_loss"])
@pytest.mark.parametrize("strategy", ["mod", "div"])
def test_sampled_losses_with_sharded_weights_and_int32_labels(loss, strategy):
    program = _loss_program(loss, 2, True, True, strategy, int32_labels=True)
    assert_parity(program, rtol=1e-5, atol=1e-5)
    # The sharded lookup's Reshape gradient names a shape Const where TF has a Shape op
    # (embedding_ops' business): compare the forward graph only.
    assert_same_graph_def(
        _loss_program(loss, 2, True, True, strategy, int32_labels=True, with_grads=False)
    )


@pytest.mark.parametrize("backend", _BACKENDS)
def test_sampled_softmax_loss_with_its_own_sampler(backend):
    """Without sampled_values the log-uniform sampler runs inside the loss: the graph is
    TF's and the loss is finite and positive."""

    def program(tf):
        w = tf.constant(_W)
        b = tf.constant(_B)
        return tf.nn.sampled_softmax_loss(w, b, _LABELS[1], _X, 5, 20, seed=4)

    with tfcompat.Graph().as_default():
        loss = program(tfcompat)
        with tfcompat.Session(backend=backend) as sess:
            values = sess.run(loss)
    assert values.shape == (4,) and np.all(np.isfinite(values)) and np.all(values > 0)
    from tests.oracle import graph_def_nodes

    graphs = []
    for tf in (tfcompat, tf1()):
        with tf.Graph().as_default() as graph:
            program(tf)
            graphs.append(graph_def_nodes(graph))
    assert graphs[0] == graphs[1]


def test_unique_sampling_fallback_when_the_stream_runs_short():
    """Classes too rare to appear in the XLA rule's bounded stream are filled in by the
    Gumbel-top-k fallback: samples stay distinct and num_tries is the stream length."""
    unigrams = [1.0] * 4 + [1e-12] * 2
    ((sampled, true_count, _),) = _run(
        tfcompat,
        lambda tf: tf.random.fixed_unigram_candidate_sampler(
            [[0]], 1, 6, True, 6, unigrams=unigrams, seed=1
        ),
        "xla",
    )
    assert sorted(sampled.tolist()) == list(range(6))
    p0 = np.float32(1.0) / np.cumsum(np.array(unigrams, np.float32))[-1]
    np.testing.assert_allclose(true_count[0, 0], _formula(p0, 6, stream_length(6)), rtol=2e-6)
