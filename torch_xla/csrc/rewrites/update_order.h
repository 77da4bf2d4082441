#ifndef TORCH_XLA_CSRC_REWRITES_UPDATE_ORDER_H_
#define TORCH_XLA_CSRC_REWRITES_UPDATE_ORDER_H_

// Ordering an in-place update after the other readers of the old value.
//
// When a parameter donates its buffer to a result (an optimizer step that
// updates a weight), XLA must not write the result before every other read
// of the parameter is done. Reads the update does not depend on (the
// backward's `grad_input = grad @ W` in a training step) are unordered with
// it, so XLA copies the parameter, every step. An optimization barrier over
// (parameter, those readers' results) that the update reads the parameter
// through orders them, and XLA then writes in place.

#include <cstdint>
#include <utility>
#include <vector>

#include "absl/types/span.h"
#include "torch_xla/csrc/ir/graph_walk.h"
#include "torch_xla/csrc/ir/node.h"

namespace torch_xla {

struct UpdateOrder {
  struct Barrier {
    int64_t data_id;               // the parameter's data
    std::vector<Value> waits_for;  // readers of the old value, outside the update
    const Node* before;            // emit the barrier just before this node
    // The leaves holding the parameter's data. From the barrier on they read
    // its result 0: only nodes of the update read them after this point.
    std::vector<const Node*> leaves;
  };
  // The graph's nodes, operands first, each barrier's `waits_for` before its
  // `before` and the update's other readers of the parameter.
  std::vector<const Node*> nodes;
  std::vector<Barrier> barriers;
};

// `updates`: (data id of a parameter, the result that reuses its buffer).
// Parameters whose update has no unordered reader get no barrier. If the
// barriers together would make a cycle, they are kept one by one while they
// make none; XLA copies the parameters of those dropped.
// `order` is the post order of `results`.
UpdateOrder OrderInPlaceUpdates(
    const PostOrder& order, absl::Span<const Value> results,
    absl::Span<const std::pair<int64_t, Value>> updates);

}  // namespace torch_xla

#endif  // TORCH_XLA_CSRC_REWRITES_UPDATE_ORDER_H_
