#ifndef TORCH_XLA_CSRC_OPS_REDUCTION_OPS_H_
#define TORCH_XLA_CSRC_OPS_REDUCTION_OPS_H_

// sum, mean and the NaN-propagating max/min with eager's numerics: bf16/f16
// accumulate in f32 and round once; max/min give NaN where the reduced
// elements hold one (XLA's max drops NaN, so a NaN test over the same dims
// picks it back). `dims` are sorted canonical dims (the callers normalize
// eager's `dim` argument and raise its errors); no dims reduces nothing
// and returns the (converted) input itself. Used by the Python rules
// (torch_xla/_ops/reductions.py, normalization.py through _XLAC._sum,
// _mean, _reduce_extreme) and the C++ fast rules.

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "torch_xla/csrc/ir/node.h"
#include "torch_xla/csrc/ir/shape.h"

namespace torch_xla::ops {

// Sum of x over `dims`, accumulated in OpMathType(out), result in `out`.
absl::StatusOr<Value> Sum(Value x, const std::vector<int64_t>& dims,
                          bool keep_dims, DType out);

// Mean of x over `dims` (sum / element count), as Sum.
absl::StatusOr<Value> Mean(Value x, const std::vector<int64_t>& dims,
                           bool keep_dims, DType out);

// max or min (`kind` "max" / "min") of x over `dims` in x's dtype; NaN wins.
absl::StatusOr<Value> ReduceExtreme(Value x, const std::vector<int64_t>& dims,
                                    const char* kind, bool keep_dims);

}  // namespace torch_xla::ops

#endif  // TORCH_XLA_CSRC_OPS_REDUCTION_OPS_H_
