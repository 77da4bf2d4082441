#include "torch_xla/csrc/ir/graph_walk.h"

#include <utility>

namespace torch_xla {

PostOrder ComputePostOrder(absl::Span<const Value> roots) {
  PostOrder order;
  // (node, index of the next operand to visit)
  std::vector<std::pair<const Node*, size_t>> stack;
  for (const Value& root : roots) {
    const Node* start = root.node.get();
    if (start == nullptr) continue;
    // -1 marks "seen, not yet finished"; there are no cycles in an
    // immutable graph, so a seen node is never pushed again.
    if (!order.position.emplace(start, -1).second) continue;
    stack.emplace_back(start, 0);
    while (!stack.empty()) {
      auto& [node, next] = stack.back();
      if (next < node->num_operands()) {
        const Node* child = node->operand(next++).node.get();
        if (order.position.emplace(child, -1).second) {
          stack.emplace_back(child, 0);  // may invalidate node/next
        }
        continue;
      }
      order.position[node] = static_cast<int64_t>(order.nodes.size());
      order.nodes.push_back(node);
      stack.pop_back();
    }
  }
  return order;
}

}  // namespace torch_xla
