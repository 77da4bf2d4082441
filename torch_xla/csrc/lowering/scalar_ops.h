#ifndef TORCH_XLA_CSRC_LOWERING_SCALAR_OPS_H_
#define TORCH_XLA_CSRC_LOWERING_SCALAR_OPS_H_

// Scalar ops for the bodies that lower rules generate from attributes (sort
// comparators, reduce_window reducers, select_and_scatter selectors): each
// call emits one op on rank-0 values through an MlirEmitter and returns its
// SSA name. Holds a reference to the emitter, owns nothing.

#include <string>

#include "absl/strings/string_view.h"
#include "torch_xla/csrc/ir/shape.h"
#include "torch_xla/csrc/lowering/emitter.h"

namespace torch_xla {

class ScalarOps {
 public:
  explicit ScalarOps(MlirEmitter& e) : e_(e) {}

  static std::string Type(DType dtype) { return Shape(dtype, {}).ToMlirType(); }

  // a <direction> b as i1 ("LT", "EQ", ...); IEEE for floats (NaN compares
  // false), signed or unsigned by element type.
  std::string Compare(const std::string& a, const std::string& b,
                      absl::string_view direction, DType dtype);
  // a != a; only for floats.
  std::string IsNan(const std::string& a, DType dtype);
  std::string And(const std::string& a, const std::string& b);
  std::string Or(const std::string& a, const std::string& b);
  std::string Not(const std::string& a);
  std::string Select(const std::string& pred, const std::string& on_true,
                     const std::string& on_false, DType dtype);
  // A float "a before b" that PyTorch's sort and max use: numbers by value,
  // NaN after (ascending) or before (descending) every number.
  std::string Before(const std::string& a, const std::string& b,
                     bool descending, DType dtype);
  // Equal in that order: equal numbers (0.0 and -0.0 too) or both NaN.
  std::string Same(const std::string& a, const std::string& b, DType dtype);

 private:
  std::string Emit(absl::string_view op, const std::string& a,
                   const std::string& b, DType operand, DType result);

  MlirEmitter& e_;
};

}  // namespace torch_xla

#endif  // TORCH_XLA_CSRC_LOWERING_SCALAR_OPS_H_
