"""A batch-vectorised reader of serialized ``tf.train.Example`` records.

Decoding records one by one with the protobuf runtime is fast, but reading the result costs
a Python object per feature per record. This reader instead walks the protobuf wire format
of the whole batch at once in numpy: at each nesting level (Example -> Features -> map
entry -> Feature -> value list) one numpy step reads the next field of every message still
open, so the Python loop runs once per field *position* (about the number of features per
record), not once per field. Values are then gathered with index arithmetic: packed floats
by a byte view, packed varints by ``bitwise_or.reduceat``, strings by slicing.

It reads the encoding TF and protobuf writers produce (length-delimited fields, packed
numeric lists, one key and at most one value per map entry, one list per Feature). Any
other valid encoding, and any malformed record, raises ``NotCanonical``: the caller then
parses the batch with the protobuf runtime, which handles every case and its errors.
"""

from __future__ import annotations

import numpy as np

# Feature oneof field numbers -> the codes used in ``Batch.column``'s ``kinds``.
NO_LIST, BYTES, FLOAT, INT64 = 0, 1, 2, 3
MISSING = -1
_PAD = 16  # zero bytes after the buffer, so a varint read near the end stays in bounds


def _powers(width):
    """1, P, P^2, ... modulo 2^64 for the key hash."""
    steps = np.full(max(width - 1, 0), 1099511628211, np.uint64)
    return np.concatenate([np.ones(min(width, 1), np.uint64), np.cumprod(steps, dtype=np.uint64)])


class NotCanonical(Exception):
    """The batch holds an encoding this reader does not handle (or a malformed record)."""


def _varint(buf, pos):
    """Reads one varint at each of ``pos``: (values as uint64, positions after them)."""
    value = np.zeros(len(pos), np.uint64)
    cur = pos.copy()
    open_ = np.ones(len(pos), bool)
    for i in range(10):
        byte = buf[cur].astype(np.uint64)
        value |= np.where(open_, (byte & np.uint64(0x7F)) << np.uint64(7 * i), np.uint64(0))
        cur += open_
        open_ &= byte >= 0x80
        if not open_.any():
            return value, cur
    raise NotCanonical("varint longer than 10 bytes")


def _fields(buf, starts, ends):
    """Every field of the messages at ``[starts, ends)``, which must all be length-delimited:
    (owner message index, field number, payload start, payload end), grouped by owner in
    order of appearance."""
    owners, numbers, begins, finishes, steps = [], [], [], [], []
    active = np.flatnonzero(starts < ends)
    pos = starts.astype(np.int64).copy()
    step = 0
    while active.size:
        tag, p = _varint(buf, pos[active])
        if np.any(tag & np.uint64(7) != 2):
            raise NotCanonical("a field that is not length-delimited")
        length, p = _varint(buf, p)
        end = p + length.astype(np.int64)
        if np.any(end > ends[active]) or np.any(length > np.uint64(1 << 40)):
            raise NotCanonical("a field runs past its message")
        owners.append(active)
        numbers.append((tag >> np.uint64(3)).astype(np.int64))
        begins.append(p)
        finishes.append(end)
        steps.append(np.full(active.size, step))
        pos[active] = end
        active = active[end < ends[active]]
        step += 1
    if not owners:
        empty = np.zeros(0, np.int64)
        return empty, empty, empty, empty
    owner, number, begin, finish, order = (
        np.concatenate(x) for x in (owners, numbers, begins, finishes, steps)
    )
    sort = np.lexsort((order, owner))
    return owner[sort], number[sort], begin[sort], finish[sort]


def _gather_ranges(buf, begin, end):
    """The bytes of all ranges ``[begin, end)`` concatenated, and each range's length."""
    lengths = end - begin
    offsets = np.cumsum(lengths) - lengths
    index = np.arange(int(lengths.sum()), dtype=np.int64) + np.repeat(begin - offsets, lengths)
    return buf[index], lengths


class Batch:
    """The map entries of a batch of serialized Examples, found by one vectorised walk."""

    def __init__(self, records):
        self.raw = b"".join(records)
        sizes = np.fromiter(map(len, records), np.int64, count=len(records))
        self.size = len(records)
        self.buf = np.frombuffer(self.raw + b"\0" * _PAD, np.uint8)
        ends = np.cumsum(sizes)
        owner, number, begin, end = _fields(self.buf, ends - sizes, ends)
        if np.any(number != 1):
            raise NotCanonical("an Example field other than features")
        # Features (possibly several per record, which merge) -> map entries.
        f_owner, number, begin, end = _fields(self.buf, begin, end)
        if np.any(number != 1):
            raise NotCanonical("a Features field other than the map")
        self.record = owner[f_owner]
        # Map entry -> exactly one key and at most one value (a Feature).
        e_owner, number, begin, end = _fields(self.buf, begin, end)
        is_key = number == 1
        n = len(self.record)
        keys = np.bincount(e_owner[is_key], minlength=n)
        values = np.bincount(e_owner[number == 2], minlength=n)
        if np.any(keys != 1) or np.any(values > 1) or np.any((number != 1) & (number != 2)):
            raise NotCanonical("a map entry without exactly one key")
        self.key_begin = begin[is_key]
        self.key_end = end[is_key]
        self.key_length = self.key_end - self.key_begin
        value_begin = np.zeros(n, np.int64)
        value_end = np.zeros(n, np.int64)
        value_begin[e_owner[~is_key]] = begin[~is_key]
        value_end[e_owner[~is_key]] = end[~is_key]
        # Feature -> at most one list: its kind and payload.
        l_owner, number, begin, end = _fields(self.buf, value_begin, value_end)
        if np.any(np.bincount(l_owner, minlength=n) > 1) or np.any((number < 1) | (number > 3)):
            raise NotCanonical("a Feature with several lists")
        self.kind = np.full(n, NO_LIST, np.int64)
        self.kind[l_owner] = number
        self.list_begin = np.zeros(n, np.int64)
        self.list_end = np.zeros(n, np.int64)
        self.list_begin[l_owner] = begin
        self.list_end[l_owner] = end
        self._hashes = None

    def _key_hashes(self):
        """A 64-bit polynomial hash of every entry's key, computed once for the batch (keys
        are matched by hash and length, then checked byte by byte)."""
        if self._hashes is None:
            lengths = self.key_length
            width = int(lengths.max()) if len(lengths) else 0
            column = np.arange(width)
            index = np.minimum(self.key_begin[:, None] + column, len(self.buf) - 1)
            data = np.where(column < lengths[:, None], self.buf[index].astype(np.uint64) + 1, 0)
            self._hashes = data.astype(np.uint64) @ _powers(width) if width else lengths * 0
            self._hashes = self._hashes.astype(np.uint64)
        return self._hashes

    def _entries_for(self, key: bytes):
        """Per record, the index of its (last) map entry for ``key``, or -1."""
        wanted = np.frombuffer(key, np.uint8).astype(np.uint64) + 1
        target = wanted @ _powers(len(key)) if len(key) else np.uint64(0)
        candidates = np.flatnonzero((self._key_hashes() == target) & (self.key_length == len(key)))
        if len(key) and candidates.size:
            index = self.key_begin[candidates, None] + np.arange(len(key))
            same = np.all(self.buf[index] == np.frombuffer(key, np.uint8), axis=1)
            candidates = candidates[same]
        entry = np.full(self.size, -1, np.int64)
        if candidates.size:
            records = self.record[candidates]
            last = np.append(records[1:] != records[:-1], True)  # a later duplicate wins
            entry[records[last]] = candidates[last]
        return entry

    def column(self, key: bytes, kind: int):
        """``key`` across the batch: per-record kind codes (MISSING where absent), and the
        value counts and flattened values of the records whose list is of ``kind``."""
        entry = self._entries_for(key)
        found = entry >= 0
        kinds = np.full(self.size, MISSING, np.int64)
        kinds[found] = self.kind[entry[found]]
        rows = np.flatnonzero(kinds == kind)
        chosen = entry[rows]
        lengths = np.zeros(self.size, np.int64)
        reader = {BYTES: self._bytes, FLOAT: self._floats, INT64: self._int64s}[kind]
        counts, values = reader(self.list_begin[chosen], self.list_end[chosen])
        lengths[rows] = counts
        return kinds, lengths, values

    def _packed(self, begin, end):
        """The payload of each numeric list's packed field (empty lists have none)."""
        owner, number, p, e = _fields(self.buf, begin, end)
        if np.any(number != 1) or np.any(np.bincount(owner, minlength=len(begin)) > 1):
            raise NotCanonical("an unpacked or split numeric list")
        payload_begin = np.zeros(len(begin), np.int64)
        payload_end = np.zeros(len(begin), np.int64)
        payload_begin[owner], payload_end[owner] = p, e
        return payload_begin, payload_end

    def _floats(self, begin, end):
        data, nbytes = _gather_ranges(self.buf, *self._packed(begin, end))
        if np.any(nbytes % 4):
            raise NotCanonical("a float list whose size is not a multiple of 4")
        return nbytes // 4, data.view("<f4").astype(np.float32)

    def _int64s(self, begin, end):
        data, nbytes = _gather_ranges(self.buf, *self._packed(begin, end))
        last = data < 0x80
        ends_at = np.cumsum(nbytes) - 1
        if np.any(~last[ends_at[nbytes > 0]]):
            raise NotCanonical("a truncated varint")
        before = np.concatenate([[0], np.cumsum(last)])
        counts = before[np.cumsum(nbytes)] - before[np.cumsum(nbytes) - nbytes]
        starts = np.flatnonzero(np.concatenate([[True], last[:-1]]))[: int(last.sum())]
        if not len(starts):
            return counts, np.zeros(0, np.int64)
        position = np.arange(len(data)) - np.repeat(starts, np.diff(np.append(starts, len(data))))
        if np.any(position > 9):
            raise NotCanonical("varint longer than 10 bytes")
        shifted = (data & 0x7F).astype(np.uint64) << (7 * position).astype(np.uint64)
        return counts, np.bitwise_or.reduceat(shifted, starts).view(np.int64)

    def _bytes(self, begin, end):
        owner, number, p, e = _fields(self.buf, begin, end)
        if np.any(number != 1):
            raise NotCanonical("a bytes list field other than value")
        raw = self.raw
        values = np.empty(len(p), dtype=object)
        values[:] = [raw[s:t] for s, t in zip(p.tolist(), e.tolist())]
        return np.bincount(owner, minlength=len(begin)), values
