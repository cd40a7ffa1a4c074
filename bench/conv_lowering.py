"""Micro-benchmark of the convolution lowerings on CPU (see ``lowering/conv.py``).

On the LeNet bench's shapes (batch 64: 28x28x1 -> 32 and 14x14x32 -> 64, 5x5 SAME), times
each jitted piece of the training step alone: the forward convolution, the input gradient,
the filter gradient as one convolution and summed over batch chunks of several sizes, the
forward convolution and filter gradient as im2col (patches from
``lax.conv_general_dilated_patches``, then one matmul), ReLU + 2x2/2 max pooling by
``reduce_window`` and by strided slices, and the max-pool gradient by window offsets and by
the disjoint-window form. The lowering's choice is marked ``*``. Variants of one case run
interleaved, in rounds, so that load from other processes hits them alike; prints
min / median ms.

    python bench/conv_lowering.py [--rounds N] [--repeats N]
"""

from __future__ import annotations

import argparse
import time

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from lowering import compile as compile_lib
from lowering import conv

# (batch, size, in channels, out channels, window)
CONV_CASES = {"conv1": (64, 28, 1, 32, 5), "conv2": (64, 14, 32, 64, 5)}
POOL_CASES = {"pool1": (64, 28, 28, 32), "pool2": (64, 14, 14, 64)}
CHUNK_SIZES = (32, 16, 8, 4)


def _times(fn, args, repeats):
    out = []
    for _ in range(repeats):
        start = time.perf_counter()
        jax.block_until_ready(fn(*args))
        out.append(time.perf_counter() - start)
    return out


def _compare(title, variants, args, rounds, repeats):
    """Checks that the variants agree, then times them interleaved; prints min/median.
    Each is compiled with the options tfcompat's device steps use."""
    options = compile_lib.CPU_COMPILER_OPTIONS if jax.default_backend() == "cpu" else None
    jitted = {name: jax.jit(fn, compiler_options=options) for name, fn in variants.items()}
    values = {name: np.asarray(fn(*args)) for name, fn in jitted.items()}
    first = next(iter(values.values()))
    for name, value in values.items():
        scale = np.abs(first).max()
        np.testing.assert_allclose(value, first, rtol=2e-4, atol=2e-4 * scale, err_msg=name)
    samples = {name: [] for name in jitted}
    for _ in range(rounds):
        for name, fn in jitted.items():
            samples[name] += _times(fn, args, repeats)
    cells = [f"{name} {min(t) * 1e3:.1f}/{np.median(t) * 1e3:.1f}" for name, t in samples.items()]
    print(f"{title}: " + "  ".join(cells), flush=True)


def _conv_variants(batch, size, cin, cout, k):
    pad = (k - 1) // 2
    pads = [(pad, k - 1 - pad)] * 2

    def f(x, w):
        return lax.conv_general_dilated(
            x, w, (1, 1), pads, dimension_numbers=("NHWC", "HWIO", "NHWC")
        )

    w_shape = (k, k, cin, cout)
    w_aval = jax.ShapeDtypeStruct(w_shape, jnp.float32)

    def filter_grad(x, g):
        return jax.linear_transpose(lambda w: f(x, w), w_aval)(g)[0]

    def chunked(n):
        def run(x, g):
            parts = [filter_grad(x[i : i + n], g[i : i + n]) for i in range(0, batch, n)]
            return sum(parts[1:], parts[0])

        return run

    def input_grad(w, g):
        x_aval = jax.ShapeDtypeStruct((batch, size, size, cin), jnp.float32)
        return jax.linear_transpose(lambda x: f(x, w), x_aval)(g)[0]

    def patches(x):  # [batch * size * size, cin * k * k], features ordered (cin, kh, kw)
        p = lax.conv_general_dilated_patches(
            x, (k, k), (1, 1), pads, dimension_numbers=("NHWC", "HWIO", "NHWC")
        )
        return p.reshape(-1, cin * k * k)

    def forward_im2col(x, w):
        w_rows = jnp.transpose(w, (2, 0, 1, 3)).reshape(cin * k * k, cout)
        return (patches(x) @ w_rows).reshape(batch, size, size, cout)

    def filter_grad_im2col(x, g):
        dw = patches(x).T @ g.reshape(-1, cout)
        return jnp.transpose(dw.reshape(cin, k, k, cout), (1, 2, 0, 3))

    filters = {"whole*": filter_grad}
    for n in CHUNK_SIZES:
        filters[f"chunks of {n}"] = chunked(n)
    filters["im2col"] = filter_grad_im2col
    return {"conv*": f, "im2col": forward_im2col}, input_grad, filters


def _pool_variants(window, pads):
    """ReLU then max pooling (as in the CNN) by ``reduce_window`` and by the lowering's
    strided slices per window offset."""

    def relu(x):
        return jnp.maximum(x, 0.0)

    def reduce_window(x):
        return lax.reduce_window(relu(x), -jnp.inf, lax.max, window, window, pads)

    return {
        "reduce_window": reduce_window,
        "offsets*": lambda x: conv.max_pool(relu(x), window, window, pads),
    }


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=8)
    args = parser.parse_args()
    rng = np.random.default_rng(0)

    def sample(*shape):
        return jnp.asarray(rng.normal(size=shape).astype(np.float32))

    timing = (args.rounds, args.repeats)
    for name, (batch, size, cin, cout, k) in CONV_CASES.items():
        x, w = sample(batch, size, size, cin), sample(k, k, cin, cout)
        g = sample(batch, size, size, cout)
        forward, input_grad, filters = _conv_variants(batch, size, cin, cout, k)
        _compare(f"{name} forward", forward, (x, w), *timing)
        _compare(f"{name} input grad", {"conv": input_grad}, (w, g), *timing)
        _compare(f"{name} filter grad", filters, (x, g), *timing)
    window, pads = [1, 2, 2, 1], [(0, 0)] * 4
    for name, shape in POOL_CASES.items():
        x = sample(*shape)
        g = sample(*conv.max_pool(x, window, window, pads).shape)
        _compare(f"{name} relu + max-pool", _pool_variants(window, pads), (x,), *timing)
        variants = {
            "offsets": lambda x, g: conv._first_max_general(x, g, window, window, pads),
            "disjoint*": lambda x, g: conv._first_max_tiled(x, g, window, window, pads),
        }
        _compare(f"{name} max-pool grad", variants, (x, g), *timing)


if __name__ == "__main__":
    main()
