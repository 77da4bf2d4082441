#include "torch_xla/csrc/spmd/spmd_mode.h"

#include <atomic>
#include <cstdlib>
#include <cstring>

#include "torch_xla/csrc/runtime/client.h"

namespace torch_xla::spmd {
namespace {

std::atomic<bool>& Flag() {
  static std::atomic<bool> flag{[] {
    const char* env = std::getenv("XLA_USE_SPMD");
    return env != nullptr && std::strcmp(env, "1") == 0;
  }()};
  return flag;
}

}  // namespace

bool IsSpmd() { return Flag().load(std::memory_order_relaxed); }

absl::Status EnableSpmd() {
  if (IsSpmd()) return absl::OkStatus();
  if (runtime::LiveDeviceBytes() > 0) {
    return absl::FailedPreconditionError(
        "use_spmd() must be called before any tensor is moved to an XLA "
        "device: existing device data lives on one device, not on the SPMD "
        "virtual device. Call torch_xla.runtime.use_spmd() first (or set "
        "XLA_USE_SPMD=1)");
  }
  Flag().store(true);
  return absl::OkStatus();
}

int64_t SpmdDeviceCount() { return GetSpmdPlacement().global_count; }

SpmdPlacement GetSpmdPlacement() {
  SpmdPlacement placement;
  absl::StatusOr<runtime::Client*> client = runtime::Client::Global();
  if (!client.ok()) return placement;
  const runtime::Client& c = **client;
  placement.local_count = static_cast<int64_t>(c.devices().size());
  placement.global_count = placement.local_count;
  placement.process_count = c.topology().process_count;
  if (placement.process_count <= 1) return placement;
  const auto& global = c.global_devices();
  placement.global_count = static_cast<int64_t>(global.size());
  for (size_t i = 0; i < global.size(); ++i) {
    if (global[i].process_index == c.topology().process_index) {
      placement.first = static_cast<int64_t>(i);
      break;
    }
  }
  return placement;
}

}  // namespace torch_xla::spmd
