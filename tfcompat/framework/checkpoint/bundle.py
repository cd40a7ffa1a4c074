"""TensorFlow's V2 checkpoint format (a "tensor bundle"): writing, reading and merging.

A checkpoint with prefix ``P`` is

* ``P.data-00000-of-0000N``: tensor bytes back to back. Numeric tensors are their raw
  little-endian elements; a string tensor is the varint64 length of each element, the
  masked crc32c of those lengths (each taken as a little-endian uint32), then the bytes of
  each element.
* ``P.index``: an SSTable (``sstable.py``) mapping ``""`` to a ``BundleHeaderProto``
  (number of data files, byte order, format version) and each tensor name to a
  ``BundleEntryProto``: dtype, shape, data file, offset, size and the masked crc32c of the
  bytes (for strings: of the lengths, the length checksum and the bytes, in that order).

Tensors saved in slices (partitioned variables) have an entry under their name listing the
slices, and one ordinary entry per slice under ``slices.slice_key``. Writers add tensors in
any order; data is written in that order and the index sorted by name, as TF does, so the
files are byte-identical to TF's. Nothing here unpickles: numeric data becomes arrays with
``np.frombuffer`` and strings are sliced out of the file as bytes.
"""

from __future__ import annotations

import os
import struct
import uuid

import google_crc32c
import numpy as np

from tfcompat.framework import dtypes, errors
from tfcompat.framework.checkpoint import sstable
from tfcompat.framework.checkpoint.slices import Slice, copy_intersection, slice_key
from tfcompat.framework.proto import tensor_bundle_pb2

FORMAT_VERSION = 1  # BundleHeaderProto.version.producer
HEADER_KEY = b""


def data_filename(prefix: str, shard: int, num_shards: int) -> str:
    return f"{prefix}.data-{shard:05d}-of-{num_shards:05d}"


def index_filename(prefix: str) -> str:
    return f"{prefix}.index"


def _not_found(path: str):
    return errors.NotFoundError(
        None,
        None,
        f"Unsuccessful TensorSliceReader constructor: Failed to find any matching files for {path}",
    )


def _write_atomically(path: str, data: bytes):
    """Writes ``path`` through a temporary file and a rename, so readers never see half."""
    temp = f"{path}.tempstate{uuid.uuid4().int & ((1 << 63) - 1)}"
    with open(temp, "wb") as f:
        f.write(data)
    os.replace(temp, path)


# ---------------------------------------------------------------------------------------------
# Tensor bytes
# ---------------------------------------------------------------------------------------------
def _numpy_dtype(dtype: dtypes.DType) -> np.dtype:
    return np.dtype(dtype.as_numpy_dtype).newbyteorder("<")


def _as_bytes(element) -> bytes:
    if isinstance(element, bytes):
        return element
    if isinstance(element, str):
        return element.encode("utf-8")
    return bytes(element)


def encode_tensor(value: np.ndarray, dtype: dtypes.DType) -> tuple[bytes, int]:
    """``(bytes, crc32c)`` of a tensor's data as TF stores it (crc unmasked)."""
    if dtype == dtypes.string:
        items = [_as_bytes(x) for x in np.asarray(value, dtype=object).reshape(-1)]
        lengths = [len(x) for x in items]
        header = b"".join(sstable.put_varint(n) for n in lengths)
        crc = google_crc32c.value(_length_bytes(lengths))
        length_crc = struct.pack("<I", sstable.mask_crc(crc))
        body = b"".join(items)
        crc = google_crc32c.extend(google_crc32c.extend(crc, length_crc), body)
        return header + length_crc + body, crc
    data = np.ascontiguousarray(value, dtype=_numpy_dtype(dtype)).tobytes()
    return data, google_crc32c.value(data)


def _length_bytes(lengths) -> bytes:
    """String lengths as the checksum sees them: uint32 each (uint64 when larger)."""
    if all(n <= 0xFFFFFFFF for n in lengths):
        return np.asarray(lengths, dtype="<u4").tobytes()
    return b"".join(struct.pack("<I" if n <= 0xFFFFFFFF else "<Q", n) for n in lengths)


def _decode_strings(data: bytes, count: int, where: str) -> tuple[np.ndarray, int]:
    """A string tensor's elements from its stored bytes, and the crc32c of those bytes."""
    lengths, pos = [], 0
    try:
        for _ in range(count):
            n, pos = sstable.get_varint(data, pos)
            lengths.append(n)
    except ValueError:
        raise errors.DataLossError(None, None, f"{where}: truncated string lengths") from None
    if pos + 4 > len(data):
        raise errors.DataLossError(None, None, f"{where}: truncated string tensor")
    crc = google_crc32c.value(_length_bytes(lengths))
    stored = struct.unpack_from("<I", data, pos)[0]
    if sstable.unmask_crc(stored) != crc:
        raise errors.DataLossError(
            None,
            None,
            f"{where}: The length checksum does not match: expected "
            f"{sstable.unmask_crc(stored):08d} but actual is {crc:08d}",
        )
    crc = google_crc32c.extend(crc, data[pos : pos + 4])
    pos += 4
    ends = pos + np.cumsum(lengths, dtype=np.int64)
    if count and int(ends[-1]) > len(data):
        raise errors.DataLossError(None, None, f"{where}: truncated string tensor")
    out = np.empty(count, dtype=object)
    start = pos
    for i, end in enumerate(ends.tolist()):
        out[i] = data[start:end]
        start = end
    return out, google_crc32c.extend(crc, data[pos:start])


# ---------------------------------------------------------------------------------------------
# Writing
# ---------------------------------------------------------------------------------------------
class BundleWriter:
    """Writes one checkpoint (one data file). ``add``/``add_slice`` then ``finish``."""

    def __init__(self, prefix: str, shard: int = 0, num_shards: int = 1):
        self.prefix = prefix
        self.data_path = data_filename(prefix, shard, num_shards)
        self.chunks = []
        self.size = 0
        self.entries: dict[bytes, tensor_bundle_pb2.BundleEntryProto] = {}

    def add(self, key: str, value, dtype=None):
        """Stores tensor ``value`` under ``key`` (dtype inferred unless given)."""
        value = np.asarray(value) if dtype is None else value
        dtype = dtypes.as_dtype(dtype if dtype is not None else value.dtype)
        key_bytes = key.encode() if isinstance(key, str) else key
        if key_bytes in self.entries:
            raise errors.InvalidArgumentError(None, None, f"Adding duplicate key: {key}")
        shape = np.shape(value)
        data, crc = encode_tensor(value, dtype)
        entry = tensor_bundle_pb2.BundleEntryProto(
            dtype=dtype.as_datatype_enum, offset=self.size, size=len(data)
        )
        entry.shape.SetInParent()
        for dim in shape:
            entry.shape.dim.add(size=dim)
        entry.crc32c = sstable.mask_crc(crc)
        self.entries[key_bytes] = entry
        self.chunks.append(data)
        self.size += len(data)

    def add_slice(self, key: str, full_shape, spec_slice: Slice, value, dtype=None):
        """Stores ``value`` as slice ``spec_slice`` of the tensor ``key`` of ``full_shape``."""
        if spec_slice.is_full(full_shape):
            return self.add(key, value, dtype)
        dtype = dtypes.as_dtype(dtype if dtype is not None else np.asarray(value).dtype)
        full = self.entries.setdefault(key.encode(), tensor_bundle_pb2.BundleEntryProto())
        full.dtype = dtype.as_datatype_enum
        del full.shape.dim[:]
        full.shape.SetInParent()
        for dim in full_shape:
            full.shape.dim.add(size=dim)
        full.slices.append(spec_slice.to_proto())
        self.add(slice_key(key, spec_slice), value, dtype)

    def finish(self, write_index: bool = True):
        """Writes the data file, then the index (with the bundle header)."""
        _make_parent_dir(self.prefix)
        _write_atomically(self.data_path, b"".join(self.chunks))
        if write_index:
            write_index_file(self.prefix, self.entries, num_shards=1)


def write_index_file(prefix: str, entries: dict, num_shards: int, endianness: int = 0):
    header = tensor_bundle_pb2.BundleHeaderProto(num_shards=num_shards, endianness=endianness)
    header.version.producer = FORMAT_VERSION
    items = [(HEADER_KEY, header.SerializeToString())]
    items += [(k, entries[k].SerializeToString()) for k in sorted(entries)]
    _write_atomically(index_filename(prefix), sstable.write_table(items))


def merge_bundles(prefixes, merged_prefix: str, delete_old_dirs: bool = True):
    """Merges single-shard bundles into one checkpoint at ``merged_prefix``: data files
    are renamed to ``merged_prefix.data-i-of-n`` and one index is written."""
    entries, shard_ids, num_shards = {}, {}, 0
    for prefix in prefixes:
        reader = BundleReader(prefix)
        num_shards += reader.num_shards
        for key, entry in reader.entries.items():
            existing = entries.get(key)
            if existing is not None:
                if not existing.slices or not entry.slices:
                    raise errors.InvalidArgumentError(
                        None,
                        None,
                        f"Duplicate tensor keyed by {key.decode(errors='replace')} "
                        f"encountered, when merging prefix: {prefix}",
                    )
                existing.slices.extend(entry.slices)
                continue
            if not entry.slices:
                source = data_filename(prefix, entry.shard_id, reader.num_shards)
                entry.shard_id = shard_ids.setdefault(source, len(shard_ids))
            entries[key] = entry
    _make_parent_dir(merged_prefix)
    for source, shard in shard_ids.items():
        os.replace(source, data_filename(merged_prefix, shard, len(shard_ids)))
    write_index_file(merged_prefix, entries, num_shards)
    for prefix in prefixes:
        _remove_quietly(index_filename(prefix))
        if delete_old_dirs:
            _remove_quietly(os.path.dirname(prefix), directory=True)


def _make_parent_dir(prefix: str):
    """Creates the prefix's directory (one level, as TF: a missing grandparent is a
    NotFoundError)."""
    directory = os.path.dirname(prefix)
    if not directory or os.path.isdir(directory):
        return
    try:
        os.mkdir(directory)
    except FileExistsError:
        pass
    except FileNotFoundError:
        raise errors.NotFoundError(None, None, f"{directory}; No such file or directory") from None


def _remove_quietly(path: str, directory: bool = False):
    try:
        os.rmdir(path) if directory else os.remove(path)
    except OSError:
        pass


# ---------------------------------------------------------------------------------------------
# Reading
# ---------------------------------------------------------------------------------------------
class BundleReader:
    """Reads a V2 checkpoint: its entries (``key -> BundleEntryProto``) and tensors.

    Raises ``NotFoundError`` (TF's message) when ``prefix.index`` does not exist and
    ``DataLossError`` naming the file for a damaged index or data file.
    """

    def __init__(self, prefix: str):
        self.prefix = prefix
        self.index_path = index_filename(prefix)
        try:
            with open(self.index_path, "rb") as f:
                raw = f.read()
        except FileNotFoundError:
            raise _not_found(prefix) from None
        except IsADirectoryError:
            raise _not_found(prefix) from None
        table = sstable.read_table(raw, self.index_path)
        header = tensor_bundle_pb2.BundleHeaderProto()
        if HEADER_KEY not in table:
            raise sstable.corrupt_file(self.index_path, "no header entry")
        self._parse(header, table.pop(HEADER_KEY), "unable to parse header")
        if header.version.producer < 0 or FORMAT_VERSION < header.version.min_consumer:
            raise errors.InvalidArgumentError(
                None,
                None,
                f"Checkpoint min consumer version {header.version.min_consumer} above current "
                f"version {FORMAT_VERSION} for checkpoint",
            )
        self.num_shards = header.num_shards
        self.byteorder = "<" if header.endianness == header.LITTLE else ">"
        self.entries = {}
        for key, value in table.items():
            entry = tensor_bundle_pb2.BundleEntryProto()
            self._parse(entry, value, f"Entry for key {key!r} not parseable")
            self.entries[key] = entry

    def _parse(self, message, value: bytes, what: str):
        try:
            message.ParseFromString(value)
        except Exception:  # protobuf's DecodeError, or a bad enum in C++ upb
            raise sstable.corrupt_file(self.index_path, what) from None

    # -- metadata ---------------------------------------------------------------------------
    def tensor_keys(self) -> list[str]:
        """Names of the stored tensors (slice entries excluded), sorted."""
        return sorted(k.decode() for k in self.entries if not k.startswith(b"\x00"))

    def entry(self, key: str) -> tensor_bundle_pb2.BundleEntryProto:
        try:
            return self.entries[key.encode() if isinstance(key, str) else key]
        except KeyError:
            raise errors.NotFoundError(None, None, f"Key {key} not found in checkpoint") from None

    def has_tensor(self, key: str) -> bool:
        return key.encode() in self.entries

    def dtype(self, key: str) -> dtypes.DType:
        return dtypes.as_dtype(self.entry(key).dtype)

    def shape(self, key: str) -> list[int]:
        return [d.size for d in self.entry(key).shape.dim]

    # -- values -----------------------------------------------------------------------------
    def lookup(self, key: str) -> np.ndarray:
        """The whole tensor ``key`` (assembled from its slices if saved in slices)."""
        entry = self.entry(key)
        if entry.slices:
            return self.lookup_slice(key, Slice.full(len(entry.shape.dim)))
        return self._value(entry)

    def lookup_slice(self, key: str, wanted: Slice) -> np.ndarray:
        """Slice ``wanted`` of tensor ``key``, copied together from the stored slices."""
        entry = self.entry(key)
        full_shape = [d.size for d in entry.shape.dim]
        if not entry.slices:
            stored = [(Slice.full(len(full_shape)), entry)]
        else:
            stored = [
                (s, self.entry(slice_key(key, s))) for s in map(Slice.from_proto, entry.slices)
            ]
        dtype = dtypes.as_dtype(entry.dtype)
        out = np.zeros(wanted.shape(full_shape), dtype=_numpy_dtype(dtype).newbyteorder("="))
        if dtype == dtypes.string:
            out = np.full(out.shape, b"", dtype=object)
        covered = 0
        for stored_slice, stored_entry in stored:
            if stored_slice == wanted and len(stored) == 1:
                return self._value(stored_entry)
            bounds = zip(stored_slice.bounds(full_shape), wanted.bounds(full_shape))
            if all(max(a0, b0) < min(a1, b1) for (a0, a1), (b0, b1) in bounds):
                values = self._value(stored_entry)
                covered += copy_intersection(full_shape, stored_slice, values, wanted, out)
        if covered < out.size:
            raise errors.InvalidArgumentError(
                None,
                None,
                f"Does not have sufficient slices for partitioned tensor {key} to restore in "
                f"slice_spec: {wanted}",
            )
        return out

    def _value(self, entry) -> np.ndarray:
        dtype = dtypes.as_dtype(entry.dtype)
        shape = tuple(d.size for d in entry.shape.dim)
        path = data_filename(self.prefix, entry.shard_id, self.num_shards)
        where = f"TensorBundle at {self.prefix} shard {entry.shard_id} ({entry.size} bytes)"
        count = int(np.prod(shape, dtype=np.int64))
        if dtype != dtypes.string:
            expected = count * _numpy_dtype(dtype).itemsize
            if entry.size != expected:
                raise errors.DataLossError(
                    None,
                    None,
                    f"Invalid size in bundle entry: stored size {entry.size}; expected size "
                    f"{expected} ({self.index_path})",
                )
        data = self._read(path, entry.offset, entry.size, where)
        if dtype == dtypes.string:
            value, crc = _decode_strings(data, count, f"{where} ({path})")
            value = value.reshape(shape)
        else:
            crc = google_crc32c.value(data)
            value = np.frombuffer(data, dtype=_numpy_dtype(dtype).newbyteorder(self.byteorder))
            value = value.astype(_numpy_dtype(dtype).newbyteorder("=")).reshape(shape)
        if sstable.unmask_crc(entry.crc32c) != crc:
            raise errors.DataLossError(
                None,
                None,
                f"{where}: Checksum does not match: stored "
                f"{sstable.unmask_crc(entry.crc32c):08d} vs. calculated on the restored bytes "
                f"{crc} (file {path})",
            )
        return value

    def _read(self, path: str, offset: int, size: int, where: str) -> bytes:
        try:
            with open(path, "rb") as f:
                f.seek(offset)
                data = f.read(size)
        except FileNotFoundError:
            raise errors.NotFoundError(None, None, f"{path}; No such file or directory") from None
        if len(data) != size:
            raise errors.DataLossError(
                None, None, f"{where}: truncated data file {path}: read {len(data)} of {size} bytes"
            )
        return data
