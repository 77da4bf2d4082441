#ifndef TORCH_XLA_CSRC_OPS_BUILD_UTIL_H_
#define TORCH_XLA_CSRC_OPS_BUILD_UTIL_H_

// Value-level shorthands the op builders share (the nn families, and the
// elementwise ones through elementwise_util.h): the nodes torch_xla/_ir.py
// builds, as Values. Each fails with the
// shape rule's status (ir/builder.h).

#include <cstdint>
#include <numeric>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "torch_xla/csrc/ir/builder.h"
#include "torch_xla/csrc/ir/status_macros.h"
#include "torch_xla/csrc/ir/value_builders.h"
#include "torch_xla/csrc/ops/apply.h"

namespace torch_xla::ops {

// x's dims laid into `dims`: x's dim i becomes dims[broadcast_dims[i]].
inline absl::StatusOr<Value> BroadcastInDim(
    Value x, std::vector<int64_t> dims, std::vector<int64_t> broadcast_dims) {
  TXLA_ASSIGN_OR_RETURN(
      NodePtr node,
      MakeNode(OpKind::kBroadcastInDim, {std::move(x)},
               Attrs()
                   .Set("dims", std::move(dims))
                   .Set("broadcast_dims", std::move(broadcast_dims))));
  return Value(std::move(node));
}

// 0, 1, 2, ... along `dimension` of `dims`, in `dtype`.
inline absl::StatusOr<Value> Iota(DType dtype, std::vector<int64_t> dims,
                                  int64_t dimension) {
  TXLA_ASSIGN_OR_RETURN(NodePtr node,
                        MakeNode(OpKind::kIota, {},
                                 Attrs()
                                     .Set("dtype", dtype)
                                     .Set("dims", std::move(dims))
                                     .Set("dimension", dimension)));
  return Value(std::move(node));
}

// `value` as a literal of `like`'s dtype and shape.
inline absl::StatusOr<Value> LiteralLike(double value, const Value& like) {
  return MakeLiteral(value, like.shape().dtype, like.shape().dims);
}

// direction: "EQ", "NE", "LT", "LE", "GT", "GE"; a pred Value.
inline absl::StatusOr<Value> Compare(Value a, Value b,
                                     absl::string_view direction) {
  TXLA_ASSIGN_OR_RETURN(NodePtr node,
                        MakeCompare(std::move(a), std::move(b), direction));
  return Value(std::move(node));
}

inline absl::StatusOr<Value> Select(Value pred, Value on_true,
                                    Value on_false) {
  TXLA_ASSIGN_OR_RETURN(
      NodePtr node,
      MakeNode(OpKind::kSelect,
               {std::move(pred), std::move(on_true), std::move(on_false)}));
  return Value(std::move(node));
}

// a kind b, with b broadcast (numpy rules) to a's shape.
inline absl::StatusOr<Value> ApplyTo(OpKind kind, Value a, Value b) {
  TXLA_ASSIGN_OR_RETURN(Value wide,
                        MakeBroadcastTo(std::move(b), a.shape().dims));
  return Apply(kind, std::move(a), std::move(wide));
}

// Sum over `dims`, kept as size 1 (so it broadcasts back); x for no dims.
inline absl::StatusOr<Value> SumKept(Value x,
                                     const std::vector<int64_t>& dims) {
  if (dims.empty()) return x;
  return MakeReduce(std::move(x), dims, "sum", /*keep_dims=*/true);
}

// Mean over `dims`, kept as size 1; x for no dims.
inline absl::StatusOr<Value> MeanKept(Value x,
                                      const std::vector<int64_t>& dims) {
  int64_t count = 1;
  for (int64_t d : dims) count *= x.shape().dims[d];
  const DType dtype = x.shape().dtype;
  TXLA_ASSIGN_OR_RETURN(Value total, SumKept(std::move(x), dims));
  TXLA_ASSIGN_OR_RETURN(Value n, MakeLiteral(static_cast<double>(count), dtype,
                                             total.shape().dims));
  return Apply(OpKind::kDivide, std::move(total), std::move(n));
}

// 0, 1, ..., n - 1.
inline std::vector<int64_t> Range(int64_t begin, int64_t end) {
  std::vector<int64_t> dims(end > begin ? end - begin : 0);
  std::iota(dims.begin(), dims.end(), begin);
  return dims;
}

}  // namespace torch_xla::ops

#endif  // TORCH_XLA_CSRC_OPS_BUILD_UTIL_H_
