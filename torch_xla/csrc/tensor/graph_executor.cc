#include "torch_xla/csrc/tensor/graph_executor.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <fstream>
#include <list>
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
#include "torch_xla/csrc/runtime/host_heap.h"
#include "torch_xla/csrc/runtime/replication.h"
#include "torch_xla/csrc/tensor/device_data.h"
#include "torch_xla/csrc/tensor/donation.h"
#include "torch_xla/csrc/tensor/execution_scope.h"
#include "torch_xla/csrc/tensor/host_uploads.h"
#include "torch_xla/csrc/tensor/lru_cache.h"
#include "torch_xla/csrc/tensor/spmd_execution.h"
#include "torch_xla/csrc/tensor/views.h"
#include "torch_xla/csrc/spmd/spmd_mode.h"

namespace torch_xla {
namespace {

using runtime::BufferPtr;
using runtime::Client;
using runtime::ExecutablePtr;

std::atomic<bool> g_buffer_donor_aliasing{false};

// Serialises syncs: tensors change state under it.
std::mutex& SyncMutex() {
  static auto* mu = new std::mutex();
  return *mu;
}

// A compiled sync graph and, for SPMD programs, how each output is split
// over the devices.
struct CompiledGraph {
  ExecutablePtr executable;
  std::vector<ShardingPtr> output_shardings;
};

// Compiled graphs by (graph hash, donation pattern, shardings, device).
LruCache<CompiledGraph>& GetCompileCache() {
  static auto* cache = new LruCache<CompiledGraph>(1024);
  return *cache;
}

// Tensors of one sync, deduplicated: tensors sharing an IR value share one
// result.
struct SyncGroup {
  int device = 0;
  std::vector<XlaTensorPtr> tensors;
  std::vector<int64_t> result_of_tensor;  // index into `results`
  std::vector<Value> results;
};

absl::Status CheckNoPlaceholders(const LoweringContext& context,
                                 const SyncGroup& group) {
  for (const DataPtr& data : context.parameters()) {
    if (data->kind() != DataKind::kPlaceholder) continue;
    std::vector<std::string> needing;
    for (const XlaTensorPtr& tensor : group.tensors) {
      needing.push_back(absl::StrCat(tensor->id()));
    }
    return absl::FailedPreconditionError(absl::StrCat(
        "cannot execute the graph of tensor(s) ", absl::StrJoin(needing, ", "),
        ": it reads data ", data->id(), " (", data->shape().ToString(),
        "), which is a placeholder and has no data. Placeholders can be "
        "traced and lowered (LoweringContext) but not executed"));
  }
  return absl::OkStatus();
}

// A zeros()/full() value of rank > 0 not yet on the device.
bool IsHostFill(const Data& data) {
  return data.kind() == DataKind::kHost && !data.shape().dims.empty() &&
         static_cast<const HostData&>(data).is_fill();
}

// Scalars, and fills (zeros, full) by their element, travel packed: one
// vector per dtype (LoweringContext::ScalarPacking). Host data that may be
// aliased to a result (an in-place update of a fill, e.g. optimizer state
// made in the first step) stays a full-size parameter of its own, so that
// step's graph equals the later steps', where the same tensor is device data.
LoweringContext::ScalarPacking PackScalars(
    absl::Span<const XlaTensorPtr> results,
    const std::unordered_set<int64_t>& materialized = {}) {
  std::unordered_set<int64_t> result_aliases;
  for (const XlaTensorPtr& tensor : results) {
    if (!materialized.count(tensor->alias_id())) {
      result_aliases.insert(tensor->alias_id());
    }
  }
  LoweringContext::ScalarPacking packing;
  packing.scalar_of = [result_aliases = std::move(result_aliases)](
                          const Data& data) -> DataPtr {
    if (data.kind() != DataKind::kHost ||
        result_aliases.count(data.owner_alias_id()) > 0) {
      return nullptr;
    }
    const auto& host = static_cast<const HostData&>(data);
    if (!host.is_fill() && !data.shape().dims.empty()) return nullptr;
    return host.Element();
  };
  packing.pack = [](DType dtype, absl::Span<const DataPtr> scalars) {
    std::vector<uint8_t> bytes;
    for (const DataPtr& scalar : scalars) {
      const auto& host = static_cast<const HostData&>(*scalar);
      bytes.insert(bytes.end(), host.bytes().begin(), host.bytes().end());
    }
    return std::make_shared<HostData>(
        Shape(dtype, {static_cast<int64_t>(scalars.size())}), std::move(bytes));
  };
  return packing;
}

// One device's arguments; `taken_over`: parameters the program may donate.
absl::StatusOr<std::vector<BufferPtr>> GatherArguments(
    Client* client, const LoweringContext& context, int device,
    const std::unordered_set<int64_t>& taken_over) {
  std::vector<BufferPtr> arguments;
  for (size_t p = 0; p < context.parameters().size(); ++p) {
    const DataPtr& data = context.parameters()[p];
    switch (data->kind()) {
      case DataKind::kDevice: {
        auto* device_data = static_cast<const DeviceData*>(data.get());
        TXLA_RETURN_IF_ERROR(device_data->CheckNotDeleted());
        if (device_data->device_ordinal() != device) {
          return absl::InvalidArgumentError(absl::StrCat(
              "cannot execute on xla:", device, ": an input (",
              data->shape().ToString(), ") lives on xla:",
              device_data->device_ordinal(), "; move it with .to()"));
        }
        arguments.push_back(device_data->buffer());
        break;
      }
      case DataKind::kHost: {
        // Scalars and host values travel now, when the graph runs.
        absl::StatusOr<BufferPtr> buffer = UploadHostData(
            client, static_cast<const HostData&>(*data), device,
            taken_over.count(static_cast<int64_t>(p)) > 0);
        if (!buffer.ok()) return buffer.status();
        arguments.push_back(*std::move(buffer));
        break;
      }
      case DataKind::kPlaceholder:
        return absl::InternalError("placeholder reached execution");
    }
  }
  return arguments;
}

// TORCH_XLA_DUMP_HLO_DIR=<dir> writes every module compiled for a sync to
// <dir>/sync_<n>.mlir (<name>_<n>.mlir for a named graph, e.g.
// torch_xla.compile(name=...)), to see why a step recompiles.
void DumpModule(const std::string& text) {
  static const char* dir = std::getenv("TORCH_XLA_DUMP_HLO_DIR");
  static std::atomic<int> count{0};
  if (dir == nullptr || *dir == '\0') return;
  std::ofstream out(
      absl::StrCat(dir, "/", GraphModuleName("sync"), "_", count++, ".mlir"));
  out << text;
}

// Compiles a built sync graph: for the group's device, or under SPMD for all
// devices with SPMD partitioning.
absl::StatusOr<std::shared_ptr<CompiledGraph>> Compile(
    Client* client, const LoweringContext& context, const SyncGroup& group,
    bool spmd) {
  absl::StatusOr<std::string> text = context.HloText();
  if (!text.ok()) return text.status();
  DumpModule(*text);
  runtime::CompileSpec spec;
  if (spmd) {
    spec = SpmdCompileSpec(*client, context);
  } else {
    TXLA_ASSIGN_OR_RETURN(const runtime::Device* device,
                          client->GetDevice(group.device));
    spec.device_ids = {device->id};
    // Replicas as threads: a program with collectives runs replicated.
    TXLA_RETURN_IF_ERROR(
        runtime::ReplicateIfCollective(*client, *text, group.device, &spec));
  }
  absl::StatusOr<ExecutablePtr> executable = client->Compile(*text, spec);
  if (!executable.ok()) {
    return absl::Status(executable.status().code(),
                        absl::StrCat("while compiling the graph of ",
                                     group.tensors.size(), " tensors: ",
                                     executable.status().message()));
  }
  auto compiled = std::make_shared<CompiledGraph>();
  compiled->executable = *std::move(executable);
  compiled->executable->set_name(absl::StrCat(
      "SyncTensorsGraph (graph hash ", absl::Hex(context.hash()), ")"));
  if (spmd) {
    compiled->executable->set_parameter_shapes(SpmdParameterShapes(context));
    TXLA_ASSIGN_OR_RETURN(
        compiled->output_shardings,
        CompiledOutputShardings(client, *compiled->executable));
    // Each device's output must be the shard its sharding says.
    const std::vector<Shape>& shards = compiled->executable->output_shapes();
    for (size_t r = 0; r < group.results.size(); ++r) {
      const Shape expected =
          ShardShape(*compiled->output_shardings[r], group.results[r].shape());
      if (r >= shards.size() || shards[r] != expected) {
        return absl::InternalError(absl::StrCat(
            "SPMD output ", r, " is ", compiled->output_shardings[r]->ToString(),
            " of ", group.results[r].shape().ToString(), " but each device "
            "holds ", r < shards.size() ? shards[r].ToString() : "nothing"));
      }
    }
  } else {
    std::vector<Shape> parameter_shapes;
    for (const DataPtr& data : context.parameters()) {
      parameter_shapes.push_back(data->shape());
    }
    compiled->executable->set_parameter_shapes(std::move(parameter_shapes));
  }
  return compiled;
}

// Lowers, compiles (or finds) and runs one group; the group's tensors then
// hold the outputs.
absl::Status ExecuteGroup(SyncGroup& group, DonationMode mode,
                          absl::Span<const XlaTensorPtr> live,
                          const std::unordered_set<int64_t>& materialized) {
  static metrics::Counter* cached = metrics::GetCounter("CachedCompile");
  static metrics::Counter* uncached = metrics::GetCounter("UncachedCompile");
  static metrics::Metric* alias_count =
      metrics::GetMetric("InputOutputAliasCount");
  static metrics::Metric* replicated_time = metrics::GetMetric(
      "ExecuteReplicatedTime", metrics::Metric::Unit::kNanoseconds);

  absl::StatusOr<Client*> client = Client::Global();
  if (!client.ok()) return client.status();

  LoweringContext context(GraphModuleName("SyncTensorsGraph"));
  context.SetScalarPacking(PackScalars(group.tensors, materialized));
  absl::Status built = context.Build(group.results);
  if (!built.ok()) return built;
  absl::Status readable = CheckNoPlaceholders(context, group);
  if (!readable.ok()) return readable;

  Donation donation =
      PlanDonation(context, group.tensors, group.result_of_tensor,
                   group.results, live, mode);
  for (const auto& [parameter, result] : donation.aliases) {
    absl::Status status = context.SetAlias(parameter, result);
    if (!status.ok()) return status;
  }
  for (int64_t donor : donation.donors) {
    absl::Status status = context.SetDonor(donor);
    if (!status.ok()) return status;
  }

  // SPMD: every parameter says how it arrives; results the user sharded
  // (mark_sharding, or an in-place update of sharded data) keep it.
  const bool spmd = spmd::IsSpmd();
  if (spmd) {
    TXLA_RETURN_IF_ERROR(StateShardings(
        context, ResultShardings(context, group.tensors,
                                 group.result_of_tensor, donation.aliases)));
  }

  // The context's hash covers the graph, its aliases, donors and shardings.
  const std::string key =
      spmd ? absl::StrCat(context.hash(), "@spmd")
           : absl::StrCat(context.hash(), "@", group.device);
  // A compiled function may refuse it (execution_scope.h).
  TXLA_RETURN_IF_ERROR(CheckGraphAllowed(key));
  std::shared_ptr<CompiledGraph> compiled = GetCompileCache().Find(key);
  if (compiled != nullptr) {
    cached->Add(1);
  } else {
    uncached->Add(1);
    metrics::ScopedTimer scope_timer(ScopeCompileMetric());
    TXLA_ASSIGN_OR_RETURN(compiled, Compile(*client, context, group, spmd));
    GetCompileCache().Insert(key, compiled);
    // The compiler's scratch heap is free now; hand it back to the OS before
    // the program's own buffers are allocated, or it stays in the process
    // (glibc keeps freed heap) on top of every later peak.
    runtime::ReleaseFreedHeap();
  }
  const runtime::Executable& executable = *compiled->executable;

  std::unordered_set<int64_t> taken_over(donation.donors.begin(),
                                         donation.donors.end());
  for (const auto& [parameter, result] : donation.aliases) {
    taken_over.insert(parameter);
  }
  std::vector<std::vector<BufferPtr>> arguments;
  std::unordered_map<int64_t, std::shared_ptr<DeviceData>> placed;
  if (spmd) {
    TXLA_ASSIGN_OR_RETURN(
        arguments, SpmdArguments(*client, context, taken_over, &placed));
  } else {
    TXLA_ASSIGN_OR_RETURN(
        std::vector<BufferPtr> device_arguments,
        GatherArguments(*client, context, group.device, taken_over));
    arguments.push_back(std::move(device_arguments));
  }
  std::vector<std::vector<BufferPtr>> outputs;
  {
    metrics::ScopedTimer timer(spmd ? replicated_time : nullptr);
    metrics::ScopedTimer scope_timer(ScopeExecuteMetric());
    TXLA_ASSIGN_OR_RETURN(outputs, (*client)->Execute(executable, arguments));
  }
  alias_count->Add(
      static_cast<double>(donation.aliases.size() + donation.donors.size()));

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
    std::shared_ptr<DeviceData>& result = data[group.result_of_tensor[t]];
    if (result->owner_alias_id() < 0) result->set_owner_alias_id(tensor->alias_id());
    absl::Status status = tensor->SetData(result);
    if (!status.ok()) return status;
  }
  TXLA_RETURN_IF_ERROR(KeepPlacedHostData(placed));
  for (const XlaTensorPtr& donor : donation.donor_tensors) donor->MarkDeleted();
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

absl::Status Sync(absl::Span<const XlaTensorPtr> tensors, DonationMode mode,
                  absl::Span<const XlaTensorPtr> live,
                  const std::unordered_set<int64_t>& materialized = {},
                  const std::unordered_set<const XlaTensor*>& copies = {}) {
  absl::StatusOr<std::vector<SyncGroup>> groups = MakeGroups(tensors, copies);
  if (!groups.ok()) return groups.status();
  for (SyncGroup& group : *groups) {
    absl::Status status = ExecuteGroup(group, mode, live, materialized);
    if (!status.ok()) return status;
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status SyncLiveTensors(std::vector<XlaTensorPtr>* python_views) {
  std::lock_guard<std::mutex> lock(SyncMutex());
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
  RederivableViews views =
      TakeRederivableViews(runnable, python_views != nullptr);
  std::unordered_set<const XlaTensor*> copies;
  for (const XlaTensorPtr& sharer : SharersToCopy(runnable)) {
    TXLA_RETURN_IF_ERROR(
        sharer->SetIrValue(Value(MakeDataNode(sharer->data()))));
    copies.insert(sharer.get());
  }
  TXLA_RETURN_IF_ERROR(
      Sync(runnable, DonationMode::kAll, live, *materialized, copies));
  if (python_views != nullptr) *python_views = std::move(views.python_steps);
  return RederiveViews(views.cpp_steps);
}

absl::Status SyncTensors(absl::Span<const XlaTensorPtr> tensors,
                         bool donate_marked) {
  std::lock_guard<std::mutex> lock(SyncMutex());
  if (!donate_marked || !g_buffer_donor_aliasing.load()) {
    return Sync(tensors, DonationMode::kNone, {});
  }
  std::vector<XlaTensorPtr> live = LiveTensors();
  return Sync(tensors, DonationMode::kMarkedOnly, live);
}

absl::Status TensorToHost(const XlaTensorPtr& tensor, void* dst,
                          int64_t dst_size) {
  absl::Status readable = tensor->CheckReadable();
  if (!readable.ok()) return readable;
  if (tensor->state() == TensorState::kIrValue) {
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
