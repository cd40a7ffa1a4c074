"""Tensor slices as checkpoints record them (partitioned variables are saved in slices).

A slice spec string, as ``SaveV2``'s ``shape_and_slices`` holds it, is the full shape and a
per-dimension extent: ``"10 4 0,5:-"`` is rows 0..4 and every column of a 10x4 tensor
(``-`` is the whole dimension). A saved slice is stored under a key built with TF's
order-preserving encoding (``OrderedCode``) of the tensor name and the extents, so slice
keys sort before every plain name (their first byte is 0).
"""

from __future__ import annotations

import dataclasses

import numpy as np

from tfcompat.framework.proto import tensor_bundle_pb2

FULL = -1  # the length of a whole-dimension extent


@dataclasses.dataclass(frozen=True)
class Slice:
    """Per dimension a ``(start, length)`` extent; length ``FULL`` is the whole dimension."""

    extents: tuple

    @classmethod
    def full(cls, rank: int) -> Slice:
        return cls(((0, FULL),) * rank)

    @classmethod
    def parse(cls, text: str) -> Slice:
        """From ``"0,5:-"`` (ValueError for anything else)."""
        extents = []
        for part in text.split(":"):
            if part == "-":
                extents.append((0, FULL))
                continue
            start, length = (int(x) for x in part.split(","))
            if start < 0 or length < 0:
                raise ValueError(f"Expected a non-negative start and length: {text}")
            extents.append((start, length))
        return cls(tuple(extents))

    @classmethod
    def from_proto(cls, proto) -> Slice:
        return cls(
            tuple((e.start, e.length if e.WhichOneof("has_length") else FULL) for e in proto.extent)
        )

    def to_proto(self):
        proto = tensor_bundle_pb2.TensorSliceProto()
        for start, length in self.extents:
            extent = proto.extent.add()
            if length != FULL:  # a whole dimension is recorded as an empty extent
                extent.start = start
                extent.length = length
        return proto

    def bounds(self, full_shape) -> list[tuple[int, int]]:
        """``(start, stop)`` per dimension of a tensor of ``full_shape``."""
        return [
            (0, dim) if length == FULL else (start, start + length)
            for (start, length), dim in zip(self.extents, full_shape)
        ]

    def shape(self, full_shape) -> tuple:
        return tuple(stop - start for start, stop in self.bounds(full_shape))

    def is_full(self, full_shape) -> bool:
        return self.shape(full_shape) == tuple(full_shape)

    def __str__(self):
        return ":".join("-" if n == FULL else f"{s},{n}" for s, n in self.extents)


def parse_shape_and_slice(spec: str):
    """``"10 4 0,5:-"`` -> ``([10, 4], Slice)``; ``""`` -> ``(None, None)`` (a whole tensor)."""
    if not spec:
        return None, None
    parts = spec.split(" ")
    if len(parts) < 2:
        raise ValueError(f"Expected a shape and a slice in shape_and_slice: '{spec}'")
    try:
        shape = [int(d) for d in parts[:-1]]
        spec_slice = Slice.parse(parts[-1])
    except ValueError:
        raise ValueError(f"Invalid shape_and_slice specification: '{spec}'") from None
    if len(spec_slice.extents) != len(shape):
        raise ValueError(
            f"Expected the slice of shape_and_slice '{spec}' to have rank {len(shape)}"
        )
    for (_, stop), dim in zip(spec_slice.bounds(shape), shape):
        if stop > dim:
            raise ValueError(f"Slice '{spec}' does not fit in its full shape")
    return shape, spec_slice


# ---------------------------------------------------------------------------------------------
# TF's OrderedCode: keys of slice entries
# ---------------------------------------------------------------------------------------------
def _num_increasing(value: int) -> bytes:
    data = value.to_bytes((value.bit_length() + 7) // 8, "big")
    return bytes([len(data)]) + data


def _string(value: bytes) -> bytes:
    return value.replace(b"\xff", b"\xff\x00").replace(b"\x00", b"\x00\xff") + b"\x00\x01"


def _signed_num_increasing(value: int) -> bytes:
    """A signed int in 1 to 10 bytes whose leading 1-bits give the length; order-preserving."""
    magnitude = ~value if value < 0 else value
    # n bytes hold n leading length bits, a sign bit and 6n + ... magnitude bits.
    length = max(1, (magnitude.bit_length() + 7) // 7)
    bits = 8 * length
    raw = value & ((1 << bits) - 1)  # two's complement in ``length`` bytes
    header = ((1 << length) - 1) << (bits - length)  # ``length`` leading one bits
    return (raw ^ header).to_bytes(length, "big")


def slice_key(name: str, spec_slice: Slice) -> bytes:
    """The index key of the stored slice ``spec_slice`` of tensor ``name``."""
    out = _num_increasing(0) + _string(name.encode()) + _num_increasing(len(spec_slice.extents))
    for start, length in spec_slice.extents:
        out += _signed_num_increasing(start) + _signed_num_increasing(length)
    return out


def copy_intersection(full_shape, src_slice: Slice, src, dst_slice: Slice, dst: np.ndarray):
    """Copies the part of ``src`` (the values of ``src_slice``) that ``dst_slice`` covers
    into ``dst`` (the values of ``dst_slice``); returns the number of elements copied."""
    src_index, dst_index = [], []
    for (s0, s1), (d0, d1) in zip(src_slice.bounds(full_shape), dst_slice.bounds(full_shape)):
        lo, hi = max(s0, d0), min(s1, d1)
        if lo >= hi:
            return 0
        src_index.append(slice(lo - s0, hi - s0))
        dst_index.append(slice(lo - d0, hi - d0))
    dst[tuple(dst_index)] = src[tuple(src_index)]
    return int(np.prod([s.stop - s.start for s in dst_index]))
