"""Shared benchmark plumbing: run one legacy program under tfcompat and TF 2.21, plus its
hand-written JAX twin, in one process, and print steps/s with the ratios.

A *program* is ``build(tf) -> (fetches, make_feed)``: it builds the graph with the module it
is given and returns what to fetch each step and a function ``make_feed(step) -> feed_dict``.
"""

from __future__ import annotations

import os
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")


def with_tensorflow(modules: dict, name: str, tf) -> dict:
    """``modules`` with TensorFlow's module added under ``name`` when it is installed."""
    return {**modules, name: tf} if tf is not None else modules


def tensorflow_v1():
    """TF 2.21's ``tf.compat.v1`` in graph mode, or None where TensorFlow is not installed
    (an accelerator machine with JAX alone): the benches then compare tfcompat with the
    hand-written JAX twin only."""
    try:
        import tensorflow as tf
    except ImportError:
        print("(TensorFlow is not installed here: its rows are left out)")
        return None

    tf.compat.v1.disable_eager_execution()
    tf.compat.v1.disable_v2_behavior()
    return tf.compat.v1


def timed_loop(step, warmup, steps):
    """Runs ``step(i)`` ``warmup`` times untimed, then ``steps`` times; returns steps/s."""
    for i in range(warmup):
        step(i)
    start = time.perf_counter()
    for i in range(steps):
        step(i)
    return steps / (time.perf_counter() - start)


def run_graph_program(tf, build, warmup, steps, init=True):
    """(first-step latency in s, steps/s) of ``build`` under module ``tf``."""
    start = time.perf_counter()
    graph = tf.Graph()
    with graph.as_default():
        fetches, make_feed = build(tf)
        sess = tf.Session(graph=graph)
        if init:
            sess.run(tf.global_variables_initializer())
        sess.run(fetches, make_feed(0))
        first = time.perf_counter() - start
        rate = timed_loop(lambda i: sess.run(fetches, make_feed(i)), warmup, steps)
        sess.close()
    return first, rate


class GraphRunner:
    """One legacy program's Session, built and warmed, run in rounds of steps: for
    ``interleaved_rates``. ``first`` is the first-step latency (build, initialise, lower,
    compile, run). With ``train_op_only`` a round fetches only the first fetch (the train
    op) each step and reads one variable at its end, which waits for the last update (warm
    that mode up too with ``train_op_only_too``)."""

    def __init__(self, tf, build, warmup, train_op_only_too=False):
        start = time.perf_counter()
        self.graph = tf.Graph()
        with self.graph.as_default():
            self.fetches, self.make_feed = build(tf)
            self.sess = tf.Session(graph=self.graph)
            self.sess.run(tf.global_variables_initializer())
            self.sess.run(self.fetches, self.make_feed(0))
            self.first = time.perf_counter() - start
            self.weights = tf.trainable_variables()[0]
        self.step = 1
        for train_op_only in (False, True) if train_op_only_too else (False,):
            self.run(warmup, train_op_only)

    def run(self, steps, train_op_only=False):
        fetches = self.fetches[0] if train_op_only else self.fetches
        for _ in range(steps):
            self.sess.run(fetches, self.make_feed(self.step))
            self.step += 1
        if train_op_only:
            self.sess.run(self.weights)


def interleaved_rates(rounds: dict, repeats: int, steps: int) -> dict:
    """Median steps/s of each ``rounds[name](steps)`` (runs ``steps`` steps, returning once
    they are done). The runners take turns, ``repeats`` rounds each, so that load from other
    processes on a shared machine hits them alike and their ratios hold."""
    samples = {name: [] for name in rounds}
    for _ in range(repeats):
        for name, run in rounds.items():
            start = time.perf_counter()
            run(steps)
            samples[name].append(steps / (time.perf_counter() - start))
    return {name: sorted(rates)[len(rates) // 2] for name, rates in samples.items()}


def compare_interleaved(title, tf_modules, build, twin, warmup, steps, rounds=5):
    """Runs ``build`` under each of ``tf_modules`` (name -> module) and the hand-written
    ``twin`` (name, first-step s, ``run(steps)``) in turns; reports median steps/s."""
    runners = {
        name: GraphRunner(module, build, warmup)
        for name, module in tf_modules.items()
        if module is not None
    }
    twin_name, twin_first, twin_run = twin
    rounds_of = {name: runner.run for name, runner in runners.items()}
    rates = interleaved_rates({**rounds_of, twin_name: twin_run}, rounds, max(steps // rounds, 1))
    rows = [(name, runner.first, rates[name]) for name, runner in runners.items()]
    report(
        f"{title} (median of {rounds} interleaved rounds)",
        rows + [(twin_name, twin_first, rates[twin_name])],
    )


def report(title, rows, ours="tfcompat"):
    """Prints ``rows`` of (name, first-step s or None, steps/s) and the ratio of the row
    named ``ours`` to each."""
    print(f"\n== {title}")
    ours = dict((name, rate) for name, _, rate in rows).get(ours)
    print(f"  {'':22s} {'first step':>11s} {'steps/s':>11s} {'tfcompat /':>11s}")
    for name, first, rate in rows:
        first_text = f"{first * 1e3:9.0f}ms" if first is not None else f"{'-':>11s}"
        ratio = f"{ours / rate:10.2f}x" if ours and rate else f"{'-':>11s}"
        print(f"  {name:22s} {first_text} {rate:11.1f} {ratio}")
