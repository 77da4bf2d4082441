// Shape rules: convolution(lhs, rhs), StableHLO's convolution with S spatial
// dims (rank S + 2). Attributes, all optional (default in brackets):
//   strides [1..], pad_lo / pad_hi [0..] (>= 0), lhs_dilation [1..] (zeros
//   between input elements: transposed convolutions, input gradients),
//   rhs_dilation [1..] (the kernel's dilation), feature_groups [1],
//   batch_groups [1] (weight gradients of grouped convolutions),
//   lhs_dims [batch, feature, spatial...] ([0, 1, 2, ..]: NCHW),
//   rhs_dims [in_feature, out_feature, spatial...] ([1, 0, 2, ..]: OIHW),
//   out_dims [batch, feature, spatial...] ([0, 1, 2, ..]),
//   dtype (preferred result element type, e.g. f32 for bf16 operands),
//   precision ("DEFAULT" | "HIGH" | "HIGHEST").
// Output spatial size: (lo + (in - 1) * lhs_dilation + 1 + hi -
// ((k - 1) * rhs_dilation + 1)) / stride + 1.

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "torch_xla/csrc/ir/shape_inference.h"
#include "torch_xla/csrc/ir/status_macros.h"

namespace torch_xla {
namespace {

using Shapes = std::vector<Shape>;
using Dims = std::vector<int64_t>;

// `values` if present (checked to have `n` entries, each >= min), else n
// copies of `fallback`.
absl::StatusOr<Dims> SpatialAttr(const ShapeRuleArgs& args,
                                 absl::string_view name, int64_t n,
                                 int64_t fallback, int64_t min) {
  TXLA_ASSIGN_OR_RETURN(const Dims* values, args.GetOptional<Dims>(name));
  if (values == nullptr) return Dims(n, fallback);
  if (static_cast<int64_t>(values->size()) != n) {
    return args.Error(absl::StrCat(name, " ", DimsToString(*values),
                                   " must have one entry per spatial dim (",
                                   n, ") of operands ", args.OperandShapes()));
  }
  for (int64_t v : *values) {
    if (v < min) {
      return args.Error(absl::StrCat(name, " ", DimsToString(*values),
                                     ": entries must be >= ", min));
    }
  }
  return *values;
}

// A dims attribute: a permutation of [0, rank), or `fallback` when absent.
absl::StatusOr<Dims> LayoutAttr(const ShapeRuleArgs& args,
                                absl::string_view name, int64_t rank,
                                Dims fallback, absl::string_view owner) {
  TXLA_ASSIGN_OR_RETURN(const Dims* values, args.GetOptional<Dims>(name));
  if (values == nullptr) return fallback;
  if (static_cast<int64_t>(values->size()) != rank) {
    return args.Error(absl::StrCat(name, " ", DimsToString(*values),
                                   " must list all ", rank, " dims of ",
                                   owner));
  }
  TXLA_RETURN_IF_ERROR(CheckDimIndices(args, name, *values, rank, owner));
  return *values;
}

absl::StatusOr<Shapes> ConvolutionShape(const ShapeRuleArgs& args) {
  TXLA_RETURN_IF_ERROR(args.ExpectNumOperands(2));
  const Shape& lhs = args.shape(0);
  const Shape& rhs = args.shape(1);
  const int64_t rank = lhs.rank();
  const int64_t ns = rank - 2;
  if (rank < 2 || rhs.rank() != rank) {
    return args.Error(absl::StrCat(
        "lhs and rhs must have the same rank >= 2 (batch, feature and "
        "spatial dims), got lhs ", lhs.ToString(), ", rhs ", rhs.ToString()));
  }
  if (lhs.dtype != rhs.dtype || lhs.dtype == DType::kBool) {
    return args.Error(absl::StrCat(
        "operands must have one numeric element type: lhs ", lhs.ToString(),
        ", rhs ", rhs.ToString(), " (convert first)"));
  }
  Dims identity(rank), oihw(rank);
  for (int64_t i = 0; i < rank; ++i) identity[i] = oihw[i] = i;
  std::swap(oihw[0], oihw[1]);
  TXLA_ASSIGN_OR_RETURN(Dims ld,
                        LayoutAttr(args, "lhs_dims", rank, identity, "lhs"));
  TXLA_ASSIGN_OR_RETURN(Dims rd, LayoutAttr(args, "rhs_dims", rank, oihw, "rhs"));
  TXLA_ASSIGN_OR_RETURN(Dims od, LayoutAttr(args, "out_dims", rank, identity,
                                            "the result"));
  TXLA_ASSIGN_OR_RETURN(Dims strides, SpatialAttr(args, "strides", ns, 1, 1));
  TXLA_ASSIGN_OR_RETURN(Dims lo, SpatialAttr(args, "pad_lo", ns, 0, 0));
  TXLA_ASSIGN_OR_RETURN(Dims hi, SpatialAttr(args, "pad_hi", ns, 0, 0));
  TXLA_ASSIGN_OR_RETURN(Dims lhs_dil,
                        SpatialAttr(args, "lhs_dilation", ns, 1, 1));
  TXLA_ASSIGN_OR_RETURN(Dims rhs_dil,
                        SpatialAttr(args, "rhs_dilation", ns, 1, 1));
  TXLA_ASSIGN_OR_RETURN(int64_t fg, args.GetOr<int64_t>("feature_groups", 1));
  TXLA_ASSIGN_OR_RETURN(int64_t bg, args.GetOr<int64_t>("batch_groups", 1));
  TXLA_ASSIGN_OR_RETURN(const DType* preferred,
                        args.GetOptional<DType>("dtype"));
  TXLA_ASSIGN_OR_RETURN(const std::string* precision,
                        args.GetOptional<std::string>("precision"));
  if (precision != nullptr && *precision != "DEFAULT" &&
      *precision != "HIGH" && *precision != "HIGHEST") {
    return args.Error(absl::StrCat("precision '", *precision,
                                   "' is not one of DEFAULT, HIGH, HIGHEST"));
  }
  if (fg < 1 || bg < 1 || (fg > 1 && bg > 1)) {
    return args.Error(absl::StrCat(
        "feature_groups ", fg, " and batch_groups ", bg,
        " must be >= 1, and at most one of them > 1"));
  }
  const int64_t batch = lhs.dims[ld[0]];
  const int64_t in_features = lhs.dims[ld[1]];
  const int64_t kernel_in = rhs.dims[rd[0]];
  const int64_t kernel_out = rhs.dims[rd[1]];
  if (in_features % fg != 0 || kernel_in * fg != in_features) {
    return args.Error(absl::StrCat(
        "lhs ", lhs.ToString(), " has ", in_features,
        " input features; with feature_groups ", fg, " rhs ", rhs.ToString(),
        " must have ", in_features / std::max<int64_t>(fg, 1),
        " in its input-feature dim ", rd[0], ", got ", kernel_in));
  }
  if (kernel_out % fg != 0 || kernel_out % bg != 0 || batch % bg != 0) {
    return args.Error(absl::StrCat(
        "rhs ", rhs.ToString(), " output features (", kernel_out,
        ") must divide by feature_groups ", fg, " and batch_groups ", bg,
        ", and lhs ", lhs.ToString(), " batch (", batch,
        ") by batch_groups"));
  }
  TXLA_ASSIGN_OR_RETURN(DType dtype,
                        ContractionDType(args, lhs.dtype, preferred));
  Shape result(dtype, Dims(rank, 0));
  result.dims[od[0]] = batch / bg;
  result.dims[od[1]] = kernel_out;
  for (int64_t i = 0; i < ns; ++i) {
    const int64_t in = lhs.dims[ld[2 + i]];
    const int64_t k = rhs.dims[rd[2 + i]];
    const int64_t base = in == 0 ? 0 : (in - 1) * lhs_dil[i] + 1;
    const int64_t padded = lo[i] + base + hi[i];
    const int64_t window = k == 0 ? 0 : (k - 1) * rhs_dil[i] + 1;
    if (padded < window) {
      return args.Error(absl::StrCat(
          "spatial dim ", i, ": the padded (and dilated) input has size ",
          padded, ", smaller than the dilated kernel (", window, "); lhs ",
          lhs.ToString(), ", rhs ", rhs.ToString()));
    }
    result.dims[od[2 + i]] = (padded - window) / strides[i] + 1;
  }
  return SingleShape(std::move(result));
}

}  // namespace

absl::Status RegisterConvolutionShapeRules(ShapeRuleTable* table) {
  return table->Register(OpKind::kConvolution, &ConvolutionShape);
}

}  // namespace torch_xla
