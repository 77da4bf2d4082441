#ifndef TORCH_XLA_CSRC_OPS_LOSS_OPS_H_
#define TORCH_XLA_CSRC_OPS_LOSS_OPS_H_

// nll_loss, mse, smooth L1, Huber and binary cross entropy (with and
// without logits), forward and backward, computed in OpMathType of the
// input's dtype (f32 for bf16/f16) and rounded once to it. The operands
// (x, target, weights) broadcast to one shape.
//
// nll_loss picks the target class with a one-hot mask (iota == target)
// instead of a gather: one fused compare/select/reduce that XLA handles
// well even for large vocabularies, and whose backward is the same mask. A
// target outside [0, classes) that is not ignore_index contributes 0 here;
// the Python rule raises eager's IndexError for it (at once when the host
// knows the targets, else by a device-side check: docs/device_checks.md).
//
// The callers (torch_xla/_ops/losses.py through _XLAC._nll_loss & co.,
// one call per op)
// check shapes and dtypes and raise eager's errors; a builder returns
// InvalidArgument for shapes it cannot take.

#include <cstdint>

#include "absl/status/statusor.h"
#include "torch_xla/csrc/ir/node.h"

namespace torch_xla::ops {

// Eager's `reduction` codes.
enum class Reduction : int64_t { kNone = 0, kMean = 1, kSum = 2 };
absl::StatusOr<Reduction> ReductionFromCode(int64_t code);

struct NllLossResult {
  Value loss;          // x's dtype; target's shape for kNone, else 0-d
  Value total_weight;  // 0-d, x's dtype (0 for kNone, as eager)
};

// nll_loss_forward / nll_loss2d_forward: x is [C], [N, C] or [N, C, ...]
// (the class dim is 1, or 0 for rank 1), target (integer) has x's shape
// without the class dim, `weight` ([C], or a null Value for none) weighs
// each class, `ignore_index` (an s64 0-d value) marks targets that count
// for nothing.
absl::StatusOr<NllLossResult> NllLoss(Value x, Value target, Value weight,
                                      Reduction reduction, Value ignore_index);

// The gradient of NllLoss with respect to x, in x's dtype.
absl::StatusOr<Value> NllLossBackward(Value grad, Value x, Value target,
                                      Value weight, Reduction reduction,
                                      Value ignore_index, Value total_weight);

// (x - target)^2 (the two broadcast), reduced; in x's dtype.
absl::StatusOr<Value> MseLoss(Value x, Value target, Reduction reduction);

// 2 (x - target) * grad (divided by the element count for kMean).
absl::StatusOr<Value> MseLossBackward(Value grad, Value x, Value target,
                                      Reduction reduction);

// smooth_l1_loss: |d| < beta ? 0.5 d^2 / beta : |d| - 0.5 beta, d = x -
// target (broadcast); `beta` a 0-d OpMathType value, null for beta == 0
// (the loss is |d| then). The callers reject a negative beta.
absl::StatusOr<Value> SmoothL1Loss(Value x, Value target, Reduction reduction,
                                   Value beta);
// Its gradient: (|d| < beta ? d / beta : sign(d)) * grad.
absl::StatusOr<Value> SmoothL1LossBackward(Value grad, Value x, Value target,
                                           Reduction reduction, Value beta);

// huber_loss: |d| < delta ? 0.5 d^2 : delta (|d| - 0.5 delta); `delta` a
// 0-d OpMathType value (the callers reject delta <= 0).
absl::StatusOr<Value> HuberLoss(Value x, Value target, Reduction reduction,
                                Value delta);
// Its gradient: (|d| < delta ? d : delta sign(d)) * grad.
absl::StatusOr<Value> HuberLossBackward(Value grad, Value x, Value target,
                                        Reduction reduction, Value delta);

// binary_cross_entropy: -w (t log(p) + (1 - t) log(1 - p)), the logs
// clamped at -100 as eager's; `weight` may be null.
absl::StatusOr<Value> BinaryCrossEntropy(Value x, Value target, Value weight,
                                         Reduction reduction);
// A pred 0-d value: true when some element of the floating `x` (the input
// or target of binary_cross_entropy) is outside [0, 1] or NaN; a device-side
// value check (torch_xla/_device_checks.py).
absl::StatusOr<Value> OutsideUnitInterval(Value x);
// Its gradient: g w (p - t) / max(p (1 - p), 1e-12).
absl::StatusOr<Value> BinaryCrossEntropyBackward(Value grad, Value x,
                                                 Value target, Value weight,
                                                 Reduction reduction);

// binary_cross_entropy_with_logits: (1 - t) x - (1 + (pw - 1) t)
// log_sigmoid(x), times weight; log_sigmoid(x) = min(x, 0) -
// log1p(exp(-|x|)), stable for any x. weight, pos_weight may be null.
absl::StatusOr<Value> BinaryCrossEntropyWithLogits(Value x, Value target,
                                                   Value weight,
                                                   Value pos_weight,
                                                   Reduction reduction);

}  // namespace torch_xla::ops

#endif  // TORCH_XLA_CSRC_OPS_LOSS_OPS_H_
