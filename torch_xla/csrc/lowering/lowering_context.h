#ifndef TORCH_XLA_CSRC_LOWERING_LOWERING_CONTEXT_H_
#define TORCH_XLA_CSRC_LOWERING_LOWERING_CONTEXT_H_

// LoweringContext lowers a set of result values into one StableHLO module
// whose entry function is `@main`. It keeps the result values (and so the
// graph) alive. Parameters are keyed by the unique id of each leaf's Data,
// never by a buffer handle (placeholders have none): one parameter per
// distinct Data, in first-use post-order. Not thread-safe.

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "torch_xla/csrc/ir/data.h"
#include "torch_xla/csrc/ir/graph_walk.h"
#include "torch_xla/csrc/ir/node.h"
#include "torch_xla/csrc/lowering/emitter.h"
#include "torch_xla/csrc/rewrites/update_order.h"

namespace torch_xla {

class LoweringContext {
 public:
  // `name` becomes the module's symbol (quoted if it is not an identifier).
  explicit LoweringContext(std::string name);

  // How scalars travel. `scalar_of` maps a leaf's data to the rank-0 Data to
  // send for it (itself for a scalar, the element of a fill) or null (the
  // leaf is a parameter of its own). The scalars of one dtype travel together
  // as one vector parameter, made by `pack` from them in first-use order;
  // each leaf reads its own element (broadcast to the leaf's shape for a
  // fill). So a graph has one scalar parameter per dtype whatever its
  // scalars' values, and its structure never depends on them.
  struct ScalarPacking {
    std::function<DataPtr(const Data&)> scalar_of;
    std::function<DataPtr(DType, absl::Span<const DataPtr>)> pack;
  };
  // Used by every later Build of this context.
  void SetScalarPacking(ScalarPacking packing) {
    packing_ = std::move(packing);
  }

  // Walks the graph, collects parameters and computes the graph hash; no
  // text yet. Fails on parameter nodes outside sub-graphs. Resets any
  // earlier Build, aliases, donors and shardings; parameters whose data is
  // sharded get that sharding.
  absl::Status Build(absl::Span<const Value> results);

  const std::vector<Value>& results() const { return results_; }
  // One per distinct Data id, in first-use post-order, then the packed
  // scalar vectors (see SetScalarPacking) in dtype order.
  const std::vector<DataPtr>& parameters() const { return parameters_; }
  // True for the vector parameters that carry packed scalars.
  bool IsPackedScalars(int64_t param_index) const {
    for (const auto& [dtype, index] : vector_params_) {
      if (index == param_index) return true;
    }
    return false;
  }
  // -1 if `data_id` is not a parameter of its own (also for packed scalars).
  int64_t ParameterIndex(int64_t data_id) const;

  // Structural hash of the built graph (ir/graph_hash.h).
  uint64_t graph_hash() const { return graph_hash_; }
  // The compile-cache key: graph_hash() combined with the aliases, donors
  // and shardings set below (equal to graph_hash() when none are set).
  uint64_t hash() const;

  // Emits {tf.aliasing_output = R : i32} on parameter P: the result reuses
  // the parameter's buffer. Shapes must match; each parameter and each
  // result is aliased at most once. Call after Build.
  absl::Status SetAlias(int64_t param_index, int64_t result_index);
  // Emits {jax.buffer_donor = true} on the parameter (ignored for a
  // parameter that is also aliased: aliasing implies donation).
  absl::Status SetDonor(int64_t param_index);
  // mhlo.sharding = "<sharding>" on a parameter / a result (HLO sharding
  // text, e.g. "{devices=[2,1]0,1}"); stored verbatim, escaped on output.
  absl::Status SetParameterSharding(int64_t param_index, std::string sharding);
  absl::Status SetResultSharding(int64_t result_index, std::string sharding);
  bool HasResultSharding(int64_t result_index) const {
    return result_sharding_.count(result_index) > 0;
  }

  // The module text.
  absl::StatusOr<std::string> HloText() const;

 private:
  absl::Status CheckParam(int64_t param_index) const;
  absl::Status CheckResult(int64_t result_index) const;
  // Lowers `graph` (computing `results`, the built results rewritten) with
  // each aliased parameter's update ordered after the other readers of its
  // old value (rewrites/update_order.h), so that XLA updates it in place
  // instead of copying it first.
  absl::Status LowerInPlaceUpdatesLast(const PostOrder& graph,
                                       absl::Span<const Value> results,
                                       MlirEmitter& emitter) const;
  absl::Status EmitUpdateBarrier(const UpdateOrder::Barrier& barrier,
                                 MlirEmitter& emitter) const;

  std::string name_;
  bool built_ = false;
  std::vector<Value> results_;
  std::vector<DataPtr> parameters_;
  absl::flat_hash_map<int64_t, int64_t> param_index_;  // data id -> index
  ScalarPacking packing_;
  // A packed leaf's data id -> (its dtype, element index), and the vector
  // parameter of each dtype.
  absl::flat_hash_map<int64_t, std::pair<DType, int64_t>> packed_;
  std::map<DType, int64_t> vector_params_;
  uint64_t graph_hash_ = 0;
  std::map<int64_t, int64_t> aliases_;  // param -> result
  std::set<int64_t> donors_;
  std::map<int64_t, std::string> param_sharding_;
  std::map<int64_t, std::string> result_sharding_;
};

}  // namespace torch_xla

#endif  // TORCH_XLA_CSRC_LOWERING_LOWERING_CONTEXT_H_
