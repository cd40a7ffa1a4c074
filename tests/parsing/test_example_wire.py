"""The vectorised wire reader of Example batches agrees with the protobuf runtime on every
key (random records: any keys, list kinds and lengths, empty lists, missing lists,
duplicate keys, negative and large ints), and hands non-canonical encodings (unpacked
lists, unknown fields) back to the protobuf path, which TF 2.21 agrees with."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lowering.reference import example_wire
from lowering.reference.parsing import _ProtoSource
from tests.oracle import assert_parity
from tfcompat.framework.proto import example_pb2, feature_pb2

# Keys are compared 8 bytes at a time: lengths around 8 and keys sharing long prefixes.
KEYS = [
    "a",
    "b",
    "abcdefgh",
    "abcdefgh_",
    "long_feature_name/with.dots",
    "long_feature_name/with.dash",
    "é",
    "",
]

_values = {
    example_wire.FLOAT: st.lists(st.floats(width=32, allow_nan=False), max_size=6),
    example_wire.INT64: st.lists(st.integers(-(2**63), 2**63 - 1), max_size=6),
    example_wire.BYTES: st.lists(st.binary(max_size=5), max_size=4),
}
_feature = st.one_of(
    st.none(), *(st.tuples(st.just(kind), values) for kind, values in _values.items())
)
_record = st.lists(st.tuples(st.sampled_from(KEYS), _feature), max_size=6)


def _serialize(entries):
    """A record with the map entries in the given order (duplicates kept: the last wins)."""
    out = b""
    for key, feature in entries:
        message = feature_pb2.Feature()
        if feature is not None:
            kind, values = feature
            target = {
                example_wire.FLOAT: message.float_list,
                example_wire.INT64: message.int64_list,
                example_wire.BYTES: message.bytes_list,
            }[kind]
            target.value.extend(values)
            target.SetInParent()
        features = feature_pb2.Features()
        features.feature[key].CopyFrom(message)
        out += example_pb2.Example(features=features).SerializeToString()
    return out  # concatenated Examples merge: one record holding every entry


@settings(max_examples=150, deadline=None)
@given(st.lists(_record, max_size=5))
def test_wire_reader_matches_protobuf(records):
    serialized = [_serialize(r) for r in records]
    wire = example_wire.Batch(serialized)
    proto = _ProtoSource(None, serialized)
    requests = [
        (key.encode(), kind)
        for key in KEYS + ["absent"]
        for kind in (example_wire.FLOAT, example_wire.INT64, example_wire.BYTES)
    ]
    # All columns read together, and one by one.
    for ours, theirs in zip(wire.columns(requests), proto.columns(requests)):
        _assert_same_column(ours, theirs)
    for request in requests[::5]:
        _assert_same_column(wire.column(*request), proto.column(*request))


def _assert_same_column(ours, theirs):
    for a, b in zip(ours, theirs, strict=True):
        np.testing.assert_array_equal(a, b)
        assert a.dtype == b.dtype
        if a.dtype == object:
            assert all(type(v) is bytes for v in a)


def test_many_keys_read_together():
    """Hundreds of keys (short, 8-byte and long ones sharing prefixes) requested at once,
    some absent, some present in only a few records."""
    rng = np.random.default_rng(0)
    keys = [f"f{i}" for i in range(150)] + [f"feature/{i:07d}" for i in range(150)]
    records = [
        _serialize(
            [(key, (example_wire.INT64, [int(rng.integers(-9, 9))])) for key in keys[r % 7 :: 7]]
        )
        for r in range(20)
    ]
    requests = [(key.encode(), example_wire.INT64) for key in keys + ["f150", "feature/"]]
    ours = example_wire.Batch(records).columns(requests)
    for mine, theirs in zip(ours, _ProtoSource(None, records).columns(requests), strict=True):
        _assert_same_column(mine, theirs)


@pytest.mark.parametrize(
    "values",
    [
        [b"x" * 300, b"", b"y", b"z" * 20000],  # long values (3-byte lengths): sliced
        [b"ab\0", b"\0", b"\0\0c", b"abcd"],  # trailing zero bytes survive the byte matrix
        [b"short", b"a bit longer", b""],
        [b"12345678", b"abcdefgh", b"1234567\0"],  # whole 8-byte words: no padding
        [b"0123456789abcdef", b"fedcba9876543210"],
    ],
)
def test_string_columns(values):
    records = [_serialize([("s", (example_wire.BYTES, values[i:]))]) for i in range(len(values))]
    records.append(b"")  # an empty Example: no strings
    request = [(b"s", example_wire.BYTES)]
    ours = example_wire.Batch(records).columns(request)[0]
    _assert_same_column(ours, _ProtoSource(None, records).columns(request)[0])
    assert list(ours[2][: len(values)]) == values


def _unpacked_floats(values):
    """A FloatList written unpacked (one fixed32 field per value): valid, not canonical."""
    body = b"".join(b"\x0d" + np.float32(v).tobytes() for v in values)
    feature = b"\x12" + bytes([len(body)]) + body
    entry = b"\x0a\x01x" + b"\x12" + bytes([len(feature)]) + feature
    features = b"\x0a" + bytes([len(entry)]) + entry
    return b"\x0a" + bytes([len(features)]) + features


def _value_before_key():
    """A map entry holding its value before its key: valid, not canonical."""
    feature = b"\x12\x06\x0a\x04" + np.float32(2.5).tobytes()
    entry = b"\x12" + bytes([len(feature)]) + feature + b"\x0a\x01x"
    features = b"\x0a" + bytes([len(entry)]) + entry
    return b"\x0a" + bytes([len(features)]) + features


NON_CANONICAL = {
    "unpacked_floats": _unpacked_floats([1.5, -2.0]),
    "value_before_key": _value_before_key(),
    "unknown_example_field": example_pb2.Example().SerializeToString() + b"\x10\x07",
}


@pytest.mark.parametrize("case", sorted(NON_CANONICAL))
def test_non_canonical_records_fall_back(case):
    record = NON_CANONICAL[case]
    with pytest.raises(example_wire.NotCanonical):
        example_wire.Batch([record]).column(b"x", example_wire.FLOAT)

    def program(tf):
        serialized = tf.placeholder(tf.string, [None])
        parsed = tf.parse_example(serialized, {"x": tf.VarLenFeature(tf.float32)})
        return parsed, {serialized: [record, record]}

    assert_parity(program)


def test_truncated_record_is_not_canonical():
    record = example_pb2.Example(
        features=feature_pb2.Features(
            feature={"x": feature_pb2.Feature(int64_list=feature_pb2.Int64List(value=[300]))}
        )
    ).SerializeToString()
    with pytest.raises(example_wire.NotCanonical):
        example_wire.Batch([record[:-1]]).column(b"x", example_wire.INT64)


# ---------------------------------------------------------------------------------------------
# Record layouts: batches of records that differ only in their values skip the walk
# ---------------------------------------------------------------------------------------------
_layout_entry = st.tuples(
    st.sampled_from(KEYS),
    st.one_of(
        st.tuples(st.just(example_wire.FLOAT), st.integers(0, 3)),
        st.tuples(st.just(example_wire.INT64), st.integers(0, 3)),
        st.tuples(st.just(example_wire.BYTES), st.lists(st.integers(0, 9), max_size=3)),
        st.none(),
    ),
)


@pytest.fixture(autouse=True)
def _no_remembered_layouts(monkeypatch):
    """Each test starts with no layouts remembered (nor lengths to walk for a while)."""
    monkeypatch.setattr(example_wire, "_LAYOUTS", {})


def _record_of(layout, draw_value):
    """A record of ``layout`` ((key, (kind, shape) or None) per entry) with drawn values;
    int64s below 128 (one varint byte), so records of one layout have one length."""
    entries = []
    for key, spec in layout:
        if spec is None:
            entries.append((key, None))
            continue
        kind, shape = spec
        if kind == example_wire.BYTES:
            values = [bytes(draw_value(st.binary(min_size=n, max_size=n))) for n in shape]
        elif kind == example_wire.FLOAT:
            values = draw_value(st.lists(st.floats(width=32), min_size=shape, max_size=shape))
        else:
            values = draw_value(st.lists(st.integers(0, 127), min_size=shape, max_size=shape))
        entries.append((key, (kind, values)))
    return _serialize(entries)


@settings(max_examples=80, deadline=None)
@given(st.lists(_layout_entry, min_size=1, max_size=6), st.integers(2, 6), st.data())
def test_records_of_one_layout_read_like_protobuf(layout, count, data):
    example_wire._LAYOUTS.clear()  # per example (the fixture runs once per test)
    records = [_record_of(layout, data.draw) for _ in range(count)]
    assume_one_length = len(set(map(len, records))) == 1
    wire = example_wire.Batch(records)
    assert (wire.layout is not None) == assume_one_length
    requests = [
        (key.encode(), kind)
        for key in KEYS + ["absent"]
        for kind in (example_wire.FLOAT, example_wire.INT64, example_wire.BYTES)
    ]
    proto = _ProtoSource(None, records)
    for ours, theirs in zip(wire.columns(requests), proto.columns(requests)):
        _assert_same_column(ours, theirs)


def _int64_record(values, key="ids"):
    return _serialize([(key, (example_wire.INT64, values)), ("x", (example_wire.FLOAT, [1.5]))])


def test_a_layout_reads_each_records_varints():
    """[300] and [1, 2] pack into two bytes each: one layout, and each record's count is
    read from its own bytes."""
    records = [_int64_record([300]), _int64_record([1, 2]), _int64_record([5, 6])]
    assert len(set(map(len, records))) == 1
    wire = example_wire.Batch(records)
    assert wire.layout is not None
    ours = wire.column(b"ids", example_wire.INT64)
    _assert_same_column(ours, _ProtoSource(None, records).column(b"ids", example_wire.INT64))
    np.testing.assert_array_equal(ours[1], [1, 2, 2])


def test_records_of_one_length_but_other_structure_are_walked():
    """A remembered layout is checked on every batch: records of its length whose keys or
    list kinds differ are walked, and read right."""
    first = [_int64_record([1]), _int64_record([2])]
    assert example_wire.Batch(first).layout is not None
    other = [_int64_record([1], key="idz"), _int64_record([3])]  # same length, other key
    assert len(set(map(len, first + other))) == 1
    wire = example_wire.Batch(other)
    assert wire.layout is None
    assert example_wire.Batch(first).layout is None  # walked for a while after a miss
    for key in (b"ids", b"idz"):
        _assert_same_column(
            wire.column(key, example_wire.INT64),
            _ProtoSource(None, other).column(key, example_wire.INT64),
        )
