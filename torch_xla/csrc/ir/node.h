#ifndef TORCH_XLA_CSRC_IR_NODE_H_
#define TORCH_XLA_CSRC_IR_NODE_H_

// The IR graph: one generic, immutable Node type.
//
// Ownership: a node holds shared references to its operands (through Values);
// nothing points back up, so a graph is a DAG kept alive by its roots. A leaf
// (device_data) shares ownership of its Data with the tensors using it.
// Nodes are made only by MakeNode/MakeDataNode (ir/builder.h), which check
// operands and attributes and compute the result shapes once.

#include <cstdint>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "torch_xla/csrc/ir/attrs.h"
#include "torch_xla/csrc/ir/data.h"
#include "torch_xla/csrc/ir/op_kind.h"
#include "torch_xla/csrc/ir/shape.h"

namespace torch_xla {

class Node;
using NodePtr = std::shared_ptr<const Node>;

// One result of a node. Multi-result nodes (while, rng_bit_generator,
// optimization_barrier) are used through Values with index > 0; there is no
// tuple type in the IR.
struct Value {
  NodePtr node;
  int index = 0;

  Value() = default;
  Value(NodePtr node, int index = 0)  // NOLINT: implicit from a node
      : node(std::move(node)), index(index) {}

  const Shape& shape() const;
  explicit operator bool() const { return node != nullptr; }
  friend bool operator==(const Value& a, const Value& b) {
    return a.node == b.node && a.index == b.index;
  }
  friend bool operator!=(const Value& a, const Value& b) { return !(a == b); }
};

// An operation applied to operand values, producing one or more results.
// Immutable after construction; safe to share across threads.
class Node {
 private:
  struct PrivateKey {
    explicit PrivateKey() = default;
  };

 public:
  // Use MakeNode / MakeDataNode; the key keeps this constructor private to
  // them while allowing std::make_shared.
  Node(PrivateKey, OpKind kind, std::vector<Value> operands,
       std::vector<Shape> shapes, Attrs attrs, DataPtr data);
  // Tears long operand chains down iteratively (no recursion per node).
  ~Node();
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;

  OpKind kind() const { return kind_; }
  absl::string_view name() const { return OpKindName(kind_); }
  const std::vector<Value>& operands() const { return operands_; }
  const Value& operand(size_t i) const { return operands_[i]; }
  size_t num_operands() const { return operands_.size(); }
  const std::vector<Shape>& shapes() const { return shapes_; }
  const Shape& shape(size_t i = 0) const { return shapes_[i]; }
  size_t num_outputs() const { return shapes_.size(); }
  // All attributes, for generic walks (hash, dump, copying a node). Rules
  // read one attribute by name through the accessors below.
  const Attrs& attrs() const { return attrs_; }

  // Typed, checked reads of one attribute. The node's shape rule checked its
  // attributes when it was built, so a failure here is a bug in the reader
  // (a lowering or rewrite asking for an attribute the rule does not define,
  // or for another type): an InternalError naming this node, e.g.
  // "node sort s64[4], stable=true: missing attribute 'dimension' (int64)",
  // never undefined behaviour.
  //
  //   TXLA_ASSIGN_OR_RETURN(const Dims* window, node.GetAttr<Dims>("window"));
  //
  // A required attribute of type T (never nullptr).
  template <typename T>
  absl::StatusOr<const T*> GetAttr(absl::string_view name) const {
    const AttrValue* v = attrs_.Find(name);
    if (v != nullptr) {
      if (const T* typed = std::get_if<T>(v)) return typed;
    }
    return AttrError(name, AttrTypeName<T>(), v);
  }
  // An optional attribute of type T: nullptr when absent.
  template <typename T>
  absl::StatusOr<const T*> GetOptionalAttr(absl::string_view name) const {
    const AttrValue* v = attrs_.Find(name);
    if (v == nullptr) return static_cast<const T*>(nullptr);
    if (const T* typed = std::get_if<T>(v)) return typed;
    return AttrError(name, AttrTypeName<T>(), v);
  }
  // An optional attribute of type T, `default_value` when absent.
  template <typename T>
  absl::StatusOr<T> GetAttrOr(absl::string_view name, T default_value) const {
    const AttrValue* v = attrs_.Find(name);
    if (v == nullptr) return default_value;
    if (const T* typed = std::get_if<T>(v)) return *typed;
    return AttrError(name, AttrTypeName<T>(), v);
  }
  // A required attribute of any type (a constant's "value").
  absl::StatusOr<const AttrValue*> GetAnyAttr(absl::string_view name) const;
  // Non-null only for device_data leaves.
  const DataPtr& data() const { return data_; }

  // Computed once, at construction, so a sync never walks a graph for them:
  // a structural hash of the computation the node stands for (kind,
  // attributes, shapes and its operands' hashes; a data leaf counts by its
  // shape, never by its identity or value), and whether it reads a
  // placeholder anywhere below it.
  uint64_t hash() const { return hash_; }
  bool reads_placeholder() const { return reads_placeholder_; }

  // "sine f32[2,3]", "while (f32[2], s64[]), cond=..., body=...".
  std::string ToString() const;

 private:
  // The InternalError of a failed read: `got` is the value found under
  // `name`, nullptr when there is none.
  absl::Status AttrError(absl::string_view name, absl::string_view expected,
                         const AttrValue* got) const;

  friend class NodeFactory;

  const OpKind kind_;
  std::vector<Value> operands_;  // not const: the destructor moves from it
  const std::vector<Shape> shapes_;
  const Attrs attrs_;
  const DataPtr data_;
  uint64_t hash_ = 0;
  bool reads_placeholder_ = false;
};

// "f32[2,3]" for one result, "(f32[2], u32[4])" for several.
std::string ShapesToString(const std::vector<Shape>& shapes);

inline const Shape& Value::shape() const { return node->shape(index); }

// Only the builders construct nodes.
class NodeFactory {
 public:
  static NodePtr Create(OpKind kind, std::vector<Value> operands,
                        std::vector<Shape> shapes, Attrs attrs, DataPtr data) {
    return std::make_shared<const Node>(Node::PrivateKey(), kind,
                                        std::move(operands), std::move(shapes),
                                        std::move(attrs), std::move(data));
  }
};

}  // namespace torch_xla

#endif  // TORCH_XLA_CSRC_IR_NODE_H_
