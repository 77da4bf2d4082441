#include "torch_xla/csrc/tensor/sync_group.h"

#include <atomic>
#include <cstdlib>
#include <fstream>
#include <string>

#include "absl/hash/hash.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "torch_xla/csrc/ir/status_macros.h"
#include "torch_xla/csrc/metrics/metrics.h"
#include "torch_xla/csrc/runtime/host_heap.h"
#include "torch_xla/csrc/runtime/replication.h"
#include "torch_xla/csrc/spmd/shard_geometry.h"
#include "torch_xla/csrc/spmd/spmd_execution.h"
#include "torch_xla/csrc/spmd/spmd_mode.h"
#include "torch_xla/csrc/tensor/execution_scope.h"
#include "torch_xla/csrc/tensor/host_uploads.h"

namespace torch_xla {

using runtime::Client;

// Compiled graphs by (graph hash, donation pattern, shardings, device).
LruCache<CompiledGraph>& GetCompileCache() {
  static auto* cache = new LruCache<CompiledGraph>(1024);
  return *cache;
}

bool IsHostFill(const Data& data) {
  return data.kind() == DataKind::kHost && !data.shape().dims.empty() &&
         static_cast<const HostData&>(data).is_fill();
}

LoweringContext::ScalarPacking PackScalars(
    absl::Span<const XlaTensorPtr> results,
    const std::unordered_set<int64_t>& materialized) {
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

namespace {

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
  // Every replica thread traces the step on its own device; they share one
  // replicated program (launched together), found by its text.
  static auto* replicated = new LruCache<CompiledGraph>(64);
  const std::string text_key =
      spec.num_replicas > 1
          ? absl::StrCat(absl::HashOf(*text), "/", text->size())
          : std::string();
  if (!text_key.empty()) {
    if (std::shared_ptr<CompiledGraph> found = replicated->Find(text_key)) {
      return found;
    }
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
  if (!text_key.empty()) replicated->Insert(text_key, compiled);
  return compiled;
}

}  // namespace

absl::StatusOr<PreparedGroup> PrepareGroup(
    SyncGroup& group, DonationMode mode, absl::Span<const XlaTensorPtr> live,
    const std::unordered_set<int64_t>& materialized) {
  static metrics::Counter* cached = metrics::GetCounter("CachedCompile");
  static metrics::Counter* uncached = metrics::GetCounter("UncachedCompile");

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
    std::vector<ShardingPtr> tensor_shardings;
    for (const XlaTensorPtr& tensor : group.tensors) {
      tensor_shardings.push_back(tensor->sharding());
    }
    TXLA_RETURN_IF_ERROR(StateShardings(
        context, ResultShardings(context, tensor_shardings,
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
    // Recorded per compiled graph, as upstream records it.
    static metrics::Metric* alias_count =
        metrics::GetMetric("InputOutputAliasCount");
    alias_count->Add(
        static_cast<double>(donation.aliases.size() + donation.donors.size()));
    // The compiler's scratch heap is free now; hand it back to the OS before
    // the program's own buffers are allocated, or it stays in the process
    // (glibc keeps freed heap) on top of every later peak.
    runtime::ReleaseFreedHeap();
  }
  std::unordered_set<int64_t> taken_over(donation.donors.begin(),
                                         donation.donors.end());
  for (const auto& [parameter, result] : donation.aliases) {
    taken_over.insert(parameter);
  }
  PreparedGroup prepared;
  prepared.group = &group;
  prepared.spmd = spmd;
  prepared.compiled = std::move(compiled);
  prepared.donation = std::move(donation);
  if (spmd) {
    TXLA_ASSIGN_OR_RETURN(prepared.arguments,
                          SpmdArguments(*client, context, taken_over,
                                        &prepared.placed));
  } else {
    TXLA_ASSIGN_OR_RETURN(
        std::vector<BufferPtr> device_arguments,
        GatherArguments(*client, context, group.device, taken_over));
    prepared.arguments.push_back(std::move(device_arguments));
  }
  return prepared;
}

}  // namespace torch_xla
