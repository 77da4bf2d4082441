#include "torch_xla/csrc/ops/linalg_ops.h"

#include <utility>
#include <vector>

#include "torch_xla/csrc/ir/builder.h"
#include "torch_xla/csrc/ir/status_macros.h"
#include "torch_xla/csrc/ir/value_builders.h"
#include "torch_xla/csrc/ops/apply.h"
#include "torch_xla/csrc/ops/opmath.h"

namespace torch_xla::ops {

absl::StatusOr<Value> Dot(Value a, Value b, const DotDims& dims,
                          bool accumulate) {
  const DType dtype = a.shape().dtype;
  Attrs attrs = Attrs()
                    .Set("lhs_contract", dims.lhs_contract)
                    .Set("rhs_contract", dims.rhs_contract)
                    .Set("lhs_batch", dims.lhs_batch)
                    .Set("rhs_batch", dims.rhs_batch);
  if (OpMathType(dtype) != dtype) {
    attrs.Set("dtype", OpMathType(dtype));
  } else if (dtype == DType::kF32 || dtype == DType::kF64) {
    attrs.Set("precision", "HIGHEST");
  }
  TXLA_ASSIGN_OR_RETURN(
      NodePtr product,
      MakeNode(OpKind::kDotGeneral, {std::move(a), std::move(b)},
               std::move(attrs)));
  if (accumulate) return Value(std::move(product));
  return MakeConvert(Value(std::move(product)), dtype);
}

absl::StatusOr<Value> Mm(Value a, Value b) {
  return Dot(std::move(a), std::move(b), {{1}, {0}, {}, {}}, false);
}

absl::StatusOr<Value> Bmm(Value a, Value b) {
  return Dot(std::move(a), std::move(b), {{2}, {1}, {0}, {0}}, false);
}

absl::StatusOr<Value> AddProduct(Value self, Value a, Value b,
                                 const DotDims& dims, Value beta, Value alpha,
                                 DType dtype) {
  TXLA_ASSIGN_OR_RETURN(Value product,
                        Dot(std::move(a), std::move(b), dims, true));
  const DType acc = product.shape().dtype;
  const std::vector<int64_t> out_dims = product.shape().dims;
  if (alpha) {
    TXLA_ASSIGN_OR_RETURN(alpha, MakeBroadcastTo(std::move(alpha), out_dims));
    TXLA_ASSIGN_OR_RETURN(product, Apply(OpKind::kMultiply, std::move(product),
                                         std::move(alpha)));
  }
  if (!self) return MakeConvert(std::move(product), dtype);
  TXLA_ASSIGN_OR_RETURN(Value s, MakeConvert(std::move(self), acc));
  TXLA_ASSIGN_OR_RETURN(s, MakeBroadcastTo(std::move(s), out_dims));
  if (beta) {
    TXLA_ASSIGN_OR_RETURN(beta, MakeBroadcastTo(std::move(beta), out_dims));
    TXLA_ASSIGN_OR_RETURN(s, Apply(OpKind::kMultiply, std::move(s),
                                   std::move(beta)));
  }
  TXLA_ASSIGN_OR_RETURN(Value sum,
                        Apply(OpKind::kAdd, std::move(s), std::move(product)));
  return MakeConvert(std::move(sum), dtype);
}

}  // namespace torch_xla::ops
