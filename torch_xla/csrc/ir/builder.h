#ifndef TORCH_XLA_CSRC_IR_BUILDER_H_
#define TORCH_XLA_CSRC_IR_BUILDER_H_

// Building nodes. MakeNode runs the op's shape rule (ir/shape_inference.h)
// once, so a node that exists is well formed; failures are InvalidArgument
// naming the op and the operand shapes. This is the hot path of every traced
// PyTorch op: one shape-rule call and one allocation for the node.

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "torch_xla/csrc/ir/attrs.h"
#include "torch_xla/csrc/ir/data.h"
#include "torch_xla/csrc/ir/node.h"
#include "torch_xla/csrc/ir/op_kind.h"

namespace torch_xla {

// Builds a node of any kind except device_data. Attributes no rule reads are
// rejected (they are typos).
absl::StatusOr<NodePtr> MakeNode(OpKind kind, std::vector<Value> operands,
                                 Attrs attrs = Attrs());

// A device_data leaf standing for `data` (device buffer, host data or
// placeholder); its shape is the data's. `data` must not be null.
NodePtr MakeDataNode(DataPtr data);

// Convenience builders for readability; all go through MakeNode.

// A sub-graph parameter (only valid inside while cond/body sub-graphs).
absl::StatusOr<NodePtr> MakeParameter(int64_t index, const Shape& shape);
// A scalar splatted to `shape`. Floating values are kept as doubles and
// rounded to the element type when lowered.
absl::StatusOr<NodePtr> MakeConstant(double value, const Shape& shape);
absl::StatusOr<NodePtr> MakeIntConstant(int64_t value, const Shape& shape);
absl::StatusOr<NodePtr> MakeBoolConstant(bool value, const Shape& shape);
absl::StatusOr<NodePtr> MakeUnary(OpKind kind, Value x);
absl::StatusOr<NodePtr> MakeBinary(OpKind kind, Value lhs, Value rhs);
// direction: "EQ", "NE", "LT", "LE", "GT", "GE".
absl::StatusOr<NodePtr> MakeCompare(Value lhs, Value rhs,
                                    absl::string_view direction);

}  // namespace torch_xla

#endif  // TORCH_XLA_CSRC_IR_BUILDER_H_
