#ifndef TORCH_XLA_CSRC_OPS_SOFTMAX_OPS_H_
#define TORCH_XLA_CSRC_OPS_SOFTMAX_OPS_H_

// softmax and log_softmax, forward and backward, computed in OpMathType of
// the result (f32 for bf16/f16) and rounded once. The forward subtracts the
// NaN-propagating row max first, so large logits never overflow exp().
// `dims` is {} for a 0-d input, else the one canonical softmax dim (the
// callers raise eager's IndexError). Used by the Python rules
// (torch_xla/_ops/normalization.py through _XLAC._softmax & co.) and the
// C++ fast rules (python/fast_nn_rules.cc).

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "torch_xla/csrc/ir/node.h"
#include "torch_xla/csrc/ir/shape.h"

namespace torch_xla::ops {

// exp(x - max) / sum(exp(x - max)) over `dims`, result in `out`.
absl::StatusOr<Value> Softmax(Value x, const std::vector<int64_t>& dims,
                              DType out);
// (x - max) - log(sum(exp(x - max))), result in `out`.
absl::StatusOr<Value> LogSoftmax(Value x, const std::vector<int64_t>& dims,
                                 DType out);

// aten._safe_softmax: x converted to `out`, its softmax, with 0 where every
// element of x along `dims` is -inf (a fully masked row; SDPA), not NaN.
absl::StatusOr<Value> SafeSoftmax(Value x, const std::vector<int64_t>& dims,
                                  DType out);

// aten._softmax_backward_data: y * (g - sum(g * y)), result in `out`.
absl::StatusOr<Value> SoftmaxBackward(Value grad, Value output,
                                      const std::vector<int64_t>& dims,
                                      DType out);
// aten._log_softmax_backward_data: g - exp(y) * sum(g), result in `out`.
absl::StatusOr<Value> LogSoftmaxBackward(Value grad, Value output,
                                         const std::vector<int64_t>& dims,
                                         DType out);

}  // namespace torch_xla::ops

#endif  // TORCH_XLA_CSRC_OPS_SOFTMAX_OPS_H_
