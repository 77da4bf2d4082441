#include "torch_xla/csrc/tensor/graph_executor.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <unordered_map>
#include <unordered_set>
#include <tuple>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "torch_xla/csrc/ir/builder.h"
#include "torch_xla/csrc/ir/graph_hash.h"
#include "torch_xla/csrc/ir/graph_walk.h"
#include "torch_xla/csrc/ir/status_macros.h"
#include "torch_xla/csrc/lowering/lowering_context.h"
#include "torch_xla/csrc/metrics/metrics.h"
#include "torch_xla/csrc/runtime/client.h"
#include "torch_xla/csrc/spmd/spmd_execution.h"
#include "torch_xla/csrc/spmd/spmd_mode.h"
#include "torch_xla/csrc/tensor/device_data.h"
#include "torch_xla/csrc/tensor/donation.h"
#include "torch_xla/csrc/tensor/execution_scope.h"
#include "torch_xla/csrc/tensor/sync_group.h"
#include "torch_xla/csrc/tensor/views.h"
namespace torch_xla {
namespace {

using runtime::Client;

std::atomic<bool> g_buffer_donor_aliasing{false};

// Serialises syncs: tensors change state under it.
std::mutex& SyncMutex() {
  static auto* mu = new std::mutex();
  return *mu;
}

// Live tensors holding host data that SpmdArguments placed on the devices
// take the replicated device data instead, so it is transferred once.
absl::Status KeepPlacedHostData(
    const std::unordered_map<int64_t, std::shared_ptr<DeviceData>>& placed) {
  if (placed.empty()) return absl::OkStatus();
  for (const XlaTensorPtr& tensor : LiveTensors()) {
    if (tensor->state() != TensorState::kHostData) continue;
    auto it = placed.find(tensor->data()->id());
    if (it != placed.end()) TXLA_RETURN_IF_ERROR(tensor->SetData(it->second));
  }
  return absl::OkStatus();
}

// Hands a launched group's outputs (one list per device of its program) to
// its tensors.
absl::Status FinishGroup(PreparedGroup& prepared,
                         std::vector<std::vector<BufferPtr>> outputs) {
  const SyncGroup& group = *prepared.group;
  const Donation& donation = prepared.donation;
  const bool spmd = prepared.spmd;
  const std::shared_ptr<CompiledGraph>& compiled = prepared.compiled;
  // One DeviceData per result, shared by the tensors computing it; under
  // SPMD it holds each device's buffer.
  std::vector<std::shared_ptr<DeviceData>> data(outputs[0].size());
  for (size_t r = 0; r < data.size(); ++r) {
    if (!spmd) {
      data[r] = std::make_shared<DeviceData>(
          group.results[r].shape(), std::vector<BufferPtr>{outputs[0][r]});
      continue;
    }
    std::vector<BufferPtr> buffers;
    for (const std::vector<BufferPtr>& device_outputs : outputs) {
      buffers.push_back(device_outputs[r]);
    }
    data[r] = std::make_shared<DeviceData>(group.results[r].shape(),
                                           std::move(buffers),
                                           compiled->output_shardings[r]);
  }
  for (size_t t = 0; t < group.tensors.size(); ++t) {
    const XlaTensorPtr& tensor = group.tensors[t];
    // A tensor another thread wrote since this sync collected it (a loader
    // thread's copy_ into a new tensor) keeps that newer value.
    if (tensor->state() != TensorState::kIrValue ||
        tensor->ir_value() != group.results[group.result_of_tensor[t]]) {
      continue;
    }
    std::shared_ptr<DeviceData>& result = data[group.result_of_tensor[t]];
    if (result->owner_alias_id() < 0) result->set_owner_alias_id(tensor->alias_id());
    absl::Status status = tensor->SetData(result);
    if (!status.ok()) return status;
  }
  TXLA_RETURN_IF_ERROR(KeepPlacedHostData(prepared.placed));
  for (const XlaTensorPtr& donor : donation.donor_tensors) donor->MarkDeleted();
  return absl::OkStatus();
}

absl::Status RunGroup(PreparedGroup& prepared) {
  static metrics::Metric* replicated_time = metrics::GetMetric(
      "ExecuteReplicatedTime", metrics::Metric::Unit::kNanoseconds);
  TXLA_ASSIGN_OR_RETURN(Client * client, Client::Global());
  std::vector<std::vector<BufferPtr>> outputs;
  {
    metrics::ScopedTimer timer(prepared.spmd ? replicated_time : nullptr);
    metrics::ScopedTimer scope_timer(ScopeExecuteMetric());
    TXLA_ASSIGN_OR_RETURN(outputs, client->Execute(*prepared.compiled->executable,
                                                   prepared.arguments));
  }
  return FinishGroup(prepared, std::move(outputs));
}

// Replica threads (runtime/replication.h) each sync or read their own
// device, but a replicated program runs all replicas in one Execute, an
// argument list per replica device. So a replica's prepared group waits here
// until every replica device has brought its group of the same program;
// the sync that brings the last one launches them all.
struct ReplicaLaunch {
  std::map<int, PreparedGroup*> by_device;
  bool done = false;
  absl::Status status;
};

std::map<const runtime::Executable*, std::shared_ptr<ReplicaLaunch>>&
PendingLaunches() {
  static auto* pending = new std::map<const runtime::Executable*,
                                      std::shared_ptr<ReplicaLaunch>>();
  return *pending;
}

std::condition_variable& ReplicaLaunched() {
  static auto* launched = new std::condition_variable();
  return *launched;
}

// How long a replica waits for the others to bring their part. XLA's own
// collectives give up after 40 s; a replica that never comes is a program
// error (the replicas traced different steps), reported instead of a hang.
constexpr auto kReplicaWait = std::chrono::seconds(300);

absl::Status RunReplicas(const runtime::Executable& executable,
                         const ReplicaLaunch& launch) {
  std::vector<std::vector<BufferPtr>> arguments;
  for (int device : executable.device_ordinals()) {
    arguments.push_back(launch.by_device.at(device)->arguments[0]);
  }
  TXLA_ASSIGN_OR_RETURN(Client * client, Client::Global());
  std::vector<std::vector<BufferPtr>> outputs;
  {
    metrics::ScopedTimer scope_timer(ScopeExecuteMetric());
    TXLA_ASSIGN_OR_RETURN(outputs, client->Execute(executable, arguments));
  }
  for (size_t d = 0; d < outputs.size(); ++d) {
    const int device = executable.device_ordinals()[d];
    TXLA_RETURN_IF_ERROR(FinishGroup(*launch.by_device.at(device),
                                     {std::move(outputs[d])}));
  }
  return absl::OkStatus();
}

// Takes this sync's `groups` back out of the launches still pending, so
// that none keeps a pointer to them once the sync returns.
void WithdrawFromLaunches(const std::vector<PreparedGroup>& groups) {
  for (auto it = PendingLaunches().begin(); it != PendingLaunches().end();) {
    std::map<int, PreparedGroup*>& by_device = it->second->by_device;
    for (const PreparedGroup& prepared : groups) {
      auto mine = by_device.find(prepared.group->device);
      if (mine != by_device.end() && mine->second == &prepared) {
        by_device.erase(mine);
      }
    }
    it = by_device.empty() ? PendingLaunches().erase(it) : std::next(it);
  }
}

// Joins `groups` (replicated, prepared under SyncMutex, held by `lock`) to
// their launches, launches those now complete and waits, releasing the
// lock, until the others have been launched by the syncs of other replicas.
absl::Status JoinReplicaLaunches(std::vector<PreparedGroup>& groups,
                                 std::unique_lock<std::mutex>& lock) {
  std::vector<std::pair<const runtime::Executable*,
                        std::shared_ptr<ReplicaLaunch>>> joined;
  for (PreparedGroup& prepared : groups) {
    const runtime::Executable* executable = prepared.compiled->executable.get();
    std::shared_ptr<ReplicaLaunch>& pending = PendingLaunches()[executable];
    if (pending == nullptr) pending = std::make_shared<ReplicaLaunch>();
    const std::shared_ptr<ReplicaLaunch> launch = pending;
    if (!launch->by_device.emplace(prepared.group->device, &prepared).second) {
      WithdrawFromLaunches(groups);
      return absl::FailedPreconditionError(absl::StrCat(
          "replica threads: xla:", prepared.group->device, " launched its "
          "part of a program with collectives twice before the other "
          "replicas launched theirs once"));
    }
    if (std::none_of(joined.begin(), joined.end(),
                     [&](const auto& j) { return j.second == launch; })) {
      joined.emplace_back(executable, launch);
    }
    if (launch->by_device.size() == executable->device_ordinals().size()) {
      PendingLaunches().erase(executable);
      launch->status = RunReplicas(*executable, *launch);
      launch->done = true;
      ReplicaLaunched().notify_all();
    }
  }
  const auto deadline = std::chrono::steady_clock::now() + kReplicaWait;
  for (const auto& [executable, launch] : joined) {
    if (ReplicaLaunched().wait_until(lock, deadline,
                                     [&] { return launch->done; })) {
      TXLA_RETURN_IF_ERROR(launch->status);
      continue;
    }
    std::vector<std::string> missing;
    for (int device : executable->device_ordinals()) {
      if (!launch->by_device.count(device)) {
        missing.push_back(absl::StrCat("xla:", device));
      }
    }
    WithdrawFromLaunches(groups);
    return absl::DeadlineExceededError(absl::StrCat(
        "replica threads: a program with collectives waited ",
        kReplicaWait.count(), " s for ", absl::StrJoin(missing, ", "),
        " to run its part; every replica thread must trace the same step "
        "and read or torch_xla.sync() it"));
  }
  return absl::OkStatus();
}

// Splits pending tensors by device; a tensor whose pending value is just a
// data leaf takes that data without running anything, except a fill, which
// the step turns into a buffer (see MaterializeFills), and a copy
// (`copies`, donation.h SharersToCopy).
absl::StatusOr<std::vector<SyncGroup>> MakeGroups(
    absl::Span<const XlaTensorPtr> tensors,
    const std::unordered_set<const XlaTensor*>& copies) {
  std::map<int, SyncGroup> by_device;
  for (const XlaTensorPtr& tensor : tensors) {
    if (tensor->state() != TensorState::kIrValue) continue;
    const Value& value = tensor->ir_value();
    if (value.node->kind() == OpKind::kDeviceData &&
        !IsHostFill(*value.node->data()) && !copies.count(tensor.get())) {
      absl::Status status = tensor->SetData(value.node->data());
      if (!status.ok()) return status;
      continue;
    }
    SyncGroup& group = by_device[tensor->device()];
    group.device = tensor->device();
    group.tensors.push_back(tensor);
  }
  std::vector<SyncGroup> groups;
  for (auto& [device, group] : by_device) {
    // Canonical result order: by what each tensor computes, then by ID, so
    // the same step builds the same module whatever order its tensors were
    // created in (e.g. optimizer state made during the first step).
    std::vector<Value> values;
    for (const XlaTensorPtr& tensor : group.tensors) {
      values.push_back(tensor->ir_value());
    }
    std::vector<uint64_t> hashes = ValueHashes(values);
    std::vector<size_t> order(group.tensors.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      return hashes[a] < hashes[b];
    });
    std::vector<XlaTensorPtr> sorted;
    for (size_t i : order) sorted.push_back(group.tensors[i]);
    group.tensors = std::move(sorted);

    // Tensors with the same value and alias ID share one result; a tensor
    // with another alias ID (a clone) gets its own buffer, which it alone
    // owns for later donation.
    std::map<std::tuple<const Node*, int, int64_t>, int64_t> seen;
    for (const XlaTensorPtr& tensor : group.tensors) {
      const Value& value = tensor->ir_value();
      auto key = std::make_tuple(value.node.get(), value.index,
                                 tensor->alias_id());
      auto [it, inserted] = seen.emplace(key, group.results.size());
      if (inserted) group.results.push_back(value);
      group.result_of_tensor.push_back(it->second);
    }
    groups.push_back(std::move(group));
  }
  return groups;
}

// Tensors whose pending value reads a placeholder: they can be traced and
// lowered, never executed. (Each node knows it: no walk.)
std::unordered_set<const XlaTensor*> PlaceholderDependents(
    absl::Span<const XlaTensorPtr> tensors) {
  std::unordered_set<const XlaTensor*> dependents;
  for (const XlaTensorPtr& tensor : tensors) {
    if (tensor->state() == TensorState::kIrValue &&
        tensor->ir_value().node->reads_placeholder()) {
      dependents.insert(tensor.get());
    }
  }
  return dependents;
}

// Live tensors made by a fill (zeros, full) and never written: the step
// computes them too (their element broadcast in the graph), so they leave
// the sync as device data. Graphs of later steps then read a buffer instead
// of broadcasting a scalar through every op that uses them (XLA's simplifier
// gets lost pushing such broadcasts down long chains), and nothing is
// uploaded for them again. Returns their alias IDs.
absl::StatusOr<std::unordered_set<int64_t>> MaterializeFills(
    absl::Span<const XlaTensorPtr> live) {
  std::unordered_set<int64_t> materialized;
  for (const XlaTensorPtr& tensor : live) {
    if (tensor->state() != TensorState::kHostData ||
        !IsHostFill(*tensor->data())) {
      continue;
    }
    TXLA_RETURN_IF_ERROR(
        tensor->SetIrValue(Value(MakeDataNode(tensor->data()))));
    materialized.insert(tensor->alias_id());
  }
  return materialized;
}

absl::Status Sync(std::unique_lock<std::mutex>& lock,
                  absl::Span<const XlaTensorPtr> tensors, DonationMode mode,
                  absl::Span<const XlaTensorPtr> live,
                  const std::unordered_set<int64_t>& materialized = {},
                  const std::unordered_set<const XlaTensor*>& copies = {}) {
  absl::StatusOr<std::vector<SyncGroup>> groups = MakeGroups(tensors, copies);
  if (!groups.ok()) return groups.status();
  std::vector<PreparedGroup> replicas;
  for (SyncGroup& group : *groups) {
    TXLA_ASSIGN_OR_RETURN(PreparedGroup prepared,
                          PrepareGroup(group, mode, live, materialized));
    if (prepared.replicated()) {
      replicas.push_back(std::move(prepared));
      continue;
    }
    TXLA_RETURN_IF_ERROR(RunGroup(prepared));
  }
  if (replicas.empty()) return absl::OkStatus();
  return JoinReplicaLaunches(replicas, lock);
}

}  // namespace

absl::Status SyncLiveTensors() {
  std::unique_lock<std::mutex> lock(SyncMutex());
  std::vector<XlaTensorPtr> live = LiveTensors();
  absl::StatusOr<std::unordered_set<int64_t>> materialized =
      MaterializeFills(live);
  if (!materialized.ok()) return materialized.status();
  // Tensors traced on placeholders (staged-out computations that are still
  // referenced) stay pending: they can never run, and they must not stop
  // the rest of the step. Reading one reports the placeholder.
  std::unordered_set<const XlaTensor*> skip = PlaceholderDependents(live);
  std::vector<XlaTensorPtr> runnable;
  for (const XlaTensorPtr& tensor : live) {
    if (!skip.count(tensor.get())) runnable.push_back(tensor);
  }
  std::vector<XlaTensorPtr> views = TakeRederivableViews(runnable);
  std::unordered_set<const XlaTensor*> copies;
  for (const XlaTensorPtr& sharer : SharersToCopy(runnable)) {
    TXLA_RETURN_IF_ERROR(
        sharer->SetIrValue(Value(MakeDataNode(sharer->data()))));
    copies.insert(sharer.get());
  }
  TXLA_RETURN_IF_ERROR(
      Sync(lock, runnable, DonationMode::kAll, live, *materialized, copies));
  return RederiveViews(views);
}

absl::Status SyncTensors(absl::Span<const XlaTensorPtr> tensors,
                         bool donate_marked) {
  std::unique_lock<std::mutex> lock(SyncMutex());
  if (!donate_marked || !g_buffer_donor_aliasing.load()) {
    return Sync(lock, tensors, DonationMode::kNone, {});
  }
  std::vector<XlaTensorPtr> live = LiveTensors();
  return Sync(lock, tensors, DonationMode::kMarkedOnly, live);
}

absl::Status TensorToHost(const XlaTensorPtr& tensor, void* dst,
                          int64_t dst_size) {
  absl::Status readable = tensor->CheckReadable();
  if (!readable.ok()) return readable;
  if (tensor->state() == TensorState::kIrValue) {
    // A view a sync re-derived from a root that holds data (a transposed
    // gradient): the root's bytes, rearranged, with no program to run.
    TXLA_ASSIGN_OR_RETURN(bool read,
                          ReadViewOnHost(*tensor, dst, dst_size, TensorToHost));
    if (read) return absl::OkStatus();
    absl::Status synced = SyncTensors({tensor});
    if (!synced.ok()) return synced;
  }
  const DataPtr& data = tensor->data();
  if (data->kind() == DataKind::kHost) {
    const std::vector<uint8_t> bytes =
        static_cast<const HostData*>(data.get())->DenseBytes();
    if (static_cast<int64_t>(bytes.size()) != dst_size) {
      return absl::InvalidArgumentError("host copy: destination size mismatch");
    }
    std::memcpy(dst, bytes.data(), bytes.size());
    return absl::OkStatus();
  }
  absl::StatusOr<Client*> client = Client::Global();
  if (!client.ok()) return client.status();
  auto* device_data = static_cast<const DeviceData*>(data.get());
  if (device_data->sharding() != nullptr) {
    return ShardedDataToHost(*device_data, dst, dst_size);
  }
  return (*client)->TransferFromDevice(*device_data->buffer(), dst, dst_size);
}

namespace {

absl::Status BuildContext(absl::Span<const XlaTensorPtr> tensors,
                          LoweringContext& context) {
  std::vector<Value> results;
  for (const XlaTensorPtr& tensor : tensors) {
    absl::StatusOr<Value> value = tensor->GetIrValue();
    if (!value.ok()) return value.status();
    results.push_back(*std::move(value));
  }
  context.SetScalarPacking(PackScalars(tensors));
  return context.Build(results);
}

}  // namespace

absl::StatusOr<std::string> TensorsToHloText(
    absl::Span<const XlaTensorPtr> tensors) {
  LoweringContext context("SyncTensorsGraph");
  absl::Status built = BuildContext(tensors, context);
  if (!built.ok()) return built;
  return context.HloText();
}

absl::StatusOr<uint64_t> TensorsGraphHash(
    absl::Span<const XlaTensorPtr> tensors) {
  LoweringContext context("SyncTensorsGraph");
  absl::Status built = BuildContext(tensors, context);
  if (!built.ok()) return built;
  return context.hash();
}

absl::Status WaitForDevice() {
  absl::StatusOr<Client*> client = Client::Global();
  if (!client.ok()) return client.status();
  return (*client)->WaitForExecutions();
}

void SetEnableBufferDonorAliasing(bool enable) {
  g_buffer_donor_aliasing.store(enable);
}

bool GetEnableBufferDonorAliasing() { return g_buffer_donor_aliasing.load(); }

int64_t CompileCacheSize() { return GetCompileCache().size(); }
void ClearCompileCache() { GetCompileCache().Clear(); }

}  // namespace torch_xla
