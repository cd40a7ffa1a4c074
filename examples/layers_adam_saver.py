"""A legacy TF1 training script, unmodified: tf.layers + tf.losses + AdamOptimizer + global
step + Saver, the shape of most TF1 model code.

    tfcompat run examples/layers_adam_saver.py   # on JAX/XLA, then a summary of what lowered
    python examples/layers_adam_saver.py         # the same file under TensorFlow itself
"""

import os
import tempfile

import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_v2_behavior()

rng = np.random.default_rng(0)
features = rng.normal(size=(1024, 20)).astype(np.float32)
labels = (features[:, :3].sum(axis=1) > 0).astype(np.int64)

x = tf.placeholder(tf.float32, [None, 20], name="x")
y = tf.placeholder(tf.int64, [None], name="y")
init = tf.constant_initializer
hidden = tf.layers.dense(
    x, 32, activation=tf.nn.relu, kernel_initializer=init(rng.normal(0, 0.2, (20, 32)))
)
logits = tf.layers.dense(hidden, 2, kernel_initializer=init(rng.normal(0, 0.2, (32, 2))))
loss = tf.losses.sparse_softmax_cross_entropy(labels=y, logits=logits)
global_step = tf.train.get_or_create_global_step()
train = tf.train.AdamOptimizer(0.01).minimize(loss, global_step=global_step)
correct = tf.equal(tf.argmax(logits, axis=1), y)
accuracy = tf.reduce_mean(tf.cast(correct, tf.float32))
saver = tf.train.Saver()

checkpoint_dir = tempfile.mkdtemp()
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for step in range(200):
        lo = (step % 8) * 128
        _, loss_value = sess.run(
            [train, loss], {x: features[lo : lo + 128], y: labels[lo : lo + 128]}
        )
        if step % 50 == 0 or step == 199:
            acc = sess.run(accuracy, {x: features, y: labels})
            print(f"step {step:4d}  loss {loss_value:.4f}  accuracy {acc:.3f}")
    path = saver.save(sess, os.path.join(checkpoint_dir, "model"), global_step=global_step)

with tf.Session() as sess:
    saver.restore(sess, path)
    restored = sess.run([global_step, accuracy], {x: features, y: labels})
    print(
        f"restored {os.path.basename(path)}: global_step {restored[0]}, accuracy {restored[1]:.3f}"
    )
