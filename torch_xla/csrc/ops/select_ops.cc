#include "torch_xla/csrc/ops/select_ops.h"

#include <utility>
#include <vector>

#include "torch_xla/csrc/ir/status_macros.h"
#include "torch_xla/csrc/ir/value_builders.h"
#include "torch_xla/csrc/ops/apply.h"
#include "torch_xla/csrc/ops/elementwise_util.h"

namespace torch_xla::ops {

absl::StatusOr<Value> Where(Value cond, Value a, Value b, DType dtype) {
  TXLA_ASSIGN_OR_RETURN(Value pred, MakeConvert(std::move(cond), DType::kBool));
  TXLA_ASSIGN_OR_RETURN(Value va, MakeConvert(std::move(a), dtype));
  TXLA_ASSIGN_OR_RETURN(Value vb, MakeConvert(std::move(b), dtype));
  TXLA_RETURN_IF_ERROR(BroadcastAll({&pred, &va, &vb}));
  return Select(std::move(pred), std::move(va), std::move(vb));
}

absl::StatusOr<Value> Clamp(Value x, Value low, Value high, DType dtype) {
  TXLA_ASSIGN_OR_RETURN(Value v, MakeConvert(std::move(x), dtype));
  std::vector<Value*> operands = {&v};
  if (low) {
    TXLA_ASSIGN_OR_RETURN(low, MakeConvert(std::move(low), dtype));
    operands.push_back(&low);
  }
  if (high) {
    TXLA_ASSIGN_OR_RETURN(high, MakeConvert(std::move(high), dtype));
    operands.push_back(&high);
  }
  TXLA_RETURN_IF_ERROR(BroadcastAll(operands));
  if (low) {
    TXLA_ASSIGN_OR_RETURN(v, Apply(OpKind::kMaximum, std::move(v), low));
  }
  if (high) {
    TXLA_ASSIGN_OR_RETURN(v, Apply(OpKind::kMinimum, std::move(v), high));
  }
  return v;
}

absl::StatusOr<Value> Heaviside(Value x, Value values) {
  TXLA_RETURN_IF_ERROR(BroadcastAll({&x, &values}));
  const DType dtype = x.shape().dtype;
  TXLA_ASSIGN_OR_RETURN(Value zero, LiteralLike(0, x));
  TXLA_ASSIGN_OR_RETURN(Value positive, Compare(x, zero, "GT"));
  TXLA_ASSIGN_OR_RETURN(Value step, MakeConvert(std::move(positive), dtype));
  TXLA_ASSIGN_OR_RETURN(Value at_zero, Compare(std::move(x), std::move(zero),
                                               "EQ"));
  TXLA_ASSIGN_OR_RETURN(values, MakeConvert(std::move(values), dtype));
  return Select(std::move(at_zero), std::move(values), std::move(step));
}

}  // namespace torch_xla::ops
