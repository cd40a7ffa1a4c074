"""Micro-benchmark of the MaxPoolGrad lowerings on CPU (see ``lowering/conv.py``).

Times one jitted max-pool gradient two ways on a LeNet-like activation:
``select_and_scatter`` (what ``jax.vjp`` of a max ``reduce_window`` gives) and the per-offset
scheme that tfcompat's MaxPoolGrad lowering uses.

    python bench/pooling_grad.py [--repeats N]
"""

from __future__ import annotations

import argparse
import time

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from lowering import conv

CASES = {
    "2x2/2 VALID": ([1, 2, 2, 1], [1, 2, 2, 1], b"VALID"),
    "3x3/2 SAME": ([1, 3, 3, 1], [1, 2, 2, 1], b"SAME"),
}


def _timed(fn, args, repeats):
    jax.block_until_ready(fn(*args))
    start = time.perf_counter()
    for _ in range(repeats):
        jax.block_until_ready(fn(*args))
    return (time.perf_counter() - start) / repeats * 1e3


def _variants(ksize, strides, pads):
    """name -> f(x, grad) computing the input gradient of max pooling."""

    def reduce_window(v):
        return lax.reduce_window(v, -jnp.inf, lax.max, ksize, strides, pads)

    def scatter(x, g):
        _, vjp = jax.vjp(reduce_window, x)
        return vjp(g)[0]

    return {
        "select_and_scatter": scatter,
        "offsets": lambda x, g: conv.max_pool_grad(x, g, ksize, strides, pads),
    }


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=200)
    parser.add_argument("--shape", type=int, nargs=4, default=[64, 28, 28, 32])
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    x = jnp.asarray(rng.normal(size=args.shape).astype(np.float32))
    for name, (ksize, strides, padding) in CASES.items():
        pads = conv.window_pads(x.shape, ksize, strides, [1] * 4, padding)
        y = conv.max_pool(x, ksize, strides, pads)
        g = jnp.asarray(rng.normal(size=y.shape).astype(np.float32))
        variants = _variants(ksize, strides, pads)
        times = {k: _timed(jax.jit(f), (x, g), args.repeats) for k, f in variants.items()}
        base = times["select_and_scatter"]
        line = ", ".join(f"{k} {t:.3f} ms ({base / t:.1f}x)" for k, t in times.items())
        print(f"{name} {list(x.shape)}: {line}")


if __name__ == "__main__":
    main()
