#include "torch_xla/csrc/runtime/replication.h"

#include <algorithm>
#include <mutex>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "torch_xla/csrc/runtime/client.h"

namespace torch_xla::runtime {
namespace {

std::mutex& Mu() {
  static std::mutex* mu = new std::mutex();
  return *mu;
}
std::vector<int>& Replicas() {
  static auto* replicas = new std::vector<int>();
  return *replicas;
}

bool HasCollective(absl::string_view text) {
  for (absl::string_view op :
       {"\"stablehlo.all_reduce\"", "\"stablehlo.all_gather\"",
        "\"stablehlo.reduce_scatter\"", "\"stablehlo.all_to_all\"",
        "\"stablehlo.collective_permute\""}) {
    if (absl::StrContains(text, op)) return true;
  }
  return false;
}

}  // namespace

void SetReplicaDevices(std::vector<int> ordinals) {
  std::lock_guard<std::mutex> lock(Mu());
  Replicas() = std::move(ordinals);
}

std::vector<int> GetReplicaDevices() {
  std::lock_guard<std::mutex> lock(Mu());
  return Replicas();
}

absl::Status ReplicateIfCollective(const Client& client,
                                   absl::string_view mlir_text, int ordinal,
                                   CompileSpec* spec) {
  std::vector<int> replicas = GetReplicaDevices();
  if (replicas.size() < 2 || !HasCollective(mlir_text)) {
    return absl::OkStatus();
  }
  if (std::find(replicas.begin(), replicas.end(), ordinal) == replicas.end()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "a program with collectives runs on xla:", ordinal, ", which is not "
        "one of this process's replica devices (",
        absl::StrJoin(replicas, ", "), ")"));
  }
  spec->num_replicas = static_cast<int>(replicas.size());
  spec->num_partitions = 1;
  spec->device_ids.clear();
  for (int r : replicas) {
    absl::StatusOr<const Device*> device = client.GetDevice(r);
    if (!device.ok()) return device.status();
    spec->device_ids.push_back((*device)->id);
  }
  return absl::OkStatus();
}

}  // namespace torch_xla::runtime
