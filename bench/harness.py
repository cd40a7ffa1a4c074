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


def tensorflow_v1():
    import tensorflow as tf

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
