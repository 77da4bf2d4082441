#ifndef TORCH_XLA_CSRC_OPS_NORM_OPS_H_
#define TORCH_XLA_CSRC_OPS_NORM_OPS_H_

// Layer norm, RMS norm and group norm, forward and backward: statistics
// over the trailing dims from `axis` on (group norm: over each group), computed in OpMathType of x's dtype (f32 for bf16/f16) and
// rounded once, as eager's CPU kernels do. The callers (torch_xla/_ops/
// normalization.py, group_norm.py through _XLAC._layer_norm, _rms_norm,
// _group_norm and their backwards)
// check normalized_shape and raise eager's errors.

#include <array>
#include <cstdint>

#include "absl/status/statusor.h"
#include "torch_xla/csrc/ir/node.h"

namespace torch_xla::ops {

// aten.native_layer_norm -> {out, mean, rstd} in x's dtype; mean and rstd
// keep the normalized dims as size 1. `weight` and `bias` (shaped like the
// normalized dims) may be null Values; `eps` is a 0-d value of
// OpMathType(x's dtype) (a scalar parameter, so a new eps never
// recompiles).
absl::StatusOr<std::array<Value, 3>> LayerNorm(Value x, int64_t axis,
                                               Value weight, Value bias,
                                               Value eps);

// aten.native_layer_norm_backward -> {grad_input, grad_weight, grad_bias};
// an entry is a null Value where `output_mask` does not ask for it (or
// weight / bias is null). grad_weight and grad_bias take weight's and
// bias's shape and dtype.
absl::StatusOr<std::array<Value, 3>> LayerNormBackward(
    Value grad, Value x, int64_t axis, Value mean, Value rstd, Value weight,
    Value bias, std::array<bool, 3> output_mask);

// aten._fused_rms_norm -> {x * rsqrt(mean(x^2) + eps) * weight, rstd} in
// x's dtype (rstd keeps the normalized dims as size 1); `weight` may be
// null; `eps` as LayerNorm's.
absl::StatusOr<std::array<Value, 2>> RmsNorm(Value x, int64_t axis,
                                             Value weight, Value eps);

// aten._fused_rms_norm_backward -> {grad_input, grad_weight}, null where
// `output_mask` does not ask for it (or weight is null).
absl::StatusOr<std::array<Value, 2>> RmsNormBackward(
    Value grad, Value x, int64_t axis, Value rstd, Value weight,
    std::array<bool, 2> output_mask);

// Group norm's layout: x is [N, C, *] with HxW elements per channel, in
// `groups` groups of C / groups channels.
struct GroupDims {
  int64_t n, c, hw, groups;
};

// aten.native_group_norm -> {out, mean, rstd} in x's dtype (mean, rstd:
// [N, groups]); statistics over each group's channels and HxW; weight and
// bias ([C]) may be null; `eps` as LayerNorm's.
absl::StatusOr<std::array<Value, 3>> GroupNorm(Value x, Value weight,
                                               Value bias, const GroupDims& g,
                                               Value eps);

// aten.native_group_norm_backward -> {grad_input, grad_weight, grad_bias}
// (the last two [C] in x's dtype), null where not asked for.
absl::StatusOr<std::array<Value, 3>> GroupNormBackward(
    Value grad, Value x, Value mean, Value rstd, Value weight,
    const GroupDims& g, std::array<bool, 3> output_mask);

}  // namespace torch_xla::ops

#endif  // TORCH_XLA_CSRC_OPS_NORM_OPS_H_
