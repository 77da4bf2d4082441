#ifndef TORCH_XLA_CSRC_TENSOR_DONATION_H_
#define TORCH_XLA_CSRC_TENSOR_DONATION_H_

// Which input buffers an execution may take over (donate), and the rules of
// when. A sync donates in two ways:
//  - in-place aliasing: a parameter whose data was last owned by the alias
//    ID of a tensor the graph updates becomes that result's buffer;
//  - marked donors: a tensor marked with _set_buffer_donation gives its
//    buffer (XLA buffer donor) and is deleted after the execution.
// A device buffer another live tensor still holds is never donated.
//
// When (DonationMode):
//  - torch_xla.sync() (a step): both kinds, with the buffer-donor config on
//    or off (the mark itself asks for it);
//  - _xla_sync_multi(tensors): marked donors, only with the config on;
//  - reads (.cpu(), xm.save): nothing.
// A tensor sharing a buffer whose owner the step updates in place (a clone
// of device data) is computed by the same execution (a copy), so that the
// owner's buffer can still be donated: see SharersToCopy.

#include <cstdint>
#include <unordered_set>
#include <utility>
#include <vector>

#include "absl/types/span.h"
#include "torch_xla/csrc/ir/node.h"
#include "torch_xla/csrc/lowering/lowering_context.h"
#include "torch_xla/csrc/tensor/xla_tensor.h"

namespace torch_xla {

enum class DonationMode {
  kNone,         // reads
  kMarkedOnly,   // _xla_sync_multi with the buffer-donor config on
  kAll,          // torch_xla.sync()
};

struct Donation {
  std::vector<std::pair<int64_t, int64_t>> aliases;  // (parameter, result)
  std::vector<int64_t> donors;                       // marked donors
  std::vector<XlaTensorPtr> donor_tensors;  // deleted after execution
};

// Plans the donation of one execution. `tensors[t]` computes
// `results[result_of_tensor[t]]`; `live` are all live tensors (holders).
Donation PlanDonation(const LoweringContext& context,
                      absl::Span<const XlaTensorPtr> tensors,
                      absl::Span<const int64_t> result_of_tensor,
                      absl::Span<const Value> results,
                      absl::Span<const XlaTensorPtr> live, DonationMode mode);

// Live tensors holding (unsharded) device data they do not own, whose
// owner is pending in this step (about to be updated in place): they must
// leave the step with a buffer of their own. The caller makes each one a
// pending copy of its data, computed by the step.
std::vector<XlaTensorPtr> SharersToCopy(absl::Span<const XlaTensorPtr> live);

}  // namespace torch_xla

#endif  // TORCH_XLA_CSRC_TENSOR_DONATION_H_
