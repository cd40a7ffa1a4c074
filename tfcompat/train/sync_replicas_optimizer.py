"""``tf.train.SyncReplicasOptimizer``: synchronous data-parallel updates, built as TF builds
them from accumulators and a token queue.

Each replica's ``apply_gradients`` step pushes its gradients into one
``ConditionalAccumulator`` per variable (``SparseConditionalAccumulator`` for IndexedSlices),
stamped with the replica's ``sync_rep_local_step``; accumulators drop gradients older than
the global step. The chief's queue runner takes ``replicas_to_aggregate`` averaged
gradients from each accumulator, applies them with the wrapped optimizer (incrementing the
global step) and enqueues one token per replica into ``sync_token_q``; a replica's step
ends by dequeuing a token, which becomes its new local step. ``make_session_run_hook``
runs the initialisation (local step, accumulators' global step, the first tokens) and
starts the chief's queue runner, as TF's hook does.

Replicas are the processes of a TF cluster; tfcompat runs in one process, where this
optimizer serves programs written for it (``replicas_to_aggregate=1``, or several
threads sharing a Session standing in for replicas).
"""

from __future__ import annotations

from tfcompat.framework import scopes
from tfcompat.framework.graph import GraphKeys
from tfcompat.framework.indexed_slices import IndexedSlices
from tfcompat.framework.tensor import Tensor
from tfcompat.ops import array_ops, control_flow_ops, data_flow_more_ops, data_flow_ops, state_ops
from tfcompat.train import optimizer, queue_runner, session_manager, session_run_hook
from tfcompat.util.tf_export import tf_export


@tf_export("train.SyncReplicasOptimizer")
class SyncReplicasOptimizer(optimizer.Optimizer):
    """Wraps ``opt`` so that each update averages ``replicas_to_aggregate`` replicas'
    gradients (``total_num_replicas`` defaults to that number)."""

    def __init__(
        self,
        opt,
        replicas_to_aggregate,
        total_num_replicas=None,
        variable_averages=None,
        variables_to_average=None,
        use_locking=False,
        name="sync_replicas",
    ):
        if total_num_replicas is None:
            total_num_replicas = replicas_to_aggregate
        super().__init__(use_locking, name)
        self._opt = opt
        self._replicas_to_aggregate = replicas_to_aggregate
        self._total_num_replicas = total_num_replicas
        self._tokens_per_step = max(total_num_replicas, replicas_to_aggregate)
        self._variable_averages = variable_averages
        self._variables_to_average = variables_to_average
        self._gradients_applied = False
        self._global_step = None
        self._sync_token_queue = None
        self._chief_queue_runner = None
        self._accumulator_list = []

    def compute_gradients(self, *args, **kwargs):
        """The wrapped optimizer's gradients (per replica: clip them here if needed)."""
        return self._opt.compute_gradients(*args, **kwargs)

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        """Pushes the gradients into the accumulators and returns the replica's train op
        (which waits for a token); builds the chief's update and queue runner."""
        from tfcompat import variables as variables_lib

        grads_and_vars = list(grads_and_vars)
        if not grads_and_vars:
            raise ValueError("Must supply at least one variable")
        if global_step is None:
            raise ValueError("Global step is required to check staleness")
        self._global_step = global_step
        train_ops, aggregated, var_list = [], [], []
        graph = global_step.graph
        local_anchor = control_flow_ops.no_op()
        with graph.colocate_with(local_anchor):  # the local step lives with the replica
            self._local_step = variables_lib.VariableV1(
                initial_value=0,
                trainable=False,
                collections=[GraphKeys.LOCAL_VARIABLES],
                dtype=global_step.dtype.base_dtype,
                name="sync_rep_local_step",
            )
        self.local_step_init_op = state_ops.assign(self._local_step, global_step)
        chief_init_ops = [self.local_step_init_op]
        self.ready_for_local_init_op = variables_lib.report_uninitialized_variables(
            variables_lib.global_variables()
        )
        with scopes.name_scope(None, self._name):
            for grad, var in grads_and_vars:
                var_list.append(var)
                with graph.device(var.device):
                    if grad is None:
                        aggregated.append(None)
                        continue
                    if isinstance(grad, Tensor):
                        accum = data_flow_more_ops.ConditionalAccumulator(
                            grad.dtype, shape=var.get_shape(), shared_name=var.name + "/grad_accum"
                        )
                        train_ops.append(accum.apply_grad(grad, local_step=self._local_step))
                        aggregated.append(accum.take_grad(self._replicas_to_aggregate))
                    elif isinstance(grad, IndexedSlices):
                        accum = data_flow_more_ops.SparseConditionalAccumulator(
                            grad.dtype, shape=(), shared_name=var.name + "/grad_accum"
                        )
                        train_ops.append(
                            accum.apply_indexed_slices_grad(grad, local_step=self._local_step)
                        )
                        aggregated.append(
                            accum.take_indexed_slices_grad(self._replicas_to_aggregate)
                        )
                    else:
                        raise ValueError("Unknown grad type!")
                    self._accumulator_list.append((accum, var.device))
            with graph.device(global_step.device), scopes.name_scope(""):
                update_op = self._opt.apply_gradients(zip(aggregated, var_list), global_step)
                self._sync_token_queue = queue = data_flow_ops.FIFOQueue(
                    -1,
                    global_step.dtype.base_dtype,
                    shapes=(),
                    name="sync_token_q",
                    shared_name="sync_token_q",
                )
                with graph.control_dependencies(train_ops):
                    token = queue.dequeue()
                train_op = state_ops.assign(self._local_step, token)
                with graph.control_dependencies([update_op]):
                    tokens = array_ops.fill([self._tokens_per_step], global_step)
                    sync_op = queue.enqueue_many((tokens,))
                if self._variable_averages is not None:
                    with graph.control_dependencies([sync_op]):
                        sync_op = self._variable_averages.apply(self._variables_to_average)
                self._chief_queue_runner = queue_runner.QueueRunner(queue, [sync_op])
            for accum, device in self._accumulator_list:
                with graph.device(device):
                    chief_init_ops.append(accum.set_global_step(global_step, name="SetGlobalStep"))
            self.chief_init_op = control_flow_ops.group(*chief_init_ops)
            self._gradients_applied = True
            return train_op

    def get_chief_queue_runner(self):
        """The chief's QueueRunner: aggregate, apply, and enqueue the next tokens."""
        if not self._gradients_applied:
            raise ValueError("Should be called after apply_gradients().")
        return self._chief_queue_runner

    def get_slot(self, *args, **kwargs):
        return self._opt.get_slot(*args, **kwargs)

    def get_slot_names(self, *args, **kwargs):
        return self._opt.get_slot_names(*args, **kwargs)

    def variables(self):
        """The wrapped optimizer's variables (not the local step)."""
        return self._opt.variables()

    def get_init_tokens_op(self, num_tokens=-1):
        """Fills the token queue so the first step can finish (``num_tokens`` defaults to
        ``replicas_to_aggregate``)."""
        if not self._gradients_applied:
            raise ValueError("get_init_tokens_op() should be called after apply_gradients().")
        needed = self._replicas_to_aggregate - self._total_num_replicas
        if num_tokens == -1:
            num_tokens = self._replicas_to_aggregate
        elif num_tokens < needed:
            raise ValueError(
                f"Too few tokens to finish the first step: {num_tokens} (given) vs "
                f"{needed} (needed)"
            )
        graph = self._global_step.graph
        with graph.device(self._global_step.device), scopes.name_scope(""):
            if num_tokens > 0:
                tokens = array_ops.fill([num_tokens], self._global_step)
                return self._sync_token_queue.enqueue_many((tokens,))
            return control_flow_ops.no_op(name="no_init_tokens")

    def make_session_run_hook(self, is_chief, num_tokens=-1):
        """The hook that initialises the replica (and, on the chief, starts the updates)."""
        return _SyncReplicasOptimizerHook(self, is_chief, num_tokens)


class _SyncReplicasOptimizerHook(session_run_hook.SessionRunHook):
    def __init__(self, sync_optimizer, is_chief, num_tokens):
        self._sync_optimizer = sync_optimizer
        self._is_chief = is_chief
        self._num_tokens = num_tokens

    def begin(self):
        opt = self._sync_optimizer
        if not opt._gradients_applied:
            raise ValueError(
                "SyncReplicasOptimizer.apply_gradient should be called before using the hook."
            )
        self._ready_for_local_init_op = opt.ready_for_local_init_op
        if self._is_chief:
            self._local_init_op = opt.chief_init_op
            self._q_runner = opt.get_chief_queue_runner()
            self._init_tokens_op = opt.get_init_tokens_op(self._num_tokens)
        else:
            self._local_init_op = opt.local_step_init_op
            self._q_runner = None
            self._init_tokens_op = None

    def after_create_session(self, session, coord):
        ready, message = session_manager._ready(
            self._ready_for_local_init_op,
            session,
            "Model is not ready for SyncReplicasOptimizer local init.",
        )
        if not ready:
            raise RuntimeError(
                "Init operations did not make model ready for SyncReplicasOptimizer "
                f"local_init. Init op: {self._local_init_op.name}, error: {message}"
            )
        session.run(self._local_init_op)
        if self._init_tokens_op is not None:
            session.run(self._init_tokens_op)
        if self._q_runner is not None:
            self._q_runner.create_threads(session, coord=coord, daemon=True, start=True)
