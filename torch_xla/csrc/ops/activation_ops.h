#ifndef TORCH_XLA_CSRC_OPS_ACTIVATION_OPS_H_
#define TORCH_XLA_CSRC_OPS_ACTIVATION_OPS_H_

// Activations and their gradients with eager's numerics: the float formulas
// (gelu, silu and the backward rules) compute bf16/f16 in f32 and round
// once to the input's dtype, as eager's kernels do; relu and threshold are a
// max / a select in the operands' dtype. Used by the Python rules
// (torch_xla/_ops/unary_math.py through _XLAC._activation,
// _activation_backward and _threshold).

#include "absl/status/statusor.h"
#include "torch_xla/csrc/ir/node.h"

namespace torch_xla::ops {

// Codes shared with Python (torch_xla/_ops/unary_math.py's _RELU, ...).
enum class ActivationOp : int {
  kRelu = 0,      // max(x, 0)
  kSilu = 1,      // x * sigmoid(x)
  kGelu = 2,      // x * Phi(x), Phi through erf
  kGeluTanh = 3,  // gelu's tanh approximation
};

// Codes of the gradients: `x` is the forward's input, except for sigmoid and
// tanh, whose gradients read the forward's output.
enum class ActivationBackwardOp : int {
  kSilu = 0,
  kSigmoid = 1,  // grad * y * (1 - y)
  kTanh = 2,     // grad * (1 - y^2)
  kGelu = 3,
  kGeluTanh = 4,
};

// InvalidArgument for codes outside the enums.
absl::StatusOr<ActivationOp> ActivationOpFromCode(int code);
absl::StatusOr<ActivationBackwardOp> ActivationBackwardOpFromCode(int code);

absl::StatusOr<Value> Activation(ActivationOp op, Value x);

// The gradient of op at `x` (the output for sigmoid/tanh) times `grad`, in
// grad's dtype (x converted to it first); grad and x broadcast.
absl::StatusOr<Value> ActivationBackward(ActivationBackwardOp op, Value grad,
                                         Value x);

// aten.threshold / threshold_backward: `value` where x <= threshold, else
// `other`. x and threshold have one dtype; value and other another (the
// result's); all broadcast to their common shape.
absl::StatusOr<Value> Threshold(Value x, Value threshold, Value value,
                                Value other);

}  // namespace torch_xla::ops

#endif  // TORCH_XLA_CSRC_OPS_ACTIVATION_OPS_H_
