#include "torch_xla/csrc/runtime/distributed.h"

#include <algorithm>

#include <cstring>
#include <mutex>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "torch_xla/csrc/runtime/client.h"
#include "torch_xla/csrc/runtime/compile_options.h"
#include "torch_xla/csrc/runtime/pjrt_api.h"

namespace torch_xla::runtime {
namespace {

std::mutex& Mu() {
  static std::mutex* mu = new std::mutex();
  return *mu;
}
ProcessTopology& Topology() {
  static ProcessTopology* topology = new ProcessTopology();
  return *topology;
}
std::shared_ptr<KeyValueStore>& Store() {
  static auto* store = new std::shared_ptr<KeyValueStore>();
  return *store;
}

constexpr char kPluginPrefix[] = "pjrt:";

PJRT_Error* ReportError(PJRT_CallbackError* callback_error,
                        const absl::Status& status) {
  PJRT_Error_Code code = status.code() == absl::StatusCode::kDeadlineExceeded
                             ? PJRT_Error_Code_DEADLINE_EXCEEDED
                             : PJRT_Error_Code_UNAVAILABLE;
  std::string message(status.message());
  return (*callback_error)(code, message.data(), message.size());
}

void DeleteValue(char* value) { delete[] value; }

PJRT_Error* KvGet(PJRT_KeyValueGetCallback_Args* args) {
  auto* store = static_cast<KeyValueStore*>(args->user_arg);
  absl::StatusOr<std::string> value = store->Get(
      absl::StrCat(kPluginPrefix, absl::string_view(args->key, args->key_size)),
      args->timeout_in_ms);
  if (!value.ok()) return ReportError(args->callback_error, value.status());
  args->value = new char[value->size()];
  std::memcpy(args->value, value->data(), value->size());
  args->value_size = value->size();
  args->value_deleter_callback = DeleteValue;
  return nullptr;
}

PJRT_Error* KvPut(PJRT_KeyValuePutCallback_Args* args) {
  auto* store = static_cast<KeyValueStore*>(args->user_arg);
  absl::Status status = store->Put(
      absl::StrCat(kPluginPrefix, absl::string_view(args->key, args->key_size)),
      absl::string_view(args->value, args->value_size));
  if (!status.ok()) return ReportError(args->callback_error, status);
  return nullptr;
}

std::string DevicesKey(int process) {
  return absl::StrCat("torch_xla/devices/", process);
}

// "id:kind;id:kind" (kinds hold no ';' or ':' on any plugin we know).
std::string Encode(const std::vector<GlobalDevice>& devices) {
  std::string out;
  for (const GlobalDevice& d : devices) {
    absl::StrAppend(&out, out.empty() ? "" : ";", d.id, ":", d.kind);
  }
  return out;
}

absl::StatusOr<std::vector<GlobalDevice>> Decode(absl::string_view text,
                                                 int process) {
  std::vector<GlobalDevice> out;
  for (absl::string_view item : absl::StrSplit(text, ';', absl::SkipEmpty())) {
    std::pair<absl::string_view, absl::string_view> parts =
        absl::StrSplit(item, absl::MaxSplits(':', 1));
    GlobalDevice device;
    device.process_index = process;
    device.kind = std::string(parts.second);
    if (!absl::SimpleAtoi(parts.first, &device.id)) {
      return absl::DataLossError(absl::StrCat(
          "process ", process, " published a malformed device list: '", text,
          "'"));
    }
    out.push_back(std::move(device));
  }
  return out;
}

}  // namespace

void SetProcessTopology(ProcessTopology topology) {
  std::lock_guard<std::mutex> lock(Mu());
  Topology() = topology;
}

ProcessTopology GetProcessTopology() {
  std::lock_guard<std::mutex> lock(Mu());
  return Topology();
}

void SetKeyValueStore(std::shared_ptr<KeyValueStore> store) {
  std::lock_guard<std::mutex> lock(Mu());
  Store() = std::move(store);
}

std::shared_ptr<KeyValueStore> GetKeyValueStore() {
  std::lock_guard<std::mutex> lock(Mu());
  return Store();
}

namespace {
std::function<absl::Status()>& JoinHook() {
  static auto* hook = new std::function<absl::Status()>();
  return *hook;
}
}  // namespace

void SetJoinHook(std::function<absl::Status()> hook) {
  std::lock_guard<std::mutex> lock(Mu());
  JoinHook() = std::move(hook);
}

absl::Status RunJoinHookOnce() {
  static std::once_flag once;
  static absl::Status* result = new absl::Status();
  std::function<absl::Status()> hook;
  {
    std::lock_guard<std::mutex> lock(Mu());
    hook = JoinHook();
  }
  std::call_once(once, [&] {
    if (hook) *result = hook();
  });
  return *result;
}

void SetKeyValueCallbacks(PJRT_Client_Create_Args* args) {
  std::shared_ptr<KeyValueStore> store = GetKeyValueStore();
  if (store == nullptr) return;
  // The store outlives the client: it is released only by a later
  // SetKeyValueStore, which nothing calls once the client exists.
  args->kv_get_callback = KvGet;
  args->kv_get_user_arg = store.get();
  args->kv_put_callback = KvPut;
  args->kv_put_user_arg = store.get();
}

absl::StatusOr<std::vector<GlobalDevice>> ExchangeDevices(
    const std::vector<GlobalDevice>& local, const ProcessTopology& topology,
    KeyValueStore* store, int timeout_ms) {
  if (topology.process_count <= 1) return local;
  if (store == nullptr) {
    return absl::FailedPreconditionError(absl::StrCat(
        "process ", topology.process_index, " of ", topology.process_count,
        " has no key-value store to meet the others through: start the job "
        "with torch_xla.launch or xmp.spawn, or set MASTER_ADDR and "
        "XLA_COORDINATOR_PORT"));
  }
  absl::Status put = store->Put(DevicesKey(topology.process_index),
                                Encode(local));
  if (!put.ok()) {
    return absl::UnavailableError(absl::StrCat(
        "process ", topology.process_index,
        " could not publish its devices: ", put.message()));
  }
  std::vector<GlobalDevice> all;
  for (int p = 0; p < topology.process_count; ++p) {
    if (p == topology.process_index) {
      all.insert(all.end(), local.begin(), local.end());
      continue;
    }
    absl::StatusOr<std::string> text = store->Get(DevicesKey(p), timeout_ms);
    if (!text.ok()) {
      return absl::DeadlineExceededError(absl::StrCat(
          "process ", topology.process_index, " waited ", timeout_ms,
          " ms for the devices of process ", p, " of ",
          topology.process_count, ", which never published them (did it "
          "start, or did it fail first?): ", text.status().message()));
    }
    absl::StatusOr<std::vector<GlobalDevice>> devices = Decode(*text, p);
    if (!devices.ok()) return devices.status();
    all.insert(all.end(), devices->begin(), devices->end());
  }
  return all;
}

absl::StatusOr<GlobalDevice> Client::DescribeDevice(
    PJRT_Device* device, bool with_process_index) const {
  auto description = PJRT_ARGS(PJRT_Device_GetDescription);
  description.device = device;
  PJRT_RETURN_IF_ERROR(api_, PJRT_Device_GetDescription, description);
  GlobalDevice described;
  auto id = PJRT_ARGS(PJRT_DeviceDescription_Id);
  id.device_description = description.device_description;
  PJRT_RETURN_IF_ERROR(api_, PJRT_DeviceDescription_Id, id);
  described.id = id.id;
  if (with_process_index) {
    auto process = PJRT_ARGS(PJRT_DeviceDescription_ProcessIndex);
    process.device_description = description.device_description;
    PJRT_RETURN_IF_ERROR(api_, PJRT_DeviceDescription_ProcessIndex, process);
    described.process_index = process.process_index;
  }
  auto kind = PJRT_ARGS(PJRT_DeviceDescription_Kind);
  kind.device_description = description.device_description;
  PJRT_RETURN_IF_ERROR(api_, PJRT_DeviceDescription_Kind, kind);
  described.kind = std::string(kind.device_kind, kind.device_kind_size);
  return described;
}

// The client's view of the job (a Client member, kept with the rest of the
// multi-process logic).
absl::Status Client::DiscoverGlobalDevices() {
  std::vector<GlobalDevice> local;
  for (const Device& device : devices_) {
    local.push_back({device.id, topology_.process_index, device.kind});
  }
  auto list = PJRT_ARGS(PJRT_Client_Devices);
  list.client = client_.get();
  PJRT_RETURN_IF_ERROR(api_, PJRT_Client_Devices, list);
  if (list.num_devices > devices_.size()) {
    // The plugin knows the whole job (TPU, GPU with a KV store).
    for (size_t i = 0; i < list.num_devices; ++i) {
      absl::StatusOr<GlobalDevice> device =
          DescribeDevice(list.devices[i], true);
      if (!device.ok()) return device.status();
      global_devices_.push_back(*std::move(device));
    }
    std::stable_sort(global_devices_.begin(), global_devices_.end(),
                     [](const GlobalDevice& a, const GlobalDevice& b) {
                       return a.process_index < b.process_index;
                     });
    return absl::OkStatus();
  }
  // The CPU plugin lists only this process's devices: agree on the rest
  // through the key-value store.
  std::shared_ptr<KeyValueStore> store = GetKeyValueStore();
  absl::StatusOr<std::vector<GlobalDevice>> all =
      ExchangeDevices(local, topology_, store.get(), topology_.timeout_ms);
  if (!all.ok()) return all.status();
  global_devices_ = std::move(*all);
  return absl::OkStatus();
}

// Multi-process SPMD: a program over every process's devices.
absl::Status Client::CompileAcrossProcesses(absl::string_view mlir_text,
                                            const CompileSpec& spec) {
  // Asks the plugin itself, so the error carries its own words.
  const absl::Status compiled = PluginCompile(mlir_text, spec).status();
  const std::string what = absl::StrCat(
      "the program is partitioned over ", spec.device_ids.size(),
      " devices of ", topology_.process_count, " processes (multi-process "
      "SPMD: a mesh over every process's devices)");
  if (device_type_ == "CPU") {
    return absl::UnimplementedError(absl::StrCat(
        "compile: ", what, ", but the CPU PJRT plugin runs no program across "
        "processes",
        compiled.ok() ? "" : absl::StrCat(" (", compiled.message(), ")"),
        ". Such a program runs on a plugin whose runtime spans processes: "
        "libtpu on a TPU pod (or a GPU plugin across hosts). On CPU, run "
        "SPMD in one process over CPU_NUM_DEVICES devices, or data parallel "
        "over processes (docs/pods.md)"));
  }
  return absl::UnimplementedError(absl::StrCat(
      "compile: ", what, "; running one program across processes on ",
      device_type_, " is not wired in this build yet (docs/pods.md)",
      compiled.ok() ? "" : absl::StrCat(" (", compiled.message(), ")")));
}

}  // namespace torch_xla::runtime
