#ifndef TORCH_XLA_CSRC_RUNTIME_CLIENT_H_
#define TORCH_XLA_CSRC_RUNTIME_CLIENT_H_

// A PJRT client over one plugin: devices, host<->device transfers, compile
// and execute. One client per process (PJRT's rule); Client::Global() makes
// it from the environment on first use. Buffers and executables hold a
// shared_ptr to nothing but their own handle: the client outlives them (it is
// never destroyed).

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "torch_xla/csrc/ir/shape.h"
#include "torch_xla/csrc/runtime/compile_options.h"
#include "torch_xla/csrc/runtime/distributed.h"
#include "torch_xla/csrc/runtime/pjrt_api.h"

namespace torch_xla::runtime {

struct Device {
  int id = 0;           // PJRT global device id
  int ordinal = 0;      // index among this process's addressable devices
  std::string kind;     // e.g. "cpu"
  PJRT_Device* handle = nullptr;
};

class Buffer;
using BufferPtr = std::shared_ptr<Buffer>;

// The completion of one execution on one device; the outputs of that
// execution share it. (Its arguments need not outlive it: PJRT frees a
// destroyed buffer's memory only after the executions reading it finish.)
// Awaited at most once; the status is kept, so every reader of every output
// sees a failure, named after the computation.
class ExecutionEvent {
 public:
  ExecutionEvent(const PJRT_Api* api, PJRT_Event* event, std::string name);
  ~ExecutionEvent();
  ExecutionEvent(const ExecutionEvent&) = delete;
  ExecutionEvent& operator=(const ExecutionEvent&) = delete;

  absl::Status Await();

 private:
  std::mutex mu_;
  const PJRT_Api* api_;
  PJRT_Event* event_;  // null once awaited
  const std::string name_;
  absl::Status status_;
};

// An on-device array. Owns its PJRT buffer; counts towards live device bytes
// until destroyed or donated to an execution. The output of an execution that
// may still be running holds that execution's event.
class Buffer {
 public:
  Buffer(const PJRT_Api* api, OwnedBuffer buffer, Shape shape, int ordinal);
  ~Buffer();
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  const Shape& shape() const { return shape_; }
  int device_ordinal() const { return ordinal_; }
  int64_t on_device_bytes() const { return bytes_; }
  PJRT_Buffer* handle() const { return buffer_.get(); }
  // True once an execution took the buffer over (donation) or it was freed.
  bool IsDeleted() const;
  // Stops counting the buffer as live after a donation consumed it.
  void MarkDonated();

  // Waits until the execution that computes the buffer has finished; its
  // error if it failed.
  absl::Status AwaitReady() const;
  void set_ready_event(std::shared_ptr<ExecutionEvent> event) {
    ready_ = std::move(event);
  }

 private:
  const PJRT_Api* api_;
  OwnedBuffer buffer_;
  std::shared_ptr<ExecutionEvent> ready_;  // null: ready when made
  const Shape shape_;
  const int ordinal_;
  int64_t bytes_ = 0;
  bool counted_ = false;
};

// A compiled program, loaded on its devices.
class Executable {
 public:
  Executable(const PJRT_Api* api, OwnedLoadedExecutable executable,
             int num_outputs, std::vector<int> device_ordinals,
             std::vector<Shape> output_shapes);

  int num_outputs() const { return num_outputs_; }
  // Names the computation in errors reported by a failed execution.
  const std::string& name() const { return name_; }
  void set_name(std::string name) { name_ = std::move(name); }
  // Per-device output shapes (shards under SPMD).
  const std::vector<Shape>& output_shapes() const { return output_shapes_; }
  // Ordinals of the devices it runs on, in argument-list order.
  const std::vector<int>& device_ordinals() const { return device_ordinals_; }
  PJRT_LoadedExecutable* handle() const { return executable_.get(); }

  // Bytes the compiler aliased between inputs and outputs, or -1 when the
  // plugin does not report memory stats.
  int64_t alias_bytes() const { return alias_bytes_; }
  void set_alias_bytes(int64_t bytes) { alias_bytes_ = bytes; }

  // Per-device parameter shapes. When set, Execute checks its arguments
  // against them: the plugin itself only checks byte sizes.
  const std::vector<Shape>& parameter_shapes() const { return parameter_shapes_; }
  void set_parameter_shapes(std::vector<Shape> shapes) {
    parameter_shapes_ = std::move(shapes);
  }

 private:
  const PJRT_Api* api_;
  std::shared_ptr<PJRT_LoadedExecutable> executable_;
  int num_outputs_;
  std::vector<int> device_ordinals_;
  std::vector<Shape> output_shapes_;
  int64_t alias_bytes_ = -1;
  std::vector<Shape> parameter_shapes_;
  std::string name_ = "computation";
};

using ExecutablePtr = std::shared_ptr<Executable>;

struct ClientOptions {
  std::string device_type = "CPU";  // PJRT_DEVICE
  std::string plugin_path;          // empty: discover from device_type
  int cpu_device_count = 1;         // CPU_NUM_DEVICES (upstream default 1)
  // This process's place in a multi-process job (SetProcessTopology).
  ProcessTopology topology;
};

struct MemoryInfo {
  int64_t bytes_in_use = 0;
  int64_t peak_bytes_in_use = 0;
  int64_t bytes_limit = 0;  // 0 when the plugin does not say
};

class Client {
 public:
  static absl::StatusOr<std::unique_ptr<Client>> Create(
      const ClientOptions& options);
  // The process-wide client, created from PJRT_DEVICE, CPU_NUM_DEVICES and
  // PJRT_PLUGIN_LIBRARY_PATH on first use.
  static absl::StatusOr<Client*> Global();
  // True once Global() has created the client.
  static bool GlobalCreated();
  ClientOptions static OptionsFromEnv();

  ~Client();

  const std::string& device_type() const { return device_type_; }
  const std::string& platform_name() const { return platform_name_; }
  const std::string& platform_version() const { return platform_version_; }
  // The plugin library in use and the PJRT C API version it implements.
  const std::string& plugin_path() const { return plugin_path_; }
  std::string plugin_api_version() const;
  const std::vector<Device>& devices() const { return devices_; }
  // Every device of the job, all processes', ordered by process index (the
  // plugin's list where it knows them all, else agreed through the
  // key-value store). One process: the addressable devices.
  const std::vector<GlobalDevice>& global_devices() const {
    return global_devices_;
  }
  // This process's place in the job, as the client was created with.
  const ProcessTopology& topology() const { return topology_; }
  absl::StatusOr<const Device*> GetDevice(int ordinal) const;

  // Copies `data` (dense, row-major, shape.byte_size() bytes) to a device.
  absl::StatusOr<BufferPtr> TransferToDevice(const void* data,
                                             const Shape& shape, int ordinal);
  // Copies a buffer into `dst`, which holds exactly its byte size, once the
  // execution computing it (if any) has finished.
  absl::Status TransferFromDevice(const Buffer& buffer, void* dst,
                                  int64_t dst_size);
  // Copies a buffer to another device of this client directly (PJRT
  // CopyToDevice: no host round trip), once the execution computing it (if
  // any) has finished. Returns when the copy is complete. Counted in the
  // TransferDeviceToDeviceTime metric, not in the host transfer metrics.
  absl::StatusOr<BufferPtr> CopyToDevice(const Buffer& buffer, int ordinal);
  // The ordinal of the device PJRT says holds `buffer` (not our bookkeeping:
  // tests use it to check where computations and copies really put data).
  absl::StatusOr<int> DeviceOrdinalOf(const Buffer& buffer) const;

  absl::StatusOr<ExecutablePtr> Compile(absl::string_view mlir_text,
                                        const CompileSpec& spec);

  // The compiled program as XLA optimized it, in the plugin's format: "hlo"
  // (a serialized HloModuleProto) or "hlo_with_config" (an
  // HloModuleProtoWithConfig around one). After SPMD partitioning it records
  // the shardings the partitioner chose for the outputs.
  struct Program {
    std::string format;
    std::string code;
  };
  absl::StatusOr<Program> OptimizedProgram(const Executable& executable);

  // Enqueues `executable` and returns at once. arguments[d] lists the d-th
  // device's inputs in parameter order; inputs whose index is in
  // `non_donatable` are kept even when the module marks them as donated.
  // Returns outputs per device; they become ready when the device finishes
  // (Buffer::AwaitReady, WaitForExecutions). Errors found while enqueueing
  // are returned here, errors of the run itself at the first wait.
  absl::StatusOr<std::vector<std::vector<BufferPtr>>> Execute(
      const Executable& executable,
      absl::Span<const std::vector<BufferPtr>> arguments,
      absl::Span<const int64_t> non_donatable = {});

  // Waits for every execution enqueued so far; the first error among those
  // not awaited before.
  absl::Status WaitForExecutions();

  // Plugin memory stats where implemented, else our own accounting of live
  // buffers on that device.
  absl::StatusOr<MemoryInfo> GetMemoryInfo(int ordinal) const;

 private:
  Client(const PJRT_Api* api, OwnedClient client, std::string device_type);
  absl::Status DiscoverDevices();
  absl::Status DiscoverGlobalDevices();
  // What PJRT's description of `device` says (distributed.cc): its id,
  // kind and, when `with_process_index`, the process that drives it (else
  // 0).
  absl::StatusOr<GlobalDevice> DescribeDevice(PJRT_Device* device,
                                              bool with_process_index) const;
  // PJRT_Client_Compile of `mlir_text` under `spec`'s compile options: the
  // loaded executable, or the plugin's own error.
  absl::StatusOr<OwnedLoadedExecutable> PluginCompile(
      absl::string_view mlir_text, const CompileSpec& spec);
  // Compile of a program whose devices include other processes' (multi-
  // process SPMD): the plugin is asked, and the error says what runs such
  // a program (executing it across processes is not wired here).
  absl::Status CompileAcrossProcesses(absl::string_view mlir_text,
                                      const CompileSpec& spec);

  const PJRT_Api* api_;
  OwnedClient client_;
  std::string device_type_;
  std::string platform_name_;
  std::string platform_version_;
  std::string plugin_path_;
  std::vector<Device> devices_;
  std::vector<GlobalDevice> global_devices_;
  ProcessTopology topology_;
  std::mutex pending_mu_;
  std::vector<std::weak_ptr<ExecutionEvent>> pending_;
};

// Live device bytes across all buffers this process holds (all devices),
// and its high-water mark since the last reset.
int64_t LiveDeviceBytes();
int64_t PeakLiveDeviceBytes();
void ResetPeakLiveDeviceBytes();
int64_t LiveDeviceBytesOn(int ordinal);
int64_t PeakLiveDeviceBytesOn(int ordinal);

absl::StatusOr<PJRT_Buffer_Type> ToPjrtType(DType dtype);
absl::StatusOr<DType> FromPjrtType(PJRT_Buffer_Type type);

}  // namespace torch_xla::runtime

#endif  // TORCH_XLA_CSRC_RUNTIME_CLIENT_H_
