#include "torch_xla/csrc/runtime/client.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "torch_xla/csrc/metrics/metrics.h"
#include "torch_xla/csrc/runtime/device_threads.h"
#include "torch_xla/csrc/runtime/host_heap.h"
#include "torch_xla/csrc/runtime/plugin.h"
#include "torch_xla/csrc/runtime/xla_flags.h"

namespace torch_xla::runtime {
namespace {

std::string ToString(const char* data, size_t size) {
  return data == nullptr ? std::string() : std::string(data, size);
}

absl::Status CheckShapeMatches(const Buffer& buffer, const Shape& expected,
                               int64_t index) {
  if (buffer.shape() == expected) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "execute: argument ", index, " is ", buffer.shape().ToString(),
      " but the computation expects ", expected.ToString()));
}

}  // namespace

Executable::Executable(const PJRT_Api* api, OwnedLoadedExecutable executable,
                       int num_outputs, std::vector<int> device_ordinals,
                       std::vector<Shape> output_shapes)
    : api_(api), executable_(std::move(executable)), num_outputs_(num_outputs),
      device_ordinals_(std::move(device_ordinals)),
      output_shapes_(std::move(output_shapes)) {}

ClientOptions Client::OptionsFromEnv() {
  ClientOptions options;
  if (const char* device = std::getenv("PJRT_DEVICE"); device && *device) {
    options.device_type = absl::AsciiStrToUpper(device);
  }
  if (const char* count = std::getenv("CPU_NUM_DEVICES"); count && *count) {
    int value = 0;
    if (absl::SimpleAtoi(count, &value) && value > 0) {
      options.cpu_device_count = value;
    }
  }
  options.topology = GetProcessTopology();
  return options;
}

namespace {
std::atomic<Client*> global_client{nullptr};
}  // namespace

absl::StatusOr<Client*> Client::Global() {
  static std::mutex* mu = new std::mutex();
  if (Client* client = global_client.load()) return client;
  std::lock_guard<std::mutex> lock(*mu);
  if (global_client.load() == nullptr) {
    // A process of a multi-process job joins it first (distributed.h).
    absl::Status joined = RunJoinHookOnce();
    if (!joined.ok()) return joined;
    // Never destroyed: buffers may outlive us.
    absl::StatusOr<std::unique_ptr<Client>> created = Create(OptionsFromEnv());
    if (!created.ok()) return created.status();
    global_client.store(created->release());
  }
  return global_client.load();
}

bool Client::GlobalCreated() { return global_client.load() != nullptr; }

absl::StatusOr<std::unique_ptr<Client>> Client::Create(
    const ClientOptions& options) {
  std::string path = options.plugin_path;
  if (path.empty()) {
    absl::StatusOr<std::string> found = FindPluginLibrary(options.device_type);
    if (!found.ok()) return found.status();
    path = *found;
  }
  absl::StatusOr<const PJRT_Api*> api = LoadPlugin(path);
  if (!api.ok()) return api.status();

  std::vector<PJRT_NamedValue> create_options;
  if (options.cpu_device_count > 0 && options.device_type == "CPU") {
    PJRT_NamedValue count{};
    count.struct_size = PJRT_NamedValue_STRUCT_SIZE;
    count.name = "cpu_device_count";
    count.name_size = std::strlen(count.name);
    count.type = PJRT_NamedValue_kInt64;
    count.int64_value = options.cpu_device_count;
    count.value_size = 1;
    create_options.push_back(count);
  }
  // The process's place in a multi-process job, in each plugin's own option
  // names (an unknown name is an error for the CPU plugin; docs/pods.md).
  auto int_option = [](const char* name, int64_t value) {
    PJRT_NamedValue option{};
    option.struct_size = PJRT_NamedValue_STRUCT_SIZE;
    option.name = name;
    option.name_size = std::strlen(name);
    option.type = PJRT_NamedValue_kInt64;
    option.int64_value = value;
    option.value_size = 1;
    return option;
  };
  const ProcessTopology& topology = options.topology;
  if (topology.process_count > 1 && options.device_type == "CPU") {
    create_options.push_back(int_option("process_id", topology.process_index));
  } else if (topology.process_count > 1 && options.device_type == "CUDA") {
    create_options.push_back(int_option("node_id", topology.process_index));
    create_options.push_back(int_option("num_nodes", topology.process_count));
  }
  // The CPU plugin's device buffers are host heap blocks. The policy, and
  // eager's NaN semantics, extend XLA_FLAGS: set before the client exists.
  if (options.device_type == "CPU") {
    ApplyHostHeapPolicy();
    ApplyCpuNanSemantics();
  }
  auto args = PJRT_ARGS(PJRT_Client_Create);
  args.create_options = create_options.data();
  args.num_options = create_options.size();
  SetKeyValueCallbacks(&args);
  {
    // The plugin's device threads start here and inherit SCHED_BATCH, so
    // that they never preempt the dispatching thread (device_threads.h).
    ScopedDeviceThreadPolicy device_threads(options.device_type);
    PJRT_RETURN_IF_ERROR(*api, PJRT_Client_Create, args);
  }

  std::unique_ptr<Client> client(new Client(
      *api, OwnedClient(args.client, ClientDeleter{*api}), options.device_type));
  client->plugin_path_ = path;
  client->topology_ = topology;
  absl::Status status = client->DiscoverDevices();
  if (!status.ok()) return status;
  status = client->DiscoverGlobalDevices();
  if (!status.ok()) return status;
  return client;
}

Client::Client(const PJRT_Api* api, OwnedClient client,
               std::string device_type)
    : api_(api), client_(std::move(client)),
      device_type_(std::move(device_type)) {}

Client::~Client() = default;

std::string Client::plugin_api_version() const {
  return absl::StrCat(api_->pjrt_api_version.major_version, ".",
                      api_->pjrt_api_version.minor_version);
}

absl::Status Client::DiscoverDevices() {
  auto name = PJRT_ARGS(PJRT_Client_PlatformName);
  name.client = client_.get();
  PJRT_RETURN_IF_ERROR(api_, PJRT_Client_PlatformName, name);
  platform_name_ = ToString(name.platform_name, name.platform_name_size);

  auto version = PJRT_ARGS(PJRT_Client_PlatformVersion);
  version.client = client_.get();
  PJRT_RETURN_IF_ERROR(api_, PJRT_Client_PlatformVersion, version);
  platform_version_ =
      ToString(version.platform_version, version.platform_version_size);

  auto list = PJRT_ARGS(PJRT_Client_AddressableDevices);
  list.client = client_.get();
  PJRT_RETURN_IF_ERROR(api_, PJRT_Client_AddressableDevices, list);
  for (size_t i = 0; i < list.num_addressable_devices; ++i) {
    Device device;
    device.handle = list.addressable_devices[i];
    device.ordinal = static_cast<int>(i);
    absl::StatusOr<GlobalDevice> described =
        DescribeDevice(device.handle, false);
    if (!described.ok()) return described.status();
    device.id = described->id;
    device.kind = std::move(described->kind);
    devices_.push_back(std::move(device));
  }
  if (devices_.empty()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "the ", platform_name_, " PJRT plugin reports no addressable devices"));
  }
  return absl::OkStatus();
}

absl::StatusOr<const Device*> Client::GetDevice(int ordinal) const {
  if (ordinal < 0 || ordinal >= static_cast<int>(devices_.size())) {
    return absl::OutOfRangeError(absl::StrCat(
        "device ordinal ", ordinal, " is out of range: ", platform_name_,
        " has ", devices_.size(), " devices (0..", devices_.size() - 1, ")"));
  }
  return &devices_[ordinal];
}

absl::StatusOr<BufferPtr> Client::TransferToDevice(const void* data,
                                                   const Shape& shape,
                                                   int ordinal) {
  static metrics::Metric* time = metrics::GetMetric(
      "TransferToDeviceTime", metrics::Metric::Unit::kNanoseconds);
  static metrics::Metric* bytes =
      metrics::GetMetric("OutboundData", metrics::Metric::Unit::kBytes);
  metrics::ScopedTimer timer(time);
  absl::StatusOr<const Device*> device = GetDevice(ordinal);
  if (!device.ok()) return device.status();
  absl::StatusOr<PJRT_Buffer_Type> type = ToPjrtType(shape.dtype);
  if (!type.ok()) return type.status();

  auto args = PJRT_ARGS(PJRT_Client_BufferFromHostBuffer);
  args.client = client_.get();
  args.data = data;
  args.type = *type;
  args.dims = shape.dims.data();
  args.num_dims = shape.dims.size();
  args.host_buffer_semantics =
      PJRT_HostBufferSemantics_kImmutableOnlyDuringCall;
  args.device = (*device)->handle;
  PJRT_RETURN_IF_ERROR(api_, PJRT_Client_BufferFromHostBuffer, args);
  OwnedBuffer owned(args.buffer, BufferDeleter{api_});
  absl::Status done =
      AwaitEvent(api_, args.done_with_host_buffer, "transfer to device");
  if (!done.ok()) return done;
  bytes->Add(static_cast<double>(shape.byte_size()));
  return std::make_shared<Buffer>(api_, std::move(owned), shape, ordinal);
}

absl::Status Client::TransferFromDevice(const Buffer& buffer, void* dst,
                                        int64_t dst_size) {
  static metrics::Metric* time = metrics::GetMetric(
      "TransferFromDeviceTime", metrics::Metric::Unit::kNanoseconds);
  static metrics::Metric* bytes =
      metrics::GetMetric("InboundData", metrics::Metric::Unit::kBytes);
  metrics::ScopedTimer timer(time);
  if (dst_size != buffer.shape().byte_size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "transfer from device: ", buffer.shape().ToString(), " needs ",
        buffer.shape().byte_size(), " bytes, destination has ", dst_size));
  }
  if (buffer.IsDeleted()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "transfer from device: the ", buffer.shape().ToString(),
        " buffer was deleted or donated to a computation"));
  }
  absl::Status ready = buffer.AwaitReady();
  if (!ready.ok()) return ready;
  auto args = PJRT_ARGS(PJRT_Buffer_ToHostBuffer);
  args.src = buffer.handle();
  args.dst = dst;
  args.dst_size = static_cast<size_t>(dst_size);
  PJRT_RETURN_IF_ERROR(api_, PJRT_Buffer_ToHostBuffer, args);
  absl::Status done = AwaitEvent(api_, args.event, "transfer from device");
  if (done.ok()) bytes->Add(static_cast<double>(dst_size));
  return done;
}

absl::StatusOr<BufferPtr> Client::CopyToDevice(const Buffer& buffer,
                                               int ordinal) {
  static metrics::Metric* time = metrics::GetMetric(
      "TransferDeviceToDeviceTime", metrics::Metric::Unit::kNanoseconds);
  metrics::ScopedTimer timer(time);
  const std::string what =
      absl::StrCat("copy of a ", buffer.shape().ToString(), " buffer from ",
                   platform_name_, " device ", buffer.device_ordinal(),
                   " to device ", ordinal);
  absl::StatusOr<const Device*> device = GetDevice(ordinal);
  if (!device.ok()) {
    return absl::Status(device.status().code(),
                        absl::StrCat(what, ": ", device.status().message()));
  }
  if (ordinal == buffer.device_ordinal()) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, ": the buffer is already there (share it instead of copying)"));
  }
  if (buffer.IsDeleted()) {
    return absl::FailedPreconditionError(absl::StrCat(
        what, ": the buffer was deleted or donated to a computation"));
  }
  absl::Status ready = buffer.AwaitReady();
  if (!ready.ok()) return ready;
  auto args = PJRT_ARGS(PJRT_Buffer_CopyToDevice);
  args.buffer = buffer.handle();
  args.dst_device = (*device)->handle;
  PJRT_RETURN_IF_ERROR(api_, PJRT_Buffer_CopyToDevice, args);
  OwnedBuffer owned(args.dst_buffer, BufferDeleter{api_});
  // The copy runs asynchronously: wait for the new buffer to be defined, so
  // that it is ready when made, like a host transfer's.
  auto event = PJRT_ARGS(PJRT_Buffer_ReadyEvent);
  event.buffer = owned.get();
  PJRT_RETURN_IF_ERROR(api_, PJRT_Buffer_ReadyEvent, event);
  absl::Status done = AwaitEvent(api_, event.event, what);
  if (!done.ok()) return done;
  return std::make_shared<Buffer>(api_, std::move(owned), buffer.shape(),
                                  ordinal);
}

absl::StatusOr<int> Client::DeviceOrdinalOf(const Buffer& buffer) const {
  auto args = PJRT_ARGS(PJRT_Buffer_Device);
  args.buffer = buffer.handle();
  PJRT_RETURN_IF_ERROR(api_, PJRT_Buffer_Device, args);
  for (const Device& device : devices_) {
    if (device.handle == args.device) return device.ordinal;
  }
  return absl::NotFoundError(absl::StrCat(
      "the ", buffer.shape().ToString(),
      " buffer is on a device this process cannot address"));
}

absl::StatusOr<OwnedLoadedExecutable> Client::PluginCompile(
    absl::string_view mlir_text, const CompileSpec& spec) {
  std::string options = SerializeCompileOptions(spec);
  std::string code(mlir_text);
  static constexpr char kFormat[] = "mlir";
  auto program = MakeArgs<PJRT_Program>(PJRT_Program_STRUCT_SIZE);
  program.code = code.data();
  program.code_size = code.size();
  program.format = kFormat;
  program.format_size = sizeof(kFormat) - 1;
  auto args = PJRT_ARGS(PJRT_Client_Compile);
  args.client = client_.get();
  args.program = &program;
  args.compile_options = options.data();
  args.compile_options_size = options.size();
  PJRT_RETURN_IF_ERROR(api_, PJRT_Client_Compile, args);
  return OwnedLoadedExecutable(args.executable, LoadedExecutableDeleter{api_});
}

absl::StatusOr<ExecutablePtr> Client::Compile(absl::string_view mlir_text,
                                              const CompileSpec& spec) {
  static metrics::Metric* time =
      metrics::GetMetric("CompileTime", metrics::Metric::Unit::kNanoseconds);
  metrics::ScopedTimer timer(time);
  if (spec.num_replicas < 1 || spec.num_partitions < 1) {
    return absl::InvalidArgumentError(
        "compile: num_replicas and num_partitions must be at least 1");
  }
  if (spec.num_partitions > 1 && !spec.use_spmd_partitioning) {
    return absl::InvalidArgumentError(
        "compile: num_partitions > 1 needs use_spmd_partitioning");
  }
  CompileSpec resolved = spec;
  const size_t wanted = static_cast<size_t>(spec.num_replicas) *
                        static_cast<size_t>(spec.num_partitions);
  if (resolved.device_ids.empty()) {
    if (wanted > devices_.size()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "compile: ", wanted, " devices requested but ", platform_name_,
          " has ", devices_.size(), " (set CPU_NUM_DEVICES for more CPUs)"));
    }
    for (size_t i = 0; i < wanted; ++i) {
      resolved.device_ids.push_back(devices_[i].id);
    }
  } else if (resolved.device_ids.size() != wanted) {
    return absl::InvalidArgumentError(absl::StrCat(
        "compile: ", resolved.device_ids.size(), " device ids given for ",
        spec.num_replicas, " replicas x ", spec.num_partitions, " partitions"));
  }
  std::vector<int> ordinals;
  int remote = 0;  // devices of other processes (multi-process SPMD)
  for (int id : resolved.device_ids) {
    auto it = std::find_if(devices_.begin(), devices_.end(),
                           [id](const Device& d) { return d.id == id; });
    if (it == devices_.end()) {
      auto global = std::find_if(
          global_devices_.begin(), global_devices_.end(),
          [id](const GlobalDevice& d) { return d.id == id; });
      if (global != global_devices_.end() &&
          global->process_index != topology_.process_index) {
        ++remote;
        continue;
      }
      return absl::InvalidArgumentError(
          absl::StrCat("compile: no addressable device has id ", id));
    }
    ordinals.push_back(it->ordinal);
  }
  if (remote > 0) return CompileAcrossProcesses(mlir_text, resolved);

  absl::StatusOr<OwnedLoadedExecutable> compiled =
      PluginCompile(mlir_text, resolved);
  if (!compiled.ok()) return compiled.status();
  OwnedLoadedExecutable loaded = *std::move(compiled);

  auto get = PJRT_ARGS(PJRT_LoadedExecutable_GetExecutable);
  get.loaded_executable = loaded.get();
  PJRT_RETURN_IF_ERROR(api_, PJRT_LoadedExecutable_GetExecutable, get);
  OwnedExecutable executable(get.executable, ExecutableDeleter{api_});

  auto outputs = PJRT_ARGS(PJRT_Executable_NumOutputs);
  outputs.executable = executable.get();
  PJRT_RETURN_IF_ERROR(api_, PJRT_Executable_NumOutputs, outputs);

  auto types = PJRT_ARGS(PJRT_Executable_OutputElementTypes);
  types.executable = executable.get();
  PJRT_RETURN_IF_ERROR(api_, PJRT_Executable_OutputElementTypes, types);
  auto dims = PJRT_ARGS(PJRT_Executable_OutputDimensions);
  dims.executable = executable.get();
  PJRT_RETURN_IF_ERROR(api_, PJRT_Executable_OutputDimensions, dims);
  std::vector<Shape> output_shapes;
  const int64_t* next_dim = dims.dims;
  for (size_t i = 0; i < dims.num_outputs; ++i) {
    absl::StatusOr<DType> dtype = FromPjrtType(types.output_types[i]);
    if (!dtype.ok()) return dtype.status();
    std::vector<int64_t> shape_dims(next_dim, next_dim + dims.dim_sizes[i]);
    next_dim += dims.dim_sizes[i];
    output_shapes.emplace_back(*dtype, std::move(shape_dims));
  }

  auto result = std::make_shared<Executable>(
      api_, std::move(loaded), static_cast<int>(outputs.num_outputs),
      std::move(ordinals), std::move(output_shapes));
  auto stats = PJRT_ARGS(PJRT_Executable_GetCompiledMemoryStats);
  stats.executable = executable.get();
  if (ToStatus(api_, api_->PJRT_Executable_GetCompiledMemoryStats(&stats),
               "memory stats")
          .ok()) {
    result->set_alias_bytes(stats.alias_size_in_bytes);
  }
  return result;
}

absl::StatusOr<Client::Program> Client::OptimizedProgram(
    const Executable& executable) {
  auto get = PJRT_ARGS(PJRT_LoadedExecutable_GetExecutable);
  get.loaded_executable = executable.handle();
  PJRT_RETURN_IF_ERROR(api_, PJRT_LoadedExecutable_GetExecutable, get);
  OwnedExecutable owned(get.executable, ExecutableDeleter{api_});
  static constexpr char kFormat[] = "hlo";
  auto program = MakeArgs<PJRT_Program>(PJRT_Program_STRUCT_SIZE);
  program.format = kFormat;
  program.format_size = sizeof(kFormat) - 1;
  auto args = PJRT_ARGS(PJRT_Executable_OptimizedProgram);
  args.executable = owned.get();
  args.program = &program;
  // First call: the size; second: the bytes.
  PJRT_RETURN_IF_ERROR(api_, PJRT_Executable_OptimizedProgram, args);
  std::string code(program.code_size, '\0');
  program.code = code.data();
  PJRT_RETURN_IF_ERROR(api_, PJRT_Executable_OptimizedProgram, args);
  code.resize(program.code_size);
  return Program{ToString(program.format, program.format_size),
                 std::move(code)};
}

absl::StatusOr<std::vector<std::vector<BufferPtr>>> Client::Execute(
    const Executable& executable,
    absl::Span<const std::vector<BufferPtr>> arguments,
    absl::Span<const int64_t> non_donatable) {
  static metrics::Metric* time =
      metrics::GetMetric("ExecuteTime", metrics::Metric::Unit::kNanoseconds);
  metrics::ScopedTimer timer(time);
  const size_t num_devices = executable.device_ordinals().size();
  if (arguments.size() != num_devices) {
    return absl::InvalidArgumentError(
        absl::StrCat("execute: ", arguments.size(), " argument lists for a ",
                     "computation on ", num_devices, " devices"));
  }
  const size_t num_args = arguments.empty() ? 0 : arguments[0].size();
  std::vector<PJRT_Buffer* const*> argument_lists;
  std::vector<std::vector<PJRT_Buffer*>> handles(num_devices);
  for (size_t d = 0; d < num_devices; ++d) {
    if (arguments[d].size() != num_args) {
      return absl::InvalidArgumentError(
          "execute: every device needs the same number of arguments");
    }
    for (size_t i = 0; i < num_args; ++i) {
      const Buffer* buffer = arguments[d][i].get();
      if (buffer == nullptr || buffer->IsDeleted()) {
        return absl::FailedPreconditionError(absl::StrCat(
            "execute: argument ", i, " was deleted or donated to an earlier "
            "computation"));
      }
      if (buffer->device_ordinal() != executable.device_ordinals()[d]) {
        return absl::InvalidArgumentError(absl::StrCat(
            "execute: argument ", i, " lives on device ",
            buffer->device_ordinal(), " but the computation runs on device ",
            executable.device_ordinals()[d]));
      }
      if (!executable.parameter_shapes().empty()) {
        if (executable.parameter_shapes().size() != num_args) {
          return absl::InvalidArgumentError(absl::StrCat(
              "execute: ", num_args, " arguments given, the computation takes ",
              executable.parameter_shapes().size()));
        }
        absl::Status shape_ok =
            CheckShapeMatches(*buffer, executable.parameter_shapes()[i], i);
        if (!shape_ok.ok()) return shape_ok;
      }
      handles[d].push_back(buffer->handle());
    }
    argument_lists.push_back(handles[d].data());
  }

  const size_t num_outputs = static_cast<size_t>(executable.num_outputs());
  std::vector<std::vector<PJRT_Buffer*>> outputs(
      num_devices, std::vector<PJRT_Buffer*>(num_outputs, nullptr));
  std::vector<PJRT_Buffer**> output_lists;
  for (auto& list : outputs) output_lists.push_back(list.data());
  std::vector<PJRT_Event*> events(num_devices, nullptr);

  auto options = MakeArgs<PJRT_ExecuteOptions>(PJRT_ExecuteOptions_STRUCT_SIZE);
  options.non_donatable_input_indices = non_donatable.data();
  options.num_non_donatable_input_indices = non_donatable.size();
  auto args = PJRT_ARGS(PJRT_LoadedExecutable_Execute);
  args.executable = executable.handle();
  args.options = &options;
  args.argument_lists = argument_lists.data();
  args.num_devices = num_devices;
  args.num_args = num_args;
  args.output_lists = output_lists.data();
  args.device_complete_events = events.data();
  PJRT_RETURN_IF_ERROR(api_, PJRT_LoadedExecutable_Execute, args);

  // Own the outputs before anything can fail, so none leaks.
  std::vector<std::vector<OwnedBuffer>> owned(num_devices);
  for (size_t d = 0; d < num_devices; ++d) {
    for (size_t o = 0; o < num_outputs; ++o) {
      owned[d].emplace_back(outputs[d][o], BufferDeleter{api_});
    }
  }
  // Donation happens when the run is enqueued: inputs the computation took
  // over no longer hold device memory; stop counting them before the
  // outputs that reuse their memory are counted.
  for (size_t d = 0; d < num_devices; ++d) {
    for (const BufferPtr& buffer : arguments[d]) {
      if (buffer->IsDeleted()) buffer->MarkDonated();
    }
  }
  std::vector<std::vector<BufferPtr>> results(num_devices);
  const std::vector<Shape>& shapes = executable.output_shapes();
  std::lock_guard<std::mutex> lock(pending_mu_);
  // Forget runs nobody can wait for any more (all their outputs are gone).
  pending_.erase(std::remove_if(pending_.begin(), pending_.end(),
                                [](const std::weak_ptr<ExecutionEvent>& e) {
                                  return e.expired();
                                }),
                 pending_.end());
  for (size_t d = 0; d < num_devices; ++d) {
    auto done =
        std::make_shared<ExecutionEvent>(api_, events[d], executable.name());
    pending_.push_back(done);
    for (size_t o = 0; o < num_outputs; ++o) {
      results[d].push_back(std::make_shared<Buffer>(
          api_, std::move(owned[d][o]),
          o < shapes.size() ? shapes[o] : Shape(),
          executable.device_ordinals()[d]));
      results[d].back()->set_ready_event(done);
    }
  }
  return results;
}

absl::Status Client::WaitForExecutions() {
  std::vector<std::weak_ptr<ExecutionEvent>> pending;
  {
    std::lock_guard<std::mutex> lock(pending_mu_);
    pending.swap(pending_);
  }
  absl::Status status = absl::OkStatus();
  for (const std::weak_ptr<ExecutionEvent>& weak : pending) {
    if (std::shared_ptr<ExecutionEvent> event = weak.lock()) {
      absl::Status done = event->Await();
      if (status.ok()) status = done;
    }
  }
  return status;
}

absl::StatusOr<MemoryInfo> Client::GetMemoryInfo(int ordinal) const {
  absl::StatusOr<const Device*> device = GetDevice(ordinal);
  if (!device.ok()) return device.status();
  auto stats = PJRT_ARGS(PJRT_Device_MemoryStats);
  stats.device = (*device)->handle;
  MemoryInfo info;
  if (ToStatus(api_, api_->PJRT_Device_MemoryStats(&stats), "memory stats")
          .ok()) {
    info.bytes_in_use = stats.bytes_in_use;
    info.peak_bytes_in_use =
        stats.peak_bytes_in_use_is_set ? stats.peak_bytes_in_use : 0;
    info.bytes_limit = stats.bytes_limit_is_set ? stats.bytes_limit : 0;
    return info;
  }
  // The CPU plugin does not implement memory stats: count our buffers.
  info.bytes_in_use = LiveDeviceBytesOn(ordinal);
  info.peak_bytes_in_use = PeakLiveDeviceBytesOn(ordinal);
  return info;
}

}  // namespace torch_xla::runtime
