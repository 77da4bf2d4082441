#include "torch_xla/csrc/tensor/storage_views.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "torch_xla/csrc/ir/builder.h"
#include "torch_xla/csrc/ir/shape_util.h"
#include "torch_xla/csrc/ir/status_macros.h"
#include "torch_xla/csrc/ir/value_builders.h"
#include "torch_xla/csrc/ops/build_util.h"
#include "torch_xla/csrc/ops/shape_ops.h"

namespace torch_xla {
namespace {

class DiagonalView final : public ViewStep {
 public:
  DiagonalView(int64_t offset, int64_t d1, int64_t d2)
      : offset_(offset), d1_(d1), d2_(d2) {}
  absl::StatusOr<XlaTensorPtr> Forward(
      const XlaTensorPtr& base) const override {
    return ApplyToValue(base, [&](Value v) {
      return ops::DiagonalValue(std::move(v), offset_, d1_, d2_);
    });
  }
  absl::StatusOr<XlaTensorPtr> Inverse(
      const XlaTensorPtr& base, const XlaTensorPtr& view) const override {
    TXLA_ASSIGN_OR_RETURN(Value update, view->GetIrValue());
    return ApplyToValue(base, [&](Value v) {
      return ops::DiagonalUpdate(std::move(v), update, offset_, d1_, d2_);
    });
  }
  bool RearrangeOnHost(HostArray* array) const override {
    const int64_t rank = static_cast<int64_t>(array->dims.size());
    if (d1_ >= rank || d2_ >= rank) return false;
    const std::vector<int64_t> strides = ContiguousStrides(array->dims);
    std::vector<int64_t> dims, steps;
    for (int64_t i = 0; i < rank; ++i) {
      if (i == d1_ || i == d2_) continue;
      dims.push_back(array->dims[i]);
      steps.push_back(strides[i]);
    }
    const int64_t row = std::max<int64_t>(-offset_, 0);
    const int64_t column = std::max<int64_t>(offset_, 0);
    const int64_t n = std::max<int64_t>(
        std::min(array->dims[d1_] - row, array->dims[d2_] - column), 0);
    dims.push_back(n);
    steps.push_back(strides[d1_] + strides[d2_]);
    const int64_t start =
        n > 0 ? row * strides[d1_] + column * strides[d2_] : 0;
    GatherOnHost(array, std::move(dims), steps, start);
    return true;
  }

 private:
  const int64_t offset_, d1_, d2_;
};

class AsStridedView final : public ViewStep {
 public:
  AsStridedView(std::vector<int64_t> sizes, std::vector<int64_t> strides,
                int64_t storage_offset, std::vector<int64_t> root_dims)
      : sizes_(std::move(sizes)),
        strides_(std::move(strides)),
        storage_offset_(storage_offset),
        root_dims_(std::move(root_dims)),
        numel_(NumElements(root_dims_)) {}
  absl::StatusOr<XlaTensorPtr> Forward(
      const XlaTensorPtr& base) const override {
    TXLA_ASSIGN_OR_RETURN(Value idx, Indices());
    return ApplyToValue(base, [&](Value v) -> absl::StatusOr<Value> {
      TXLA_ASSIGN_OR_RETURN(Value flat, MakeReshape(std::move(v), {numel_}));
      TXLA_ASSIGN_OR_RETURN(
          NodePtr node,
          MakeNode(OpKind::kGather, {std::move(flat), idx},
                   Attrs()
                       .Set("offset_dims", std::vector<int64_t>{})
                       .Set("collapsed_dims", std::vector<int64_t>{0})
                       .Set("start_index_map", std::vector<int64_t>{0})
                       .Set("index_vec_dim", Rank())
                       .Set("slice_sizes", std::vector<int64_t>{1})));
      return Value(std::move(node));
    });
  }
  absl::StatusOr<XlaTensorPtr> Inverse(
      const XlaTensorPtr& base, const XlaTensorPtr& view) const override {
    TXLA_ASSIGN_OR_RETURN(Value update, view->GetIrValue());
    TXLA_ASSIGN_OR_RETURN(Value idx, Indices());
    return ApplyToValue(base, [&](Value v) -> absl::StatusOr<Value> {
      TXLA_ASSIGN_OR_RETURN(Value flat, MakeReshape(std::move(v), {numel_}));
      TXLA_ASSIGN_OR_RETURN(
          NodePtr node,
          MakeNode(OpKind::kScatter, {std::move(flat), idx, update},
                   Attrs()
                       .Set("window_dims", std::vector<int64_t>{})
                       .Set("inserted_dims", std::vector<int64_t>{0})
                       .Set("scatter_dim_map", std::vector<int64_t>{0})
                       .Set("index_vec_dim", Rank())
                       .Set("kind", "replace")));
      return MakeReshape(Value(std::move(node)), root_dims_);
    });
  }
  bool RearrangeOnHost(HostArray* array) const override {
    if (array->dims != root_dims_) return false;
    GatherOnHost(array, sizes_, strides_, storage_offset_);
    return true;
  }

 private:
  int64_t Rank() const { return static_cast<int64_t>(sizes_.size()); }

  // s64 [sizes..., 1]: each element's position in the root's flat value.
  absl::StatusOr<Value> Indices() const {
    TXLA_ASSIGN_OR_RETURN(Value idx,
                          MakeLiteral(storage_offset_, DType::kI64, sizes_));
    for (int64_t k = 0; k < Rank(); ++k) {
      if (sizes_[k] <= 1 || strides_[k] == 0) continue;
      TXLA_ASSIGN_OR_RETURN(Value iota, ops::Iota(DType::kI64, sizes_, k));
      TXLA_ASSIGN_OR_RETURN(Value stride,
                            MakeLiteral(strides_[k], DType::kI64, sizes_));
      TXLA_ASSIGN_OR_RETURN(Value term, ops::Apply(OpKind::kMultiply,
                                                   std::move(iota),
                                                   std::move(stride)));
      TXLA_ASSIGN_OR_RETURN(
          idx, ops::Apply(OpKind::kAdd, std::move(idx), std::move(term)));
    }
    std::vector<int64_t> dims = sizes_;
    dims.push_back(1);
    return MakeReshape(std::move(idx), dims);
  }

  const std::vector<int64_t> sizes_, strides_;
  const int64_t storage_offset_;
  const std::vector<int64_t> root_dims_;
  const int64_t numel_;
};

// The unsigned-in-effect integer of each size holding an element's bits (s16
// for 2 bytes: there is no u16; its shifts are logical, its pieces masked).
DType Container(int64_t size) {
  switch (size) {
    case 1:
      return DType::kU8;
    case 2:
      return DType::kI16;
    case 4:
      return DType::kU32;
    default:
      return DType::kU64;
  }
}

absl::StatusOr<Value> Bitcast(Value v, DType dtype) {
  if (v.shape().dtype == dtype) return v;
  TXLA_ASSIGN_OR_RETURN(NodePtr node,
                        MakeNode(OpKind::kBitcastConvert, {std::move(v)},
                                 Attrs().Set("dtype", dtype)));
  return Value(std::move(node));
}

// v (dtype `dtype`) as its size's container integer.
absl::StatusOr<Value> ToBits(Value v, DType dtype) {
  if (dtype == DType::kBool) return MakeConvert(std::move(v), DType::kU8);
  return Bitcast(std::move(v), Container(DTypeByteSize(dtype)));
}

// Container integer v read as `dtype` (bool: any nonzero byte is true).
absl::StatusOr<Value> FromBits(Value v, DType dtype) {
  if (dtype == DType::kBool) {
    TXLA_ASSIGN_OR_RETURN(Value zero, ops::LiteralLike(0, v));
    return ops::Compare(std::move(v), std::move(zero), "NE");
  }
  return Bitcast(std::move(v), dtype);
}

// `bits` (container integer) split into `ratio` pieces of `width` bits, low
// first, each a container of its size, laid out along a new last dim.
absl::StatusOr<Value> Split(Value bits, int64_t ratio, int64_t width,
                            DType piece_type) {
  std::vector<int64_t> dims = bits.shape().dims;
  const DType type = bits.shape().dtype;
  TXLA_ASSIGN_OR_RETURN(Value mask,
                        MakeLiteral((int64_t{1} << width) - 1, type, dims));
  std::vector<int64_t> piece_dims = dims;
  piece_dims.push_back(1);
  std::vector<Value> pieces;
  for (int64_t k = 0; k < ratio; ++k) {
    Value piece = bits;
    if (k > 0) {
      TXLA_ASSIGN_OR_RETURN(Value shift, MakeLiteral(width * k, type, dims));
      TXLA_ASSIGN_OR_RETURN(piece, ops::Apply(OpKind::kShiftRightLogical,
                                              std::move(piece), shift));
    }
    TXLA_ASSIGN_OR_RETURN(piece, ops::Apply(OpKind::kAnd, piece, mask));
    TXLA_ASSIGN_OR_RETURN(piece, MakeConvert(std::move(piece), piece_type));
    TXLA_ASSIGN_OR_RETURN(piece, MakeReshape(std::move(piece), piece_dims));
    pieces.push_back(std::move(piece));
  }
  TXLA_ASSIGN_OR_RETURN(
      NodePtr joined,
      MakeNode(OpKind::kConcatenate, std::move(pieces),
               Attrs().Set("dimension", static_cast<int64_t>(dims.size()))));
  dims.back() *= ratio;
  return MakeReshape(Value(std::move(joined)), dims);
}

// Groups of `ratio` consecutive elements along the last dim of `bits`
// (pieces of `width` bits, low first) joined into one `container` each.
absl::StatusOr<Value> Join(Value bits, int64_t ratio, int64_t width,
                           DType container) {
  std::vector<int64_t> rows = bits.shape().dims;
  rows.back() /= ratio;
  std::vector<int64_t> grouped_dims = rows;
  grouped_dims.push_back(ratio);
  const int64_t last = static_cast<int64_t>(rows.size());
  TXLA_ASSIGN_OR_RETURN(Value grouped,
                        MakeReshape(std::move(bits), grouped_dims));
  TXLA_ASSIGN_OR_RETURN(Value mask,
                        MakeLiteral((int64_t{1} << width) - 1, container, rows));
  Value word;
  for (int64_t k = 0; k < ratio; ++k) {
    TXLA_ASSIGN_OR_RETURN(Value piece, MakeSliceDim(grouped, last, k, k + 1));
    TXLA_ASSIGN_OR_RETURN(piece, MakeReshape(std::move(piece), rows));
    TXLA_ASSIGN_OR_RETURN(piece, MakeConvert(std::move(piece), container));
    TXLA_ASSIGN_OR_RETURN(piece, ops::Apply(OpKind::kAnd, piece, mask));
    if (k == 0) {
      word = std::move(piece);
      continue;
    }
    TXLA_ASSIGN_OR_RETURN(Value shift, MakeLiteral(width * k, container, rows));
    TXLA_ASSIGN_OR_RETURN(piece, ops::Apply(OpKind::kShiftLeft,
                                            std::move(piece), std::move(shift)));
    TXLA_ASSIGN_OR_RETURN(word, ops::Apply(OpKind::kOr, std::move(word),
                                           std::move(piece)));
  }
  return word;
}

class BitcastView final : public ViewStep {
 public:
  BitcastView(DType from, DType to) : from_(from), to_(to) {}
  absl::StatusOr<XlaTensorPtr> Forward(
      const XlaTensorPtr& base) const override {
    return ApplyToValue(base, [&](Value v) {
      return MakeBitcastView(std::move(v), from_, to_);
    });
  }
  absl::StatusOr<XlaTensorPtr> Inverse(
      const XlaTensorPtr& base, const XlaTensorPtr& view) const override {
    return ApplyToValue(view, [&](Value v) {
      return MakeBitcastView(std::move(v), to_, from_);
    });
  }
  bool RearrangeOnHost(HostArray* array) const override {
    // The host's bytes are little-endian, as the value's; a bool's byte
    // must be 0 or 1, so only bools read as bools stay as they are.
    const int64_t from = DTypeByteSize(from_), to = DTypeByteSize(to_);
    if ((to_ == DType::kBool && from_ != DType::kBool) ||
        array->element_size != from) {
      return false;
    }
    if (from != to) {
      if (array->dims.empty()) return false;
      int64_t& last = array->dims.back();
      if (from > to) {
        last *= from / to;
      } else if (last % (to / from) != 0) {
        return false;
      } else {
        last /= to / from;
      }
    }
    array->element_size = to;
    return true;
  }

 private:
  const DType from_, to_;
};

}  // namespace

ViewStepPtr DiagonalStep(int64_t offset, int64_t d1, int64_t d2) {
  return std::make_shared<DiagonalView>(offset, d1, d2);
}

ViewStepPtr AsStridedStep(std::vector<int64_t> sizes,
                          std::vector<int64_t> strides, int64_t storage_offset,
                          std::vector<int64_t> root_dims) {
  return std::make_shared<AsStridedView>(std::move(sizes), std::move(strides),
                                         storage_offset, std::move(root_dims));
}

ViewStepPtr BitcastStep(DType from, DType to) {
  return std::make_shared<BitcastView>(from, to);
}

absl::StatusOr<Value> MakeBitcastView(Value x, DType from, DType to) {
  if (from == to) return x;
  const int64_t big = DTypeByteSize(from), small = DTypeByteSize(to);
  TXLA_ASSIGN_OR_RETURN(Value bits, ToBits(std::move(x), from));
  if (big == small) return FromBits(std::move(bits), to);
  if (bits.shape().dims.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "view(dtype): a 0-d value cannot change its element size (",
        DTypeName(from), " to ", DTypeName(to), ")"));
  }
  if (big > small) {
    TXLA_ASSIGN_OR_RETURN(
        bits, Split(std::move(bits), big / small, 8 * small, Container(small)));
    return FromBits(std::move(bits), to);
  }
  TXLA_ASSIGN_OR_RETURN(
      bits, Join(std::move(bits), small / big, 8 * big, Container(small)));
  return FromBits(std::move(bits), to);
}

}  // namespace torch_xla
