// The storage views' steps (tensor/storage_views.h) on the CPU plugin: the
// diagonal, as-strided and bitcast steps derive eager's values, write back
// into the root, and their host rearrangement (RearrangeOnHost, which
// ReadViewOnHost uses instead of a program) gives the same bytes as their
// program does.

#include <cstring>
#include <vector>

#include "gtest/gtest.h"
#include "test/cpp/execution_test_util.h"
#include "torch_xla/csrc/tensor/storage_views.h"
#include "torch_xla/csrc/tensor/views.h"
#include "torch_xla/csrc/tensor/xla_tensor.h"

namespace torch_xla {
namespace {

using testing::DeviceDataFromHost;
using testing::Read;
using testing::TensorFromHost;

// 0 1 ... n-1 in `dims`.
XlaTensorPtr Iota(std::vector<int64_t> dims) {
  std::vector<float> values(NumElements(dims));
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i);
  return TensorFromHost(values, std::move(dims));
}

// The step's value read back (a program), and its host rearrangement of
// `base`'s bytes; both as bytes.
struct Derived {
  std::vector<int64_t> dims;
  std::vector<uint8_t> device, host;
  bool on_host = false;
};

Derived DeriveBothWays(const XlaTensorPtr& base, const ViewStep& step) {
  Derived out;
  absl::StatusOr<XlaTensorPtr> view = step.Forward(base);
  EXPECT_TRUE(view.ok()) << view.status();
  out.dims = (*view)->shape().dims;
  out.device.resize((*view)->shape().byte_size());
  EXPECT_TRUE(TensorToHost(*view, out.device.data(), out.device.size()).ok());
  HostArray array{base->shape().dims, DTypeByteSize(base->shape().dtype), {}};
  array.bytes.resize(base->shape().byte_size());
  EXPECT_TRUE(TensorToHost(base, array.bytes.data(), array.bytes.size()).ok());
  out.on_host = step.RearrangeOnHost(&array);
  if (out.on_host) {
    EXPECT_EQ(array.dims, out.dims);
    out.host = std::move(array.bytes);
  }
  return out;
}

std::vector<float> Floats(const std::vector<uint8_t>& bytes) {
  std::vector<float> out(bytes.size() / sizeof(float));
  std::memcpy(out.data(), bytes.data(), bytes.size());
  return out;
}

TEST(StorageViewsTest, DiagonalTakesTheOffsetDiagonalOnDeviceAndHost) {
  XlaTensorPtr root = Iota({3, 4});
  Derived d = DeriveBothWays(root, *DiagonalStep(1, 0, 1));
  EXPECT_EQ(d.dims, (std::vector<int64_t>{3}));
  EXPECT_EQ(Floats(d.device), (std::vector<float>{1, 6, 11}));
  ASSERT_TRUE(d.on_host);
  EXPECT_EQ(d.host, d.device);
  // Swapped dims and a negative offset, on a 3-d root.
  XlaTensorPtr cube = Iota({2, 3, 4});
  Derived e = DeriveBothWays(cube, *DiagonalStep(-1, 2, 1));
  EXPECT_EQ(e.dims, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(Floats(e.device), (std::vector<float>{1, 6, 11, 13, 18, 23}));
  EXPECT_EQ(e.host, e.device);
}

TEST(StorageViewsTest, DiagonalWritesBackIntoTheRoot) {
  XlaTensorPtr root = Iota({2, 3});
  ViewStepPtr step = DiagonalStep(1, 0, 1);
  XlaTensorPtr view = *step->Forward(root);
  ViewInfoPtr info = ExtendView(root, nullptr, step, {4}, 1);
  ASSERT_TRUE(CommitView(*view, *info, TensorFromHost({10, 50}, {2})).ok());
  EXPECT_EQ(Read<float>(root), (std::vector<float>{0, 10, 2, 3, 4, 50}));
}

TEST(StorageViewsTest, AsStridedGathersAndScattersTheRootsStorage) {
  XlaTensorPtr root = Iota({2, 3});
  ViewStepPtr step = AsStridedStep({2, 2}, {1, 3}, 1, {2, 3});
  Derived d = DeriveBothWays(root, *step);
  EXPECT_EQ(Floats(d.device), (std::vector<float>{1, 4, 2, 5}));
  ASSERT_TRUE(d.on_host);
  EXPECT_EQ(d.host, d.device);
  XlaTensorPtr view = *step->Forward(root);
  ViewInfoPtr info = ExtendView(root, nullptr, step, {1, 3}, 1);
  ASSERT_TRUE(CommitView(*view, *info,
                         TensorFromHost({10, 40, 20, 50}, {2, 2})).ok());
  EXPECT_EQ(Read<float>(root), (std::vector<float>{0, 10, 20, 3, 40, 50}));
}

TEST(StorageViewsTest, BitcastKeepsTheBytesAndRescalesTheLastDim) {
  XlaTensorPtr root = TensorFromHost({1.5f, -2.0f, 3.25f, 1e-3f}, {2, 2});
  std::vector<uint8_t> bytes(16);
  ASSERT_TRUE(TensorToHost(root, bytes.data(), 16).ok());
  // Narrower (split), same size, wider (joined): the same bytes.
  for (DType to : {DType::kU8, DType::kI16, DType::kBF16, DType::kI32,
                   DType::kF64}) {
    Derived d = DeriveBothWays(root, *BitcastStep(DType::kF32, to));
    const int64_t ratio = DTypeByteSize(to);
    EXPECT_EQ(d.dims.back(), 2 * 4 / ratio) << DTypeName(to);
    EXPECT_EQ(d.device, bytes) << DTypeName(to);
    ASSERT_TRUE(d.on_host) << DTypeName(to);
    EXPECT_EQ(d.host, bytes) << DTypeName(to);
  }
  // Into bool, any nonzero byte reads as true: a program, not the bytes.
  Derived b = DeriveBothWays(root, *BitcastStep(DType::kF32, DType::kBool));
  EXPECT_FALSE(b.on_host);
}

TEST(StorageViewsTest, BitcastWritesTheViewsBitsIntoTheRoot) {
  XlaTensorPtr root = TensorFromHost({1.0f, 2.0f}, {2});
  ViewStepPtr step = BitcastStep(DType::kF32, DType::kI16);
  XlaTensorPtr view = *step->Forward(root);
  ViewInfoPtr info = ExtendView(root, nullptr, step, {1}, 0);
  // 1.0f is 0x3f800000: little-endian halves 0x0000, 0x3f80; 4.0f has
  // 0x4080 on top.
  std::vector<int16_t> halves{0, 0x4080, 0, 0x4080};
  XlaTensorPtr value = XlaTensor::FromData(
      DeviceDataFromHost(halves, {4}, DType::kI16, 0), 0);
  ASSERT_TRUE(CommitView(*view, *info, value).ok());
  EXPECT_EQ(Read<float>(root), (std::vector<float>{4.0f, 4.0f}));
}

}  // namespace
}  // namespace torch_xla
