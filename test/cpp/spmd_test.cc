// SPMD on a 4-device CPU client (the target sets CPU_NUM_DEVICES=4 and
// XLA_USE_SPMD=1): sharding texts and shard geometry, the shardings read
// back from a compiled program, the lowered attributes (golden), and a
// partitioned execution whose data holds one buffer per device.

#include <cstring>
#include <numeric>
#include <vector>

#include "gtest/gtest.h"
#include "test/cpp/golden_util.h"
#include "torch_xla/csrc/ir/builder.h"
#include "torch_xla/csrc/ir/sharding.h"
#include "torch_xla/csrc/lowering/lowering_context.h"
#include "torch_xla/csrc/runtime/client.h"
#include "torch_xla/csrc/spmd/compiled_shardings.h"
#include "torch_xla/csrc/spmd/shard_geometry.h"
#include "torch_xla/csrc/spmd/spmd_mode.h"
#include "torch_xla/csrc/spmd/spmd_tensors.h"
#include "torch_xla/csrc/tensor/device_data.h"
#include "torch_xla/csrc/tensor/graph_executor.h"

namespace torch_xla {
namespace {

ShardingPtr Tiled(std::vector<int64_t> tiles, std::vector<int64_t> devices,
                  bool replicate_last = false) {
  absl::StatusOr<Sharding> s =
      Sharding::Tiled(std::move(tiles), std::move(devices), replicate_last);
  EXPECT_TRUE(s.ok()) << s.status();
  return std::make_shared<const Sharding>(*s);
}

TEST(ShardingTest, TextForms) {
  EXPECT_EQ(Tiled({4, 1}, {0, 1, 2, 3})->ToString(), "{devices=[4,1]0,1,2,3}");
  EXPECT_EQ(Tiled({2, 1, 2}, {0, 2, 1, 3}, true)->ToString(),
            "{devices=[2,1,2]0,2,1,3 last_tile_dim_replicate}");
  EXPECT_EQ(Tiled({1, 1, 4}, {0, 1, 2, 3}, true)->ToString(), "{replicated}");
  EXPECT_EQ(Tiled({2, 2, 1}, {0, 1, 2, 3}, true)->ToString(),
            "{devices=[2,2]0,1,2,3}");
  EXPECT_FALSE(Sharding::Tiled({4}, {0, 1, 1, 2}, false).ok());
  EXPECT_FALSE(Sharding::Tiled({2, 2}, {0, 1, 2}, false).ok());
}

TEST(ShardingTest, FitsChecksRankAndDevices) {
  Shape shape(DType::kF32, {8, 6});
  EXPECT_TRUE(CheckShardingFits(*Tiled({4, 1}, {0, 1, 2, 3}), shape, 4).ok());
  // 6 columns on 4 devices: uneven, padded as XLA does.
  EXPECT_TRUE(CheckShardingFits(*Tiled({1, 4}, {0, 1, 2, 3}), shape, 4).ok());
  EXPECT_FALSE(CheckShardingFits(*Tiled({4}, {0, 1, 2, 3}), shape, 4).ok());
  EXPECT_FALSE(CheckShardingFits(*Tiled({4, 1}, {0, 1, 2, 3}), shape, 8).ok());
}

TEST(ShardingTest, BoxesCoverTheArrayOnce) {
  Shape shape(DType::kF32, {4, 6});
  ShardingPtr sharding = Tiled({2, 2}, {0, 2, 1, 3});
  std::vector<float> dense(24);
  std::iota(dense.begin(), dense.end(), 0.0f);
  std::vector<ShardBox> boxes = ShardBoxes(*sharding, shape, 4);
  // Device 2 holds tile (0, 1): rows 0-1, columns 3-5.
  EXPECT_EQ(boxes[2].start, (std::vector<int64_t>{0, 3}));
  EXPECT_EQ(boxes[1].start, (std::vector<int64_t>{2, 0}));
  std::vector<float> rebuilt(24, -1.0f);
  for (const ShardBox& box : boxes) {
    std::vector<uint8_t> shard = ExtractBox(
        reinterpret_cast<const uint8_t*>(dense.data()), shape, box);
    EXPECT_EQ(shard.size(), 6 * sizeof(float));
    InsertBox(reinterpret_cast<uint8_t*>(rebuilt.data()), shape, box,
              shard.data());
  }
  EXPECT_EQ(rebuilt, dense);
}

TEST(ShardingTest, UnevenTilesArePaddedAndBoxesClipped) {
  // [3, 3] over 4 devices along dim 0: one row each, device 3 only padding.
  Shape shape(DType::kF32, {3, 3});
  ShardingPtr sharding = Tiled({4, 1}, {0, 1, 2, 3});
  EXPECT_EQ(ShardShape(*sharding, shape).dims, (std::vector<int64_t>{1, 3}));
  std::vector<ShardBox> boxes = ShardBoxes(*sharding, shape, 4);
  EXPECT_EQ(boxes[2].start, (std::vector<int64_t>{2, 0}));
  EXPECT_EQ(boxes[2].size, (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(boxes[3].size, (std::vector<int64_t>{0, 3}));
  // [5] over 2: 3 and 2 (+1 padding).
  Shape five(DType::kF32, {5});
  std::vector<ShardBox> halves = ShardBoxes(*Tiled({2}, {0, 1}), five, 2);
  EXPECT_EQ(ShardShape(*Tiled({2}, {0, 1}), five).dims,
            (std::vector<int64_t>{3}));
  EXPECT_EQ(halves[1].start, (std::vector<int64_t>{3}));
  EXPECT_EQ(halves[1].size, (std::vector<int64_t>{2}));
}

// OpSharding{type: OTHER, tile_assignment_dimensions: [2, 2],
// replicate_on_last_tile_dim: true, iota_reshape_dims: [2, 2],
// iota_transpose_perm: [1, 0]}, as XLA serializes it.
const char kIotaSharding[] = "\x08\x03\x1a\x02\x02\x02\x30\x01\x4a\x02\x02\x02"
                             "\x52\x02\x01\x00";

TEST(CompiledShardingsTest, DecodesIotaTileAssignments) {
  absl::StatusOr<Sharding> s = spmd::ShardingFromOpShardingProto(
      absl::string_view(kIotaSharding, sizeof(kIotaSharding) - 1));
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->ToString(), "{devices=[2,2]0,2,1,3 last_tile_dim_replicate}");
}

TEST(CompiledShardingsTest, SplitsATupleOfOutputShardings) {
  // HloModuleProto{spmd_output_sharding (12): OpSharding{type: TUPLE,
  // tuple_shardings: [<iota sharding>, {type: REPLICATED}]}}.
  std::string element(kIotaSharding, sizeof(kIotaSharding) - 1);
  std::string tuple = "\x08\x02";
  tuple += "\x2a" + std::string(1, static_cast<char>(element.size())) + element;
  tuple += std::string("\x2a\x02\x08\x00", 4);
  std::string module = "\x62" + std::string(1, static_cast<char>(tuple.size())) +
                       tuple;
  absl::StatusOr<std::vector<Sharding>> shardings =
      spmd::OutputShardingsFromProgram("hlo", module, 2);
  ASSERT_TRUE(shardings.ok()) << shardings.status();
  EXPECT_EQ((*shardings)[0].ToString(),
            "{devices=[2,2]0,2,1,3 last_tile_dim_replicate}");
  EXPECT_EQ((*shardings)[1].ToString(), "{replicated}");
  EXPECT_FALSE(spmd::OutputShardingsFromProgram("hlo", module, 3).ok());
}

XlaTensorPtr FromHost(const std::vector<float>& values,
                      std::vector<int64_t> dims) {
  absl::StatusOr<XlaTensorPtr> t =
      TensorFromHost(values.data(), Shape(DType::kF32, std::move(dims)), 0);
  EXPECT_TRUE(t.ok()) << t.status();
  return *t;
}

TEST(SpmdLoweringTest, ShardingsReachTheModule) {
  ASSERT_TRUE(spmd::IsSpmd());
  auto data = std::make_shared<HostData>(Shape(DType::kF32, {8, 4}),
                                         std::vector<uint8_t>(128));
  data->set_sharding(Tiled({4, 1}, {0, 1, 2, 3}));
  Value x(MakeDataNode(data));
  Value doubled = *MakeBinary(OpKind::kAdd, x, x);
  NodePtr annotated = *MakeNode(
      OpKind::kSharding, {doubled},
      Attrs().Set("sharding", absl::string_view("{devices=[2,2]0,1,2,3}")));
  LoweringContext context("spmd");
  ASSERT_TRUE(context.Build({Value(annotated)}).ok());
  ASSERT_TRUE(context.SetResultSharding(0, "{devices=[2,2]0,1,2,3}").ok());
  absl::StatusOr<std::string> text = context.HloText();
  ASSERT_TRUE(text.ok()) << text.status();
  testing::ExpectMatchesGolden(*text, "spmd_shardings.mlir");
}

TEST(SpmdExecutionTest, ShardedAddRunsOnFourDevicesWithABufferEach) {
  runtime::Client* client = *runtime::Client::Global();
  ASSERT_EQ(client->devices().size(), 4u);
  std::vector<float> values(32);
  std::iota(values.begin(), values.end(), 0.0f);
  XlaTensorPtr x = FromHost(values, {8, 4});
  EXPECT_EQ(x->state(), TensorState::kHostData);  // the virtual device
  ASSERT_TRUE(MarkSharding(x, Tiled({4, 1}, {0, 1, 2, 3})).ok());
  const auto& input = static_cast<const DeviceData&>(*x->data());
  ASSERT_EQ(input.buffers().size(), 4u);
  for (int d = 0; d < 4; ++d) {
    EXPECT_EQ(input.buffers()[d]->device_ordinal(), d);
    EXPECT_EQ(input.buffers()[d]->shape(), Shape(DType::kF32, {2, 4}));
  }

  XlaTensorPtr y =
      XlaTensor::FromIr(*MakeBinary(OpKind::kAdd, *x->GetIrValue(),
                                    *x->GetIrValue()), 0);
  ASSERT_TRUE(SyncTensors({y}).ok());
  ASSERT_EQ(y->state(), TensorState::kDeviceData);
  const auto& output = static_cast<const DeviceData&>(*y->data());
  ASSERT_EQ(output.buffers().size(), 4u);
  EXPECT_EQ(output.sharding()->ToString(), "{devices=[4,1]0,1,2,3}");
  for (int d = 0; d < 4; ++d) {
    EXPECT_EQ(output.buffers()[d]->device_ordinal(), d);
    std::vector<float> shard(8);
    ASSERT_TRUE(client
                    ->TransferFromDevice(*output.buffers()[d], shard.data(),
                                         shard.size() * sizeof(float))
                    .ok());
    for (int i = 0; i < 8; ++i) EXPECT_EQ(shard[i], 2.0f * (d * 8 + i));
  }
  std::vector<float> all(32);
  ASSERT_TRUE(TensorToHost(y, all.data(), all.size() * sizeof(float)).ok());
  for (int i = 0; i < 32; ++i) EXPECT_EQ(all[i], 2.0f * i);
}

}  // namespace
}  // namespace torch_xla
