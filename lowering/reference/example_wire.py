"""A batch-vectorised reader of serialized ``tf.train.Example`` records.

Decoding records one by one with the protobuf runtime is fast, but reading the result costs
a Python object per feature per record. This reader instead walks the protobuf wire format
of the whole batch at once in numpy: at each nesting level (Example -> Features -> map
entry -> Feature -> value list) one numpy step reads the next field of every message still
open, so the Python loop runs once per field *position* (about the number of features per
record), not once per field.

The requested columns are then read together, in a number of numpy passes that does not
grow with the number of keys: every map entry's key is hashed once (8 bytes at a time) and
looked up in a table of all requested keys, and the lists of all matched entries of one kind
are decoded in one pass (packed floats by an unaligned float view, packed varints by
``bitwise_or.reduceat``, strings as rows of 8-byte words viewed as fixed-width strings),
then split per column.

Records that differ only in their values (one length, the same tags, lengths and keys:
fixed-shape features) skip the walk: the entries of one record, remembered as a
``_Layout``, are placed at every record's offset once the batch's bytes outside the
values are checked against it.

It reads the encoding TF and protobuf writers produce (length-delimited fields, packed
numeric lists, a key then at most one value per map entry, one list per Feature). Any
other valid encoding, and any malformed record, raises ``NotCanonical``: the caller then
parses the batch with the protobuf runtime, which handles every case and its errors.
"""

from __future__ import annotations

import numpy as np

# Feature oneof field numbers -> the codes used in ``Batch.columns``'s ``kinds``.
NO_LIST, BYTES, FLOAT, INT64 = 0, 1, 2, 3
MISSING = -1
_PAD = 16  # zero bytes after the buffer, so a varint read near the end stays in bounds
_HASH_BASE = 1099511628211
_MIX = 0xBF58476D1CE4E5B9
# A string column is built from rows of words padded to its longest value while the padding
# stays below this many bytes per value on average (else each value is sliced out).
_MAX_PADDING = 64
# _WORD_MASKS[n]: the low n bytes of a little-endian 8-byte word.
_WORD_MASKS = np.array([(1 << (8 * n)) - 1 for n in range(9)], np.uint64)
_MAP_KEY, _MAP_VALUE = 0x0A, 0x12  # map entry tags: key (field 1), value (field 2)
_FIRST_FIELD = 0x0A  # field 1, length-delimited
# A Feature's list tag byte -> its kind code (NO_LIST for any other byte).
_LIST_KIND = np.zeros(256, np.int64)
_LIST_KIND[[0x0A, 0x12, 0x1A]] = BYTES, FLOAT, INT64


class NotCanonical(Exception):
    """The batch holds an encoding this reader does not handle (or a malformed record)."""


def _lengths(buf, pos):
    """Reads one length varint at each of ``pos``: (values, positions after them).
    Lengths are almost always one byte, so only the longer ones go through the byte loop;
    five bytes (35 bits) exceed any message."""
    first = buf[pos]
    long_ = first >= 0x80
    if not long_.any():
        return first, pos + 1
    value = first.astype(np.int64)
    after = pos + 1
    more = np.flatnonzero(long_)
    value[more] &= 0x7F
    for shift in range(7, 35, 7):
        byte = buf[after[more]].astype(np.int64)
        value[more] |= (byte & 0x7F) << shift
        after[more] += 1
        more = more[byte >= 0x80]
        if not more.size:
            return value, after
    raise NotCanonical("a length varint longer than 5 bytes")


def _field_at(buf, pos, limit):
    """The length-delimited field starting at each of ``pos`` (field numbers below 16 have a
    one-byte tag): (tag byte, payload start, payload end); it must end by ``limit``."""
    tag = buf[pos]
    length, begin = _lengths(buf, pos + 1)
    end = begin + length
    if (end > limit).any():
        raise NotCanonical("a field runs past its message")
    return tag, begin, end


def _where(mask):
    """The indices where ``mask`` holds: a full slice where it holds everywhere (the common
    case, which then needs no gather)."""
    return slice(None) if mask.all() else np.flatnonzero(mask)


def _fields(buf, starts, ends, grouped=True):
    """Every field of the messages at ``[starts, ends)``, which must all be field 1 and
    length-delimited: (owner message index, payload start, payload end). The Python loop
    runs once per field position. Fields come grouped by owner in order of appearance, or,
    unless ``grouped``, position by position (each owner's fields still in order)."""
    owners, tags, begins, finishes, limits = [], [], [], [], []
    pos = np.asarray(starts, np.int64)
    limit = np.asarray(ends, np.int64)
    active = np.flatnonzero(pos < limit)
    pos, limit = pos[active], limit[active]
    # The loop body is kept to a few numpy calls (it runs once per field position, on
    # arrays of one element per message): tags and bounds are checked once, after it. A
    # field running past its message ends the message's walk (``end < limit`` fails), so
    # no read leaves the buffer before the check raises.
    while active.size:
        first = buf[pos + 1]  # the length's first byte (tags of fields 1-15 take one)
        if first.max() < 0x80:
            begin = pos + 2
            end = begin + first
        else:
            length, begin = _lengths(buf, pos + 1)
            end = begin + length
        owners.append(active)
        tags.append(pos)
        begins.append(begin)
        finishes.append(end)
        limits.append(limit)
        open_ = end < limit
        if open_.all():  # typical until the last position: no compaction
            pos = end
        else:
            active, pos, limit = active[open_], end[open_], limit[open_]
    if not owners:
        empty = np.zeros(0, np.int64)
        return empty, empty, empty
    owner, begin, finish = (np.concatenate(x) for x in (owners, begins, finishes))
    if (finish > np.concatenate(limits)).any():
        raise NotCanonical("a field runs past its message")
    if (buf[np.concatenate(tags)] != _FIRST_FIELD).any():
        raise NotCanonical("a field other than field 1, or not length-delimited")
    if len(owners) == 1:  # at most one field per message: already grouped
        return owner, begin, finish
    if not grouped:
        return owner, begin, finish
    # Owners ascend within each position: a stable sort by owner keeps each owner's fields
    # in order of appearance.
    sort = np.argsort(owner, kind="stable")
    return owner[sort], begin[sort], finish[sort]


def _range_positions(begin, end):
    """The positions of all ranges ``[begin, end)``, concatenated, and each range's
    length."""
    lengths = end - begin
    offsets = np.cumsum(lengths) - lengths
    index = np.arange(int(lengths.sum()), dtype=np.int64) + np.repeat(begin - offsets, lengths)
    return index, lengths


def _gather_ranges(buf, begin, end):
    """The bytes of all ranges ``[begin, end)`` concatenated, and each range's length."""
    index, lengths = _range_positions(begin, end)
    return buf[index], lengths


def _unaligned(padded, dtype):
    """``padded`` (bytes) read as ``dtype`` values starting at every byte offset."""
    size = np.dtype(dtype).itemsize
    return np.ndarray((len(padded) - size + 1,), dtype, buffer=padded, strides=(1,))


def _word(words, begin, length, index):
    """The ``index``-th 8-byte little-endian word of each key at ``begin``, zero beyond
    the key's ``length``."""
    remaining = np.clip(length - 8 * index, 0, 8)
    return words[begin + 8 * index] & _WORD_MASKS[remaining]


def _key_hashes(words, begin, length):
    """A 64-bit hash of each key: polynomial in its 8-byte words and its length, then
    mixed (the Python loop runs once per 8 bytes of the longest key, on the keys that
    long)."""
    hashes = _word(words, begin, length, 0) * np.uint64(_HASH_BASE) + length.astype(np.uint64)
    longer = np.flatnonzero(length > 8)
    index = 1
    while longer.size:
        word = _word(words, begin[longer], length[longer], index)
        hashes[longer] = hashes[longer] * np.uint64(_HASH_BASE) + word
        index += 1
        longer = longer[length[longer] > 8 * index]
    # Mix the bits (xor-shifts and an odd multiplier: still one-to-one), so that the top
    # bits, which index the table of requested keys, depend on every byte.
    hashes ^= hashes >> np.uint64(29)
    hashes *= np.uint64(_MIX)
    hashes ^= hashes >> np.uint64(32)
    return hashes


def _same_keys(words, begin, other_words, other_begin, length):
    """Whether each key at ``begin`` equals the one at ``other_begin``, both ``length`` long
    and of equal hash. Up to 8 bytes the hash (word * P + length, P odd, then mixed by
    one-to-one steps) is one-to-one, so only longer keys are compared, 8 bytes at a time."""
    same = np.ones(len(begin), bool)
    check = np.flatnonzero(length > 8)
    index = 0
    while check.size:
        a = _word(words, begin[check], length[check], index)
        b = _word(other_words, other_begin[check], length[check], index)
        same[check[a != b]] = False
        index += 1
        check = check[length[check] > 8 * index]
    return same


class _HashTable:
    """The requested keys by hash: a table indexed by the hash's top bits, with no two
    keys in one slot (more bits are tried until none share one)."""

    def __init__(self, hashes, lengths):
        count = len(hashes)
        for bits in range(max(count * 4, 16).bit_length(), 64):
            slots = hashes >> np.uint64(64 - bits)
            if len(np.unique(slots)) == count:
                break
        else:
            raise NotCanonical("two requested keys with the same hash")  # let protobuf match
        self.shift = np.uint64(64 - bits)
        # Slot -> key index; empty slots hold ``count``, a key of length -1 (never matches).
        self.key = np.full(1 << bits, count, np.int64)
        self.key[slots.astype(np.int64)] = np.arange(count)
        self.hashes = np.append(hashes, np.uint64(0))
        self.lengths = np.append(lengths, -1)

    def find(self, hashes, lengths):
        """(indices of the ``hashes`` of a requested key and that key's length, the key's
        index for each)."""
        key = self.key[(hashes >> self.shift).astype(np.int64)]
        found = np.flatnonzero((self.hashes[key] == hashes) & (self.lengths[key] == lengths))
        return found, key[found]


# The requested keys' words, bounds and hash table, per tuple of keys: a parse op asks
# for the same keys every step.
_REQUESTED: dict = {}
_REQUESTED_MAX = 64


def _requested(keys: tuple):
    found = _REQUESTED.get(keys)
    if found is None:
        wanted = b"".join(keys) + b"\0" * _PAD
        w_words = _unaligned(wanted, "<u8")  # a view: keeps ``wanted`` alive
        w_length = np.fromiter(map(len, keys), np.int64, count=len(keys))
        w_begin = np.cumsum(w_length) - w_length
        table = _HashTable(_key_hashes(w_words, w_begin, w_length), w_length)
        if len(_REQUESTED) >= _REQUESTED_MAX:
            _REQUESTED.clear()
        found = _REQUESTED[keys] = (w_words, w_begin, w_length, table)
    return found


class Batch:
    """The map entries of a batch of serialized Examples, found by one vectorised walk, or
    by a known record layout (see ``_Layout``)."""

    def __init__(self, records, layouts=True):
        self.raw = b"".join(records) + b"\0" * _PAD
        sizes = np.fromiter(map(len, records), np.int64, count=len(records))
        self.size = len(records)
        self.buf = np.frombuffer(self.raw, np.uint8)
        self.words = _unaligned(self.raw, "<u8")
        self.layout = None
        if layouts and self.size >= 2 and (sizes == sizes[0]).all():
            self.layout = _layout_of(records[0], self.buf[: self.size * int(sizes[0])])
            if self.layout is not None:
                self._entries_from_layout()
                return
        ends = np.cumsum(sizes)
        # Example -> Features (several per record merge).
        owner, begin, end = _fields(self.buf, ends - sizes, ends)
        merged = np.any(owner[1:] == owner[:-1])
        # Features -> map entries; the entry order per record is the order of appearance
        # (a later duplicate key wins).
        f_owner, begin, end = _fields(self.buf, begin, end, grouped=bool(merged))
        self.record = owner[f_owner]
        self._read_entries(begin, end)

    def _read_entries(self, begin, end):
        """Map entry -> its key, then at most one value (a Feature) -> at most one list:
        the entries' key ranges, and their lists' kind codes and payloads."""
        if np.any(begin >= end):
            raise NotCanonical("a map entry without a key")
        tag, self.key_begin, key_end = _field_at(self.buf, begin, end)
        if np.any(tag != _MAP_KEY):
            raise NotCanonical("a map entry not starting with its key")
        self.key_length = key_end - self.key_begin
        entries = _where(key_end < end)
        end = end[entries]
        tag, value_begin, value_end = _field_at(self.buf, key_end[entries], end)
        if np.any(tag != _MAP_VALUE) or np.any(value_end != end):
            raise NotCanonical("a map entry with fields beyond its key and value")
        has_list = _where(value_begin < value_end)
        if not isinstance(entries, slice) or not isinstance(has_list, slice):
            entries = np.arange(len(key_end))[entries][has_list]
        value_begin, value_end = value_begin[has_list], value_end[has_list]
        tag, list_begin, list_end = _field_at(self.buf, value_begin, value_end)
        kind = _LIST_KIND[tag]
        if (list_end != value_end).any() or (kind == NO_LIST).any():
            raise NotCanonical("a Feature with several lists or other fields")
        n = len(key_end)
        # Each entry's kind code, then MISSING: indexed by an entry index, or -1 for none.
        self.kind = np.full(n + 1, NO_LIST, np.int64)
        self.kind[-1] = MISSING
        self.kind[:n][entries] = kind
        if isinstance(entries, slice):  # every entry has a list
            self.list_begin, self.list_end = list_begin, list_end
        else:
            self.list_begin = np.zeros(n, np.int64)
            self.list_end = np.zeros(n, np.int64)
            self.list_begin[entries] = list_begin
            self.list_end[entries] = list_end
        self._hashes = None

    def _entries_from_layout(self):
        """Every record's entries: the layout's, at the record's offset."""
        layout, count = self.layout, self.size
        offsets = (np.arange(count, dtype=np.int64) * layout.length)[:, None]
        self.key_begin = (layout.key_begin + offsets).reshape(-1)
        self.key_length = np.tile(layout.key_length, count)
        self.list_begin = (layout.list_begin + offsets).reshape(-1)
        self.list_end = (layout.list_end + offsets).reshape(-1)
        self.kind = np.append(np.tile(layout.kind, count), MISSING)
        self.record = np.repeat(np.arange(count, dtype=np.int64), len(layout.kind))
        self._hashes = None

    # -- key matching --------------------------------------------------------------------------
    def _entries_for(self, keys):
        """``[len(keys), size]``: per key and record, the index of the record's (last) map
        entry for that key, or -1. ``keys`` must be distinct."""
        if self.layout is not None:
            return self.layout.entries_for(keys, self.size)
        if self._hashes is None:
            self._hashes = _key_hashes(self.words, self.key_begin, self.key_length)
        found = np.full(len(keys) * self.size, -1, np.int64)
        w_words, w_begin, w_length, table = _requested(tuple(keys))
        entry, key = table.find(self._hashes, self.key_length)
        if len(keys) and w_length.max() > 8:  # shorter keys are told apart by their hashes
            begin = self.key_begin[entry]
            same = _same_keys(self.words, begin, w_words, w_begin[key], w_length[key])
            entry, key = entry[same], key[same]
        # Entries are in order of appearance within a record, so the largest entry index
        # per (key, record) is the record's last entry for the key, which protobuf keeps.
        np.maximum.at(found, key * self.size + self.record[entry], entry)
        return found.reshape(len(keys), self.size)

    # -- columns ---------------------------------------------------------------------------
    def columns(self, requests):
        """For each ``(key, kind)`` of ``requests``: the key across the batch as per-record
        kind codes (MISSING where absent), and the value counts and flattened values of the
        records whose list is of ``kind``."""
        keys = list(dict.fromkeys(key for key, _ in requests))
        key_id = {key: i for i, key in enumerate(keys)}
        entry = self._entries_for(keys)
        kinds = self.kind[entry]
        out = [None] * len(requests)
        for kind, reader in ((BYTES, self._bytes), (FLOAT, self._floats), (INT64, self._int64s)):
            which = [i for i, (_, k) in enumerate(requests) if k == kind]
            if not which:
                continue
            rows = np.array([key_id[requests[i][0]] for i in which], np.int64)
            chosen = kinds[rows] == kind  # [columns, size]
            counts, values = reader(entry[rows][chosen])
            lengths = np.zeros(chosen.shape, np.int64)
            lengths[chosen] = counts
            bounds = np.cumsum(lengths.sum(axis=1)).tolist()
            for i, row, length, stop, start in zip(which, rows, lengths, bounds, [0] + bounds):
                out[i] = (kinds[row], length, values[start:stop])
        return out

    def column(self, key: bytes, kind: int):
        """``columns`` for one key."""
        return self.columns([(key, kind)])[0]

    def _lists(self, entries):
        return self.list_begin[entries], self.list_end[entries]

    def _in_layout(self, entries):
        """Each entry's record-0 entry in the layout, and its record's offset."""
        record, entry = np.divmod(entries, len(self.layout.kind))
        return entry, record * self.layout.length

    def _payloads(self, entries):
        """The payload range of each numeric list's packed field (see ``_packed``)."""
        if self.layout is None:
            return self._packed(*self._lists(entries))
        entry, offset = self._in_layout(entries)
        return self.layout.payload_begin[entry] + offset, self.layout.payload_end[entry] + offset

    def _string_ranges(self, entries):
        """Per bytes list its number of strings, and every string's byte range."""
        if self.layout is None:
            owner, begin, end = _fields(self.buf, *self._lists(entries))
            return np.bincount(owner, minlength=len(entries)), begin, end
        layout = self.layout
        entry, offset = self._in_layout(entries)
        counts = layout.string_count[entry]
        first = layout.string_first[entry]
        strings, _ = _range_positions(first, first + counts)
        offset = np.repeat(offset, counts)
        return counts, layout.string_begin[strings] + offset, layout.string_end[strings] + offset

    # -- list payloads ---------------------------------------------------------------------
    def _packed(self, begin, end):
        """The payload range of each numeric list's one packed field (empty lists have
        none: an empty range)."""
        payload_begin = np.zeros(len(begin), np.int64)
        payload_end = np.zeros(len(begin), np.int64)
        lists = np.flatnonzero(begin < end)
        tag, p, e = _field_at(self.buf, begin[lists], end[lists])
        if np.any(tag != _FIRST_FIELD) or np.any(e != end[lists]):
            raise NotCanonical("an unpacked or split numeric list")
        payload_begin[lists], payload_end[lists] = p, e
        return payload_begin, payload_end

    def _floats(self, entries):
        payload, payload_end = self._payloads(entries)
        nbytes = payload_end - payload
        if np.any(nbytes % 4):
            raise NotCanonical("a float list whose size is not a multiple of 4")
        counts = nbytes // 4
        if np.all(counts == 1):  # one value per list: its payload is the value
            at = payload
        else:
            offsets = np.cumsum(counts) - counts
            at = np.repeat(payload - 4 * offsets, counts) + 4 * np.arange(int(counts.sum()))
        return counts, _unaligned(self.raw, "<f4")[at].astype(np.float32)

    def _int64s(self, entries):
        data, nbytes = _gather_ranges(self.buf, *self._payloads(entries))
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

    def _bytes(self, entries):
        counts, begin, end = self._string_ranges(entries)
        return counts, self._strings(begin, end)

    def _strings(self, begin, end):
        """The byte ranges as an object array of ``bytes``."""
        lengths = end - begin
        count = len(lengths)
        width = int(lengths.max()) if count else 0
        if width * count > int(lengths.sum()) + _MAX_PADDING * count:
            return self._slices(begin, end)
        # One row of 8-byte words per value, zero-padded, read as fixed-width strings: numpy
        # makes the bytes objects in C. That drops trailing zero bytes, so values ending in
        # one are sliced out again.
        words = max(-(-width // 8), 1)
        matrix = np.empty((count, words), "<u8")
        if count and int(lengths.min()) == 8 * words:  # no padding
            for index in range(words):
                matrix[:, index] = self.words[begin + 8 * index]
        else:
            for index in range(words):
                matrix[:, index] = _word(self.words, begin, lengths, index)
        values = matrix.view(f"S{8 * words}").reshape(-1).astype(object)
        nul = np.flatnonzero((lengths > 0) & (self.buf[end - 1] == 0))
        if nul.size:
            values[nul] = self._slices(begin[nul], end[nul])
        return values

    def _slices(self, begin, end):
        values = np.empty(len(begin), dtype=object)
        raw = self.raw
        values[:] = [raw[s:t] for s, t in zip(begin.tolist(), end.tolist())]
        return values


# ---------------------------------------------------------------------------------------------
# Record layouts: batches whose records differ only in their values
# ---------------------------------------------------------------------------------------------
# Record length -> the layout the last batch of records of that length shared, or the
# number of batches of that length still to walk before looking for one again (their
# records did not share one). Cleared when full.
_LAYOUTS: dict = {}
_LAYOUTS_MAX = 16
_WALKS_BEFORE_RETRY = 16


class _Layout:
    """Where the entries of a record lie, found by walking that one record, and its bytes
    outside the values (tags, lengths, keys: everything the walk reads). A record of the
    same length with the same bytes there has the same entries at the same places, so a
    batch of such records needs no walk: writers of fixed-shape features (floats,
    fixed-width category codes) produce them, and the walk was half of parsing a wide &
    deep batch. Values are still read from each record (an int64 list's count depends on
    its varints' bytes, so it is decoded per record as before)."""

    def __init__(self, record: bytes):
        one = Batch([record], layouts=False)
        self.length = len(record)
        self.key_begin, self.key_length = one.key_begin, one.key_length
        self.list_begin, self.list_end = one.list_begin, one.list_end
        self.kind = one.kind[:-1]
        self._one = one
        self._entries = {}  # keys -> each key's entry index in the record, or -1
        entries = len(self.kind)
        # Per entry: a numeric list's payload range, a bytes list's strings (how many, the
        # first's index in string_begin / string_end).
        self.payload_begin = np.zeros(entries, np.int64)
        self.payload_end = np.zeros(entries, np.int64)
        self.string_count = np.zeros(entries, np.int64)
        self.string_first = np.zeros(entries, np.int64)
        values = np.zeros(self.length + _PAD, bool)
        numeric = np.flatnonzero((self.kind == FLOAT) | (self.kind == INT64))
        if numeric.size:
            payloads = one._packed(self.list_begin[numeric], self.list_end[numeric])
            self.payload_begin[numeric], self.payload_end[numeric] = payloads
            _mark(values, *payloads)
        strings = np.flatnonzero(self.kind == BYTES)
        owner, self.string_begin, self.string_end = _fields(
            one.buf, self.list_begin[strings], self.list_end[strings]
        )
        counts = np.bincount(owner, minlength=len(strings))
        self.string_count[strings] = counts
        self.string_first[strings] = np.cumsum(counts) - counts
        _mark(values, self.string_begin, self.string_end)
        self.structure = np.flatnonzero(~values[: self.length])
        self.structure_bytes = one.buf[self.structure]

    def matches(self, rows) -> bool:
        """Whether every row (a record) has this layout's bytes outside the values."""
        return bool((rows[:, self.structure] == self.structure_bytes).all())

    def entries_for(self, keys, count):
        """``Batch._entries_for`` for ``count`` records of this layout."""
        keys = tuple(keys)
        first = self._entries.get(keys)
        if first is None:
            first = self._entries[keys] = self._one._entries_for(list(keys))[:, 0]
        found = first[:, None] + np.arange(count, dtype=np.int64) * len(self.kind)
        found[first < 0] = -1
        return found


def _mark(flags, begin, end):
    """Sets ``flags`` over every range ``[begin, end)``."""
    flags[_range_positions(begin, end)[0]] = True


def _layout_of(first_record, data):
    """The layout every record of ``data`` (a batch of equal-length records, joined) has,
    or None: the one remembered for their length, else the first record's."""
    length = len(first_record)
    if not length:
        return None
    rows = data.reshape(-1, length)
    known = _LAYOUTS.get(length)
    if isinstance(known, int):  # recently, records of this length differed: walk
        _LAYOUTS[length] = known - 1 if known > 1 else None
        return None
    if known is not None and known.matches(rows):
        return known
    try:
        layout = _Layout(first_record)
    except NotCanonical:
        layout = None
    if layout is not None and not layout.matches(rows):
        layout = None
    if len(_LAYOUTS) >= _LAYOUTS_MAX:
        _LAYOUTS.clear()
    _LAYOUTS[length] = _WALKS_BEFORE_RETRY if layout is None else layout
    return layout
