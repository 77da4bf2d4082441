#ifndef TORCH_XLA_CSRC_OPS_CONV_OPS_H_
#define TORCH_XLA_CSRC_OPS_CONV_OPS_H_

// Convolution (1-d, 2-d, 3-d, grouped, dilated, transposed) and its
// backward, each one IR `convolution` node per result (StableHLO's, native
// on every PJRT backend: no im2col buffer). bf16/f16 operands accumulate
// in f32 (the node's preferred result type) and round once; f32/f64 ask
// for HIGHEST precision, like matmuls. The Python rules (torch_xla/_ops/
// convolution.py) check eager's arguments and raise eager's errors, then
// make one _XLAC call (python/shape_op_bindings.cc: _convolution,
// _convolution_backward).
//
// Backward, with the forward's window (stride s, padding p, dilation d):
//   grad_input  = a convolution of the grad dilated by s (lhs_dilation),
//                 padded by d*(k-1)-p, with the kernel flipped and its
//                 in/out channels swapped (stride 1);
//   grad_weight = a convolution of the input (channels as the batch dim)
//                 with the grad as the kernel (batch as its input
//                 feature), window stride d and kernel dilation s; groups
//                 become batch_groups;
//   grad_bias   = the grad summed over batch and spatial dims.
// A transposed convolution is the input gradient of a regular one, so its
// forward and backward reuse the same builders with the roles swapped.

#include <array>
#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "torch_xla/csrc/ir/node.h"

namespace torch_xla::ops {

// The window of aten.convolution, one entry per spatial dim (checked by
// the rule: stride, dilation > 0, padding >= 0, groups > 0).
struct ConvWindow {
  std::vector<int64_t> stride, padding, dilation, output_padding;
  int64_t groups = 1;
  bool transposed = false;
};

// aten.convolution: x [N, C, *S] with w ([O, C/g, *K]; transposed:
// [C, O/g, *K]) plus `bias` ([O], null for none), in x's dtype.
absl::StatusOr<Value> Convolution(Value x, Value w, Value bias,
                                  const ConvWindow& window);

struct ConvGrads {
  Value input, weight, bias;  // null where the mask leaves it out
};

// aten.convolution_backward: the gradients for x, w and the bias of
// aten.convolution(x, w, bias, window) from `grad`, those `mask` asks
// for, in x's dtype. eager's RuntimeError when grad's spatial size is not
// the forward's output size.
absl::StatusOr<ConvGrads> ConvolutionBackward(Value grad, Value x, Value w,
                                              const ConvWindow& window,
                                              std::array<bool, 3> mask);

}  // namespace torch_xla::ops

#endif  // TORCH_XLA_CSRC_OPS_CONV_OPS_H_
