#ifndef TORCH_XLA_CSRC_OPS_ELEMENTWISE_UTIL_H_
#define TORCH_XLA_CSRC_OPS_ELEMENTWISE_UTIL_H_

// Shorthands the elementwise builders (logical_ops, select_ops,
// division_ops, activation_ops) share: a formula's constants as literals of
// an operand's type and shape, compare and select as Values, and eager's
// broadcasting of several operands to their common shape.

#include <cstdint>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "torch_xla/csrc/ir/builder.h"
#include "torch_xla/csrc/ir/status_macros.h"
#include "torch_xla/csrc/ir/value_builders.h"

namespace torch_xla::ops {

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

// `values` broadcast to their common shape (eager's RuntimeError when they
// do not broadcast); values already of that shape are kept.
inline absl::Status BroadcastAll(std::vector<Value*> values) {
  std::vector<const Shape*> shapes;
  bool same = true;
  for (Value* v : values) {
    shapes.push_back(&v->shape());
    same = same && v->shape().dims == values[0]->shape().dims;
  }
  if (same) return absl::OkStatus();
  TXLA_ASSIGN_OR_RETURN(std::vector<int64_t> dims,
                        InferBroadcastDims(shapes));
  for (Value* v : values) {
    TXLA_ASSIGN_OR_RETURN(*v, MakeBroadcastTo(std::move(*v), dims));
  }
  return absl::OkStatus();
}

}  // namespace torch_xla::ops

#endif  // TORCH_XLA_CSRC_OPS_ELEMENTWISE_UTIL_H_
