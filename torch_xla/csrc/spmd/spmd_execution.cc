#include "torch_xla/csrc/spmd/spmd_execution.h"

#include "absl/strings/str_cat.h"
#include "torch_xla/csrc/ir/status_macros.h"
#include "torch_xla/csrc/metrics/metrics.h"
#include "torch_xla/csrc/spmd/compiled_shardings.h"
#include "torch_xla/csrc/spmd/shard_geometry.h"
#include "torch_xla/csrc/spmd/sharded_transfer.h"
#include "torch_xla/csrc/spmd/spmd_mode.h"
#include "torch_xla/csrc/tensor/host_uploads.h"

namespace torch_xla {

using runtime::BufferPtr;
using runtime::Client;

std::vector<ShardingPtr> ResultShardings(
    const LoweringContext& context,
    absl::Span<const ShardingPtr> tensor_shardings,
    absl::Span<const int64_t> result_of_tensor,
    absl::Span<const std::pair<int64_t, int64_t>> aliases) {
  static const ShardingPtr kReplicated =
      std::make_shared<const Sharding>(Sharding::Replicated());
  std::vector<ShardingPtr> shardings(context.results().size());
  for (size_t t = 0; t < tensor_shardings.size(); ++t) {
    if (tensor_shardings[t] != nullptr) {
      shardings[result_of_tensor[t]] = tensor_shardings[t];
    }
  }
  for (const auto& [parameter, result] : aliases) {
    if (shardings[result] != nullptr) continue;
    const ShardingPtr& sharding = context.parameters()[parameter]->sharding();
    shardings[result] = sharding != nullptr ? sharding : kReplicated;
  }
  return shardings;
}

absl::Status StateShardings(LoweringContext& context,
                            absl::Span<const ShardingPtr> result_shardings) {
  const std::string replicated = Sharding::Replicated().ToString();
  for (size_t p = 0; p < context.parameters().size(); ++p) {
    if (context.parameters()[p]->sharding() == nullptr) {
      TXLA_RETURN_IF_ERROR(context.SetParameterSharding(p, replicated));
    }
  }
  for (size_t r = 0; r < result_shardings.size(); ++r) {
    if (result_shardings[r] != nullptr) {
      TXLA_RETURN_IF_ERROR(
          context.SetResultSharding(r, result_shardings[r]->ToString()));
    }
  }
  return absl::OkStatus();
}

runtime::CompileSpec SpmdCompileSpec(const Client& client,
                                     const LoweringContext& context) {
  runtime::CompileSpec spec;
  spec.num_partitions = static_cast<int>(client.devices().size());
  spec.use_spmd_partitioning = true;
  for (size_t r = 0; r < context.results().size(); ++r) {
    spec.propagate_sharding_to_output.push_back(
        !context.HasResultSharding(static_cast<int64_t>(r)));
  }
  if (client.topology().process_count > 1) {
    // Multi-process SPMD: one partition per device of the job (Client::
    // Compile says what runs such a program and what does not).
    spec.num_partitions = static_cast<int>(client.global_devices().size());
    for (const runtime::GlobalDevice& device : client.global_devices()) {
      spec.device_ids.push_back(device.id);
    }
    return spec;
  }
  for (const runtime::Device& device : client.devices()) {
    spec.device_ids.push_back(device.id);
  }
  return spec;
}

std::vector<Shape> SpmdParameterShapes(const LoweringContext& context) {
  std::vector<Shape> shapes;
  for (const DataPtr& data : context.parameters()) {
    shapes.push_back(data->sharding() != nullptr
                         ? ShardShape(*data->sharding(), data->shape())
                         : data->shape());
  }
  return shapes;
}

absl::StatusOr<std::vector<ShardingPtr>> CompiledOutputShardings(
    Client* client, const runtime::Executable& executable) {
  TXLA_ASSIGN_OR_RETURN(Client::Program program,
                        client->OptimizedProgram(executable));
  TXLA_ASSIGN_OR_RETURN(std::vector<Sharding> shardings,
                        spmd::OutputShardingsFromProgram(
                            program.format, program.code,
                            executable.num_outputs()));
  std::vector<ShardingPtr> out;
  for (Sharding& sharding : shardings) {
    out.push_back(std::make_shared<const Sharding>(std::move(sharding)));
  }
  return out;
}

absl::StatusOr<std::vector<std::vector<BufferPtr>>> SpmdArguments(
    Client* client, const LoweringContext& context,
    const std::unordered_set<int64_t>& taken_over,
    std::unordered_map<int64_t, std::shared_ptr<DeviceData>>* placed) {
  const int num_devices = static_cast<int>(client->devices().size());
  static const ShardingPtr kReplicated =
      std::make_shared<const Sharding>(Sharding::Replicated());
  std::vector<std::vector<BufferPtr>> arguments(num_devices);
  for (size_t p = 0; p < context.parameters().size(); ++p) {
    const DataPtr& data = context.parameters()[p];
    const bool fresh = taken_over.count(static_cast<int64_t>(p)) > 0;
    switch (data->kind()) {
      case DataKind::kDevice: {
        auto* device_data = static_cast<const DeviceData*>(data.get());
        TXLA_RETURN_IF_ERROR(device_data->CheckNotDeleted());
        if (data->sharding() == nullptr ||
            static_cast<int>(device_data->buffers().size()) != num_devices) {
          return absl::InvalidArgumentError(absl::StrCat(
              "cannot execute an SPMD program: an input (",
              data->shape().ToString(), ") lives on one device, xla:",
              device_data->device_ordinal(), ", not on the SPMD virtual "
              "device. Create SPMD inputs after torch_xla.runtime.use_spmd()"));
        }
        for (int d = 0; d < num_devices; ++d) {
          arguments[d].push_back(device_data->buffers()[d]);
        }
        break;
      }
      case DataKind::kHost: {
        const auto& host = static_cast<const HostData&>(*data);
        // The packed scalars come from the upload cache.
        if (context.IsPackedScalars(static_cast<int64_t>(p)) || fresh) {
          for (int d = 0; d < num_devices; ++d) {
            TXLA_ASSIGN_OR_RETURN(BufferPtr buffer,
                                  UploadHostData(client, host, d, fresh));
            arguments[d].push_back(std::move(buffer));
          }
          break;
        }
        std::vector<uint8_t> dense = host.DenseBytes();
        TXLA_ASSIGN_OR_RETURN(std::shared_ptr<DeviceData> replicated,
                              ShardHostArray(dense.data(), host.shape(),
                                             kReplicated));
        for (int d = 0; d < num_devices; ++d) {
          arguments[d].push_back(replicated->buffers()[d]);
        }
        (*placed)[data->id()] = std::move(replicated);
        break;
      }
      case DataKind::kPlaceholder:
        return absl::InternalError("placeholder reached execution");
    }
  }
  return arguments;
}

absl::Status ShardedDataToHost(const DeviceData& data, void* dst,
                               int64_t dst_size) {
  static metrics::Counter* gathers =
      metrics::GetCounter("ReplicateShardedData");
  if (dst_size != data.shape().byte_size()) {
    return absl::InvalidArgumentError("host copy: destination size mismatch");
  }
  TXLA_ASSIGN_OR_RETURN(Client * client, Client::Global());
  const spmd::SpmdPlacement placement = spmd::GetSpmdPlacement();
  const int64_t held = static_cast<int64_t>(data.buffers().size());
  if (placement.process_count > 1 && held == placement.local_count) {
    if (!spmd::LocalShardsCover(data.shape(), *data.sharding(),
                                placement.global_count, placement.first,
                                held)) {
      return absl::FailedPreconditionError(absl::StrCat(
          "cannot read the value of a ", data.shape().ToString(),
          " tensor sharded ", data.sharding()->ToString(), " over the ",
          placement.global_count, " devices of ", placement.process_count,
          " processes: this process holds only the shards of SPMD devices ",
          placement.first, "..", placement.first + held - 1, ", which do not "
          "cover it, and the other shards live in the other processes. Read "
          "this process's shards (XLAShardedTensor.local_shards), or shard "
          "the tensor so that each process holds all of it (replicate it "
          "over the mesh axis that spans the processes)"));
    }
    for (const BufferPtr& buffer : data.buffers()) {
      TXLA_RETURN_IF_ERROR(buffer->AwaitReady());
    }
    if (!data.sharding()->is_replicated()) gathers->Add(1);
    return spmd::GatherLocalShards(client, data.buffers(), data.shape(),
                                   *data.sharding(), placement.global_count,
                                   placement.first,
                                   static_cast<uint8_t*>(dst));
  }
  for (const BufferPtr& buffer : data.buffers()) {
    TXLA_RETURN_IF_ERROR(buffer->AwaitReady());
  }
  if (!data.sharding()->is_replicated()) gathers->Add(1);
  return spmd::GatherShards(client, data.buffers(), data.shape(),
                            *data.sharding(), static_cast<uint8_t*>(dst));
}

absl::StatusOr<std::shared_ptr<DeviceData>> ShardHostArray(
    const uint8_t* dense, const Shape& shape, ShardingPtr sharding) {
  TXLA_ASSIGN_OR_RETURN(Client * client, Client::Global());
  const spmd::SpmdPlacement placement = spmd::GetSpmdPlacement();
  TXLA_RETURN_IF_ERROR(
      CheckShardingFits(*sharding, shape, placement.global_count));
  // In a multi-process job only this process's devices' shards travel.
  TXLA_ASSIGN_OR_RETURN(
      std::vector<BufferPtr> buffers,
      placement.process_count > 1
          ? spmd::TransferLocalShards(client, dense, shape, *sharding,
                                      placement.global_count, placement.first)
          : spmd::TransferShards(client, dense, shape, *sharding,
                                 placement.local_count));
  return std::make_shared<DeviceData>(shape, std::move(buffers),
                                      std::move(sharding));
}


absl::StatusOr<DataPtr> UploadTracedHostData(const DataPtr& data) {
  if (data == nullptr || data->kind() != DataKind::kHost ||
      data->shape().dims.empty() || !spmd::IsSpmd()) {
    return DataPtr();
  }
  const auto& host = static_cast<const HostData&>(*data);
  if (host.is_fill()) return DataPtr();
  static const ShardingPtr kReplicated =
      std::make_shared<const Sharding>(Sharding::Replicated());
  TXLA_ASSIGN_OR_RETURN(
      std::shared_ptr<DeviceData> replicated,
      ShardHostArray(host.bytes().data(), host.shape(), kReplicated));
  replicated->set_owner_alias_id(data->owner_alias_id());
  return DataPtr(std::move(replicated));
}

}  // namespace torch_xla
