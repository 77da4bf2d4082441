#include "torch_xla/csrc/lowering/emitter.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "torch_xla/csrc/ir/status_macros.h"
#include "torch_xla/csrc/lowering/mlir_text.h"

namespace torch_xla {

MlirEmitter::MlirEmitter(const LowerRuleTable& rules, std::string* out,
                         int indent)
    : rules_(rules), out_(out), indent_(indent) {
  scopes_.emplace_back();
}

std::string MlirEmitter::NewName() { return absl::StrCat("%", next_name_++); }

void MlirEmitter::PushScope() { scopes_.emplace_back(); }

void MlirEmitter::PopScope() { scopes_.pop_back(); }

void MlirEmitter::Bind(const Node* node, std::string name) {
  scopes_.back()[node] = std::move(name);
}

void MlirEmitter::BindOutputs(const Node* node,
                              std::vector<std::string> names) {
  std::string key = absl::StrCat("%outputs", output_lists_.size());
  output_lists_[key] = std::move(names);
  Bind(node, std::move(key));
}

bool MlirEmitter::IsBound(const Node* node) const {
  return scopes_.back().contains(node);
}

std::string MlirEmitter::Ref(const Value& value) const {
  auto it = scopes_.back().find(value.node.get());
  if (it == scopes_.back().end()) {
    // Lowering visits operands first, so this is a bug in a lower rule.
    return absl::StrCat("%<unbound ", value.node->ToString(), ">");
  }
  if (value.node->num_outputs() == 1) return it->second;
  if (!output_lists_.empty()) {
    auto list = output_lists_.find(it->second);
    if (list != output_lists_.end()) return list->second[value.index];
  }
  return absl::StrCat(it->second, "#", value.index);
}

std::vector<std::string> MlirEmitter::OperandRefs(const Node& node) const {
  std::vector<std::string> refs;
  refs.reserve(node.num_operands());
  for (const Value& v : node.operands()) refs.push_back(Ref(v));
  return refs;
}

std::vector<std::string> MlirEmitter::OperandTypes(const Node& node) {
  std::vector<std::string> types;
  types.reserve(node.num_operands());
  for (const Value& v : node.operands()) types.push_back(v.shape().ToMlirType());
  return types;
}

std::vector<std::string> MlirEmitter::ResultTypes(const Node& node) {
  std::vector<std::string> types;
  types.reserve(node.num_outputs());
  for (const Shape& s : node.shapes()) types.push_back(s.ToMlirType());
  return types;
}

void MlirEmitter::EmitNodeOp(const Node& node, absl::string_view op,
                             absl::string_view attrs) {
  // No regions, so this cannot fail.
  std::string name =
      *EmitOp(op, OperandRefs(node), OperandTypes(node), attrs,
              ResultTypes(node));
  Bind(&node, std::move(name));
}

void MlirEmitter::Line(absl::string_view text) {
  out_->append(indent_, ' ');
  absl::StrAppend(out_, text, "\n");
}

absl::StatusOr<std::string> MlirEmitter::EmitOp(
    absl::string_view op, absl::Span<const std::string> operands,
    absl::Span<const std::string> operand_types, absl::string_view attrs,
    absl::Span<const std::string> result_types,
    absl::Span<const RegionFn> regions) {
  std::string name;
  out_->append(indent_, ' ');
  if (!result_types.empty()) {
    name = NewName();
    absl::StrAppend(out_, name);
    if (result_types.size() > 1) absl::StrAppend(out_, ":", result_types.size());
    absl::StrAppend(out_, " = ");
  }
  absl::StrAppend(out_, "\"", op, "\"(", absl::StrJoin(operands, ", "), ")");
  if (!regions.empty()) {
    const int outer = indent_;
    for (size_t i = 0; i < regions.size(); ++i) {
      absl::StrAppend(out_, i == 0 ? " ({\n" : ", {\n");
      indent_ = outer + 2;
      absl::Status status = regions[i](*this);
      indent_ = outer;
      if (!status.ok()) return status;
      out_->append(outer, ' ');
      out_->append("}");
    }
    out_->append(")");
  }
  if (!attrs.empty()) absl::StrAppend(out_, " ", attrs);
  absl::StrAppend(out_, " : ", FunctionType(operand_types, result_types),
                  "\n");
  return name;
}

absl::StatusOr<std::string> MlirEmitter::EmitSplatConstant(
    const AttrValue& value, const Shape& shape) {
  TXLA_ASSIGN_OR_RETURN(std::string literal, SplatLiteral(value, shape.dtype));
  const std::string type = shape.ToMlirType();
  return EmitOp("stablehlo.constant", {}, {},
                absl::StrCat("{value = dense<", literal, "> : ", type, "}"),
                {type});
}

std::vector<std::string> MlirEmitter::EmitBlockHeader(
    absl::Span<const std::string> arg_types) {
  std::vector<std::string> names;
  std::string header = "^bb0(";
  for (size_t i = 0; i < arg_types.size(); ++i) {
    names.push_back(NewName());
    absl::StrAppend(&header, i == 0 ? "" : ", ", names.back(), ": ",
                    arg_types[i]);
  }
  header += "):";
  Line(header);
  return names;
}

void MlirEmitter::EmitReturn(absl::Span<const std::string> values,
                             absl::Span<const std::string> types) {
  Line(absl::StrCat("\"stablehlo.return\"(", absl::StrJoin(values, ", "),
                    ") : (", absl::StrJoin(types, ", "), ") -> ()"));
}

void MlirEmitter::EmitScalarBinaryRegion(absl::string_view op, DType dtype) {
  const std::string type = Shape(dtype, {}).ToMlirType();
  std::vector<std::string> args = EmitBlockHeader({type, type});
  indent_ += 2;
  std::string result = args[1];
  if (!op.empty()) {
    result = *EmitOp(op, args, {type, type}, "", {type});
  }
  EmitReturn({result}, {type});
  indent_ -= 2;
}

absl::Status MlirEmitter::EmitSubGraphRegion(const SubGraph& graph) {
  std::vector<std::string> arg_types;
  for (size_t i = 0; i < graph.parameters().size(); ++i) {
    arg_types.push_back(graph.parameter_shape(i).ToMlirType());
  }
  PushScope();
  std::vector<std::string> args = EmitBlockHeader(arg_types);
  for (size_t i = 0; i < args.size(); ++i) {
    Bind(graph.parameters()[i].get(), args[i]);
  }
  indent_ += 2;
  absl::Status status = LowerNodes(graph.post_order().nodes);
  if (status.ok()) {
    std::vector<std::string> refs, types;
    for (const Value& r : graph.results()) {
      refs.push_back(Ref(r));
      types.push_back(r.shape().ToMlirType());
    }
    EmitReturn(refs, types);
  }
  indent_ -= 2;
  PopScope();
  return status;
}

absl::Status MlirEmitter::LowerNodes(absl::Span<const Node* const> nodes) {
  for (const Node* node : nodes) {
    if (IsBound(node)) continue;
    LowerFn fn = rules_.Find(node->kind());
    if (fn == nullptr) {
      return absl::UnimplementedError(absl::StrCat(
          "no lowering rule registered for op '", node->name(), "'"));
    }
    absl::Status status = fn(*node, *this);
    if (!status.ok()) {
      return absl::Status(status.code(),
                          absl::StrCat("while lowering ", node->ToString(),
                                       ": ", status.message()));
    }
    if (!IsBound(node)) {
      return absl::InternalError(absl::StrCat(
          "the lowering of ", node->ToString(), " did not bind its results"));
    }
  }
  return absl::OkStatus();
}

}  // namespace torch_xla
