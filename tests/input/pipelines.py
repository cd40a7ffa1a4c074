"""Shared runner of the input-pipeline tests: a queue-fed program run to the end of its
input, under tfcompat or TF."""

from tests.oracle import graph_def_nodes


def run_pipeline(tf, build, max_steps=100):
    """Builds ``build(tf) -> fetches``, runs the queue runners and fetches until the
    input ends (OutOfRangeError) or ``max_steps``; returns (fetched values, GraphDef
    nodes)."""
    with tf.Graph().as_default() as graph:
        fetches = build(tf)
        with tf.Session() as sess:
            sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
            coord = tf.train.Coordinator()
            threads = tf.train.start_queue_runners(sess, coord)
            out = []
            try:
                for _ in range(max_steps):
                    if coord.should_stop():
                        break
                    out.append(sess.run(fetches))
            except tf.errors.OutOfRangeError:
                pass
            finally:
                coord.request_stop()
            coord.join(threads, stop_grace_period_secs=10)
    return out, graph_def_nodes(graph)
