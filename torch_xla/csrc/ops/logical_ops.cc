#include "torch_xla/csrc/ops/logical_ops.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "torch_xla/csrc/ir/status_macros.h"
#include "torch_xla/csrc/ops/apply.h"
#include "torch_xla/csrc/ops/elementwise_util.h"

namespace torch_xla::ops {

absl::StatusOr<Value> Truth(Value x) {
  if (x.shape().dtype == DType::kBool) return x;
  TXLA_ASSIGN_OR_RETURN(Value zero, LiteralLike(0, x));
  return Compare(std::move(x), std::move(zero), "NE");
}

absl::StatusOr<Value> Logical(OpKind kind, Value a, Value b) {
  if (kind != OpKind::kAnd && kind != OpKind::kOr && kind != OpKind::kXor) {
    return absl::InvalidArgumentError(
        absl::StrCat("Logical: kind must be and, or or xor, got ",
                     OpKindName(kind)));
  }
  TXLA_ASSIGN_OR_RETURN(Value ta, Truth(std::move(a)));
  TXLA_ASSIGN_OR_RETURN(Value tb, Truth(std::move(b)));
  TXLA_RETURN_IF_ERROR(BroadcastAll({&ta, &tb}));
  return Apply(kind, std::move(ta), std::move(tb));
}

absl::StatusOr<Value> LogicalNot(Value x) {
  TXLA_ASSIGN_OR_RETURN(Value truth, Truth(std::move(x)));
  return Apply(OpKind::kNot, std::move(truth));
}

}  // namespace torch_xla::ops
