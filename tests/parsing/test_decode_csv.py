"""tf.decode_csv (TF's DecodeCSV) against TF 2.21: values, dtypes and shapes for quoted
fields, defaults, na_value, select_cols and number syntax; TF's errors (class and message,
naming the field and record) for malformed records; the GraphDef; and the TF1 pipeline
TextLineReader -> decode_csv -> tf.train.batch."""

import numpy as np
import pytest

import tfcompat
from tests.oracle import assert_parity, assert_same_graph_def, tf1


def _program(records, defaults, **kwargs):
    def program(tf):
        feed = tf.placeholder(tf.string, [None], name="records")
        columns = tf.decode_csv(feed, defaults(tf), **kwargs)
        return columns, {feed: np.array(records, dtype=object)}

    return program


VALID = {
    "mixed_types": ([b"1,2.5,x", b"3,,y"], lambda tf: [[0], [1.0], [""]], {}),
    "quoted": (
        [b'1,"a,b",3', b'2,"he said ""hi""",4', b'"",,5'],
        lambda tf: [[0], ["?"], [0]],
        {},
    ),
    "spaces_around_numbers": ([b"1, 2 ,3"], lambda tf: [[0], [0.0], [np.int64(0)]], {}),
    "na_value": ([b"1,NA,3", b"NA,4,NA"], lambda tf: [[-1], [7], [""]], {"na_value": "NA"}),
    "select_cols": (
        [b"1;2;3", b"4;5;6"],
        lambda tf: [[0], [0]],
        {"field_delim": ";", "select_cols": [0, 2]},
    ),
    "no_quote_delim": ([b'1,a"b'], lambda tf: [[0], [""]], {"use_quote_delim": False}),
    "trailing_delimiter": ([b"1,2,"], lambda tf: [[0], [0], ["d"]], {}),
    "only_delimiter": ([b","], lambda tf: [[0], [5]], {}),
    "number_syntax": (
        [b"0x10,1e3,inf,-nan,-7"],
        lambda tf: [[0.0], [0.0], [0.0], [tf.constant(0.0, tf.float64)], [np.int64(0)]],
        {},
    ),
    "int64_range": ([b"99999999999,1"], lambda tf: [tf.constant([0], tf.int64), [0]], {}),
    "scalar_defaults": ([b"1,", b",2"], lambda tf: [tf.constant(9), tf.constant(8.5)], {}),
}


@pytest.mark.parametrize("case", sorted(VALID))
def test_decode_csv_matches_tf(case):
    records, defaults, kwargs = VALID[case]
    assert_parity(_program(records, defaults, **kwargs), backends=("xla",))


def test_decode_csv_of_a_matrix_of_records_keeps_its_shape():
    def program(tf):
        return tf.decode_csv(tf.constant([["1,a", "2,b"], ["3,c", "4,d"]]), [[0], [""]])

    assert_parity(program, backends=("xla",))


def test_decode_csv_graph_def_matches_tf():
    records, defaults, kwargs = VALID["na_value"]
    assert_same_graph_def(_program(records, defaults, **kwargs))


def _error(tf, records, defaults, **kwargs):
    with tf.Graph().as_default():
        feed = tf.placeholder(tf.string, [None])
        columns = tf.decode_csv(feed, defaults(tf), **kwargs)
        with tf.Session() as sess:
            with pytest.raises(tf.errors.OpError) as raised:
                sess.run(columns, {feed: np.array(records, dtype=object)})
    return type(raised.value).__name__, raised.value.message


ERRORS = {
    "too_few_fields": ([b"1,2", b"1,2,3"], lambda tf: [[0], [0], [0]], {}),
    "required_missing": ([b"1,2,3", b"1,,3"], lambda tf: [[0], tf.constant([], tf.int32), [0]], {}),
    "not_an_int": ([b"1,x,3"], lambda tf: [[0], [0], [0]], {}),
    "not_a_float": ([b"1,1_0"], lambda tf: [[0], [0.0]], {}),
    "int32_overflow": ([b"99999999999,1"], lambda tf: [[0], [0]], {}),
    "unterminated_quote": ([b'1,"2'], lambda tf: [[0], [""]], {}),
    "quote_in_unquoted_field": ([b'1,a"b'], lambda tf: [[0], [""]], {}),
    "unescaped_quote": ([b'"a"b,c'], lambda tf: [[""], [""]], {}),
    "line_end_in_field": ([b"1,2\n"], lambda tf: [[0], [0]], {}),
    "empty_record": ([b""], lambda tf: [[0]], {}),
    "long_delimiter": ([b"1,2"], lambda tf: [[0], [0]], {"field_delim": ";;"}),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_decode_csv_errors_match_tf(case):
    records, defaults, kwargs = ERRORS[case]
    kind, message = _error(tfcompat, records, defaults, **kwargs)
    their_kind, their_message = _error(tf1(), records, defaults, **kwargs)
    assert kind == their_kind == "InvalidArgumentError"
    assert message.split("\n")[0] in their_message


@pytest.mark.parametrize(
    "kwargs, defaults, text",
    [
        ({"select_cols": [2, 1]}, [[0], [0]], "select_cols is not strictly increasing."),
        ({"select_cols": [-1, 1]}, [[0], [0]], "select_cols contains negative values."),
        ({"select_cols": [0, 1, 2]}, [[0], [0]], "Length of select_cols and record_defaults"),
        ({}, [[0, 1], [0]], "Shape of a default must be a length-0 or length-1 vector"),
    ],
)
def test_decode_csv_construction_errors_match_tf(kwargs, defaults, text):
    for tf in (tfcompat, tf1()):
        with tf.Graph().as_default():
            with pytest.raises(ValueError, match=text.replace(".", r"\.")):
                tf.decode_csv(tf.constant(["1,2"]), defaults, **kwargs)


def _csv_pipeline(tf, paths):
    queue = tf.train.string_input_producer(paths, num_epochs=1, shuffle=False)
    _, line = tf.TextLineReader(skip_header_lines=1).read(queue)
    label, x, name = tf.decode_csv(line, [[0], [0.0], ["none"]])
    return tf.train.batch([label, x * 2.0, name], batch_size=3, allow_smaller_final_batch=True)


def test_text_line_reader_decode_csv_batch_pipeline_matches_tf(tmp_path):
    paths = []
    for k in range(2):
        path = tmp_path / f"part{k}.csv"
        rows = "".join(f'{k * 10 + i},{i * 0.5},"n,{i}"\n' for i in range(4))
        path.write_text("label,x,name\n" + rows + f"{k},,\n")
        paths.append(str(path))
    outputs = {}
    for tf in (tfcompat, tf1()):
        with tf.Graph().as_default():
            batch = _csv_pipeline(tf, paths)
            with tf.Session() as sess:
                sess.run(tf.local_variables_initializer())
                coord = tf.train.Coordinator()
                threads = tf.train.start_queue_runners(sess, coord)
                got = []
                try:
                    while True:
                        got.append(sess.run(batch))
                except tf.errors.OutOfRangeError:
                    pass
                coord.request_stop()
                coord.join(threads)
        outputs[tf] = got
    ours, theirs = outputs.values()
    assert [len(b[0]) for b in ours] == [len(b[0]) for b in theirs] == [3, 3, 3, 1]
    for a, b in zip(ours, theirs):
        for x, y in zip(a, b):
            np.testing.assert_array_equal(x, y)
            assert np.asarray(x).dtype == np.asarray(y).dtype
