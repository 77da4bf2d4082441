#include "torch_xla/csrc/rewrites/loop_partition.h"

#include <algorithm>

#include "absl/container/flat_hash_map.h"
#include "torch_xla/csrc/ir/graph_hash.h"
#include "torch_xla/csrc/ir/graph_walk.h"

namespace torch_xla {
namespace {

using ValueKey = std::pair<const Node*, int>;

// Per node of `order`: whether it reaches a leaf whose data id is in `ids`.
std::vector<char> DependsOn(const PostOrder& order, const DataIdSet& ids) {
  std::vector<char> depends(order.nodes.size(), 0);
  for (size_t i = 0; i < order.nodes.size(); ++i) {
    const Node* node = order.nodes[i];
    if (node->data() != nullptr) {
      depends[i] = ids.contains(node->data()->id());
      continue;
    }
    for (const Value& v : node->operands()) {
      if (depends[order.PositionOf(v.node.get())]) {
        depends[i] = 1;
        break;
      }
    }
  }
  return depends;
}

// Ops whose results are cheaper to recompute than to keep (elementwise,
// shapes, data movement); the rest are saved when rematerializing.
bool CheapToRecompute(const Node& node) {
  switch (node.kind()) {
    case OpKind::kDeviceData:
    case OpKind::kParameter:
    case OpKind::kDotGeneral:
    case OpKind::kReduce:
    case OpKind::kGather:
    case OpKind::kScatter:
    case OpKind::kRngBitGenerator:
    case OpKind::kWhile:
    case OpKind::kOptimizationBarrier:
    case OpKind::kCall:
      return false;
    default:
      return true;
  }
}

// Ops that only rearrange or widen their operand: recomputing them from a
// saved operand costs nothing, and saving both would store it twice.
bool RearrangesOnly(const Node& node) {
  switch (node.kind()) {
    case OpKind::kReshape:
    case OpKind::kTranspose:
    case OpKind::kBroadcastInDim:
    case OpKind::kSlice:
    case OpKind::kReverse:
      return true;
    default:
      return false;
  }
}

// Sorts values by walk position (then result index) and drops repeats.
void SortByWalk(const PostOrder& order, std::vector<Value>* values) {
  auto key = [&](const Value& v) {
    return std::make_pair(order.PositionOf(v.node.get()), v.index);
  };
  std::sort(values->begin(), values->end(),
            [&](const Value& a, const Value& b) { return key(a) < key(b); });
  values->erase(std::unique(values->begin(), values->end()), values->end());
}

}  // namespace

std::vector<Value> LoopInvariants(absl::Span<const Value> roots,
                                  const DataIdSet& variables) {
  PostOrder order = ComputePostOrder(roots);
  std::vector<char> depends = DependsOn(order, variables);
  // Must be computed outside the body: needs a leaf from outside, or draws
  // random numbers (or loops), which must happen once, not per iteration.
  std::vector<char> external(order.nodes.size(), 0);
  for (size_t i = 0; i < order.nodes.size(); ++i) {
    const Node* node = order.nodes[i];
    if (node->data() != nullptr) {
      // Uniform host values become constants in the body; other host data
      // (a tensor on the SPMD virtual device) comes in like device data.
      const Data& data = *node->data();
      external[i] = !depends[i] &&
                    (data.kind() != DataKind::kHost || !data.is_uniform());
      continue;
    }
    external[i] = node->kind() == OpKind::kRngBitGenerator ||
                  node->kind() == OpKind::kWhile;
    for (const Value& v : node->operands()) {
      external[i] |= external[order.PositionOf(v.node.get())];
    }
  }
  std::vector<Value> out;
  absl::flat_hash_set<ValueKey> seen;
  auto consider = [&](Value v) {
    int64_t p = order.PositionOf(v.node.get());
    if (depends[p] || !external[p]) return;
    // A view of an outside value (W.t(), a broadcast bias) stays in the body
    // over that value: XLA folds it into its consumer there (a dot's
    // dimension numbers, a fusion); computed outside, it is materialized.
    while (RearrangesOnly(*v.node)) v = v.node->operand(0);
    if (seen.insert({v.node.get(), v.index}).second) out.push_back(v);
  };
  for (size_t i = 0; i < order.nodes.size(); ++i) {
    if (!depends[i]) continue;
    for (const Value& v : order.nodes[i]->operands()) consider(v);
  }
  for (const Value& r : roots) consider(r);
  return out;
}

std::vector<Value> SavedForBackward(absl::Span<const Value> backward_roots,
                                    const DataIdSet& primals,
                                    const DataIdSet& available,
                                    const DataIdSet& tangents,
                                    bool rematerialize,
                                    absl::Span<const Value> forward_roots) {
  PostOrder order = ComputePostOrder(backward_roots);
  std::vector<char> primal = DependsOn(order, primals);
  std::vector<char> tangent = DependsOn(order, tangents);
  DataIdSet scarce;  // primals the backward does not have
  for (int64_t id : primals) {
    if (!available.contains(id)) scarce.insert(id);
  }
  std::vector<char> needs_scarce = DependsOn(order, scarce);
  auto forward_value = [&](const Value& v) {
    int64_t p = order.PositionOf(v.node.get());
    return primal[p] && !tangent[p];
  };
  // The forward's own values (those `forward_roots` use; all, when none
  // are given).
  absl::flat_hash_set<const Node*> in_forward;
  for (const Node* node : ComputePostOrder(forward_roots).nodes) {
    in_forward.insert(node);
  }
  auto forward_computes = [&](const Value& v) {
    return forward_roots.empty() || in_forward.contains(v.node.get());
  };
  // default_partition saves the forward's activations (functorch's does:
  // none is recomputed); what only the backward formulas compute from them
  // (cos(x) for sin) is computed in the backward. Views, and type
  // conversions of what the backward has anyway (a weight slice cast under
  // autocast), are redone there instead of stored a second time.
  auto recompute = [&](const Value& v) {
    if (!CheapToRecompute(*v.node)) return false;
    if (rematerialize || RearrangesOnly(*v.node) || !forward_computes(v)) {
      return true;
    }
    return v.node->kind() == OpKind::kConvert &&
           !needs_scarce[order.PositionOf(v.node.get())];
  };
  std::vector<Value> needed;
  for (size_t i = 0; i < order.nodes.size(); ++i) {
    if (!tangent[i]) continue;
    for (const Value& v : order.nodes[i]->operands()) {
      if (forward_value(v)) needed.push_back(v);
    }
  }
  for (const Value& r : backward_roots) {
    if (forward_value(r)) needed.push_back(r);
  }
  // Walk down from what the backward reads: recompute what `recompute`
  // allows from its operands, save the rest.
  std::vector<Value> saved;
  absl::flat_hash_set<ValueKey> visited;
  while (!needed.empty()) {
    Value v = std::move(needed.back());
    needed.pop_back();
    if (!visited.insert({v.node.get(), v.index}).second) continue;
    if (!recompute(v)) {
      saved.push_back(std::move(v));
      continue;
    }
    for (const Value& u : v.node->operands()) {
      if (forward_value(u)) needed.push_back(u);
    }
  }
  SortByWalk(order, &saved);
  return saved;
}

uint64_t TraceKey(absl::Span<const Value> roots,
                  absl::Span<const int64_t> variables) {
  PostOrder order = ComputePostOrder(roots);
  absl::flat_hash_map<int64_t, int64_t> variable_index;
  for (size_t i = 0; i < variables.size(); ++i) {
    variable_index.emplace(variables[i], static_cast<int64_t>(i));
  }
  HashBuilder h(GraphHash(order, roots));
  for (const Node* node : order.nodes) {
    if (node->data() == nullptr) continue;
    auto it = variable_index.find(node->data()->id());
    h.Add(static_cast<uint64_t>(node->data()->kind()));
    h.Add(it == variable_index.end() ? 0 : static_cast<uint64_t>(it->second + 1));
  }
  return h.value();
}

}  // namespace torch_xla
