#include "torch_xla/csrc/ops/order_ops.h"

#include <limits>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "torch_xla/csrc/ir/builder.h"
#include "torch_xla/csrc/ir/status_macros.h"
#include "torch_xla/csrc/ir/value_builders.h"
#include "torch_xla/csrc/ops/build_util.h"
#include "torch_xla/csrc/ops/scatter_ops.h"

namespace torch_xla::ops {
namespace {

absl::Status CheckDim(const char* op, const Value& x, int64_t dim) {
  const int64_t rank = x.shape().rank();
  if (dim < 0 || dim >= rank) {
    return absl::InvalidArgumentError(
        absl::StrCat(op, ": dim ", dim, " is not a canonical dim of ",
                     x.shape().ToString(), " (normalize it first)"));
  }
  return absl::OkStatus();
}

// Position `at` along `dim` of a sorted pair, the dim kept as size 1
// unless `keepdim` is false.
absl::StatusOr<std::pair<Value, Value>> At(std::pair<Value, Value> sorted,
                                           int64_t dim, int64_t at,
                                           bool keepdim) {
  TXLA_ASSIGN_OR_RETURN(Value value,
                        MakeSliceDim(std::move(sorted.first), dim, at, at + 1));
  TXLA_ASSIGN_OR_RETURN(Value index, MakeSliceDim(std::move(sorted.second),
                                                  dim, at, at + 1));
  if (!keepdim) {
    std::vector<int64_t> dims = value.shape().dims;
    dims.erase(dims.begin() + dim);
    TXLA_ASSIGN_OR_RETURN(value, MakeReshape(std::move(value), dims));
    TXLA_ASSIGN_OR_RETURN(index, MakeReshape(std::move(index), dims));
  }
  return std::make_pair(std::move(value), std::move(index));
}

}  // namespace

absl::StatusOr<std::pair<Value, Value>> SortAlong(Value x, int64_t dim,
                                                  bool descending) {
  TXLA_RETURN_IF_ERROR(CheckDim("sort", x, dim));
  TXLA_ASSIGN_OR_RETURN(Value iota, Iota(DType::kI64, x.shape().dims, dim));
  TXLA_ASSIGN_OR_RETURN(
      NodePtr node, MakeNode(OpKind::kSort, {std::move(x), std::move(iota)},
                             Attrs()
                                 .Set("dimension", dim)
                                 .Set("descending", descending)
                                 .Set("num_keys", int64_t{1})
                                 .Set("stable", true)));
  return std::make_pair(Value(node, 0), Value(node, 1));
}

absl::StatusOr<std::pair<Value, Value>> SortFirst(Value x, int64_t dim,
                                                  int64_t k, bool descending) {
  if (x.shape().rank() == 0) {
    TXLA_ASSIGN_OR_RETURN(Value zero, MakeLiteral(0, DType::kI64, {}));
    return std::make_pair(std::move(x), std::move(zero));
  }
  const int64_t n = x.shape().rank() > dim && dim >= 0 ? x.shape().dims[dim]
                                                       : 0;
  TXLA_ASSIGN_OR_RETURN(auto sorted, SortAlong(std::move(x), dim, descending));
  if (k < 0 || k > n) {
    return absl::InvalidArgumentError(absl::StrCat(
        "topk: k ", k, " is outside [0, ", n, "] for dim ", dim));
  }
  if (k == n) return sorted;
  TXLA_ASSIGN_OR_RETURN(Value values,
                        MakeSliceDim(std::move(sorted.first), dim, 0, k));
  TXLA_ASSIGN_OR_RETURN(Value indices,
                        MakeSliceDim(std::move(sorted.second), dim, 0, k));
  return std::make_pair(std::move(values), std::move(indices));
}

absl::StatusOr<std::pair<Value, Value>> KthValue(Value x, int64_t k,
                                                 int64_t dim, bool keepdim) {
  if (x.shape().rank() == 0) {
    if (k != 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("kthvalue: k ", k, " is out of range for a 0-d x"));
    }
    TXLA_ASSIGN_OR_RETURN(Value zero, MakeLiteral(0, DType::kI64, {}));
    return std::make_pair(std::move(x), std::move(zero));
  }
  TXLA_RETURN_IF_ERROR(CheckDim("kthvalue", x, dim));
  const int64_t n = x.shape().dims[dim];
  if (k < 1 || k > n) {
    return absl::InvalidArgumentError(absl::StrCat(
        "kthvalue: k ", k, " is outside [1, ", n, "] for dim ", dim));
  }
  TXLA_ASSIGN_OR_RETURN(auto sorted, SortAlong(std::move(x), dim, false));
  return At(std::move(sorted), dim, k - 1, keepdim);
}

absl::StatusOr<std::pair<Value, Value>> Median(Value x, int64_t dim,
                                               bool keepdim) {
  if (x.shape().rank() == 0) {
    TXLA_ASSIGN_OR_RETURN(Value zero, MakeLiteral(0, DType::kI64, {}));
    return std::make_pair(std::move(x), std::move(zero));
  }
  TXLA_RETURN_IF_ERROR(CheckDim("median", x, dim));
  const std::vector<int64_t> dims = x.shape().dims;
  const int64_t n = dims[dim];
  if (n == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("median: dim ", dim, " of ", x.shape().ToString(),
                     " is empty"));
  }
  const bool floating = IsFloating(x.shape().dtype);
  Value nan;
  if (floating) nan = x;
  TXLA_ASSIGN_OR_RETURN(auto sorted, SortAlong(std::move(x), dim, false));
  TXLA_ASSIGN_OR_RETURN(auto middle,
                        At(std::move(sorted), dim, (n - 1) / 2, keepdim));
  if (!floating) return middle;
  // A row holding NaN: NaN, at the first NaN's index (the stable sort puts
  // the NaNs last, in index order, so eager's first NaN is the smallest
  // index among them).
  TXLA_ASSIGN_OR_RETURN(Value is_nan, Compare(nan, nan, "NE"));
  TXLA_ASSIGN_OR_RETURN(Value iota, Iota(DType::kI64, dims, dim));
  TXLA_ASSIGN_OR_RETURN(Value past, MakeLiteral(static_cast<double>(n),
                                                DType::kI64, dims));
  TXLA_ASSIGN_OR_RETURN(Value nan_at, Select(is_nan, std::move(iota),
                                             std::move(past)));
  TXLA_ASSIGN_OR_RETURN(Value first, MakeReduce(std::move(nan_at), {dim},
                                                "min", keepdim));
  TXLA_ASSIGN_OR_RETURN(Value n_row, LiteralLike(static_cast<double>(n),
                                                 first));
  TXLA_ASSIGN_OR_RETURN(Value any_nan, Compare(first, n_row, "LT"));
  TXLA_ASSIGN_OR_RETURN(Value nan_value,
                        LiteralLike(std::numeric_limits<double>::quiet_NaN(),
                                    middle.first));
  TXLA_ASSIGN_OR_RETURN(Value value, Select(any_nan, std::move(nan_value),
                                            std::move(middle.first)));
  TXLA_ASSIGN_OR_RETURN(Value index, Select(any_nan, std::move(first),
                                            std::move(middle.second)));
  return std::make_pair(std::move(value), std::move(index));
}

absl::StatusOr<std::pair<Value, Value>> NanMedian(Value x, int64_t dim,
                                                  bool keepdim) {
  if (x.shape().rank() == 0 || !IsFloating(x.shape().dtype)) {
    return Median(std::move(x), dim, keepdim);
  }
  TXLA_RETURN_IF_ERROR(CheckDim("nanmedian", x, dim));
  const int64_t n = x.shape().dims[dim];
  if (n == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("nanmedian: dim ", dim, " of ", x.shape().ToString(),
                     " is empty"));
  }
  // k, the row's non-NaN count, kept as size 1; the position (k - 1) // 2
  // of the sorted row (the NaNs sort last), or (n - 1) // 2 for k = 0.
  TXLA_ASSIGN_OR_RETURN(Value is_number, Compare(x, x, "EQ"));
  TXLA_ASSIGN_OR_RETURN(Value ones, MakeConvert(std::move(is_number),
                                                DType::kI64));
  TXLA_ASSIGN_OR_RETURN(Value k, MakeReduce(std::move(ones), {dim}, "sum",
                                            true));
  TXLA_ASSIGN_OR_RETURN(Value one, LiteralLike(1, k));
  TXLA_ASSIGN_OR_RETURN(Value two, LiteralLike(2, k));
  TXLA_ASSIGN_OR_RETURN(Value lower, Apply(OpKind::kSubtract, k, one));
  TXLA_ASSIGN_OR_RETURN(lower, Apply(OpKind::kDivide, std::move(lower),
                                     std::move(two)));
  TXLA_ASSIGN_OR_RETURN(Value zero, LiteralLike(0, k));
  TXLA_ASSIGN_OR_RETURN(Value some, Compare(std::move(k), std::move(zero),
                                            "GT"));
  TXLA_ASSIGN_OR_RETURN(Value middle,
                        LiteralLike(static_cast<double>((n - 1) / 2), lower));
  TXLA_ASSIGN_OR_RETURN(Value position, Select(std::move(some),
                                               std::move(lower),
                                               std::move(middle)));
  TXLA_ASSIGN_OR_RETURN(auto sorted, SortAlong(std::move(x), dim, false));
  TXLA_ASSIGN_OR_RETURN(Value value, GatherAlongDim(std::move(sorted.first),
                                                    dim, position));
  TXLA_ASSIGN_OR_RETURN(Value index, GatherAlongDim(std::move(sorted.second),
                                                    dim, position));
  if (!keepdim) {
    std::vector<int64_t> dims = value.shape().dims;
    dims.erase(dims.begin() + dim);
    TXLA_ASSIGN_OR_RETURN(value, MakeReshape(std::move(value), dims));
    TXLA_ASSIGN_OR_RETURN(index, MakeReshape(std::move(index), dims));
  }
  return std::make_pair(std::move(value), std::move(index));
}

}  // namespace torch_xla::ops
