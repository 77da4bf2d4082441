#include "torch_xla/csrc/ops/index_reduce_ops.h"

#include <cmath>
#include <limits>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "torch_xla/csrc/ir/status_macros.h"
#include "torch_xla/csrc/ir/value_builders.h"
#include "torch_xla/csrc/ops/build_util.h"
#include "torch_xla/csrc/ops/reduction_ops.h"

namespace torch_xla::ops {
namespace {

// The identity of `kind` ("sum", "prod", "max", "min") in `dtype`.
double Identity(const char* kind, DType dtype) {
  const absl::string_view k(kind);
  if (k == "sum") return 0;
  if (k == "prod") return 1;
  const bool max = k == "max";
  if (IsFloating(dtype)) {
    return max ? -std::numeric_limits<double>::infinity()
               : std::numeric_limits<double>::infinity();
  }
  switch (dtype) {
    case DType::kI8:
      return max ? -128 : 127;
    case DType::kU8:
      return max ? 0 : 255;
    case DType::kI16:
      return max ? -32768 : 32767;
    case DType::kI32:
      return max ? -2147483648.0 : 2147483647.0;
    default:  // s64: MakeLiteral saturates at its range
      return max ? -9223372036854775808.0 : 9223372036854775807.0;
  }
}

// a // b for integers where b > 0 (XLA's divide truncates).
absl::StatusOr<Value> FloorDivideByPositive(Value a, Value b) {
  TXLA_ASSIGN_OR_RETURN(Value q, Apply(OpKind::kDivide, a, b));
  TXLA_ASSIGN_OR_RETURN(Value r, Apply(OpKind::kRemainder, std::move(a),
                                       std::move(b)));  // has a's sign
  TXLA_ASSIGN_OR_RETURN(Value zero, LiteralLike(0, r));
  TXLA_ASSIGN_OR_RETURN(Value one, LiteralLike(1, q));
  TXLA_ASSIGN_OR_RETURN(Value below, Compare(std::move(r), std::move(zero),
                                             "LT"));
  TXLA_ASSIGN_OR_RETURN(Value less, Apply(OpKind::kSubtract, q,
                                          std::move(one)));
  return Select(std::move(below), std::move(less), std::move(q));
}

}  // namespace

absl::StatusOr<Value> IndexReduce(Value x, int64_t dim, Value index,
                                  Value source, absl::string_view reduce,
                                  bool include_self) {
  const char* kind = reduce == "prod"   ? "prod"
                     : reduce == "mean" ? "sum"
                     : reduce == "amax" ? "max"
                     : reduce == "amin" ? "min"
                                        : nullptr;
  if (kind == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        "index_reduce: reduce must be prod, mean, amax or amin, got ",
        reduce));
  }
  const Shape x_shape = x.shape();
  std::vector<int64_t> shape = x_shape.dims;
  if (shape.empty()) shape.push_back(1);
  const int64_t rank = static_cast<int64_t>(shape.size());
  // 0/1 bytes for bool: prod and amin are `and`, amax is `or`.
  const bool is_bool = x_shape.dtype == DType::kBool;
  const DType code = is_bool ? DType::kI8 : x_shape.dtype;
  TXLA_ASSIGN_OR_RETURN(Value base, MakeReshape(std::move(x), shape));
  TXLA_ASSIGN_OR_RETURN(base, MakeConvert(std::move(base), code));
  int64_t n = 1;
  for (int64_t d : index.shape().dims) n *= d;
  const int64_t size = shape[dim];
  TXLA_ASSIGN_OR_RETURN(Value idx, MakeConvert(std::move(index), DType::kI64));
  TXLA_ASSIGN_OR_RETURN(idx, MakeReshape(std::move(idx), {n}));
  TXLA_ASSIGN_OR_RETURN(Value rows, Iota(DType::kI64, {size, n}, 0));
  TXLA_ASSIGN_OR_RETURN(Value cols,
                        BroadcastInDim(std::move(idx), {size, n}, {1}));
  TXLA_ASSIGN_OR_RETURN(Value hit, Compare(std::move(rows), std::move(cols),
                                           "EQ"));
  // Source slices along a new dim d + 1, next to the x slice they reduce to.
  std::vector<int64_t> big(shape.begin(), shape.begin() + dim);
  big.push_back(size);
  big.push_back(n);
  big.insert(big.end(), shape.begin() + dim + 1, shape.end());
  std::vector<int64_t> src_dims = shape;
  src_dims[dim] = n;
  std::vector<int64_t> spread;
  for (int64_t k = 0; k < rank; ++k) spread.push_back(k < dim ? k : k + 1);
  TXLA_ASSIGN_OR_RETURN(Value src, MakeReshape(std::move(source), src_dims));
  TXLA_ASSIGN_OR_RETURN(src, MakeConvert(std::move(src), code));
  TXLA_ASSIGN_OR_RETURN(src, BroadcastInDim(std::move(src), big, spread));
  TXLA_ASSIGN_OR_RETURN(Value wide_hit, BroadcastInDim(hit, big, {dim,
                                                                  dim + 1}));
  TXLA_ASSIGN_OR_RETURN(Value identity,
                        MakeLiteral(Identity(kind, code), code, big));
  TXLA_ASSIGN_OR_RETURN(Value values, Select(std::move(wide_hit),
                                             std::move(src),
                                             std::move(identity)));
  if (include_self) {  // x is one more contribution
    std::vector<int64_t> column = shape;
    column.insert(column.begin() + dim + 1, 1);
    TXLA_ASSIGN_OR_RETURN(Value own, MakeReshape(base, column));
    TXLA_ASSIGN_OR_RETURN(
        NodePtr node,
        MakeNode(OpKind::kConcatenate, {std::move(values), std::move(own)},
                 Attrs().Set("dimension", dim + 1)));
    values = Value(std::move(node));
  }
  const absl::string_view k(kind);
  Value out;
  if (k == "max" || k == "min") {  // NaN wins, as in eager
    TXLA_ASSIGN_OR_RETURN(out, ReduceExtreme(std::move(values), {dim + 1},
                                             kind, false));
  } else {
    TXLA_ASSIGN_OR_RETURN(out, MakeReduce(std::move(values), {dim + 1}, kind,
                                          false));
  }
  TXLA_ASSIGN_OR_RETURN(Value count, MakeConvert(std::move(hit),
                                                 DType::kI64));
  TXLA_ASSIGN_OR_RETURN(count, MakeReduce(std::move(count), {1}, "sum",
                                          false));
  if (include_self) {
    TXLA_ASSIGN_OR_RETURN(Value one, MakeLiteral(1, DType::kI64, {size}));
    TXLA_ASSIGN_OR_RETURN(count, Apply(OpKind::kAdd, std::move(count),
                                       std::move(one)));
  }
  TXLA_ASSIGN_OR_RETURN(count, BroadcastInDim(std::move(count), shape, {dim}));
  TXLA_ASSIGN_OR_RETURN(Value none, MakeLiteral(0, DType::kI64, shape));
  TXLA_ASSIGN_OR_RETURN(Value reached, Compare(count, std::move(none), "GT"));
  if (reduce == "mean") {
    TXLA_ASSIGN_OR_RETURN(Value ones, MakeLiteral(1, DType::kI64, shape));
    TXLA_ASSIGN_OR_RETURN(count, Select(reached, std::move(count),
                                        std::move(ones)));
    TXLA_ASSIGN_OR_RETURN(count, MakeConvert(std::move(count), code));
    if (IsFloating(code)) {
      TXLA_ASSIGN_OR_RETURN(out, Apply(OpKind::kDivide, std::move(out),
                                       std::move(count)));
    } else {  // eager floors integer means
      TXLA_ASSIGN_OR_RETURN(out, FloorDivideByPositive(std::move(out),
                                                       std::move(count)));
    }
  }
  // Slices no index reaches keep x's.
  TXLA_ASSIGN_OR_RETURN(out, Select(std::move(reached), std::move(out),
                                    std::move(base)));
  if (is_bool) {
    TXLA_ASSIGN_OR_RETURN(Value zero, LiteralLike(0, out));
    TXLA_ASSIGN_OR_RETURN(out, Compare(std::move(out), std::move(zero), "NE"));
  }
  return MakeReshape(std::move(out), x_shape.dims);
}

}  // namespace torch_xla::ops
