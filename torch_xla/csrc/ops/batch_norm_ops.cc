#include "torch_xla/csrc/ops/batch_norm_ops.h"

#include <cmath>
#include <limits>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "torch_xla/csrc/ir/status_macros.h"
#include "torch_xla/csrc/ir/value_builders.h"
#include "torch_xla/csrc/ops/build_util.h"
#include "torch_xla/csrc/ops/opmath.h"

namespace torch_xla::ops {
namespace {

// Every dim but the channel dim 1.
absl::StatusOr<std::vector<int64_t>> ReduceDims(const Value& x) {
  const int64_t rank = static_cast<int64_t>(x.shape().dims.size());
  if (rank < 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        "batch_norm: expected an input with at least 2 dims (N, C, ...), "
        "got ", x.shape().ToString()));
  }
  std::vector<int64_t> dims{0};
  for (int64_t d = 2; d < rank; ++d) dims.push_back(d);
  return dims;
}

// A per-channel [C] value in `dtype`, laid along dim 1 of `shape`; null
// stays null.
absl::StatusOr<Value> Channel(Value p, DType dtype,
                              const std::vector<int64_t>& shape) {
  if (!p) return p;
  TXLA_ASSIGN_OR_RETURN(Value v, MakeConvert(std::move(p), dtype));
  return BroadcastInDim(std::move(v), shape, {1});
}

// rsqrt(var + eps), var [C] in acc.
absl::StatusOr<Value> InvStd(Value var, Value eps) {
  TXLA_ASSIGN_OR_RETURN(Value shifted,
                        ApplyTo(OpKind::kAdd, std::move(var), std::move(eps)));
  return Apply(OpKind::kRsqrt, std::move(shifted));
}

// keep * old + momentum * value, in old's dtype.
absl::StatusOr<Value> Running(Value old, const Value& value,
                              const Value& momentum, const Value& keep) {
  const DType dtype = old.shape().dtype;
  const std::vector<int64_t>& dims = value.shape().dims;
  TXLA_ASSIGN_OR_RETURN(Value m, MakeBroadcastTo(momentum, dims));
  TXLA_ASSIGN_OR_RETURN(Value k, MakeBroadcastTo(keep, dims));
  TXLA_ASSIGN_OR_RETURN(Value o, MakeConvert(std::move(old),
                                             value.shape().dtype));
  TXLA_ASSIGN_OR_RETURN(Value kept, Apply(OpKind::kMultiply, std::move(k),
                                          std::move(o)));
  TXLA_ASSIGN_OR_RETURN(Value moved, Apply(OpKind::kMultiply, std::move(m),
                                           value));
  TXLA_ASSIGN_OR_RETURN(Value sum, Apply(OpKind::kAdd, std::move(kept),
                                         std::move(moved)));
  return MakeConvert(std::move(sum), dtype);
}

}  // namespace

absl::StatusOr<BatchNormResult> BatchNorm(Value x, Value weight, Value bias,
                                          Value running_mean,
                                          Value running_var, bool training,
                                          Value momentum, Value keep,
                                          Value eps, DType stats_dtype) {
  TXLA_ASSIGN_OR_RETURN(std::vector<int64_t> reduce_dims, ReduceDims(x));
  const DType dtype = x.shape().dtype;
  const DType acc = OpMathType(dtype);
  const std::vector<int64_t> shape = x.shape().dims;
  TXLA_ASSIGN_OR_RETURN(Value v, MakeConvert(std::move(x), acc));
  BatchNormResult r;
  Value mean, invstd;
  if (training) {
    int64_t count = 1;
    for (int64_t d : reduce_dims) count *= shape[d];
    TXLA_ASSIGN_OR_RETURN(Value n, MakeLiteral(static_cast<double>(count), acc,
                                               {shape[1]}));
    TXLA_ASSIGN_OR_RETURN(Value total, MakeReduce(v, reduce_dims, "sum",
                                                  false));
    TXLA_ASSIGN_OR_RETURN(mean, Apply(OpKind::kDivide, std::move(total), n));
    TXLA_ASSIGN_OR_RETURN(Value wide, BroadcastInDim(mean, shape, {1}));
    TXLA_ASSIGN_OR_RETURN(Value centered, Apply(OpKind::kSubtract, v,
                                                std::move(wide)));
    TXLA_ASSIGN_OR_RETURN(Value sq, Apply(OpKind::kMultiply, centered,
                                          centered));
    TXLA_ASSIGN_OR_RETURN(Value sq_total, MakeReduce(std::move(sq),
                                                     reduce_dims, "sum",
                                                     false));
    TXLA_ASSIGN_OR_RETURN(Value var, Apply(OpKind::kDivide,
                                           std::move(sq_total), n));
    TXLA_ASSIGN_OR_RETURN(invstd, InvStd(var, std::move(eps)));
    if (running_mean) {
      TXLA_ASSIGN_OR_RETURN(r.new_mean, Running(std::move(running_mean), mean,
                                                momentum, keep));
    }
    if (running_var) {
      const double unbias = count > 1 ? static_cast<double>(count) /
                                            static_cast<double>(count - 1)
                                      : std::numeric_limits<double>::infinity();
      TXLA_ASSIGN_OR_RETURN(Value factor,
                            MakeLiteral(unbias, acc, var.shape().dims));
      TXLA_ASSIGN_OR_RETURN(Value unbiased, Apply(OpKind::kMultiply, var,
                                                  std::move(factor)));
      TXLA_ASSIGN_OR_RETURN(r.new_var, Running(std::move(running_var),
                                               unbiased, momentum, keep));
    }
    TXLA_ASSIGN_OR_RETURN(r.save_mean, MakeConvert(mean, stats_dtype));
    TXLA_ASSIGN_OR_RETURN(r.save_invstd, MakeConvert(invstd, stats_dtype));
  } else {
    if (!running_mean || !running_var) {
      return absl::InvalidArgumentError(
          "batch_norm: running_mean and running_var must be defined in "
          "evaluation mode");
    }
    TXLA_ASSIGN_OR_RETURN(mean, MakeConvert(std::move(running_mean), acc));
    TXLA_ASSIGN_OR_RETURN(Value var, MakeConvert(std::move(running_var), acc));
    TXLA_ASSIGN_OR_RETURN(invstd, InvStd(std::move(var), std::move(eps)));
    // Eager returns empty statistics in evaluation mode.
    TXLA_ASSIGN_OR_RETURN(r.save_mean, MakeLiteral(0, stats_dtype, {0}));
    TXLA_ASSIGN_OR_RETURN(r.save_invstd, MakeLiteral(0, stats_dtype, {0}));
  }
  TXLA_ASSIGN_OR_RETURN(Value mean_wide, BroadcastInDim(mean, shape, {1}));
  TXLA_ASSIGN_OR_RETURN(Value centered, Apply(OpKind::kSubtract, std::move(v),
                                              std::move(mean_wide)));
  TXLA_ASSIGN_OR_RETURN(Value invstd_wide, BroadcastInDim(invstd, shape, {1}));
  TXLA_ASSIGN_OR_RETURN(Value out, Apply(OpKind::kMultiply, std::move(centered),
                                         std::move(invstd_wide)));
  TXLA_ASSIGN_OR_RETURN(Value w, Channel(std::move(weight), acc, shape));
  TXLA_ASSIGN_OR_RETURN(Value b, Channel(std::move(bias), acc, shape));
  if (w) {
    TXLA_ASSIGN_OR_RETURN(out, Apply(OpKind::kMultiply, out, w));
  }
  if (b) {
    TXLA_ASSIGN_OR_RETURN(out, Apply(OpKind::kAdd, out, b));
  }
  TXLA_ASSIGN_OR_RETURN(r.out, MakeConvert(std::move(out), dtype));
  return r;
}

absl::StatusOr<std::array<Value, 3>> BatchNormBackward(
    Value grad, Value x, Value weight, Value running_mean, Value running_var,
    Value save_mean, Value save_invstd, bool training, Value eps,
    std::array<bool, 3> output_mask) {
  TXLA_ASSIGN_OR_RETURN(std::vector<int64_t> reduce_dims, ReduceDims(x));
  const DType dtype = x.shape().dtype;
  const DType acc = OpMathType(dtype);
  const DType param_dtype = weight ? weight.shape().dtype : dtype;
  const std::vector<int64_t> shape = x.shape().dims;
  TXLA_ASSIGN_OR_RETURN(Value v, MakeConvert(std::move(x), acc));
  TXLA_ASSIGN_OR_RETURN(Value g, MakeConvert(std::move(grad), acc));
  Value mean, invstd;
  if (training) {
    TXLA_ASSIGN_OR_RETURN(mean, MakeConvert(std::move(save_mean), acc));
    TXLA_ASSIGN_OR_RETURN(invstd, MakeConvert(std::move(save_invstd), acc));
  } else {
    if (!running_mean || !running_var) {
      return absl::InvalidArgumentError(
          "batch_norm_backward: running_mean and running_var must be "
          "defined in evaluation mode");
    }
    TXLA_ASSIGN_OR_RETURN(mean, MakeConvert(std::move(running_mean), acc));
    TXLA_ASSIGN_OR_RETURN(Value var, MakeConvert(std::move(running_var), acc));
    TXLA_ASSIGN_OR_RETURN(invstd, InvStd(std::move(var), std::move(eps)));
  }
  TXLA_ASSIGN_OR_RETURN(Value invstd_wide,
                        BroadcastInDim(std::move(invstd), shape, {1}));
  TXLA_ASSIGN_OR_RETURN(Value mean_wide,
                        BroadcastInDim(std::move(mean), shape, {1}));
  TXLA_ASSIGN_OR_RETURN(Value centered, Apply(OpKind::kSubtract, std::move(v),
                                              std::move(mean_wide)));
  TXLA_ASSIGN_OR_RETURN(Value x_hat, Apply(OpKind::kMultiply,
                                           std::move(centered), invstd_wide));
  std::array<Value, 3> result;
  if (output_mask[0]) {
    TXLA_ASSIGN_OR_RETURN(Value w, Channel(weight, acc, shape));
    Value gx = g;
    if (w) {
      TXLA_ASSIGN_OR_RETURN(gx, Apply(OpKind::kMultiply, g, w));
    }
    Value gi;
    if (training) {
      // invstd * (gx - mean(gx) - x_hat * mean(gx * x_hat)) per channel.
      TXLA_ASSIGN_OR_RETURN(Value mean_g, MeanKept(gx, reduce_dims));
      TXLA_ASSIGN_OR_RETURN(Value gx_hat, Apply(OpKind::kMultiply, gx, x_hat));
      TXLA_ASSIGN_OR_RETURN(Value mean_gx, MeanKept(std::move(gx_hat),
                                                    reduce_dims));
      TXLA_ASSIGN_OR_RETURN(Value a, ApplyTo(OpKind::kSubtract, std::move(gx),
                                             std::move(mean_g)));
      TXLA_ASSIGN_OR_RETURN(Value b, ApplyTo(OpKind::kMultiply, x_hat,
                                             std::move(mean_gx)));
      TXLA_ASSIGN_OR_RETURN(Value inner, Apply(OpKind::kSubtract, std::move(a),
                                               std::move(b)));
      TXLA_ASSIGN_OR_RETURN(gi, Apply(OpKind::kMultiply, std::move(inner),
                                      invstd_wide));
    } else {
      TXLA_ASSIGN_OR_RETURN(gi, Apply(OpKind::kMultiply, std::move(gx),
                                      invstd_wide));
    }
    TXLA_ASSIGN_OR_RETURN(result[0], MakeConvert(std::move(gi), dtype));
  }
  if (output_mask[1]) {
    TXLA_ASSIGN_OR_RETURN(Value gw, Apply(OpKind::kMultiply, g, x_hat));
    TXLA_ASSIGN_OR_RETURN(gw, MakeReduce(std::move(gw), reduce_dims, "sum",
                                         false));
    TXLA_ASSIGN_OR_RETURN(result[1], MakeConvert(std::move(gw), param_dtype));
  }
  if (output_mask[2]) {
    TXLA_ASSIGN_OR_RETURN(Value gb, MakeReduce(g, reduce_dims, "sum", false));
    TXLA_ASSIGN_OR_RETURN(result[2], MakeConvert(std::move(gb), param_dtype));
  }
  return result;
}

}  // namespace torch_xla::ops
