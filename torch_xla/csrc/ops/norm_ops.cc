#include "torch_xla/csrc/ops/norm_ops.h"

#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "torch_xla/csrc/ir/status_macros.h"
#include "torch_xla/csrc/ir/value_builders.h"
#include "torch_xla/csrc/ops/build_util.h"
#include "torch_xla/csrc/ops/opmath.h"

namespace torch_xla::ops {
namespace {

absl::Status CheckAxis(const Value& x, int64_t axis) {
  const int64_t rank = static_cast<int64_t>(x.shape().dims.size());
  if (axis < 0 || axis > rank) {
    return absl::InvalidArgumentError(
        absl::StrCat("layer_norm: normalized axis ", axis,
                     " is out of range for input ", x.shape().ToString()));
  }
  return absl::OkStatus();
}

// A per-feature parameter (weight, bias; the trailing dims from `axis`) in
// `dtype`, broadcast to `like`'s shape; a null Value stays null.
absl::StatusOr<Value> Feature(Value p, DType dtype, const Value& like,
                              int64_t axis) {
  if (!p) return p;
  const std::vector<int64_t>& dims = like.shape().dims;
  TXLA_ASSIGN_OR_RETURN(Value v, MakeConvert(std::move(p), dtype));
  return BroadcastInDim(std::move(v), dims, Range(axis, dims.size()));
}

// A per-channel parameter (dim 1 of [N, C, HxW]) in `dtype`, broadcast
// there; a null Value stays null.
absl::StatusOr<Value> PerChannel(Value p, DType dtype,
                                 const std::vector<int64_t>& channels) {
  if (!p) return p;
  TXLA_ASSIGN_OR_RETURN(Value v, MakeConvert(std::move(p), dtype));
  return BroadcastInDim(std::move(v), channels, {1});
}

absl::Status CheckGroups(const Value& x, const GroupDims& g) {
  int64_t count = 1;
  for (int64_t d : x.shape().dims) count *= d;
  if (g.groups <= 0 || g.c % g.groups != 0 || count != g.n * g.c * g.hw) {
    return absl::InvalidArgumentError(absl::StrCat(
        "group_norm: input ", x.shape().ToString(), " is not N=", g.n,
        " x C=", g.c, " x HxW=", g.hw, " in ", g.groups, " groups"));
  }
  return absl::OkStatus();
}

// The gradient of the per-feature `p` (weight or bias): `per_element`
// summed over the batch dims [0, axis), in p's shape and dtype.
absl::StatusOr<Value> FeatureGrad(Value per_element, int64_t axis,
                                  const Value& p) {
  Value total = std::move(per_element);
  if (axis > 0) {
    TXLA_ASSIGN_OR_RETURN(total, MakeReduce(std::move(total), Range(0, axis),
                                            "sum", false));
  }
  TXLA_ASSIGN_OR_RETURN(total, MakeReshape(std::move(total), p.shape().dims));
  return MakeConvert(std::move(total), p.shape().dtype);
}

// rstd * (g - mean(g) - x_hat * mean(g * x_hat)): the gradient through
// (x - mean) * rstd with the statistics over `dims` (rstd kept as size 1
// there).
absl::StatusOr<Value> NormalizedInputGrad(Value g, const Value& x_hat,
                                          const Value& rstd,
                                          const std::vector<int64_t>& dims) {
  TXLA_ASSIGN_OR_RETURN(Value mean_g, MeanKept(g, dims));
  TXLA_ASSIGN_OR_RETURN(Value g_hat, Apply(OpKind::kMultiply, g, x_hat));
  TXLA_ASSIGN_OR_RETURN(Value mean_gx, MeanKept(std::move(g_hat), dims));
  TXLA_ASSIGN_OR_RETURN(Value a, ApplyTo(OpKind::kSubtract, std::move(g),
                                         std::move(mean_g)));
  TXLA_ASSIGN_OR_RETURN(Value b, ApplyTo(OpKind::kMultiply, x_hat,
                                         std::move(mean_gx)));
  TXLA_ASSIGN_OR_RETURN(Value inner, Apply(OpKind::kSubtract, std::move(a),
                                           std::move(b)));
  return ApplyTo(OpKind::kMultiply, std::move(inner), rstd);
}

}  // namespace

absl::StatusOr<std::array<Value, 3>> LayerNorm(Value x, int64_t axis,
                                               Value weight, Value bias,
                                               Value eps) {
  TXLA_RETURN_IF_ERROR(CheckAxis(x, axis));
  const DType dtype = x.shape().dtype;
  const DType acc = OpMathType(dtype);
  const std::vector<int64_t> dims = Range(axis, x.shape().dims.size());
  TXLA_ASSIGN_OR_RETURN(Value v, MakeConvert(std::move(x), acc));
  TXLA_ASSIGN_OR_RETURN(Value mean, MeanKept(v, dims));
  TXLA_ASSIGN_OR_RETURN(Value centered,
                        ApplyTo(OpKind::kSubtract, std::move(v), mean));
  TXLA_ASSIGN_OR_RETURN(Value sq, Apply(OpKind::kMultiply, centered, centered));
  TXLA_ASSIGN_OR_RETURN(Value var, MeanKept(std::move(sq), dims));
  TXLA_ASSIGN_OR_RETURN(Value shifted,
                        ApplyTo(OpKind::kAdd, std::move(var), std::move(eps)));
  TXLA_ASSIGN_OR_RETURN(Value rstd, Apply(OpKind::kRsqrt, std::move(shifted)));
  TXLA_ASSIGN_OR_RETURN(Value out,
                        ApplyTo(OpKind::kMultiply, std::move(centered), rstd));
  TXLA_ASSIGN_OR_RETURN(Value w, Feature(std::move(weight), acc, out, axis));
  TXLA_ASSIGN_OR_RETURN(Value b, Feature(std::move(bias), acc, out, axis));
  if (w) {
    TXLA_ASSIGN_OR_RETURN(out, Apply(OpKind::kMultiply, out, w));
  }
  if (b) {
    TXLA_ASSIGN_OR_RETURN(out, Apply(OpKind::kAdd, out, b));
  }
  std::array<Value, 3> result;
  TXLA_ASSIGN_OR_RETURN(result[0], MakeConvert(std::move(out), dtype));
  TXLA_ASSIGN_OR_RETURN(result[1], MakeConvert(std::move(mean), dtype));
  TXLA_ASSIGN_OR_RETURN(result[2], MakeConvert(std::move(rstd), dtype));
  return result;
}

absl::StatusOr<std::array<Value, 3>> LayerNormBackward(
    Value grad, Value x, int64_t axis, Value mean, Value rstd, Value weight,
    Value bias, std::array<bool, 3> output_mask) {
  TXLA_RETURN_IF_ERROR(CheckAxis(x, axis));
  const DType dtype = x.shape().dtype;
  const DType acc = OpMathType(dtype);
  const std::vector<int64_t> dims = Range(axis, x.shape().dims.size());
  TXLA_ASSIGN_OR_RETURN(Value v, MakeConvert(std::move(x), acc));
  TXLA_ASSIGN_OR_RETURN(Value g, MakeConvert(std::move(grad), acc));
  TXLA_ASSIGN_OR_RETURN(Value mean_acc, MakeConvert(std::move(mean), acc));
  TXLA_ASSIGN_OR_RETURN(Value rstd_acc, MakeConvert(std::move(rstd), acc));
  TXLA_ASSIGN_OR_RETURN(Value centered, ApplyTo(OpKind::kSubtract, v,
                                                std::move(mean_acc)));
  TXLA_ASSIGN_OR_RETURN(Value x_hat, ApplyTo(OpKind::kMultiply,
                                             std::move(centered), rstd_acc));
  std::array<Value, 3> result;
  if (output_mask[0]) {
    TXLA_ASSIGN_OR_RETURN(Value w, Feature(weight, acc, v, axis));
    Value gx = g;
    if (w) {
      TXLA_ASSIGN_OR_RETURN(gx, Apply(OpKind::kMultiply, g, w));
    }
    TXLA_ASSIGN_OR_RETURN(Value gi, NormalizedInputGrad(std::move(gx), x_hat,
                                                        rstd_acc, dims));
    TXLA_ASSIGN_OR_RETURN(result[0], MakeConvert(std::move(gi), dtype));
  }
  if (output_mask[1] && weight) {
    TXLA_ASSIGN_OR_RETURN(Value gw, Apply(OpKind::kMultiply, g, x_hat));
    TXLA_ASSIGN_OR_RETURN(result[1], FeatureGrad(std::move(gw), axis, weight));
  }
  if (output_mask[2] && bias) {
    TXLA_ASSIGN_OR_RETURN(result[2], FeatureGrad(g, axis, bias));
  }
  return result;
}

absl::StatusOr<std::array<Value, 2>> RmsNorm(Value x, int64_t axis,
                                             Value weight, Value eps) {
  TXLA_RETURN_IF_ERROR(CheckAxis(x, axis));
  const DType dtype = x.shape().dtype;
  const DType acc = OpMathType(dtype);
  const std::vector<int64_t> dims = Range(axis, x.shape().dims.size());
  TXLA_ASSIGN_OR_RETURN(Value v, MakeConvert(std::move(x), acc));
  TXLA_ASSIGN_OR_RETURN(Value sq, Apply(OpKind::kMultiply, v, v));
  TXLA_ASSIGN_OR_RETURN(Value mean_sq, MeanKept(std::move(sq), dims));
  TXLA_ASSIGN_OR_RETURN(Value shifted, ApplyTo(OpKind::kAdd,
                                               std::move(mean_sq),
                                               std::move(eps)));
  TXLA_ASSIGN_OR_RETURN(Value rstd, Apply(OpKind::kRsqrt, std::move(shifted)));
  TXLA_ASSIGN_OR_RETURN(Value out,
                        ApplyTo(OpKind::kMultiply, std::move(v), rstd));
  TXLA_ASSIGN_OR_RETURN(Value w, Feature(std::move(weight), acc, out, axis));
  if (w) {
    TXLA_ASSIGN_OR_RETURN(out, Apply(OpKind::kMultiply, out, w));
  }
  std::array<Value, 2> result;
  TXLA_ASSIGN_OR_RETURN(result[0], MakeConvert(std::move(out), dtype));
  TXLA_ASSIGN_OR_RETURN(result[1], MakeConvert(std::move(rstd), dtype));
  return result;
}

absl::StatusOr<std::array<Value, 2>> RmsNormBackward(
    Value grad, Value x, int64_t axis, Value rstd, Value weight,
    std::array<bool, 2> output_mask) {
  TXLA_RETURN_IF_ERROR(CheckAxis(x, axis));
  const DType dtype = x.shape().dtype;
  const DType acc = OpMathType(dtype);
  const std::vector<int64_t> dims = Range(axis, x.shape().dims.size());
  TXLA_ASSIGN_OR_RETURN(Value v, MakeConvert(std::move(x), acc));
  TXLA_ASSIGN_OR_RETURN(Value g, MakeConvert(std::move(grad), acc));
  TXLA_ASSIGN_OR_RETURN(Value rstd_acc, MakeConvert(std::move(rstd), acc));
  TXLA_ASSIGN_OR_RETURN(Value x_hat, ApplyTo(OpKind::kMultiply, v, rstd_acc));
  std::array<Value, 2> result;
  if (output_mask[0]) {
    // rstd * (gx - x_hat * mean(gx * x_hat)), gx = g * weight.
    TXLA_ASSIGN_OR_RETURN(Value w, Feature(weight, acc, v, axis));
    Value gx = g;
    if (w) {
      TXLA_ASSIGN_OR_RETURN(gx, Apply(OpKind::kMultiply, g, w));
    }
    TXLA_ASSIGN_OR_RETURN(Value gx_hat, Apply(OpKind::kMultiply, gx, x_hat));
    TXLA_ASSIGN_OR_RETURN(Value mean_gx, MeanKept(std::move(gx_hat), dims));
    TXLA_ASSIGN_OR_RETURN(Value b, ApplyTo(OpKind::kMultiply, x_hat,
                                           std::move(mean_gx)));
    TXLA_ASSIGN_OR_RETURN(Value inner, Apply(OpKind::kSubtract, std::move(gx),
                                             std::move(b)));
    TXLA_ASSIGN_OR_RETURN(Value gi, ApplyTo(OpKind::kMultiply, std::move(inner),
                                            rstd_acc));
    TXLA_ASSIGN_OR_RETURN(result[0], MakeConvert(std::move(gi), dtype));
  }
  if (output_mask[1] && weight) {
    TXLA_ASSIGN_OR_RETURN(Value gw, Apply(OpKind::kMultiply, g, x_hat));
    TXLA_ASSIGN_OR_RETURN(result[1], FeatureGrad(std::move(gw), axis, weight));
  }
  return result;
}

absl::StatusOr<std::array<Value, 3>> GroupNorm(Value x, Value weight,
                                               Value bias, const GroupDims& g,
                                               Value eps) {
  TXLA_RETURN_IF_ERROR(CheckGroups(x, g));
  const std::vector<int64_t> shape = x.shape().dims;
  const DType dtype = x.shape().dtype;
  const DType acc = OpMathType(dtype);
  const std::vector<int64_t> grouped{g.n, g.groups, g.c / g.groups * g.hw};
  const std::vector<int64_t> channels{g.n, g.c, g.hw};
  TXLA_ASSIGN_OR_RETURN(Value v, MakeConvert(std::move(x), acc));
  TXLA_ASSIGN_OR_RETURN(v, MakeReshape(std::move(v), grouped));
  TXLA_ASSIGN_OR_RETURN(Value mean, MeanKept(v, {2}));
  TXLA_ASSIGN_OR_RETURN(Value centered,
                        ApplyTo(OpKind::kSubtract, std::move(v), mean));
  TXLA_ASSIGN_OR_RETURN(Value sq, Apply(OpKind::kMultiply, centered, centered));
  TXLA_ASSIGN_OR_RETURN(Value var, MeanKept(std::move(sq), {2}));
  TXLA_ASSIGN_OR_RETURN(Value shifted,
                        ApplyTo(OpKind::kAdd, std::move(var), std::move(eps)));
  TXLA_ASSIGN_OR_RETURN(Value rstd, Apply(OpKind::kRsqrt, std::move(shifted)));
  TXLA_ASSIGN_OR_RETURN(Value out,
                        ApplyTo(OpKind::kMultiply, std::move(centered), rstd));
  TXLA_ASSIGN_OR_RETURN(out, MakeReshape(std::move(out), channels));
  TXLA_ASSIGN_OR_RETURN(Value w, PerChannel(std::move(weight), acc, channels));
  TXLA_ASSIGN_OR_RETURN(Value b, PerChannel(std::move(bias), acc, channels));
  if (w) {
    TXLA_ASSIGN_OR_RETURN(out, Apply(OpKind::kMultiply, out, w));
  }
  if (b) {
    TXLA_ASSIGN_OR_RETURN(out, Apply(OpKind::kAdd, out, b));
  }
  TXLA_ASSIGN_OR_RETURN(out, MakeReshape(std::move(out), shape));
  std::array<Value, 3> result;
  TXLA_ASSIGN_OR_RETURN(result[0], MakeConvert(std::move(out), dtype));
  TXLA_ASSIGN_OR_RETURN(mean, MakeReshape(std::move(mean), {g.n, g.groups}));
  TXLA_ASSIGN_OR_RETURN(result[1], MakeConvert(std::move(mean), dtype));
  TXLA_ASSIGN_OR_RETURN(rstd, MakeReshape(std::move(rstd), {g.n, g.groups}));
  TXLA_ASSIGN_OR_RETURN(result[2], MakeConvert(std::move(rstd), dtype));
  return result;
}

absl::StatusOr<std::array<Value, 3>> GroupNormBackward(
    Value grad, Value x, Value mean, Value rstd, Value weight,
    const GroupDims& g, std::array<bool, 3> output_mask) {
  TXLA_RETURN_IF_ERROR(CheckGroups(x, g));
  const std::vector<int64_t> shape = x.shape().dims;
  const DType dtype = x.shape().dtype;
  const DType acc = OpMathType(dtype);
  const std::vector<int64_t> grouped{g.n, g.groups, g.c / g.groups * g.hw};
  const std::vector<int64_t> channels{g.n, g.c, g.hw};
  const std::vector<int64_t> stats{g.n, g.groups, 1};
  TXLA_ASSIGN_OR_RETURN(Value v, MakeConvert(std::move(x), acc));
  TXLA_ASSIGN_OR_RETURN(v, MakeReshape(std::move(v), grouped));
  TXLA_ASSIGN_OR_RETURN(Value gr, MakeConvert(std::move(grad), acc));
  TXLA_ASSIGN_OR_RETURN(gr, MakeReshape(std::move(gr), channels));
  TXLA_ASSIGN_OR_RETURN(Value mean_acc, MakeConvert(std::move(mean), acc));
  TXLA_ASSIGN_OR_RETURN(mean_acc, MakeReshape(std::move(mean_acc), stats));
  TXLA_ASSIGN_OR_RETURN(Value rstd_acc, MakeConvert(std::move(rstd), acc));
  TXLA_ASSIGN_OR_RETURN(rstd_acc, MakeReshape(std::move(rstd_acc), stats));
  TXLA_ASSIGN_OR_RETURN(Value centered, ApplyTo(OpKind::kSubtract,
                                                std::move(v),
                                                std::move(mean_acc)));
  TXLA_ASSIGN_OR_RETURN(Value x_hat, ApplyTo(OpKind::kMultiply,
                                             std::move(centered), rstd_acc));
  std::array<Value, 3> result;
  if (output_mask[0]) {
    TXLA_ASSIGN_OR_RETURN(Value w, PerChannel(weight, acc, channels));
    Value gx = gr;
    if (w) {
      TXLA_ASSIGN_OR_RETURN(gx, Apply(OpKind::kMultiply, gr, w));
    }
    TXLA_ASSIGN_OR_RETURN(gx, MakeReshape(std::move(gx), grouped));
    TXLA_ASSIGN_OR_RETURN(Value gi, NormalizedInputGrad(std::move(gx), x_hat,
                                                        rstd_acc, {2}));
    TXLA_ASSIGN_OR_RETURN(gi, MakeReshape(std::move(gi), shape));
    TXLA_ASSIGN_OR_RETURN(result[0], MakeConvert(std::move(gi), dtype));
  }
  if (output_mask[1]) {
    TXLA_ASSIGN_OR_RETURN(Value xc, MakeReshape(x_hat, channels));
    TXLA_ASSIGN_OR_RETURN(Value gw, Apply(OpKind::kMultiply, gr,
                                          std::move(xc)));
    TXLA_ASSIGN_OR_RETURN(gw, MakeReduce(std::move(gw), {0, 2}, "sum", false));
    TXLA_ASSIGN_OR_RETURN(result[1], MakeConvert(std::move(gw), dtype));
  }
  if (output_mask[2]) {
    TXLA_ASSIGN_OR_RETURN(Value gb, MakeReduce(gr, {0, 2}, "sum", false));
    TXLA_ASSIGN_OR_RETURN(result[2], MakeConvert(std::move(gb), dtype));
  }
  return result;
}

}  // namespace torch_xla::ops
