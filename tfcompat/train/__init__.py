"""``tf.train``: TF1 optimizers, slots, the global step, learning-rate schedules, checkpoints,
hooks and the session helpers (``Supervisor``, ``SessionManager``, ``warm_start``)."""

from tfcompat.framework.meta_graph import export_meta_graph, import_meta_graph
from tfcompat.train import (  # noqa: F401 - tf.train.Saver & co, hooks, MonitoredTrainingSession
    basic_loops,
    basic_session_run_hooks,
    checkpoint_iterators,
    checkpoint_management,
    checkpoint_utils,
    extra_hooks,
    input,
    looper_thread,
    monitored_session,
    noisy_decay,
    queue_runner,
    saver,
    session_manager,
    session_run_hook,
    slot_creator,
    supervisor,
    sync_replicas_optimizer,
    warm_starting_util,
)
from tfcompat.train.adadelta import AdadeltaOptimizer
from tfcompat.train.adagrad import AdagradOptimizer
from tfcompat.train.adagrad_da import AdagradDAOptimizer
from tfcompat.train.adam import AdamOptimizer
from tfcompat.train.basic_loops import basic_train_loop
from tfcompat.train.checkpoint_iterators import checkpoints_iterator
from tfcompat.train.coordinator import Coordinator, start_queue_runners
from tfcompat.train.extra_hooks import FeedFnHook, FinalOpsHook, GlobalStepWaiterHook
from tfcompat.train.ftrl import FtrlOptimizer
from tfcompat.train.gradient_descent import GradientDescentOptimizer
from tfcompat.train.learning_rate_decay import (
    cosine_decay,
    exponential_decay,
    inverse_time_decay,
    natural_exp_decay,
    piecewise_constant,
    polynomial_decay,
)
from tfcompat.train.looper_thread import LooperThread
from tfcompat.train.momentum import MomentumOptimizer
from tfcompat.train.moving_averages import ExponentialMovingAverage
from tfcompat.train.noisy_decay import noisy_linear_cosine_decay
from tfcompat.train.optax_optimizer import OptaxOptimizer
from tfcompat.train.optimizer import Optimizer
from tfcompat.train.proximal_adagrad import ProximalAdagradOptimizer
from tfcompat.train.proximal_gradient_descent import ProximalGradientDescentOptimizer
from tfcompat.train.rmsprop import RMSPropOptimizer
from tfcompat.train.session_manager import SessionManager
from tfcompat.train.supervisor import Supervisor
from tfcompat.train.training_util import (
    assert_global_step,
    create_global_step,
    get_global_step,
    get_or_create_global_step,
    global_step,
)
from tfcompat.train.warm_starting_util import VocabInfo, warm_start

__all__ = [
    "Coordinator",
    "start_queue_runners",
    "ExponentialMovingAverage",
    "Optimizer",
    "GradientDescentOptimizer",
    "MomentumOptimizer",
    "AdagradOptimizer",
    "AdagradDAOptimizer",
    "AdamOptimizer",
    "RMSPropOptimizer",
    "AdadeltaOptimizer",
    "FtrlOptimizer",
    "ProximalGradientDescentOptimizer",
    "ProximalAdagradOptimizer",
    "OptaxOptimizer",
    "assert_global_step",
    "create_global_step",
    "get_global_step",
    "get_or_create_global_step",
    "global_step",
    "cosine_decay",
    "exponential_decay",
    "inverse_time_decay",
    "natural_exp_decay",
    "piecewise_constant",
    "polynomial_decay",
    "slot_creator",
    "export_meta_graph",
    "import_meta_graph",
    "basic_train_loop",
    "checkpoints_iterator",
    "FeedFnHook",
    "FinalOpsHook",
    "GlobalStepWaiterHook",
    "LooperThread",
    "noisy_linear_cosine_decay",
    "SessionManager",
    "Supervisor",
    "VocabInfo",
    "warm_start",
]
