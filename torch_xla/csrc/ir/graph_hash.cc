#include "torch_xla/csrc/ir/graph_hash.h"

#include <cstring>

#include "absl/container/flat_hash_map.h"
#include "torch_xla/csrc/ir/subgraph.h"

namespace torch_xla {

HashBuilder& HashBuilder::AddString(absl::string_view s) {
  Add(s.size());
  size_t i = 0;
  for (; i + 8 <= s.size(); i += 8) {
    uint64_t chunk;
    std::memcpy(&chunk, s.data() + i, 8);
    Add(chunk);
  }
  uint64_t tail = 0;
  if (i < s.size()) std::memcpy(&tail, s.data() + i, s.size() - i);
  return Add(tail);
}

HashBuilder& HashBuilder::AddDouble(double v) {
  uint64_t bits;
  std::memcpy(&bits, &v, sizeof(bits));
  return Add(bits);
}

HashBuilder& HashBuilder::AddShape(const Shape& shape) {
  Add(static_cast<uint64_t>(shape.dtype));
  Add(shape.dims.size());
  for (int64_t d : shape.dims) Add(static_cast<uint64_t>(d));
  return *this;
}

HashBuilder& HashBuilder::AddAttrValue(const AttrValue& value) {
  Add(value.index());
  if (const auto* v = std::get_if<int64_t>(&value)) return Add(*v);
  if (const auto* v = std::get_if<double>(&value)) return AddDouble(*v);
  if (const auto* v = std::get_if<bool>(&value)) return Add(*v ? 1 : 0);
  if (const auto* v = std::get_if<std::vector<int64_t>>(&value)) {
    Add(v->size());
    for (int64_t x : *v) Add(static_cast<uint64_t>(x));
    return *this;
  }
  if (const auto* v = std::get_if<DType>(&value)) {
    return Add(static_cast<uint64_t>(*v));
  }
  if (const auto* v = std::get_if<std::string>(&value)) return AddString(*v);
  const SubGraphPtr& g = std::get<SubGraphPtr>(value);
  return Add(g == nullptr ? 0 : g->hash());
}

uint64_t GraphHash(absl::Span<const Value> roots) {
  return GraphHash(ComputePostOrder(roots), roots);
}

uint64_t GraphHash(const PostOrder& order, absl::Span<const Value> roots) {
  HashBuilder h;
  // Data id -> ordinal of its first occurrence among the leaves.
  absl::flat_hash_map<int64_t, int64_t> data_ordinal;
  h.Add(order.nodes.size());
  for (const Node* node : order.nodes) {
    // The node's own hash, made once when it was built, covers its kind,
    // shapes and attributes; the walk adds what it cannot: which node of
    // this graph each operand is, and which leaves share data.
    h.Add(node->hash());
    h.Add(node->num_operands());
    for (const Value& operand : node->operands()) {
      h.Add(static_cast<uint64_t>(order.PositionOf(operand.node.get())));
      h.Add(static_cast<uint64_t>(operand.index));
    }
    if (node->data() != nullptr) {
      int64_t next = static_cast<int64_t>(data_ordinal.size());
      h.Add(static_cast<uint64_t>(
          data_ordinal.emplace(node->data()->id(), next).first->second));
    }
  }
  h.Add(roots.size());
  for (const Value& root : roots) {
    h.Add(static_cast<uint64_t>(order.PositionOf(root.node.get())));
    h.Add(static_cast<uint64_t>(root.index));
  }
  return h.value();
}

std::vector<uint64_t> ValueHashes(absl::Span<const Value> roots) {
  std::vector<uint64_t> hashes;
  hashes.reserve(roots.size());
  for (const Value& root : roots) {
    hashes.push_back(HashBuilder(root.node->hash())
                         .Add(static_cast<uint64_t>(root.index))
                         .value());
  }
  return hashes;
}

}  // namespace torch_xla
