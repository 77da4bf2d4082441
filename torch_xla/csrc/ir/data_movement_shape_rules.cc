// Shape rules: broadcast_in_dim, reshape, transpose, reverse, slice,
// dynamic_slice, dynamic_update_slice, concatenate, pad.

#include "absl/strings/str_cat.h"
#include "torch_xla/csrc/ir/shape_inference.h"
#include "torch_xla/csrc/ir/status_macros.h"

namespace torch_xla {
namespace {

using Shapes = std::vector<Shape>;
using Dims = std::vector<int64_t>;

absl::StatusOr<Shapes> BroadcastInDimShape(const ShapeRuleArgs& args) {
  TXLA_RETURN_IF_ERROR(args.ExpectNumOperands(1));
  TXLA_ASSIGN_OR_RETURN(const Dims* dims, args.Get<Dims>("dims"));
  TXLA_ASSIGN_OR_RETURN(const Dims* bdims, args.Get<Dims>("broadcast_dims"));
  const Shape& x = args.shape(0);
  TXLA_RETURN_IF_ERROR(CheckDimSizes(args, "dims", *dims));
  if (static_cast<int64_t>(bdims->size()) != x.rank()) {
    return args.Error(absl::StrCat(
        "broadcast_dims ", DimsToString(*bdims), " has ", bdims->size(),
        " entries; operand ", x.ToString(), " has rank ", x.rank()));
  }
  TXLA_RETURN_IF_ERROR(CheckDimIndices(args, "broadcast_dims", *bdims,
                                       dims->size(), "the result"));
  for (size_t i = 0; i < bdims->size(); ++i) {
    if (i > 0 && (*bdims)[i] <= (*bdims)[i - 1]) {
      return args.Error(absl::StrCat(
          "broadcast_dims ", DimsToString(*bdims),
          " must be strictly increasing (transpose the operand first)"));
    }
    int64_t in = x.dims[i], out = (*dims)[(*bdims)[i]];
    if (in != 1 && in != out) {
      return args.Error(absl::StrCat(
          "operand ", x.ToString(), " dim ", i, " has size ", in,
          ", which cannot broadcast to result dim ", (*bdims)[i], " of size ",
          out, " (result dims ", DimsToString(*dims), ")"));
    }
  }
  return SingleShape(Shape(x.dtype, *dims));
}

absl::StatusOr<Shapes> ReshapeShape(const ShapeRuleArgs& args) {
  TXLA_RETURN_IF_ERROR(args.ExpectNumOperands(1));
  TXLA_ASSIGN_OR_RETURN(const Dims* dims, args.Get<Dims>("dims"));
  TXLA_RETURN_IF_ERROR(CheckDimSizes(args, "dims", *dims));
  const Shape& x = args.shape(0);
  Shape result(x.dtype, *dims);
  if (result.num_elements() != x.num_elements()) {
    return args.Error(absl::StrCat(
        "element count differs: operand ", x.ToString(), " has ",
        x.num_elements(), " elements, target dims ", DimsToString(*dims),
        " have ", result.num_elements()));
  }
  return SingleShape(std::move(result));
}

absl::StatusOr<Shapes> TransposeShape(const ShapeRuleArgs& args) {
  TXLA_RETURN_IF_ERROR(args.ExpectNumOperands(1));
  TXLA_ASSIGN_OR_RETURN(const Dims* perm, args.Get<Dims>("permutation"));
  const Shape& x = args.shape(0);
  if (static_cast<int64_t>(perm->size()) != x.rank()) {
    return args.Error(absl::StrCat("permutation ", DimsToString(*perm),
                                   " has ", perm->size(), " entries; operand ",
                                   x.ToString(), " has rank ", x.rank()));
  }
  TXLA_RETURN_IF_ERROR(
      CheckDimIndices(args, "permutation", *perm, x.rank(), "operand", &x));
  Shape result(x.dtype, {});
  result.dims.reserve(perm->size());
  for (int64_t d : *perm) result.dims.push_back(x.dims[d]);
  return SingleShape(std::move(result));
}

absl::StatusOr<Shapes> ReverseShape(const ShapeRuleArgs& args) {
  TXLA_RETURN_IF_ERROR(args.ExpectNumOperands(1));
  TXLA_ASSIGN_OR_RETURN(const Dims* dims, args.Get<Dims>("dims"));
  const Shape& x = args.shape(0);
  TXLA_RETURN_IF_ERROR(
      CheckDimIndices(args, "dims", *dims, x.rank(), "operand", &x));
  return SingleShape(x);
}

absl::StatusOr<Shapes> SliceShape(const ShapeRuleArgs& args) {
  TXLA_RETURN_IF_ERROR(args.ExpectNumOperands(1));
  TXLA_ASSIGN_OR_RETURN(const Dims* start, args.Get<Dims>("start"));
  TXLA_ASSIGN_OR_RETURN(const Dims* limit, args.Get<Dims>("limit"));
  TXLA_ASSIGN_OR_RETURN(const Dims* strides, args.GetOptional<Dims>("strides"));
  const Shape& x = args.shape(0);
  const size_t rank = x.dims.size();
  if (start->size() != rank || limit->size() != rank ||
      (strides != nullptr && strides->size() != rank)) {
    return args.Error(absl::StrCat(
        "start ", DimsToString(*start), ", limit ", DimsToString(*limit),
        strides ? absl::StrCat(", strides ", DimsToString(*strides)) : "",
        " must each have one entry per dimension of ", x.ToString()));
  }
  Shape result(x.dtype, {});
  result.dims.reserve(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t s = (*start)[i], l = (*limit)[i];
    int64_t stride = strides ? (*strides)[i] : 1;
    if (s < 0 || s > l || l > x.dims[i] || stride <= 0) {
      return args.Error(absl::StrCat(
          "dim ", i, " of ", x.ToString(), ": start ", s, ", limit ", l,
          ", stride ", stride, " is invalid; need 0 <= start <= limit <= ",
          x.dims[i], " and stride >= 1"));
    }
    result.dims.push_back((l - s + stride - 1) / stride);
  }
  return SingleShape(std::move(result));
}

// Checks operands [first, first + rank) are integer scalars of one type.
absl::Status CheckStartIndices(const ShapeRuleArgs& args, size_t first,
                               int64_t rank) {
  if (static_cast<int64_t>(args.num_operands() - first) != rank) {
    return args.Error(absl::StrCat(
        "expected ", rank, " scalar start indices (one per dimension of ",
        args.shape(0).ToString(), "), got ", args.num_operands() - first,
        " (operands: ", args.OperandShapes(), ")"));
  }
  for (size_t i = first; i < args.num_operands(); ++i) {
    const Shape& s = args.shape(i);
    if (s.rank() != 0 || !IsInteger(s.dtype) ||
        s.dtype != args.shape(first).dtype) {
      return args.Error(absl::StrCat(
          "start index operand ", i, " is ", s.ToString(),
          "; start indices must be integer scalars of one element type"));
    }
  }
  return absl::OkStatus();
}

// dynamic_slice(operand, start_0, ..., start_{r-1}), sizes = [...].
absl::StatusOr<Shapes> DynamicSliceShape(const ShapeRuleArgs& args) {
  if (args.num_operands() < 1) return args.ExpectNumOperands(1);
  TXLA_ASSIGN_OR_RETURN(const Dims* sizes, args.Get<Dims>("sizes"));
  const Shape& x = args.shape(0);
  TXLA_RETURN_IF_ERROR(CheckStartIndices(args, 1, x.rank()));
  if (static_cast<int64_t>(sizes->size()) != x.rank()) {
    return args.Error(absl::StrCat("sizes ", DimsToString(*sizes),
                                   " must have one entry per dimension of ",
                                   x.ToString()));
  }
  for (size_t i = 0; i < sizes->size(); ++i) {
    if ((*sizes)[i] < 0 || (*sizes)[i] > x.dims[i]) {
      return args.Error(absl::StrCat("sizes ", DimsToString(*sizes),
                                     ": dim ", i, " must be in [0, ",
                                     x.dims[i], "] for ", x.ToString()));
    }
  }
  return SingleShape(Shape(x.dtype, *sizes));
}

// dynamic_update_slice(operand, update, start_0, ..., start_{r-1}).
absl::StatusOr<Shapes> DynamicUpdateSliceShape(const ShapeRuleArgs& args) {
  if (args.num_operands() < 2) return args.ExpectNumOperands(2);
  const Shape& x = args.shape(0);
  const Shape& update = args.shape(1);
  TXLA_RETURN_IF_ERROR(CheckStartIndices(args, 2, x.rank()));
  bool ok = update.dtype == x.dtype && update.rank() == x.rank();
  for (size_t i = 0; ok && i < x.dims.size(); ++i) {
    ok = update.dims[i] <= x.dims[i];
  }
  if (!ok) {
    return args.Error(absl::StrCat(
        "update ", update.ToString(), " must have the element type and rank "
        "of operand ", x.ToString(), " and fit inside it"));
  }
  return SingleShape(x);
}

absl::StatusOr<Shapes> ConcatenateShape(const ShapeRuleArgs& args) {
  if (args.num_operands() == 0) {
    return args.Error("expected at least 1 operand, got 0");
  }
  TXLA_ASSIGN_OR_RETURN(const int64_t* dim, args.Get<int64_t>("dimension"));
  const Shape& first = args.shape(0);
  if (*dim < 0 || *dim >= first.rank()) {
    return args.Error(absl::StrCat("dimension ", *dim,
                                   " is out of range for ", first.ToString()));
  }
  Shape result = first;
  for (size_t i = 1; i < args.num_operands(); ++i) {
    const Shape& s = args.shape(i);
    bool ok = s.dtype == first.dtype && s.rank() == first.rank();
    for (int64_t d = 0; ok && d < first.rank(); ++d) {
      ok = d == *dim || s.dims[d] == first.dims[d];
    }
    if (!ok) {
      return args.Error(absl::StrCat(
          "operand ", i, " ", s.ToString(), " does not match operand 0 ",
          first.ToString(), " outside dimension ", *dim, " (operands: ",
          args.OperandShapes(), ")"));
    }
    result.dims[*dim] += s.dims[*dim];
  }
  return SingleShape(std::move(result));
}

// pad(operand, padding_value); low/high may be negative, interior >= 0.
absl::StatusOr<Shapes> PadShape(const ShapeRuleArgs& args) {
  TXLA_RETURN_IF_ERROR(args.ExpectNumOperands(2));
  TXLA_ASSIGN_OR_RETURN(const Dims* low, args.Get<Dims>("low"));
  TXLA_ASSIGN_OR_RETURN(const Dims* high, args.Get<Dims>("high"));
  TXLA_ASSIGN_OR_RETURN(const Dims* interior,
                        args.GetOptional<Dims>("interior"));
  const Shape& x = args.shape(0);
  const Shape& value = args.shape(1);
  if (value.rank() != 0 || value.dtype != x.dtype) {
    return args.Error(absl::StrCat("padding value ", value.ToString(),
                                   " must be a ", DTypeName(x.dtype),
                                   "[] scalar for operand ", x.ToString()));
  }
  const size_t rank = x.dims.size();
  if (low->size() != rank || high->size() != rank ||
      (interior != nullptr && interior->size() != rank)) {
    return args.Error(absl::StrCat(
        "low ", DimsToString(*low), ", high ", DimsToString(*high),
        interior ? absl::StrCat(", interior ", DimsToString(*interior)) : "",
        " must each have one entry per dimension of ", x.ToString()));
  }
  Shape result(x.dtype, {});
  for (size_t i = 0; i < rank; ++i) {
    int64_t in = interior ? (*interior)[i] : 0;
    int64_t d = x.dims[i];
    int64_t size = (*low)[i] + (*high)[i] + d + (d > 0 ? (d - 1) * in : 0);
    if (in < 0 || size < 0) {
      return args.Error(absl::StrCat(
          "dim ", i, " of ", x.ToString(), ": low ", (*low)[i], ", high ",
          (*high)[i], ", interior ", in,
          " is invalid (interior must be >= 0 and the result size >= 0)"));
    }
    result.dims.push_back(size);
  }
  return SingleShape(std::move(result));
}

}  // namespace

absl::Status RegisterDataMovementShapeRules(ShapeRuleTable* table) {
  TXLA_RETURN_IF_ERROR(
      table->Register(OpKind::kBroadcastInDim, &BroadcastInDimShape));
  TXLA_RETURN_IF_ERROR(table->Register(OpKind::kReshape, &ReshapeShape));
  TXLA_RETURN_IF_ERROR(table->Register(OpKind::kTranspose, &TransposeShape));
  TXLA_RETURN_IF_ERROR(table->Register(OpKind::kReverse, &ReverseShape));
  TXLA_RETURN_IF_ERROR(table->Register(OpKind::kSlice, &SliceShape));
  TXLA_RETURN_IF_ERROR(
      table->Register(OpKind::kDynamicSlice, &DynamicSliceShape));
  TXLA_RETURN_IF_ERROR(
      table->Register(OpKind::kDynamicUpdateSlice, &DynamicUpdateSliceShape));
  TXLA_RETURN_IF_ERROR(
      table->Register(OpKind::kConcatenate, &ConcatenateShape));
  TXLA_RETURN_IF_ERROR(table->Register(OpKind::kPad, &PadShape));
  return absl::OkStatus();
}

}  // namespace torch_xla
