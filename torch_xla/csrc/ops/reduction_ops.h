#ifndef TORCH_XLA_CSRC_OPS_REDUCTION_OPS_H_
#define TORCH_XLA_CSRC_OPS_REDUCTION_OPS_H_

// sum, mean, prod, var/std, any/all, logsumexp and the NaN-propagating
// max/min (with their first index: max.dim, argmax) with eager's
// numerics: bf16/f16 accumulate in f32 and round once; max/min give NaN
// where the reduced elements hold one (XLA's max drops NaN, so a NaN test over the same dims
// picks it back). `dims` are sorted canonical dims (the callers normalize
// eager's `dim` argument and raise its errors); no dims reduces nothing
// and returns the (converted) input itself. Used by the Python rules
// (torch_xla/_ops/reductions.py, normalization.py through _XLAC._sum,
// _mean, _reduce_extreme, _extreme_and_index, _var_mean, ...: one call per
// op) and the C++ fast rules.

#include <cstdint>
#include <optional>
#include <utility>
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

// max.dim / min.dim: {the max or min along the canonical `dim`, the s64
// index of its first occurrence (of the first NaN where there is one)}.
// A 0-d x gives {x itself, 0}. The callers reject an empty dim.
absl::StatusOr<std::pair<Value, Value>> ExtremeAndIndex(Value x, int64_t dim,
                                                        const char* kind,
                                                        bool keep_dims);

// argmax / argmin: ExtremeAndIndex's index; with no `dim` over the
// flattened x (keep_dims: every dim kept as size 1).
absl::StatusOr<Value> ArgExtreme(Value x, std::optional<int64_t> dim,
                                 const char* kind, bool keep_dims);

// Product over `dims` accumulated in OpMathType(out), result in `out`.
absl::StatusOr<Value> Prod(Value x, const std::vector<int64_t>& dims,
                           bool keep_dims, DType out);

// {var (std with `sqrt`), mean} over `dims` in x's (float) dtype, two
// passes: sum((x - mean)^2) / `divisor` (an OpMathType 0-d value: the
// element count less the correction, a scalar parameter).
absl::StatusOr<std::pair<Value, Value>> VarMean(
    Value x, const std::vector<int64_t>& dims, Value divisor, bool keep_dims,
    bool sqrt);

// any (`kind` "or") / all ("and") of x != 0 over `dims` (none: x != 0
// itself); bool, or uint8 for a uint8 x as eager.
absl::StatusOr<Value> AnyAll(Value x, const std::vector<int64_t>& dims,
                             const char* kind, bool keep_dims);

// log(sum(exp(x - m))) + m over `dims` with m the (finite, else 0) max,
// in OpMathType(out), result in `out`.
absl::StatusOr<Value> LogSumExp(Value x, const std::vector<int64_t>& dims,
                                bool keep_dims, DType out);

// linalg_vector_norm of x over `dims` in OpMathType(out), result in
// `out`: max/min |x| for +/-inf, the count of non-zeros for 0, sum |x| for
// 1, sqrt(sum x^2) for 2, else (sum |x|^p)^(1/p) with `p` and `inv_p`
// 0-d OpMathType values (scalar parameters; null for the other orders).
absl::StatusOr<Value> VectorNorm(Value x, double ord,
                                 const std::vector<int64_t>& dims,
                                 bool keep_dims, DType out, Value p,
                                 Value inv_p);

}  // namespace torch_xla::ops

#endif  // TORCH_XLA_CSRC_OPS_REDUCTION_OPS_H_
