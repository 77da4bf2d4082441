// Sync end to end on the CPU plugin: lowering, the compile cache, scalar
// parameters, placeholders, and the donation decisions (as a table).

#include <cstring>
#include <vector>

#include "gtest/gtest.h"
#include "test/cpp/execution_test_util.h"
#include "torch_xla/csrc/ir/builder.h"
#include "torch_xla/csrc/ir/data.h"
#include "torch_xla/csrc/metrics/metrics.h"
#include "torch_xla/csrc/runtime/client.h"
#include "torch_xla/csrc/tensor/device_data.h"
#include "torch_xla/csrc/tensor/graph_executor.h"
#include "torch_xla/csrc/tensor/xla_tensor.h"

namespace torch_xla {
namespace {

using testing::Read;
using testing::TensorFromHost;

Value IrOf(const XlaTensorPtr& tensor) { return *tensor->GetIrValue(); }

XlaTensorPtr Binary(OpKind kind, const XlaTensorPtr& a, const XlaTensorPtr& b) {
  return XlaTensor::FromIr(*MakeBinary(kind, IrOf(a), IrOf(b)), 0);
}

int64_t Counter(const char* name) {
  const metrics::Counter* counter = metrics::FindCounter(name);
  return counter == nullptr ? 0 : counter->value();
}

// (x + y) * scale, with scale a scalar parameter.
XlaTensorPtr Step(const XlaTensorPtr& x, const XlaTensorPtr& y, float scale) {
  XlaTensorPtr sum = Binary(OpKind::kAdd, x, y);
  XlaTensorPtr s = XlaTensor::FromData(MakeHostScalar(scale, DType::kF32), 0);
  Value scaled = *MakeNode(OpKind::kBroadcastInDim, {IrOf(s)},
                           Attrs().Set("dims", std::vector<int64_t>{3})
                                  .Set("broadcast_dims", std::vector<int64_t>{}));
  return XlaTensor::FromIr(*MakeBinary(OpKind::kMultiply, IrOf(sum), scaled), 0);
}

TEST(GraphExecutorTest, SyncComputesValuesAndSecondStepHitsCache) {
  metrics::ClearCounters();
  ClearCompileCache();
  XlaTensorPtr x = TensorFromHost({1, 2, 3}, {3});
  XlaTensorPtr y = TensorFromHost({10, 20, 30}, {3});

  XlaTensorPtr out = Step(x, y, 2.0f);
  EXPECT_EQ(out->state(), TensorState::kIrValue);
  ASSERT_TRUE(SyncLiveTensors().ok());
  EXPECT_EQ(out->state(), TensorState::kDeviceData);
  EXPECT_EQ(Read<float>(out), (std::vector<float>{22, 44, 66}));
  EXPECT_EQ(Counter("UncachedCompile"), 1);
  EXPECT_EQ(Counter("CachedCompile"), 0);

  // Same program, new scalar value: a cache hit, no recompile.
  XlaTensorPtr out2 = Step(x, y, 0.5f);
  ASSERT_TRUE(SyncLiveTensors().ok());
  EXPECT_EQ(Read<float>(out2), (std::vector<float>{5.5, 11, 16.5}));
  EXPECT_EQ(Counter("UncachedCompile"), 1);
  EXPECT_EQ(Counter("CachedCompile"), 1);
  EXPECT_EQ(CompileCacheSize(), 1);
}

TEST(GraphExecutorTest, ReadingAPendingTensorRunsOnlyItsGraph) {
  XlaTensorPtr x = TensorFromHost({1, 2}, {2});
  XlaTensorPtr a = Binary(OpKind::kAdd, x, x);
  XlaTensorPtr b = Binary(OpKind::kMultiply, x, x);
  EXPECT_EQ(Read<float>(a), (std::vector<float>{2, 4}));
  EXPECT_EQ(a->state(), TensorState::kDeviceData);
  EXPECT_EQ(b->state(), TensorState::kIrValue);  // untouched
  EXPECT_EQ(Read<float>(b), (std::vector<float>{1, 4}));
}

TEST(GraphExecutorTest, PlaceholderCannotBeReadOrExecuted) {
  XlaTensorPtr p =
      XlaTensor::FromData(MakePlaceholder(Shape(DType::kF32, {2})), 0);
  std::vector<float> out(2);
  absl::Status read = TensorToHost(p, out.data(), 8);
  ASSERT_FALSE(read.ok());
  EXPECT_NE(read.message().find("is a placeholder and has no data"),
            std::string::npos)
      << read;

  XlaTensorPtr uses = Binary(OpKind::kAdd, p, p);
  absl::Status synced = SyncTensors({uses});
  ASSERT_FALSE(synced.ok());
  EXPECT_NE(synced.message().find("placeholder"), std::string::npos);
  EXPECT_EQ(uses->state(), TensorState::kIrValue);  // left as it was

  // Lowering works: the placeholder is a parameter.
  absl::StatusOr<std::string> text = TensorsToHloText({uses});
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_NE(text->find("%arg0: tensor<2xf32>"), std::string::npos) << *text;
}

// The donation table: which buffers a sync hands to its outputs.
struct DonationCase {
  const char* name;
  bool in_place;        // t = t + 1 keeps t's alias ID
  bool keep_clone;      // a live clone shares t's buffer (data, not IR)
  bool explicit_donor;  // t marked for donation, config on
  int64_t expected_aliases;
  bool input_deleted;
};

class DonationTest : public ::testing::TestWithParam<DonationCase> {};

TEST_P(DonationTest, DonatesExactlyWhenSafe) {
  const DonationCase& c = GetParam();
  SetEnableBufferDonorAliasing(c.explicit_donor);
  XlaTensorPtr t = TensorFromHost({1, 2, 3, 4}, {4});
  runtime::BufferPtr buffer =
      static_cast<DeviceData*>(t->data().get())->buffer();
  XlaTensorPtr clone;
  if (c.keep_clone) clone = XlaTensor::FromData(t->data(), 0);
  XlaTensorPtr other = TensorFromHost({1, 1, 1, 1}, {4});
  XlaTensorPtr result;
  if (c.in_place) {
    ASSERT_TRUE(t->SetIrValue(IrOf(Binary(OpKind::kAdd, t, other))).ok());
  } else {
    result = Binary(OpKind::kAdd, t, other);
  }
  if (c.explicit_donor) t->set_buffer_donation(true);
  metrics::ClearMetrics();
  ASSERT_TRUE(SyncLiveTensors().ok());
  const metrics::Metric* aliases = metrics::FindMetric("InputOutputAliasCount");
  ASSERT_NE(aliases, nullptr);
  EXPECT_EQ(aliases->accumulator(), c.expected_aliases) << c.name;
  EXPECT_EQ(buffer->IsDeleted(), c.input_deleted) << c.name;
  if (c.keep_clone) {
    EXPECT_EQ(Read<float>(clone), (std::vector<float>{1, 2, 3, 4}));
  }
  if (c.in_place) {
    EXPECT_EQ(Read<float>(t), (std::vector<float>{2, 3, 4, 5}));
  }
  if (c.explicit_donor && c.input_deleted) {
    EXPECT_EQ(t->state(), TensorState::kDeleted);
    std::vector<float> out(4);
    absl::Status read = TensorToHost(t, out.data(), 16);
    EXPECT_NE(read.message().find("donated"), std::string::npos) << read;
  }
  SetEnableBufferDonorAliasing(false);
}

INSTANTIATE_TEST_SUITE_P(
    Table, DonationTest,
    ::testing::Values(
        DonationCase{"in_place", true, false, false, 1, true},
        // The clone gets a copy from the same execution (donation.h).
        DonationCase{"in_place_with_clone", true, true, false, 1, true},
        DonationCase{"new_tensor", false, false, false, 0, false},
        DonationCase{"explicit_donor", false, false, true, 1, true},
        DonationCase{"explicit_donor_shared", false, true, true, 0, false}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(GraphExecutorTest, NoDonationAcrossShapeMismatch) {
  XlaTensorPtr t = TensorFromHost({1, 2, 3, 4}, {4});
  runtime::BufferPtr buffer =
      static_cast<DeviceData*>(t->data().get())->buffer();
  // A new value of another shape cannot reuse t's buffer; t keeps its alias
  // ID through a replacement tensor of shape [2].
  Value half = *MakeNode(OpKind::kSlice, {IrOf(t)},
                         Attrs().Set("start", std::vector<int64_t>{0})
                                .Set("limit", std::vector<int64_t>{2}));
  XlaTensorPtr replacement = XlaTensor::FromIr(half, 0);
  replacement->set_alias_id(t->alias_id());
  t.reset();
  ASSERT_TRUE(SyncLiveTensors().ok());
  EXPECT_FALSE(buffer->IsDeleted());
  EXPECT_EQ(Read<float>(replacement), (std::vector<float>{1, 2}));
}

}  // namespace
}  // namespace torch_xla
