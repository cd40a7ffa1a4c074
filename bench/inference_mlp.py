"""Inference throughput and per-run overhead: a legacy TF1 MLP forward pass on fed batches.

The same program runs under tfcompat and TensorFlow 2.21 (graph mode), next to its
hand-written JAX twin, in one process, taking turns in rounds (medians reported). Prints
steps/s, first-step latency and ratios (tfcompat / other: above 1 means tfcompat is faster),
plus the per-``Session.run`` overhead on a tiny cached graph.

    python -m bench.inference_mlp [--steps N] [--quick]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from bench.harness import compare_interleaved, run_graph_program, tensorflow_v1, with_tensorflow

SIZES = (784, 512, 512, 10)


def _weights():
    rng = np.random.default_rng(0)
    return [
        (rng.normal(0, 0.05, (a, b)).astype(np.float32), np.zeros(b, np.float32))
        for a, b in zip(SIZES[:-1], SIZES[1:])
    ]


def mlp_program(batch):
    weights = _weights()
    batches = [np.random.default_rng(i).random((batch, SIZES[0]), np.float32) for i in range(4)]

    def build(tf):
        x = tf.placeholder(tf.float32, [None, SIZES[0]], name="x")
        h = x
        for i, (w, b) in enumerate(weights):
            h = tf.matmul(h, tf.Variable(w, name=f"w{i}")) + tf.Variable(b, name=f"b{i}")
            if i < len(weights) - 1:
                h = tf.nn.relu(h)
        probs = tf.nn.softmax(h)
        return probs, lambda step: {x: batches[step % len(batches)]}

    return build, batches


def jax_mlp(batches, warmup):
    """(first-step s, ``run(steps)``) of the hand-written forward pass, warmed up."""
    import jax
    import jax.numpy as jnp

    params = [(jnp.asarray(w), jnp.asarray(b)) for w, b in _weights()]

    @jax.jit
    def forward(params, x):
        h = x
        for i, (w, b) in enumerate(params):
            h = h @ w + b
            if i < len(params) - 1:
                h = jax.nn.relu(h)
        return jax.nn.softmax(h)

    def run(steps):
        for i in range(steps):
            np.asarray(forward(params, batches[i % len(batches)]))

    start = time.perf_counter()
    run(1)
    first = time.perf_counter() - start
    run(warmup)
    return first, run


def tiny_program(tf):
    x = tf.placeholder(tf.float32, [4], name="x")
    v = tf.Variable(np.ones(4, np.float32), name="v")
    feed = np.ones(4, np.float32)
    return x + v, lambda step: {x: feed}


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--quick", action="store_true", help="few steps, for a smoke run")
    args = parser.parse_args()
    steps = 20 if args.quick else args.steps
    import tfcompat

    tf1 = tensorflow_v1()
    for batch in (32, 1024):
        build, batches = mlp_program(batch)
        n = steps if batch <= 32 else max(steps // 4, 5)
        compare_interleaved(
            f"MLP 784-512-512-10 forward, batch {batch}",
            with_tensorflow({"tfcompat": tfcompat}, "TensorFlow 2.21", tf1),
            build,
            ("JAX (hand-written)", *jax_mlp(batches, 5)),
            5,
            n,
        )

    n = 500 if args.quick else 5000
    overhead = {}
    for name, module in with_tensorflow({"tfcompat": tfcompat}, "TensorFlow 2.21", tf1).items():
        _, rate = run_graph_program(module, tiny_program, 100, n)
        overhead[name] = 1e6 / rate
    print("\n== Session.run overhead on a tiny cached graph (x + v, 4 floats)")
    for name, us in overhead.items():
        print(f"  {name:22s} {us:8.1f} us/run")
    if tf1 is not None:
        print(
            "  tfcompat / TensorFlow overhead: "
            f"{overhead['tfcompat'] / overhead['TensorFlow 2.21']:.2f}"
        )


if __name__ == "__main__":
    main()
