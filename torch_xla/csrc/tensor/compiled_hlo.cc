#include "torch_xla/csrc/tensor/compiled_hlo.h"

#include "absl/strings/str_cat.h"
#include "torch_xla/csrc/ir/status_macros.h"
#include "torch_xla/csrc/runtime/client.h"
#include "torch_xla/csrc/runtime/hlo_text.h"
#include "torch_xla/csrc/runtime/host_heap.h"
#include "torch_xla/csrc/runtime/replication.h"
#include "torch_xla/csrc/spmd/spmd_mode.h"
#include "torch_xla/csrc/tensor/graph_executor.h"

namespace torch_xla {

absl::StatusOr<std::string> TensorsToCompiledHloText(
    absl::Span<const XlaTensorPtr> tensors) {
  TXLA_ASSIGN_OR_RETURN(const std::string module, TensorsToHloText(tensors));
  TXLA_ASSIGN_OR_RETURN(runtime::Client * client, runtime::Client::Global());
  runtime::CompileSpec spec;
  if (spmd::IsSpmd()) {
    spec.num_partitions = static_cast<int>(client->devices().size());
    spec.use_spmd_partitioning = true;
    for (const runtime::Device& device : client->devices()) {
      spec.device_ids.push_back(device.id);
    }
  } else {
    const int ordinal = tensors.empty() ? 0 : tensors.front()->device();
    TXLA_ASSIGN_OR_RETURN(const runtime::Device* device,
                          client->GetDevice(ordinal));
    spec.device_ids = {device->id};
    TXLA_RETURN_IF_ERROR(
        runtime::ReplicateIfCollective(*client, module, ordinal, &spec));
  }
  absl::StatusOr<runtime::ExecutablePtr> executable =
      client->Compile(module, spec);
  if (!executable.ok()) {
    return absl::Status(
        executable.status().code(),
        absl::StrCat("while compiling the graph of ", tensors.size(),
                     " tensors for its HLO text: ",
                     executable.status().message()));
  }
  absl::StatusOr<runtime::Client::Program> program =
      client->OptimizedProgram(**executable);
  executable->reset();
  // The compiler's scratch heap is free now (as after a sync's compile).
  runtime::ReleaseFreedHeap();
  if (!program.ok()) return program.status();
  return runtime::ProgramToHloText(program->format, program->code);
}

}  // namespace torch_xla
