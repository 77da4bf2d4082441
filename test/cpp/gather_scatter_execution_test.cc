// Execution of gather (embedding rows, index_select, points and clamped
// windows, batching dims) and scatter (replace, add with duplicate indices,
// out-of-bounds updates skipped). Graphs run through the CPU plugin and are
// checked against values computed here with plain C++ loops. Inputs lie on a
// grid of quarters (testing::Quarters), so sums and products are exact in f32
// and results compare bit for bit.

#include <algorithm>
#include <cstdint>
#include <vector>

#include "gtest/gtest.h"
#include "test/cpp/execution_test_util.h"
#include "test/cpp/ir_test_util.h"
#include "torch_xla/csrc/ir/builder.h"

namespace torch_xla {
namespace {

using testing::Exec;
using testing::Input;
using testing::Make;
using testing::Quarters;
using Dims = std::vector<int64_t>;

// ---------------------------------------------------------------------------
// gather and scatter.

TEST(GatherExecTest, RowGatherLikeEmbedding) {
  std::vector<float> table = Quarters(5 * 3, 21);
  std::vector<int32_t> ids = {3, 0, 3, 4};
  Value g = Make(OpKind::kGather, {Input(table, {5, 3}), Input(ids, {4, 1})},
                 Attrs()
                     .Set("offset_dims", Dims{1})
                     .Set("collapsed_dims", Dims{0})
                     .Set("start_index_map", Dims{0})
                     .Set("index_vec_dim", 1)
                     .Set("slice_sizes", Dims{1, 3}));
  std::vector<float> want;
  for (int32_t r : ids)
    want.insert(want.end(), &table[r * 3], &table[r * 3 + 3]);
  EXPECT_EQ(g.shape(), Shape(DType::kF32, {4, 3}));
  EXPECT_EQ(Exec<float>(g), want);
}

TEST(GatherExecTest, IndexSelectAlongDim1WithImplicitIndexVector) {
  // index_select(x, 1, ids): indices [2] with index_vec_dim = rank (1).
  std::vector<float> x = Quarters(3 * 5, 22);
  std::vector<int64_t> ids = {4, 1};
  Value g = Make(OpKind::kGather, {Input(x, {3, 5}), Input(ids, {2})},
                 Attrs()
                     .Set("offset_dims", Dims{0})
                     .Set("collapsed_dims", Dims{1})
                     .Set("start_index_map", Dims{1})
                     .Set("index_vec_dim", 1)
                     .Set("slice_sizes", Dims{3, 1}));
  std::vector<float> want;
  for (int i = 0; i < 3; ++i)
    for (int64_t c : ids) want.push_back(x[i * 5 + c]);
  EXPECT_EQ(g.shape().dims, (Dims{3, 2}));
  EXPECT_EQ(Exec<float>(g), want);
}

TEST(GatherExecTest, PointsAndClampedWindows) {
  std::vector<float> x = Quarters(4 * 5, 23);
  Value op = Input(x, {4, 5});
  std::vector<int32_t> pts = {0, 0, 3, 4, 2, 1};  // (row, col) pairs
  Value points = Make(OpKind::kGather, {op, Input(pts, {3, 2})},
                      Attrs()
                          .Set("offset_dims", Dims{})
                          .Set("collapsed_dims", Dims{0, 1})
                          .Set("start_index_map", Dims{0, 1})
                          .Set("index_vec_dim", 1)
                          .Set("slice_sizes", Dims{1, 1}));
  EXPECT_EQ(Exec<float>(points),
            (std::vector<float>{x[0], x[3 * 5 + 4], x[2 * 5 + 1]}));

  // 2x2 windows; XLA clamps each start so the window fits: (3,4) -> (2,3),
  // (-1,1) -> (0,1).
  std::vector<int32_t> starts = {1, 2, 3, 4, -1, 1};
  Value windows = Make(OpKind::kGather, {op, Input(starts, {3, 2})},
                       Attrs()
                           .Set("offset_dims", Dims{1, 2})
                           .Set("collapsed_dims", Dims{})
                           .Set("start_index_map", Dims{0, 1})
                           .Set("index_vec_dim", 1)
                           .Set("slice_sizes", Dims{2, 2}));
  std::vector<float> want;
  for (int w = 0; w < 3; ++w) {
    int r = std::min(std::max(starts[2 * w], 0), 2);
    int c = std::min(std::max(starts[2 * w + 1], 0), 3);
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 2; ++j) want.push_back(x[(r + i) * 5 + c + j]);
  }
  EXPECT_EQ(Exec<float>(windows), want);
}

TEST(GatherExecTest, BatchingDimsTakeAlongDim) {
  // out[b][j] = x[b][idx[b][j]] with operand/indices batching dims.
  std::vector<float> x = Quarters(2 * 5, 24);
  std::vector<int32_t> idx = {4, 0, 2, 1, 1, 3};
  Value g = Make(OpKind::kGather, {Input(x, {2, 5}), Input(idx, {2, 3, 1})},
                 Attrs()
                     .Set("offset_dims", Dims{})
                     .Set("collapsed_dims", Dims{1})
                     .Set("operand_batch", Dims{0})
                     .Set("indices_batch", Dims{0})
                     .Set("start_index_map", Dims{1})
                     .Set("index_vec_dim", 2)
                     .Set("slice_sizes", Dims{1, 1}));
  std::vector<float> want;
  for (int b = 0; b < 2; ++b)
    for (int j = 0; j < 3; ++j) want.push_back(x[b * 5 + idx[b * 3 + j]]);
  EXPECT_EQ(Exec<float>(g), want);
}

Attrs RowScatter(const char* kind) {
  return Attrs()
      .Set("window_dims", Dims{1})
      .Set("inserted_dims", Dims{0})
      .Set("scatter_dim_map", Dims{0})
      .Set("index_vec_dim", 1)
      .Set("kind", kind);
}

TEST(ScatterExecTest, ReplaceAndAddRows) {
  std::vector<float> base = Quarters(5 * 3, 31), upd = Quarters(3 * 3, 32);
  std::vector<int32_t> rows = {4, 0, 2};
  std::vector<float> replaced = base, added = base;
  for (int u = 0; u < 3; ++u) {
    for (int j = 0; j < 3; ++j) {
      replaced[rows[u] * 3 + j] = upd[u * 3 + j];
      added[rows[u] * 3 + j] += upd[u * 3 + j];
    }
  }
  auto scatter = [&](const char* kind) {
    return Make(OpKind::kScatter,
                {Input(base, {5, 3}), Input(rows, {3, 1}), Input(upd, {3, 3})},
                RowScatter(kind));
  };
  EXPECT_EQ(Exec<float>(scatter("replace")), replaced);
  EXPECT_EQ(Exec<float>(scatter("add")), added);
}

TEST(ScatterExecTest, AddAccumulatesDuplicateIndices) {
  // index_add_ with repeated rows, and index_put_(accumulate) on points.
  std::vector<float> base = Quarters(4 * 2, 33), upd = {1, 2, 10, 20, 100, 200};
  std::vector<int32_t> rows = {1, 3, 1};
  std::vector<float> want = base;
  for (int u = 0; u < 3; ++u)
    for (int j = 0; j < 2; ++j) want[rows[u] * 2 + j] += upd[u * 2 + j];
  EXPECT_EQ(Exec<float>(Make(
                OpKind::kScatter,
                {Input(base, {4, 2}), Input(rows, {3, 1}), Input(upd, {3, 2})},
                RowScatter("add"))),
            want);
  EXPECT_EQ(want[2], base[2] + 101);

  std::vector<int32_t> pts = {0, 1, 2, 3, 0, 1, 1, 0};  // (0,1) twice
  std::vector<int32_t> vals = {5, 7, 11, 13};
  std::vector<int32_t> grid(12, 1), want_grid(12, 1);
  for (int u = 0; u < 4; ++u)
    want_grid[pts[2 * u] * 4 + pts[2 * u + 1]] += vals[u];
  Value s = Make(OpKind::kScatter,
                 {Input(grid, {3, 4}), Input(pts, {4, 2}), Input(vals, {4})},
                 Attrs()
                     .Set("window_dims", Dims{})
                     .Set("inserted_dims", Dims{0, 1})
                     .Set("scatter_dim_map", Dims{0, 1})
                     .Set("index_vec_dim", 1)
                     .Set("kind", "add"));
  EXPECT_EQ(Exec<int32_t>(s), want_grid);
  EXPECT_EQ(want_grid[1], 1 + 5 + 11);
}

TEST(ScatterExecTest, OutOfBoundsUpdatesAreSkipped) {
  // Unlike gather, scatter does not clamp: an update window that does not
  // fit is dropped.
  std::vector<float> base = {0, 0, 0, 0, 0, 0}, upd = {1, 2, 3, 4};
  std::vector<int32_t> rows = {2, 7};
  EXPECT_EQ(Exec<float>(Make(
                OpKind::kScatter,
                {Input(base, {3, 2}), Input(rows, {2, 1}), Input(upd, {2, 2})},
                RowScatter("add"))),
            (std::vector<float>{0, 0, 0, 0, 1, 2}));
}

}  // namespace
}  // namespace torch_xla
