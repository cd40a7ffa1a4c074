"""Training throughput: the same legacy TF1 training programs under tfcompat and TensorFlow
2.21 (graph mode), next to hand-written JAX + optax twins, in one process.

Models (the issue's): an MLP 784-512-512-10 with Adam (batch 128); a LeNet-style CNN (two
5x5 conv + 2x2 max-pool, dense 256) with momentum (batch 64); an embedding-heavy model whose
Adagrad updates are sparse, at growing table sizes, against the same model with dense updates.
Prints steps/s, first-step latency (graph build + lower + compile) and ratios (tfcompat /
other: above 1 means tfcompat is faster). The MLP and CNN runners take turns in rounds and
report medians, so a shared machine's load hits them alike.

    python -m bench.training [--steps N] [--quick] [--only mlp,cnn,embedding]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from bench.harness import (
    compare_interleaved,
    report,
    run_graph_program,
    tensorflow_v1,
    with_tensorflow,
)


def _init(shape, seed, scale=0.05):
    return np.random.default_rng(seed).normal(0, scale, shape).astype(np.float32)


# ---------------------------------------------------------------------------------------------
# MLP + Adam
# ---------------------------------------------------------------------------------------------
MLP_SIZES = (784, 512, 512, 10)


def _mlp_data(batch):
    rng = np.random.default_rng(1)
    xs = [rng.random((batch, 784), np.float32) for _ in range(4)]
    ys = [rng.integers(0, 10, batch).astype(np.int64) for _ in range(4)]
    return xs, ys


def mlp_program(batch):
    xs, ys = _mlp_data(batch)

    def build(tf):
        x = tf.placeholder(tf.float32, [None, 784], name="x")
        y = tf.placeholder(tf.int64, [None], name="y")
        h = x
        for i, (a, b) in enumerate(zip(MLP_SIZES[:-1], MLP_SIZES[1:])):
            w = tf.Variable(_init((a, b), i), name=f"w{i}")
            bias = tf.Variable(np.zeros(b, np.float32), name=f"b{i}")
            h = tf.matmul(h, w) + bias
            if i < len(MLP_SIZES) - 2:
                h = tf.nn.relu(h)
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=h))
        train = tf.train.AdamOptimizer(1e-3).minimize(loss)
        return [train, loss], lambda step: {x: xs[step % 4], y: ys[step % 4]}

    return build


def mlp_jax(batch, warmup):
    import jax
    import jax.numpy as jnp
    import optax

    xs, ys = _mlp_data(batch)
    params = [
        (jnp.asarray(_init((a, b), i)), jnp.zeros(b, jnp.float32))
        for i, (a, b) in enumerate(zip(MLP_SIZES[:-1], MLP_SIZES[1:]))
    ]
    opt = optax.adam(1e-3)

    def loss_fn(params, x, y):
        h = x
        for i, (w, b) in enumerate(params):
            h = h @ w + b
            if i < len(params) - 1:
                h = jax.nn.relu(h)
        return optax.softmax_cross_entropy_with_integer_labels(h, y).mean()

    @jax.jit
    def step(params, state, x, y):
        loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
        updates, state = opt.update(grads, state, params)
        return optax.apply_updates(params, updates), state, loss

    return _run_jax(step, params, opt.init(params), xs, ys, warmup)


def _run_jax(step, params, state, xs, ys, warmup):
    """(first-step s, ``run(steps)``) of a jitted twin, warmed up."""
    holder = {"params": params, "state": state, "step": 0}

    def run(steps):
        for _ in range(steps):
            i = holder["step"]
            p, s, loss = step(holder["params"], holder["state"], xs[i % len(xs)], ys[i % len(ys)])
            holder["params"], holder["state"], holder["step"] = p, s, i + 1
            float(loss)

    start = time.perf_counter()
    run(1)
    first = time.perf_counter() - start
    run(warmup)
    return first, run


# ---------------------------------------------------------------------------------------------
# LeNet-style CNN + momentum
# ---------------------------------------------------------------------------------------------
def _cnn_data(batch):
    rng = np.random.default_rng(2)
    xs = [rng.random((batch, 28, 28, 1), np.float32) for _ in range(4)]
    ys = [rng.integers(0, 10, batch).astype(np.int64) for _ in range(4)]
    return xs, ys


CNN_SHAPES = {
    "c1": (5, 5, 1, 32),
    "c2": (5, 5, 32, 64),
    "d1": (7 * 7 * 64, 256),
    "d2": (256, 10),
}


def cnn_program(batch):
    xs, ys = _cnn_data(batch)

    def build(tf):
        x = tf.placeholder(tf.float32, [None, 28, 28, 1], name="x")
        y = tf.placeholder(tf.int64, [None], name="y")
        v = {k: tf.Variable(_init(s, i), name=k) for i, (k, s) in enumerate(CNN_SHAPES.items())}
        h = tf.nn.relu(tf.nn.conv2d(x, v["c1"], [1, 1, 1, 1], "SAME"))
        h = tf.nn.max_pool(h, [1, 2, 2, 1], [1, 2, 2, 1], "VALID")
        h = tf.nn.relu(tf.nn.conv2d(h, v["c2"], [1, 1, 1, 1], "SAME"))
        h = tf.nn.max_pool(h, [1, 2, 2, 1], [1, 2, 2, 1], "VALID")
        h = tf.reshape(h, [-1, 7 * 7 * 64])
        h = tf.nn.relu(tf.matmul(h, v["d1"]))
        logits = tf.matmul(h, v["d2"])
        loss = tf.reduce_mean(
            tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits)
        )
        train = tf.train.MomentumOptimizer(0.01, 0.9).minimize(loss)
        return [train, loss], lambda step: {x: xs[step % 4], y: ys[step % 4]}

    return build


def cnn_jax(batch, warmup):
    import jax
    import jax.numpy as jnp
    import optax

    xs, ys = _cnn_data(batch)
    params = {k: jnp.asarray(_init(s, i)) for i, (k, s) in enumerate(CNN_SHAPES.items())}
    opt = optax.sgd(0.01, momentum=0.9)

    def conv(x, w):
        return jax.lax.conv_general_dilated(
            x, w, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")
        )

    def pool(x):
        n, h, w, c = x.shape
        return x.reshape(n, h // 2, 2, w // 2, 2, c).max(axis=(2, 4))

    def loss_fn(p, x, y):
        h = pool(jax.nn.relu(conv(x, p["c1"])))
        h = pool(jax.nn.relu(conv(h, p["c2"])))
        h = jax.nn.relu(h.reshape(h.shape[0], -1) @ p["d1"])
        logits = h @ p["d2"]
        return optax.softmax_cross_entropy_with_integer_labels(logits, y).mean()

    @jax.jit
    def step(params, state, x, y):
        loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
        updates, state = opt.update(grads, state, params)
        return optax.apply_updates(params, updates), state, loss

    return _run_jax(step, params, opt.init(params), xs, ys, warmup)


# ---------------------------------------------------------------------------------------------
# Embedding-heavy model + Adagrad: sparse vs dense updates as the table grows
# ---------------------------------------------------------------------------------------------
EMBED_DIM, EMBED_BATCH, EMBED_IDS = 32, 256, 8


def _embed_data(vocab):
    rng = np.random.default_rng(3)
    ids = [rng.integers(0, vocab, (EMBED_BATCH, EMBED_IDS)).astype(np.int64) for _ in range(4)]
    ys = [rng.random((EMBED_BATCH, 1), np.float32) for _ in range(4)]
    return ids, ys


def embedding_program(vocab, dense_updates=False):
    ids_data, ys = _embed_data(vocab)

    def build(tf):
        ids = tf.placeholder(tf.int64, [None, EMBED_IDS], name="ids")
        y = tf.placeholder(tf.float32, [None, 1], name="y")
        table = tf.Variable(_init((vocab, EMBED_DIM), 0, 0.01), name="table")
        w = tf.Variable(_init((EMBED_DIM, 1), 1), name="w")
        if dense_updates:
            # Multiplying by a one-hot matrix gives the table a dense gradient.
            emb = tf.matmul(tf.reshape(tf.one_hot(ids, vocab), [-1, vocab]), table)
            emb = tf.reshape(emb, [-1, EMBED_IDS, EMBED_DIM])
        else:
            emb = tf.nn.embedding_lookup(table, ids)
        pred = tf.matmul(tf.reduce_mean(emb, axis=1), w)
        loss = tf.reduce_mean(tf.square(pred - y))
        train = tf.train.AdagradOptimizer(0.1).minimize(loss)
        return [train, loss], lambda step: {ids: ids_data[step % 4], y: ys[step % 4]}

    return build


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--only", default="mlp,cnn,embedding")
    args = parser.parse_args()
    steps = 10 if args.quick else args.steps
    only = set(args.only.split(","))
    import tfcompat

    tf1 = tensorflow_v1()
    modules = with_tensorflow({"tfcompat": tfcompat}, "TensorFlow 2.21", tf1)
    if "mlp" in only:
        compare_interleaved(
            "MLP 784-512-512-10, Adam, batch 128",
            modules,
            mlp_program(128),
            ("JAX + optax", *mlp_jax(128, 5)),
            5,
            steps,
        )
    if "cnn" in only:
        compare_interleaved(
            "LeNet-style CNN, momentum, batch 64",
            modules,
            cnn_program(64),
            ("JAX + optax", *cnn_jax(64, 3)),
            3,
            max(steps // 2, 5),
        )
    if "embedding" in only:
        for vocab in (10_000, 100_000, 1_000_000):
            rows = [
                (
                    "tfcompat sparse",
                    *run_graph_program(tfcompat, embedding_program(vocab), 3, steps),
                ),
            ]
            if tf1 is not None:
                theirs = run_graph_program(tf1, embedding_program(vocab), 3, steps)
                rows.append(("TensorFlow sparse", *theirs))
            if vocab <= 100_000:
                dense = embedding_program(vocab, dense_updates=True)
                rows.append(
                    ("tfcompat dense", *run_graph_program(tfcompat, dense, 2, max(steps // 5, 3)))
                )
            title = f"Embedding {vocab} x {EMBED_DIM}, Adagrad, batch {EMBED_BATCH}"
            report(title, rows, ours="tfcompat sparse")


if __name__ == "__main__":
    main()
