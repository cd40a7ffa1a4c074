"""Immutable sorted tables in LevelDB's format, as TensorFlow's checkpoint index uses them.

A table file is a run of blocks followed by a fixed-size footer::

    data block 0 | ... | data block n | metaindex block | index block | footer (48 bytes)

Every block is followed by a 5-byte trailer: a compression type byte (0: none) and the
masked crc32c of the block contents and that byte. A block holds key/value entries sorted
by key; each entry stores only the suffix of its key that differs from the previous key::

    varint32 shared | varint32 unshared | varint32 value_size | key[shared:] | value

and every ``RESTART_INTERVAL``-th entry (a restart point) stores its full key. The block
ends with the restart offsets (fixed32 each) and their count (fixed32). The index block
maps, per data block, a key >= its last key and < the next block's first key to the
block's handle (varint64 offset, varint64 size); the footer holds the handles of the
metaindex (empty here) and index blocks, zero-padded to 40 bytes, then the 8-byte magic.

``write_table`` produces byte-identical files to TensorFlow's writer for the same entries
(uncompressed blocks of at most ``BLOCK_SIZE`` bytes); ``read_table`` checks every block's
checksum and raises ``DataLossError`` naming the file for any damage.
"""

from __future__ import annotations

import struct

import google_crc32c

from tfcompat.framework import errors

BLOCK_SIZE = 262144  # bytes of entries after which a data block is closed
RESTART_INTERVAL = 16  # entries between full keys in data blocks (index blocks: 1)
MAGIC = 0xDB4775248B80FB57
FOOTER_SIZE = 48  # two handles padded to 2 * 20 bytes, then the magic
TRAILER_SIZE = 5
_NO_COMPRESSION = 0
_MASK_DELTA = 0xA282EAD8
_U32 = struct.Struct("<I")


# ---------------------------------------------------------------------------------------------
# Checksums and varints
# ---------------------------------------------------------------------------------------------
def mask_crc(crc: int) -> int:
    """TF's stored form of a crc32c: rotated right by 15 bits plus a constant."""
    return (((crc >> 15) | (crc << 17)) + _MASK_DELTA) & 0xFFFFFFFF


def unmask_crc(masked: int) -> int:
    rot = (masked - _MASK_DELTA) & 0xFFFFFFFF
    return ((rot >> 17) | (rot << 15)) & 0xFFFFFFFF


def put_varint(value: int) -> bytes:
    out = bytearray()
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def get_varint(buf, pos: int, limit: int | None = None) -> tuple[int, int]:
    """The varint at ``buf[pos:]`` and the position after it; ValueError if cut short."""
    limit = len(buf) if limit is None else limit
    result = shift = 0
    while pos < limit and shift <= 63:
        byte = buf[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return result, pos
        shift += 7
    raise ValueError("bad varint")


# ---------------------------------------------------------------------------------------------
# Writing
# ---------------------------------------------------------------------------------------------
class _BlockBuilder:
    """Accumulates sorted entries into one block's bytes."""

    def __init__(self, restart_interval: int):
        self.restart_interval = restart_interval
        self.reset()

    def reset(self):
        self.buffer = bytearray()
        self.restarts = [0]
        self.counter = 0
        self.last_key = b""

    @property
    def empty(self) -> bool:
        return not self.buffer

    def size_estimate(self) -> int:
        return len(self.buffer) + 4 * len(self.restarts) + 4

    def add(self, key: bytes, value: bytes):
        shared = 0
        if self.counter < self.restart_interval:
            limit = min(len(key), len(self.last_key))
            while shared < limit and key[shared] == self.last_key[shared]:
                shared += 1
        else:
            self.restarts.append(len(self.buffer))
            self.counter = 0
        self.buffer += put_varint(shared) + put_varint(len(key) - shared)
        self.buffer += put_varint(len(value)) + key[shared:] + value
        self.last_key = key
        self.counter += 1

    def finish(self) -> bytes:
        tail = b"".join(_U32.pack(r) for r in self.restarts) + _U32.pack(len(self.restarts))
        return bytes(self.buffer) + tail


def _shortest_separator(start: bytes, limit: bytes) -> bytes:
    """A short key k with start <= k < limit (start itself when none is shorter)."""
    common = 0
    min_length = min(len(start), len(limit))
    while common < min_length and start[common] == limit[common]:
        common += 1
    if common < min_length:
        byte = start[common]
        if byte < 0xFF and byte + 1 < limit[common]:
            return start[:common] + bytes([byte + 1])
    return start


def _short_successor(key: bytes) -> bytes:
    """A short key >= ``key``: its first non-0xff byte incremented, the rest dropped."""
    for i, byte in enumerate(key):
        if byte != 0xFF:
            return key[:i] + bytes([byte + 1])
    return key


class TableWriter:
    """Builds a table from entries added in strictly increasing key order."""

    def __init__(self, block_size: int = BLOCK_SIZE):
        self.block_size = block_size
        self.out = bytearray()
        self.data_block = _BlockBuilder(RESTART_INTERVAL)
        self.index_block = _BlockBuilder(1)
        self.last_key = None
        self.pending_handle = None  # handle of the last closed data block, not yet indexed

    def add(self, key: bytes, value: bytes):
        if self.last_key is not None:
            if key <= self.last_key:
                raise ValueError(f"table keys must increase: {key!r} after {self.last_key!r}")
            # An entry twice the block size gets a block of its own.
            if len(key) + len(value) >= 2 * self.block_size:
                self._flush()
        if self.pending_handle is not None:
            self._index(_shortest_separator(self.last_key, key))
        self.last_key = key
        self.data_block.add(key, value)
        if self.data_block.size_estimate() >= self.block_size:
            self._flush()

    def _index(self, key: bytes):
        offset, size = self.pending_handle
        self.index_block.add(key, put_varint(offset) + put_varint(size))
        self.pending_handle = None

    def _flush(self):
        if not self.data_block.empty:
            self.pending_handle = self._write_block(self.data_block)

    def _write_block(self, block: _BlockBuilder) -> tuple[int, int]:
        contents = block.finish()
        block.reset()
        handle = (len(self.out), len(contents))
        crc = google_crc32c.extend(google_crc32c.value(contents), bytes([_NO_COMPRESSION]))
        self.out += contents + bytes([_NO_COMPRESSION]) + _U32.pack(mask_crc(crc))
        return handle

    def finish(self) -> bytes:
        """The complete table file."""
        self._flush()
        metaindex = self._write_block(_BlockBuilder(RESTART_INTERVAL))
        if self.pending_handle is not None:
            self._index(_short_successor(self.last_key))
        index = self._write_block(self.index_block)
        handles = b"".join(put_varint(n) for n in (*metaindex, *index))
        self.out += handles.ljust(FOOTER_SIZE - 8, b"\0") + struct.pack("<Q", MAGIC)
        return bytes(self.out)


def write_table(entries) -> bytes:
    """The table file holding ``entries`` (``(key, value)`` byte pairs, sorted by key)."""
    writer = TableWriter()
    for key, value in entries:
        writer.add(key, value)
    return writer.finish()


# ---------------------------------------------------------------------------------------------
# Reading
# ---------------------------------------------------------------------------------------------
def corrupt_file(filename: str, detail: str, where: str = "failed to seek to header entry"):
    """TF's DataLossError for a damaged checkpoint file."""
    return errors.DataLossError(
        None,
        None,
        f"Unable to read file ({filename}). Perhaps the file is corrupt or was produced by a "
        f"newer version of TensorFlow with format changes ({where}): {detail}",
    )


def _read_block(data: bytes, handle, filename: str) -> bytes:
    offset, size = handle
    end = offset + size + TRAILER_SIZE
    if end > len(data):
        raise corrupt_file(filename, "truncated block read")
    raw = data[offset:end]
    stored = _U32.unpack_from(raw, size + 1)[0]
    if google_crc32c.value(raw[: size + 1]) != unmask_crc(stored):
        raise corrupt_file(filename, "block checksum mismatch")
    if raw[size] != _NO_COMPRESSION:
        raise errors.UnimplementedError(
            None, None, f"{filename}: compressed table blocks (type {raw[size]}) are not supported"
        )
    return raw[:size]


def _block_entries(block: bytes, filename: str):
    """Yields the ``(key, value)`` entries of one block, as bytes."""
    try:
        if len(block) < 4:
            raise ValueError
        num_restarts = _U32.unpack_from(block, len(block) - 4)[0]
        limit = len(block) - 4 - 4 * num_restarts
        if limit < 0:
            raise ValueError
        pos, key = 0, b""
        while pos < limit:
            shared, pos = get_varint(block, pos, limit)
            unshared, pos = get_varint(block, pos, limit)
            value_size, pos = get_varint(block, pos, limit)
            if shared > len(key) or pos + unshared + value_size > limit:
                raise ValueError
            key = key[:shared] + block[pos : pos + unshared]
            pos += unshared
            yield key, block[pos : pos + value_size]
            pos += value_size
    except (ValueError, struct.error):
        raise corrupt_file(filename, "bad entry in block") from None


def read_table(data: bytes, filename: str) -> dict[bytes, bytes]:
    """All entries of a table file's bytes, in key order. ``filename`` names it in errors."""
    if len(data) < FOOTER_SIZE:
        raise corrupt_file(filename, "file is too short to be an sstable", "failed to open table")
    footer = data[-FOOTER_SIZE:]
    if struct.unpack_from("<Q", footer, FOOTER_SIZE - 8)[0] != MAGIC:
        raise corrupt_file(filename, "not an sstable (bad magic number)", "failed to open table")
    try:
        handles, pos = [], 0
        for _ in range(4):
            value, pos = get_varint(footer, pos, FOOTER_SIZE - 8)
            handles.append(value)
    except ValueError:
        raise corrupt_file(filename, "bad block handle", "failed to open table") from None
    index = _read_block(data, handles[2:], filename)
    entries = {}
    for _, handle_bytes in _block_entries(index, filename):
        try:
            offset, pos = get_varint(handle_bytes, 0)
            size, _ = get_varint(handle_bytes, pos)
        except ValueError:
            raise corrupt_file(filename, "bad block handle") from None
        entries.update(_block_entries(_read_block(data, (offset, size), filename), filename))
    return entries
