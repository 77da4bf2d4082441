#ifndef TORCH_XLA_CSRC_IR_SUBGRAPH_H_
#define TORCH_XLA_CSRC_IR_SUBGRAPH_H_

// A closed computation held as a node attribute (while cond and body).
// It owns its parameter nodes and result values. Closed means its leaves are
// only its own parameters and data-free ops (constant, iota): no device_data
// and no parameter of another sub-graph. Immutable; shared by every node
// that uses it; its walk and hash are computed once at creation.

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "torch_xla/csrc/ir/attrs.h"
#include "torch_xla/csrc/ir/data.h"
#include "torch_xla/csrc/ir/graph_walk.h"
#include "torch_xla/csrc/ir/node.h"

namespace torch_xla {

class SubGraph {
 private:
  struct PrivateKey {
    explicit PrivateKey() = default;
  };

 public:
  // parameters[i] must be a parameter node with index i (see MakeParameter).
  static absl::StatusOr<SubGraphPtr> Create(std::vector<NodePtr> parameters,
                                            std::vector<Value> results);

  // For graphs traced over data leaves (e.g. placeholders): each Data in
  // `parameters` becomes parameter i, replacing every device_data node that
  // holds it (nodes not depending on them are shared, not copied). Any other
  // data leaf makes the sub-graph not closed: an error naming it.
  static absl::StatusOr<SubGraphPtr> CreateFromDataLeaves(
      absl::Span<const DataPtr> parameters, std::vector<Value> results);

  SubGraph(PrivateKey, std::vector<NodePtr> parameters,
           std::vector<Value> results, PostOrder order, uint64_t hash);

  const std::vector<NodePtr>& parameters() const { return parameters_; }
  const Shape& parameter_shape(size_t i) const {
    return parameters_[i]->shape();
  }
  const std::vector<Value>& results() const { return results_; }
  // Nodes reachable from the results, operands first.
  const PostOrder& post_order() const { return order_; }
  // Structural hash (see graph_hash.h), parameter shapes included.
  uint64_t hash() const { return hash_; }

  // "(f32[2], s64[]) -> (pred[])".
  std::string SignatureString() const;

 private:
  std::vector<NodePtr> parameters_;
  std::vector<Value> results_;
  PostOrder order_;
  uint64_t hash_;
};

}  // namespace torch_xla

#endif  // TORCH_XLA_CSRC_IR_SUBGRAPH_H_
