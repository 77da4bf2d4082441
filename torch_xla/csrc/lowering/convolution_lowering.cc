// Lowerings: convolution. Attributes and defaults: ir/convolution_shape_rules.cc.
// Default-valued window attributes are omitted, as StableHLO's printer does;
// dimension numbers use the compact form ([b, f, 0, 1]x[o, i, 0, 1]->...).

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "torch_xla/csrc/ir/status_macros.h"
#include "torch_xla/csrc/lowering/emitter.h"
#include "torch_xla/csrc/lowering/lower_rules.h"
#include "torch_xla/csrc/lowering/mlir_text.h"

namespace torch_xla {
namespace {

using Dims = std::vector<int64_t>;

// "[b, f, 0, 1]": the role of each tensor dim; `dims` lists the dims of the
// two named roles, then the spatial dims in order.
std::string Layout(const Dims& dims, char first, char second) {
  std::vector<std::string> roles(dims.size());
  roles[dims[0]] = std::string(1, first);
  roles[dims[1]] = std::string(1, second);
  for (size_t j = 2; j < dims.size(); ++j) {
    roles[dims[j]] = absl::StrCat(j - 2);
  }
  return absl::StrCat("[", absl::StrJoin(roles, ", "), "]");
}

// The "[b, f, 0, 1]" layout held by dims attribute `name`, by default the
// identity (with its first two dims swapped if `swap_first`).
absl::StatusOr<std::string> LayoutOf(const Node& node, absl::string_view name,
                                     int64_t rank, bool swap_first, char first,
                                     char second) {
  Dims identity(rank);
  for (int64_t i = 0; i < rank; ++i) identity[i] = i;
  if (swap_first) std::swap(identity[0], identity[1]);
  TXLA_ASSIGN_OR_RETURN(Dims dims,
                        node.GetAttrOr<Dims>(name, std::move(identity)));
  return Layout(dims, first, second);
}

// "padding = dense<[[lo, hi], ...]> : tensor<Sx2xi64>" unless all zero.
absl::Status AddPadding(const Node& node, int64_t spatial,
                        std::vector<std::string>* fields) {
  const Dims zeros(spatial, 0);
  TXLA_ASSIGN_OR_RETURN(const Dims lo, node.GetAttrOr<Dims>("pad_lo", zeros));
  TXLA_ASSIGN_OR_RETURN(const Dims hi, node.GetAttrOr<Dims>("pad_hi", zeros));
  std::vector<std::string> pairs;
  bool any = false;
  for (int64_t i = 0; i < spatial; ++i) {
    any |= lo[i] != 0 || hi[i] != 0;
    pairs.push_back(absl::StrCat("[", lo[i], ", ", hi[i], "]"));
  }
  if (any) {
    fields->push_back(absl::StrCat("padding = dense<[",
                                   absl::StrJoin(pairs, ", "), "]> : tensor<",
                                   spatial, "x2xi64>"));
  }
  return absl::OkStatus();
}

absl::Status LowerConvolution(const Node& node, MlirEmitter& e) {
  const int64_t rank = node.operand(0).shape().rank();
  TXLA_ASSIGN_OR_RETURN(int64_t fg,
                        node.GetAttrOr<int64_t>("feature_groups", 1));
  TXLA_ASSIGN_OR_RETURN(int64_t bg, node.GetAttrOr<int64_t>("batch_groups", 1));
  TXLA_ASSIGN_OR_RETURN(std::string lhs,
                        LayoutOf(node, "lhs_dims", rank, false, 'b', 'f'));
  TXLA_ASSIGN_OR_RETURN(std::string rhs,
                        LayoutOf(node, "rhs_dims", rank, true, 'i', 'o'));
  TXLA_ASSIGN_OR_RETURN(std::string out,
                        LayoutOf(node, "out_dims", rank, false, 'b', 'f'));
  TXLA_ASSIGN_OR_RETURN(const Dims* lhs_dilation,
                        node.GetOptionalAttr<Dims>("lhs_dilation"));
  TXLA_ASSIGN_OR_RETURN(const Dims* rhs_dilation,
                        node.GetOptionalAttr<Dims>("rhs_dilation"));
  TXLA_ASSIGN_OR_RETURN(const Dims* strides,
                        node.GetOptionalAttr<Dims>("strides"));
  TXLA_ASSIGN_OR_RETURN(const std::string* precision,
                        node.GetOptionalAttr<std::string>("precision"));
  std::vector<std::string> f;
  f.push_back(absl::StrCat("batch_group_count = ", bg, " : i64"));
  f.push_back(absl::StrCat("dimension_numbers = #stablehlo.conv<", lhs, "x",
                           rhs, "->", out, ">"));
  f.push_back(absl::StrCat("feature_group_count = ", fg, " : i64"));
  AppendI64ArrayField("lhs_dilation", lhs_dilation, 1, &f);
  TXLA_RETURN_IF_ERROR(AddPadding(node, rank - 2, &f));
  if (precision != nullptr) {
    f.push_back(absl::StrCat("precision_config = [#stablehlo<precision ",
                             *precision, ">, #stablehlo<precision ",
                             *precision, ">]"));
  }
  AppendI64ArrayField("rhs_dilation", rhs_dilation, 1, &f);
  AppendI64ArrayField("window_strides", strides, 1, &f);
  e.EmitNodeOp(node, "stablehlo.convolution",
               absl::StrCat("{", absl::StrJoin(f, ", "), "}"));
  return absl::OkStatus();
}

}  // namespace

absl::Status RegisterConvolutionLowerings(LowerRuleTable* table) {
  return table->Register(OpKind::kConvolution, &LowerConvolution);
}

}  // namespace torch_xla
