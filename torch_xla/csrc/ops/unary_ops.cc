#include "torch_xla/csrc/ops/unary_ops.h"

#include <utility>

#include "torch_xla/csrc/ir/builder.h"
#include "torch_xla/csrc/ir/status_macros.h"
#include "torch_xla/csrc/ir/value_builders.h"
#include "torch_xla/csrc/ops/opmath.h"

namespace torch_xla::ops {

absl::StatusOr<Value> Unary(OpKind kind, Value x, DType dtype, bool opmath) {
  const DType compute = opmath ? OpMathType(dtype) : dtype;
  TXLA_ASSIGN_OR_RETURN(Value v, MakeConvert(std::move(x), compute));
  TXLA_ASSIGN_OR_RETURN(NodePtr out, MakeUnary(kind, std::move(v)));
  return MakeConvert(Value(std::move(out)), dtype);
}

absl::StatusOr<Value> Square(Value x, DType dtype) {
  TXLA_ASSIGN_OR_RETURN(Value v, MakeConvert(std::move(x), dtype));
  TXLA_ASSIGN_OR_RETURN(NodePtr out, MakeBinary(OpKind::kMultiply, v, v));
  return Value(std::move(out));
}

}  // namespace torch_xla::ops
