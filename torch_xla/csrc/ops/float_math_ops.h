#ifndef TORCH_XLA_CSRC_OPS_FLOAT_MATH_OPS_H_
#define TORCH_XLA_CSRC_OPS_FLOAT_MATH_OPS_H_

// The elementwise math functions StableHLO has no single primitive for,
// each built as one formula here: trunc, atan, log2/log10, isinf, round
// with decimals, exp2, signbit, copysign and hypot. The Python rules
// (torch_xla/_ops/unary_math.py, bit_math.py) pick the dtype (eager's
// promotion, the default float type for integer inputs), raise eager's
// errors and make one _XLAC._float_math call; the binding converts and
// broadcasts the operands to that dtype first.

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "torch_xla/csrc/ir/node.h"
#include "torch_xla/csrc/ir/shape.h"

namespace torch_xla::ops {

// Codes shared with Python (torch_xla/_ops/unary_math.py's _TRUNC, ...).
enum class FloatMathOp : int {
  kTrunc = 0,          // sign(x) * floor(|x|); integers: x itself
  kAtan = 1,           // atan2(2x, 2) (see docs/adding_an_op.md)
  kLog2 = 2,           // log(x) / ln 2 in opmath
  kLog10 = 3,          // log(x) / ln 10 in opmath
  kIsInf = 4,          // |x| == inf (pred); integers and bool: false
  kRoundDecimals = 5,  // eager's nearbyint(x * 10^d) / 10^d in opmath
  kExp2 = 6,           // 2 ** x (exact at integers)
  kSignbit = 7,        // the sign bit (pred): -0.0 and -NaN are negative
  kCopysign = 8,       // |a| with b's sign bit
  kHypot = 9,          // sqrt(a^2 + b^2) without overflow, in opmath
};

// InvalidArgument for a code outside FloatMathOp.
absl::StatusOr<FloatMathOp> FloatMathOpFromCode(int code);

// The op on `operands` (one, or two for copysign and hypot), already of
// one dtype and shape; `decimals` is round's (0 for the others). Results
// keep the operands' dtype except isinf and signbit (pred).
absl::StatusOr<Value> FloatMath(FloatMathOp op, std::vector<Value> operands,
                                int64_t decimals = 0);

}  // namespace torch_xla::ops

#endif  // TORCH_XLA_CSRC_OPS_FLOAT_MATH_OPS_H_
