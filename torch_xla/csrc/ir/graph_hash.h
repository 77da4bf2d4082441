#ifndef TORCH_XLA_CSRC_IR_GRAPH_HASH_H_
#define TORCH_XLA_CSRC_IR_GRAPH_HASH_H_

// Structural 64-bit hash of a graph, the compile-cache key. It covers op
// kinds, attributes (sub-graphs included), result shapes, which earlier node
// and output each operand is, and, for data leaves, their shape and the
// first-occurrence index of their Data id in the walk: `a + a` and `a + b`
// differ, the same program over different buffers hashes equal. Never data
// values, Data ids or pointers. Deterministic across processes.

#include <cstdint>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "torch_xla/csrc/ir/attrs.h"
#include "torch_xla/csrc/ir/graph_walk.h"
#include "torch_xla/csrc/ir/node.h"

namespace torch_xla {

// A small deterministic hash accumulator (splitmix64 finaliser per step).
class HashBuilder {
 public:
  explicit HashBuilder(uint64_t seed = 0x5ca1ab1e0ddba11ULL) : h_(seed) {}

  HashBuilder& Add(uint64_t v) {
    uint64_t z = h_ + 0x9e3779b97f4a7c15ULL + v;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    h_ = z ^ (z >> 31);
    return *this;
  }
  HashBuilder& AddString(absl::string_view s);
  HashBuilder& AddDouble(double v);  // bit pattern: -0.0 != 0.0
  HashBuilder& AddShape(const Shape& shape);
  HashBuilder& AddAttrValue(const AttrValue& value);

  uint64_t value() const { return h_; }

 private:
  uint64_t h_;
};

uint64_t GraphHash(absl::Span<const Value> roots);

// One hash per root of the computation it stands for, independent of data
// identity (a leaf counts by its shape only) and of anything else in the
// graph: Node::hash() with the result index, no walk. Sync orders its results
// by these, so that a step's module does not depend on the order in which its
// tensors happened to be created.
std::vector<uint64_t> ValueHashes(absl::Span<const Value> roots);
// Same, reusing a walk of the same roots.
uint64_t GraphHash(const PostOrder& order, absl::Span<const Value> roots);

}  // namespace torch_xla

#endif  // TORCH_XLA_CSRC_IR_GRAPH_HASH_H_
