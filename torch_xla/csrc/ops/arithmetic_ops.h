#ifndef TORCH_XLA_CSRC_OPS_ARITHMETIC_OPS_H_
#define TORCH_XLA_CSRC_OPS_ARITHMETIC_OPS_H_

// add, sub, mul, div and their in-place forms on operands that already went
// through eager's type promotion and broadcasting (each caller converts its
// arguments: the Python rules in torch_xla/_ops/elementwise.py through
// _XLAC._arithmetic, the C++ fast rules in python/fast_math_rules.cc; both
// turn Python numbers into scalar parameters the same way). What the op
// means given promoted operands is here: the primitive per op and dtype
// (a bool product is a logical and), and the in-place rule every in-place
// builder and binding shares (InPlaceResult: the result keeps x's shape and
// is rounded to x's dtype).

#include "absl/status/statusor.h"
#include "torch_xla/csrc/ir/node.h"
#include "torch_xla/csrc/ir/shape.h"

namespace torch_xla::ops {

// Codes shared with Python (torch_xla/_ops/elementwise.py's _ADD, ...).
enum class ArithmeticOp : int {
  kAdd = 0,
  kSubtract = 1,
  kMultiply = 2,
  kDivide = 3,
};

// The name eager's messages give a dtype ("Float", "Long").
absl::string_view ScalarTypeName(DType dtype);

// InvalidArgument for a code outside ArithmeticOp.
absl::StatusOr<ArithmeticOp> ArithmeticOpFromCode(int code);

// a op b; `a` and `b` have the compute dtype and one shape.
absl::StatusOr<Value> Arithmetic(ArithmeticOp op, Value a, Value b);

// The value an in-place op writes into x: `out` rounded to x's dtype. A
// result shape other than x's (an operand broadcast x up) fails with
// eager's RuntimeError ("output with shape [..] doesn't match the broadcast
// shape [..]"; callers add their op's name as context), and so does a
// result x's dtype cannot hold by eager's casting rule (a float result into
// an integer or bool x, an integer one into a bool x: "result type Float
// can't be cast to the desired output type Long"). Every in-place op, fast
// rule or Python rule, commits through here.
absl::StatusOr<Value> InPlaceResult(Value out, const Shape& x);

// x.op_(y) given the promoted operands: a op b rounded to `x`'s dtype. A
// result shape other than x's (y broadcast x up) fails with eager's
// RuntimeError.
absl::StatusOr<Value> ArithmeticInPlace(ArithmeticOp op, Value a, Value b,
                                        const Shape& x);

}  // namespace torch_xla::ops

#endif  // TORCH_XLA_CSRC_OPS_ARITHMETIC_OPS_H_
