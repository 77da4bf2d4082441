#include "torch_xla/csrc/ops/reduction_ops.h"

#include <cmath>
#include <optional>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "torch_xla/csrc/ir/builder.h"
#include "torch_xla/csrc/ir/status_macros.h"
#include "torch_xla/csrc/ir/value_builders.h"
#include "torch_xla/csrc/ops/build_util.h"
#include "torch_xla/csrc/ops/opmath.h"

namespace torch_xla::ops {
namespace {

// x reduced over `dims` with `kind`; x itself for no dims.
absl::StatusOr<Value> ReduceOrSelf(Value x, const std::vector<int64_t>& dims,
                                   const char* kind, bool keep_dims) {
  if (dims.empty()) return x;
  return MakeReduce(std::move(x), dims, kind, keep_dims);
}

}  // namespace

absl::StatusOr<Value> Sum(Value x, const std::vector<int64_t>& dims,
                          bool keep_dims, DType out) {
  TXLA_ASSIGN_OR_RETURN(Value v, MakeConvert(std::move(x), OpMathType(out)));
  TXLA_ASSIGN_OR_RETURN(Value total,
                        ReduceOrSelf(std::move(v), dims, "sum", keep_dims));
  return MakeConvert(std::move(total), out);
}

absl::StatusOr<Value> Mean(Value x, const std::vector<int64_t>& dims,
                           bool keep_dims, DType out) {
  const DType acc = OpMathType(out);
  int64_t count = 1;
  for (int64_t d : dims) count *= x.shape().dims[d];
  TXLA_ASSIGN_OR_RETURN(Value v, MakeConvert(std::move(x), acc));
  TXLA_ASSIGN_OR_RETURN(Value total,
                        ReduceOrSelf(std::move(v), dims, "sum", keep_dims));
  TXLA_ASSIGN_OR_RETURN(
      Value n, MakeLiteral(static_cast<double>(count), acc, total.shape().dims));
  TXLA_ASSIGN_OR_RETURN(NodePtr mean, MakeBinary(OpKind::kDivide,
                                                 std::move(total), std::move(n)));
  return MakeConvert(Value(std::move(mean)), out);
}

absl::StatusOr<Value> ReduceExtreme(Value x, const std::vector<int64_t>& dims,
                                    const char* kind, bool keep_dims) {
  TXLA_ASSIGN_OR_RETURN(Value out, ReduceOrSelf(x, dims, kind, keep_dims));
  if (!IsFloating(x.shape().dtype) || dims.empty()) return out;
  TXLA_ASSIGN_OR_RETURN(NodePtr is_nan, MakeCompare(x, x, "NE"));
  TXLA_ASSIGN_OR_RETURN(
      Value has_nan, MakeReduce(Value(std::move(is_nan)), dims, "or", keep_dims));
  TXLA_ASSIGN_OR_RETURN(
      Value nan, MakeLiteral(std::nan(""), out.shape().dtype, out.shape().dims));
  TXLA_ASSIGN_OR_RETURN(
      NodePtr picked,
      MakeNode(OpKind::kSelect,
               {std::move(has_nan), std::move(nan), std::move(out)}));
  return Value(std::move(picked));
}

namespace {

// The s64 index along `d` of the first element of x equal to `extreme`
// (x's max/min over d, kept as size 1), or of the first NaN; d kept.
absl::StatusOr<Value> FirstIndex(const Value& x, const Value& extreme,
                                 int64_t d) {
  const std::vector<int64_t>& shape = x.shape().dims;
  TXLA_ASSIGN_OR_RETURN(Value wide, MakeBroadcastTo(extreme, shape));
  TXLA_ASSIGN_OR_RETURN(Value hit, Compare(x, std::move(wide), "EQ"));
  if (IsFloating(x.shape().dtype)) {
    TXLA_ASSIGN_OR_RETURN(Value nan, Compare(x, x, "NE"));
    TXLA_ASSIGN_OR_RETURN(hit, Apply(OpKind::kOr, std::move(hit),
                                     std::move(nan)));
  }
  TXLA_ASSIGN_OR_RETURN(Value index, Iota(DType::kI64, shape, d));
  TXLA_ASSIGN_OR_RETURN(Value past_end,
                        MakeLiteral(static_cast<double>(shape[d]), DType::kI64,
                                    shape));
  TXLA_ASSIGN_OR_RETURN(Value picked, Select(std::move(hit), std::move(index),
                                             std::move(past_end)));
  return MakeReduce(std::move(picked), {d}, "min", /*keep_dims=*/true);
}

}  // namespace

absl::StatusOr<std::pair<Value, Value>> ExtremeAndIndex(Value x, int64_t dim,
                                                        const char* kind,
                                                        bool keep_dims) {
  const std::vector<int64_t> shape = x.shape().dims;
  const int64_t rank = static_cast<int64_t>(shape.size());
  if (rank == 0) {
    TXLA_ASSIGN_OR_RETURN(Value zero, MakeLiteral(0, DType::kI64, {}));
    return std::make_pair(std::move(x), std::move(zero));
  }
  if (dim < 0 || dim >= rank || shape[dim] == 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        kind, ": dim ", dim, " is out of range or empty for ",
        x.shape().ToString()));
  }
  TXLA_ASSIGN_OR_RETURN(Value values, ReduceExtreme(x, {dim}, kind, true));
  TXLA_ASSIGN_OR_RETURN(Value index, FirstIndex(x, values, dim));
  if (!keep_dims) {
    std::vector<int64_t> out = shape;
    out.erase(out.begin() + dim);
    TXLA_ASSIGN_OR_RETURN(values, MakeReshape(std::move(values), out));
    TXLA_ASSIGN_OR_RETURN(index, MakeReshape(std::move(index), out));
  }
  return std::make_pair(std::move(values), std::move(index));
}

absl::StatusOr<Value> ArgExtreme(Value x, std::optional<int64_t> dim,
                                 const char* kind, bool keep_dims) {
  if (dim.has_value()) {
    TXLA_ASSIGN_OR_RETURN(auto both,
                          ExtremeAndIndex(std::move(x), *dim, kind, keep_dims));
    return std::move(both.second);
  }
  const size_t rank = x.shape().dims.size();
  int64_t n = 1;
  for (int64_t s : x.shape().dims) n *= s;
  TXLA_ASSIGN_OR_RETURN(Value flat, MakeReshape(std::move(x), {n}));
  TXLA_ASSIGN_OR_RETURN(auto both,
                        ExtremeAndIndex(std::move(flat), 0, kind, true));
  return MakeReshape(std::move(both.second),
                     keep_dims ? std::vector<int64_t>(rank, 1)
                               : std::vector<int64_t>());
}

absl::StatusOr<Value> Prod(Value x, const std::vector<int64_t>& dims,
                           bool keep_dims, DType out) {
  TXLA_ASSIGN_OR_RETURN(Value v, MakeConvert(std::move(x), OpMathType(out)));
  TXLA_ASSIGN_OR_RETURN(Value total,
                        ReduceOrSelf(std::move(v), dims, "prod", keep_dims));
  return MakeConvert(std::move(total), out);
}

absl::StatusOr<std::pair<Value, Value>> VarMean(
    Value x, const std::vector<int64_t>& dims, Value divisor, bool keep_dims,
    bool sqrt) {
  const DType dtype = x.shape().dtype;
  const DType acc = OpMathType(dtype);
  TXLA_ASSIGN_OR_RETURN(Value v, MakeConvert(std::move(x), acc));
  TXLA_ASSIGN_OR_RETURN(Value mean_kept, MeanKept(v, dims));
  TXLA_ASSIGN_OR_RETURN(Value centered,
                        ApplyTo(OpKind::kSubtract, std::move(v), mean_kept));
  TXLA_ASSIGN_OR_RETURN(Value sq, Apply(OpKind::kMultiply, centered, centered));
  TXLA_ASSIGN_OR_RETURN(Value squares,
                        ReduceOrSelf(std::move(sq), dims, "sum", keep_dims));
  TXLA_ASSIGN_OR_RETURN(Value var, ApplyTo(OpKind::kDivide, std::move(squares),
                                           std::move(divisor)));
  TXLA_ASSIGN_OR_RETURN(Value mean,
                        MakeReshape(std::move(mean_kept), var.shape().dims));
  TXLA_ASSIGN_OR_RETURN(var, MakeConvert(std::move(var), dtype));
  if (sqrt) {
    TXLA_ASSIGN_OR_RETURN(var, Apply(OpKind::kSqrt, std::move(var)));
  }
  TXLA_ASSIGN_OR_RETURN(mean, MakeConvert(std::move(mean), dtype));
  return std::make_pair(std::move(var), std::move(mean));
}

absl::StatusOr<Value> AnyAll(Value x, const std::vector<int64_t>& dims,
                             const char* kind, bool keep_dims) {
  const DType dtype = x.shape().dtype;
  Value truth = std::move(x);
  if (dtype != DType::kBool) {
    TXLA_ASSIGN_OR_RETURN(Value zero,
                          MakeLiteral(0, dtype, truth.shape().dims));
    TXLA_ASSIGN_OR_RETURN(truth, Compare(std::move(truth), std::move(zero),
                                         "NE"));
  }
  TXLA_ASSIGN_OR_RETURN(Value out,
                        ReduceOrSelf(std::move(truth), dims, kind, keep_dims));
  if (dtype == DType::kU8) return MakeConvert(std::move(out), DType::kU8);
  return out;
}

absl::StatusOr<Value> LogSumExp(Value x, const std::vector<int64_t>& dims,
                                bool keep_dims, DType out) {
  const DType acc = OpMathType(out);
  TXLA_ASSIGN_OR_RETURN(Value v, MakeConvert(std::move(x), acc));
  if (dims.empty()) return MakeConvert(std::move(v), out);
  // Subtract the max first; an infinite max (all -inf, or +inf) is
  // replaced by 0 so that inf - inf never makes a NaN eager would not.
  TXLA_ASSIGN_OR_RETURN(Value m, ReduceExtreme(v, dims, "max", true));
  TXLA_ASSIGN_OR_RETURN(Value finite, Apply(OpKind::kIsFinite, m));
  TXLA_ASSIGN_OR_RETURN(Value zero, MakeLiteral(0, acc, m.shape().dims));
  TXLA_ASSIGN_OR_RETURN(m, Select(std::move(finite), m, std::move(zero)));
  TXLA_ASSIGN_OR_RETURN(Value shifted,
                        ApplyTo(OpKind::kSubtract, std::move(v), m));
  TXLA_ASSIGN_OR_RETURN(Value e, Apply(OpKind::kExponential,
                                       std::move(shifted)));
  TXLA_ASSIGN_OR_RETURN(Value total,
                        ReduceOrSelf(std::move(e), dims, "sum", keep_dims));
  TXLA_ASSIGN_OR_RETURN(m, MakeReshape(std::move(m), total.shape().dims));
  TXLA_ASSIGN_OR_RETURN(Value log_total, Apply(OpKind::kLog, std::move(total)));
  TXLA_ASSIGN_OR_RETURN(Value sum, Apply(OpKind::kAdd, std::move(log_total),
                                         std::move(m)));
  return MakeConvert(std::move(sum), out);
}

absl::StatusOr<Value> VectorNorm(Value x, double ord,
                                 const std::vector<int64_t>& dims,
                                 bool keep_dims, DType out, Value p,
                                 Value inv_p) {
  const DType acc = OpMathType(out);
  TXLA_ASSIGN_OR_RETURN(Value v, MakeConvert(std::move(x), acc));
  Value norm;
  if (std::isinf(ord)) {
    TXLA_ASSIGN_OR_RETURN(Value a, Apply(OpKind::kAbs, std::move(v)));
    TXLA_ASSIGN_OR_RETURN(norm, ReduceExtreme(std::move(a), dims,
                                              ord > 0 ? "max" : "min",
                                              keep_dims));
  } else if (ord == 0) {
    TXLA_ASSIGN_OR_RETURN(Value zero, MakeLiteral(0, acc, v.shape().dims));
    TXLA_ASSIGN_OR_RETURN(Value nonzero, Compare(v, std::move(zero), "NE"));
    TXLA_ASSIGN_OR_RETURN(Value ones, MakeConvert(std::move(nonzero), acc));
    TXLA_ASSIGN_OR_RETURN(norm, ReduceOrSelf(std::move(ones), dims, "sum",
                                             keep_dims));
  } else if (ord == 1) {
    TXLA_ASSIGN_OR_RETURN(Value a, Apply(OpKind::kAbs, std::move(v)));
    TXLA_ASSIGN_OR_RETURN(norm, ReduceOrSelf(std::move(a), dims, "sum",
                                             keep_dims));
  } else if (ord == 2) {
    TXLA_ASSIGN_OR_RETURN(Value sq, Apply(OpKind::kMultiply, v, v));
    TXLA_ASSIGN_OR_RETURN(Value total, ReduceOrSelf(std::move(sq), dims, "sum",
                                                    keep_dims));
    TXLA_ASSIGN_OR_RETURN(norm, Apply(OpKind::kSqrt, std::move(total)));
  } else {
    if (!p || !inv_p) {
      return absl::InvalidArgumentError(absl::StrCat(
          "linalg_vector_norm: order ", ord, " needs p and 1/p values"));
    }
    TXLA_ASSIGN_OR_RETURN(Value a, Apply(OpKind::kAbs, std::move(v)));
    TXLA_ASSIGN_OR_RETURN(Value powered, ApplyTo(OpKind::kPower, std::move(a),
                                                 std::move(p)));
    TXLA_ASSIGN_OR_RETURN(Value total, ReduceOrSelf(std::move(powered), dims,
                                                    "sum", keep_dims));
    TXLA_ASSIGN_OR_RETURN(norm, ApplyTo(OpKind::kPower, std::move(total),
                                        std::move(inv_p)));
  }
  return MakeConvert(std::move(norm), out);
}

}  // namespace torch_xla::ops
