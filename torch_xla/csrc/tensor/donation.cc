#include "torch_xla/csrc/tensor/donation.h"

#include <unordered_map>

#include "torch_xla/csrc/ir/data.h"

namespace torch_xla {
namespace {

// Data ID -> how many live tensors hold that data (it is still needed after
// the step, so its buffer cannot be donated).
std::unordered_map<int64_t, int> Holders(absl::Span<const XlaTensorPtr> live) {
  std::unordered_map<int64_t, int> holders;
  for (const XlaTensorPtr& tensor : live) {
    if (tensor->data() != nullptr) ++holders[tensor->data()->id()];
  }
  return holders;
}

// In-place aliasing: a parameter whose data's owner alias ID is an output
// tensor's alias ID becomes that output's buffer, when shapes and shardings
// match.
void PlanAliases(const LoweringContext& context,
                 absl::Span<const XlaTensorPtr> tensors,
                 absl::Span<const int64_t> result_of_tensor,
                 absl::Span<const Value> results,
                 const std::unordered_map<int64_t, int>& holders,
                 Donation& donation) {
  const std::vector<DataPtr>& parameters = context.parameters();
  std::unordered_map<int64_t, int64_t> parameter_by_alias;
  for (size_t p = 0; p < parameters.size(); ++p) {
    const Data& data = *parameters[p];
    if (data.owner_alias_id() < 0) continue;
    // Host data travels in a fresh buffer each run, which nobody else sees:
    // donating it is always safe. A device buffer must have no other holder.
    if (data.kind() == DataKind::kPlaceholder) continue;
    if (data.kind() == DataKind::kDevice && holders.count(data.id())) continue;
    parameter_by_alias.emplace(data.owner_alias_id(), p);
  }
  std::unordered_set<int64_t> used_results;
  for (size_t t = 0; t < tensors.size(); ++t) {
    auto it = parameter_by_alias.find(tensors[t]->alias_id());
    if (it == parameter_by_alias.end()) continue;
    int64_t result = result_of_tensor[t];
    if (parameters[it->second]->shape() != results[result].shape()) continue;
    // A result marked with another sharding than the buffer's (mark_sharding
    // after an in-place update of unsharded data) has other per-device sizes.
    const ShardingPtr& wanted = tensors[t]->sharding();
    const ShardingPtr& held = parameters[it->second]->sharding();
    if (wanted != nullptr && (held == nullptr || !(*wanted == *held))) continue;
    if (!used_results.insert(result).second) continue;
    donation.aliases.emplace_back(it->second, result);
    parameter_by_alias.erase(it);
  }
}

}  // namespace

Donation PlanDonation(const LoweringContext& context,
                      absl::Span<const XlaTensorPtr> tensors,
                      absl::Span<const int64_t> result_of_tensor,
                      absl::Span<const Value> results,
                      absl::Span<const XlaTensorPtr> live, DonationMode mode) {
  Donation donation;
  if (mode == DonationMode::kNone) return donation;
  std::unordered_map<int64_t, int> holders = Holders(live);
  if (mode == DonationMode::kAll) {
    PlanAliases(context, tensors, result_of_tensor, results, holders,
                donation);
  }
  std::unordered_set<int64_t> taken;
  for (const auto& [parameter, result] : donation.aliases) {
    taken.insert(parameter);
  }
  // A marked tensor updated in place no longer holds its old buffer; the
  // parameter its alias ID last owned is that buffer (nobody else holds it).
  std::unordered_map<int64_t, int64_t> owned_parameter;  // alias -> parameter
  const std::vector<DataPtr>& parameters = context.parameters();
  for (size_t p = 0; p < parameters.size(); ++p) {
    const Data& data = *parameters[p];
    if (data.kind() == DataKind::kDevice && data.owner_alias_id() >= 0 &&
        !holders.count(data.id())) {
      owned_parameter.emplace(data.owner_alias_id(), p);
    }
  }
  for (const XlaTensorPtr& tensor : live) {
    if (!tensor->buffer_donation()) continue;
    int64_t p = -1;
    if (tensor->data() != nullptr) {
      if (holders[tensor->data()->id()] > 1) continue;  // shared with another
      p = context.ParameterIndex(tensor->data()->id());
    } else if (tensor->state() == TensorState::kIrValue) {
      auto it = owned_parameter.find(tensor->alias_id());
      if (it != owned_parameter.end()) p = it->second;
    }
    if (p < 0 || taken.count(p)) continue;
    donation.donors.push_back(p);
    // A tensor still holding the buffer is deleted after the execution.
    if (tensor->data() != nullptr) donation.donor_tensors.push_back(tensor);
    taken.insert(p);
  }
  return donation;
}

std::vector<XlaTensorPtr> SharersToCopy(absl::Span<const XlaTensorPtr> live) {
  std::unordered_set<int64_t> pending_aliases;
  for (const XlaTensorPtr& tensor : live) {
    if (tensor->state() == TensorState::kIrValue) {
      pending_aliases.insert(tensor->alias_id());
    }
  }
  std::vector<XlaTensorPtr> sharers;
  for (const XlaTensorPtr& tensor : live) {
    const DataPtr& data = tensor->data();
    if (tensor->state() != TensorState::kDeviceData || data == nullptr ||
        data->kind() != DataKind::kDevice || data->sharding() != nullptr ||
        data->owner_alias_id() == tensor->alias_id() ||
        !pending_aliases.count(data->owner_alias_id())) {
      continue;
    }
    sharers.push_back(tensor);
  }
  return sharers;
}

}  // namespace torch_xla
