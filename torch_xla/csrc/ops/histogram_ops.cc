#include "torch_xla/csrc/ops/histogram_ops.h"

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

// a kind b computed in OpMathType(dtype) and rounded to `dtype`, as one of
// eager's elementwise ops on a `dtype` tensor; b broadcast to a's shape.
absl::StatusOr<Value> Rounded(OpKind kind, Value a, Value b, DType dtype) {
  const DType acc = OpMathType(dtype);
  TXLA_ASSIGN_OR_RETURN(a, MakeConvert(std::move(a), acc));
  TXLA_ASSIGN_OR_RETURN(b, MakeConvert(std::move(b), acc));
  TXLA_ASSIGN_OR_RETURN(Value out, ApplyTo(kind, std::move(a), std::move(b)));
  return MakeConvert(std::move(out), dtype);
}

// The data's [min, max] in f64 as 0-d values, widened by 1 each way where
// equal; and whether either is not finite.
struct DataRange {
  Value low, high, bad;
};

absl::StatusOr<DataRange> RangeOf(const Value& x) {
  const std::vector<int64_t> all = Range(0, x.shape().rank());
  TXLA_ASSIGN_OR_RETURN(Value lo, MakeReduce(x, all, "min", false));
  TXLA_ASSIGN_OR_RETURN(Value hi, MakeReduce(x, all, "max", false));
  TXLA_ASSIGN_OR_RETURN(lo, MakeConvert(std::move(lo), DType::kF64));
  TXLA_ASSIGN_OR_RETURN(hi, MakeConvert(std::move(hi), DType::kF64));
  TXLA_ASSIGN_OR_RETURN(Value same, Compare(lo, hi, "EQ"));
  TXLA_ASSIGN_OR_RETURN(Value one, MakeLiteral(1, DType::kF64, {}));
  TXLA_ASSIGN_OR_RETURN(Value below, Apply(OpKind::kSubtract, lo, one));
  TXLA_ASSIGN_OR_RETURN(Value above, Apply(OpKind::kAdd, hi, one));
  TXLA_ASSIGN_OR_RETURN(lo, Select(same, std::move(below), std::move(lo)));
  TXLA_ASSIGN_OR_RETURN(hi, Select(same, std::move(above), std::move(hi)));
  TXLA_ASSIGN_OR_RETURN(Value lo_ok, Apply(OpKind::kIsFinite, lo));
  TXLA_ASSIGN_OR_RETURN(Value hi_ok, Apply(OpKind::kIsFinite, hi));
  TXLA_ASSIGN_OR_RETURN(Value ok, Apply(OpKind::kAnd, std::move(lo_ok),
                                        std::move(hi_ok)));
  TXLA_ASSIGN_OR_RETURN(Value bad, Apply(OpKind::kNot, std::move(ok)));
  return DataRange{std::move(lo), std::move(hi), std::move(bad)};
}

}  // namespace

absl::StatusOr<HistcResult> Histc(Value x, int64_t bins,
                                  const HistcBounds& bounds) {
  const DType dtype = x.shape().dtype;
  if (bins <= 0 || dtype == DType::kBool) {
    return absl::InvalidArgumentError(absl::StrCat(
        "histc: expected bins > 0 and a numeric x, got bins ", bins,
        " and ", x.shape().ToString()));
  }
  int64_t count = 1;
  for (int64_t d : x.shape().dims) count *= d;
  TXLA_ASSIGN_OR_RETURN(Value flat, MakeReshape(std::move(x), {count}));
  HistcResult result;
  Value inside, pos;
  if (bounds.exact) {
    TXLA_ASSIGN_OR_RETURN(Value v, MakeConvert(std::move(flat), DType::kI64));
    TXLA_ASSIGN_OR_RETURN(Value lo, MakeBroadcastTo(bounds.low, {count}));
    TXLA_ASSIGN_OR_RETURN(Value hi, MakeBroadcastTo(bounds.high, {count}));
    TXLA_ASSIGN_OR_RETURN(Value ge, Compare(v, lo, "GE"));
    TXLA_ASSIGN_OR_RETURN(Value le, Compare(v, std::move(hi), "LE"));
    TXLA_ASSIGN_OR_RETURN(inside, Apply(OpKind::kAnd, std::move(ge),
                                        std::move(le)));
    // Inside, (x - low) * bins >= 0: the truncating divide is the floor.
    TXLA_ASSIGN_OR_RETURN(Value off, Apply(OpKind::kSubtract, std::move(v),
                                           std::move(lo)));
    TXLA_ASSIGN_OR_RETURN(Value n, MakeLiteral(static_cast<double>(bins),
                                               DType::kI64, {count}));
    TXLA_ASSIGN_OR_RETURN(off, Apply(OpKind::kMultiply, std::move(off),
                                     std::move(n)));
    TXLA_ASSIGN_OR_RETURN(pos, ApplyTo(OpKind::kDivide, std::move(off),
                                       bounds.span));
  } else {
    const DType compute = IsFloating(dtype) ? dtype : DType::kF64;
    TXLA_ASSIGN_OR_RETURN(Value v, MakeConvert(std::move(flat), compute));
    Value lo = bounds.low, hi = bounds.high, span = bounds.span;
    if (!lo) {
      TXLA_ASSIGN_OR_RETURN(DataRange range, RangeOf(v));
      TXLA_ASSIGN_OR_RETURN(lo, MakeConvert(std::move(range.low), compute));
      TXLA_ASSIGN_OR_RETURN(hi, MakeConvert(std::move(range.high), compute));
      TXLA_ASSIGN_OR_RETURN(span, Rounded(OpKind::kSubtract, hi, lo,
                                          compute));
      result.bad_range = std::move(range.bad);
    }
    // Eager compares in x's dtype (the bounds rounded to it).
    TXLA_ASSIGN_OR_RETURN(Value lo_c, MakeConvert(lo, compute));
    TXLA_ASSIGN_OR_RETURN(Value hi_c, MakeConvert(std::move(hi), compute));
    TXLA_ASSIGN_OR_RETURN(lo_c, MakeBroadcastTo(std::move(lo_c), {count}));
    TXLA_ASSIGN_OR_RETURN(hi_c, MakeBroadcastTo(std::move(hi_c), {count}));
    TXLA_ASSIGN_OR_RETURN(Value ge, Compare(v, std::move(lo_c), "GE"));
    TXLA_ASSIGN_OR_RETURN(Value le, Compare(v, std::move(hi_c), "LE"));
    TXLA_ASSIGN_OR_RETURN(inside, Apply(OpKind::kAnd, std::move(ge),
                                        std::move(le)));
    TXLA_ASSIGN_OR_RETURN(Value off, Rounded(OpKind::kSubtract, std::move(v),
                                             std::move(lo), compute));
    TXLA_ASSIGN_OR_RETURN(Value n, MakeLiteral(static_cast<double>(bins),
                                               OpMathType(compute), {}));
    TXLA_ASSIGN_OR_RETURN(off, Rounded(OpKind::kMultiply, std::move(off),
                                       std::move(n), compute));
    TXLA_ASSIGN_OR_RETURN(off, Rounded(OpKind::kDivide, std::move(off),
                                       std::move(span), compute));
    TXLA_ASSIGN_OR_RETURN(pos, MakeConvert(std::move(off), DType::kI64));
  }
  // x == high lands in the last bin; elements outside count nowhere.
  TXLA_ASSIGN_OR_RETURN(Value zero, MakeLiteral(0, DType::kI64, {count}));
  TXLA_ASSIGN_OR_RETURN(Value last, MakeLiteral(static_cast<double>(bins - 1),
                                                DType::kI64, {count}));
  TXLA_ASSIGN_OR_RETURN(pos, Apply(OpKind::kMaximum, std::move(pos), zero));
  TXLA_ASSIGN_OR_RETURN(pos, Apply(OpKind::kMinimum, std::move(pos),
                                   std::move(last)));
  TXLA_ASSIGN_OR_RETURN(pos, Select(inside, std::move(pos), std::move(zero)));
  TXLA_ASSIGN_OR_RETURN(Value ones, MakeConvert(std::move(inside), dtype));
  TXLA_ASSIGN_OR_RETURN(Value counts, MakeLiteral(0, dtype, {bins}));
  TXLA_ASSIGN_OR_RETURN(result.counts,
                        AdvancedIndexPut(std::move(counts), {std::move(pos)},
                                         std::move(ones), true));
  return result;
}

}  // namespace torch_xla::ops
