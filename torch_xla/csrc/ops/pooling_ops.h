#ifndef TORCH_XLA_CSRC_OPS_POOLING_OPS_H_
#define TORCH_XLA_CSRC_OPS_POOLING_OPS_H_

// Pooling over the trailing spatial dims (1 to 3 of them; the dims before
// are batch and channels): max (with indices), average, adaptive average and
// adaptive max, and their backwards, as eager's CPU kernels compute them.
// Every window is an IR window op, native on every PJRT backend:
// - max pooling is one reduce_window of kind argmax over (x, flat index
//   into the input plane): the first maximum and its index, the last NaN;
//   padding never wins. Its backward is one select_and_scatter (the same
//   choice, recomputed) for undilated windows, else a scatter-add of the
//   gradient to the saved indices;
// - average pooling is a window sum divided by the window sums of a 0/1
//   mask (a constant of the geometry), in OpMathType (f32 for bf16/f16);
//   integer sums divide with truncation; the backward is the transpose of
//   the strided window sum (base dilation by the stride);
// - adaptive average pooling over eager's windows [floor(i*I/O),
//   ceil((i+1)*I/O)) is a window sum where O divides I, else one dot per
//   spatial dim with the [O, I] averaging matrix;
// - adaptive max pooling where O divides I is max pooling; else it is
//   separable: one argmax per spatial dim (last first) over a gather of each
//   window at its longest length (short windows repeat their last element),
//   carrying the flat index, whose order (smaller wins a tie, the larger of
//   two NaNs) makes the first maximum in row-major order win, as in eager.
// The callers (torch_xla/_ops/pooling.py through _XLAC._max_pool & co.)
// check the arguments and raise eager's errors; the geometry they pass is
// already valid.

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "torch_xla/csrc/ir/node.h"

namespace torch_xla::ops {

// One entry per spatial dim. pad_hi is at least pad_lo and reaches past it
// where ceil_mode's last window overhangs the padded input.
struct PoolWindow {
  std::vector<int64_t> kernel, stride, pad_lo, pad_hi, dilation;
};

// aten.max_pool{2,3}d_with_indices -> {values, int64 indices (flat index of
// each maximum into its input plane)}.
absl::StatusOr<std::array<Value, 2>> MaxPool(Value x, const PoolWindow& w);

// aten.max_pool{2,3}d_with_indices_backward: grad to each window's maximum
// (select_and_scatter) when undilated and grad/indices fit the window's
// result; else ScatterToIndices.
absl::StatusOr<Value> MaxPoolBackward(Value grad, Value x, Value indices,
                                      const PoolWindow& w);

// Adds each grad element at the position of x's input plane its index names
// (grad and indices alike, x's leading dims): the backward of adaptive max
// pooling over `nsp` spatial dims.
absl::StatusOr<Value> ScatterToIndices(Value grad, Value x, Value indices,
                                       int64_t nsp);

// aten.avg_pool{2,3}d; divisor_override, when given, is not 0.
absl::StatusOr<Value> AvgPool(Value x, const PoolWindow& w,
                              bool count_include_pad,
                              std::optional<int64_t> divisor_override);

// aten.avg_pool{2,3}d_backward; grad has x's leading dims and the pooled
// spatial sizes.
absl::StatusOr<Value> AvgPoolBackward(Value grad, Value x,
                                      const PoolWindow& w,
                                      bool count_include_pad,
                                      std::optional<int64_t> divisor_override);

// aten._adaptive_avg_pool{2,3}d to `out` (one size per spatial dim; x is
// floating point).
absl::StatusOr<Value> AdaptiveAvgPool(Value x,
                                      const std::vector<int64_t>& out);

// aten._adaptive_avg_pool{2,3}d_backward over `nsp` spatial dims.
absl::StatusOr<Value> AdaptiveAvgPoolBackward(Value grad, Value x,
                                              int64_t nsp);

// aten.adaptive_max_pool{2,3}d to `out` -> {values, int64 flat indices};
// x is floating point.
absl::StatusOr<std::array<Value, 2>> AdaptiveMaxPool(
    Value x, const std::vector<int64_t>& out);

}  // namespace torch_xla::ops

#endif  // TORCH_XLA_CSRC_OPS_POOLING_OPS_H_
