// Sums of matrix products folded into one product (rewrites/summed_dots.h):
// which sums fold, the folded graph's structure, and, through the CPU
// plugin, that the folded sum has the unfolded one's values.

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "test/cpp/execution_test_util.h"
#include "torch_xla/csrc/ir/builder.h"
#include "torch_xla/csrc/lowering/lowering_context.h"
#include "torch_xla/csrc/rewrites/summed_dots.h"

namespace torch_xla {
namespace {

using testing::Contains;
using testing::Exec;
using testing::Input;
using testing::Leaf;
using testing::Make;
using testing::Matmul;
using testing::Ok;
using testing::Quarters;
using testing::Transpose;

using Dims = std::vector<int64_t>;

// x' d for x [rows, m], d [rows, n]: a weight gradient over `rows` samples.
NodePtr WeightGrad(Value x, Value d) {
  return Make(OpKind::kDotGeneral, {std::move(x), std::move(d)},
              Attrs()
                  .Set("lhs_contract", Dims{0})
                  .Set("rhs_contract", Dims{0}));
}

NodePtr Add(Value a, Value b) { return Ok(MakeBinary(OpKind::kAdd, a, b)); }

// ((t0 + t1) + t2) + ...: how autograd accumulates a gradient.
NodePtr Accumulate(const std::vector<NodePtr>& terms) {
  NodePtr sum = terms[0];
  for (size_t i = 1; i < terms.size(); ++i) sum = Add(sum, terms[i]);
  return sum;
}

std::vector<Value> Fold(const std::vector<Value>& results) {
  return Ok(FoldSummedDots(results));
}

// Micro-batch gradients, accumulated: one product over the concatenated
// micro-batches, each concatenation taking the operands in order.
TEST(SummedDotsTest, AccumulatedWeightGradientsBecomeOneProduct) {
  std::vector<NodePtr> xs, ds, terms;
  for (int i = 0; i < 4; ++i) {
    xs.push_back(Leaf(DType::kF32, {8, 64}));
    ds.push_back(Leaf(DType::kF32, {8, 32}));
    terms.push_back(WeightGrad(xs[i], ds[i]));
  }
  const Value folded = Fold({Accumulate(terms)})[0];
  ASSERT_EQ(folded.node->kind(), OpKind::kDotGeneral);
  EXPECT_EQ(folded.shape(), Shape(DType::kF32, {64, 32}));
  const Node& a = *folded.node->operand(0).node;
  const Node& b = *folded.node->operand(1).node;
  ASSERT_EQ(a.kind(), OpKind::kConcatenate);
  ASSERT_EQ(b.kind(), OpKind::kConcatenate);
  EXPECT_EQ(a.shape(), Shape(DType::kF32, {32, 64}));
  EXPECT_EQ(b.shape(), Shape(DType::kF32, {32, 32}));
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(a.operand(i).node, xs[i]);
    EXPECT_EQ(b.operand(i).node, ds[i]);
  }
}

// A transposed product is the swapped product: transpose(d' x) folds with
// x' d; a double transpose is none.
TEST(SummedDotsTest, TransposedProductsFoldWithTheirSwappedOperands) {
  NodePtr x0 = Leaf(DType::kF32, {8, 64}), d0 = Leaf(DType::kF32, {8, 32});
  NodePtr x1 = Leaf(DType::kF32, {8, 64}), d1 = Leaf(DType::kF32, {8, 32});
  NodePtr x2 = Leaf(DType::kF32, {8, 64}), d2 = Leaf(DType::kF32, {8, 32});
  NodePtr sum = Accumulate({WeightGrad(x0, d0), Transpose(WeightGrad(d1, x1)),
                            Transpose(Transpose(WeightGrad(x2, d2)))});
  const Value folded = Fold({sum})[0];
  ASSERT_EQ(folded.node->kind(), OpKind::kDotGeneral);
  const Node& a = *folded.node->operand(0).node;
  ASSERT_EQ(a.kind(), OpKind::kConcatenate);
  EXPECT_EQ(a.operand(0).node, x0);
  EXPECT_EQ(a.operand(1).node, x1);
  EXPECT_EQ(a.operand(2).node, x2);
}

// bf16 products computed in f32 and rounded to bf16 fold into one f32
// product rounded once.
TEST(SummedDotsTest, ProductsRoundedToTheSumsTypeFoldBeforeTheRounding) {
  std::vector<NodePtr> terms;
  for (int i = 0; i < 3; ++i) {
    NodePtr product = Make(
        OpKind::kDotGeneral,
        {Leaf(DType::kBF16, {8, 64}), Leaf(DType::kBF16, {8, 32})},
        Attrs()
            .Set("lhs_contract", Dims{0})
            .Set("rhs_contract", Dims{0})
            .Set("dtype", DType::kF32));
    terms.push_back(testing::Convert(product, DType::kBF16).node);
  }
  const Value folded = Fold({Accumulate(terms)})[0];
  ASSERT_EQ(folded.node->kind(), OpKind::kConvert);
  EXPECT_EQ(folded.shape(), Shape(DType::kBF16, {64, 32}));
  const Node& product = *folded.node->operand(0).node;
  ASSERT_EQ(product.kind(), OpKind::kDotGeneral);
  EXPECT_EQ(product.shape(), Shape(DType::kF32, {64, 32}));
  EXPECT_EQ(product.operand(0).node->num_operands(), 3u);
}

// Terms that are not products stay terms of the sum, in their places.
TEST(SummedDotsTest, OtherTermsStayInTheSum) {
  NodePtr c = Leaf(DType::kF32, {64, 32});
  std::vector<NodePtr> terms = {c};
  for (int i = 0; i < 3; ++i) {
    terms.push_back(
        WeightGrad(Leaf(DType::kF32, {8, 64}), Leaf(DType::kF32, {8, 32})));
  }
  const Value folded = Fold({Accumulate(terms)})[0];
  ASSERT_EQ(folded.node->kind(), OpKind::kAdd);
  EXPECT_EQ(folded.node->operand(0).node, c);
  EXPECT_EQ(folded.node->operand(1).node->kind(), OpKind::kDotGeneral);
}

// h Wq + h Wk + h Wv (the backward of three projections): the operands are
// weights, larger than the products folding would save, so nothing changes.
TEST(SummedDotsTest, ProductsOfLargeOperandsAreLeftAlone) {
  std::vector<NodePtr> terms;
  for (int i = 0; i < 3; ++i) {
    terms.push_back(
        Matmul(Leaf(DType::kF32, {8, 64}), Leaf(DType::kF32, {64, 64})));
  }
  NodePtr sum = Accumulate(terms);
  EXPECT_EQ(Fold({sum})[0].node, sum);
}

// A product that is also read elsewhere (here: a result) is needed anyway;
// the others still fold.
TEST(SummedDotsTest, AProductReadElsewhereStaysATerm) {
  std::vector<NodePtr> terms;
  for (int i = 0; i < 3; ++i) {
    terms.push_back(
        WeightGrad(Leaf(DType::kF32, {8, 64}), Leaf(DType::kF32, {8, 32})));
  }
  NodePtr sum = Accumulate(terms);
  const std::vector<Value> folded = Fold({sum, terms[0]});
  EXPECT_EQ(folded[1].node, terms[0]);
  ASSERT_EQ(folded[0].node->kind(), OpKind::kAdd);
  EXPECT_EQ(folded[0].node->operand(0).node, terms[0]);
  const Node& rest = *folded[0].node->operand(1).node;
  ASSERT_EQ(rest.kind(), OpKind::kDotGeneral);
  EXPECT_EQ(rest.operand(0).node->num_operands(), 2u);
}

// Products of different precisions are not merged; each group folds alone.
TEST(SummedDotsTest, ProductsOfAnotherPrecisionAreNotMerged) {
  std::vector<NodePtr> terms;
  for (int i = 0; i < 4; ++i) {
    Attrs attrs = Attrs()
                      .Set("lhs_contract", Dims{0})
                      .Set("rhs_contract", Dims{0})
                      .Set("precision", i < 2 ? "HIGHEST" : "DEFAULT");
    NodePtr x = Leaf(DType::kF32, {8, 64}), d = Leaf(DType::kF32, {8, 32});
    terms.push_back(Make(OpKind::kDotGeneral, {x, d}, std::move(attrs)));
  }
  const Value folded = Fold({Accumulate(terms)})[0];
  ASSERT_EQ(folded.node->kind(), OpKind::kAdd);
  for (int i = 0; i < 2; ++i) {
    const Node& product = *folded.node->operand(i).node;
    ASSERT_EQ(product.kind(), OpKind::kDotGeneral);
    EXPECT_EQ(*product.GetAttr<std::string>("precision").value(),
              i == 0 ? "HIGHEST" : "DEFAULT");
    EXPECT_EQ(product.operand(0).node->num_operands(), 2u);
  }
}

// Whatever sits above the sum reads the folded sum; the input graph is
// unchanged.
TEST(SummedDotsTest, UsersOfTheSumReadTheFoldedSum) {
  std::vector<NodePtr> terms;
  for (int i = 0; i < 2; ++i) {
    terms.push_back(
        WeightGrad(Leaf(DType::kF32, {8, 64}), Leaf(DType::kF32, {8, 32})));
  }
  NodePtr sum = Accumulate(terms);
  NodePtr w = Leaf(DType::kF32, {64, 32});
  NodePtr updated = Ok(MakeBinary(OpKind::kSubtract, w, sum));
  const std::vector<Value> folded = Fold({updated, sum});
  EXPECT_EQ(folded[0].node->operand(0).node, w);
  EXPECT_EQ(folded[0].node->operand(1), folded[1]);
  EXPECT_EQ(folded[1].node->kind(), OpKind::kDotGeneral);
  EXPECT_EQ(updated->operand(1).node, sum);
}

// Through the plugin: the module holds one product and the values are the
// sum's (quarters: exact in f32 whatever the order of the sum).
TEST(SummedDotsTest, FoldedSumComputesTheSum) {
  constexpr int rows = 8, m = 32, n = 32, micro = 3;
  std::vector<std::vector<float>> x_values, d_values;
  std::vector<NodePtr> terms;
  for (int i = 0; i < micro; ++i) {
    x_values.push_back(Quarters(rows * m, 11 + i));
    d_values.push_back(Quarters(rows * n, 37 + i));
    terms.push_back(WeightGrad(Input(x_values[i], {rows, m}),
                               Input(d_values[i], {rows, n})));
  }
  NodePtr sum = Accumulate(terms);

  LoweringContext context("summed_dots");
  ASSERT_TRUE(context.Build({Value(sum)}).ok());
  const std::string text = Ok(context.HloText());
  size_t dots = 0;
  for (size_t at = text.find("stablehlo.dot_general"); at != std::string::npos;
       at = text.find("stablehlo.dot_general", at + 1)) {
    ++dots;
  }
  EXPECT_EQ(dots, 1u) << text;
  EXPECT_TRUE(Contains(text, "stablehlo.concatenate")) << text;

  const std::vector<float> got = Exec<float>(Value(sum));
  ASSERT_EQ(got.size(), static_cast<size_t>(m * n));
  for (int r = 0; r < m; ++r) {
    for (int c = 0; c < n; ++c) {
      float want = 0;
      for (int i = 0; i < micro; ++i) {
        for (int k = 0; k < rows; ++k) {
          want += x_values[i][k * m + r] * d_values[i][k * n + c];
        }
      }
      EXPECT_EQ(got[r * n + c], want) << r << "," << c;
    }
  }
}

// A partitioned graph keeps its products: the partitioner would gather the
// micro-batches that SPMD shards along the dim a fold concatenates.
TEST(SummedDotsTest, PartitionedGraphsAreNotFolded) {
  std::vector<NodePtr> terms;
  for (int i = 0; i < 3; ++i) {
    terms.push_back(
        WeightGrad(Leaf(DType::kF32, {8, 64}), Leaf(DType::kF32, {8, 32})));
  }
  LoweringContext context("summed_dots");
  ASSERT_TRUE(context.Build({Value(Accumulate(terms))}).ok());
  EXPECT_TRUE(Contains(Ok(context.HloText()), "stablehlo.concatenate"));
  ASSERT_TRUE(context.SetParameterSharding(0, "{devices=[2,1]0,1}").ok());
  EXPECT_FALSE(Contains(Ok(context.HloText()), "stablehlo.concatenate"));
}

}  // namespace
}  // namespace torch_xla
