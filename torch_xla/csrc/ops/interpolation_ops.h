#ifndef TORCH_XLA_CSRC_OPS_INTERPOLATION_OPS_H_
#define TORCH_XLA_CSRC_OPS_INTERPOLATION_OPS_H_

// Upsampling (nearest, nearest-exact, linear/bilinear/trilinear, bicubic;
// 1-3 spatial dims) and its backward, each built in one piece so the Python
// rules (torch_xla/_ops/interpolation.py, which check eager's arguments)
// cross into C++ once. The design (separable [n_out, n_in] matrices A_d
// built from iota arithmetic, one dot_general per spatial dim, the
// backward A_d^T; eager's source-index arithmetic in f32, f64 for f64) is
// described in interpolation.py's docstring. bf16/f16 are computed in f32
// and rounded once.

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "torch_xla/csrc/ir/node.h"

namespace torch_xla::ops {

enum class InterpolationKind { kNearest, kNearestExact, kLinear, kCubic };

// x [N, C, *spatial] resized to `size` (one per spatial dim), `scales` the
// user's scale factors (nullopt where not given; they change the source
// arithmetic as in eager).
absl::StatusOr<Value> Upsample(Value x, InterpolationKind kind,
                               const std::vector<int64_t>& size,
                               const std::vector<std::optional<double>>& scales,
                               bool align_corners);

// The input's gradient [input_size] from grad [N, C, *output_size]: zeros
// for an empty size; grad itself for bicubic with unchanged sizes (eager
// copies; the caller clones it).
absl::StatusOr<Value> UpsampleBackward(
    Value grad, InterpolationKind kind, const std::vector<int64_t>& input_size,
    const std::vector<std::optional<double>>& scales, bool align_corners);

}  // namespace torch_xla::ops

#endif  // TORCH_XLA_CSRC_OPS_INTERPOLATION_OPS_H_
