// Tests of eager's shape arithmetic (ir/shape_util.h): size inference and
// its errors, contiguous and view strides, slice clamping, broadcasting.
// Expected values are eager PyTorch's (test/python/test_shape_facts.py checks
// the same functions against eager through _XLAC).

#include "torch_xla/csrc/ir/shape_util.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "torch_xla/csrc/ir/error_class.h"

namespace torch_xla {
namespace {

using Dims = std::vector<int64_t>;

std::pair<int64_t, int64_t> Span(int64_t start, int64_t end) {
  return {start, end};
}

std::string ErrorOf(const absl::StatusOr<Dims>& result) {
  EXPECT_FALSE(result.ok());
  // Bad user input, raised as eager's RuntimeError (ir/error_class.h).
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(GetEagerErrorClass(result.status()),
            EagerErrorClass::kRuntimeError);
  return std::string(result.status().message());
}

TEST(ShapeUtilTest, InferSizeResolvesOneMinusOne) {
  EXPECT_EQ(*InferSize({2, -1, 4}, 24), (Dims{2, 3, 4}));
  EXPECT_EQ(*InferSize({24}, 24), (Dims{24}));
  EXPECT_EQ(*InferSize({}, 1), (Dims{}));
  EXPECT_EQ(*InferSize({0, 3}, 0), (Dims{0, 3}));
}

TEST(ShapeUtilTest, InferSizeErrorsAreEagers) {
  EXPECT_EQ(ErrorOf(InferSize({5}, 6)),
            "shape '[5]' is invalid for input of size 6");
  EXPECT_EQ(ErrorOf(InferSize({-1, -1}, 6)),
            "only one dimension can be inferred");
  EXPECT_EQ(ErrorOf(InferSize({-2, 3}, 6)),
            "invalid shape dimension -2 at index 0 of shape [-2, 3]");
  EXPECT_EQ(ErrorOf(InferSize({-1, 5}, 6)),
            "shape '[-1, 5]' is invalid for input of size 6");
  EXPECT_NE(ErrorOf(InferSize({0, -1}, 0)).find("ambiguous"),
            std::string::npos);
}

TEST(ShapeUtilTest, ContiguousStrides) {
  EXPECT_EQ(ContiguousStrides({2, 3, 4}), (Dims{12, 4, 1}));
  EXPECT_EQ(ContiguousStrides({2, 0, 4}), (Dims{4, 4, 1}));
  EXPECT_EQ(ContiguousStrides({}), (Dims{}));
}

TEST(ShapeUtilTest, ViewStridesFollowEager) {
  // torch.zeros(4, 6).t().view(3, 2, 4).stride() == (2, 1, 6)
  EXPECT_EQ(ViewStrides({6, 4}, {1, 6}, {3, 2, 4}), (Dims{2, 1, 6}));
  // A contiguous tensor views contiguously.
  EXPECT_EQ(ViewStrides({2, 3, 4}, {12, 4, 1}, {6, 4}), (Dims{4, 1}));
  // Eager cannot view a transposed matrix flat: contiguous strides.
  EXPECT_EQ(ViewStrides({6, 4}, {1, 6}, {24}), (Dims{1}));
}

TEST(ShapeUtilTest, ClampSliceIsPythons) {
  EXPECT_EQ(ClampSlice(5, std::nullopt, std::nullopt), Span(0, 5));
  EXPECT_EQ(ClampSlice(5, -2, std::nullopt), Span(3, 5));
  EXPECT_EQ(ClampSlice(5, 1, -1), Span(1, 4));
  EXPECT_EQ(ClampSlice(5, 7, 9), Span(5, 5));
  EXPECT_EQ(ClampSlice(5, 3, 1), Span(3, 3));
  EXPECT_EQ(ClampSlice(5, -9, 2), Span(0, 2));
}

TEST(ShapeUtilTest, Broadcasting) {
  Dims a{3, 1}, b{4}, c{2, 1, 1};
  EXPECT_EQ(*BroadcastDims({&a, &b}), (Dims{3, 4}));
  EXPECT_EQ(*BroadcastDims({&a, &b, &c}), (Dims{2, 3, 4}));
  Dims d{3}, e{4};
  EXPECT_EQ(ErrorOf(BroadcastDims({&d, &e})),
            "The size of tensor a (3) must match the size of tensor b (4) at "
            "non-singleton dimension 0");
  EXPECT_TRUE(CheckBroadcastsTo({3, 1}, {2, 3, 4}).ok());
  EXPECT_FALSE(CheckBroadcastsTo({3, 2}, {3, 4}).ok());
  EXPECT_FALSE(CheckBroadcastsTo({2, 3, 4}, {3, 4}).ok());
}

}  // namespace
}  // namespace torch_xla
