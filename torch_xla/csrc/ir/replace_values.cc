#include "torch_xla/csrc/ir/replace_values.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "torch_xla/csrc/ir/graph_walk.h"

namespace torch_xla {

absl::Status Replacements::Add(const Value& from, Value to) {
  if (!from || !to) {
    return absl::InvalidArgumentError("replacement of a null value");
  }
  if (from.shape() != to.shape()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "cannot replace a ", from.shape().ToString(), " value (",
        from.node->ToString(), ") by a ", to.shape().ToString(), " value"));
  }
  if (from.node->data() != nullptr) {
    AddData(from.node->data()->id(), std::move(to));
  } else {
    values_[{from.node.get(), from.index}] = std::move(to);
  }
  return absl::OkStatus();
}

const Value* Replacements::Find(const Value& v) const {
  if (v.node->data() != nullptr) {
    auto it = data_.find(v.node->data()->id());
    return it == data_.end() ? nullptr : &it->second;
  }
  auto it = values_.find({v.node.get(), v.index});
  return it == values_.end() ? nullptr : &it->second;
}

absl::StatusOr<std::vector<Value>> ReplaceValues(
    absl::Span<const Value> roots, const Replacements& replacements) {
  std::vector<Value> out(roots.begin(), roots.end());
  if (replacements.empty()) return out;
  // node -> its rebuilt copy (only nodes with a replaced operand).
  absl::flat_hash_map<const Node*, NodePtr> rebuilt;
  auto resolve = [&](const Value& v) -> Value {
    if (const Value* to = replacements.Find(v)) return *to;
    auto it = rebuilt.find(v.node.get());
    return it == rebuilt.end() ? v : Value(it->second, v.index);
  };
  // Replacements by data id are not checked when added (the leaf's shape
  // is not known there): check the ones this graph uses.
  auto check = [&](const Value& v) -> absl::Status {
    const Value* to = replacements.Find(v);
    if (to == nullptr || to->shape() == v.shape()) return absl::OkStatus();
    return absl::InvalidArgumentError(absl::StrCat(
        "cannot replace the ", v.shape().ToString(), " leaf of data id ",
        v.node->data()->id(), " by a ", to->shape().ToString(), " value"));
  };
  PostOrder order = ComputePostOrder(roots);
  for (const Node* node : order.nodes) {
    bool changed = false;
    std::vector<Value> operands;
    operands.reserve(node->num_operands());
    for (const Value& v : node->operands()) {
      if (v.node->data() != nullptr) {
        absl::Status status = check(v);
        if (!status.ok()) return status;
      }
      operands.push_back(resolve(v));
      changed |= operands.back() != v;
    }
    if (!changed) continue;
    rebuilt[node] = NodeFactory::Create(node->kind(), std::move(operands),
                                        node->shapes(), node->attrs(),
                                        node->data());
  }
  for (Value& r : out) {
    if (r.node->data() != nullptr) {
      absl::Status status = check(r);
      if (!status.ok()) return status;
    }
    r = resolve(r);
  }
  return out;
}

}  // namespace torch_xla
