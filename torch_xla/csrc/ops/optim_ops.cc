#include "torch_xla/csrc/ops/optim_ops.h"

#include <cmath>
#include <utility>
#include <vector>

#include "torch_xla/csrc/ir/builder.h"
#include "torch_xla/csrc/ir/status_macros.h"
#include "torch_xla/csrc/ir/value_builders.h"
#include "torch_xla/csrc/ops/apply.h"
#include "torch_xla/csrc/ops/opmath.h"

namespace torch_xla::ops {
namespace {

// x converted to `acc`, then broadcast to `dims`.
absl::StatusOr<Value> Operand(Value x, DType acc,
                              const std::vector<int64_t>& dims) {
  TXLA_ASSIGN_OR_RETURN(Value v, MakeConvert(std::move(x), acc));
  return MakeBroadcastTo(std::move(v), dims);
}

}  // namespace

absl::StatusOr<Value> Lerp(Value self, Value end, Value weight,
                           std::optional<double> scalar_weight, DType dtype) {
  const DType acc = OpMathType(dtype);
  TXLA_ASSIGN_OR_RETURN(
      std::vector<int64_t> dims,
      InferBroadcastDims({&self.shape(), &end.shape(), &weight.shape()}));
  TXLA_ASSIGN_OR_RETURN(Value s, Operand(std::move(self), acc, dims));
  TXLA_ASSIGN_OR_RETURN(Value e, Operand(std::move(end), acc, dims));
  TXLA_ASSIGN_OR_RETURN(Value w, Operand(std::move(weight), acc, dims));
  TXLA_ASSIGN_OR_RETURN(Value diff, Apply(OpKind::kSubtract, e, s));
  const bool scalar = scalar_weight.has_value();
  Value low, high;
  if (!scalar || std::abs(*scalar_weight) < 0.5) {
    TXLA_ASSIGN_OR_RETURN(Value step, Apply(OpKind::kMultiply, w, diff));
    TXLA_ASSIGN_OR_RETURN(low, Apply(OpKind::kAdd, s, std::move(step)));
  }
  if (!scalar || std::abs(*scalar_weight) >= 0.5) {
    TXLA_ASSIGN_OR_RETURN(Value one, MakeLiteral(1, acc, dims));
    TXLA_ASSIGN_OR_RETURN(Value rest, Apply(OpKind::kSubtract, one, w));
    TXLA_ASSIGN_OR_RETURN(Value back, Apply(OpKind::kMultiply, diff, rest));
    TXLA_ASSIGN_OR_RETURN(high, Apply(OpKind::kSubtract, e, std::move(back)));
  }
  Value out;
  if (scalar) {
    out = low ? std::move(low) : std::move(high);
  } else {
    TXLA_ASSIGN_OR_RETURN(NodePtr abs_w, MakeUnary(OpKind::kAbs, w));
    TXLA_ASSIGN_OR_RETURN(Value half, MakeLiteral(0.5, acc, dims));
    TXLA_ASSIGN_OR_RETURN(NodePtr small,
                          MakeCompare(Value(std::move(abs_w)), half, "LT"));
    TXLA_ASSIGN_OR_RETURN(
        NodePtr picked,
        MakeNode(OpKind::kSelect,
                 {Value(std::move(small)), std::move(low), std::move(high)}));
    out = Value(std::move(picked));
  }
  return MakeConvert(std::move(out), dtype);
}

absl::StatusOr<Value> Addc(OpKind kind, Value self, Value t1, Value t2,
                           Value value, DType dtype) {
  const DType acc = OpMathType(dtype);
  TXLA_ASSIGN_OR_RETURN(
      std::vector<int64_t> dims,
      InferBroadcastDims({&self.shape(), &t1.shape(), &t2.shape()}));
  TXLA_ASSIGN_OR_RETURN(Value term, Operand(std::move(t1), acc, dims));
  if (value) {
    TXLA_ASSIGN_OR_RETURN(Value scale, Operand(std::move(value), acc, dims));
    TXLA_ASSIGN_OR_RETURN(term, Apply(OpKind::kMultiply, std::move(scale),
                                      std::move(term)));
  }
  TXLA_ASSIGN_OR_RETURN(Value divisor, Operand(std::move(t2), acc, dims));
  TXLA_ASSIGN_OR_RETURN(term,
                        Apply(kind, std::move(term), std::move(divisor)));
  TXLA_ASSIGN_OR_RETURN(Value base, Operand(std::move(self), acc, dims));
  TXLA_ASSIGN_OR_RETURN(Value out,
                        Apply(OpKind::kAdd, std::move(base), std::move(term)));
  return MakeConvert(std::move(out), dtype);
}

}  // namespace torch_xla::ops
