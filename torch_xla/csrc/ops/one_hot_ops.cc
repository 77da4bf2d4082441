#include "torch_xla/csrc/ops/one_hot_ops.h"

#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "torch_xla/csrc/ir/status_macros.h"
#include "torch_xla/csrc/ir/value_builders.h"
#include "torch_xla/csrc/ops/build_util.h"

namespace torch_xla::ops {

absl::StatusOr<Value> OneHot(Value x, int64_t num_classes) {
  if (num_classes < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "one_hot: num_classes must not be negative, got ", num_classes));
  }
  std::vector<int64_t> dims = x.shape().dims;
  const int64_t rank = static_cast<int64_t>(dims.size());
  dims.push_back(num_classes);
  TXLA_ASSIGN_OR_RETURN(Value v, MakeConvert(std::move(x), DType::kI64));
  TXLA_ASSIGN_OR_RETURN(Value spread,
                        BroadcastInDim(std::move(v), dims, Range(0, rank)));
  TXLA_ASSIGN_OR_RETURN(Value classes, Iota(DType::kI64, dims, rank));
  TXLA_ASSIGN_OR_RETURN(Value hit, Compare(std::move(spread),
                                           std::move(classes), "EQ"));
  return MakeConvert(std::move(hit), DType::kI64);
}

}  // namespace torch_xla::ops
