#include "torch_xla/csrc/ops/arithmetic_ops.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "torch_xla/csrc/ir/builder.h"
#include "torch_xla/csrc/ir/error_class.h"
#include "torch_xla/csrc/ir/status_macros.h"
#include "torch_xla/csrc/ir/value_builders.h"

namespace torch_xla::ops {
namespace {

OpKind KindOf(ArithmeticOp op, DType dtype) {
  switch (op) {
    case ArithmeticOp::kAdd:
      return OpKind::kAdd;
    case ArithmeticOp::kSubtract:
      return OpKind::kSubtract;
    case ArithmeticOp::kMultiply:
      return dtype == DType::kBool ? OpKind::kAnd : OpKind::kMultiply;
    case ArithmeticOp::kDivide:
      return OpKind::kDivide;
  }
  return OpKind::kAdd;  // unreachable: ArithmeticOpFromCode checks codes
}

// Eager's type categories, ordered by what may be cast to what in place:
// bool < integer < floating.
int Category(DType dtype) {
  if (dtype == DType::kBool) return 0;
  return IsFloating(dtype) ? 2 : 1;
}

}  // namespace

absl::string_view ScalarTypeName(DType dtype) {
  switch (dtype) {
    case DType::kF32:
      return "Float";
    case DType::kF64:
      return "Double";
    case DType::kBF16:
      return "BFloat16";
    case DType::kF16:
      return "Half";
    case DType::kI64:
      return "Long";
    case DType::kI32:
      return "Int";
    case DType::kI16:
      return "Short";
    case DType::kI8:
      return "Char";
    case DType::kU8:
      return "Byte";
    case DType::kBool:
      return "Bool";
    case DType::kU32:
      return "UInt32";
    case DType::kU64:
      return "UInt64";
  }
  return DTypeName(dtype);
}

absl::StatusOr<ArithmeticOp> ArithmeticOpFromCode(int code) {
  if (code < 0 || code > static_cast<int>(ArithmeticOp::kDivide)) {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown arithmetic op code ", code, " (0-3)"));
  }
  return static_cast<ArithmeticOp>(code);
}

absl::StatusOr<Value> Arithmetic(ArithmeticOp op, Value a, Value b) {
  const OpKind kind = KindOf(op, a.shape().dtype);
  TXLA_ASSIGN_OR_RETURN(NodePtr node,
                        MakeNode(kind, {std::move(a), std::move(b)}));
  return Value(std::move(node));
}

absl::StatusOr<Value> InPlaceResult(Value out, const Shape& x) {
  if (out.shape().dims != x.dims) {
    return EagerRuntimeError(absl::StrCat(
        "output with shape [", absl::StrJoin(x.dims, ", "),
        "] doesn't match the broadcast shape [",
        absl::StrJoin(out.shape().dims, ", "), "]"));
  }
  if (Category(out.shape().dtype) > Category(x.dtype)) {
    return EagerRuntimeError(absl::StrCat(
        "result type ", ScalarTypeName(out.shape().dtype),
        " can't be cast to the desired output type ", ScalarTypeName(x.dtype)));
  }
  return MakeConvert(std::move(out), x.dtype);
}

absl::StatusOr<Value> ArithmeticInPlace(ArithmeticOp op, Value a, Value b,
                                        const Shape& x) {
  TXLA_ASSIGN_OR_RETURN(Value out, Arithmetic(op, std::move(a), std::move(b)));
  return InPlaceResult(std::move(out), x);
}

}  // namespace torch_xla::ops
