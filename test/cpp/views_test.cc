// Views of lazy tensors (tensor/views.h) on the CPU plugin: each C++ step
// derives the right values, in-place writes go back through a chain of steps
// into the root, views re-derive when their root moves, and the failures
// (writing through a repeating expand, cloning a donated tensor, a value of
// the wrong shape) are statuses that change nothing. The view ops built on
// them (tensor/view_ops.h) give eager's strides, offsets and errors.

#include <optional>
#include <vector>

#include "gtest/gtest.h"
#include "test/cpp/execution_test_util.h"
#include "torch_xla/csrc/ir/error_class.h"
#include "torch_xla/csrc/ir/value_builders.h"
#include "torch_xla/csrc/tensor/graph_executor.h"
#include "torch_xla/csrc/tensor/view_ops.h"
#include "torch_xla/csrc/tensor/views.h"
#include "torch_xla/csrc/tensor/xla_tensor.h"

namespace torch_xla {
namespace {

using testing::Read;
using testing::TensorFromHost;

// A view of `base` (a root when `base_view` is null) one `step` further:
// its handle and its view info.
struct View {
  XlaTensorPtr handle;
  ViewInfoPtr info;
};

View MakeView(const XlaTensorPtr& base, const ViewInfoPtr& base_view,
              ViewStepPtr step) {
  absl::StatusOr<XlaTensorPtr> value = step->Forward(base);
  EXPECT_TRUE(value.ok()) << value.status();
  // Its own handle, so in-place updates of the view never touch the base's.
  absl::StatusOr<XlaTensorPtr> handle = CloneTensor(**value);
  EXPECT_TRUE(handle.ok()) << handle.status();
  ViewInfoPtr info =
      ExtendView(base, base_view, std::move(step),
                 ContiguousStrides((*handle)->shape().dims), 0);
  return {*handle, info};
}

// 0 1 2
// 3 4 5
XlaTensorPtr Root2x3() { return TensorFromHost({0, 1, 2, 3, 4, 5}, {2, 3}); }

TEST(ViewsTest, ReshapeViewDerivesRowMajorValues) {
  XlaTensorPtr root = Root2x3();
  View v = MakeView(root, nullptr, ReshapeStep({3, 2}, {2, 3}));
  EXPECT_EQ(v.handle->shape().dims, (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(Read<float>(v.handle), (std::vector<float>{0, 1, 2, 3, 4, 5}));
}

TEST(ViewsTest, PermuteViewTransposes) {
  XlaTensorPtr root = Root2x3();
  View v = MakeView(root, nullptr, PermuteStep({1, 0}));
  EXPECT_EQ(v.handle->shape().dims, (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(Read<float>(v.handle), (std::vector<float>{0, 3, 1, 4, 2, 5}));
}

TEST(ViewsTest, SliceViewTakesTheRange) {
  XlaTensorPtr root = Root2x3();
  View v = MakeView(root, nullptr, SliceStep(/*dim=*/1, /*start=*/1, 3));
  EXPECT_EQ(v.handle->shape().dims, (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(Read<float>(v.handle), (std::vector<float>{1, 2, 4, 5}));
}

TEST(ViewsTest, ExpandViewRepeatsSizeOneDims) {
  XlaTensorPtr root = TensorFromHost({7, 8}, {2, 1});
  View v = MakeView(root, nullptr, ExpandStep({2, 3}, {2, 1}, false));
  EXPECT_EQ(Read<float>(v.handle), (std::vector<float>{7, 7, 7, 8, 8, 8}));
}

TEST(ViewsTest, IdentityStepKeepsTheData) {
  XlaTensorPtr root = Root2x3();
  absl::StatusOr<XlaTensorPtr> same = ReshapeStep({2, 3}, {2, 3})->Forward(root);
  ASSERT_TRUE(same.ok());
  EXPECT_EQ(same->get(), root.get());
}

TEST(ViewsTest, CommitWritesThroughAChainIntoTheRoot) {
  XlaTensorPtr root = Root2x3();
  // root.t()[1:3]: rows 1 and 2 of the transpose = columns 1 and 2.
  View t = MakeView(root, nullptr, PermuteStep({1, 0}));
  View s = MakeView(t.handle, t.info, SliceStep(0, 1, 3));
  EXPECT_EQ(Read<float>(s.handle), (std::vector<float>{1, 4, 2, 5}));
  const int64_t version = root->version();

  XlaTensorPtr value = TensorFromHost({10, 40, 20, 50}, {2, 2});
  absl::Status status = CommitView(*s.handle, *s.info, value);
  ASSERT_TRUE(status.ok()) << status;

  EXPECT_EQ(root->version(), version + 1);
  EXPECT_EQ(s.info->seen_version, root->version());
  EXPECT_EQ(Read<float>(root), (std::vector<float>{0, 10, 20, 3, 40, 50}));
  EXPECT_EQ(Read<float>(s.handle), (std::vector<float>{10, 40, 20, 50}));
  // The sibling view sees the write once refreshed.
  ASSERT_TRUE(RefreshView(*t.handle, *t.info).ok());
  EXPECT_EQ(Read<float>(t.handle), (std::vector<float>{0, 3, 10, 40, 20, 50}));
}

TEST(ViewsTest, CommitThroughReshapeAndWritableExpand) {
  XlaTensorPtr root = TensorFromHost({1, 2, 3}, {3});
  View r = MakeView(root, nullptr, ReshapeStep({1, 3}, {3}));
  // An expand that adds no repeats ([1,3] -> [1,3]) is writable.
  View e = MakeView(r.handle, r.info, ExpandStep({1, 3}, {1, 3}, true));
  ASSERT_TRUE(
      CommitView(*e.handle, *e.info, TensorFromHost({4, 5, 6}, {1, 3})).ok());
  EXPECT_EQ(Read<float>(root), (std::vector<float>{4, 5, 6}));
}

TEST(ViewsTest, RefreshRederivesAfterTheRootChanges) {
  XlaTensorPtr root = Root2x3();
  View v = MakeView(root, nullptr, SliceStep(0, 1, 2));
  EXPECT_EQ(Read<float>(v.handle), (std::vector<float>{3, 4, 5}));

  // An in-place update of the root (a new value, version bumped).
  XlaTensorPtr update = TensorFromHost({6, 7, 8, 9, 10, 11}, {2, 3});
  ASSERT_TRUE(AssignValue(*root, *update, /*bump_version=*/true).ok());
  EXPECT_NE(v.info->seen_version, root->version());
  ASSERT_TRUE(RefreshView(*v.handle, *v.info).ok());
  EXPECT_EQ(v.info->seen_version, root->version());
  EXPECT_EQ(Read<float>(v.handle), (std::vector<float>{9, 10, 11}));

  // Without a version bump the view keeps its value (nothing to re-derive).
  ASSERT_TRUE(AssignValue(*root, *Root2x3(), /*bump_version=*/false).ok());
  ASSERT_TRUE(RefreshView(*v.handle, *v.info).ok());
  EXPECT_EQ(Read<float>(v.handle), (std::vector<float>{9, 10, 11}));
}

// A pending 3x2 root (the transpose of Root2x3) that a sync would compute.
XlaTensorPtr PendingRoot() {
  absl::StatusOr<Value> data = Root2x3()->GetIrValue();
  EXPECT_TRUE(data.ok()) << data.status();
  absl::StatusOr<Value> transposed = MakeTranspose(*data, {1, 0});
  EXPECT_TRUE(transposed.ok()) << transposed.status();
  return XlaTensor::FromIr(*transposed, /*device=*/0);
}

// A view linked to its handle, as a Python tensor's is.
View LinkedView(const XlaTensorPtr& base, const ViewInfoPtr& base_view,
                ViewStepPtr step) {
  View v = MakeView(base, base_view, std::move(step));
  v.handle->set_view(v.info);
  return v;
}

// A weight gradient that is a view of a matmul result: the sync computes the
// root alone, and the view then reads the root's new data.
TEST(ViewsTest, SyncComputesTheRootOnceAndRederivesItsViews) {
  XlaTensorPtr root = PendingRoot();
  View t = LinkedView(root, nullptr, PermuteStep({1, 0}));
  View row = LinkedView(t.handle, t.info, SliceStep(0, 1, 2));
  std::vector<XlaTensorPtr> tensors{root, t.handle, row.handle};
  std::vector<XlaTensorPtr> views = TakeRederivableViews(tensors);
  EXPECT_EQ(tensors, (std::vector<XlaTensorPtr>{root}));
  EXPECT_EQ(views, (std::vector<XlaTensorPtr>{t.handle, row.handle}));

  ASSERT_TRUE(SyncTensors(tensors).ok());
  ASSERT_EQ(root->state(), TensorState::kDeviceData);
  ASSERT_TRUE(RederiveViews(views).ok());
  // Pending again, now over the root's data (never sharing it: the data's
  // owner, and so its donation, stays the root's).
  EXPECT_EQ(t.handle->state(), TensorState::kIrValue);
  EXPECT_EQ(t.info->seen_version, root->version());
  EXPECT_EQ(Read<float>(t.handle), (std::vector<float>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(Read<float>(row.handle), (std::vector<float>{3, 4, 5}));
}

TEST(ViewsTest, SyncComputesViewsItCannotRederive) {
  XlaTensorPtr root = PendingRoot();
  // Its root moved since: its pending value is the old one.
  View stale = LinkedView(root, nullptr, SliceStep(0, 0, 1));
  root->BumpVersion();
  // Its root is not part of this sync.
  View orphan = LinkedView(PendingRoot(), nullptr, SliceStep(0, 0, 1));
  // Not linked to its handle.
  View unlinked = MakeView(root, nullptr, SliceStep(0, 1, 2));
  std::vector<XlaTensorPtr> tensors{root, stale.handle, orphan.handle,
                                    unlinked.handle};
  const std::vector<XlaTensorPtr> all = tensors;
  EXPECT_TRUE(TakeRederivableViews(tensors).empty());
  EXPECT_EQ(tensors, all);
}

TEST(ViewsTest, RepeatingExpandRefusesAWriteAndChangesNothing) {
  XlaTensorPtr root = TensorFromHost({7, 8}, {2, 1});
  View v = MakeView(root, nullptr, ExpandStep({2, 3}, {2, 1}, false));
  const int64_t version = root->version();
  absl::Status status =
      CommitView(*v.handle, *v.info,
                 TensorFromHost({1, 2, 3, 4, 5, 6}, {2, 3}));
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  // Eager raises RuntimeError here; so do we.
  EXPECT_EQ(GetEagerErrorClass(status), EagerErrorClass::kRuntimeError);
  EXPECT_NE(status.message().find("more than one element of the written-to "
                                  "tensor refers to a single memory location"),
            absl::string_view::npos)
      << status;
  EXPECT_NE(status.message().find("clone()"), absl::string_view::npos);
  EXPECT_EQ(root->version(), version);
  EXPECT_EQ(Read<float>(root), (std::vector<float>{7, 8}));
  EXPECT_EQ(Read<float>(v.handle), (std::vector<float>{7, 7, 7, 8, 8, 8}));
}

TEST(ViewsTest, CommitOfAWrongShapeFailsBeforeWriting) {
  XlaTensorPtr root = Root2x3();
  View v = MakeView(root, nullptr, SliceStep(0, 0, 1));
  absl::Status status =
      CommitView(*v.handle, *v.info, TensorFromHost({1, 2}, {2}));
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  EXPECT_EQ(Read<float>(root), (std::vector<float>{0, 1, 2, 3, 4, 5}));
}

TEST(ViewsTest, CloneSharesTheValueWithNewIds) {
  XlaTensorPtr root = Root2x3();
  absl::StatusOr<XlaTensorPtr> clone = CloneTensor(*root);
  ASSERT_TRUE(clone.ok());
  EXPECT_NE((*clone)->id(), root->id());
  EXPECT_NE((*clone)->alias_id(), root->alias_id());
  EXPECT_EQ((*clone)->data(), root->data());
  EXPECT_EQ(Read<float>(*clone), Read<float>(root));
}

TEST(ViewsTest, CloneOfADeletedTensorFails) {
  XlaTensorPtr root = Root2x3();
  root->MarkDeleted();
  absl::StatusOr<XlaTensorPtr> clone = CloneTensor(*root);
  ASSERT_FALSE(clone.ok());
  EXPECT_EQ(clone.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(clone.status().message().find("donated"), absl::string_view::npos)
      << clone.status();
  // Nor can its value be assigned to another tensor.
  XlaTensorPtr other = Root2x3();
  EXPECT_FALSE(AssignValue(*other, *root, true).ok());
  EXPECT_EQ(other->version(), 0);
}

TEST(ViewsTest, ContiguousStrides) {
  EXPECT_EQ(ContiguousStrides({2, 3, 4}), (std::vector<int64_t>{12, 4, 1}));
  EXPECT_EQ(ContiguousStrides({2, 0, 4}), (std::vector<int64_t>{4, 4, 1}));
  EXPECT_EQ(ContiguousStrides({}), (std::vector<int64_t>{}));
}

// The view ops (tensor/view_ops.h) on a root.

TEST(ViewOpsTest, SelectDropsTheDimAndWritesBack) {
  XlaTensorPtr root = Root2x3();
  absl::StatusOr<ViewedTensor> v = view_ops::Select({root, nullptr}, 1, -1);
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(Read<float>(v->handle), (std::vector<float>{2, 5}));
  EXPECT_EQ(v->view->strides, (std::vector<int64_t>{3}));
  EXPECT_EQ(v->view->storage_offset, 2);
  ASSERT_TRUE(
      CommitView(*v->handle, *v->view, TensorFromHost({20, 50}, {2})).ok());
  EXPECT_EQ(Read<float>(root), (std::vector<float>{0, 1, 20, 3, 4, 50}));
}

TEST(ViewOpsTest, StridedSliceWritesBackEveryStepthElement) {
  XlaTensorPtr root = TensorFromHost({0, 1, 2, 3, 4, 5}, {6});
  absl::StatusOr<ViewedTensor> v =
      view_ops::Slice({root, nullptr}, 0, 1, std::nullopt, 2);
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(Read<float>(v->handle), (std::vector<float>{1, 3, 5}));
  EXPECT_EQ(v->view->strides, (std::vector<int64_t>{2}));
  EXPECT_EQ(v->view->storage_offset, 1);
  ASSERT_TRUE(CommitView(*v->handle, *v->view,
                         TensorFromHost({10, 30, 50}, {3}))
                  .ok());
  EXPECT_EQ(Read<float>(root), (std::vector<float>{0, 10, 2, 30, 4, 50}));
}

TEST(ViewOpsTest, ViewsOfViewsTakeEagersStrides) {
  XlaTensorPtr root = Root2x3();
  absl::StatusOr<ViewedTensor> t = view_ops::Transpose({root, nullptr}, 0, -1);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->view->strides, (std::vector<int64_t>{1, 3}));
  absl::StatusOr<ViewedTensor> u = view_ops::Unsqueeze(*t, -1);
  ASSERT_TRUE(u.ok()) << u.status();
  EXPECT_EQ(u->handle->shape().dims, (std::vector<int64_t>{3, 2, 1}));
  EXPECT_EQ(u->view->strides, (std::vector<int64_t>{1, 3, 1}));
  EXPECT_EQ(u->view->chain.size(), 2u);
  absl::StatusOr<std::vector<ViewedTensor>> pieces =
      view_ops::Split({root, nullptr}, 2, 1);
  ASSERT_TRUE(pieces.ok()) << pieces.status();
  ASSERT_EQ(pieces->size(), 2u);
  EXPECT_EQ((*pieces)[1].view->storage_offset, 2);
  EXPECT_EQ(Read<float>((*pieces)[1].handle), (std::vector<float>{2, 5}));
}

TEST(ViewOpsTest, BadArgumentsFailWithEagersClassAndText) {
  XlaTensorPtr root = Root2x3();
  absl::StatusOr<ViewedTensor> bad_dim =
      view_ops::Transpose({root, nullptr}, 0, 2);
  EXPECT_EQ(bad_dim.status().code(), absl::StatusCode::kOutOfRange);
  EXPECT_EQ(bad_dim.status().message(),
            "Dimension out of range (expected to be in range of [-2, 1], but "
            "got 2)");
  absl::StatusOr<ViewedTensor> bad_index =
      view_ops::Select({root, nullptr}, 0, 2);
  EXPECT_EQ(bad_index.status().message(),
            "select(): index 2 out of range for tensor of size [2, 3] at "
            "dimension 0");
  absl::StatusOr<ViewedTensor> bad_size =
      view_ops::Expand({root, nullptr}, {2, 4});
  EXPECT_EQ(GetEagerErrorClass(bad_size.status()),
            EagerErrorClass::kRuntimeError);
  EXPECT_NE(bad_size.status().message().find(
                "must match the existing size (3) at non-singleton dimension "
                "1"),
            absl::string_view::npos)
      << bad_size.status();
  // Nothing changed: the root holds its data and no version moved.
  EXPECT_EQ(root->version(), 0);
  EXPECT_EQ(Read<float>(root), (std::vector<float>{0, 1, 2, 3, 4, 5}));
}

}  // namespace
}  // namespace torch_xla
