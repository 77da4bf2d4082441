#include "torch_xla/csrc/ops/nn_ops.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "torch_xla/csrc/ir/builder.h"
#include "torch_xla/csrc/ir/shape_util.h"
#include "torch_xla/csrc/ir/status_macros.h"
#include "torch_xla/csrc/ir/value_builders.h"

namespace torch_xla::ops {

absl::StatusOr<Value> MaskedFill(Value x, Value mask, Value fill) {
  std::vector<int64_t> dims = x.shape().dims;
  if (mask.shape().dims != dims) {
    TXLA_ASSIGN_OR_RETURN(dims, InferBroadcastDims({&x.shape(), &mask.shape()}));
    TXLA_ASSIGN_OR_RETURN(x, MakeBroadcastTo(std::move(x), dims));
    TXLA_ASSIGN_OR_RETURN(mask, MakeBroadcastTo(std::move(mask), dims));
  }
  TXLA_ASSIGN_OR_RETURN(fill, MakeConvert(std::move(fill), x.shape().dtype));
  TXLA_ASSIGN_OR_RETURN(Value wide, MakeBroadcastTo(std::move(fill), dims));
  TXLA_ASSIGN_OR_RETURN(
      NodePtr out, MakeNode(OpKind::kSelect,
                            {std::move(mask), std::move(wide), std::move(x)}));
  return Value(std::move(out));
}

absl::StatusOr<Value> SliceBackward(Value grad,
                                    const std::vector<int64_t>& sizes,
                                    int64_t dim, std::optional<int64_t> start,
                                    std::optional<int64_t> end, int64_t step) {
  const int64_t rank = static_cast<int64_t>(sizes.size());
  const std::vector<int64_t>& grad_dims = grad.shape().dims;
  if (dim < 0 || dim >= rank || step < 1 ||
      static_cast<int64_t>(grad_dims.size()) != rank) {
    return absl::InvalidArgumentError(absl::StrCat(
        "slice_backward: grad of shape [", absl::StrJoin(grad_dims, ", "),
        "] is not a slice along dim ", dim, " with step ", step,
        " of a tensor of shape [", absl::StrJoin(sizes, ", "), "]"));
  }
  const auto [first, last] = ClampSlice(sizes[dim], start, end);
  const int64_t n = grad_dims[dim];
  const int64_t expected = (last - first + step - 1) / step;
  bool other_dims_match = true;
  for (int64_t d = 0; d < rank; ++d) {
    other_dims_match = other_dims_match && (d == dim || grad_dims[d] == sizes[d]);
  }
  if (n != expected || !other_dims_match) {
    return absl::InvalidArgumentError(absl::StrCat(
        "slice_backward: grad of shape [", absl::StrJoin(grad_dims, ", "),
        "] does not match the slice ", first, ":", last, ":", step,
        " along dim ", dim, " of shape [", absl::StrJoin(sizes, ", "),
        "], which has ", expected, " elements there"));
  }
  const DType dtype = grad.shape().dtype;
  if (n == 0) return MakeLiteral(0, dtype, sizes);
  std::vector<int64_t> low(rank, 0), high(rank, 0), interior(rank, 0);
  low[dim] = first;
  high[dim] = sizes[dim] - first - (n - 1) * step - 1;
  interior[dim] = step - 1;
  TXLA_ASSIGN_OR_RETURN(Value zero, MakeLiteral(0, dtype, {}));
  TXLA_ASSIGN_OR_RETURN(
      NodePtr out,
      MakeNode(OpKind::kPad, {std::move(grad), std::move(zero)},
               Attrs()
                   .Set("low", std::move(low))
                   .Set("high", std::move(high))
                   .Set("interior", std::move(interior))));
  return Value(std::move(out));
}

}  // namespace torch_xla::ops
