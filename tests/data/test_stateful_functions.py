"""Dataset functions that write resource variables, as TF runs them."""

from __future__ import annotations

import tfcompat
from tests.oracle import tf1


def _counted(tf):
    with tf.Graph().as_default():
        calls = tf.Variable(tf.constant(0, tf.int64), name="calls", use_resource=True)

        def count(x):
            # the write's result is read inside the function, after the write
            with tf.control_dependencies([tf.assign_add(calls, 1)]):
                return tf.identity(x) * 3 + calls.read_value()

        it = tf.data.make_initializable_iterator(tf.data.Dataset.range(4).map(count))
        nxt = it.get_next()
        with tf.Session() as sess:
            sess.run([calls.initializer, it.initializer])
            return [int(sess.run(nxt)) for _ in range(3)]


def test_map_function_writing_a_resource_variable_matches_tf():
    assert _counted(tfcompat) == _counted(tf1()) == [1, 5, 9]
