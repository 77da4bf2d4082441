// The random, order-statistic and counting builders (torch_xla/csrc/ops/
// random_ops.h, order_ops.h, histogram_ops.h, distance_ops.h) on their own:
// result shapes and dtypes, the op each ends in, the empty and 0-d cases,
// and what they refuse. Values and statistics are checked against eager in
// test/python/ops/test_random.py, test_order_stats.py and
// test_counting_ops.py.

#include <vector>

#include "gtest/gtest.h"
#include "torch_xla/csrc/ops/distance_ops.h"
#include "torch_xla/csrc/ops/histogram_ops.h"
#include "torch_xla/csrc/ops/order_ops.h"
#include "torch_xla/csrc/ops/random_ops.h"
#include "test/cpp/ir_test_util.h"

namespace torch_xla {
namespace {

using testing::Leaf;
using testing::Ok;

Value Seed() { return Leaf(DType::kU64, {}); }

TEST(SamplingOpsTest, DrawsKeepTheTargetShapeAndDtype) {
  // An odd count: Box-Muller makes pairs and drops the extra one.
  Value z = Ok(ops::Draw(ops::Distribution::kNormal, Seed(),
                         Shape(DType::kBF16, {3, 5}), Value(), Value()));
  EXPECT_EQ(z.shape(), Shape(DType::kBF16, {3, 5}));
  EXPECT_EQ(z.node->kind(), OpKind::kConvert);
  Value g = Ok(ops::Draw(ops::Distribution::kGeometric, Seed(),
                         Shape(DType::kI32, {4}), Leaf(DType::kF32, {}),
                         Value()));
  EXPECT_EQ(g.shape(), Shape(DType::kI32, {4}));
  Value empty = Ok(ops::Draw(ops::Distribution::kUniform, Seed(),
                             Shape(DType::kF32, {0, 3}), Value(), Value()));
  EXPECT_EQ(empty.node->kind(), OpKind::kConstant);
  // Continuous draws need a float target; the seed must be u64 0-d.
  EXPECT_FALSE(ops::Draw(ops::Distribution::kNormal, Seed(),
                         Shape(DType::kI64, {2}), Value(), Value())
                   .ok());
  EXPECT_FALSE(ops::RandomBits(Leaf(DType::kI64, {}), DType::kU32, {2}).ok());
  EXPECT_FALSE(ops::DistributionFromName("poisson").ok());
}

TEST(SamplingOpsTest, DiscreteDraws) {
  Value b = Ok(ops::Bernoulli(Seed(), {2, 3}, DType::kI64,
                              Leaf(DType::kF32, {3})));
  EXPECT_EQ(b.shape(), Shape(DType::kI64, {2, 3}));
  Value r = Ok(ops::RandomInteger(Seed(), Shape(DType::kU8, {7}), Value(),
                                  Leaf(DType::kI64, {})));
  EXPECT_EQ(r.shape(), Shape(DType::kU8, {7}));
  EXPECT_EQ(Ok(ops::Randperm(Seed(), 5, DType::kI32)).shape(),
            Shape(DType::kI32, {5}));
  EXPECT_EQ(Ok(ops::Randperm(Seed(), 0, DType::kI64)).shape(),
            Shape(DType::kI64, {0}));
  EXPECT_FALSE(ops::Randperm(Seed(), -1, DType::kI64).ok());
  auto [out, mask] = Ok(ops::Dropout(Seed(), Leaf(DType::kBF16, {4, 2}),
                                     Leaf(DType::kF32, {}),
                                     Leaf(DType::kBF16, {})));
  EXPECT_EQ(out.shape(), Shape(DType::kBF16, {4, 2}));
  EXPECT_EQ(mask.shape(), Shape(DType::kBool, {4, 2}));
  EXPECT_FALSE(ops::Dropout(Seed(), Leaf(DType::kI32, {2}),
                            Leaf(DType::kF32, {}), Leaf(DType::kI32, {}))
                   .ok());
}

TEST(SamplingOpsTest, MultinomialShapesChecksAndLimits) {
  Value probs = Leaf(DType::kF32, {3, 6});
  EXPECT_EQ(Ok(ops::Multinomial(Seed(), probs, 4, false)).shape(),
            Shape(DType::kI64, {3, 4}));
  EXPECT_EQ(Ok(ops::Multinomial(Seed(), Leaf(DType::kBF16, {6}), 9, true))
                .shape(),
            Shape(DType::kI64, {9}));
  EXPECT_FALSE(ops::Multinomial(Seed(), probs, 7, false).ok());
  EXPECT_FALSE(ops::Multinomial(Seed(), Leaf(DType::kI64, {6}), 1, true).ok());
  // One combined check, or two entry checks on the repeated-draw path; then
  // the zero-row check. Each a pred 0-d value.
  auto one = Ok(ops::MultinomialChecks(probs, false));
  auto repeated = Ok(ops::MultinomialChecks(probs, true));
  EXPECT_EQ(one.size(), 2u);
  EXPECT_EQ(repeated.size(), 3u);
  for (const auto& [bad, message] : repeated) {
    EXPECT_EQ(bad.shape(), Shape(DType::kBool, {}));
  }
}

TEST(OrderOpsTest, SortKthValueAndMedian) {
  Value x = Leaf(DType::kF32, {4, 9});
  auto [values, indices] = Ok(ops::SortFirst(x, 1, 3, true));
  EXPECT_EQ(values.shape(), Shape(DType::kF32, {4, 3}));
  EXPECT_EQ(indices.shape(), Shape(DType::kI64, {4, 3}));
  EXPECT_FALSE(ops::SortFirst(x, 1, 10, true).ok());
  EXPECT_FALSE(ops::SortFirst(x, 2, 1, true).ok());
  auto kth = Ok(ops::KthValue(x, 2, 0, true));
  EXPECT_EQ(kth.first.shape(), Shape(DType::kF32, {1, 9}));
  EXPECT_FALSE(ops::KthValue(x, 5, 0, false).ok());
  auto median = Ok(ops::Median(Leaf(DType::kI32, {5, 2}), 0, false));
  EXPECT_EQ(median.first.shape(), Shape(DType::kI32, {2}));
  EXPECT_EQ(median.second.shape(), Shape(DType::kI64, {2}));
  // A float row holding NaN gives NaN: the answer is a select.
  EXPECT_EQ(Ok(ops::Median(x, 1, false)).first.node->kind(), OpKind::kSelect);
  Value scalar = Leaf(DType::kF32, {});
  EXPECT_EQ(Ok(ops::Median(scalar, 0, false)).first, scalar);
  EXPECT_FALSE(ops::Median(Leaf(DType::kF32, {0, 3}), 0, false).ok());
}

TEST(CountingOpsTest, HistcAndPdist) {
  Value x = Leaf(DType::kBF16, {5, 4});
  ops::HistcBounds given;
  given.low = Leaf(DType::kF32, {});
  given.high = Leaf(DType::kF32, {});
  given.span = Leaf(DType::kF32, {});
  ops::HistcResult r = Ok(ops::Histc(x, 7, given));
  EXPECT_EQ(r.counts.shape(), Shape(DType::kBF16, {7}));
  EXPECT_FALSE(r.bad_range);
  // The data's range: a finiteness check comes with it.
  ops::HistcResult data = Ok(ops::Histc(Leaf(DType::kI32, {9}), 3, {}));
  EXPECT_EQ(data.counts.shape(), Shape(DType::kI32, {3}));
  EXPECT_EQ(data.bad_range.shape(), Shape(DType::kBool, {}));
  EXPECT_FALSE(ops::Histc(x, 0, given).ok());
  Value rows = Leaf(DType::kI64, {6});
  Value cols = Leaf(DType::kI64, {6});
  Value points = Leaf(DType::kF32, {4, 3});
  Value d = Ok(ops::Pdist(points, 2.0, rows, cols));
  EXPECT_EQ(d.shape(), Shape(DType::kF32, {6}));
  Value g = Ok(ops::PdistBackward(Leaf(DType::kF32, {6}), points, 1.5, d,
                                  rows, cols));
  EXPECT_EQ(g.shape(), points.shape());
  EXPECT_EQ(Ok(ops::Pdist(Leaf(DType::kF32, {1, 3}), 2.0, Leaf(DType::kI64,
                                                                 {0}),
                          Leaf(DType::kI64, {0})))
                .shape(),
            Shape(DType::kF32, {0}));
  EXPECT_FALSE(ops::Pdist(Leaf(DType::kI32, {4, 3}), 2.0, rows, cols).ok());
}

}  // namespace
}  // namespace torch_xla
