#ifndef TORCH_XLA_CSRC_OPS_ELEMENTWISE_UTIL_H_
#define TORCH_XLA_CSRC_OPS_ELEMENTWISE_UTIL_H_

// Eager's broadcasting of several operands to their common shape, for the
// elementwise builders (logical_ops, select_ops, division_ops,
// activation_ops); the Value shorthands they share with the nn builders
// (literals, compare, select) are build_util.h's.

#include <cstdint>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "torch_xla/csrc/ir/builder.h"
#include "torch_xla/csrc/ir/status_macros.h"
#include "torch_xla/csrc/ir/value_builders.h"
#include "torch_xla/csrc/ops/build_util.h"

namespace torch_xla::ops {

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
