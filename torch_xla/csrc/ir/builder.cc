#include "torch_xla/csrc/ir/builder.h"

#include <cstdio>
#include <cstdlib>
#include <utility>

#include "absl/strings/str_cat.h"
#include "torch_xla/csrc/ir/shape_inference.h"

namespace torch_xla {
namespace {

absl::Status CheckOperands(OpKind kind, const std::vector<Value>& operands) {
  for (size_t i = 0; i < operands.size(); ++i) {
    const Value& v = operands[i];
    if (v.node == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat(OpKindName(kind), ": operand ", i, " is null"));
    }
    if (v.index < 0 || static_cast<size_t>(v.index) >= v.node->num_outputs()) {
      return absl::InvalidArgumentError(absl::StrCat(
          OpKindName(kind), ": operand ", i, " refers to output ", v.index,
          " of ", v.node->ToString(), ", which has ", v.node->num_outputs(),
          " output(s)"));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckAllAttrsUsed(OpKind kind, const Attrs& attrs,
                               uint64_t used) {
  for (size_t i = 0; i < attrs.size() && i < 64; ++i) {
    if ((used >> i) & 1) continue;
    bool duplicate = false;
    for (size_t j = 0; j < i; ++j) duplicate |= attrs[j].name == attrs[i].name;
    return absl::InvalidArgumentError(absl::StrCat(
        OpKindName(kind), ": ", duplicate ? "duplicate" : "unexpected",
        " attribute '", attrs[i].name, "'"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<NodePtr> MakeNode(OpKind kind, std::vector<Value> operands,
                                 Attrs attrs) {
  if (kind == OpKind::kDeviceData) {
    return absl::InvalidArgumentError(
        "device_data: build data leaves with MakeDataNode(data)");
  }
  absl::Status status = CheckOperands(kind, operands);
  if (!status.ok()) return status;
  ShapeFn fn = DefaultShapeRules().Find(kind);
  if (fn == nullptr) {
    return absl::UnimplementedError(absl::StrCat(
        "no shape rule registered for op '", OpKindName(kind), "'"));
  }
  ShapeRuleArgs args(kind, operands, attrs);
  absl::StatusOr<std::vector<Shape>> shapes = fn(args);
  if (!shapes.ok()) return shapes.status();
  status = CheckAllAttrsUsed(kind, attrs, args.used_attrs());
  if (!status.ok()) return status;
  return NodeFactory::Create(kind, std::move(operands), *std::move(shapes),
                             std::move(attrs), nullptr);
}

NodePtr MakeDataNode(DataPtr data) {
  if (data == nullptr) {
    std::fprintf(stderr, "torch_xla: MakeDataNode(nullptr)\n");
    std::abort();
  }
  std::vector<Shape> shapes;
  shapes.push_back(data->shape());
  return NodeFactory::Create(OpKind::kDeviceData, {}, std::move(shapes),
                             Attrs(), std::move(data));
}

absl::StatusOr<NodePtr> MakeParameter(int64_t index, const Shape& shape) {
  return MakeNode(OpKind::kParameter, {},
                  Attrs()
                      .Set("index", index)
                      .Set("dtype", shape.dtype)
                      .Set("dims", shape.dims));
}

absl::StatusOr<NodePtr> MakeConstant(double value, const Shape& shape) {
  return MakeNode(OpKind::kConstant, {},
                  Attrs()
                      .Set("value", value)
                      .Set("dtype", shape.dtype)
                      .Set("dims", shape.dims));
}

absl::StatusOr<NodePtr> MakeIntConstant(int64_t value, const Shape& shape) {
  return MakeNode(OpKind::kConstant, {},
                  Attrs()
                      .Set("value", value)
                      .Set("dtype", shape.dtype)
                      .Set("dims", shape.dims));
}

absl::StatusOr<NodePtr> MakeBoolConstant(bool value, const Shape& shape) {
  return MakeNode(OpKind::kConstant, {},
                  Attrs()
                      .Set("value", value)
                      .Set("dtype", shape.dtype)
                      .Set("dims", shape.dims));
}

absl::StatusOr<NodePtr> MakeUnary(OpKind kind, Value x) {
  return MakeNode(kind, {std::move(x)});
}

absl::StatusOr<NodePtr> MakeBinary(OpKind kind, Value lhs, Value rhs) {
  return MakeNode(kind, {std::move(lhs), std::move(rhs)});
}

absl::StatusOr<NodePtr> MakeCompare(Value lhs, Value rhs,
                                    absl::string_view direction) {
  return MakeNode(OpKind::kCompare, {std::move(lhs), std::move(rhs)},
                  Attrs().Set("direction", direction));
}

}  // namespace torch_xla
