// Shape rules: reduce_window and select_and_scatter (pooling and its
// backward). Window attributes, one entry per operand dim:
//   window (sizes, >= 1, required), strides [1..], pad_lo / pad_hi [0..]
//   (>= 0); reduce_window also takes base_dilation [1..] (zeros between
//   input elements: the transpose of a strided window sum) and
//   win_dilation [1..] (dilated windows).
// reduce_window "kind":
//   sum, max, min  one operand; padding and init are the identity;
//   argmax         (values, indices): the first largest value and its
//                  index; a NaN beats every number and a later NaN an
//                  earlier one (PyTorch's max pooling). Padding is the
//                  lowest value with the largest index, so it never wins a
//                  window holding an element.
// select_and_scatter(operand, source), "kind" max | min: each source
// element is added at the position its window selects in operand (first
// extreme, last NaN, as argmax; padding is never selected); result: operand's
// shape, zeros elsewhere. source must have the reduce_window result shape.

#include "absl/strings/str_cat.h"
#include "torch_xla/csrc/ir/shape_inference.h"
#include "torch_xla/csrc/ir/status_macros.h"

namespace torch_xla {
namespace {

using Shapes = std::vector<Shape>;
using Dims = std::vector<int64_t>;

absl::StatusOr<Dims> PerDimAttr(const ShapeRuleArgs& args,
                                absl::string_view name, const Shape& x,
                                int64_t fallback, int64_t min,
                                bool required = false) {
  const Dims* values = nullptr;
  if (required) {
    TXLA_ASSIGN_OR_RETURN(values, args.Get<Dims>(name));
  } else {
    TXLA_ASSIGN_OR_RETURN(values, args.GetOptional<Dims>(name));
  }
  if (values == nullptr) return Dims(x.rank(), fallback);
  if (static_cast<int64_t>(values->size()) != x.rank()) {
    return args.Error(absl::StrCat(name, " ", DimsToString(*values),
                                   " must have one entry per dim of operand ",
                                   x.ToString()));
  }
  for (int64_t v : *values) {
    if (v < min) {
      return args.Error(absl::StrCat(name, " ", DimsToString(*values),
                                     ": entries must be >= ", min));
    }
  }
  return *values;
}

// The window result dims of `x`; reads the window attributes.
absl::StatusOr<Dims> WindowResultDims(const ShapeRuleArgs& args,
                                      const Shape& x, bool dilations) {
  TXLA_ASSIGN_OR_RETURN(Dims window, PerDimAttr(args, "window", x, 1, 1,
                                                /*required=*/true));
  TXLA_ASSIGN_OR_RETURN(Dims strides, PerDimAttr(args, "strides", x, 1, 1));
  TXLA_ASSIGN_OR_RETURN(Dims lo, PerDimAttr(args, "pad_lo", x, 0, 0));
  TXLA_ASSIGN_OR_RETURN(Dims hi, PerDimAttr(args, "pad_hi", x, 0, 0));
  Dims base_dil(x.rank(), 1), win_dil(x.rank(), 1);
  if (dilations) {
    TXLA_ASSIGN_OR_RETURN(base_dil,
                          PerDimAttr(args, "base_dilation", x, 1, 1));
    TXLA_ASSIGN_OR_RETURN(win_dil, PerDimAttr(args, "win_dilation", x, 1, 1));
  }
  Dims out(x.rank());
  for (int64_t i = 0; i < x.rank(); ++i) {
    const int64_t base = x.dims[i] == 0 ? 0 : (x.dims[i] - 1) * base_dil[i] + 1;
    const int64_t padded = lo[i] + base + hi[i];
    const int64_t span = (window[i] - 1) * win_dil[i] + 1;
    if (padded < span) {
      return args.Error(absl::StrCat(
          "dim ", i, ": the window ", DimsToString(window), " (dilated size ",
          span, ") does not fit the padded operand (size ", padded,
          ") of ", x.ToString()));
    }
    out[i] = (padded - span) / strides[i] + 1;
  }
  return out;
}

absl::StatusOr<Shapes> ReduceWindowShape(const ShapeRuleArgs& args) {
  TXLA_ASSIGN_OR_RETURN(const std::string* kind, args.Get<std::string>("kind"));
  const bool argmax = *kind == "argmax";
  if (!argmax && *kind != "sum" && *kind != "max" && *kind != "min") {
    return args.Error(absl::StrCat("kind '", *kind,
                                   "' is not one of sum, max, min, argmax"));
  }
  TXLA_RETURN_IF_ERROR(args.ExpectNumOperands(argmax ? 2 : 1));
  const Shape& x = args.shape(0);
  if (x.dtype == DType::kBool) {
    return args.Error(absl::StrCat("kind '", *kind, "' does not apply to ",
                                   x.ToString(), " (convert first)"));
  }
  if (argmax) {
    const Shape& index = args.shape(1);
    if (!IsSignedInteger(index.dtype) || index.dims != x.dims) {
      return args.Error(absl::StrCat(
          "argmax: indices ", index.ToString(),
          " must be signed integers of the dimensions of values ",
          x.ToString()));
    }
  }
  TXLA_ASSIGN_OR_RETURN(Dims out, WindowResultDims(args, x, true));
  Shapes result;
  result.emplace_back(x.dtype, out);
  if (argmax) result.emplace_back(args.shape(1).dtype, out);
  return result;
}

absl::StatusOr<Shapes> SelectAndScatterShape(const ShapeRuleArgs& args) {
  TXLA_RETURN_IF_ERROR(args.ExpectNumOperands(2));
  TXLA_ASSIGN_OR_RETURN(const std::string* kind, args.Get<std::string>("kind"));
  if (*kind != "max" && *kind != "min") {
    return args.Error(
        absl::StrCat("kind '", *kind, "' is not one of max, min"));
  }
  const Shape& operand = args.shape(0);
  const Shape& source = args.shape(1);
  if (operand.dtype == DType::kBool || source.dtype != operand.dtype) {
    return args.Error(absl::StrCat(
        "operand ", operand.ToString(), " and source ", source.ToString(),
        " must have one numeric element type"));
  }
  TXLA_ASSIGN_OR_RETURN(Dims out, WindowResultDims(args, operand, false));
  if (out != source.dims) {
    return args.Error(absl::StrCat(
        "source ", source.ToString(), " must have the window result dims ",
        DimsToString(out), " of operand ", operand.ToString()));
  }
  return SingleShape(operand);
}

}  // namespace

absl::Status RegisterWindowShapeRules(ShapeRuleTable* table) {
  TXLA_RETURN_IF_ERROR(
      table->Register(OpKind::kReduceWindow, &ReduceWindowShape));
  TXLA_RETURN_IF_ERROR(
      table->Register(OpKind::kSelectAndScatter, &SelectAndScatterShape));
  return absl::OkStatus();
}

}  // namespace torch_xla
