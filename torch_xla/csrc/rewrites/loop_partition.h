#ifndef TORCH_XLA_CSRC_REWRITES_LOOP_PARTITION_H_
#define TORCH_XLA_CSRC_REWRITES_LOOP_PARTITION_H_

// Cutting a traced loop body out of the graph it was traced in.
//
// A body (scan's fn, a layer, a train step) is traced once on placeholders,
// its *variables*: the per-iteration inputs (carry, slices of xs, incoming
// gradients). Everything the traced values use that depends on no variable
// is the same in every iteration: those values become loop-invariant inputs
// of the While (computed once, outside). For the backward loop, the forward
// values that the backward graph reads are the *residuals* the forward loop
// saves per iteration. Data ids identify variables (placeholders' data).

#include <cstdint>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/types/span.h"
#include "torch_xla/csrc/ir/node.h"

namespace torch_xla {

using DataIdSet = absl::flat_hash_set<int64_t>;

// The values that the body must receive from outside: each depends on no
// variable, needs some data leaf (device data or a placeholder that is not
// a variable; host data does not count: it becomes constants) or draws
// random numbers or loops, and is used by a variable-dependent node or is
// itself a root. Cheap data-free values (constants, iota, host scalars and
// what is computed from them) stay in the body, and so do views (reshape,
// transpose, broadcast, slice, reverse) of an outside value: the value comes
// in, the view is taken inside. In walk order, each once.
std::vector<Value> LoopInvariants(absl::Span<const Value> roots,
                                  const DataIdSet& variables);

// The forward values the backward graph `backward_roots` reads: values that
// depend on a primal variable and on no tangent (incoming gradient), used by
// a tangent-dependent node or returned directly. The forward's values
// (those `forward_roots` use; all values when it is empty) are saved, as
// functorch's default_partition saves activations; cheap values only the
// backward formulas compute are computed in the backward, and so are views
// (reshapes, transposes, broadcasts, slices) of saved values and type
// conversions of values computed from `available` primals alone (the
// slices of the scanned inputs, at hand in the backward anyway: a weight
// slice cast under autocast). With `rematerialize`, every cheap value
// (elementwise, shape and data-movement ops) is recomputed from its
// operands, so only the outputs of expensive ops (dot_general, reduce,
// gather, scatter, rng, while) and primal variables are saved. In walk
// order, each once.
std::vector<Value> SavedForBackward(absl::Span<const Value> backward_roots,
                                    const DataIdSet& primals,
                                    const DataIdSet& available,
                                    const DataIdSet& tangents,
                                    bool rematerialize,
                                    absl::Span<const Value> forward_roots = {});

// A structural key of a traced body: the graph hash of `roots` plus which
// leaves are which of `variables` (in order). Two traces with equal keys are
// the same computation of the same variables over same-shaped other data.
// Like the graph hash it ignores data values: compare keys of bodies whose
// host values were made constants (InlineHostData).
uint64_t TraceKey(absl::Span<const Value> roots,
                  absl::Span<const int64_t> variables);

}  // namespace torch_xla

#endif  // TORCH_XLA_CSRC_REWRITES_LOOP_PARTITION_H_
