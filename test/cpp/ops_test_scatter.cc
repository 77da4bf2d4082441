// The gather/scatter builders (torch_xla/csrc/ops/scatter_ops.h) on their
// own: result shapes and dtypes, the op each ends in, the empty and 0-d
// cases, bool accumulation as an or, and what they refuse. Values are
// checked against eager in test/python/test_index_crossings.py and
// test/python/ops/test_gather_scatter.py.

#include <vector>

#include "gtest/gtest.h"
#include "torch_xla/csrc/ops/scatter_ops.h"
#include "test/cpp/ir_test_util.h"

namespace torch_xla {
namespace {

using testing::Leaf;
using testing::Ok;

TEST(ScatterOpsTest, GatherTakesIndexShapeAndEmptyIndexGivesZeros) {
  Value x = Leaf(DType::kBF16, {4, 5});
  Value out = Ok(ops::GatherAlongDim(x, 1, Leaf(DType::kI32, {3, 2})));
  EXPECT_EQ(out.shape(), Shape(DType::kBF16, {3, 2}));
  EXPECT_EQ(out.node->kind(), OpKind::kGather);
  Value empty = Ok(ops::GatherAlongDim(x, 0, Leaf(DType::kI64, {0, 5})));
  EXPECT_EQ(empty.shape(), Shape(DType::kBF16, {0, 5}));
  EXPECT_EQ(empty.node->kind(), OpKind::kConstant);
  // A 0-d x and a 0-d index: a 0-d result.
  Value scalar = Ok(ops::GatherAlongDim(Leaf(DType::kF32, {}), 0,
                                        Leaf(DType::kI64, {})));
  EXPECT_EQ(scalar.shape(), Shape(DType::kF32, {}));
}

TEST(ScatterOpsTest, ScatterKeepsXShapeAndAddsBoolsAsOr) {
  Value x = Leaf(DType::kF32, {4, 5});
  Value index = Leaf(DType::kI64, {2, 5});
  Value src = Leaf(DType::kF32, {3, 5});  // its leading [2, 5] block
  Value out = Ok(ops::ScatterAlongDim(x, 0, index, src, false, true));
  EXPECT_EQ(out.shape(), x.shape());
  Value b = Leaf(DType::kBool, {4, 5});
  Value ored = Ok(ops::ScatterAlongDim(b, 0, index, Leaf(DType::kBool, {2, 5}),
                                       false, true));
  EXPECT_EQ(ored.shape(), b.shape());
  EXPECT_EQ(ored.node->kind(), OpKind::kOr);
  // A value for every element; an empty index gives x itself.
  Value filled = Ok(ops::ScatterAlongDim(x, 1, index, Leaf(DType::kF64, {}),
                                         true, false));
  EXPECT_EQ(filled.shape(), x.shape());
  Value same = Ok(ops::ScatterAlongDim(x, 0, Leaf(DType::kI64, {0, 5}), src,
                                       false, false));
  EXPECT_EQ(same, x);
  // src of another rank than index: refused.
  EXPECT_FALSE(ops::ScatterAlongDim(x, 0, index, Leaf(DType::kF32, {10}),
                                    false, false)
                   .ok());
}

TEST(ScatterOpsTest, ScatterReduceMeanDividesAndRefusesIntegers) {
  Value x = Leaf(DType::kF32, {4, 5});
  Value index = Leaf(DType::kI64, {2, 5});
  Value src = Leaf(DType::kF32, {2, 5});
  Value mean = Ok(ops::ScatterReduce(x, 0, index, src, true, false));
  EXPECT_EQ(mean.shape(), x.shape());
  EXPECT_EQ(mean.node->kind(), OpKind::kDivide);
  EXPECT_FALSE(ops::ScatterReduce(Leaf(DType::kI32, {4, 5}), 0, index,
                                  Leaf(DType::kI32, {2, 5}), true, true)
                   .ok());
}

TEST(ScatterOpsTest, IndexAlongDimOpsGiveEagerShapes) {
  Value x = Leaf(DType::kF32, {6, 3});
  Value idx = Leaf(DType::kI32, {4});
  EXPECT_EQ(Ok(ops::IndexSelect(x, 0, idx)).shape(),
            Shape(DType::kF32, {4, 3}));
  Value scalar = Leaf(DType::kF32, {});
  EXPECT_EQ(Ok(ops::IndexSelect(scalar, 0, Leaf(DType::kI64, {1}))), scalar);
  Value source = Leaf(DType::kF32, {4, 3});
  EXPECT_EQ(Ok(ops::IndexCopy(x, 0, idx, source)).shape(), x.shape());
  Value added = Ok(ops::IndexAdd(x, 0, idx, source, Leaf(DType::kF32, {})));
  EXPECT_EQ(added.shape(), x.shape());
  EXPECT_EQ(Ok(ops::IndexFill(x, 1, Leaf(DType::kI64, {2}),
                              Leaf(DType::kF64, {})))
                .shape(),
            x.shape());
  // A 0-d x works as a 1-vector and stays 0-d.
  EXPECT_EQ(Ok(ops::IndexCopy(scalar, 0, Leaf(DType::kI64, {1}),
                              Leaf(DType::kF32, {})))
                .shape(),
            scalar.shape());
}

TEST(ScatterOpsTest, TakeAndPutUseFlatIndices) {
  Value x = Leaf(DType::kF32, {4, 5});
  EXPECT_EQ(Ok(ops::Take(x, Leaf(DType::kI64, {2, 3}))).shape(),
            Shape(DType::kF32, {2, 3}));
  EXPECT_EQ(Ok(ops::Put(x, Leaf(DType::kI64, {3}), Leaf(DType::kF32, {3}),
                        true))
                .shape(),
            x.shape());
  EXPECT_EQ(Ok(ops::Put(x, Leaf(DType::kI64, {0}), Leaf(DType::kF32, {0}),
                        false)),
            x);
}

TEST(ScatterOpsTest, MaskedOpsBroadcastAndCheckTheSourceSize) {
  Value x = Leaf(DType::kF32, {4, 5});
  Value mask = Leaf(DType::kBool, {5});
  ops::MaskedScatterResult r =
      Ok(ops::MaskedScatter(x, mask, Leaf(DType::kF32, {6}), {4, 5}));
  EXPECT_EQ(r.out.shape(), x.shape());
  EXPECT_EQ(r.out.node->kind(), OpKind::kSelect);
  EXPECT_EQ(r.too_many.shape(), Shape(DType::kBool, {}));
  ops::MaskedScatterResult empty = Ok(ops::MaskedScatter(
      Leaf(DType::kF32, {0, 5}), mask, Leaf(DType::kF32, {3}), {0, 5}));
  EXPECT_FALSE(static_cast<bool>(empty.too_many));
  EXPECT_EQ(Ok(ops::MaskedScatterBackward(x, mask, {2, 3})).shape(),
            Shape(DType::kF32, {2, 3}));
  Value put = Ok(ops::MaskedIndexPut(Leaf(DType::kF32, {4, 3, 2}), 0,
                                     Leaf(DType::kBool, {4, 3}),
                                     Leaf(DType::kF32, {2}), true));
  EXPECT_EQ(put.shape(), Shape(DType::kF32, {4, 3, 2}));
  EXPECT_FALSE(ops::MaskedIndexPut(Leaf(DType::kF32, {4, 3, 2}), 0,
                                   Leaf(DType::kBool, {4, 3}),
                                   Leaf(DType::kF32, {3}), false)
                   .ok());
}

}  // namespace
}  // namespace torch_xla
