#include "torch_xla/csrc/tensor/view_ops.h"

#include <algorithm>
#include <numeric>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "torch_xla/csrc/ir/error_class.h"
#include "torch_xla/csrc/ir/shape_util.h"
#include "torch_xla/csrc/ir/status_macros.h"
#include "torch_xla/csrc/ir/value_builders.h"
#include "torch_xla/csrc/ops/arithmetic_ops.h"
#include "torch_xla/csrc/tensor/storage_views.h"

namespace torch_xla::view_ops {
namespace {

std::string DimsText(const std::vector<int64_t>& dims) {
  return absl::StrCat("[", absl::StrJoin(dims, ", "), "]");
}

int64_t RankOf(const ViewedTensor& x) {
  return static_cast<int64_t>(x.handle->shape().dims.size());
}

// A view of `x` one `step` further, with eager's strides and offset.
absl::StatusOr<ViewedTensor> MakeView(const ViewedTensor& x, ViewStepPtr step,
                                      std::vector<int64_t> strides,
                                      int64_t storage_offset) {
  TXLA_ASSIGN_OR_RETURN(XlaTensorPtr current, Current(x));
  TXLA_ASSIGN_OR_RETURN(XlaTensorPtr handle, step->Forward(current));
  // Its own handle, so an in-place update of the view never lands on the
  // base's handle (the step may be the identity: the same IR or data).
  if (handle == current) {
    TXLA_ASSIGN_OR_RETURN(handle, CloneTensor(*current));
  }
  return ViewedTensor{std::move(handle),
                      ExtendView(x.handle, x.view, std::move(step),
                                 std::move(strides), storage_offset)};
}

// The same elements in shape `dims` (strides given).
absl::StatusOr<ViewedTensor> ReshapeView(const ViewedTensor& x,
                                         std::vector<int64_t> dims,
                                         std::vector<int64_t> strides) {
  std::vector<int64_t> base_dims = x.handle->shape().dims;
  return MakeView(x, ReshapeStep(std::move(dims), std::move(base_dims)),
                  std::move(strides), StorageOffsetOf(x));
}

absl::StatusOr<ViewedTensor> PermuteView(const ViewedTensor& x,
                                         std::vector<int64_t> permutation) {
  const std::vector<int64_t> strides = StridesOf(x);
  std::vector<int64_t> permuted(permutation.size());
  for (size_t i = 0; i < permutation.size(); ++i) {
    permuted[i] = strides[permutation[i]];
  }
  return MakeView(x, PermuteStep(std::move(permutation)), std::move(permuted),
                  StorageOffsetOf(x));
}

// Eager's checks shared by split and split_with_sizes: a dim to split.
absl::StatusOr<int64_t> SplitDim(const ViewedTensor& x, int64_t dim) {
  if (RankOf(x) == 0) {
    return EagerRuntimeError("split expects at least a 1-dimensional tensor");
  }
  return WrapDim(dim, RankOf(x));
}

// Consecutive unit-step slices of `sizes` along `d`.
absl::StatusOr<std::vector<ViewedTensor>> SplitViews(
    const ViewedTensor& x, int64_t d, const std::vector<int64_t>& sizes) {
  std::vector<ViewedTensor> pieces;
  pieces.reserve(sizes.size());
  int64_t start = 0;
  for (int64_t n : sizes) {
    TXLA_ASSIGN_OR_RETURN(ViewedTensor piece, Slice(x, d, start, start + n, 1));
    pieces.push_back(std::move(piece));
    start += n;
  }
  return pieces;
}

}  // namespace

absl::StatusOr<int64_t> WrapDim(int64_t dim, int64_t rank) {
  const int64_t bound = std::max<int64_t>(rank, 1);
  if (dim < -bound || dim >= bound) {
    return absl::OutOfRangeError(absl::StrCat(
        "Dimension out of range (expected to be in range of [", -bound, ", ",
        bound - 1, "], but got ", dim, ")"));
  }
  return dim < 0 ? dim + bound : dim;
}

absl::StatusOr<int64_t> WrapIndex(const std::vector<int64_t>& dims,
                                  int64_t dim, int64_t index,
                                  absl::string_view op_name) {
  const int64_t size = dims[dim];
  if (index < -size || index >= size) {
    return absl::OutOfRangeError(absl::StrCat(
        op_name, ": index ", index, " out of range for tensor of size ",
        DimsText(dims), " at dimension ", dim));
  }
  return index < 0 ? index + size : index;
}

absl::StatusOr<XlaTensorPtr> Current(const ViewedTensor& x) {
  if (x.view != nullptr) TXLA_RETURN_IF_ERROR(RefreshView(*x.handle, *x.view));
  return x.handle;
}

std::vector<int64_t> StridesOf(const ViewedTensor& x) {
  if (x.view != nullptr) return x.view->strides;
  return ContiguousStrides(x.handle->shape().dims);
}

int64_t StorageOffsetOf(const ViewedTensor& x) {
  return x.view != nullptr ? x.view->storage_offset : 0;
}

absl::StatusOr<ViewedTensor> View(const ViewedTensor& x,
                                  std::vector<int64_t> size) {
  const std::vector<int64_t>& dims = x.handle->shape().dims;
  TXLA_ASSIGN_OR_RETURN(std::vector<int64_t> shape,
                        InferSize(std::move(size), NumElements(dims)));
  // A root is contiguous, and so is its view; a view's strides are eager's
  // where eager can view it (views.py's docstring says why never failing).
  std::vector<int64_t> strides = x.view == nullptr
                                     ? ContiguousStrides(shape)
                                     : ViewStrides(dims, x.view->strides, shape);
  return ReshapeView(x, std::move(shape), std::move(strides));
}

absl::StatusOr<XlaTensorPtr> UnsafeView(const ViewedTensor& x,
                                        std::vector<int64_t> size) {
  TXLA_ASSIGN_OR_RETURN(
      std::vector<int64_t> shape,
      InferSize(std::move(size), NumElements(x.handle->shape().dims)));
  TXLA_ASSIGN_OR_RETURN(XlaTensorPtr current, Current(x));
  TXLA_ASSIGN_OR_RETURN(Value input, current->GetIrValue());
  TXLA_ASSIGN_OR_RETURN(Value output, MakeReshape(input, shape));
  if (output == input) return CloneTensor(*current);
  return XlaTensor::FromIr(std::move(output), current->device());
}

absl::StatusOr<ViewedTensor> Unsqueeze(const ViewedTensor& x, int64_t dim) {
  std::vector<int64_t> dims = x.handle->shape().dims;
  std::vector<int64_t> strides = StridesOf(x);
  const int64_t rank = static_cast<int64_t>(dims.size());
  TXLA_ASSIGN_OR_RETURN(int64_t d, WrapDim(dim, rank + 1));
  const int64_t stride = d >= rank ? 1 : dims[d] * strides[d];
  dims.insert(dims.begin() + d, 1);
  strides.insert(strides.begin() + d, stride);
  return ReshapeView(x, std::move(dims), std::move(strides));
}

absl::StatusOr<ViewedTensor> Squeeze(
    const ViewedTensor& x, const std::optional<std::vector<int64_t>>& dims) {
  const std::vector<int64_t>& shape = x.handle->shape().dims;
  const int64_t rank = static_cast<int64_t>(shape.size());
  std::vector<bool> drop(std::max<int64_t>(rank, 1), !dims.has_value());
  if (dims.has_value()) {
    std::fill(drop.begin(), drop.end(), false);
    for (int64_t dim : *dims) {
      TXLA_ASSIGN_OR_RETURN(int64_t d, WrapDim(dim, rank));
      if (drop[d]) {
        return EagerRuntimeError(absl::StrCat(
            "dim ", d, " appears multiple times in the list of dims"));
      }
      drop[d] = true;
    }
  }
  const std::vector<int64_t> strides = StridesOf(x);
  std::vector<int64_t> kept, kept_strides;
  for (int64_t i = 0; i < rank; ++i) {
    if (drop[i] && shape[i] == 1) continue;
    kept.push_back(shape[i]);
    kept_strides.push_back(strides[i]);
  }
  return ReshapeView(x, std::move(kept), std::move(kept_strides));
}

absl::StatusOr<ViewedTensor> T(const ViewedTensor& x) {
  const int64_t rank = RankOf(x);
  if (rank > 2) {
    return EagerRuntimeError(absl::StrCat(
        "t() expects a tensor with <= 2 dimensions, but self is ", rank, "D"));
  }
  std::vector<int64_t> permutation(rank);
  for (int64_t i = 0; i < rank; ++i) permutation[i] = rank - 1 - i;
  return PermuteView(x, std::move(permutation));
}

absl::StatusOr<ViewedTensor> Transpose(const ViewedTensor& x, int64_t dim0,
                                       int64_t dim1) {
  const int64_t rank = RankOf(x);
  TXLA_ASSIGN_OR_RETURN(int64_t d0, WrapDim(dim0, rank));
  TXLA_ASSIGN_OR_RETURN(int64_t d1, WrapDim(dim1, rank));
  std::vector<int64_t> permutation(rank);
  std::iota(permutation.begin(), permutation.end(), 0);
  if (rank > 0) std::swap(permutation[d0], permutation[d1]);
  return PermuteView(x, std::move(permutation));
}

absl::StatusOr<ViewedTensor> Permute(const ViewedTensor& x,
                                     const std::vector<int64_t>& dims) {
  const int64_t rank = RankOf(x);
  if (static_cast<int64_t>(dims.size()) != rank) {
    return EagerRuntimeError(absl::StrCat(
        "permute(sparse_coo): number of dimensions in the tensor input does "
        "not match the length of the desired ordering of dimensions i.e. "
        "input.dim() = ",
        rank, " is not equal to len(dims) = ", dims.size()));
  }
  std::vector<int64_t> permutation(rank);
  std::vector<bool> seen(rank, false);
  for (int64_t i = 0; i < rank; ++i) {
    TXLA_ASSIGN_OR_RETURN(permutation[i], WrapDim(dims[i], rank));
    if (seen[permutation[i]]) {
      return EagerRuntimeError("permute(): duplicate dims are not allowed.");
    }
    seen[permutation[i]] = true;
  }
  return PermuteView(x, std::move(permutation));
}

absl::StatusOr<ViewedTensor> Expand(const ViewedTensor& x,
                                    const std::vector<int64_t>& size) {
  const std::vector<int64_t>& dims = x.handle->shape().dims;
  const std::vector<int64_t> strides = StridesOf(x);
  const int64_t rank = static_cast<int64_t>(dims.size());
  const int64_t ndim = static_cast<int64_t>(size.size());
  if (ndim < rank) {
    return EagerRuntimeError(absl::StrCat(
        "expand(", x.handle->shape().ToString(), ", size=", DimsText(size),
        "): the number of sizes provided (", ndim,
        ") must be greater or equal to the number of dimensions in the "
        "tensor (",
        rank, ")"));
  }
  std::vector<int64_t> target(ndim), new_strides(ndim);
  for (int64_t i = ndim - 1; i >= 0; --i) {
    const int64_t d = i - (ndim - rank);
    int64_t current = 1, stride;
    if (d >= 0) {
      current = dims[d];
      stride = strides[d];
    } else if (rank == 0) {  // eager gives an expanded scalar stride 0
      stride = 0;
    } else {  // a new leading dim: eager's stride for it
      stride = target[i + 1] * new_strides[i + 1];
    }
    int64_t want = size[i];
    if (want == -1) {
      if (d < 0) {
        return EagerRuntimeError(absl::StrCat(
            "The expanded size of the tensor (-1) isn't allowed in a "
            "leading, non-existing dimension ",
            i));
      }
      want = current;
    }
    if (want < 0) {
      return EagerRuntimeError(absl::StrCat(
          "expand: the expanded size of the tensor (", want,
          ") at dimension ", i,
          " is negative; sizes must be >= 0, or -1 to keep a dimension. "
          "Target sizes: ",
          DimsText(size)));
    }
    if (want != current) {
      if (current != 1) {
        return EagerRuntimeError(absl::StrCat(
            "The expanded size of the tensor (", want,
            ") must match the existing size (", current,
            ") at non-singleton dimension ", i, ".  Target sizes: ",
            DimsText(size), ".  Tensor sizes: ", DimsText(dims)));
      }
      stride = 0;
    }
    target[i] = want;
    new_strides[i] = stride;
  }
  // Writable unless it repeats elements (eager refuses writing through it).
  const bool writable = NumElements(target) == NumElements(dims);
  return MakeView(x, ExpandStep(std::move(target), dims, writable),
                  std::move(new_strides), StorageOffsetOf(x));
}

absl::StatusOr<ViewedTensor> Slice(const ViewedTensor& x, int64_t dim,
                                   std::optional<int64_t> start,
                                   std::optional<int64_t> end, int64_t step) {
  const std::vector<int64_t>& dims = x.handle->shape().dims;
  if (dims.empty()) {
    return absl::OutOfRangeError(
        "slice() cannot be applied to a 0-dim tensor.");
  }
  TXLA_ASSIGN_OR_RETURN(int64_t d, WrapDim(dim, RankOf(x)));
  if (step <= 0) return EagerRuntimeError("slice step must be positive");
  const auto [first, last] = ClampSlice(dims[d], start, end);
  std::vector<int64_t> strides = StridesOf(x);
  const int64_t offset = StorageOffsetOf(x) + first * strides[d];
  strides[d] *= step;
  return MakeView(x, SliceStep(d, first, last, step), std::move(strides),
                  offset);
}

absl::StatusOr<ViewedTensor> Select(const ViewedTensor& x, int64_t dim,
                                    int64_t index) {
  const std::vector<int64_t>& dims = x.handle->shape().dims;
  if (dims.empty()) {
    return absl::OutOfRangeError(
        "select() cannot be applied to a 0-dim tensor.");
  }
  TXLA_ASSIGN_OR_RETURN(int64_t d, WrapDim(dim, RankOf(x)));
  TXLA_ASSIGN_OR_RETURN(int64_t i, WrapIndex(dims, d, index, "select()"));
  std::vector<int64_t> strides = StridesOf(x);
  const int64_t offset = StorageOffsetOf(x) + i * strides[d];
  strides.erase(strides.begin() + d);
  return MakeView(x, SelectStep(d, i), std::move(strides), offset);
}

absl::StatusOr<std::vector<ViewedTensor>> Split(const ViewedTensor& x,
                                                int64_t split_size,
                                                int64_t dim) {
  if (RankOf(x) > 0 && split_size < 0) {  // eager checks it before dim
    return EagerRuntimeError(absl::StrCat(
        "split expects split_size be non-negative, but got split_size=",
        split_size));
  }
  TXLA_ASSIGN_OR_RETURN(int64_t d, SplitDim(x, dim));
  const int64_t size = x.handle->shape().dims[d];
  if (split_size == 0 && size != 0) {
    return EagerRuntimeError(absl::StrCat(
        "split_size can only be 0 if dimension size is 0, but got dimension "
        "size of ",
        size));
  }
  std::vector<int64_t> sizes;
  if (split_size == 0) {
    sizes.push_back(0);
  } else {
    const int64_t chunks = std::max<int64_t>(1, (size + split_size - 1) /
                                                    split_size);
    for (int64_t i = 0; i < chunks; ++i) {
      sizes.push_back(std::min(split_size, size - i * split_size));
    }
  }
  return SplitViews(x, d, sizes);
}

absl::StatusOr<std::vector<ViewedTensor>> SplitWithSizes(
    const ViewedTensor& x, const std::vector<int64_t>& split_sizes,
    int64_t dim) {
  TXLA_ASSIGN_OR_RETURN(int64_t d, SplitDim(x, dim));
  const int64_t size = x.handle->shape().dims[d];
  int64_t total = 0;
  for (int64_t s : split_sizes) {
    if (s < 0) {
      return EagerRuntimeError(absl::StrCat(
          "split_with_sizes expects split_sizes have only non-negative "
          "entries, but got split_sizes=",
          DimsText(split_sizes)));
    }
    total += s;
  }
  if (total != size) {  // eager names the dim as it was given
    return EagerRuntimeError(absl::StrCat(
        "split_with_sizes expects split_sizes to sum exactly to ", size,
        " (input tensor's size at dimension ", dim, "), but got split_sizes=",
        DimsText(split_sizes)));
  }
  return SplitViews(x, d, split_sizes);
}

absl::StatusOr<std::vector<ViewedTensor>> Unbind(const ViewedTensor& x,
                                                 int64_t dim) {
  const int64_t rank = RankOf(x);
  TXLA_ASSIGN_OR_RETURN(int64_t d, WrapDim(dim, rank));
  if (rank == 0) {
    return absl::OutOfRangeError(
        "Dimension specified as 0 but tensor has no dimensions");
  }
  std::vector<ViewedTensor> pieces;
  const int64_t n = x.handle->shape().dims[d];
  pieces.reserve(n);
  for (int64_t i = 0; i < n; ++i) {
    TXLA_ASSIGN_OR_RETURN(ViewedTensor piece, Select(x, d, i));
    pieces.push_back(std::move(piece));
  }
  return pieces;
}

absl::StatusOr<std::pair<int64_t, int64_t>> DiagonalDims(int64_t rank,
                                                         int64_t dim1,
                                                         int64_t dim2) {
  TXLA_ASSIGN_OR_RETURN(int64_t d1, WrapDim(dim1, rank));
  TXLA_ASSIGN_OR_RETURN(int64_t d2, WrapDim(dim2, rank));
  if (d1 == d2) {
    return EagerRuntimeError(absl::StrCat(
        "diagonal dimensions cannot be identical ", dim1, ", ", dim2));
  }
  return std::make_pair(d1, d2);
}

absl::StatusOr<ViewedTensor> Diagonal(const ViewedTensor& x, int64_t offset,
                                      int64_t dim1, int64_t dim2) {
  TXLA_ASSIGN_OR_RETURN(auto canonical, DiagonalDims(RankOf(x), dim1, dim2));
  const auto [d1, d2] = canonical;
  const std::vector<int64_t>& dims = x.handle->shape().dims;
  const std::vector<int64_t> base_strides = StridesOf(x);
  const int64_t row = std::max<int64_t>(-offset, 0);
  const int64_t column = std::max<int64_t>(offset, 0);
  const int64_t n =
      std::max<int64_t>(std::min(dims[d1] - row, dims[d2] - column), 0);
  int64_t start = StorageOffsetOf(x);
  if (n > 0) start += row * base_strides[d1] + column * base_strides[d2];
  std::vector<int64_t> strides;
  for (int64_t i = 0; i < RankOf(x); ++i) {
    if (i != d1 && i != d2) strides.push_back(base_strides[i]);
  }
  strides.push_back(base_strides[d1] + base_strides[d2]);
  return MakeView(x, DiagonalStep(offset, d1, d2), std::move(strides), start);
}

absl::StatusOr<ViewedTensor> AsStrided(const ViewedTensor& x,
                                       std::vector<int64_t> size,
                                       std::vector<int64_t> stride,
                                       std::optional<int64_t> storage_offset) {
  if (size.size() != stride.size()) {
    return EagerRuntimeError("mismatch in length of strides and shape");
  }
  if (std::any_of(stride.begin(), stride.end(),
                  [](int64_t s) { return s < 0; })) {
    return EagerRuntimeError(absl::StrCat(
        "as_strided: Negative strides are not supported at the moment, got "
        "strides: ", DimsText(stride)));
  }
  if (std::any_of(size.begin(), size.end(), [](int64_t n) { return n < 0; })) {
    return EagerRuntimeError(absl::StrCat(
        "Storage size calculation overflowed with sizes=", DimsText(size),
        " and strides=", DimsText(stride)));
  }
  const int64_t offset = storage_offset.value_or(StorageOffsetOf(x));
  if (offset < 0) {
    return EagerRuntimeError(
        absl::StrCat("Tensor: invalid storage offset ", offset));
  }
  // A root is contiguous with storage offset 0: its value is the storage.
  const XlaTensorPtr& root = x.view != nullptr ? x.view->root : x.handle;
  const std::vector<int64_t>& root_dims = root->shape().dims;
  const int64_t numel = NumElements(root_dims);
  int64_t needed = 0;
  if (NumElements(size) > 0) {
    needed = offset + 1;
    for (size_t k = 0; k < size.size(); ++k) {
      needed += (size[k] - 1) * stride[k];
    }
  }
  if (needed > numel) {
    const int64_t item = DTypeByteSize(root->shape().dtype);
    return EagerRuntimeError(absl::StrCat(
        "setStorage: sizes ", DimsText(size), ", strides ", DimsText(stride),
        ", storage offset ", offset, ", and itemsize ", item,
        " requiring a storage size of ", needed * item,
        " are out of bounds for storage of size ", numel * item));
  }
  ViewStepPtr step;
  if (offset == 0 && numel == NumElements(size) &&
      ViewStrides(root_dims, ContiguousStrides(root_dims), size) == stride) {
    step = ReshapeStep(size, root_dims);
  } else {
    step = AsStridedStep(size, stride, offset, root_dims);
  }
  // A step from the root, whatever view x is.
  TXLA_ASSIGN_OR_RETURN(XlaTensorPtr handle, step->Forward(root));
  if (handle == root) {
    TXLA_ASSIGN_OR_RETURN(handle, CloneTensor(*root));
  }
  return ViewedTensor{std::move(handle),
                      ExtendView(root, nullptr, std::move(step),
                                 std::move(stride), offset)};
}

absl::StatusOr<ViewedTensor> ViewDtype(const ViewedTensor& x, DType dtype) {
  const DType own = x.handle->shape().dtype;
  std::vector<int64_t> dims = x.handle->shape().dims;
  if (dtype == own) return View(x, std::move(dims));
  const int64_t from = DTypeByteSize(own), to = DTypeByteSize(dtype);
  std::vector<int64_t> strides = StridesOf(x);
  int64_t offset = StorageOffsetOf(x);
  if (from != to) {
    const std::string what =
        absl::StrCat(" to view ", ops::ScalarTypeName(own), " as ",
                     ops::ScalarTypeName(dtype), " (different element sizes)");
    if (dims.empty()) {
      return EagerRuntimeError(absl::StrCat("self.dim() cannot be 0", what));
    }
    if (strides.back() != 1) {
      return EagerRuntimeError(absl::StrCat("self.stride(-1) must be 1", what,
                                            ", but got ", strides.back()));
    }
    if (from > to) {
      const int64_t ratio = from / to;
      for (size_t i = 0; i + 1 < strides.size(); ++i) strides[i] *= ratio;
      offset *= ratio;
    } else {
      const int64_t ratio = to / from;
      if (dims.back() % ratio != 0) {
        return EagerRuntimeError(
            absl::StrCat("self.size(-1) must be divisible by ", ratio, what,
                         ", but got ", dims.back()));
      }
      if (offset % ratio != 0) {
        return EagerRuntimeError(
            absl::StrCat("self.storage_offset() must be divisible by ", ratio,
                         what, ", but got ", offset));
      }
      for (size_t i = 0; i + 1 < strides.size(); ++i) {
        if (strides[i] % ratio != 0) {
          return EagerRuntimeError(absl::StrCat(
              "self.stride(", i, ") must be divisible by ", ratio, what,
              ", but got ", strides[i]));
        }
        strides[i] /= ratio;
      }
      offset /= ratio;
    }
  }
  return MakeView(x, BitcastStep(own, dtype), std::move(strides), offset);
}

}  // namespace torch_xla::view_ops
