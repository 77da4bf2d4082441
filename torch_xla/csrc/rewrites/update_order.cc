#include "torch_xla/csrc/rewrites/update_order.h"

#include <algorithm>

#include "absl/container/flat_hash_map.h"

namespace torch_xla {
namespace {

// Ops that only move or reinterpret data: XLA may lower them to a bitcast
// of their operand or fold them into the consumer's indexing.
bool IsDataMovement(OpKind kind) {
  switch (kind) {
    case OpKind::kReshape:
    case OpKind::kTranspose:
    case OpKind::kBroadcastInDim:
    case OpKind::kSlice:
    case OpKind::kConvert:
    case OpKind::kBitcastConvert:
    case OpKind::kSharding:
      return true;
    default:
      return false;
  }
}

// Ops XLA may fuse into their consumers (or lower to a bitcast of their
// operand): a consumer of one of them may read the parameter's buffer
// itself. The others read their operands once, when they run.
bool MayPassOnARead(OpKind kind) {
  switch (kind) {
    case OpKind::kDotGeneral:
    case OpKind::kConvolution:
    case OpKind::kReduce:
    case OpKind::kReduceWindow:
    case OpKind::kSelectAndScatter:
    case OpKind::kSort:
    case OpKind::kWhile:
    case OpKind::kOptimizationBarrier:
    case OpKind::kRngBitGenerator:
      return false;
    default:
      return true;
  }
}

// The graph as positions in a post order, with users and owning pointers.
struct Graph {
  const PostOrder& order;
  std::vector<std::vector<int64_t>> users;
  std::vector<NodePtr> node;  // owning pointer of each position
  std::vector<char> is_result;

  Graph(const PostOrder& order, absl::Span<const Value> results)
      : order(order),
        users(order.nodes.size()),
        node(order.nodes.size()),
        is_result(order.nodes.size(), 0) {
    for (size_t i = 0; i < order.nodes.size(); ++i) {
      for (const Value& operand : order.nodes[i]->operands()) {
        const int64_t p = order.PositionOf(operand.node.get());
        users[p].push_back(static_cast<int64_t>(i));
        node[p] = operand.node;
      }
    }
    for (const Value& r : results) {
      const int64_t p = order.PositionOf(r.node.get());
      is_result[p] = 1;
      node[p] = r.node;
    }
  }

  size_t size() const { return order.nodes.size(); }

  // Marks `from` and everything they depend on. Operands come before users
  // in a post order, so one backward sweep finds them.
  std::vector<char> Ancestors(absl::Span<const int64_t> from) const {
    std::vector<char> marked(size(), 0);
    int64_t last = -1;
    for (int64_t p : from) {
      marked[p] = 1;
      last = std::max(last, p);
    }
    for (int64_t i = last; i >= 0; --i) {
      if (!marked[i]) continue;
      for (const Value& operand : order.nodes[i]->operands()) {
        marked[order.PositionOf(operand.node.get())] = 1;
      }
    }
    return marked;
  }
};

struct Plan {
  int64_t data_id;
  std::vector<int64_t> waits_for;  // positions
  std::vector<int64_t> readers;    // the update's readers of the leaves
};

// The readers of `leaves` that the update (ancestors `in_update`) does not
// depend on, followed through ops that may pass a read on. A computing op
// the update depends on is taken to run as its own kernel (following reads
// through it would order the update after most of the backward pass).
std::vector<int64_t> OtherReaders(const Graph& g,
                                  absl::Span<const int64_t> leaves,
                                  const std::vector<char>& in_update) {
  std::vector<int64_t> found;
  std::vector<char> seen(g.size(), 0);
  std::vector<int64_t> stack(leaves.begin(), leaves.end());
  for (int64_t leaf : leaves) seen[leaf] = 1;
  while (!stack.empty()) {
    const int64_t p = stack.back();
    stack.pop_back();
    for (int64_t u : g.users[p]) {
      if (seen[u]) continue;
      seen[u] = 1;
      const OpKind kind = g.order.nodes[u]->kind();
      const bool passes =
          in_update[u] ? IsDataMovement(kind) : MayPassOnARead(kind);
      if (!in_update[u] && (!passes || g.is_result[u])) found.push_back(u);
      if (passes) stack.push_back(u);
    }
  }
  return found;
}

// Post order of the graph where each node also waits for `after[node]`;
// false on a cycle.
bool OrderWithWaits(
    const Graph& g,
    const absl::flat_hash_map<int64_t, std::vector<int64_t>>& after,
    std::vector<const Node*>* nodes) {
  enum : char { kNew, kOpen, kDone };
  std::vector<char> state(g.size(), kNew);
  // (position, its children, index of the next one)
  struct Frame {
    int64_t p;
    std::vector<int64_t> children;
    size_t next = 0;
  };
  std::vector<Frame> stack;
  auto open = [&](int64_t p) {
    Frame frame{p, {}, 0};
    for (const Value& operand : g.order.nodes[p]->operands()) {
      frame.children.push_back(g.order.PositionOf(operand.node.get()));
    }
    auto it = after.find(p);
    if (it != after.end()) {
      frame.children.insert(frame.children.end(), it->second.begin(),
                            it->second.end());
    }
    state[p] = kOpen;
    stack.push_back(std::move(frame));
  };
  for (size_t root = 0; root < g.size(); ++root) {
    if (state[root] != kNew) continue;
    open(static_cast<int64_t>(root));
    while (!stack.empty()) {
      Frame& top = stack.back();
      if (top.next < top.children.size()) {
        const int64_t child = top.children[top.next++];
        if (state[child] == kOpen) return false;
        if (state[child] == kNew) open(child);  // may invalidate top
        continue;
      }
      state[top.p] = kDone;
      nodes->push_back(g.order.nodes[top.p]);
      stack.pop_back();
    }
  }
  return true;
}

}  // namespace

UpdateOrder OrderInPlaceUpdates(
    const PostOrder& order, absl::Span<const Value> results,
    absl::Span<const std::pair<int64_t, Value>> updates) {
  UpdateOrder unchanged;
  unchanged.nodes = order.nodes;
  if (updates.empty()) return unchanged;
  const Graph g(order, results);

  absl::flat_hash_map<int64_t, std::vector<int64_t>> leaves;  // by data id
  for (const auto& [data_id, result] : updates) leaves[data_id];
  for (size_t i = 0; i < g.size(); ++i) {
    const Node* node = order.nodes[i];
    if (node->kind() != OpKind::kDeviceData) continue;
    auto it = leaves.find(node->data()->id());
    if (it != leaves.end()) it->second.push_back(static_cast<int64_t>(i));
  }

  std::vector<Plan> plans;
  for (const auto& [data_id, result] : updates) {
    const std::vector<int64_t>& of_data = leaves[data_id];
    const int64_t update = order.PositionOf(result.node.get());
    if (of_data.empty() || update < 0 ||
        result.node->kind() == OpKind::kDeviceData) {
      continue;
    }
    const std::vector<char> in_update = g.Ancestors({update});
    Plan plan{data_id, OtherReaders(g, of_data, in_update), {}};
    if (plan.waits_for.empty()) continue;
    const std::vector<char> before_others = g.Ancestors(plan.waits_for);
    for (int64_t leaf : of_data) {
      for (int64_t u : g.users[leaf]) {
        if (in_update[u] && !before_others[u]) plan.readers.push_back(u);
      }
    }
    if (plan.readers.empty()) continue;  // the update runs first: XLA copies
    plans.push_back(std::move(plan));
  }
  if (plans.empty()) return unchanged;

  // All barriers at once; if they make a cycle (a graph that goes on
  // computing with updated values), keep those that do not, one by one.
  absl::flat_hash_map<int64_t, std::vector<int64_t>> after;
  auto add = [&after](const Plan& plan) {
    for (int64_t reader : plan.readers) {
      std::vector<int64_t>& waits = after[reader];
      waits.insert(waits.end(), plan.waits_for.begin(), plan.waits_for.end());
    }
  };
  for (const Plan& plan : plans) add(plan);
  UpdateOrder ordered;
  if (!OrderWithWaits(g, after, &ordered.nodes)) {
    after.clear();
    std::vector<Plan> kept;
    for (Plan& plan : plans) {
      auto before = after;
      add(plan);
      std::vector<const Node*> nodes;
      if (OrderWithWaits(g, after, &nodes)) {
        kept.push_back(std::move(plan));
      } else {
        after = std::move(before);
      }
    }
    plans = std::move(kept);
    if (plans.empty()) return unchanged;
    ordered.nodes.clear();
    OrderWithWaits(g, after, &ordered.nodes);
  }
  absl::flat_hash_map<const Node*, int64_t> position;
  for (size_t i = 0; i < ordered.nodes.size(); ++i) {
    position[ordered.nodes[i]] = static_cast<int64_t>(i);
  }
  for (const Plan& plan : plans) {
    UpdateOrder::Barrier barrier;
    barrier.data_id = plan.data_id;
    for (int64_t p : plan.waits_for) barrier.waits_for.push_back(g.node[p]);
    for (int64_t p : leaves[plan.data_id]) {
      barrier.leaves.push_back(order.nodes[p]);
    }
    barrier.before = order.nodes[*std::min_element(
        plan.readers.begin(), plan.readers.end(), [&](int64_t a, int64_t b) {
          return position[order.nodes[a]] < position[order.nodes[b]];
        })];
    ordered.barriers.push_back(std::move(barrier));
  }
  return ordered;
}

}  // namespace torch_xla
