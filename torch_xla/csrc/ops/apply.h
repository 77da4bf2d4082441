#ifndef TORCH_XLA_CSRC_OPS_APPLY_H_
#define TORCH_XLA_CSRC_OPS_APPLY_H_

// The builders' shorthand for one elementwise IR op as a Value (the ir/
// builder returns the node).

#include <utility>

#include "absl/status/statusor.h"
#include "torch_xla/csrc/ir/builder.h"
#include "torch_xla/csrc/ir/status_macros.h"

namespace torch_xla::ops {

inline absl::StatusOr<Value> Apply(OpKind kind, Value a, Value b) {
  TXLA_ASSIGN_OR_RETURN(NodePtr node,
                        MakeBinary(kind, std::move(a), std::move(b)));
  return Value(std::move(node));
}

inline absl::StatusOr<Value> Apply(OpKind kind, Value x) {
  TXLA_ASSIGN_OR_RETURN(NodePtr node, MakeUnary(kind, std::move(x)));
  return Value(std::move(node));
}

}  // namespace torch_xla::ops

#endif  // TORCH_XLA_CSRC_OPS_APPLY_H_
