#include "torch_xla/csrc/ops/distance_ops.h"

#include <cmath>
#include <limits>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "torch_xla/csrc/ir/status_macros.h"
#include "torch_xla/csrc/ir/value_builders.h"
#include "torch_xla/csrc/ops/build_util.h"
#include "torch_xla/csrc/ops/index_ops.h"
#include "torch_xla/csrc/ops/opmath.h"

namespace torch_xla::ops {
namespace {

// x[rows] - x[cols] ([P, m]) in OpMathType(x).
absl::StatusOr<Value> PairDiff(const Value& x, Value rows, Value cols) {
  if (x.shape().rank() != 2 || !IsFloating(x.shape().dtype)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "pdist: x must be a float [n, m], got ", x.shape().ToString()));
  }
  const DType acc = OpMathType(x.shape().dtype);
  TXLA_ASSIGN_OR_RETURN(Value wide, MakeConvert(x, acc));
  TXLA_ASSIGN_OR_RETURN(Value a, Embedding(wide, std::move(rows)));
  TXLA_ASSIGN_OR_RETURN(Value b, Embedding(std::move(wide), std::move(cols)));
  return Apply(OpKind::kSubtract, std::move(a), std::move(b));
}

absl::StatusOr<Value> Pow(Value x, double e) {
  TXLA_ASSIGN_OR_RETURN(Value exponent, LiteralLike(e, x));
  return Apply(OpKind::kPower, std::move(x), std::move(exponent));
}

}  // namespace

absl::StatusOr<Value> Pdist(Value x, double p, Value rows, Value cols) {
  const DType dtype = x.shape().dtype;
  if (x.shape().rank() == 2 && x.shape().dims[0] < 2) {
    return MakeLiteral(0, dtype, {0});  // no pairs
  }
  TXLA_ASSIGN_OR_RETURN(Value d, PairDiff(x, std::move(rows),
                                          std::move(cols)));
  Value norm;
  if (p == 0) {
    TXLA_ASSIGN_OR_RETURN(Value zero, LiteralLike(0, d));
    TXLA_ASSIGN_OR_RETURN(Value nonzero, Compare(d, std::move(zero), "NE"));
    TXLA_ASSIGN_OR_RETURN(Value count, MakeConvert(std::move(nonzero),
                                                   d.shape().dtype));
    TXLA_ASSIGN_OR_RETURN(norm, MakeReduce(std::move(count), {1}, "sum",
                                           false));
  } else if (std::isinf(p)) {
    TXLA_ASSIGN_OR_RETURN(Value a, Apply(OpKind::kAbs, std::move(d)));
    TXLA_ASSIGN_OR_RETURN(norm, MakeReduce(std::move(a), {1}, "max", false));
  } else if (p == 1) {
    TXLA_ASSIGN_OR_RETURN(Value a, Apply(OpKind::kAbs, std::move(d)));
    TXLA_ASSIGN_OR_RETURN(norm, MakeReduce(std::move(a), {1}, "sum", false));
  } else if (p == 2) {
    TXLA_ASSIGN_OR_RETURN(Value sq, Apply(OpKind::kMultiply, d, d));
    TXLA_ASSIGN_OR_RETURN(Value sum, MakeReduce(std::move(sq), {1}, "sum",
                                                false));
    TXLA_ASSIGN_OR_RETURN(norm, Apply(OpKind::kSqrt, std::move(sum)));
  } else {
    TXLA_ASSIGN_OR_RETURN(Value a, Apply(OpKind::kAbs, std::move(d)));
    TXLA_ASSIGN_OR_RETURN(a, Pow(std::move(a), p));
    TXLA_ASSIGN_OR_RETURN(Value sum, MakeReduce(std::move(a), {1}, "sum",
                                                false));
    TXLA_ASSIGN_OR_RETURN(norm, Pow(std::move(sum), 1.0 / p));
  }
  return MakeConvert(std::move(norm), dtype);
}

absl::StatusOr<Value> PdistBackward(Value grad, Value x, double p,
                                    Value pdist, Value rows, Value cols) {
  const DType dtype = x.shape().dtype;
  const int64_t n = x.shape().rank() == 2 ? x.shape().dims[0] : 0;
  if (n < 2 && x.shape().rank() == 2) {
    return MakeLiteral(0, dtype, x.shape().dims);  // no pairs
  }
  TXLA_ASSIGN_OR_RETURN(Value d, PairDiff(x, rows, cols));
  const DType acc = d.shape().dtype;
  const std::vector<int64_t> dims = d.shape().dims;  // [P, m]
  if (p == 0) return MakeLiteral(0, dtype, x.shape().dims);
  TXLA_ASSIGN_OR_RETURN(Value dist, MakeConvert(std::move(pdist), acc));
  TXLA_ASSIGN_OR_RETURN(dist, BroadcastInDim(std::move(dist), dims, {0}));
  TXLA_ASSIGN_OR_RETURN(Value zeros, MakeLiteral(0, acc, dims));
  Value term;
  if (p == 1) {
    TXLA_ASSIGN_OR_RETURN(term, Apply(OpKind::kSign, d));
  } else if (p == 2) {
    TXLA_ASSIGN_OR_RETURN(term, Apply(OpKind::kDivide, d, dist));
  } else if (std::isinf(p)) {
    TXLA_ASSIGN_OR_RETURN(Value sign, Apply(OpKind::kSign, d));
    TXLA_ASSIGN_OR_RETURN(Value a, Apply(OpKind::kAbs, d));
    TXLA_ASSIGN_OR_RETURN(Value at_max, Compare(std::move(a), dist, "EQ"));
    TXLA_ASSIGN_OR_RETURN(term, Select(std::move(at_max), std::move(sign),
                                       zeros));
  } else {
    TXLA_ASSIGN_OR_RETURN(Value sign, Apply(OpKind::kSign, d));
    TXLA_ASSIGN_OR_RETURN(Value a, Apply(OpKind::kAbs, d));
    TXLA_ASSIGN_OR_RETURN(a, Pow(std::move(a), p - 1));
    TXLA_ASSIGN_OR_RETURN(Value denom, Pow(dist, p - 1));
    TXLA_ASSIGN_OR_RETURN(term, Apply(OpKind::kMultiply, std::move(sign),
                                      std::move(a)));
    TXLA_ASSIGN_OR_RETURN(term, Apply(OpKind::kDivide, std::move(term),
                                      std::move(denom)));
    TXLA_ASSIGN_OR_RETURN(Value zero, LiteralLike(0, d));
    TXLA_ASSIGN_OR_RETURN(Value same, Compare(d, std::move(zero), "EQ"));
    TXLA_ASSIGN_OR_RETURN(term, Select(std::move(same), zeros,
                                       std::move(term)));
  }
  TXLA_ASSIGN_OR_RETURN(Value zero_dist, LiteralLike(0, dist));
  TXLA_ASSIGN_OR_RETURN(Value coincide, Compare(dist, std::move(zero_dist),
                                                "EQ"));
  TXLA_ASSIGN_OR_RETURN(term, Select(std::move(coincide), zeros,
                                     std::move(term)));
  TXLA_ASSIGN_OR_RETURN(Value g, MakeConvert(std::move(grad), acc));
  TXLA_ASSIGN_OR_RETURN(g, BroadcastInDim(std::move(g), dims, {0}));
  TXLA_ASSIGN_OR_RETURN(term, Apply(OpKind::kMultiply, std::move(g),
                                    std::move(term)));
  TXLA_ASSIGN_OR_RETURN(Value to_rows,
                        EmbeddingBackward(term, std::move(rows), n, Value(),
                                          false));
  TXLA_ASSIGN_OR_RETURN(Value to_cols,
                        EmbeddingBackward(std::move(term), std::move(cols), n,
                                          Value(), false));
  TXLA_ASSIGN_OR_RETURN(Value out, Apply(OpKind::kSubtract, std::move(to_rows),
                                         std::move(to_cols)));
  return MakeConvert(std::move(out), dtype);
}

}  // namespace torch_xla::ops
