"""A legacy TensorFlow 1.x program, unmodified: logistic regression trained by hand-written
gradient steps (``tf.assign_sub``), the way pre-optimizer TF1 tutorials did it.

    tfcompat run examples/logistic_regression.py    # runs on JAX/XLA, then shows what was lowered
    python examples/logistic_regression.py          # the same file under TensorFlow itself
"""

import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_v2_behavior()

FEATURES, BATCH, STEPS, LEARNING_RATE = 8, 256, 300, 0.5

# A linearly separable problem with a known answer.
rng = np.random.default_rng(0)
true_w = rng.normal(size=(FEATURES, 1)).astype(np.float32)
data = rng.normal(size=(BATCH * 8, FEATURES)).astype(np.float32)
labels = (data @ true_w > 0).astype(np.float32)

x = tf.placeholder(tf.float32, [None, FEATURES], name="x")
y = tf.placeholder(tf.float32, [None, 1], name="y")
w = tf.Variable(np.zeros((FEATURES, 1), np.float32), name="w")
b = tf.Variable(0.0, name="b")

logits = tf.matmul(x, w) + b
prob = tf.sigmoid(logits)
eps = 1e-7
loss = -tf.reduce_mean(y * tf.log(prob + eps) + (1.0 - y) * tf.log(1.0 - prob + eps))
accuracy = tf.reduce_mean(tf.cast(tf.equal(prob > 0.5, y > 0.5), tf.float32))

# d(loss)/d(logits) = prob - y: the update written out by hand, as TF1 code once was.
err = (prob - y) / tf.cast(tf.shape(x)[0], tf.float32)
train = tf.group(
    tf.assign_sub(w, LEARNING_RATE * tf.matmul(x, err, transpose_a=True)),
    tf.assign_sub(b, LEARNING_RATE * tf.reduce_sum(err)),
)

with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for step in range(STEPS):
        lo = (step % 8) * BATCH
        feed = {x: data[lo : lo + BATCH], y: labels[lo : lo + BATCH]}
        _, loss_value = sess.run([train, loss], feed)
        if step % 50 == 0 or step == STEPS - 1:
            acc = sess.run(accuracy, {x: data, y: labels})
            print(f"step {step:4d}  loss {loss_value:.4f}  accuracy {acc:.3f}")
