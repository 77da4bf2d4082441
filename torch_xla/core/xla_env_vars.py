"""Names of the environment variables torch_xla reads (upstream name:
torch_xla.core.xla_env_vars, imported as xenv).

User code writes `os.environ[xenv.PJRT_DEVICE] = 'CPU'` instead of spelling
the names. Each constant is the variable's name. The first group is what
this runtime reads; the second group are upstream names for multi-process
and TPU pod setups that scripts import: their names are kept so the imports
work, and libtpu reads the TPU ones itself.
"""

# Read by this runtime (torch_xla/csrc/runtime, torch_xla/runtime.py, ...).
PJRT_DEVICE = "PJRT_DEVICE"  # CPU (default) | CUDA | TPU
CPU_NUM_DEVICES = "CPU_NUM_DEVICES"  # number of CPU devices (default 1)
# "0": the CPU plugin's threads keep the normal policy, not SCHED_BATCH
# (docs/execution_pipeline.md, "When Execute returns").
CPU_SCHED_BATCH = "TORCH_XLA_CPU_SCHED_BATCH"
PJRT_PLUGIN_LIBRARY_PATH = "PJRT_PLUGIN_LIBRARY_PATH"  # a plugin .so to load
XLA_USE_SPMD = "XLA_USE_SPMD"  # 1: SPMD mode, as xr.use_spmd()
# Extra folders searched for plugin packages (':'-separated), before sys.path.
TORCH_XLA_PLUGIN_SEARCH_PATH = "TORCH_XLA_PLUGIN_SEARCH_PATH"
TORCH_XLA_DUMP_HLO_DIR = "TORCH_XLA_DUMP_HLO_DIR"  # dump each compiled module
TORCH_XLA_FAST_RULES = "TORCH_XLA_FAST_RULES"  # 0: Python rules only
XLA_FLAGS = "XLA_FLAGS"  # read by the XLA compiler inside the plugin
# glibc's own; each one set leaves that setting of the CPU client's host heap
# policy to glibc (csrc/runtime/host_heap.h; docs/gradient_accumulation.md).
MALLOC_MMAP_THRESHOLD_ = "MALLOC_MMAP_THRESHOLD_"
MALLOC_TRIM_THRESHOLD_ = "MALLOC_TRIM_THRESHOLD_"
MALLOC_TOP_PAD_ = "MALLOC_TOP_PAD_"

# Upstream names with no effect on a single-process CPU run.
TPU_NUM_DEVICES = "TPU_NUM_DEVICES"
GPU_NUM_DEVICES = "GPU_NUM_DEVICES"
TPU_VISIBLE_CHIPS = "TPU_VISIBLE_CHIPS"
TPU_PROCESS_BOUNDS = "TPU_PROCESS_BOUNDS"
TPU_CHIPS_PER_PROCESS_BOUNDS = "TPU_CHIPS_PER_PROCESS_BOUNDS"
TPU_PROCESS_ADDRESSES = "TPU_PROCESS_ADDRESSES"
TPU_PROCESS_PORT = "TPU_PROCESS_PORT"
TPU_HOST_BOUNDS = "TPU_HOST_BOUNDS"
TPU_CHIPS_PER_HOST_BOUNDS = "TPU_CHIPS_PER_HOST_BOUNDS"
TPU_MESH_CTLER_ADDR = "TPU_MESH_CONTROLLER_ADDRESS"
TPU_MESH_CTLER_PORT = "TPU_MESH_CONTROLLER_PORT"
TPU_LIBRARY_PATH = "TPU_LIBRARY_PATH"
TPUVM_MODE = "TPUVM_MODE"
CLOUD_TPU_TASK_ID = "CLOUD_TPU_TASK_ID"
PJRT_CPU_ASYNC_CLIENT = "PJRT_CPU_ASYNC_CLIENT"
PJRT_DIST_SERVICE_ADDR = "PJRT_DIST_SERVICE_ADDR"
PJRT_LOCAL_PROCESS_COUNT = "PJRT_LOCAL_PROCESS_COUNT"
PJRT_LOCAL_PROCESS_RANK = "PJRT_LOCAL_PROCESS_RANK"
# Several processes (docs/pods.md): the launcher's and torchrun's names.
XLA_COORDINATOR_PORT = "XLA_COORDINATOR_PORT"  # the key-value store's port
MASTER_ADDR = "MASTER_ADDR"  # the coordinator's host (default localhost)
LOCAL_RANK = "LOCAL_RANK"  # set by torchrun: this process's local rank
TORCHELASTIC_RUN_ID = "TORCHELASTIC_RUN_ID"  # set by torchrun
TORCH_XLA_DISTRIBUTED_TIMEOUT = "TORCH_XLA_DISTRIBUTED_TIMEOUT"  # seconds
RATE_TRACKER_SMOOTHING = "RATE_TRACKER_SMOOTHING"  # xm.RateTracker's default
# The XRT-era names (upstream keeps them for old scripts).
MP_DEVICE = "XRT_MULTI_PROCESSING_DEVICE"
LOCAL_WORKER = "XRT_LOCAL_WORKER"
TPU_CONFIG = "XRT_TPU_CONFIG"
SERVICE_ADDRESS = "XRT_MESH_SERVICE_ADDRESS"
DEVICE_MAP = "XRT_DEVICE_MAP"
WORKERS = "XRT_WORKERS"
LOCAL_ORDINAL = "XRT_SHARD_LOCAL_ORDINAL"
ORDINAL = "XRT_SHARD_ORDINAL"
WORLD_SIZE = "XRT_SHARD_WORLD_SIZE"
HOST_WORLD_SIZE = "XRT_HOST_WORLD_SIZE"
HOST_ORDINAL = "XRT_HOST_ORDINAL"
TORCH_DIST_METHOD = "XRT_TORCH_DIST_METHOD"
TORCH_DIST_ROOT = "XRT_TORCH_DIST_ROOT"
