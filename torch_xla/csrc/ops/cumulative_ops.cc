#include "torch_xla/csrc/ops/cumulative_ops.h"

#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "torch_xla/csrc/ir/builder.h"
#include "torch_xla/csrc/ir/status_macros.h"
#include "torch_xla/csrc/ir/value_builders.h"
#include "torch_xla/csrc/ops/apply.h"
#include "torch_xla/csrc/ops/opmath.h"

namespace torch_xla::ops {

absl::StatusOr<Value> Cumulative(Value x, int64_t dim, OpKind kind,
                                 DType dtype) {
  if (kind != OpKind::kAdd && kind != OpKind::kMultiply) {
    return absl::InvalidArgumentError(
        absl::StrCat("Cumulative: kind must be add or multiply, got ",
                     OpKindName(kind)));
  }
  TXLA_ASSIGN_OR_RETURN(Value v, MakeConvert(std::move(x), OpMathType(dtype)));
  const std::vector<int64_t>& dims = v.shape().dims;
  if (!dims.empty()) {
    const int64_t n = dims[dim];
    const size_t rank = dims.size();
    TXLA_ASSIGN_OR_RETURN(
        Value identity,
        MakeLiteral(kind == OpKind::kAdd ? 0 : 1, v.shape().dtype, {}));
    for (int64_t shift = 1; shift < n; shift *= 2) {
      std::vector<int64_t> low(rank, 0), high(rank, 0);
      low[dim] = shift;
      high[dim] = -shift;
      TXLA_ASSIGN_OR_RETURN(
          NodePtr shifted,
          MakeNode(OpKind::kPad, {v, identity},
                   Attrs().Set("low", std::move(low)).Set("high",
                                                          std::move(high))));
      TXLA_ASSIGN_OR_RETURN(v, Apply(kind, std::move(v), Value(shifted)));
    }
  }
  return MakeConvert(std::move(v), dtype);
}

}  // namespace torch_xla::ops
