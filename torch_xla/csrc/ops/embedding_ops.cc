#include "torch_xla/csrc/ops/embedding_ops.h"

#include <cstdint>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "torch_xla/csrc/ir/status_macros.h"
#include "torch_xla/csrc/ir/value_builders.h"
#include "torch_xla/csrc/ops/build_util.h"
#include "torch_xla/csrc/ops/opmath.h"
#include "torch_xla/csrc/ops/reduction_ops.h"

namespace torch_xla::ops {
namespace {

// A pred [rows]: true where some index names the row (one scatter of
// true into false).
absl::StatusOr<Value> UsedRows(Value indices, int64_t rows) {
  int64_t n = 1;
  for (int64_t d : indices.shape().dims) n *= d;
  TXLA_ASSIGN_OR_RETURN(Value idx, MakeConvert(std::move(indices),
                                               DType::kI64));
  TXLA_ASSIGN_OR_RETURN(idx, MakeReshape(std::move(idx), {n}));
  TXLA_ASSIGN_OR_RETURN(Value none, MakeLiteral(0, DType::kBool, {rows}));
  TXLA_ASSIGN_OR_RETURN(Value hits, MakeLiteral(1, DType::kBool, {n}));
  TXLA_ASSIGN_OR_RETURN(
      NodePtr node,
      MakeNode(OpKind::kScatter,
               {std::move(none), std::move(idx), std::move(hits)},
               Attrs()
                   .Set("window_dims", std::vector<int64_t>{})
                   .Set("inserted_dims", std::vector<int64_t>{0})
                   .Set("scatter_dim_map", std::vector<int64_t>{0})
                   .Set("index_vec_dim", static_cast<int64_t>(1))
                   .Set("kind", "replace")));
  return Value(std::move(node));
}

}  // namespace

absl::StatusOr<Value> EmbeddingRenorm(Value weight, Value indices,
                                      double norm_type, Value max_norm,
                                      Value p, Value inv_p) {
  const std::vector<int64_t> dims = weight.shape().dims;
  if (dims.size() != 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("embedding_renorm_: weight must be 2-D, got ",
                     weight.shape().ToString()));
  }
  const DType dtype = weight.shape().dtype;
  const DType acc = OpMathType(dtype);
  const int64_t rows = dims[0];
  TXLA_ASSIGN_OR_RETURN(Value w, MakeConvert(std::move(weight), acc));
  TXLA_ASSIGN_OR_RETURN(Value norm, VectorNorm(w, norm_type, {1}, false, acc,
                                               std::move(p), std::move(inv_p)));
  TXLA_ASSIGN_OR_RETURN(Value used, UsedRows(std::move(indices), rows));
  TXLA_ASSIGN_OR_RETURN(Value limit, MakeBroadcastTo(std::move(max_norm),
                                                     {rows}));
  TXLA_ASSIGN_OR_RETURN(Value over, Compare(norm, limit, "GT"));
  TXLA_ASSIGN_OR_RETURN(Value too_long, Apply(OpKind::kAnd, std::move(used),
                                              std::move(over)));
  TXLA_ASSIGN_OR_RETURN(Value tiny, MakeLiteral(1e-7, acc, {rows}));
  TXLA_ASSIGN_OR_RETURN(Value padded,
                        Apply(OpKind::kAdd, std::move(norm), std::move(tiny)));
  TXLA_ASSIGN_OR_RETURN(Value scale, Apply(OpKind::kDivide, std::move(limit),
                                           std::move(padded)));
  TXLA_ASSIGN_OR_RETURN(Value one, MakeLiteral(1, acc, {rows}));
  TXLA_ASSIGN_OR_RETURN(scale, Select(std::move(too_long), std::move(scale),
                                      std::move(one)));
  TXLA_ASSIGN_OR_RETURN(scale, BroadcastInDim(std::move(scale), dims, {0}));
  TXLA_ASSIGN_OR_RETURN(Value scaled, Apply(OpKind::kMultiply, std::move(w),
                                            std::move(scale)));
  return MakeConvert(std::move(scaled), dtype);
}

}  // namespace torch_xla::ops
