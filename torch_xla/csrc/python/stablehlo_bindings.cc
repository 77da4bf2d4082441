// _XLAC._run_stablehlo: runs a StableHLO module given as text (an exported
// program's, torch_xla/stablehlo.py) on the inputs' device, with the
// tensors' buffers as its arguments in order. Compiled once per (module,
// device) and kept; nothing is lowered here: the module is the artifact.

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "absl/hash/hash.h"
#include "absl/strings/str_cat.h"
#include "pybind11/pybind11.h"
#include "pybind11/stl.h"
#include "torch_xla/csrc/ir/status_macros.h"
#include "torch_xla/csrc/metrics/metrics.h"
#include "torch_xla/csrc/python/bindings.h"
#include "torch_xla/csrc/python/status_conversion.h"
#include "torch_xla/csrc/python/torch_tensor.h"
#include "torch_xla/csrc/runtime/client.h"
#include "torch_xla/csrc/tensor/device_data.h"
#include "torch_xla/csrc/tensor/graph_executor.h"
#include "torch_xla/csrc/tensor/host_uploads.h"

namespace py = pybind11;

namespace torch_xla::python {
namespace {

using runtime::BufferPtr;
using runtime::Client;
using runtime::ExecutablePtr;

// Compiled modules by (text hash, text size, device ordinal).
using ModuleKey = std::tuple<size_t, size_t, int>;

absl::StatusOr<ExecutablePtr> CompiledModule(Client* client,
                                             const std::string& text,
                                             int device) {
  static std::mutex mu;
  static auto* cache = new std::map<ModuleKey, ExecutablePtr>();
  static metrics::Counter* compiles =
      metrics::GetCounter("StableHloModuleCompile");
  ModuleKey key{absl::HashOf(text), text.size(), device};
  std::lock_guard<std::mutex> lock(mu);
  auto it = cache->find(key);
  if (it != cache->end()) return it->second;
  TXLA_ASSIGN_OR_RETURN(const runtime::Device* target,
                        client->GetDevice(device));
  runtime::CompileSpec spec;
  spec.device_ids = {target->id};
  absl::StatusOr<ExecutablePtr> executable = client->Compile(text, spec);
  if (!executable.ok()) {
    return absl::Status(executable.status().code(),
                        absl::StrCat("while compiling a StableHLO module: ",
                                     executable.status().message()));
  }
  compiles->Add(1);
  (*executable)->set_name("StableHLO module");
  cache->emplace(key, *executable);
  return *executable;
}

// The buffer of each input on `device`, after running pending IR.
absl::StatusOr<std::vector<BufferPtr>> InputBuffers(
    Client* client, const std::vector<XlaTensorPtr>& inputs, int device) {
  TXLA_RETURN_IF_ERROR(SyncTensors(inputs));
  std::vector<BufferPtr> buffers;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const XlaTensorPtr& t = inputs[i];
    const DataPtr& data = t->data();
    if (data == nullptr || data->kind() == DataKind::kPlaceholder) {
      return absl::InvalidArgumentError(absl::StrCat(
          "_run_stablehlo: input ", i, " (", t->DebugString(),
          ") has no value (a placeholder?)"));
    }
    if (data->kind() == DataKind::kHost) {
      TXLA_ASSIGN_OR_RETURN(
          BufferPtr buffer,
          UploadHostData(client, static_cast<const HostData&>(*data), device,
                         /*fresh=*/false));
      buffers.push_back(std::move(buffer));
      continue;
    }
    auto* device_data = static_cast<const DeviceData*>(data.get());
    TXLA_RETURN_IF_ERROR(device_data->CheckNotDeleted());
    if (device_data->sharding() != nullptr ||
        device_data->device_ordinal() != device) {
      return absl::InvalidArgumentError(absl::StrCat(
          "_run_stablehlo: input ", i, " lives on xla:",
          device_data->device_ordinal(), " (or is sharded); the module runs "
          "on xla:", device, ": move it with .to()"));
    }
    buffers.push_back(device_data->buffer());
  }
  return buffers;
}

absl::StatusOr<std::vector<XlaTensorPtr>> RunModule(
    const std::string& text, const std::vector<XlaTensorPtr>& inputs,
    int device) {
  TXLA_ASSIGN_OR_RETURN(Client * client, Client::Global());
  TXLA_ASSIGN_OR_RETURN(ExecutablePtr executable,
                        CompiledModule(client, text, device));
  TXLA_ASSIGN_OR_RETURN(std::vector<BufferPtr> arguments,
                        InputBuffers(client, inputs, device));
  std::vector<std::vector<BufferPtr>> per_device = {std::move(arguments)};
  // Donate nothing: the inputs stay the caller's.
  std::vector<int64_t> keep(per_device[0].size());
  for (size_t i = 0; i < keep.size(); ++i) keep[i] = static_cast<int64_t>(i);
  TXLA_ASSIGN_OR_RETURN(auto outputs,
                        client->Execute(*executable, per_device, keep));
  std::vector<XlaTensorPtr> results;
  const std::vector<Shape>& shapes = executable->output_shapes();
  for (size_t r = 0; r < outputs[0].size(); ++r) {
    auto data = std::make_shared<DeviceData>(
        shapes[r], std::vector<BufferPtr>{outputs[0][r]});
    results.push_back(XlaTensor::FromData(std::move(data), device));
  }
  return results;
}

}  // namespace

void InitStableHloBindings(py::module_& m) {
  m.def(
      "_run_stablehlo",
      [](const std::string& text, const py::iterable& inputs, int device) {
        std::vector<XlaTensorPtr> tensors = ToXlaTensors(inputs);
        std::vector<XlaTensorPtr> results;
        {
          py::gil_scoped_release release;
          results = ValueOrThrow(RunModule(text, tensors, device));
        }
        py::list out;
        for (XlaTensorPtr& r : results) out.append(WrapTensor(std::move(r)));
        return out;
      },
      py::arg("module"), py::arg("inputs"), py::arg("device") = 0,
      "Runs a StableHLO module (text) on xla:<device> with these tensors as "
      "its arguments, in order; returns its results as new tensors. "
      "Compiled once per module and device.");
}

}  // namespace torch_xla::python
