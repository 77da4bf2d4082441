#ifndef TORCH_XLA_CSRC_IR_GRAPH_WALK_H_
#define TORCH_XLA_CSRC_IR_GRAPH_WALK_H_

// Iterative post-order traversal (no recursion: graphs have 10,000+ node
// chains). The walk does not enter sub-graphs held in attributes.

#include <cstdint>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/types/span.h"
#include "torch_xla/csrc/ir/node.h"

namespace torch_xla {

// The nodes reachable from a set of roots, each once, operands before users;
// operands are visited in order, roots in order. Raw pointers: the caller
// keeps the roots (and so the graph) alive.
struct PostOrder {
  std::vector<const Node*> nodes;
  absl::flat_hash_map<const Node*, int64_t> position;  // index into nodes

  int64_t PositionOf(const Node* node) const {
    auto it = position.find(node);
    return it == position.end() ? -1 : it->second;
  }
};

PostOrder ComputePostOrder(absl::Span<const Value> roots);

}  // namespace torch_xla

#endif  // TORCH_XLA_CSRC_IR_GRAPH_WALK_H_
