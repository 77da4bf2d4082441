#include "torch_xla/csrc/runtime/replication.h"

#include <algorithm>
#include <utility>
#include <map>
#include <mutex>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/hash/hash.h"
#include "absl/strings/match.h"
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
std::map<int, int>& LaunchIds() {
  static auto* ids = new std::map<int, int>();
  return *ids;
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
  LaunchIds().clear();
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
  spec->run_on_ordinal = ordinal;
  return absl::OkStatus();
}

int NextReplicaLaunchId(int ordinal) {
  std::lock_guard<std::mutex> lock(Mu());
  return ++LaunchIds()[ordinal];
}

// A replicated program is compiled once for all replicas, before any runs,
// and each replica gets a view of that one loaded program: the replicas of
// a launch meet in XLA's collectives only when they run the same loaded
// executable (measured: two compilations of one program wait for each other
// forever). The other replicas' views wait here until their groups ask.
absl::StatusOr<ExecutablePtr> Client::CompileReplicas(
    absl::string_view mlir_text, const CompileSpec& spec) {
  static std::mutex* mu = new std::mutex();
  static auto* ready =
      new std::map<std::pair<std::string, int>, ExecutablePtr>();
  const std::string key = absl::StrCat(
      absl::HashOf(mlir_text), "/", mlir_text.size(), "/",
      absl::StrJoin(spec.device_ids, ","));
  std::lock_guard<std::mutex> lock(*mu);
  auto it = ready->find({key, spec.run_on_ordinal});
  if (it != ready->end()) {
    ExecutablePtr executable = std::move(it->second);
    ready->erase(it);
    return executable;
  }
  CompileSpec all = spec;
  all.run_on_ordinal = -1;
  absl::StatusOr<ExecutablePtr> compiled = CompileOne(mlir_text, all);
  if (!compiled.ok()) return compiled.status();
  ExecutablePtr wanted;
  for (int id : spec.device_ids) {
    auto device = std::find_if(devices_.begin(), devices_.end(),
                               [id](const Device& d) { return d.id == id; });
    if (device == devices_.end()) {
      return absl::InvalidArgumentError(
          absl::StrCat("compile: no addressable device has id ", id));
    }
    ExecutablePtr view = (*compiled)->ReplicaView(device->ordinal,
                                                  device->handle);
    if (device->ordinal == spec.run_on_ordinal) {
      wanted = std::move(view);
    } else {
      (*ready)[{key, device->ordinal}] = std::move(view);
    }
  }
  if (wanted == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        "compile: replica ordinal ", spec.run_on_ordinal,
        " is not among the program's devices"));
  }
  return wanted;
}

}  // namespace torch_xla::runtime
