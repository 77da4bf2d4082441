#include "torch_xla/csrc/ir/ir_dump.h"

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "torch_xla/csrc/ir/graph_walk.h"
#include "torch_xla/csrc/ir/subgraph.h"

namespace torch_xla {
namespace {

// Leaves whose shape attributes repeat the printed result shape.
bool HidesShapeAttrs(OpKind kind) {
  return kind == OpKind::kConstant || kind == OpKind::kIota ||
         kind == OpKind::kParameter || kind == OpKind::kRngBitGenerator;
}

// Data leaves print as upstream's dump does, with XLA's default row-major
// layout ("f32[3,4]{1,0}"; none for a scalar): scripts and tests written for
// upstream match that text.
std::string LeafShapeString(const Shape& shape) {
  std::string text = shape.ToString();
  if (shape.rank() == 0) return text;
  text += "{";
  for (int64_t d = shape.rank() - 1; d >= 0; --d) {
    absl::StrAppend(&text, d, d == 0 ? "}" : ",");
  }
  return text;
}

void DumpBlock(const PostOrder& order, absl::Span<const Value> roots,
               int indent, std::string* out) {
  const std::string pad(indent, ' ');
  absl::flat_hash_set<const Node*> root_nodes;
  for (const Value& r : roots) root_nodes.insert(r.node.get());
  for (size_t i = 0; i < order.nodes.size(); ++i) {
    const Node* node = order.nodes[i];
    const bool data_leaf = node->kind() == OpKind::kDeviceData;
    absl::StrAppend(out, pad, root_nodes.contains(node) ? "ROOT " : "", "%", i,
                    " = ",
                    data_leaf ? LeafShapeString(node->shape())
                              : ShapesToString(node->shapes()),
                    " ", data_leaf ? "xla::device_data" : node->name(), "(");
    for (size_t j = 0; j < node->num_operands(); ++j) {
      const Value& v = node->operand(j);
      absl::StrAppend(out, j == 0 ? "" : ", ", "%",
                      order.PositionOf(v.node.get()));
      if (v.node->num_outputs() > 1) absl::StrAppend(out, ".", v.index);
    }
    out->append(")");
    for (const Attr& attr : node->attrs()) {
      if (HidesShapeAttrs(node->kind()) &&
          (attr.name == "dtype" || attr.name == "dims")) {
        continue;
      }
      absl::StrAppend(out, ", ", attr.name, "=");
      if (const auto* g = std::get_if<SubGraphPtr>(&attr.value);
          g != nullptr && *g != nullptr) {
        out->append("{\n");
        DumpBlock((*g)->post_order(), (*g)->results(), indent + 2, out);
        absl::StrAppend(out, pad, "}");
      } else {
        out->append(AttrValueToString(attr.value));
      }
    }
    out->append("\n");
  }
}

}  // namespace

std::string DumpIrText(absl::Span<const Value> roots) {
  std::string out = "IR {\n";
  DumpBlock(ComputePostOrder(roots), roots, 2, &out);
  out += "}\n";
  return out;
}

}  // namespace torch_xla
