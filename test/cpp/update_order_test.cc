// In-place updates ordered after the other readers of the old value
// (rewrites/update_order.h): which readers a barrier waits for, the lowered
// barrier, and, through the CPU plugin, that XLA then updates without
// copying and the values are right.

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "test/cpp/execution_test_util.h"
#include "torch_xla/csrc/ir/builder.h"
#include "torch_xla/csrc/ir/graph_walk.h"
#include "torch_xla/csrc/lowering/lowering_context.h"
#include "torch_xla/csrc/metrics/metrics.h"
#include "torch_xla/csrc/rewrites/update_order.h"
#include "torch_xla/csrc/runtime/client.h"
#include "torch_xla/csrc/tensor/device_data.h"
#include "torch_xla/csrc/tensor/graph_executor.h"
#include "torch_xla/csrc/tensor/xla_tensor.h"

namespace torch_xla {
namespace {

using testing::Contains;
using testing::Leaf;
using testing::Matmul;
using testing::Ok;
using testing::Read;
using testing::TensorFromHost;
using testing::Transpose;

UpdateOrder Order(const std::vector<Value>& results,
                  const std::vector<std::pair<int64_t, Value>>& updates) {
  const PostOrder order = ComputePostOrder(results);
  return OrderInPlaceUpdates(order, results, updates);
}

int64_t PositionIn(const UpdateOrder& order, const Node* node) {
  for (size_t i = 0; i < order.nodes.size(); ++i) {
    if (order.nodes[i] == node) return static_cast<int64_t>(i);
  }
  return -1;
}

// A training step's shape: the backward reads W (dx = g @ W) but the update
// W - g does not depend on it, so the update waits for it.
TEST(UpdateOrderTest, UpdateWaitsForAReaderItDoesNotDependOn) {
  NodePtr w = Leaf(DType::kF32, {2, 2});
  NodePtr g = Leaf(DType::kF32, {2, 2});
  NodePtr dx = Matmul(g, w);
  NodePtr updated = Ok(MakeBinary(OpKind::kSubtract, w, g));
  const UpdateOrder order =
      Order({dx, updated}, {{w->data()->id(), Value(updated)}});
  ASSERT_EQ(order.barriers.size(), 1u);
  const UpdateOrder::Barrier& barrier = order.barriers[0];
  EXPECT_EQ(barrier.data_id, w->data()->id());
  ASSERT_EQ(barrier.waits_for.size(), 1u);
  EXPECT_EQ(barrier.waits_for[0].node, dx);
  EXPECT_EQ(barrier.before, updated.get());
  EXPECT_EQ(barrier.leaves, std::vector<const Node*>{w.get()});
  EXPECT_EQ(order.nodes.size(), 4u);
  EXPECT_LT(PositionIn(order, dx.get()), PositionIn(order, updated.get()));
}

// A read through a transpose (which XLA may fold into the dot) counts: the
// barrier waits for the dot, not the transpose.
TEST(UpdateOrderTest, ReadsThroughDataMovementCount) {
  NodePtr w = Leaf(DType::kF32, {2, 2});
  NodePtr g = Leaf(DType::kF32, {2, 2});
  NodePtr dx = Matmul(g, Transpose(w));
  NodePtr updated = Ok(MakeBinary(OpKind::kSubtract, w, g));
  const UpdateOrder order =
      Order({dx, updated}, {{w->data()->id(), Value(updated)}});
  ASSERT_EQ(order.barriers.size(), 1u);
  ASSERT_EQ(order.barriers[0].waits_for.size(), 1u);
  EXPECT_EQ(order.barriers[0].waits_for[0].node, dx);
}

// Readers the update depends on already run first: no barrier.
TEST(UpdateOrderTest, NoBarrierWhenTheUpdateDependsOnEveryReader) {
  NodePtr w = Leaf(DType::kF32, {2, 2});
  NodePtr g = Leaf(DType::kF32, {2, 2});
  NodePtr updated = Ok(MakeBinary(OpKind::kSubtract, w, Matmul(g, w)));
  const UpdateOrder order =
      Order({updated}, {{w->data()->id(), Value(updated)}});
  EXPECT_TRUE(order.barriers.empty());
  EXPECT_EQ(order.nodes.size(), 4u);
}

// A graph that goes on computing with updated values: each update has a
// reader that depends on the other's update. Both barriers would make a
// cycle, so only the first is kept.
TEST(UpdateOrderTest, BarriersThatWouldMakeACycleAreDropped) {
  NodePtr w1 = Leaf(DType::kF32, {2, 2});
  NodePtr w2 = Leaf(DType::kF32, {2, 2});
  NodePtr g = Leaf(DType::kF32, {2, 2});
  NodePtr w1_new = Ok(MakeBinary(OpKind::kSubtract, w1, g));
  NodePtr w2_new = Ok(MakeBinary(OpKind::kSubtract, w2, g));
  NodePtr r1 = Matmul(w1, w2_new);
  NodePtr r2 = Matmul(w2, w1_new);
  const UpdateOrder order =
      Order({r1, r2, w1_new, w2_new},
            {{w1->data()->id(), Value(w1_new)},
             {w2->data()->id(), Value(w2_new)}});
  ASSERT_EQ(order.barriers.size(), 1u);
  EXPECT_EQ(order.barriers[0].data_id, w1->data()->id());
  EXPECT_LT(PositionIn(order, r1.get()), PositionIn(order, w1_new.get()));
}

// The lowered module: the update reads the parameter through the barrier's
// first result; the other reader reads the parameter itself.
TEST(UpdateOrderTest, LoweredUpdateReadsThroughTheBarrier) {
  NodePtr w = Leaf(DType::kF32, {2, 2});
  NodePtr g = Leaf(DType::kF32, {2, 2});
  NodePtr dx = Matmul(g, w);
  NodePtr updated = Ok(MakeBinary(OpKind::kSubtract, w, g));
  LoweringContext context("update");
  ASSERT_TRUE(context.Build({Value(dx), Value(updated)}).ok());
  const int64_t param = context.ParameterIndex(w->data()->id());
  ASSERT_TRUE(context.SetAlias(param, 1).ok());
  const std::string text = Ok(context.HloText());
  const std::string arg = absl::StrCat("%arg", param);
  EXPECT_TRUE(Contains(text, absl::StrCat("\"stablehlo.optimization_barrier\"(",
                                          arg, ", %")))
      << text;
  EXPECT_TRUE(Contains(text, "\"stablehlo.subtract\"(%1#0, ")) << text;
  EXPECT_TRUE(Contains(text, absl::StrCat("\"stablehlo.dot_general\"(%arg",
                                          context.ParameterIndex(g->data()->id()),
                                          ", ", arg, ")")))
      << text;

  // Without an alias the module has no barrier.
  ASSERT_TRUE(context.Build({Value(dx), Value(updated)}).ok());
  EXPECT_FALSE(Contains(Ok(context.HloText()), "optimization_barrier"));
}

// Copy instructions in a serialized HloModuleProto: HloInstructionProto's
// field 2 (opcode) holding "copy".
int CountCopies(const std::string& proto) {
  const std::string opcode = std::string("\x12\x04", 2) + "copy";
  int count = 0;
  for (size_t at = proto.find(opcode); at != std::string::npos;
       at = proto.find(opcode, at + 1)) {
    ++count;
  }
  return count;
}

// Through the plugin: the aliased parameter is updated in place, with no
// copy of the old value, and the sync gives the right values.
TEST(UpdateOrderTest, CompiledUpdateHasNoCopyAndTheRightValues) {
  constexpr int n = 64;  // big enough that XLA keeps the dot a dot
  std::vector<float> w_values(n * n), g_values(n * n);
  for (int i = 0; i < n * n; ++i) {
    w_values[i] = static_cast<float>((i * 7) % 13) / 8 - 0.75f;
    g_values[i] = static_cast<float>((i * 5) % 11) / 16 - 0.25f;
  }
  XlaTensorPtr w = TensorFromHost(w_values, {n, n});
  XlaTensorPtr g = TensorFromHost(g_values, {n, n});
  const Value w_old = *w->GetIrValue();
  NodePtr dx = Matmul(*g->GetIrValue(), Transpose(w_old));
  NodePtr updated = Ok(MakeBinary(OpKind::kSubtract, w_old, *g->GetIrValue()));

  LoweringContext context("update");
  ASSERT_TRUE(context.Build({Value(dx), Value(updated)}).ok());
  ASSERT_TRUE(context.SetAlias(context.ParameterIndex(w_old.node->data()->id()),
                               1)
                  .ok());
  runtime::Client* client = Ok(runtime::Client::Global());
  runtime::CompileSpec spec;
  spec.device_ids = {Ok(client->GetDevice(0))->id};
  runtime::ExecutablePtr executable =
      Ok(client->Compile(Ok(context.HloText()), spec));
  const runtime::Client::Program program =
      Ok(client->OptimizedProgram(*executable));
  EXPECT_EQ(CountCopies(program.code), 0) << "XLA copied the old weight";

  // The same graph through a sync, which donates w's buffer.
  XlaTensorPtr dx_tensor = XlaTensor::FromIr(Value(dx), 0);
  ASSERT_TRUE(w->SetIrValue(Value(updated)).ok());
  metrics::ClearMetrics();
  ASSERT_TRUE(SyncLiveTensors().ok());
  const metrics::Metric* aliases = metrics::FindMetric("InputOutputAliasCount");
  ASSERT_NE(aliases, nullptr);
  EXPECT_EQ(aliases->accumulator(), 1);
  const std::vector<float> got_dx = Read<float>(dx_tensor);
  const std::vector<float> got_w = Read<float>(w);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      double sum = 0;  // dx[i][j] = sum_k g[i][k] * w[j][k]
      for (int k = 0; k < n; ++k) {
        sum += static_cast<double>(g_values[i * n + k]) * w_values[j * n + k];
      }
      EXPECT_NEAR(got_dx[i * n + j], sum, 1e-4) << i << "," << j;
      EXPECT_EQ(got_w[i * n + j], w_values[i * n + j] - g_values[i * n + j]);
    }
  }
}

}  // namespace
}  // namespace torch_xla
