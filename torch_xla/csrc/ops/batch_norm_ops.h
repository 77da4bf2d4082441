#ifndef TORCH_XLA_CSRC_OPS_BATCH_NORM_OPS_H_
#define TORCH_XLA_CSRC_OPS_BATCH_NORM_OPS_H_

// Batch norm, forward and backward: statistics per channel (dim 1) over
// every other dim, computed in OpMathType of x's dtype (f32 for bf16/f16)
// and rounded once, as eager's CPU kernels do. The callers
// (torch_xla/_ops/normalization.py through _XLAC._batch_norm and
// _batch_norm_backward, one call per op) check the layout, pick the
// statistics' dtype (eager's mixed-type rule) and commit the running
// statistics.

#include <array>

#include "absl/status/statusor.h"
#include "torch_xla/csrc/ir/node.h"
#include "torch_xla/csrc/ir/shape.h"

namespace torch_xla::ops {

struct BatchNormResult {
  Value out;          // x's dtype
  Value save_mean;    // [C] in the stats dtype ([0] in evaluation mode)
  Value save_invstd;  // likewise
  Value new_mean;     // the running statistics' new values, null when
  Value new_var;      // not updated (evaluation mode, or none given)
};

// x is [N, C, ...]; weight, bias, running_mean, running_var ([C]) may be
// null Values. Training normalizes with the batch's statistics and, where
// running statistics are given, updates them: (1 - momentum) old +
// momentum new (`momentum` and `keep` = 1 - momentum are 0-d OpMathType
// values), the variance unbiased. Evaluation normalizes with the running
// statistics (both needed). `eps` a 0-d OpMathType value.
absl::StatusOr<BatchNormResult> BatchNorm(Value x, Value weight, Value bias,
                                          Value running_mean,
                                          Value running_var, bool training,
                                          Value momentum, Value keep,
                                          Value eps, DType stats_dtype);

// aten.native_batch_norm_backward -> {grad_input, grad_weight, grad_bias}
// (the last two in weight's dtype, else x's), null where not asked for.
// Training uses save_mean / save_invstd, evaluation the running ones.
absl::StatusOr<std::array<Value, 3>> BatchNormBackward(
    Value grad, Value x, Value weight, Value running_mean, Value running_var,
    Value save_mean, Value save_invstd, bool training, Value eps,
    std::array<bool, 3> output_mask);

}  // namespace torch_xla::ops

#endif  // TORCH_XLA_CSRC_OPS_BATCH_NORM_OPS_H_
