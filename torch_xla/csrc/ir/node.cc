#include "torch_xla/csrc/ir/node.h"

#include "absl/strings/str_cat.h"
#include "torch_xla/csrc/ir/graph_hash.h"

namespace torch_xla {

Node::Node(PrivateKey, OpKind kind, std::vector<Value> operands,
           std::vector<Shape> shapes, Attrs attrs, DataPtr data)
    : kind_(kind),
      operands_(std::move(operands)),
      shapes_(std::move(shapes)),
      attrs_(std::move(attrs)),
      data_(std::move(data)) {
  HashBuilder h;
  h.Add(static_cast<uint64_t>(kind_));
  reads_placeholder_ =
      data_ != nullptr && data_->kind() == DataKind::kPlaceholder;
  for (const Value& operand : operands_) {
    h.Add(operand.node->hash()).Add(static_cast<uint64_t>(operand.index));
    reads_placeholder_ = reads_placeholder_ || operand.node->reads_placeholder();
  }
  for (const Shape& shape : shapes_) h.AddShape(shape);
  for (const Attr& attr : attrs_) {
    h.AddString(attr.name);
    h.AddAttrValue(attr.value);
  }
  hash_ = h.value();
}

Node::~Node() {
  // Releasing the last reference to a 100k-node chain would otherwise recurse
  // once per node. Instead, operands this node solely owns are moved onto a
  // local stack; their own operands are stolen before they die, so each
  // nested destructor finds nothing left to release.
  std::vector<NodePtr> stack;
  for (Value& v : operands_) {
    if (v.node != nullptr && v.node.use_count() == 1) {
      stack.push_back(std::move(v.node));
    }
  }
  while (!stack.empty()) {
    NodePtr n = std::move(stack.back());
    stack.pop_back();
    // We hold the only reference: nobody else can read or copy it. (The node
    // was created non-const by make_shared, so mutating it is well defined.)
    if (n.use_count() == 1) {
      for (Value& v : const_cast<Node*>(n.get())->operands_) {
        if (v.node != nullptr && v.node.use_count() == 1) {
          stack.push_back(std::move(v.node));
        }
      }
    }
  }
}

std::string ShapesToString(const std::vector<Shape>& shapes) {
  if (shapes.size() == 1) return shapes[0].ToString();
  std::string out = "(";
  for (size_t i = 0; i < shapes.size(); ++i) {
    absl::StrAppend(&out, i == 0 ? "" : ", ", shapes[i].ToString());
  }
  out += ")";
  return out;
}

std::string Node::ToString() const {
  return absl::StrCat(name(), " ", ShapesToString(shapes_), attrs_.ToString());
}

absl::StatusOr<const AttrValue*> Node::GetAnyAttr(
    absl::string_view name) const {
  const AttrValue* v = attrs_.Find(name);
  if (v == nullptr) return AttrError(name, "a value", nullptr);
  return v;
}

absl::Status Node::AttrError(absl::string_view name,
                             absl::string_view expected,
                             const AttrValue* got) const {
  if (got == nullptr) {
    return absl::InternalError(absl::StrCat("node ", ToString(),
                                            ": missing attribute '", name,
                                            "' (", expected, ")"));
  }
  return absl::InternalError(absl::StrCat(
      "node ", ToString(), ": attribute '", name, "' must be ", expected,
      ", got ", AttrTypeName(*got), " ", AttrValueToString(*got)));
}

}  // namespace torch_xla
