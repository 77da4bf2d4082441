#ifndef TORCH_XLA_CSRC_REWRITES_SUMMED_DOTS_H_
#define TORCH_XLA_CSRC_REWRITES_SUMMED_DOTS_H_

// Sums of matrix products folded into one product over concatenated
// operands. A gradient accumulation loop traced into one graph sums each
// weight's gradient over the micro-batches, g = x1'd1 + ... + xn'dn: XLA
// writes n weight-sized products and adds them. The single product
// [x1; ...; xn]'[d1; ...; dn] computes the same sum and writes one, and its
// longer contraction suits the matrix kernels better.
//
// What is folded: a tree of adds (its inner adds used by the tree alone)
// with at least two terms that are rank-2 dot_generals of one contracting
// dim each (maybe behind transposes and one float convert, all used by the
// tree alone), with equal contracting positions, element types and
// precision. Only when the concatenated operands are no larger than the
// products they save: the backward of q = h Wq, k = h Wk, v = h Wv sums
// three products whose operands are weights, and concatenating those would
// cost more than it saves. Like any reassociation, folding changes the
// order of rounding (in bf16 it rounds once where eager rounds per term).
//
// Runs on a compile-cache miss only (the graph hash is of the graph as
// traced), and not on SPMD graphs (LoweringContext::HloText); data leaves
// are shared with the input graph, so its parameters are unchanged.

#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "torch_xla/csrc/ir/node.h"

namespace torch_xla {

// `results` with every foldable sum folded; the input graph is unchanged.
absl::StatusOr<std::vector<Value>> FoldSummedDots(
    absl::Span<const Value> results);

}  // namespace torch_xla

#endif  // TORCH_XLA_CSRC_REWRITES_SUMMED_DOTS_H_
