#ifndef TORCH_XLA_CSRC_OPS_HISTOGRAM_OPS_H_
#define TORCH_XLA_CSRC_OPS_HISTOGRAM_OPS_H_

// torch.histc: counts of x's elements in `bins` equal-width bins over
// [low, high], in x's dtype. Each element's bin is computed elementwise and
// the counts are one scatter-add into `bins` zeros: one pass over the input
// whatever the bin count. Floats follow eager's CPU kernel: bin =
// trunc((x - low) * bins / (high - low)) (each step rounded to x's dtype,
// as eager's elementwise ops), x == high in the last bin, values outside
// [low, high] (and NaN) not counted. Integer x (which eager's CPU kernel
// rejects and its CUDA kernel counts) is binned in f64, or, with whole
// bounds, exactly in s64: floor((x - low) * bins / (high - low)).
//
// The caller (torch_xla/_ops/histogram.py through _XLAC._histc) checks bins,
// the bounds and the dtype with eager's errors.

#include <cstdint>
#include <utility>

#include "absl/status/statusor.h"
#include "torch_xla/csrc/ir/node.h"

namespace torch_xla::ops {

struct HistcBounds {
  // 0-d values: low, high and high - low (OpMathType of the compute dtype,
  // or s64 for `exact`); all null to take the data's min and max (then
  // widened by 1 each way where they are equal, as eager).
  Value low, high, span;
  // s64 arithmetic (integer x, whole bounds).
  bool exact = false;
};

struct HistcResult {
  Value counts;       // [bins], x's dtype
  Value bad_range;    // pred 0-d: the data's range is not finite; null
                      // when the bounds were given
};

absl::StatusOr<HistcResult> Histc(Value x, int64_t bins,
                                  const HistcBounds& bounds);

}  // namespace torch_xla::ops

#endif  // TORCH_XLA_CSRC_OPS_HISTOGRAM_OPS_H_
