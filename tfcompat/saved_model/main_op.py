"""``tf.saved_model.main_op``: the op a loaded SavedModel runs after restoring (TF1)."""

from __future__ import annotations

from tfcompat.util.tf_export import tf_export


@tf_export("saved_model.main_op.main_op")
def main_op():
    """Initialises the global and local variables and the tables (one ``group``)."""
    from tfcompat import variables
    from tfcompat.ops import control_flow_ops, lookup_ops

    init = variables.global_variables_initializer()
    init_local = variables.local_variables_initializer()
    init_tables = lookup_ops.tables_initializer()
    return control_flow_ops.group(init, init_local, init_tables)


@tf_export("saved_model.main_op.main_op_with_restore", "saved_model.main_op_with_restore")
def main_op_with_restore(restore_op_name):
    """The op named ``restore_op_name``, run after ``main_op``."""
    from tfcompat.framework import graph as graph_lib
    from tfcompat.ops import control_flow_ops

    with graph_lib.get_default_graph().control_dependencies([main_op()]):
        return control_flow_ops.group(restore_op_name)
