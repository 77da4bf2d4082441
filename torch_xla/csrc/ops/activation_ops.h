#ifndef TORCH_XLA_CSRC_OPS_ACTIVATION_OPS_H_
#define TORCH_XLA_CSRC_OPS_ACTIVATION_OPS_H_

// Activations and their gradients with eager's numerics: the float formulas
// (gelu, silu, mish, the hard and parameterized activations and the
// backward rules) compute bf16/f16 in f32 and round once to the input's
// dtype, as eager's kernels do; relu and threshold are a max / a select in
// the operands' dtype. Parameters from the user (leaky_relu's slope, elu's
// alpha, ...) arrive as 0-d scalar parameters of the compute dtype. Used by
// the Python rules (torch_xla/_ops/unary_math.py through _XLAC._activation,
// _activation_backward, _param_activation(_backward) and _threshold).

#include <vector>

#include "absl/status/statusor.h"
#include "torch_xla/csrc/ir/node.h"

namespace torch_xla::ops {

// Codes shared with Python (torch_xla/_ops/unary_math.py's _RELU, ...).
enum class ActivationOp : int {
  kRelu = 0,         // max(x, 0)
  kSilu = 1,         // x * sigmoid(x)
  kGelu = 2,         // x * Phi(x), Phi through erf
  kGeluTanh = 3,     // gelu's tanh approximation
  kHardswish = 4,    // x * clamp(x + 3, 0, 6) / 6
  kHardsigmoid = 5,  // clamp(x + 3, 0, 6) / 6
  kMish = 6,         // x * tanh(softplus(x))
  kLogit = 7,        // log(x / (1 - x))
};

// Codes of the gradients: `x` is the forward's input, except for sigmoid and
// tanh, whose gradients read the forward's output.
enum class ActivationBackwardOp : int {
  kSigmoid = 0,  // grad * y * (1 - y)
  kTanh = 1,     // grad * (1 - y^2)
  kGelu = 2,
  kGeluTanh = 3,
  kHardswish = 4,
  kHardsigmoid = 5,
  kLogit = 6,  // NaN outside [0, 1]
};

// Activations with parameters (`params`, in this order) and their
// gradients.
enum class ParamActivationOp : int {
  kLeakyRelu = 0,  // (slope): x > 0 ? x : x * slope
  kElu = 1,        // (alpha, scale, input_scale):
                   //   x > 0 ? x * scale : alpha * scale * expm1(x * input_scale)
  kSoftplus = 2,   // (beta, threshold):
                   //   x * beta > threshold ? x : log1p(exp(x * beta)) / beta
  kHardtanh = 3,   // (min, max): the gradient only (the forward is clamp)
  kLogit = 4,      // (eps): logit of x clamped to [eps, 1 - eps]; the
                   //   gradient is 0 outside that range
};

// InvalidArgument for codes outside the enums.
absl::StatusOr<ActivationOp> ActivationOpFromCode(int code);
absl::StatusOr<ActivationBackwardOp> ActivationBackwardOpFromCode(int code);
absl::StatusOr<ParamActivationOp> ParamActivationOpFromCode(int code);

absl::StatusOr<Value> Activation(ActivationOp op, Value x);

// The gradient of op at `x` (the output for sigmoid/tanh) times `grad`, in
// grad's dtype (x converted to it first); grad and x broadcast.
absl::StatusOr<Value> ActivationBackward(ActivationBackwardOp op, Value grad,
                                         Value x);

// op(x, params...) in x's dtype (kHardtanh has no forward here: clamp).
absl::StatusOr<Value> ParamActivation(ParamActivationOp op, Value x,
                                      std::vector<Value> params);

// The gradient of op times `grad`, in grad's dtype. `x` is the forward's
// input, or with `x_is_result` (elu after an in-place elu_) its output.
absl::StatusOr<Value> ParamActivationBackward(ParamActivationOp op,
                                              Value grad, Value x,
                                              std::vector<Value> params,
                                              bool x_is_result);

// aten.threshold / threshold_backward: `value` where x <= threshold, else
// `other`. x and threshold have one dtype; value and other another (the
// result's); all broadcast to their common shape.
absl::StatusOr<Value> Threshold(Value x, Value threshold, Value value,
                                Value other);

}  // namespace torch_xla::ops

#endif  // TORCH_XLA_CSRC_OPS_ACTIVATION_OPS_H_
