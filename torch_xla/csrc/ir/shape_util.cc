#include "torch_xla/csrc/ir/shape_util.h"

#include <algorithm>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "torch_xla/csrc/ir/error_class.h"

namespace torch_xla {

using Dims = std::vector<int64_t>;

namespace {

std::string DimsText(const Dims& dims) {
  return absl::StrCat("[", absl::StrJoin(dims, ", "), "]");
}

}  // namespace

int64_t NumElements(const Dims& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

absl::StatusOr<Dims> InferSize(Dims size, int64_t numel) {
  int64_t known = 1;
  int infer = -1;
  for (size_t i = 0; i < size.size(); ++i) {
    const int64_t s = size[i];
    if (s == -1) {
      if (infer >= 0) {
        return EagerRuntimeError("only one dimension can be inferred");
      }
      infer = static_cast<int>(i);
    } else if (s < 0) {
      return EagerRuntimeError(
          absl::StrCat("invalid shape dimension ", s, " at index ", i,
                       " of shape ", DimsText(size)));
    } else {
      known *= s;
    }
  }
  if (infer < 0) {
    if (known == numel) return size;
  } else if (known == 0) {
    if (numel == 0) {  // else eager's "invalid" below
      return EagerRuntimeError(absl::StrCat(
          "cannot reshape tensor of 0 elements into shape ", DimsText(size),
          " because the unspecified dimension size -1 can be any value and "
          "is ambiguous"));
    }
  } else if (numel % known == 0) {
    size[infer] = numel / known;
    return size;
  }
  return EagerRuntimeError(absl::StrCat(
      "shape '", DimsText(size), "' is invalid for input of size ", numel));
}

Dims ContiguousStrides(const Dims& dims) {
  Dims strides(dims.size());
  int64_t acc = 1;
  for (int64_t i = static_cast<int64_t>(dims.size()) - 1; i >= 0; --i) {
    strides[i] = acc;
    acc *= std::max<int64_t>(dims[i], 1);
  }
  return strides;
}

Dims ViewStrides(const Dims& dims, const Dims& strides, const Dims& new_dims) {
  if (dims.empty() || NumElements(dims) == 0 ||
      strides.size() != dims.size()) {
    return ContiguousStrides(new_dims);
  }
  Dims out(new_dims.size(), 0);
  int64_t view_d = static_cast<int64_t>(new_dims.size()) - 1;
  int64_t chunk_stride = strides.back();
  int64_t tensor_numel = 1, view_numel = 1;
  for (int64_t d = static_cast<int64_t>(dims.size()) - 1; d >= 0; --d) {
    tensor_numel *= dims[d];
    // A chunk of dims that are contiguous with each other ends here.
    if (d == 0 ||
        (dims[d - 1] != 1 && strides[d - 1] != tensor_numel * chunk_stride)) {
      while (view_d >= 0 &&
             (view_numel < tensor_numel || new_dims[view_d] == 1)) {
        out[view_d] = view_numel * chunk_stride;
        view_numel *= new_dims[view_d];
        --view_d;
      }
      if (view_numel != tensor_numel) return ContiguousStrides(new_dims);
      if (d > 0) {
        chunk_stride = strides[d - 1];
        tensor_numel = view_numel = 1;
      }
    }
  }
  if (view_d != -1) return ContiguousStrides(new_dims);
  return out;
}

std::pair<int64_t, int64_t> ClampSlice(int64_t size,
                                       std::optional<int64_t> start,
                                       std::optional<int64_t> end) {
  int64_t s = start.value_or(0);
  int64_t e = end.value_or(size);
  if (s < 0) s += size;
  if (e < 0) e += size;
  s = std::min(std::max<int64_t>(s, 0), size);
  e = std::min(std::max(e, s), size);
  return {s, e};
}

absl::StatusOr<Dims> BroadcastDims(const std::vector<const Dims*>& shapes) {
  // Pairwise, each dim from the last, as eager's infer_size (so the first
  // mismatch reported is eager's).
  Dims out;
  for (const Dims* shape : shapes) {
    const Dims& b = *shape;
    const int64_t rank = std::max(out.size(), b.size());
    Dims next(rank);
    for (int64_t i = rank - 1; i >= 0; --i) {
      const int64_t offset = rank - 1 - i;
      const int64_t da = static_cast<int64_t>(out.size()) - 1 - offset;
      const int64_t db = static_cast<int64_t>(b.size()) - 1 - offset;
      const int64_t size_a = da >= 0 ? out[da] : 1;
      const int64_t size_b = db >= 0 ? b[db] : 1;
      if (size_a != size_b && size_a != 1 && size_b != 1) {
        return EagerRuntimeError(absl::StrCat(
            "The size of tensor a (", size_a,
            ") must match the size of tensor b (", size_b,
            ") at non-singleton dimension ", i));
      }
      next[i] = size_a == 1 ? size_b : size_a;
    }
    out = std::move(next);
  }
  return out;
}

absl::Status CheckBroadcastsTo(const Dims& from, const Dims& to) {
  if (from.size() > to.size()) {
    return EagerRuntimeError(
        absl::StrCat("cannot broadcast a tensor of shape ", DimsText(from),
                     " to the smaller rank shape ", DimsText(to)));
  }
  const size_t offset = to.size() - from.size();
  for (size_t i = 0; i < from.size(); ++i) {
    if (from[i] != to[offset + i] && from[i] != 1) {
      return EagerRuntimeError(absl::StrCat(
          "the size of dimension ", i, " (", from[i], ") of shape ",
          DimsText(from), " does not match ", to[offset + i],
          " in the target shape ", DimsText(to)));
    }
  }
  return absl::OkStatus();
}

}  // namespace torch_xla
