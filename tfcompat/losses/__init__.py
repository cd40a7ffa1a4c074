"""``tf.losses``: TF1 loss functions, their reductions and the loss collections."""

from tfcompat.losses.losses_impl import (  # noqa: F401
    Reduction,
    absolute_difference,
    compute_weighted_loss,
    cosine_distance,
    hinge_loss,
    huber_loss,
    log_loss,
    mean_pairwise_squared_error,
    mean_squared_error,
    sigmoid_cross_entropy,
    softmax_cross_entropy,
    sparse_softmax_cross_entropy,
)
from tfcompat.losses.util import (  # noqa: F401
    add_loss,
    get_losses,
    get_regularization_loss,
    get_regularization_losses,
    get_total_loss,
)
