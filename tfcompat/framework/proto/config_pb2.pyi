from tfcompat.framework.proto import graph_pb2 as _graph_pb2
from tfcompat.framework.proto import step_stats_pb2 as _step_stats_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class GPUOptions(_message.Message):
    __slots__ = ("per_process_gpu_memory_fraction", "allocator_type", "deferred_deletion_bytes", "allow_growth", "visible_device_list", "polling_active_delay_usecs", "polling_inactive_delay_msecs", "force_gpu_compatible", "experimental")
    class Experimental(_message.Message):
        __slots__ = ("virtual_devices", "use_unified_memory", "num_dev_to_dev_copy_streams", "collective_ring_order", "timestamped_allocator", "kernel_tracker_max_interval", "kernel_tracker_max_bytes", "kernel_tracker_max_pending", "internal_fragmentation_fraction", "use_cuda_malloc_async", "disallow_retry_on_allocation_failure", "gpu_host_mem_limit_in_mb", "gpu_host_mem_disallow_growth", "num_virtual_devices_per_gpu", "gpu_system_memory_size_in_mb", "populate_pjrt_gpu_client_creation_info", "node_id", "stream_merge_options")
        class VirtualDevices(_message.Message):
            __slots__ = ("memory_limit_mb", "priority", "device_ordinal")
            MEMORY_LIMIT_MB_FIELD_NUMBER: _ClassVar[int]
            PRIORITY_FIELD_NUMBER: _ClassVar[int]
            DEVICE_ORDINAL_FIELD_NUMBER: _ClassVar[int]
            memory_limit_mb: _containers.RepeatedScalarFieldContainer[float]
            priority: _containers.RepeatedScalarFieldContainer[int]
            device_ordinal: _containers.RepeatedScalarFieldContainer[int]
            def __init__(self, memory_limit_mb: _Optional[_Iterable[float]] = ..., priority: _Optional[_Iterable[int]] = ..., device_ordinal: _Optional[_Iterable[int]] = ...) -> None: ...
        class StreamMergeOptions(_message.Message):
            __slots__ = ("merge_host_to_device_stream", "merge_device_to_host_stream", "merge_device_to_device_stream")
            MERGE_HOST_TO_DEVICE_STREAM_FIELD_NUMBER: _ClassVar[int]
            MERGE_DEVICE_TO_HOST_STREAM_FIELD_NUMBER: _ClassVar[int]
            MERGE_DEVICE_TO_DEVICE_STREAM_FIELD_NUMBER: _ClassVar[int]
            merge_host_to_device_stream: bool
            merge_device_to_host_stream: bool
            merge_device_to_device_stream: bool
            def __init__(self, merge_host_to_device_stream: bool = ..., merge_device_to_host_stream: bool = ..., merge_device_to_device_stream: bool = ...) -> None: ...
        VIRTUAL_DEVICES_FIELD_NUMBER: _ClassVar[int]
        USE_UNIFIED_MEMORY_FIELD_NUMBER: _ClassVar[int]
        NUM_DEV_TO_DEV_COPY_STREAMS_FIELD_NUMBER: _ClassVar[int]
        COLLECTIVE_RING_ORDER_FIELD_NUMBER: _ClassVar[int]
        TIMESTAMPED_ALLOCATOR_FIELD_NUMBER: _ClassVar[int]
        KERNEL_TRACKER_MAX_INTERVAL_FIELD_NUMBER: _ClassVar[int]
        KERNEL_TRACKER_MAX_BYTES_FIELD_NUMBER: _ClassVar[int]
        KERNEL_TRACKER_MAX_PENDING_FIELD_NUMBER: _ClassVar[int]
        INTERNAL_FRAGMENTATION_FRACTION_FIELD_NUMBER: _ClassVar[int]
        USE_CUDA_MALLOC_ASYNC_FIELD_NUMBER: _ClassVar[int]
        DISALLOW_RETRY_ON_ALLOCATION_FAILURE_FIELD_NUMBER: _ClassVar[int]
        GPU_HOST_MEM_LIMIT_IN_MB_FIELD_NUMBER: _ClassVar[int]
        GPU_HOST_MEM_DISALLOW_GROWTH_FIELD_NUMBER: _ClassVar[int]
        NUM_VIRTUAL_DEVICES_PER_GPU_FIELD_NUMBER: _ClassVar[int]
        GPU_SYSTEM_MEMORY_SIZE_IN_MB_FIELD_NUMBER: _ClassVar[int]
        POPULATE_PJRT_GPU_CLIENT_CREATION_INFO_FIELD_NUMBER: _ClassVar[int]
        NODE_ID_FIELD_NUMBER: _ClassVar[int]
        STREAM_MERGE_OPTIONS_FIELD_NUMBER: _ClassVar[int]
        virtual_devices: _containers.RepeatedCompositeFieldContainer[GPUOptions.Experimental.VirtualDevices]
        use_unified_memory: bool
        num_dev_to_dev_copy_streams: int
        collective_ring_order: str
        timestamped_allocator: bool
        kernel_tracker_max_interval: int
        kernel_tracker_max_bytes: int
        kernel_tracker_max_pending: int
        internal_fragmentation_fraction: float
        use_cuda_malloc_async: bool
        disallow_retry_on_allocation_failure: bool
        gpu_host_mem_limit_in_mb: float
        gpu_host_mem_disallow_growth: bool
        num_virtual_devices_per_gpu: int
        gpu_system_memory_size_in_mb: int
        populate_pjrt_gpu_client_creation_info: bool
        node_id: int
        stream_merge_options: GPUOptions.Experimental.StreamMergeOptions
        def __init__(self, virtual_devices: _Optional[_Iterable[_Union[GPUOptions.Experimental.VirtualDevices, _Mapping]]] = ..., use_unified_memory: bool = ..., num_dev_to_dev_copy_streams: _Optional[int] = ..., collective_ring_order: _Optional[str] = ..., timestamped_allocator: bool = ..., kernel_tracker_max_interval: _Optional[int] = ..., kernel_tracker_max_bytes: _Optional[int] = ..., kernel_tracker_max_pending: _Optional[int] = ..., internal_fragmentation_fraction: _Optional[float] = ..., use_cuda_malloc_async: bool = ..., disallow_retry_on_allocation_failure: bool = ..., gpu_host_mem_limit_in_mb: _Optional[float] = ..., gpu_host_mem_disallow_growth: bool = ..., num_virtual_devices_per_gpu: _Optional[int] = ..., gpu_system_memory_size_in_mb: _Optional[int] = ..., populate_pjrt_gpu_client_creation_info: bool = ..., node_id: _Optional[int] = ..., stream_merge_options: _Optional[_Union[GPUOptions.Experimental.StreamMergeOptions, _Mapping]] = ...) -> None: ...
    PER_PROCESS_GPU_MEMORY_FRACTION_FIELD_NUMBER: _ClassVar[int]
    ALLOCATOR_TYPE_FIELD_NUMBER: _ClassVar[int]
    DEFERRED_DELETION_BYTES_FIELD_NUMBER: _ClassVar[int]
    ALLOW_GROWTH_FIELD_NUMBER: _ClassVar[int]
    VISIBLE_DEVICE_LIST_FIELD_NUMBER: _ClassVar[int]
    POLLING_ACTIVE_DELAY_USECS_FIELD_NUMBER: _ClassVar[int]
    POLLING_INACTIVE_DELAY_MSECS_FIELD_NUMBER: _ClassVar[int]
    FORCE_GPU_COMPATIBLE_FIELD_NUMBER: _ClassVar[int]
    EXPERIMENTAL_FIELD_NUMBER: _ClassVar[int]
    per_process_gpu_memory_fraction: float
    allocator_type: str
    deferred_deletion_bytes: int
    allow_growth: bool
    visible_device_list: str
    polling_active_delay_usecs: int
    polling_inactive_delay_msecs: int
    force_gpu_compatible: bool
    experimental: GPUOptions.Experimental
    def __init__(self, per_process_gpu_memory_fraction: _Optional[float] = ..., allocator_type: _Optional[str] = ..., deferred_deletion_bytes: _Optional[int] = ..., allow_growth: bool = ..., visible_device_list: _Optional[str] = ..., polling_active_delay_usecs: _Optional[int] = ..., polling_inactive_delay_msecs: _Optional[int] = ..., force_gpu_compatible: bool = ..., experimental: _Optional[_Union[GPUOptions.Experimental, _Mapping]] = ...) -> None: ...

class OptimizerOptions(_message.Message):
    __slots__ = ("do_common_subexpression_elimination", "do_constant_folding", "opt_level", "do_function_inlining", "global_jit_level", "max_folded_constant_in_bytes", "cpu_global_jit")
    class Level(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        L1: _ClassVar[OptimizerOptions.Level]
        L0: _ClassVar[OptimizerOptions.Level]
    L1: OptimizerOptions.Level
    L0: OptimizerOptions.Level
    class GlobalJitLevel(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        DEFAULT: _ClassVar[OptimizerOptions.GlobalJitLevel]
        OFF: _ClassVar[OptimizerOptions.GlobalJitLevel]
        ON_1: _ClassVar[OptimizerOptions.GlobalJitLevel]
        ON_2: _ClassVar[OptimizerOptions.GlobalJitLevel]
    DEFAULT: OptimizerOptions.GlobalJitLevel
    OFF: OptimizerOptions.GlobalJitLevel
    ON_1: OptimizerOptions.GlobalJitLevel
    ON_2: OptimizerOptions.GlobalJitLevel
    DO_COMMON_SUBEXPRESSION_ELIMINATION_FIELD_NUMBER: _ClassVar[int]
    DO_CONSTANT_FOLDING_FIELD_NUMBER: _ClassVar[int]
    OPT_LEVEL_FIELD_NUMBER: _ClassVar[int]
    DO_FUNCTION_INLINING_FIELD_NUMBER: _ClassVar[int]
    GLOBAL_JIT_LEVEL_FIELD_NUMBER: _ClassVar[int]
    MAX_FOLDED_CONSTANT_IN_BYTES_FIELD_NUMBER: _ClassVar[int]
    CPU_GLOBAL_JIT_FIELD_NUMBER: _ClassVar[int]
    do_common_subexpression_elimination: bool
    do_constant_folding: bool
    opt_level: OptimizerOptions.Level
    do_function_inlining: bool
    global_jit_level: OptimizerOptions.GlobalJitLevel
    max_folded_constant_in_bytes: int
    cpu_global_jit: bool
    def __init__(self, do_common_subexpression_elimination: bool = ..., do_constant_folding: bool = ..., opt_level: _Optional[_Union[OptimizerOptions.Level, str]] = ..., do_function_inlining: bool = ..., global_jit_level: _Optional[_Union[OptimizerOptions.GlobalJitLevel, str]] = ..., max_folded_constant_in_bytes: _Optional[int] = ..., cpu_global_jit: bool = ...) -> None: ...

class RewriterConfig(_message.Message):
    __slots__ = ("layout_optimizer", "disable_model_pruning", "constant_folding", "memory_optimization", "memory_optimizer_target_node_name_scope", "arithmetic_optimization", "dependency_optimization", "loop_optimization", "function_optimization", "debug_stripper", "meta_optimizer_iterations", "shape_optimization", "remapping", "scoped_allocator_optimization", "min_graph_nodes", "pin_to_host_optimization", "disable_meta_optimizer", "meta_optimizer_timeout_ms", "fail_on_optimizer_errors", "implementation_selector", "auto_mixed_precision", "common_subgraph_elimination", "auto_mixed_precision_mkl", "experimental_disable_compressed_tensor_optimization", "experimental_disable_folding_quantization_emulation", "use_plugin_optimizers", "auto_mixed_precision_cpu", "experimental_conditional_code_motion", "auto_mixed_precision_onednn_bfloat16", "disable_tfg_optimizer", "cpu_layout_conversion", "optimizers")
    class Toggle(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        DEFAULT: _ClassVar[RewriterConfig.Toggle]
        ON: _ClassVar[RewriterConfig.Toggle]
        OFF: _ClassVar[RewriterConfig.Toggle]
        AGGRESSIVE: _ClassVar[RewriterConfig.Toggle]
        EXPERIMENTAL_MLIR: _ClassVar[RewriterConfig.Toggle]
        EXPERIMENTAL_BOTH: _ClassVar[RewriterConfig.Toggle]
    DEFAULT: RewriterConfig.Toggle
    ON: RewriterConfig.Toggle
    OFF: RewriterConfig.Toggle
    AGGRESSIVE: RewriterConfig.Toggle
    EXPERIMENTAL_MLIR: RewriterConfig.Toggle
    EXPERIMENTAL_BOTH: RewriterConfig.Toggle
    class CpuLayout(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        NO_CONVERSION_ON_CPU: _ClassVar[RewriterConfig.CpuLayout]
        NCHW_TO_NHWC: _ClassVar[RewriterConfig.CpuLayout]
        NHWC_TO_NCHW: _ClassVar[RewriterConfig.CpuLayout]
    NO_CONVERSION_ON_CPU: RewriterConfig.CpuLayout
    NCHW_TO_NHWC: RewriterConfig.CpuLayout
    NHWC_TO_NCHW: RewriterConfig.CpuLayout
    class NumIterationsType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        DEFAULT_NUM_ITERS: _ClassVar[RewriterConfig.NumIterationsType]
        ONE: _ClassVar[RewriterConfig.NumIterationsType]
        TWO: _ClassVar[RewriterConfig.NumIterationsType]
    DEFAULT_NUM_ITERS: RewriterConfig.NumIterationsType
    ONE: RewriterConfig.NumIterationsType
    TWO: RewriterConfig.NumIterationsType
    class MemOptType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        DEFAULT_MEM_OPT: _ClassVar[RewriterConfig.MemOptType]
        NO_MEM_OPT: _ClassVar[RewriterConfig.MemOptType]
        MANUAL: _ClassVar[RewriterConfig.MemOptType]
        HEURISTICS: _ClassVar[RewriterConfig.MemOptType]
        SWAPPING_HEURISTICS: _ClassVar[RewriterConfig.MemOptType]
        RECOMPUTATION_HEURISTICS: _ClassVar[RewriterConfig.MemOptType]
        SCHEDULING_HEURISTICS: _ClassVar[RewriterConfig.MemOptType]
    DEFAULT_MEM_OPT: RewriterConfig.MemOptType
    NO_MEM_OPT: RewriterConfig.MemOptType
    MANUAL: RewriterConfig.MemOptType
    HEURISTICS: RewriterConfig.MemOptType
    SWAPPING_HEURISTICS: RewriterConfig.MemOptType
    RECOMPUTATION_HEURISTICS: RewriterConfig.MemOptType
    SCHEDULING_HEURISTICS: RewriterConfig.MemOptType
    LAYOUT_OPTIMIZER_FIELD_NUMBER: _ClassVar[int]
    DISABLE_MODEL_PRUNING_FIELD_NUMBER: _ClassVar[int]
    CONSTANT_FOLDING_FIELD_NUMBER: _ClassVar[int]
    MEMORY_OPTIMIZATION_FIELD_NUMBER: _ClassVar[int]
    MEMORY_OPTIMIZER_TARGET_NODE_NAME_SCOPE_FIELD_NUMBER: _ClassVar[int]
    ARITHMETIC_OPTIMIZATION_FIELD_NUMBER: _ClassVar[int]
    DEPENDENCY_OPTIMIZATION_FIELD_NUMBER: _ClassVar[int]
    LOOP_OPTIMIZATION_FIELD_NUMBER: _ClassVar[int]
    FUNCTION_OPTIMIZATION_FIELD_NUMBER: _ClassVar[int]
    DEBUG_STRIPPER_FIELD_NUMBER: _ClassVar[int]
    META_OPTIMIZER_ITERATIONS_FIELD_NUMBER: _ClassVar[int]
    SHAPE_OPTIMIZATION_FIELD_NUMBER: _ClassVar[int]
    REMAPPING_FIELD_NUMBER: _ClassVar[int]
    SCOPED_ALLOCATOR_OPTIMIZATION_FIELD_NUMBER: _ClassVar[int]
    MIN_GRAPH_NODES_FIELD_NUMBER: _ClassVar[int]
    PIN_TO_HOST_OPTIMIZATION_FIELD_NUMBER: _ClassVar[int]
    DISABLE_META_OPTIMIZER_FIELD_NUMBER: _ClassVar[int]
    META_OPTIMIZER_TIMEOUT_MS_FIELD_NUMBER: _ClassVar[int]
    FAIL_ON_OPTIMIZER_ERRORS_FIELD_NUMBER: _ClassVar[int]
    IMPLEMENTATION_SELECTOR_FIELD_NUMBER: _ClassVar[int]
    AUTO_MIXED_PRECISION_FIELD_NUMBER: _ClassVar[int]
    COMMON_SUBGRAPH_ELIMINATION_FIELD_NUMBER: _ClassVar[int]
    AUTO_MIXED_PRECISION_MKL_FIELD_NUMBER: _ClassVar[int]
    EXPERIMENTAL_DISABLE_COMPRESSED_TENSOR_OPTIMIZATION_FIELD_NUMBER: _ClassVar[int]
    EXPERIMENTAL_DISABLE_FOLDING_QUANTIZATION_EMULATION_FIELD_NUMBER: _ClassVar[int]
    USE_PLUGIN_OPTIMIZERS_FIELD_NUMBER: _ClassVar[int]
    AUTO_MIXED_PRECISION_CPU_FIELD_NUMBER: _ClassVar[int]
    EXPERIMENTAL_CONDITIONAL_CODE_MOTION_FIELD_NUMBER: _ClassVar[int]
    AUTO_MIXED_PRECISION_ONEDNN_BFLOAT16_FIELD_NUMBER: _ClassVar[int]
    DISABLE_TFG_OPTIMIZER_FIELD_NUMBER: _ClassVar[int]
    CPU_LAYOUT_CONVERSION_FIELD_NUMBER: _ClassVar[int]
    OPTIMIZERS_FIELD_NUMBER: _ClassVar[int]
    layout_optimizer: RewriterConfig.Toggle
    disable_model_pruning: bool
    constant_folding: RewriterConfig.Toggle
    memory_optimization: RewriterConfig.MemOptType
    memory_optimizer_target_node_name_scope: str
    arithmetic_optimization: RewriterConfig.Toggle
    dependency_optimization: RewriterConfig.Toggle
    loop_optimization: RewriterConfig.Toggle
    function_optimization: RewriterConfig.Toggle
    debug_stripper: RewriterConfig.Toggle
    meta_optimizer_iterations: RewriterConfig.NumIterationsType
    shape_optimization: RewriterConfig.Toggle
    remapping: RewriterConfig.Toggle
    scoped_allocator_optimization: RewriterConfig.Toggle
    min_graph_nodes: int
    pin_to_host_optimization: RewriterConfig.Toggle
    disable_meta_optimizer: bool
    meta_optimizer_timeout_ms: int
    fail_on_optimizer_errors: bool
    implementation_selector: RewriterConfig.Toggle
    auto_mixed_precision: RewriterConfig.Toggle
    common_subgraph_elimination: RewriterConfig.Toggle
    auto_mixed_precision_mkl: RewriterConfig.Toggle
    experimental_disable_compressed_tensor_optimization: bool
    experimental_disable_folding_quantization_emulation: bool
    use_plugin_optimizers: RewriterConfig.Toggle
    auto_mixed_precision_cpu: RewriterConfig.Toggle
    experimental_conditional_code_motion: RewriterConfig.Toggle
    auto_mixed_precision_onednn_bfloat16: RewriterConfig.Toggle
    disable_tfg_optimizer: bool
    cpu_layout_conversion: RewriterConfig.CpuLayout
    optimizers: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, layout_optimizer: _Optional[_Union[RewriterConfig.Toggle, str]] = ..., disable_model_pruning: bool = ..., constant_folding: _Optional[_Union[RewriterConfig.Toggle, str]] = ..., memory_optimization: _Optional[_Union[RewriterConfig.MemOptType, str]] = ..., memory_optimizer_target_node_name_scope: _Optional[str] = ..., arithmetic_optimization: _Optional[_Union[RewriterConfig.Toggle, str]] = ..., dependency_optimization: _Optional[_Union[RewriterConfig.Toggle, str]] = ..., loop_optimization: _Optional[_Union[RewriterConfig.Toggle, str]] = ..., function_optimization: _Optional[_Union[RewriterConfig.Toggle, str]] = ..., debug_stripper: _Optional[_Union[RewriterConfig.Toggle, str]] = ..., meta_optimizer_iterations: _Optional[_Union[RewriterConfig.NumIterationsType, str]] = ..., shape_optimization: _Optional[_Union[RewriterConfig.Toggle, str]] = ..., remapping: _Optional[_Union[RewriterConfig.Toggle, str]] = ..., scoped_allocator_optimization: _Optional[_Union[RewriterConfig.Toggle, str]] = ..., min_graph_nodes: _Optional[int] = ..., pin_to_host_optimization: _Optional[_Union[RewriterConfig.Toggle, str]] = ..., disable_meta_optimizer: bool = ..., meta_optimizer_timeout_ms: _Optional[int] = ..., fail_on_optimizer_errors: bool = ..., implementation_selector: _Optional[_Union[RewriterConfig.Toggle, str]] = ..., auto_mixed_precision: _Optional[_Union[RewriterConfig.Toggle, str]] = ..., common_subgraph_elimination: _Optional[_Union[RewriterConfig.Toggle, str]] = ..., auto_mixed_precision_mkl: _Optional[_Union[RewriterConfig.Toggle, str]] = ..., experimental_disable_compressed_tensor_optimization: bool = ..., experimental_disable_folding_quantization_emulation: bool = ..., use_plugin_optimizers: _Optional[_Union[RewriterConfig.Toggle, str]] = ..., auto_mixed_precision_cpu: _Optional[_Union[RewriterConfig.Toggle, str]] = ..., experimental_conditional_code_motion: _Optional[_Union[RewriterConfig.Toggle, str]] = ..., auto_mixed_precision_onednn_bfloat16: _Optional[_Union[RewriterConfig.Toggle, str]] = ..., disable_tfg_optimizer: bool = ..., cpu_layout_conversion: _Optional[_Union[RewriterConfig.CpuLayout, str]] = ..., optimizers: _Optional[_Iterable[str]] = ...) -> None: ...

class GraphOptions(_message.Message):
    __slots__ = ("enable_recv_scheduling", "optimizer_options", "build_cost_model", "infer_shapes", "place_pruned_graph", "enable_bfloat16_sendrecv", "timeline_step", "build_cost_model_after", "rewrite_options")
    ENABLE_RECV_SCHEDULING_FIELD_NUMBER: _ClassVar[int]
    OPTIMIZER_OPTIONS_FIELD_NUMBER: _ClassVar[int]
    BUILD_COST_MODEL_FIELD_NUMBER: _ClassVar[int]
    INFER_SHAPES_FIELD_NUMBER: _ClassVar[int]
    PLACE_PRUNED_GRAPH_FIELD_NUMBER: _ClassVar[int]
    ENABLE_BFLOAT16_SENDRECV_FIELD_NUMBER: _ClassVar[int]
    TIMELINE_STEP_FIELD_NUMBER: _ClassVar[int]
    BUILD_COST_MODEL_AFTER_FIELD_NUMBER: _ClassVar[int]
    REWRITE_OPTIONS_FIELD_NUMBER: _ClassVar[int]
    enable_recv_scheduling: bool
    optimizer_options: OptimizerOptions
    build_cost_model: int
    infer_shapes: bool
    place_pruned_graph: bool
    enable_bfloat16_sendrecv: bool
    timeline_step: int
    build_cost_model_after: int
    rewrite_options: RewriterConfig
    def __init__(self, enable_recv_scheduling: bool = ..., optimizer_options: _Optional[_Union[OptimizerOptions, _Mapping]] = ..., build_cost_model: _Optional[int] = ..., infer_shapes: bool = ..., place_pruned_graph: bool = ..., enable_bfloat16_sendrecv: bool = ..., timeline_step: _Optional[int] = ..., build_cost_model_after: _Optional[int] = ..., rewrite_options: _Optional[_Union[RewriterConfig, _Mapping]] = ...) -> None: ...

class ThreadPoolOptionProto(_message.Message):
    __slots__ = ("num_threads", "global_name")
    NUM_THREADS_FIELD_NUMBER: _ClassVar[int]
    GLOBAL_NAME_FIELD_NUMBER: _ClassVar[int]
    num_threads: int
    global_name: str
    def __init__(self, num_threads: _Optional[int] = ..., global_name: _Optional[str] = ...) -> None: ...

class RPCOptions(_message.Message):
    __slots__ = ("use_rpc_for_inprocess_master", "compression_algorithm", "compression_level", "cache_rpc_response", "disable_session_connection_sharing", "num_channels_per_target")
    USE_RPC_FOR_INPROCESS_MASTER_FIELD_NUMBER: _ClassVar[int]
    COMPRESSION_ALGORITHM_FIELD_NUMBER: _ClassVar[int]
    COMPRESSION_LEVEL_FIELD_NUMBER: _ClassVar[int]
    CACHE_RPC_RESPONSE_FIELD_NUMBER: _ClassVar[int]
    DISABLE_SESSION_CONNECTION_SHARING_FIELD_NUMBER: _ClassVar[int]
    NUM_CHANNELS_PER_TARGET_FIELD_NUMBER: _ClassVar[int]
    use_rpc_for_inprocess_master: bool
    compression_algorithm: str
    compression_level: int
    cache_rpc_response: bool
    disable_session_connection_sharing: bool
    num_channels_per_target: int
    def __init__(self, use_rpc_for_inprocess_master: bool = ..., compression_algorithm: _Optional[str] = ..., compression_level: _Optional[int] = ..., cache_rpc_response: bool = ..., disable_session_connection_sharing: bool = ..., num_channels_per_target: _Optional[int] = ...) -> None: ...

class JobDef(_message.Message):
    __slots__ = ("name", "tasks")
    class TasksEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: int
        value: str
        def __init__(self, key: _Optional[int] = ..., value: _Optional[str] = ...) -> None: ...
    NAME_FIELD_NUMBER: _ClassVar[int]
    TASKS_FIELD_NUMBER: _ClassVar[int]
    name: str
    tasks: _containers.ScalarMap[int, str]
    def __init__(self, name: _Optional[str] = ..., tasks: _Optional[_Mapping[int, str]] = ...) -> None: ...

class ClusterDef(_message.Message):
    __slots__ = ("job",)
    JOB_FIELD_NUMBER: _ClassVar[int]
    job: _containers.RepeatedCompositeFieldContainer[JobDef]
    def __init__(self, job: _Optional[_Iterable[_Union[JobDef, _Mapping]]] = ...) -> None: ...

class ServerDef(_message.Message):
    __slots__ = ("cluster", "job_name", "task_index", "default_session_config", "protocol", "port", "replica")
    CLUSTER_FIELD_NUMBER: _ClassVar[int]
    JOB_NAME_FIELD_NUMBER: _ClassVar[int]
    TASK_INDEX_FIELD_NUMBER: _ClassVar[int]
    DEFAULT_SESSION_CONFIG_FIELD_NUMBER: _ClassVar[int]
    PROTOCOL_FIELD_NUMBER: _ClassVar[int]
    PORT_FIELD_NUMBER: _ClassVar[int]
    REPLICA_FIELD_NUMBER: _ClassVar[int]
    cluster: ClusterDef
    job_name: str
    task_index: int
    default_session_config: ConfigProto
    protocol: str
    port: int
    replica: int
    def __init__(self, cluster: _Optional[_Union[ClusterDef, _Mapping]] = ..., job_name: _Optional[str] = ..., task_index: _Optional[int] = ..., default_session_config: _Optional[_Union[ConfigProto, _Mapping]] = ..., protocol: _Optional[str] = ..., port: _Optional[int] = ..., replica: _Optional[int] = ...) -> None: ...

class SessionMetadata(_message.Message):
    __slots__ = ("name", "version")
    NAME_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    name: str
    version: int
    def __init__(self, name: _Optional[str] = ..., version: _Optional[int] = ...) -> None: ...

class ConfigProto(_message.Message):
    __slots__ = ("device_count", "intra_op_parallelism_threads", "placement_period", "device_filters", "inter_op_parallelism_threads", "gpu_options", "allow_soft_placement", "log_device_placement", "use_per_session_threads", "graph_options", "operation_timeout_in_ms", "session_inter_op_thread_pool", "rpc_options", "cluster_def", "isolate_session_state", "share_cluster_devices_in_session", "pluggable_device_options", "experimental")
    class DeviceCountEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    class Experimental(_message.Message):
        __slots__ = ("collective_group_leader", "executor_type", "recv_buf_max_chunk", "use_numa_affinity", "collective_deterministic_sequential_execution", "collective_nccl", "share_session_state_in_clusterspec_propagation", "disable_thread_spinning", "share_cluster_devices_in_session", "session_metadata", "optimize_for_static_graph", "enable_mlir_bridge", "disable_output_partition_graphs", "xla_fusion_autotuner_thresh", "enable_mlir_graph_optimization", "mlir_bridge_rollout", "use_tfrt", "disable_functional_ops_lowering", "xla_prefer_single_graph_cluster", "disable_optimize_for_static_graph", "disable_eager_executor_streaming_enqueue", "enable_multi_host", "backend_server_port", "target_tpu", "target_gpu", "stream_merge_threshold", "tfrt_use_ifrt", "finalize_function_library_runtime", "finalize_resource_manager", "tf2xla_dump_dir", "online_cost_analysis")
        class MlirBridgeRollout(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
            __slots__ = ()
            MLIR_BRIDGE_ROLLOUT_UNSPECIFIED: _ClassVar[ConfigProto.Experimental.MlirBridgeRollout]
            MLIR_BRIDGE_ROLLOUT_ENABLED: _ClassVar[ConfigProto.Experimental.MlirBridgeRollout]
            MLIR_BRIDGE_ROLLOUT_DISABLED: _ClassVar[ConfigProto.Experimental.MlirBridgeRollout]
        MLIR_BRIDGE_ROLLOUT_UNSPECIFIED: ConfigProto.Experimental.MlirBridgeRollout
        MLIR_BRIDGE_ROLLOUT_ENABLED: ConfigProto.Experimental.MlirBridgeRollout
        MLIR_BRIDGE_ROLLOUT_DISABLED: ConfigProto.Experimental.MlirBridgeRollout
        COLLECTIVE_GROUP_LEADER_FIELD_NUMBER: _ClassVar[int]
        EXECUTOR_TYPE_FIELD_NUMBER: _ClassVar[int]
        RECV_BUF_MAX_CHUNK_FIELD_NUMBER: _ClassVar[int]
        USE_NUMA_AFFINITY_FIELD_NUMBER: _ClassVar[int]
        COLLECTIVE_DETERMINISTIC_SEQUENTIAL_EXECUTION_FIELD_NUMBER: _ClassVar[int]
        COLLECTIVE_NCCL_FIELD_NUMBER: _ClassVar[int]
        SHARE_SESSION_STATE_IN_CLUSTERSPEC_PROPAGATION_FIELD_NUMBER: _ClassVar[int]
        DISABLE_THREAD_SPINNING_FIELD_NUMBER: _ClassVar[int]
        SHARE_CLUSTER_DEVICES_IN_SESSION_FIELD_NUMBER: _ClassVar[int]
        SESSION_METADATA_FIELD_NUMBER: _ClassVar[int]
        OPTIMIZE_FOR_STATIC_GRAPH_FIELD_NUMBER: _ClassVar[int]
        ENABLE_MLIR_BRIDGE_FIELD_NUMBER: _ClassVar[int]
        DISABLE_OUTPUT_PARTITION_GRAPHS_FIELD_NUMBER: _ClassVar[int]
        XLA_FUSION_AUTOTUNER_THRESH_FIELD_NUMBER: _ClassVar[int]
        ENABLE_MLIR_GRAPH_OPTIMIZATION_FIELD_NUMBER: _ClassVar[int]
        MLIR_BRIDGE_ROLLOUT_FIELD_NUMBER: _ClassVar[int]
        USE_TFRT_FIELD_NUMBER: _ClassVar[int]
        DISABLE_FUNCTIONAL_OPS_LOWERING_FIELD_NUMBER: _ClassVar[int]
        XLA_PREFER_SINGLE_GRAPH_CLUSTER_FIELD_NUMBER: _ClassVar[int]
        DISABLE_OPTIMIZE_FOR_STATIC_GRAPH_FIELD_NUMBER: _ClassVar[int]
        DISABLE_EAGER_EXECUTOR_STREAMING_ENQUEUE_FIELD_NUMBER: _ClassVar[int]
        ENABLE_MULTI_HOST_FIELD_NUMBER: _ClassVar[int]
        BACKEND_SERVER_PORT_FIELD_NUMBER: _ClassVar[int]
        TARGET_TPU_FIELD_NUMBER: _ClassVar[int]
        TARGET_GPU_FIELD_NUMBER: _ClassVar[int]
        STREAM_MERGE_THRESHOLD_FIELD_NUMBER: _ClassVar[int]
        TFRT_USE_IFRT_FIELD_NUMBER: _ClassVar[int]
        FINALIZE_FUNCTION_LIBRARY_RUNTIME_FIELD_NUMBER: _ClassVar[int]
        FINALIZE_RESOURCE_MANAGER_FIELD_NUMBER: _ClassVar[int]
        TF2XLA_DUMP_DIR_FIELD_NUMBER: _ClassVar[int]
        ONLINE_COST_ANALYSIS_FIELD_NUMBER: _ClassVar[int]
        collective_group_leader: str
        executor_type: str
        recv_buf_max_chunk: int
        use_numa_affinity: bool
        collective_deterministic_sequential_execution: bool
        collective_nccl: bool
        share_session_state_in_clusterspec_propagation: bool
        disable_thread_spinning: bool
        share_cluster_devices_in_session: bool
        session_metadata: SessionMetadata
        optimize_for_static_graph: bool
        enable_mlir_bridge: bool
        disable_output_partition_graphs: bool
        xla_fusion_autotuner_thresh: int
        enable_mlir_graph_optimization: bool
        mlir_bridge_rollout: ConfigProto.Experimental.MlirBridgeRollout
        use_tfrt: bool
        disable_functional_ops_lowering: bool
        xla_prefer_single_graph_cluster: bool
        disable_optimize_for_static_graph: bool
        disable_eager_executor_streaming_enqueue: bool
        enable_multi_host: bool
        backend_server_port: int
        target_tpu: bool
        target_gpu: bool
        stream_merge_threshold: int
        tfrt_use_ifrt: bool
        finalize_function_library_runtime: bool
        finalize_resource_manager: bool
        tf2xla_dump_dir: str
        online_cost_analysis: bool
        def __init__(self, collective_group_leader: _Optional[str] = ..., executor_type: _Optional[str] = ..., recv_buf_max_chunk: _Optional[int] = ..., use_numa_affinity: bool = ..., collective_deterministic_sequential_execution: bool = ..., collective_nccl: bool = ..., share_session_state_in_clusterspec_propagation: bool = ..., disable_thread_spinning: bool = ..., share_cluster_devices_in_session: bool = ..., session_metadata: _Optional[_Union[SessionMetadata, _Mapping]] = ..., optimize_for_static_graph: bool = ..., enable_mlir_bridge: bool = ..., disable_output_partition_graphs: bool = ..., xla_fusion_autotuner_thresh: _Optional[int] = ..., enable_mlir_graph_optimization: bool = ..., mlir_bridge_rollout: _Optional[_Union[ConfigProto.Experimental.MlirBridgeRollout, str]] = ..., use_tfrt: bool = ..., disable_functional_ops_lowering: bool = ..., xla_prefer_single_graph_cluster: bool = ..., disable_optimize_for_static_graph: bool = ..., disable_eager_executor_streaming_enqueue: bool = ..., enable_multi_host: bool = ..., backend_server_port: _Optional[int] = ..., target_tpu: bool = ..., target_gpu: bool = ..., stream_merge_threshold: _Optional[int] = ..., tfrt_use_ifrt: bool = ..., finalize_function_library_runtime: bool = ..., finalize_resource_manager: bool = ..., tf2xla_dump_dir: _Optional[str] = ..., online_cost_analysis: bool = ...) -> None: ...
    DEVICE_COUNT_FIELD_NUMBER: _ClassVar[int]
    INTRA_OP_PARALLELISM_THREADS_FIELD_NUMBER: _ClassVar[int]
    PLACEMENT_PERIOD_FIELD_NUMBER: _ClassVar[int]
    DEVICE_FILTERS_FIELD_NUMBER: _ClassVar[int]
    INTER_OP_PARALLELISM_THREADS_FIELD_NUMBER: _ClassVar[int]
    GPU_OPTIONS_FIELD_NUMBER: _ClassVar[int]
    ALLOW_SOFT_PLACEMENT_FIELD_NUMBER: _ClassVar[int]
    LOG_DEVICE_PLACEMENT_FIELD_NUMBER: _ClassVar[int]
    USE_PER_SESSION_THREADS_FIELD_NUMBER: _ClassVar[int]
    GRAPH_OPTIONS_FIELD_NUMBER: _ClassVar[int]
    OPERATION_TIMEOUT_IN_MS_FIELD_NUMBER: _ClassVar[int]
    SESSION_INTER_OP_THREAD_POOL_FIELD_NUMBER: _ClassVar[int]
    RPC_OPTIONS_FIELD_NUMBER: _ClassVar[int]
    CLUSTER_DEF_FIELD_NUMBER: _ClassVar[int]
    ISOLATE_SESSION_STATE_FIELD_NUMBER: _ClassVar[int]
    SHARE_CLUSTER_DEVICES_IN_SESSION_FIELD_NUMBER: _ClassVar[int]
    PLUGGABLE_DEVICE_OPTIONS_FIELD_NUMBER: _ClassVar[int]
    EXPERIMENTAL_FIELD_NUMBER: _ClassVar[int]
    device_count: _containers.ScalarMap[str, int]
    intra_op_parallelism_threads: int
    placement_period: int
    device_filters: _containers.RepeatedScalarFieldContainer[str]
    inter_op_parallelism_threads: int
    gpu_options: GPUOptions
    allow_soft_placement: bool
    log_device_placement: bool
    use_per_session_threads: bool
    graph_options: GraphOptions
    operation_timeout_in_ms: int
    session_inter_op_thread_pool: _containers.RepeatedCompositeFieldContainer[ThreadPoolOptionProto]
    rpc_options: RPCOptions
    cluster_def: ClusterDef
    isolate_session_state: bool
    share_cluster_devices_in_session: bool
    pluggable_device_options: GPUOptions
    experimental: ConfigProto.Experimental
    def __init__(self, device_count: _Optional[_Mapping[str, int]] = ..., intra_op_parallelism_threads: _Optional[int] = ..., placement_period: _Optional[int] = ..., device_filters: _Optional[_Iterable[str]] = ..., inter_op_parallelism_threads: _Optional[int] = ..., gpu_options: _Optional[_Union[GPUOptions, _Mapping]] = ..., allow_soft_placement: bool = ..., log_device_placement: bool = ..., use_per_session_threads: bool = ..., graph_options: _Optional[_Union[GraphOptions, _Mapping]] = ..., operation_timeout_in_ms: _Optional[int] = ..., session_inter_op_thread_pool: _Optional[_Iterable[_Union[ThreadPoolOptionProto, _Mapping]]] = ..., rpc_options: _Optional[_Union[RPCOptions, _Mapping]] = ..., cluster_def: _Optional[_Union[ClusterDef, _Mapping]] = ..., isolate_session_state: bool = ..., share_cluster_devices_in_session: bool = ..., pluggable_device_options: _Optional[_Union[GPUOptions, _Mapping]] = ..., experimental: _Optional[_Union[ConfigProto.Experimental, _Mapping]] = ...) -> None: ...

class RunOptions(_message.Message):
    __slots__ = ("trace_level", "timeout_in_ms", "inter_op_thread_pool", "output_partition_graphs", "report_tensor_allocations_upon_oom", "experimental")
    class TraceLevel(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        NO_TRACE: _ClassVar[RunOptions.TraceLevel]
        SOFTWARE_TRACE: _ClassVar[RunOptions.TraceLevel]
        HARDWARE_TRACE: _ClassVar[RunOptions.TraceLevel]
        FULL_TRACE: _ClassVar[RunOptions.TraceLevel]
    NO_TRACE: RunOptions.TraceLevel
    SOFTWARE_TRACE: RunOptions.TraceLevel
    HARDWARE_TRACE: RunOptions.TraceLevel
    FULL_TRACE: RunOptions.TraceLevel
    class Experimental(_message.Message):
        __slots__ = ("collective_graph_key", "use_run_handler_pool", "run_handler_pool_options")
        class RunHandlerPoolOptions(_message.Message):
            __slots__ = ("priority",)
            PRIORITY_FIELD_NUMBER: _ClassVar[int]
            priority: int
            def __init__(self, priority: _Optional[int] = ...) -> None: ...
        COLLECTIVE_GRAPH_KEY_FIELD_NUMBER: _ClassVar[int]
        USE_RUN_HANDLER_POOL_FIELD_NUMBER: _ClassVar[int]
        RUN_HANDLER_POOL_OPTIONS_FIELD_NUMBER: _ClassVar[int]
        collective_graph_key: int
        use_run_handler_pool: bool
        run_handler_pool_options: RunOptions.Experimental.RunHandlerPoolOptions
        def __init__(self, collective_graph_key: _Optional[int] = ..., use_run_handler_pool: bool = ..., run_handler_pool_options: _Optional[_Union[RunOptions.Experimental.RunHandlerPoolOptions, _Mapping]] = ...) -> None: ...
    TRACE_LEVEL_FIELD_NUMBER: _ClassVar[int]
    TIMEOUT_IN_MS_FIELD_NUMBER: _ClassVar[int]
    INTER_OP_THREAD_POOL_FIELD_NUMBER: _ClassVar[int]
    OUTPUT_PARTITION_GRAPHS_FIELD_NUMBER: _ClassVar[int]
    REPORT_TENSOR_ALLOCATIONS_UPON_OOM_FIELD_NUMBER: _ClassVar[int]
    EXPERIMENTAL_FIELD_NUMBER: _ClassVar[int]
    trace_level: RunOptions.TraceLevel
    timeout_in_ms: int
    inter_op_thread_pool: int
    output_partition_graphs: bool
    report_tensor_allocations_upon_oom: bool
    experimental: RunOptions.Experimental
    def __init__(self, trace_level: _Optional[_Union[RunOptions.TraceLevel, str]] = ..., timeout_in_ms: _Optional[int] = ..., inter_op_thread_pool: _Optional[int] = ..., output_partition_graphs: bool = ..., report_tensor_allocations_upon_oom: bool = ..., experimental: _Optional[_Union[RunOptions.Experimental, _Mapping]] = ...) -> None: ...

class RunMetadata(_message.Message):
    __slots__ = ("step_stats", "partition_graphs", "function_graphs", "session_metadata")
    class FunctionGraphs(_message.Message):
        __slots__ = ("partition_graphs", "pre_optimization_graph", "post_optimization_graph")
        PARTITION_GRAPHS_FIELD_NUMBER: _ClassVar[int]
        PRE_OPTIMIZATION_GRAPH_FIELD_NUMBER: _ClassVar[int]
        POST_OPTIMIZATION_GRAPH_FIELD_NUMBER: _ClassVar[int]
        partition_graphs: _containers.RepeatedCompositeFieldContainer[_graph_pb2.GraphDef]
        pre_optimization_graph: _graph_pb2.GraphDef
        post_optimization_graph: _graph_pb2.GraphDef
        def __init__(self, partition_graphs: _Optional[_Iterable[_Union[_graph_pb2.GraphDef, _Mapping]]] = ..., pre_optimization_graph: _Optional[_Union[_graph_pb2.GraphDef, _Mapping]] = ..., post_optimization_graph: _Optional[_Union[_graph_pb2.GraphDef, _Mapping]] = ...) -> None: ...
    STEP_STATS_FIELD_NUMBER: _ClassVar[int]
    PARTITION_GRAPHS_FIELD_NUMBER: _ClassVar[int]
    FUNCTION_GRAPHS_FIELD_NUMBER: _ClassVar[int]
    SESSION_METADATA_FIELD_NUMBER: _ClassVar[int]
    step_stats: _step_stats_pb2.StepStats
    partition_graphs: _containers.RepeatedCompositeFieldContainer[_graph_pb2.GraphDef]
    function_graphs: _containers.RepeatedCompositeFieldContainer[RunMetadata.FunctionGraphs]
    session_metadata: SessionMetadata
    def __init__(self, step_stats: _Optional[_Union[_step_stats_pb2.StepStats, _Mapping]] = ..., partition_graphs: _Optional[_Iterable[_Union[_graph_pb2.GraphDef, _Mapping]]] = ..., function_graphs: _Optional[_Iterable[_Union[RunMetadata.FunctionGraphs, _Mapping]]] = ..., session_metadata: _Optional[_Union[SessionMetadata, _Mapping]] = ...) -> None: ...
