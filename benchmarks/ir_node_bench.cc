// IR costs in C++, without the Python bindings (benchmarks/ir_build_bench.py
// measures them through _XLAC). Prints one JSON line:
//   make_node_add_ns, make_node_transpose_ns: ns per node built (best of 3
//     runs of 200k nodes; transpose carries one attribute)
//   chain_10k_{build,walk,hash,lower,hlo_text}_ms: a 10,000-node unary chain
//     built, walked in post order, hashed, lowered (walk + parameters + hash)
//     and printed as StableHLO text
//   teardown_1m_ms: destroying a 1,000,000-node chain (iterative, no
//     recursion)
// These were wall-time assertions in ir_test / lowering_test; unit tests now
// check only results.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "torch_xla/csrc/ir/builder.h"
#include "torch_xla/csrc/ir/data.h"
#include "torch_xla/csrc/ir/graph_hash.h"
#include "torch_xla/csrc/ir/graph_walk.h"
#include "torch_xla/csrc/lowering/lowering_context.h"

namespace torch_xla {
namespace {

using Clock = std::chrono::steady_clock;

double MsSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start)
      .count();
}

template <typename T>
T OrDie(absl::StatusOr<T> result) {
  if (!result.ok()) {
    std::fprintf(stderr, "ir_node_bench: %s\n",
                 std::string(result.status().message()).c_str());
    std::exit(1);
  }
  return *std::move(result);
}

NodePtr Leaf(std::vector<int64_t> dims) {
  return MakeDataNode(std::make_shared<Data>(
      Shape(DType::kF32, std::move(dims)), DataKind::kDevice));
}

Value Chain(Value x, int length) {
  for (int i = 0; i < length; ++i) {
    x = OrDie(MakeUnary(i % 2 == 0 ? OpKind::kSine : OpKind::kNegate, x));
  }
  return x;
}

// Best ns per node over 3 runs of `iters` calls of make().
template <typename MakeFn>
double NsPerNode(int iters, MakeFn make) {
  double best = std::numeric_limits<double>::infinity();
  std::vector<NodePtr> keep;
  keep.reserve(iters);
  for (int run = 0; run < 3; ++run) {
    keep.clear();
    Clock::time_point start = Clock::now();
    for (int i = 0; i < iters; ++i) keep.push_back(make());
    best = std::min(best, MsSince(start) * 1e6 / iters);
  }
  return best;
}

int Main() {
  constexpr int kIters = 200000;
  NodePtr x = Leaf({128, 256});
  NodePtr y = Leaf({128, 256});
  const double add_ns = NsPerNode(
      kIters, [&] { return OrDie(MakeBinary(OpKind::kAdd, x, y)); });
  const double transpose_ns = NsPerNode(kIters, [&] {
    return OrDie(MakeNode(OpKind::kTranspose, {x},
                          Attrs().Set("permutation",
                                      std::vector<int64_t>{1, 0})));
  });

  Clock::time_point start = Clock::now();
  Value root = Chain(Leaf({2, 3}), 10000);
  const double build_ms = MsSince(start);
  start = Clock::now();
  PostOrder order = ComputePostOrder({root});
  const double walk_ms = MsSince(start);
  start = Clock::now();
  const uint64_t hash = GraphHash(order, {root});
  const double hash_ms = MsSince(start);
  start = Clock::now();
  LoweringContext context("chain");
  if (absl::Status built = context.Build({root}); !built.ok()) {
    std::fprintf(stderr, "ir_node_bench: %s\n",
                 std::string(built.message()).c_str());
    return 1;
  }
  const double lower_ms = MsSince(start);
  start = Clock::now();
  const std::string text = OrDie(context.HloText());
  const double text_ms = MsSince(start);

  Value long_chain = Chain(Leaf({}), 1000000);
  start = Clock::now();
  long_chain = Value();
  const double teardown_ms = MsSince(start);

  std::printf(
      "{\"benchmark\": \"ir_node\", \"make_node_add_ns\": %.1f, "
      "\"make_node_transpose_ns\": %.1f, \"chain_10k_build_ms\": %.2f, "
      "\"chain_10k_walk_ms\": %.2f, \"chain_10k_hash_ms\": %.2f, "
      "\"chain_10k_lower_ms\": %.2f, \"chain_10k_hlo_text_ms\": %.2f, "
      "\"hlo_bytes\": %zu, \"teardown_1m_ms\": %.1f, "
      "\"nodes_walked\": %zu, \"hash\": \"%016llx\"}\n",
      add_ns, transpose_ns, build_ms, walk_ms, hash_ms, lower_ms, text_ms,
      text.size(), teardown_ms, order.nodes.size(),
      static_cast<unsigned long long>(hash));
  return 0;
}

}  // namespace
}  // namespace torch_xla

int main() { return torch_xla::Main(); }
