"""String values as TF takes them (``tensor_util.to_numpy``): an object array of bytes,
str encoded as UTF-8, from every input form a feed or a constant may come in, with the
vectorised paths giving what element-by-element conversion gives."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import tfcompat as tf
from tests.oracle import tf1
from tfcompat.framework import dtypes, tensor_util

texts = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=6)


def _expected(values):
    return [v.encode("utf-8") if isinstance(v, str) else bytes(v) for v in values]


@given(st.lists(st.one_of(texts, st.binary(max_size=6)), max_size=8))
def test_every_input_form_gives_bytes(values):
    as_object = np.empty(len(values), dtype=object)
    as_object[:] = values
    for form in (values, as_object):
        out = tensor_util.to_numpy(form, dtypes.string)
        assert out.dtype == object and out.shape == (len(values),)
        assert list(out) == _expected(values)


@given(st.lists(st.binary(max_size=6), min_size=1, max_size=8))
def test_numpy_byte_arrays_convert_whole(values):
    fixed = np.array(values, dtype="S")  # numpy drops trailing NULs, as its elements do
    assert list(tensor_util.to_numpy(fixed, dtypes.string)) == [bytes(v) for v in fixed]


def test_unicode_arrays_are_encoded():
    out = tensor_util.to_numpy(np.array([["a", "é"], ["", "日本"]]), dtypes.string)
    assert out.dtype == object and out.tolist() == [[b"a", "é".encode()], [b"", "日本".encode()]]


def test_fed_object_array_is_not_aliased():
    """The feed is copied: changing the caller's array after the run changes nothing."""
    records = np.array([b"a", b"bc"], dtype=object)
    converted = tensor_util.to_numpy(records, dtypes.string)
    records[0] = b"changed"
    assert converted.tolist() == [b"a", b"bc"]


@pytest.mark.parametrize("odd", [2.5, 7])
def test_non_string_feed_raises_what_tf_raises(odd):
    """TF's feed conversion rejects the element in C++: InternalError naming its type."""
    messages = []
    for module in (tf, tf1()):
        with module.Graph().as_default():
            words = module.placeholder(module.string, [None])
            with module.Session() as sess:
                with pytest.raises(module.errors.InternalError) as raised:
                    sess.run(module.identity(words), {words: [b"a", odd]})
        messages.append(raised.value.message)
    # TF wraps it: "Graph execution error:\n\nUnsupported object type float".
    assert messages[0] == messages[1].rsplit("\n", 1)[-1]
    assert messages[0] == f"Unsupported object type {type(odd).__name__}"


def test_non_string_constant_raises_type_error():
    with pytest.raises(TypeError, match="Expected string, got 1 of type 'int' instead."):
        tensor_util.to_numpy(np.array([b"a", 1], dtype=object), dtypes.string)
