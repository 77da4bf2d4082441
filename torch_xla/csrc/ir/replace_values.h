#ifndef TORCH_XLA_CSRC_IR_REPLACE_VALUES_H_
#define TORCH_XLA_CSRC_IR_REPLACE_VALUES_H_

// Replacing values in a graph. Nodes are immutable, so a rewrite rebuilds,
// bottom-up, only the nodes that depend on a replaced value; everything else
// is shared with the original graph, which stays valid.
//
// The substitution primitive under the graph rewrites (rewrites/), kept in
// ir/ because SubGraph::CreateFromDataLeaves builds on it; the rewrites that
// decide what to replace live in rewrites/.

#include <cstdint>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "torch_xla/csrc/ir/node.h"

namespace torch_xla {

class Replacements {
 public:
  // Every use of `from` becomes `to` (same shape). A data leaf is matched by
  // its Data id, so every leaf node holding that data is replaced.
  absl::Status Add(const Value& from, Value to);
  // Every leaf holding the data with this id becomes `to`.
  void AddData(int64_t data_id, Value to) { data_[data_id] = std::move(to); }

  bool empty() const { return data_.empty() && values_.empty(); }
  // The replacement of `v`, or null.
  const Value* Find(const Value& v) const;

 private:
  absl::flat_hash_map<int64_t, Value> data_;
  absl::flat_hash_map<std::pair<const Node*, int>, Value> values_;
};

// The roots with the replacements applied. Operand shapes are unchanged, so
// each rebuilt node keeps its kind, attributes and result shapes; a data
// leaf replaced by a value of another shape is an InvalidArgument error.
absl::StatusOr<std::vector<Value>> ReplaceValues(
    absl::Span<const Value> roots, const Replacements& replacements);

}  // namespace torch_xla

#endif  // TORCH_XLA_CSRC_IR_REPLACE_VALUES_H_
