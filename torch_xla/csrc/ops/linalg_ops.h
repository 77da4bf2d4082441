#ifndef TORCH_XLA_CSRC_OPS_LINALG_OPS_H_
#define TORCH_XLA_CSRC_OPS_LINALG_OPS_H_

// Matrix products as one dot_general with eager's numerics: bf16/f16
// operands accumulate in f32 (the dot's preferred element type) and round
// once; f32/f64 dots ask for HIGHEST precision so GPUs do not use TF32.
// The C++ fast rules (python/fast_math_rules.cc) and the Python rules
// (torch_xla/_ops/linalg.py, through _XLAC._dot/_mm/_bmm) both build
// products here. Operands are values of one dtype; shape errors are the
// dot_general shape rule's statuses (the Python rules check eager's first).

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "torch_xla/csrc/ir/node.h"

namespace torch_xla::ops {

struct DotDims {
  std::vector<int64_t> lhs_contract, rhs_contract, lhs_batch, rhs_batch;
};

// dot_general of `a` and `b`. The result is in the operands' dtype, or,
// with `accumulate`, in the accumulation dtype (OpMathType) so a caller can
// add to it (bias, beta * self) before rounding once.
absl::StatusOr<Value> Dot(Value a, Value b, const DotDims& dims,
                          bool accumulate);

// aten.mm: [m, k] x [k, n].
absl::StatusOr<Value> Mm(Value a, Value b);
// aten.bmm: [b, m, k] x [b, k, n].
absl::StatusOr<Value> Bmm(Value a, Value b);

// The addmm family (addmm, baddbmm, addbmm, addmv): beta * self + alpha *
// (a . b), with the product accumulated in OpMathType(a's dtype) and the
// sum rounded once to `dtype` (self's). `beta` and `alpha` are scalar
// values in that accumulation dtype, or empty for a factor of 1 (no
// multiply); an empty `self` (eager's beta == 0) leaves self out entirely,
// so NaNs in it do not leak. self broadcasts to the product's shape (the
// caller checks eager's expand error first).
absl::StatusOr<Value> AddProduct(Value self, Value a, Value b,
                                 const DotDims& dims, Value beta, Value alpha,
                                 DType dtype);

}  // namespace torch_xla::ops

#endif  // TORCH_XLA_CSRC_OPS_LINALG_OPS_H_
