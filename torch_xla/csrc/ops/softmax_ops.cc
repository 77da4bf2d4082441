#include "torch_xla/csrc/ops/softmax_ops.h"

#include <cmath>
#include <utility>

#include "torch_xla/csrc/ir/builder.h"
#include "torch_xla/csrc/ir/status_macros.h"
#include "torch_xla/csrc/ir/value_builders.h"
#include "torch_xla/csrc/ops/apply.h"
#include "torch_xla/csrc/ops/opmath.h"

namespace torch_xla::ops {
namespace {

// a kind b, with b broadcast to a's shape.
absl::StatusOr<Value> ApplyBroadcast(OpKind kind, Value a, Value b) {
  TXLA_ASSIGN_OR_RETURN(Value wide, MakeBroadcastTo(std::move(b),
                                                    a.shape().dims));
  return Apply(kind, std::move(a), std::move(wide));
}

// Sum over `dims` kept as size 1 (so it broadcasts back); x for no dims.
absl::StatusOr<Value> SumInto(Value x, const std::vector<int64_t>& dims) {
  if (dims.empty()) return x;
  return MakeReduce(std::move(x), dims, "sum", /*keep_dims=*/true);
}

// x - max(x) in the accumulation type of `out`. The plain max reduction,
// not max()'s NaN-propagating one: a NaN in a row reaches the row's sum of
// exponentials, and so every element of the row, either way.
absl::StatusOr<Value> Shifted(Value x, const std::vector<int64_t>& dims,
                              DType out) {
  TXLA_ASSIGN_OR_RETURN(Value v, MakeConvert(std::move(x), OpMathType(out)));
  if (dims.empty()) return Apply(OpKind::kSubtract, v, v);
  TXLA_ASSIGN_OR_RETURN(Value max, MakeReduce(v, dims, "max", true));
  return ApplyBroadcast(OpKind::kSubtract, std::move(v), std::move(max));
}

}  // namespace

absl::StatusOr<Value> Softmax(Value x, const std::vector<int64_t>& dims,
                              DType out) {
  TXLA_ASSIGN_OR_RETURN(Value shifted, Shifted(std::move(x), dims, out));
  TXLA_ASSIGN_OR_RETURN(Value e,
                        Apply(OpKind::kExponential, std::move(shifted)));
  TXLA_ASSIGN_OR_RETURN(Value total, SumInto(e, dims));
  TXLA_ASSIGN_OR_RETURN(
      Value ratio, ApplyBroadcast(OpKind::kDivide, std::move(e), std::move(total)));
  return MakeConvert(std::move(ratio), out);
}

absl::StatusOr<Value> LogSoftmax(Value x, const std::vector<int64_t>& dims,
                                 DType out) {
  TXLA_ASSIGN_OR_RETURN(Value shifted, Shifted(std::move(x), dims, out));
  TXLA_ASSIGN_OR_RETURN(Value e, Apply(OpKind::kExponential, shifted));
  TXLA_ASSIGN_OR_RETURN(Value total, SumInto(std::move(e), dims));
  TXLA_ASSIGN_OR_RETURN(Value log_total,
                        Apply(OpKind::kLog, std::move(total)));
  TXLA_ASSIGN_OR_RETURN(Value result,
                        ApplyBroadcast(OpKind::kSubtract, std::move(shifted),
                                       std::move(log_total)));
  return MakeConvert(std::move(result), out);
}

absl::StatusOr<Value> SafeSoftmax(Value x, const std::vector<int64_t>& dims,
                                  DType out) {
  TXLA_ASSIGN_OR_RETURN(Value v, MakeConvert(std::move(x), out));
  TXLA_ASSIGN_OR_RETURN(Value y, Softmax(v, dims, out));
  const std::vector<int64_t> shape = v.shape().dims;
  TXLA_ASSIGN_OR_RETURN(Value ninf, MakeLiteral(-INFINITY, out, shape));
  TXLA_ASSIGN_OR_RETURN(NodePtr is_ninf, MakeCompare(std::move(v),
                                                     std::move(ninf), "EQ"));
  Value masked(std::move(is_ninf));
  if (!dims.empty()) {
    TXLA_ASSIGN_OR_RETURN(masked, MakeReduce(std::move(masked), dims, "and",
                                             /*keep_dims=*/true));
    TXLA_ASSIGN_OR_RETURN(masked, MakeBroadcastTo(std::move(masked), shape));
  }
  TXLA_ASSIGN_OR_RETURN(Value zeros, MakeLiteral(0, out, shape));
  TXLA_ASSIGN_OR_RETURN(
      NodePtr picked,
      MakeNode(OpKind::kSelect,
               {std::move(masked), std::move(zeros), std::move(y)}));
  return Value(std::move(picked));
}

absl::StatusOr<Value> SoftmaxBackward(Value grad, Value output,
                                      const std::vector<int64_t>& dims,
                                      DType out) {
  const DType acc = OpMathType(out);
  TXLA_ASSIGN_OR_RETURN(Value g, MakeConvert(std::move(grad), acc));
  TXLA_ASSIGN_OR_RETURN(Value y, MakeConvert(std::move(output), acc));
  TXLA_ASSIGN_OR_RETURN(Value gy, Apply(OpKind::kMultiply, g, y));
  TXLA_ASSIGN_OR_RETURN(Value dot, SumInto(std::move(gy), dims));
  TXLA_ASSIGN_OR_RETURN(
      Value centered,
      ApplyBroadcast(OpKind::kSubtract, std::move(g), std::move(dot)));
  TXLA_ASSIGN_OR_RETURN(
      Value result,
      Apply(OpKind::kMultiply, std::move(y), std::move(centered)));
  return MakeConvert(std::move(result), out);
}

absl::StatusOr<Value> LogSoftmaxBackward(Value grad, Value output,
                                         const std::vector<int64_t>& dims,
                                         DType out) {
  const DType acc = OpMathType(out);
  TXLA_ASSIGN_OR_RETURN(Value g, MakeConvert(std::move(grad), acc));
  TXLA_ASSIGN_OR_RETURN(Value y, MakeConvert(std::move(output), acc));
  TXLA_ASSIGN_OR_RETURN(Value total, SumInto(g, dims));
  TXLA_ASSIGN_OR_RETURN(Value e, Apply(OpKind::kExponential, std::move(y)));
  TXLA_ASSIGN_OR_RETURN(
      Value scaled,
      ApplyBroadcast(OpKind::kMultiply, std::move(e), std::move(total)));
  TXLA_ASSIGN_OR_RETURN(
      Value result,
      Apply(OpKind::kSubtract, std::move(g), std::move(scaled)));
  return MakeConvert(std::move(result), out);
}

}  // namespace torch_xla::ops
