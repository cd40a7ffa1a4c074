"""Numpy kernels of the string ops (host ops: they run on the host around the jitted
device function, so these kernels are the implementation, not only a baseline).

Strings are object arrays of ``bytes``. Work that numpy can do on whole buffers (lengths,
UTF-8 character counts, byte decoding, hashing in ``string_hash``) is vectorised; the rest
calls one C-level ``bytes`` method per string (``split``, ``strip``, ``lower``, slicing),
which is the batch API Python offers for variable-length strings. numpy's fixed-width
``S`` arrays are avoided where they would drop trailing NUL bytes.
"""

from __future__ import annotations

import base64
import itertools
import re

import numpy as np

from lowering.reference import string_hash
from lowering.registry import reference
from tfcompat.framework import errors


def _strings(values) -> np.ndarray:
    return np.asarray(values, dtype=object)


def _object_array(items, shape) -> np.ndarray:
    out = np.empty(len(items), dtype=object)
    out[:] = items
    return out.reshape(shape)


def _invalid(op, message):
    return errors.InvalidArgumentError(None, op, message)


# ---------------------------------------------------------------------------------------------
# Hash buckets
# ---------------------------------------------------------------------------------------------
def _bucketed(hash_fn):
    def kernel(ctx, op, strings):
        strings = _strings(strings)
        hashes = hash_fn(op, strings.reshape(-1))
        buckets = hashes % np.uint64(op.attrs["num_buckets"])
        return buckets.astype(np.int64).reshape(strings.shape)

    return kernel


def _strong_hash(op, flat):
    key = op.attrs["key"]
    if len(key) != 2:
        raise _invalid(op, f"Key must have 2 elements, but has {len(key)}")
    return string_hash.siphash(flat, key[0], key[1])


reference("StringToHashBucketFast")(_bucketed(lambda op, flat: string_hash.fingerprint64(flat)))
reference("StringToHashBucketStrong")(_bucketed(_strong_hash))
reference("StringToHashBucket")(_bucketed(lambda op, flat: string_hash.legacy_hash64(flat)))


# ---------------------------------------------------------------------------------------------
# AsString: printf formats, as TF builds them
# ---------------------------------------------------------------------------------------------
_FLOAT_KINDS = "fcV"  # V: bfloat16
_FILL_FLAGS = ("", " ", "+", "-", "0", "#")


def _as_string_format(op, dtype):
    a = op.attrs
    precision, scientific, shortest = a["precision"], a["scientific"], a["shortest"]
    fill = a["fill"].decode("latin-1")
    is_float = dtype.kind in _FLOAT_KINDS
    if not is_float:
        if scientific or shortest:
            raise _invalid(
                op,
                f"scientific and shortest format not supported for datatype {op.attrs['T'].name}",
            )
        if precision > -1:
            raise _invalid(op, f"precision not supported for datatype {op.attrs['T'].name}")
    if len(fill) > 1:
        raise _invalid(op, "Fill string must be one or fewer characters")
    if scientific and shortest:
        raise _invalid(op, "Cannot select both scientific and shortest notation")
    if fill not in _FILL_FLAGS:
        raise _invalid(op, f'Fill argument not supported: "{fill}"')
    spec = "%"
    if a["width"] > -1:
        spec += f"{fill}{a['width']}"
    if precision > -1:
        spec += f".{precision}"
    if not is_float:
        conversion = "s" if dtype.kind == "O" else "d"
    else:
        conversion = "g" if shortest else "e" if scientific else "f"
    return spec + conversion, fill


def _format_floats(spec, fill, width, values):
    """printf of float64 values; non-finite ones as glibc prints them (``-nan``, space-padded
    even with the ``0`` flag)."""
    values = np.asarray(values, dtype=np.float64).reshape(-1)
    out = [spec % v for v in values.tolist()]
    for i in np.flatnonzero(~np.isfinite(values)):
        v = values[i]
        text = ("-" if np.signbit(v) else fill if fill in ("+", " ") else "") + (
            "nan" if np.isnan(v) else "inf"
        )
        out[i] = text.ljust(width) if fill == "-" else text.rjust(width)
    return out


@reference("AsString")
def _as_string(ctx, op, values):
    values = np.asarray(values)
    spec, fill = _as_string_format(op, values.dtype)
    width = op.attrs["width"]
    flat = values.reshape(-1)
    if values.dtype == np.bool_:
        out = ["true" if v else "false" for v in flat.tolist()]
    elif values.dtype.kind == "c":
        real = _format_floats(spec, fill, width, flat.real)
        imag = _format_floats(spec, fill, width, flat.imag)
        out = [f"({r},{i})" for r, i in zip(real, imag)]
    elif values.dtype.kind == "f" or values.dtype.name == "bfloat16":
        out = _format_floats(spec, fill, width, flat)
    elif values.dtype == object:
        out = [spec % s.decode("latin-1") for s in flat]
    else:
        out = [spec % v for v in flat.tolist()]
    return _object_array([s.encode("latin-1") for s in out], values.shape)


# ---------------------------------------------------------------------------------------------
# Splitting into SparseTensor components
# ---------------------------------------------------------------------------------------------
def _sparse_tokens(token_lists):
    """``(indices, values, dense_shape)`` of a 2-D SparseTensor with one row per list."""
    counts = np.fromiter(map(len, token_lists), dtype=np.int64, count=len(token_lists))
    total = int(counts.sum())
    rows = np.repeat(np.arange(len(token_lists), dtype=np.int64), counts)
    starts = np.repeat(np.cumsum(counts) - counts, counts)
    cols = np.arange(total, dtype=np.int64) - starts
    values = _object_array(list(itertools.chain.from_iterable(token_lists)), (total,))
    shape = np.array([len(token_lists), counts.max(initial=0)], dtype=np.int64)
    return np.stack([rows, cols], axis=1).reshape(total, 2), values, shape


def _check_split_inputs(op, source, sep):
    source, sep = _strings(source), _strings(sep)
    if source.ndim != 1:
        raise _invalid(op, f"input must be a vector, got shape: {list(source.shape)}")
    if sep.ndim != 0:
        raise _invalid(op, f"delimiter must be a scalar, got shape: {list(sep.shape)}")
    return source, sep[()]


@reference("StringSplit")
def _string_split(ctx, op, source, delimiter):
    source, delimiter = _check_split_inputs(op, source, delimiter)
    if not delimiter:  # each byte a token; empty strings give none
        tokens = [[s[i : i + 1] for i in range(len(s))] for s in source]
        return _sparse_tokens(tokens)
    first = delimiter[:1]
    # Any byte of ``delimiter`` splits: map them all to the first one, then split once.
    table = bytes.maketrans(delimiter, first * len(delimiter))
    tokens = [s.translate(table).split(first) if s else [] for s in source]
    if op.attrs["skip_empty"]:
        tokens = [[t for t in row if t] for row in tokens]
    return _sparse_tokens(tokens)


def _split_whitespace(s: bytes, maxsplit: int):
    """Splits at runs of ASCII whitespace as Python's ``bytes.split()``, with TF's two
    differences: ``maxsplit=0`` keeps the string as it is, and after ``maxsplit`` splits the
    rest is a token even when empty."""
    if maxsplit == 0:
        return [s]
    tokens = s.split(None, maxsplit)
    if maxsplit > 0 and len(tokens) == maxsplit:
        tokens.append(b"")
    return tokens


@reference("StringSplitV2")
def _string_split_v2(ctx, op, source, sep):
    source, sep = _check_split_inputs(op, source, sep)
    maxsplit = op.attrs["maxsplit"]
    if not sep:
        tokens = [_split_whitespace(s, maxsplit) for s in source]
    else:
        tokens = [s.split(sep, maxsplit) for s in source]
    return _sparse_tokens(tokens)


# ---------------------------------------------------------------------------------------------
# Substr, StringLength
# ---------------------------------------------------------------------------------------------
def _utf8_starts(data: np.ndarray) -> np.ndarray:
    """Where UTF-8 characters start: bytes that are not continuation bytes (10xxxxxx)."""
    return (data & 0xC0) != 0x80


def _utf8_lengths(flat) -> np.ndarray:
    lengths = np.fromiter(map(len, flat), dtype=np.int64, count=len(flat))
    data = np.frombuffer(b"".join(flat), dtype=np.uint8)
    starts = np.concatenate([[0], np.cumsum(_utf8_starts(data), dtype=np.int64)])
    ends = np.cumsum(lengths)
    return starts[ends] - starts[ends - lengths]


@reference("StringLength")
def _string_length(ctx, op, strings):
    strings = _strings(strings)
    flat = list(strings.reshape(-1))
    if op.attrs["unit"] == b"UTF8_CHAR":
        lengths = _utf8_lengths(flat)
    else:
        lengths = np.fromiter(map(len, flat), dtype=np.int64, count=len(flat))
    return lengths.astype(np.int32).reshape(strings.shape)


def _char_offsets(s: bytes) -> np.ndarray:
    """Byte offset of each UTF-8 character of ``s``, plus ``len(s)``."""
    starts = np.flatnonzero(_utf8_starts(np.frombuffer(s, dtype=np.uint8)))
    return np.append(starts, len(s))


def _substr_one(op, s, pos, length, index, utf8):
    offsets = _char_offsets(s) if utf8 else None
    size = len(offsets) - 1 if utf8 else len(s)
    start = pos + size if pos < 0 else pos
    if not 0 <= start <= size:
        # TF's BYTE kernel shows the string, its UTF8_CHAR kernel does not.
        shown = "" if utf8 else f" {s!r}"
        raise _invalid(op, f"pos {pos} out of range for string{shown} at index {index}")
    stop = min(size, start + max(length, 0))
    if utf8:
        return s[offsets[start] : offsets[stop]]
    return s[start:stop]


@reference("Substr")
def _substr(ctx, op, strings, pos, length):
    strings, pos, length = _strings(strings), np.asarray(pos), np.asarray(length)
    if pos.shape != length.shape:
        raise _invalid(op, "pos and len should have the same shape")
    try:
        strings_b, pos_b, len_b = np.broadcast_arrays(strings, pos, length)
    except ValueError:
        raise _invalid(
            op, f"Incompatible shapes: {list(strings.shape)} vs. {list(pos.shape)}"
        ) from None
    utf8 = op.attrs["unit"] == b"UTF8_CHAR"
    flat = zip(strings_b.reshape(-1), pos_b.reshape(-1).tolist(), len_b.reshape(-1).tolist())
    # TF reports the position within the flattened input.
    items = [_substr_one(op, s, p, n, i, utf8) for i, (s, p, n) in enumerate(flat)]
    return _object_array(items, strings_b.shape)


# ---------------------------------------------------------------------------------------------
# Join, regex, case and whitespace
# ---------------------------------------------------------------------------------------------
@reference("StringJoin")
def _string_join(ctx, op, *inputs):
    inputs = [_strings(x) for x in inputs]
    shapes = {x.shape for x in inputs if x.ndim}
    if len(shapes) > 1:
        first, second = sorted(shapes)[:2]
        raise _invalid(
            op,
            f"Input shapes do not match: {list(first)} vs. {list(second)}",
        )
    shape = shapes.pop() if shapes else ()
    columns = [np.broadcast_to(x, shape).reshape(-1) for x in inputs]
    separator = op.attrs["separator"]
    size = int(np.prod(shape, dtype=np.int64))
    items = [separator.join(parts) for parts in zip(*columns)] if columns else [b""] * size
    return _object_array(items, shape)


_REWRITE_TOKEN = re.compile(r"\\(.)", re.DOTALL)


def _text(s: bytes) -> str:
    """RE2 matches UTF-8 text; bytes that are not UTF-8 survive as surrogate escapes."""
    return s.decode("utf-8", "surrogateescape")


def _compile_rewrite(op, rewrite: str):
    """RE2's rewrite string (``\\0``..``\\9`` groups, ``\\\\`` a backslash) as a function
    of a match."""
    pieces, last = [], 0
    for m in _REWRITE_TOKEN.finditer(rewrite):
        pieces.append(rewrite[last : m.start()])
        char = m.group(1)
        if char.isdigit():
            pieces.append(int(char))
        elif char == "\\":
            pieces.append("\\")
        else:
            raise _invalid(op, f"Invalid rewrite pattern: {rewrite}")
        last = m.end()
    pieces.append(rewrite[last:])
    return lambda match: "".join(
        (match.group(p) or "") if isinstance(p, int) else p for p in pieces
    )


def _re2_sub(pattern, rewrite, s: str, replace_global: bool) -> str:
    """``pattern.sub`` with RE2's rule for empty matches: none right where the previous
    match ended (Python allows one there)."""
    out, pos, last_end = [], 0, -1
    for m in pattern.finditer(s):
        if m.start() == m.end() == last_end:
            continue
        out.append(s[pos : m.start()])
        out.append(rewrite(m))
        pos = last_end = m.end()
        if not replace_global:
            break
    out.append(s[pos:])
    return "".join(out)


def _regex_replace(op, strings, pattern: bytes, rewrite: bytes):
    pattern, rewrite = _text(pattern), _text(rewrite)
    try:
        compiled = re.compile(pattern, re.ASCII)  # RE2: \d \s \w \b are ASCII classes
    except re.error as e:
        raise _invalid(op, f"Invalid pattern: {pattern}, error: {e}") from None
    if compiled.groups < max((int(c) for c in re.findall(r"\\(\d)", rewrite)), default=0):
        raise _invalid(op, f"Invalid rewrite pattern: {rewrite}")
    rewrite_fn = _compile_rewrite(op, rewrite)
    strings = _strings(strings)
    glob = op.attrs["replace_global"]
    items = [
        _re2_sub(compiled, rewrite_fn, _text(s), glob).encode("utf-8", "surrogateescape")
        for s in strings.reshape(-1)
    ]
    return _object_array(items, strings.shape)


@reference("RegexReplace")
def _regex_replace_kernel(ctx, op, strings, pattern, rewrite):
    return _regex_replace(op, strings, _strings(pattern)[()], _strings(rewrite)[()])


@reference("StaticRegexReplace")
def _static_regex_replace(ctx, op, strings):
    return _regex_replace(op, strings, op.attrs["pattern"], op.attrs["rewrite"])


def _per_string(method):
    def kernel(ctx, op, strings):
        strings = _strings(strings)
        return _object_array([method(op, s) for s in strings.reshape(-1)], strings.shape)

    return kernel


def _case(ascii_method, unicode_method):
    def convert(op, s):
        if op.attrs.get("encoding"):
            return unicode_method(s.decode("utf-8")).encode("utf-8")
        return ascii_method(s)  # bytes.lower/upper touch ASCII letters only, as TF

    return convert


reference("StringStrip")(_per_string(lambda op, s: s.strip()))
reference("StringLower")(_per_string(_case(bytes.lower, str.lower)))
reference("StringUpper")(_per_string(_case(bytes.upper, str.upper)))


# ---------------------------------------------------------------------------------------------
# DecodeRaw
# ---------------------------------------------------------------------------------------------
@reference("DecodeRaw")
def _decode_raw(ctx, op, strings):
    strings = _strings(strings)
    out_type = op.attrs["out_type"]
    dtype = np.dtype(out_type.as_numpy_dtype)
    flat = list(strings.reshape(-1))
    if not flat:
        return np.zeros(strings.shape + (0,), dtype)
    size = len(flat[0])
    for i, s in enumerate(flat):
        if len(s) != size:
            raise _invalid(
                op,
                "DecodeRaw requires input strings to all be the same size, but element "
                f"{i} has size {len(s)} != {size}",
            )
    if size % dtype.itemsize:
        raise _invalid(
            op,
            f"Input to DecodeRaw has length {size} that is not a multiple of "
            f"{dtype.itemsize}, the size of {out_type.name}",
        )
    # Big-endian input has the bytes of each number reversed (of each half of a complex
    # number); the host is little-endian.
    word = dtype.itemsize // 2 if dtype.kind == "c" else dtype.itemsize
    data = np.frombuffer(b"".join(flat), dtype=np.uint8).reshape(-1, word)
    if not op.attrs["little_endian"]:
        data = data[:, ::-1]
    if dtype == np.bool_:
        values = data.reshape(-1) != 0
    else:
        values = np.ascontiguousarray(data).reshape(-1).view(dtype)
    return values.reshape(strings.shape + (size // dtype.itemsize,))


# ---------------------------------------------------------------------------------------------
# StringToNumber: TF's strtod / strtoll-style parsers (whitespace around the number allowed)
# ---------------------------------------------------------------------------------------------
_SPACE = b" \t\n\r\f\v"
_DECIMAL = re.compile(rb"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")
_HEX_FLOAT = re.compile(rb"[+-]?0[xX]([0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)([pP][+-]?\d+)?")
_SPECIAL = re.compile(rb"([+-]?)(inf|infinity|nan(\([0-9a-zA-Z_]*\))?)", re.IGNORECASE)
_INTEGER = re.compile(rb"[+-]?\d+")
_INT_RANGES = {
    np.dtype(np.int32): (-(2**31), 2**31 - 1),
    np.dtype(np.int64): (-(2**63), 2**63 - 1),
    np.dtype(np.uint32): (0, 2**32 - 1),
    np.dtype(np.uint64): (0, 2**64 - 1),
}


def parse_float(text: bytes):
    """The value of ``text`` as C's strtod reads a whole string (no surrounding
    whitespace), or None: TF's ``safe_strtof`` / ``safe_strtod``, shared with DecodeCSV."""
    if _DECIMAL.fullmatch(text):
        return float(text)
    special = _SPECIAL.fullmatch(text)
    if special:
        value = float("nan") if special.group(2)[:1].lower() == b"n" else float("inf")
        return -value if special.group(1) == b"-" else value
    if _HEX_FLOAT.fullmatch(text):
        hex_text = text.decode("ascii")
        # float.fromhex wants a binary exponent only after digits; "0x10" is valid as is.
        return float.fromhex(hex_text)
    return None


def parse_integer(text: bytes, dtype):
    """The value of ``text`` as TF's ``safe_strto32`` / ``safe_strto64`` read it (no
    surrounding whitespace), or None when it is not one or is out of ``dtype``'s range."""
    if not _INTEGER.fullmatch(text):
        return None
    value = int(text)
    low, high = _INT_RANGES[dtype]
    return value if low <= value <= high else None


@reference("StringToNumber")
def _string_to_number(ctx, op, strings):
    """One regular-expression match per string: TF's parsers accept a narrower syntax
    than Python's ``float`` / ``int`` (no ``_`` separators) and a wider one for floats
    (hexadecimal, ``nan(...)``), so each string is checked before it is converted. Float32
    values are parsed as float64 then rounded (TF rounds once, to float32 directly: the two
    can differ in the last bit for about one decimal string in 2**29)."""
    strings = _strings(strings)
    dtype = np.dtype(op.attrs["out_type"].as_numpy_dtype)
    parse = parse_float if dtype.kind == "f" else (lambda t: parse_integer(t, dtype))
    flat = strings.reshape(-1)
    values = []
    for item in flat:
        text = item if isinstance(item, bytes) else str(item).encode()
        value = parse(text.strip(_SPACE))
        if value is None:
            raise _invalid(
                op,
                "StringToNumberOp could not correctly convert string: "
                f"{text.decode('utf-8', 'replace')}\n\t [[{{{{node {op.name}}}}}]]",
            )
        values.append(value)
    return np.array(values, dtype=dtype).reshape(strings.shape)


@reference("ReduceJoin")
def _reduce_join(ctx, op, inputs, reduction_indices):
    """Joins over the listed axes; the first listed varies fastest in the joined order
    (``[0, 1]`` of ``[[a, b], [c, d]]`` is ``acbd``)."""
    strings = _strings(inputs)
    rank = strings.ndim
    axes = [int(a) for a in np.reshape(np.asarray(reduction_indices), -1)]
    normalized = []
    for a in axes:
        if not -rank <= a < rank:
            raise errors.OutOfRangeError(
                None, op, f"Invalid reduction dimension {a} for input with {rank} dimension(s)"
            )
        a = a + rank if a < 0 else a
        if a in normalized:
            raise _invalid(op, f"Duplicate reduction dimension {a}")
        normalized.append(a)
    separator = op.attrs["separator"]
    separator = separator.encode() if isinstance(separator, str) else separator
    kept = [d for d in range(rank) if d not in normalized]
    # Kept axes first, then the reduced ones slowest-first (the last listed outermost).
    moved = np.transpose(strings, kept + normalized[::-1])
    kept_shape = [strings.shape[d] for d in kept]
    rows = moved.reshape(int(np.prod(kept_shape, dtype=np.int64)), -1)
    joined = [separator.join(row.tolist()) for row in rows]
    out = _object_array(joined, kept_shape)
    if op.attrs["keep_dims"]:
        out = out.reshape([1 if d in normalized else n for d, n in enumerate(strings.shape)])
    return out


# ---------------------------------------------------------------------------------------------
# Web-safe base64, with TF's decoder checks (only the last group of four may hold padding)
# ---------------------------------------------------------------------------------------------
_BASE64_CHARS = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")


@reference("EncodeBase64")
def _encode_base64(ctx, op, strings):
    strings = _strings(strings)
    pad = op.attrs["pad"]
    out = []
    for item in strings.reshape(-1):
        encoded = base64.urlsafe_b64encode(item if isinstance(item, bytes) else str(item).encode())
        out.append(encoded if pad else encoded.rstrip(b"="))
    return _object_array(out, strings.shape)


def _decode_one(op, data: bytes) -> bytes:
    remain = (len(data) - 1) % 4 + 1 if data else 0
    head, tail = data[: len(data) - remain], data[len(data) - remain :]
    if not set(head) <= _BASE64_CHARS:
        raise _invalid(op, "Invalid character found in base64.")
    if remain == 1:
        raise _invalid(op, "Base64 string length cannot be 1 modulo 4.")
    if remain == 4 and tail[3:] == b"=":
        tail = tail[:2] if tail[2:3] == b"=" else tail[:3]
    if not set(tail) <= _BASE64_CHARS:
        raise _invalid(op, "Invalid character found in base64.")
    body = head + tail
    return base64.urlsafe_b64decode(body + b"=" * (-len(body) % 4))


@reference("DecodeBase64")
def _decode_base64(ctx, op, strings):
    strings = _strings(strings)
    out = [
        _decode_one(op, item if isinstance(item, bytes) else str(item).encode())
        for item in strings.reshape(-1)
    ]
    return _object_array(out, strings.shape)
