#include "torch_xla/csrc/ops/loss_ops.h"

#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "torch_xla/csrc/ir/status_macros.h"
#include "torch_xla/csrc/ir/value_builders.h"
#include "torch_xla/csrc/ops/build_util.h"
#include "torch_xla/csrc/ops/opmath.h"

namespace torch_xla::ops {
namespace {

// The loss (acc-typed) summed, or averaged over its element count.
absl::StatusOr<Value> ReduceLoss(Value loss, Reduction reduction) {
  if (reduction == Reduction::kNone) return loss;
  int64_t count = 1;
  for (int64_t d : loss.shape().dims) count *= d;
  const std::vector<int64_t> dims = Range(0, loss.shape().dims.size());
  TXLA_ASSIGN_OR_RETURN(Value total,
                        dims.empty() ? absl::StatusOr<Value>(loss)
                                     : MakeReduce(loss, dims, "sum", false));
  if (reduction == Reduction::kSum) return total;
  TXLA_ASSIGN_OR_RETURN(
      Value n, MakeLiteral(static_cast<double>(count), total.shape().dtype, {}));
  return Apply(OpKind::kDivide, std::move(total), std::move(n));
}

// The one-hot class mask of nll_loss (pred, x's shape) and each target's
// weight (acc, target's shape; 0 for ignore_index).
struct NllMask {
  Value onehot;
  Value target_weight;
  int64_t class_dim;
  std::vector<int64_t> rest;  // x's dims the target indexes
};

absl::StatusOr<NllMask> MakeNllMask(const Value& x, Value target, Value weight,
                                    Value ignore_index, DType acc) {
  const std::vector<int64_t>& shape = x.shape().dims;
  const int64_t rank = static_cast<int64_t>(shape.size());
  const int64_t cd = rank == 1 ? 0 : 1;
  std::vector<int64_t> rest, expected;
  for (int64_t d = 0; d < rank; ++d) {
    if (d == cd) continue;
    rest.push_back(d);
    expected.push_back(shape[d]);
  }
  if (rank == 0 || target.shape().dims != expected ||
      (weight && weight.shape().dims != std::vector<int64_t>{shape[cd]})) {
    return absl::InvalidArgumentError(absl::StrCat(
        "nll_loss: expected an input of rank >= 1, a target of shape [",
        absl::StrJoin(expected, ", "), "] and a weight of [C]; got input ",
        x.shape().ToString(), ", target ", target.shape().ToString()));
  }
  TXLA_ASSIGN_OR_RETURN(Value t, MakeConvert(std::move(target), DType::kI64));
  TXLA_ASSIGN_OR_RETURN(Value t_wide, BroadcastInDim(t, shape, rest));
  TXLA_ASSIGN_OR_RETURN(Value classes, Iota(DType::kI64, shape, cd));
  TXLA_ASSIGN_OR_RETURN(Value onehot, Compare(std::move(t_wide),
                                              std::move(classes), "EQ"));
  Value w;
  if (weight) {
    TXLA_ASSIGN_OR_RETURN(Value w_acc, MakeConvert(std::move(weight), acc));
    TXLA_ASSIGN_OR_RETURN(w, BroadcastInDim(std::move(w_acc), shape, {cd}));
  } else {
    TXLA_ASSIGN_OR_RETURN(w, MakeLiteral(1, acc, shape));
  }
  TXLA_ASSIGN_OR_RETURN(Value zeros, MakeLiteral(0, acc, shape));
  TXLA_ASSIGN_OR_RETURN(Value picked, Select(onehot, std::move(w),
                                             std::move(zeros)));
  TXLA_ASSIGN_OR_RETURN(Value w_t, MakeReduce(std::move(picked), {cd}, "sum",
                                              /*keep_dims=*/false));
  TXLA_ASSIGN_OR_RETURN(Value ignore, MakeBroadcastTo(std::move(ignore_index),
                                                      t.shape().dims));
  TXLA_ASSIGN_OR_RETURN(Value ignored, Compare(t, std::move(ignore), "EQ"));
  TXLA_ASSIGN_OR_RETURN(Value none, MakeLiteral(0, acc, w_t.shape().dims));
  TXLA_ASSIGN_OR_RETURN(w_t, Select(std::move(ignored), std::move(none),
                                    std::move(w_t)));
  return NllMask{std::move(onehot), std::move(w_t), cd, std::move(rest)};
}

// The present (non-null) operands in `acc`, broadcast to one shape; null
// ones stay null.
absl::StatusOr<std::vector<Value>> AccOperands(std::vector<Value> values,
                                               DType acc) {
  std::vector<const Shape*> shapes;
  for (const Value& v : values) {
    if (v) shapes.push_back(&v.shape());
  }
  TXLA_ASSIGN_OR_RETURN(std::vector<int64_t> dims, InferBroadcastDims(shapes));
  for (Value& v : values) {
    if (!v) continue;
    TXLA_ASSIGN_OR_RETURN(v, MakeConvert(std::move(v), acc));
    TXLA_ASSIGN_OR_RETURN(v, MakeBroadcastTo(std::move(v), dims));
  }
  return values;
}

// (x - target, |x - target|) in acc, broadcast.
absl::StatusOr<std::pair<Value, Value>> Diff(Value x, Value target,
                                             DType acc) {
  TXLA_ASSIGN_OR_RETURN(std::vector<Value> v,
                        AccOperands({std::move(x), std::move(target)}, acc));
  TXLA_ASSIGN_OR_RETURN(Value d, Apply(OpKind::kSubtract, std::move(v[0]),
                                       std::move(v[1])));
  TXLA_ASSIGN_OR_RETURN(Value a, Apply(OpKind::kAbs, d));
  return std::make_pair(std::move(d), std::move(a));
}

// A literal of like's dtype and shape.
absl::StatusOr<Value> Like(double value, const Value& like) {
  return MakeLiteral(value, like.shape().dtype, like.shape().dims);
}

// The upstream gradient (acc) broadcast to `like`, divided by like's
// element count for kMean.
absl::StatusOr<Value> GradScale(Value grad, Reduction reduction,
                                const Value& like) {
  TXLA_ASSIGN_OR_RETURN(Value g, MakeConvert(std::move(grad),
                                             like.shape().dtype));
  TXLA_ASSIGN_OR_RETURN(g, MakeBroadcastTo(std::move(g), like.shape().dims));
  if (reduction != Reduction::kMean) return g;
  int64_t count = 1;
  for (int64_t d : like.shape().dims) count *= d;
  TXLA_ASSIGN_OR_RETURN(Value n, MakeLiteral(static_cast<double>(count),
                                             like.shape().dtype,
                                             like.shape().dims));
  return Apply(OpKind::kDivide, std::move(g), std::move(n));
}

}  // namespace

absl::StatusOr<Reduction> ReductionFromCode(int64_t code) {
  if (code < 0 || code > 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        "reduction must be 0 (none), 1 (mean) or 2 (sum), got ", code));
  }
  return static_cast<Reduction>(code);
}

absl::StatusOr<NllLossResult> NllLoss(Value x, Value target, Value weight,
                                      Reduction reduction,
                                      Value ignore_index) {
  const DType dtype = x.shape().dtype;
  const DType acc = OpMathType(dtype);
  TXLA_ASSIGN_OR_RETURN(NllMask mask,
                        MakeNllMask(x, std::move(target), std::move(weight),
                                    std::move(ignore_index), acc));
  TXLA_ASSIGN_OR_RETURN(Value v, MakeConvert(std::move(x), acc));
  TXLA_ASSIGN_OR_RETURN(Value zeros, MakeLiteral(0, acc, v.shape().dims));
  TXLA_ASSIGN_OR_RETURN(Value chosen, Select(mask.onehot, std::move(v),
                                             std::move(zeros)));
  TXLA_ASSIGN_OR_RETURN(Value picked, MakeReduce(std::move(chosen),
                                                 {mask.class_dim}, "sum",
                                                 false));
  TXLA_ASSIGN_OR_RETURN(Value weighted, Apply(OpKind::kMultiply,
                                              std::move(picked),
                                              mask.target_weight));
  TXLA_ASSIGN_OR_RETURN(Value loss, Apply(OpKind::kNegate,
                                          std::move(weighted)));
  if (reduction == Reduction::kNone) {
    TXLA_ASSIGN_OR_RETURN(Value out, MakeConvert(std::move(loss), dtype));
    TXLA_ASSIGN_OR_RETURN(Value zero, MakeLiteral(0, dtype, {}));
    return NllLossResult{std::move(out), std::move(zero)};
  }
  const std::vector<int64_t> dims = Range(0, loss.shape().dims.size());
  Value total = std::move(loss), total_weight = std::move(mask.target_weight);
  if (!dims.empty()) {
    TXLA_ASSIGN_OR_RETURN(total, MakeReduce(std::move(total), dims, "sum",
                                            false));
    TXLA_ASSIGN_OR_RETURN(total_weight, MakeReduce(std::move(total_weight),
                                                   dims, "sum", false));
  }
  if (reduction == Reduction::kMean) {
    TXLA_ASSIGN_OR_RETURN(total, Apply(OpKind::kDivide, std::move(total),
                                       total_weight));
  }
  TXLA_ASSIGN_OR_RETURN(Value out, MakeConvert(std::move(total), dtype));
  TXLA_ASSIGN_OR_RETURN(Value tw, MakeConvert(std::move(total_weight), dtype));
  return NllLossResult{std::move(out), std::move(tw)};
}

absl::StatusOr<Value> NllLossBackward(Value grad, Value x, Value target,
                                      Value weight, Reduction reduction,
                                      Value ignore_index, Value total_weight) {
  const DType dtype = x.shape().dtype;
  const DType acc = OpMathType(dtype);
  TXLA_ASSIGN_OR_RETURN(NllMask mask,
                        MakeNllMask(x, std::move(target), std::move(weight),
                                    std::move(ignore_index), acc));
  const std::vector<int64_t>& w_dims = mask.target_weight.shape().dims;
  TXLA_ASSIGN_OR_RETURN(Value g, MakeConvert(std::move(grad), acc));
  TXLA_ASSIGN_OR_RETURN(g, MakeBroadcastTo(std::move(g), w_dims));
  if (reduction == Reduction::kMean) {
    TXLA_ASSIGN_OR_RETURN(Value tw, MakeConvert(std::move(total_weight), acc));
    TXLA_ASSIGN_OR_RETURN(tw, MakeBroadcastTo(std::move(tw), w_dims));
    TXLA_ASSIGN_OR_RETURN(g, Apply(OpKind::kDivide, std::move(g),
                                   std::move(tw)));
  }
  TXLA_ASSIGN_OR_RETURN(Value wg, Apply(OpKind::kMultiply,
                                        std::move(mask.target_weight),
                                        std::move(g)));
  TXLA_ASSIGN_OR_RETURN(Value coef, Apply(OpKind::kNegate, std::move(wg)));
  const std::vector<int64_t>& shape = x.shape().dims;
  TXLA_ASSIGN_OR_RETURN(Value wide, BroadcastInDim(std::move(coef), shape,
                                                   mask.rest));
  TXLA_ASSIGN_OR_RETURN(Value zeros, MakeLiteral(0, acc, shape));
  TXLA_ASSIGN_OR_RETURN(Value out, Select(std::move(mask.onehot),
                                          std::move(wide), std::move(zeros)));
  return MakeConvert(std::move(out), dtype);
}

absl::StatusOr<Value> MseLoss(Value x, Value target, Reduction reduction) {
  const DType dtype = x.shape().dtype;
  TXLA_ASSIGN_OR_RETURN(auto da, Diff(std::move(x), std::move(target),
                                      OpMathType(dtype)));
  Value d = std::move(da.first);
  TXLA_ASSIGN_OR_RETURN(Value sq, Apply(OpKind::kMultiply, d, d));
  TXLA_ASSIGN_OR_RETURN(Value loss, ReduceLoss(std::move(sq), reduction));
  return MakeConvert(std::move(loss), dtype);
}

absl::StatusOr<Value> MseLossBackward(Value grad, Value x, Value target,
                                      Reduction reduction) {
  const DType dtype = x.shape().dtype;
  TXLA_ASSIGN_OR_RETURN(auto da, Diff(std::move(x), std::move(target),
                                      OpMathType(dtype)));
  Value d = std::move(da.first);
  TXLA_ASSIGN_OR_RETURN(Value two, MakeLiteral(2, d.shape().dtype,
                                               d.shape().dims));
  TXLA_ASSIGN_OR_RETURN(Value two_d, Apply(OpKind::kMultiply, std::move(two),
                                           d));
  TXLA_ASSIGN_OR_RETURN(Value g, GradScale(std::move(grad), reduction, d));
  TXLA_ASSIGN_OR_RETURN(Value out, Apply(OpKind::kMultiply, std::move(two_d),
                                         std::move(g)));
  return MakeConvert(std::move(out), dtype);
}

namespace {

// The loss (acc) reduced and rounded to `dtype`.
absl::StatusOr<Value> Finish(Value loss, Reduction reduction, DType dtype) {
  TXLA_ASSIGN_OR_RETURN(Value out, ReduceLoss(std::move(loss), reduction));
  return MakeConvert(std::move(out), dtype);
}

// grad_of_loss * the upstream gradient, rounded to `dtype`.
absl::StatusOr<Value> FinishGrad(Value local, Value grad, Reduction reduction,
                                 DType dtype) {
  TXLA_ASSIGN_OR_RETURN(Value g, GradScale(std::move(grad), reduction, local));
  TXLA_ASSIGN_OR_RETURN(Value out, Apply(OpKind::kMultiply, std::move(local),
                                         std::move(g)));
  return MakeConvert(std::move(out), dtype);
}

}  // namespace

absl::StatusOr<Value> SmoothL1Loss(Value x, Value target, Reduction reduction,
                                   Value beta) {
  const DType dtype = x.shape().dtype;
  TXLA_ASSIGN_OR_RETURN(auto da, Diff(std::move(x), std::move(target),
                                      OpMathType(dtype)));
  Value a = std::move(da.second);
  if (!beta) return Finish(std::move(a), reduction, dtype);
  TXLA_ASSIGN_OR_RETURN(Value b, MakeBroadcastTo(std::move(beta),
                                                 a.shape().dims));
  TXLA_ASSIGN_OR_RETURN(Value half, Like(0.5, a));
  TXLA_ASSIGN_OR_RETURN(Value sq, Apply(OpKind::kMultiply, a, a));
  TXLA_ASSIGN_OR_RETURN(Value half_sq, Apply(OpKind::kMultiply, half, sq));
  TXLA_ASSIGN_OR_RETURN(Value quadratic, Apply(OpKind::kDivide,
                                               std::move(half_sq), b));
  TXLA_ASSIGN_OR_RETURN(Value half_b, Apply(OpKind::kMultiply, half, b));
  TXLA_ASSIGN_OR_RETURN(Value linear, Apply(OpKind::kSubtract, a,
                                            std::move(half_b)));
  TXLA_ASSIGN_OR_RETURN(Value small, Compare(a, b, "LT"));
  TXLA_ASSIGN_OR_RETURN(Value loss, Select(std::move(small),
                                           std::move(quadratic),
                                           std::move(linear)));
  return Finish(std::move(loss), reduction, dtype);
}

absl::StatusOr<Value> SmoothL1LossBackward(Value grad, Value x, Value target,
                                           Reduction reduction, Value beta) {
  const DType dtype = x.shape().dtype;
  TXLA_ASSIGN_OR_RETURN(auto da, Diff(std::move(x), std::move(target),
                                      OpMathType(dtype)));
  TXLA_ASSIGN_OR_RETURN(Value local, Apply(OpKind::kSign, da.first));
  if (beta) {
    TXLA_ASSIGN_OR_RETURN(Value b, MakeBroadcastTo(std::move(beta),
                                                   da.first.shape().dims));
    TXLA_ASSIGN_OR_RETURN(Value small, Compare(da.second, b, "LT"));
    TXLA_ASSIGN_OR_RETURN(Value ratio, Apply(OpKind::kDivide, da.first, b));
    TXLA_ASSIGN_OR_RETURN(local, Select(std::move(small), std::move(ratio),
                                        std::move(local)));
  }
  return FinishGrad(std::move(local), std::move(grad), reduction, dtype);
}

absl::StatusOr<Value> HuberLoss(Value x, Value target, Reduction reduction,
                                Value delta) {
  const DType dtype = x.shape().dtype;
  TXLA_ASSIGN_OR_RETURN(auto da, Diff(std::move(x), std::move(target),
                                      OpMathType(dtype)));
  const Value& a = da.second;
  TXLA_ASSIGN_OR_RETURN(Value b, MakeBroadcastTo(std::move(delta),
                                                 a.shape().dims));
  TXLA_ASSIGN_OR_RETURN(Value half, Like(0.5, a));
  TXLA_ASSIGN_OR_RETURN(Value sq, Apply(OpKind::kMultiply, a, a));
  TXLA_ASSIGN_OR_RETURN(Value quadratic, Apply(OpKind::kMultiply, half, sq));
  TXLA_ASSIGN_OR_RETURN(Value half_b, Apply(OpKind::kMultiply, half, b));
  TXLA_ASSIGN_OR_RETURN(Value excess, Apply(OpKind::kSubtract, a,
                                            std::move(half_b)));
  TXLA_ASSIGN_OR_RETURN(Value linear, Apply(OpKind::kMultiply, b,
                                            std::move(excess)));
  TXLA_ASSIGN_OR_RETURN(Value small, Compare(a, b, "LT"));
  TXLA_ASSIGN_OR_RETURN(Value loss, Select(std::move(small),
                                           std::move(quadratic),
                                           std::move(linear)));
  return Finish(std::move(loss), reduction, dtype);
}

absl::StatusOr<Value> HuberLossBackward(Value grad, Value x, Value target,
                                        Reduction reduction, Value delta) {
  const DType dtype = x.shape().dtype;
  TXLA_ASSIGN_OR_RETURN(auto da, Diff(std::move(x), std::move(target),
                                      OpMathType(dtype)));
  TXLA_ASSIGN_OR_RETURN(Value b, MakeBroadcastTo(std::move(delta),
                                                 da.first.shape().dims));
  TXLA_ASSIGN_OR_RETURN(Value sign, Apply(OpKind::kSign, da.first));
  TXLA_ASSIGN_OR_RETURN(Value clipped, Apply(OpKind::kMultiply, b,
                                             std::move(sign)));
  TXLA_ASSIGN_OR_RETURN(Value small, Compare(da.second, b, "LT"));
  TXLA_ASSIGN_OR_RETURN(Value local, Select(std::move(small), da.first,
                                            std::move(clipped)));
  return FinishGrad(std::move(local), std::move(grad), reduction, dtype);
}

namespace {

constexpr double kBceLogFloor = -100.0;  // eager clamps log(p) at -100
constexpr double kBceEpsilon = 1e-12;    // eager's floor for p (1 - p)

// max(log(v), -100).
absl::StatusOr<Value> ClampedLog(Value v) {
  TXLA_ASSIGN_OR_RETURN(Value floor, Like(kBceLogFloor, v));
  TXLA_ASSIGN_OR_RETURN(Value log, Apply(OpKind::kLog, std::move(v)));
  return Apply(OpKind::kMaximum, std::move(log), std::move(floor));
}

}  // namespace

absl::StatusOr<Value> BinaryCrossEntropy(Value x, Value target, Value weight,
                                         Reduction reduction) {
  const DType dtype = x.shape().dtype;
  TXLA_ASSIGN_OR_RETURN(
      std::vector<Value> v,
      AccOperands({std::move(x), std::move(target), std::move(weight)},
                  OpMathType(dtype)));
  TXLA_ASSIGN_OR_RETURN(Value one, Like(1, v[0]));
  TXLA_ASSIGN_OR_RETURN(Value log_p, ClampedLog(v[0]));
  TXLA_ASSIGN_OR_RETURN(Value q, Apply(OpKind::kSubtract, one, v[0]));
  TXLA_ASSIGN_OR_RETURN(Value log_q, ClampedLog(std::move(q)));
  TXLA_ASSIGN_OR_RETURN(Value a, Apply(OpKind::kMultiply, v[1],
                                       std::move(log_p)));
  TXLA_ASSIGN_OR_RETURN(Value t_q, Apply(OpKind::kSubtract, one, v[1]));
  TXLA_ASSIGN_OR_RETURN(Value b, Apply(OpKind::kMultiply, std::move(t_q),
                                       std::move(log_q)));
  TXLA_ASSIGN_OR_RETURN(Value sum, Apply(OpKind::kAdd, std::move(a),
                                         std::move(b)));
  TXLA_ASSIGN_OR_RETURN(Value loss, Apply(OpKind::kNegate, std::move(sum)));
  if (v[2]) {
    TXLA_ASSIGN_OR_RETURN(loss, Apply(OpKind::kMultiply, std::move(loss),
                                      v[2]));
  }
  return Finish(std::move(loss), reduction, dtype);
}

absl::StatusOr<Value> BinaryCrossEntropyBackward(Value grad, Value x,
                                                 Value target, Value weight,
                                                 Reduction reduction) {
  const DType dtype = x.shape().dtype;
  TXLA_ASSIGN_OR_RETURN(
      std::vector<Value> v,
      AccOperands({std::move(x), std::move(target), std::move(weight)},
                  OpMathType(dtype)));
  TXLA_ASSIGN_OR_RETURN(Value one, Like(1, v[0]));
  TXLA_ASSIGN_OR_RETURN(Value q, Apply(OpKind::kSubtract, one, v[0]));
  TXLA_ASSIGN_OR_RETURN(Value pq, Apply(OpKind::kMultiply, std::move(q), v[0]));
  TXLA_ASSIGN_OR_RETURN(Value eps, Like(kBceEpsilon, v[0]));
  TXLA_ASSIGN_OR_RETURN(Value denominator, Apply(OpKind::kMaximum,
                                                 std::move(pq),
                                                 std::move(eps)));
  TXLA_ASSIGN_OR_RETURN(Value d, Apply(OpKind::kSubtract, v[0], v[1]));
  TXLA_ASSIGN_OR_RETURN(Value local, Apply(OpKind::kDivide, std::move(d),
                                           std::move(denominator)));
  if (v[2]) {
    TXLA_ASSIGN_OR_RETURN(local, Apply(OpKind::kMultiply, std::move(local),
                                       v[2]));
  }
  return FinishGrad(std::move(local), std::move(grad), reduction, dtype);
}

absl::StatusOr<Value> BinaryCrossEntropyWithLogits(Value x, Value target,
                                                   Value weight,
                                                   Value pos_weight,
                                                   Reduction reduction) {
  const DType dtype = x.shape().dtype;
  TXLA_ASSIGN_OR_RETURN(
      std::vector<Value> v,
      AccOperands({std::move(x), std::move(target), std::move(weight),
                   std::move(pos_weight)},
                  OpMathType(dtype)));
  const Value& z = v[0];
  const Value& t = v[1];
  TXLA_ASSIGN_OR_RETURN(Value one, Like(1, z));
  TXLA_ASSIGN_OR_RETURN(Value zero, Like(0, z));
  // log_sigmoid(z) = min(z, 0) - log1p(exp(-|z|)).
  TXLA_ASSIGN_OR_RETURN(Value low, Apply(OpKind::kMinimum, z, zero));
  TXLA_ASSIGN_OR_RETURN(Value abs, Apply(OpKind::kAbs, z));
  TXLA_ASSIGN_OR_RETURN(Value neg, Apply(OpKind::kNegate, std::move(abs)));
  TXLA_ASSIGN_OR_RETURN(Value e, Apply(OpKind::kExponential, std::move(neg)));
  TXLA_ASSIGN_OR_RETURN(Value l1p, Apply(OpKind::kLogPlusOne, std::move(e)));
  TXLA_ASSIGN_OR_RETURN(Value log_sig, Apply(OpKind::kSubtract, std::move(low),
                                             std::move(l1p)));
  if (v[3]) {
    TXLA_ASSIGN_OR_RETURN(Value pw1, Apply(OpKind::kSubtract, v[3], one));
    TXLA_ASSIGN_OR_RETURN(Value scaled, Apply(OpKind::kMultiply,
                                              std::move(pw1), t));
    TXLA_ASSIGN_OR_RETURN(Value log_weight, Apply(OpKind::kAdd, one,
                                                  std::move(scaled)));
    TXLA_ASSIGN_OR_RETURN(log_sig, Apply(OpKind::kMultiply,
                                         std::move(log_weight),
                                         std::move(log_sig)));
  }
  TXLA_ASSIGN_OR_RETURN(Value q, Apply(OpKind::kSubtract, one, t));
  TXLA_ASSIGN_OR_RETURN(Value qz, Apply(OpKind::kMultiply, std::move(q), z));
  TXLA_ASSIGN_OR_RETURN(Value loss, Apply(OpKind::kSubtract, std::move(qz),
                                          std::move(log_sig)));
  if (v[2]) {
    TXLA_ASSIGN_OR_RETURN(loss, Apply(OpKind::kMultiply, std::move(loss),
                                      v[2]));
  }
  return Finish(std::move(loss), reduction, dtype);
}

absl::StatusOr<Value> OutsideUnitInterval(Value x) {
  const std::vector<int64_t> dims = x.shape().dims;
  const DType dtype = x.shape().dtype;
  TXLA_ASSIGN_OR_RETURN(Value zero, MakeLiteral(0.0, dtype, dims));
  TXLA_ASSIGN_OR_RETURN(Value one, MakeLiteral(1.0, dtype, dims));
  // x >= 0 and x <= 1 are both false for NaN.
  TXLA_ASSIGN_OR_RETURN(Value at_least, Compare(x, std::move(zero), "GE"));
  TXLA_ASSIGN_OR_RETURN(Value at_most, Compare(x, std::move(one), "LE"));
  TXLA_ASSIGN_OR_RETURN(Value inside, Apply(OpKind::kAnd, std::move(at_least),
                                            std::move(at_most)));
  TXLA_ASSIGN_OR_RETURN(Value outside, Apply(OpKind::kNot, std::move(inside)));
  if (dims.empty()) return outside;
  return MakeReduce(std::move(outside), Range(0, dims.size()), "or", false);
}

}  // namespace torch_xla::ops
