#ifndef TORCH_XLA_CSRC_IR_ATTRS_H_
#define TORCH_XLA_CSRC_IR_ATTRS_H_

// Node attributes: a small ordered list of (name, value). Values are plain
// data, except sub-graphs, which are shared immutable objects. Attrs is a
// value type; a Node owns its Attrs.

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/strings/string_view.h"
#include "torch_xla/csrc/ir/shape.h"

namespace torch_xla {

class SubGraph;
using SubGraphPtr = std::shared_ptr<const SubGraph>;

// Index order is part of the graph hash; append only.
using AttrValue = std::variant<int64_t, double, bool, std::vector<int64_t>,
                               DType, std::string, SubGraphPtr>;

// Name of the alternative held by `value`: "int64", "double", "bool",
// "int64[]", "dtype", "string", "subgraph".
absl::string_view AttrTypeName(const AttrValue& value);
template <typename T>
absl::string_view AttrTypeName();

// Debug form: 1, 0.5, true, [0,1], f32, sum, subgraph(2 -> 1).
std::string AttrValueToString(const AttrValue& value);

struct Attr {
  std::string name;  // names up to 15 chars stay in std::string's SSO buffer
  AttrValue value;
};

class Attrs {
 public:
  Attrs() = default;

  // Appends an attribute. Overloads pin down C++'s conversions: a literal 0
  // is an int64, a string literal is a string (not a bool). On a temporary
  // (`Attrs().Set(..).Set(..)`) Set returns an rvalue, so the chain moves
  // into MakeNode instead of being copied.
#define TORCH_XLA_ATTRS_SET(ParamType, ...)                       \
  Attrs& Set(absl::string_view name, ParamType value) & {         \
    return Append(name, AttrValue(__VA_ARGS__));                  \
  }                                                               \
  Attrs&& Set(absl::string_view name, ParamType value) && {       \
    Append(name, AttrValue(__VA_ARGS__));                         \
    return std::move(*this);                                      \
  }
  TORCH_XLA_ATTRS_SET(int, std::in_place_type<int64_t>, value)
  TORCH_XLA_ATTRS_SET(int64_t, std::in_place_type<int64_t>, value)
  TORCH_XLA_ATTRS_SET(double, std::in_place_type<double>, value)
  TORCH_XLA_ATTRS_SET(bool, std::in_place_type<bool>, value)
  TORCH_XLA_ATTRS_SET(std::vector<int64_t>,
                      std::in_place_type<std::vector<int64_t>>,
                      std::move(value))
  TORCH_XLA_ATTRS_SET(DType, std::in_place_type<DType>, value)
  TORCH_XLA_ATTRS_SET(const char*, std::in_place_type<std::string>, value)
  TORCH_XLA_ATTRS_SET(absl::string_view, std::in_place_type<std::string>,
                      value.data(), value.size())
  TORCH_XLA_ATTRS_SET(SubGraphPtr, std::in_place_type<SubGraphPtr>,
                      std::move(value))
  TORCH_XLA_ATTRS_SET(AttrValue, std::move(value))
#undef TORCH_XLA_ATTRS_SET

  // Reads by name are Node::GetAttr & co. (checked, typed; ir/node.h) and
  // ShapeRuleArgs::Get & co. (ir/shape_inference.h); what is public here
  // is the generic walk over all attributes (hashing, dumps, copies).
  size_t size() const { return items_.size(); }
  bool empty() const { return items_.empty(); }
  const Attr& operator[](size_t i) const { return items_[i]; }
  auto begin() const { return items_.begin(); }
  auto end() const { return items_.end(); }

  // ", name=value, name=value" (empty when there are none).
  std::string ToString() const;

 private:
  friend class Node;

  // First attribute with this name, or nullptr.
  const AttrValue* Find(absl::string_view name) const;
  Attrs& Append(absl::string_view name, AttrValue value) {
    items_.push_back(Attr{std::string(name), std::move(value)});
    return *this;
  }

  absl::InlinedVector<Attr, 3> items_;
};

}  // namespace torch_xla

#endif  // TORCH_XLA_CSRC_IR_ATTRS_H_
