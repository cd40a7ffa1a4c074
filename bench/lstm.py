"""LSTM language model training throughput: ``tf.nn.dynamic_rnn`` + ``LSTMCell`` under
tfcompat and TensorFlow 2.21 (graph mode), next to a hand-written JAX twin (``lax.scan``
+ optax Adam), in one process.

Model: embedding (vocab 1000, 128) -> LSTM (hidden 256) over 32 steps -> softmax over the
vocabulary, batch 32, Adam 1e-3. Prints steps/s, first-step latency (graph build + lower +
compile) and ratios (tfcompat / other: above 1 means tfcompat is faster).

    python -m bench.lstm [--steps N]
"""

from __future__ import annotations

import argparse

import numpy as np

from bench.harness import report, run_graph_program, tensorflow_v1, timed_loop

VOCAB, EMBED, HIDDEN, SEQ, BATCH = 1000, 128, 256, 32, 32
FORGET_BIAS = 1.0


def _data():
    rng = np.random.default_rng(0)
    return [rng.integers(0, VOCAB, (BATCH, SEQ + 1)).astype(np.int32) for _ in range(4)]


def _weights():
    """Initial values shared by all three: (embedding, kernel, bias, softmax_w, softmax_b)."""
    rng = np.random.default_rng(1)
    return (
        rng.uniform(-0.1, 0.1, (VOCAB, EMBED)).astype(np.float32),
        rng.uniform(-0.05, 0.05, (EMBED + HIDDEN, 4 * HIDDEN)).astype(np.float32),
        np.zeros(4 * HIDDEN, np.float32),
        rng.uniform(-0.05, 0.05, (HIDDEN, VOCAB)).astype(np.float32),
        np.zeros(VOCAB, np.float32),
    )


def lstm_program():
    batches = _data()
    embedding0, kernel0, _, softmax_w0, _ = _weights()

    def build(tf):
        ids = tf.placeholder(tf.int32, [BATCH, SEQ + 1], name="ids")
        embedding = tf.get_variable("embedding", initializer=embedding0)
        inputs = tf.nn.embedding_lookup(embedding, ids[:, :-1])
        cell = tf.nn.rnn_cell.LSTMCell(HIDDEN, initializer=tf.constant_initializer(kernel0))
        outputs, _ = tf.nn.dynamic_rnn(cell, inputs, dtype=tf.float32)
        softmax_w = tf.get_variable("softmax_w", initializer=softmax_w0)
        softmax_b = tf.get_variable("softmax_b", [VOCAB], initializer=tf.zeros_initializer())
        logits = tf.matmul(tf.reshape(outputs, [-1, HIDDEN]), softmax_w) + softmax_b
        loss = tf.reduce_mean(
            tf.nn.sparse_softmax_cross_entropy_with_logits(
                labels=tf.reshape(ids[:, 1:], [-1]), logits=logits
            )
        )
        train = tf.train.AdamOptimizer(1e-3).minimize(loss)
        return [train, loss], lambda step: {ids: batches[step % len(batches)]}

    return build


def lstm_jax(warmup, steps):
    """The same model in JAX: ``lax.scan`` over time, optax Adam."""
    import time

    import jax
    import jax.numpy as jnp
    import optax

    batches = [jnp.asarray(b) for b in _data()]
    params = tuple(jnp.asarray(w) for w in _weights())
    opt = optax.adam(1e-3)

    def loss_fn(params, ids):
        embedding, kernel, bias, softmax_w, softmax_b = params
        inputs = jnp.swapaxes(embedding[ids[:, :-1]], 0, 1)  # time-major

        def step(carry, x):
            c, h = carry
            gates = jnp.concatenate([x, h], 1) @ kernel + bias
            i, j, f, o = jnp.split(gates, 4, axis=1)
            c = jax.nn.sigmoid(f + FORGET_BIAS) * c + jax.nn.sigmoid(i) * jnp.tanh(j)
            h = jax.nn.sigmoid(o) * jnp.tanh(c)
            return (c, h), h

        zeros = jnp.zeros((BATCH, HIDDEN), jnp.float32)
        _, outputs = jax.lax.scan(step, (zeros, zeros), inputs)
        logits = jnp.swapaxes(outputs, 0, 1).reshape(-1, HIDDEN) @ softmax_w + softmax_b
        labels = ids[:, 1:].reshape(-1)
        return optax.softmax_cross_entropy_with_integer_labels(logits, labels).mean()

    @jax.jit
    def train_step(params, state, ids):
        loss, grads = jax.value_and_grad(loss_fn)(params, ids)
        updates, state = opt.update(grads, state, params)
        return optax.apply_updates(params, updates), state, loss

    holder = {"params": params, "state": opt.init(params)}

    def one(i):
        p, s, loss = train_step(holder["params"], holder["state"], batches[i % len(batches)])
        holder["params"], holder["state"] = p, s
        return float(loss)

    start = time.perf_counter()
    one(0)
    first = time.perf_counter() - start
    return first, timed_loop(one, warmup, steps)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=30)
    args = parser.parse_args()
    import tfcompat

    tf1 = tensorflow_v1()
    build = lstm_program()
    report(
        f"LSTM LM (dynamic_rnn), vocab {VOCAB}, hidden {HIDDEN}, seq {SEQ}, batch {BATCH}, Adam",
        [
            ("tfcompat", *run_graph_program(tfcompat, build, 3, args.steps)),
            *(
                [("TensorFlow 2.21", *run_graph_program(tf1, build, 3, args.steps))]
                if tf1 is not None
                else []
            ),
            ("JAX lax.scan + optax", *lstm_jax(3, args.steps)),
        ],
    )


if __name__ == "__main__":
    main()
