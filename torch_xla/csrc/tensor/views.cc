#include "torch_xla/csrc/tensor/views.h"

#include <algorithm>
#include <cstring>
#include <unordered_set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "torch_xla/csrc/ir/builder.h"
#include "torch_xla/csrc/ir/error_class.h"
#include "torch_xla/csrc/ir/status_macros.h"
#include "torch_xla/csrc/ir/value_builders.h"

namespace torch_xla {
namespace {

class ReshapeView final : public ViewStep {
 public:
  ReshapeView(std::vector<int64_t> dims, std::vector<int64_t> base_dims)
      : dims_(std::move(dims)), base_dims_(std::move(base_dims)) {}
  absl::StatusOr<XlaTensorPtr> Forward(
      const XlaTensorPtr& base) const override {
    return ApplyToValue(
        base, [&](Value v) { return MakeReshape(std::move(v), dims_); });
  }
  absl::StatusOr<XlaTensorPtr> Inverse(
      const XlaTensorPtr& base, const XlaTensorPtr& view) const override {
    return ApplyToValue(
        view, [&](Value v) { return MakeReshape(std::move(v), base_dims_); });
  }
  bool RearrangeOnHost(HostArray* array) const override {
    array->dims = dims_;  // row-major bytes stay as they are
    return true;
  }

 private:
  const std::vector<int64_t> dims_, base_dims_;
};

class PermuteView final : public ViewStep {
 public:
  explicit PermuteView(std::vector<int64_t> permutation)
      : permutation_(std::move(permutation)), inverse_(permutation_.size()) {
    for (size_t i = 0; i < permutation_.size(); ++i) {
      const int64_t p = permutation_[i];
      if (p >= 0 && p < static_cast<int64_t>(inverse_.size())) {
        inverse_[p] = static_cast<int64_t>(i);
      }
    }
  }
  absl::StatusOr<XlaTensorPtr> Forward(
      const XlaTensorPtr& base) const override {
    return ApplyToValue(base, [&](Value v) {
      return MakeTranspose(std::move(v), permutation_);
    });
  }
  absl::StatusOr<XlaTensorPtr> Inverse(
      const XlaTensorPtr& base, const XlaTensorPtr& view) const override {
    return ApplyToValue(
        view, [&](Value v) { return MakeTranspose(std::move(v), inverse_); });
  }
  bool RearrangeOnHost(HostArray* array) const override {
    const size_t rank = permutation_.size();
    if (array->dims.size() != rank) return false;
    const std::vector<int64_t> strides = ContiguousStrides(array->dims);
    std::vector<int64_t> dims(rank), steps(rank);
    for (size_t i = 0; i < rank; ++i) {
      dims[i] = array->dims[permutation_[i]];
      steps[i] = strides[permutation_[i]];
    }
    GatherOnHost(array, std::move(dims), steps, /*offset=*/0);
    return true;
  }

 private:
  const std::vector<int64_t> permutation_;
  std::vector<int64_t> inverse_;
};

class SliceView final : public ViewStep {
 public:
  SliceView(int64_t dim, int64_t start, int64_t end, int64_t step)
      : dim_(dim), start_(start), end_(end), step_(step) {}
  absl::StatusOr<XlaTensorPtr> Forward(
      const XlaTensorPtr& base) const override {
    return ApplyToValue(base, [&](Value v) {
      return MakeStridedSlice(std::move(v), dim_, start_, end_, step_);
    });
  }
  absl::StatusOr<XlaTensorPtr> Inverse(
      const XlaTensorPtr& base, const XlaTensorPtr& view) const override {
    TXLA_ASSIGN_OR_RETURN(Value update, view->GetIrValue());
    return ApplyToValue(base, [&](Value v) {
      return MakeUpdateStridedSlice(std::move(v), update, dim_, start_, step_);
    });
  }
  bool RearrangeOnHost(HostArray* array) const override {
    if (dim_ < 0 || dim_ >= static_cast<int64_t>(array->dims.size())) {
      return false;
    }
    std::vector<int64_t> steps = ContiguousStrides(array->dims);
    const int64_t offset = start_ * steps[dim_];
    std::vector<int64_t> dims = array->dims;
    dims[dim_] = std::max<int64_t>(0, (end_ - start_ + step_ - 1) / step_);
    steps[dim_] *= step_;
    GatherOnHost(array, std::move(dims), steps, offset);
    return true;
  }

 private:
  const int64_t dim_, start_, end_, step_;
};

// A slice of length 1 along `dim`, reshaped without that dim.
class SelectView final : public ViewStep {
 public:
  SelectView(int64_t dim, int64_t index) : dim_(dim), index_(index) {}
  absl::StatusOr<XlaTensorPtr> Forward(
      const XlaTensorPtr& base) const override {
    return ApplyToValue(base, [&](Value v) -> absl::StatusOr<Value> {
      std::vector<int64_t> dims = v.shape().dims;
      dims.erase(dims.begin() + dim_);
      TXLA_ASSIGN_OR_RETURN(
          Value row, MakeSliceDim(std::move(v), dim_, index_, index_ + 1));
      return MakeReshape(std::move(row), dims);
    });
  }
  absl::StatusOr<XlaTensorPtr> Inverse(
      const XlaTensorPtr& base, const XlaTensorPtr& view) const override {
    TXLA_ASSIGN_OR_RETURN(Value update, view->GetIrValue());
    std::vector<int64_t> kept = update.shape().dims;
    kept.insert(kept.begin() + dim_, 1);
    TXLA_ASSIGN_OR_RETURN(update, MakeReshape(std::move(update), kept));
    return ApplyToValue(base, [&](Value v) {
      return MakeUpdateSliceDim(std::move(v), update, dim_, index_);
    });
  }
  bool RearrangeOnHost(HostArray* array) const override {
    if (dim_ < 0 || dim_ >= static_cast<int64_t>(array->dims.size())) {
      return false;
    }
    std::vector<int64_t> steps = ContiguousStrides(array->dims);
    const int64_t offset = index_ * steps[dim_];
    std::vector<int64_t> dims = array->dims;
    dims.erase(dims.begin() + dim_);
    steps.erase(steps.begin() + dim_);
    GatherOnHost(array, std::move(dims), steps, offset);
    return true;
  }

 private:
  const int64_t dim_, index_;
};

class ExpandView final : public ViewStep {
 public:
  ExpandView(std::vector<int64_t> dims, std::vector<int64_t> base_dims,
             bool writable)
      : dims_(std::move(dims)),
        base_dims_(std::move(base_dims)),
        writable_(writable) {}
  absl::StatusOr<XlaTensorPtr> Forward(
      const XlaTensorPtr& base) const override {
    return ApplyToValue(base,
                 [&](Value v) { return MakeBroadcastTo(std::move(v), dims_); });
  }
  absl::StatusOr<XlaTensorPtr> Inverse(
      const XlaTensorPtr& base, const XlaTensorPtr& view) const override {
    if (!writable_) {
      // Eager's message (and class: RuntimeError).
      return EagerRuntimeError(absl::StrCat(
          "unsupported operation: more than one element of the written-to "
          "tensor refers to a single memory location (an expand of [",
          absl::StrJoin(base_dims_, ","), "] to [", absl::StrJoin(dims_, ","),
          "]). Please clone() the tensor before performing the operation."));
    }
    return ApplyToValue(
        view, [&](Value v) { return MakeReshape(std::move(v), base_dims_); });
  }
  bool RearrangeOnHost(HostArray* array) const override {
    // Trailing dims line up; a base dim of 1 (or a new leading dim) repeats.
    const size_t rank = dims_.size(), base_rank = array->dims.size();
    if (base_rank > rank) return false;
    const std::vector<int64_t> strides = ContiguousStrides(array->dims);
    std::vector<int64_t> steps(rank, 0);
    for (size_t i = rank - base_rank; i < rank; ++i) {
      const size_t j = i - (rank - base_rank);
      if (array->dims[j] == dims_[i]) {
        steps[i] = strides[j];
      } else if (array->dims[j] != 1) {
        return false;
      }
    }
    GatherOnHost(array, dims_, steps, /*offset=*/0);
    return true;
  }

 private:
  const std::vector<int64_t> dims_, base_dims_;
  const bool writable_;
};

// The view's value derived from the root through the whole chain.
absl::StatusOr<XlaTensorPtr> Derive(const ViewInfo& view) {
  XlaTensorPtr value = view.root;
  for (const ViewStepPtr& step : view.chain) {
    TXLA_ASSIGN_OR_RETURN(value, step->Forward(value));
  }
  return value;
}

}  // namespace

void GatherOnHost(HostArray* array, std::vector<int64_t> dims,
                  absl::Span<const int64_t> steps, int64_t offset) {
  const int64_t size = array->element_size;
  int64_t count = 1;
  for (int64_t d : dims) count *= d;
  if (array->bytes.empty() || count == 0) {
    array->bytes.clear();
    array->dims = std::move(dims);
    return;
  }
  const size_t rank = dims.size();
  std::vector<uint8_t> out(count * size);
  std::vector<int64_t> index(rank, 0);
  int64_t from = offset;
  for (int64_t n = 0; n < count; ++n) {
    std::memcpy(out.data() + n * size, array->bytes.data() + from * size, size);
    for (size_t d = rank; d-- > 0;) {  // odometer over the view's index
      from += steps[d];
      if (++index[d] < dims[d]) break;
      from -= steps[d] * dims[d];
      index[d] = 0;
    }
  }
  array->dims = std::move(dims);
  array->bytes = std::move(out);
}

ViewStepPtr ReshapeStep(std::vector<int64_t> dims,
                        std::vector<int64_t> base_dims) {
  return std::make_shared<ReshapeView>(std::move(dims), std::move(base_dims));
}

ViewStepPtr PermuteStep(std::vector<int64_t> permutation) {
  return std::make_shared<PermuteView>(std::move(permutation));
}

ViewStepPtr SliceStep(int64_t dim, int64_t start, int64_t end,
                      int64_t step) {
  return std::make_shared<SliceView>(dim, start, end, step);
}

ViewStepPtr SelectStep(int64_t dim, int64_t index) {
  return std::make_shared<SelectView>(dim, index);
}

absl::StatusOr<Value> MakeStridedSlice(Value x, int64_t dim, int64_t start,
                                       int64_t end, int64_t step) {
  if (step == 1) return MakeSliceDim(std::move(x), dim, start, end);
  const int64_t rank = static_cast<int64_t>(x.shape().dims.size());
  if (dim < 0 || dim >= rank || step < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "slice: dimension ", dim, " step ", step, " is invalid for ",
        x.shape().ToString()));
  }
  std::vector<int64_t> starts(rank, 0), strides(rank, 1);
  std::vector<int64_t> limits = x.shape().dims;
  starts[dim] = start;
  limits[dim] = end;
  strides[dim] = step;
  TXLA_ASSIGN_OR_RETURN(
      NodePtr node,
      MakeNode(OpKind::kSlice, {std::move(x)},
               Attrs().Set("start", starts).Set("limit", limits).Set(
                   "strides", strides)));
  return Value(std::move(node));
}

absl::StatusOr<Value> MakeUpdateStridedSlice(Value base, Value update,
                                             int64_t dim, int64_t start,
                                             int64_t step) {
  if (step == 1) {
    return MakeUpdateSliceDim(std::move(base), std::move(update), dim, start);
  }
  const std::vector<int64_t>& dims = base.shape().dims;
  const int64_t rank = static_cast<int64_t>(dims.size());
  if (dim < 0 || dim >= rank || step < 1 ||
      update.shape().dims.size() != dims.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "update_slice: cannot write ", update.shape().ToString(), " into ",
        base.shape().ToString(), " along dimension ", dim, " with step ",
        step));
  }
  const int64_t n = update.shape().dims[dim];
  if (n == 0) return base;
  // Spread `update` with interior padding, then take it where a spread
  // copy of `true` lands.
  std::vector<int64_t> low(rank, 0), high(rank, 0), interior(rank, 0);
  low[dim] = start;
  high[dim] = dims[dim] - start - (n - 1) * step - 1;
  interior[dim] = step - 1;
  const Attrs padding =
      Attrs().Set("low", low).Set("high", high).Set("interior", interior);
  const std::vector<int64_t> update_dims = update.shape().dims;
  TXLA_ASSIGN_OR_RETURN(Value zero, MakeLiteral(0, base.shape().dtype, {}));
  TXLA_ASSIGN_OR_RETURN(NodePtr spread,
                        MakeNode(OpKind::kPad, {std::move(update), zero},
                                 padding));
  TXLA_ASSIGN_OR_RETURN(Value on, MakeLiteral(1, DType::kBool, update_dims));
  TXLA_ASSIGN_OR_RETURN(Value off, MakeLiteral(0, DType::kBool, {}));
  TXLA_ASSIGN_OR_RETURN(NodePtr mask,
                        MakeNode(OpKind::kPad, {on, off}, padding));
  TXLA_ASSIGN_OR_RETURN(
      NodePtr out, MakeNode(OpKind::kSelect, {Value(std::move(mask)),
                                              Value(std::move(spread)),
                                              std::move(base)}));
  return Value(std::move(out));
}

ViewStepPtr ExpandStep(std::vector<int64_t> dims,
                       std::vector<int64_t> base_dims, bool writable) {
  return std::make_shared<ExpandView>(std::move(dims), std::move(base_dims),
                                      writable);
}

ViewInfoPtr ExtendView(const XlaTensorPtr& base_handle,
                       const ViewInfoPtr& base_view, ViewStepPtr step,
                       std::vector<int64_t> strides, int64_t storage_offset) {
  auto view = std::make_shared<ViewInfo>();
  if (base_view == nullptr) {
    view->root = base_handle;
    view->seen_version = base_handle->version();
  } else {
    view->root = base_view->root;
    view->seen_version = base_view->seen_version;
    view->chain = base_view->chain;
  }
  view->chain.push_back(std::move(step));
  view->strides = std::move(strides);
  view->storage_offset = storage_offset;
  return view;
}

absl::Status AssignValue(XlaTensor& destination, const XlaTensor& source,
                         bool bump_version) {
  if (source.state() == TensorState::kIrValue) {
    TXLA_RETURN_IF_ERROR(destination.SetIrValue(source.ir_value()));
  } else {
    // Placeholders pass through (tracing on them is the point); a deleted
    // tensor has no value to give.
    if (source.state() == TensorState::kDeleted) return source.CheckReadable();
    TXLA_RETURN_IF_ERROR(destination.SetData(source.data()));
    // The destination now owns the data for donation (the source is
    // usually a temporary; if it lives on, the sync's holder check keeps
    // the shared buffer safe).
    source.data()->set_owner_alias_id(destination.alias_id());
  }
  if (bump_version) destination.BumpVersion();
  return absl::OkStatus();
}

std::vector<XlaTensorPtr> TakeRederivableViews(
    std::vector<XlaTensorPtr>& tensors) {
  std::unordered_set<const XlaTensor*> synced;
  for (const XlaTensorPtr& tensor : tensors) synced.insert(tensor.get());
  auto rederivable = [&](const XlaTensor& tensor) {
    std::shared_ptr<ViewInfo> view = tensor.view();
    if (view == nullptr || tensor.state() != TensorState::kIrValue) {
      return false;
    }
    // A sharding asked of the view itself is the user's: keep the output.
    if (tensor.sharding() != nullptr) return false;
    const XlaTensor& root = *view->root;
    if (&root == &tensor || view->seen_version != root.version()) {
      return false;
    }
    switch (root.state()) {
      case TensorState::kIrValue:
        return synced.count(&root) > 0;
      case TensorState::kDeviceData:
      case TensorState::kHostData:
        return true;
      default:
        return false;
    }
  };
  std::vector<XlaTensorPtr> kept, views;
  for (XlaTensorPtr& tensor : tensors) {
    (rederivable(*tensor) ? views : kept).push_back(std::move(tensor));
  }
  tensors = std::move(kept);
  return views;
}

absl::Status RederiveViews(absl::Span<const XlaTensorPtr> views) {
  for (const XlaTensorPtr& handle : views) {
    std::shared_ptr<ViewInfo> view = handle->view();
    if (view == nullptr) continue;
    TXLA_ASSIGN_OR_RETURN(XlaTensorPtr value, Derive(*view));
    // Always as pending IR: sharing the root's data would hand the view the
    // data's ownership, and with it the root's donation.
    TXLA_ASSIGN_OR_RETURN(Value ir, value->GetIrValue());
    TXLA_RETURN_IF_ERROR(handle->SetIrValue(std::move(ir)));
    view->seen_version = view->root->version();
  }
  return absl::OkStatus();
}

absl::StatusOr<XlaTensorPtr> CloneTensor(const XlaTensor& source) {
  if (source.state() == TensorState::kIrValue) {
    return XlaTensor::FromIr(source.ir_value(), source.device());
  }
  if (source.state() == TensorState::kDeleted) return source.CheckReadable();
  return XlaTensor::FromData(source.data(), source.device());
}

// Up to this root size, reading a part of it (a row) on the host beats
// compiling a program per part; above it, only reads of a quarter or more.
constexpr int64_t kHostViewReadBytes = int64_t{16} << 20;

absl::StatusOr<bool> ReadViewOnHost(
    const XlaTensor& handle, void* dst, int64_t dst_size,
    const std::function<absl::Status(const XlaTensorPtr&, void*, int64_t)>&
        read_root) {
  std::shared_ptr<ViewInfo> view = handle.view();
  if (view == nullptr || view->chain.empty() ||
      view->root->state() != TensorState::kDeviceData ||
      view->seen_version != view->root->version()) {
    return false;
  }
  HostArray array;
  array.dims = view->root->shape().dims;
  array.element_size = DTypeByteSize(view->root->shape().dtype);
  // Every step must rearrange on the host; try them on the shape first.
  HostArray probe{array.dims, array.element_size, {}};
  for (const ViewStepPtr& step : view->chain) {
    if (!step->RearrangeOnHost(&probe)) return false;
  }
  const int64_t root_size = view->root->shape().byte_size();
  if (probe.dims != handle.shape().dims ||
      handle.shape().byte_size() != dst_size ||
      root_size > std::max(kHostViewReadBytes, 4 * dst_size)) {
    return false;
  }
  if (dst_size == 0) return true;
  array.bytes.resize(root_size);
  TXLA_RETURN_IF_ERROR(read_root(view->root, array.bytes.data(), root_size));
  for (const ViewStepPtr& step : view->chain) step->RearrangeOnHost(&array);
  std::memcpy(dst, array.bytes.data(), dst_size);
  return true;
}

absl::Status RefreshView(XlaTensor& handle, ViewInfo& view) {
  if (view.root->version() == view.seen_version) return absl::OkStatus();
  TXLA_ASSIGN_OR_RETURN(XlaTensorPtr value, Derive(view));
  TXLA_RETURN_IF_ERROR(AssignValue(handle, *value, /*bump_version=*/false));
  view.seen_version = view.root->version();
  return absl::OkStatus();
}

absl::Status CommitView(XlaTensor& handle, ViewInfo& view,
                        const XlaTensorPtr& value) {
  if (value->shape() != handle.shape()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "in-place update of a view (tensor ", handle.id(), ", ",
        handle.shape().ToString(), ") with a value of shape ",
        value->shape().ToString()));
  }
  TXLA_RETURN_IF_ERROR(RefreshView(handle, view));
  // The values along the chain, root first; then the new value backwards.
  std::vector<XlaTensorPtr> values{view.root};
  for (size_t i = 0; i + 1 < view.chain.size(); ++i) {
    TXLA_ASSIGN_OR_RETURN(XlaTensorPtr next,
                          view.chain[i]->Forward(values.back()));
    values.push_back(std::move(next));
  }
  XlaTensorPtr updated = value;
  for (size_t i = view.chain.size(); i-- > 0;) {
    TXLA_ASSIGN_OR_RETURN(updated, view.chain[i]->Inverse(values[i], updated));
  }
  if (updated->shape() != view.root->shape()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "writing a view back into its root (tensor ", view.root->id(), ", ",
        view.root->shape().ToString(), ") produced ",
        updated->shape().ToString(), ": a view step's inverse is wrong"));
  }
  TXLA_RETURN_IF_ERROR(
      AssignValue(*view.root, *updated, /*bump_version=*/true));
  TXLA_RETURN_IF_ERROR(AssignValue(handle, *value, /*bump_version=*/false));
  view.seen_version = view.root->version();
  return absl::OkStatus();
}


}  // namespace torch_xla
