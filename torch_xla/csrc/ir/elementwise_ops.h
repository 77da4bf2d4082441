#ifndef TORCH_XLA_CSRC_IR_ELEMENTWISE_OPS_H_
#define TORCH_XLA_CSRC_IR_ELEMENTWISE_OPS_H_

// The trivial elementwise ops as table rows: one row gives both the shape
// rule (operand count, accepted element types, result type) and the lowering
// (a single op named `mlir_op`). Adding such an op = an OpKind + a row.

#include <cstdint>

#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "torch_xla/csrc/ir/op_kind.h"
#include "torch_xla/csrc/ir/shape.h"

namespace torch_xla {

// Element types an op accepts.
enum class DTypeClass : uint8_t {
  kAny,            // every element type, pred included
  kNumeric,        // integers and floats
  kSignedOrFloat,  // signed integers and floats
  kFloat,          // floating point only
  kInteger,        // signed and unsigned integers
  kIntegerOrBool,  // integers and pred
};

bool DTypeInClass(DType dtype, DTypeClass cls);
// "floating point", "integer or pred", ... for messages.
absl::string_view DTypeClassName(DTypeClass cls);

struct ElementwiseOp {
  OpKind kind;
  int arity;               // 1 or 2; all operands have the same shape
  DTypeClass operands;     // accepted element types
  bool pred_result;        // result is pred instead of the operand type
  absl::string_view mlir_op;
};

absl::Span<const ElementwiseOp> ElementwiseOps();
// The row for `kind`, or nullptr if it is not a trivial elementwise op.
const ElementwiseOp* FindElementwiseOp(OpKind kind);

}  // namespace torch_xla

#endif  // TORCH_XLA_CSRC_IR_ELEMENTWISE_OPS_H_
