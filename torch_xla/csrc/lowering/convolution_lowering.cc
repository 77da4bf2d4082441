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

Dims LayoutOr(const Node& node, absl::string_view name, int64_t rank,
              bool swap_first) {
  if (const auto* dims = node.attrs().FindAs<Dims>(name)) return *dims;
  Dims dims(rank);
  for (int64_t i = 0; i < rank; ++i) dims[i] = i;
  if (swap_first) std::swap(dims[0], dims[1]);
  return dims;
}

// "padding = dense<[[lo, hi], ...]> : tensor<Sx2xi64>" unless all zero.
void AddPadding(const Node& node, int64_t spatial,
                std::vector<std::string>* fields) {
  const Dims* lo = node.attrs().FindAs<Dims>("pad_lo");
  const Dims* hi = node.attrs().FindAs<Dims>("pad_hi");
  std::vector<std::string> pairs;
  bool any = false;
  for (int64_t i = 0; i < spatial; ++i) {
    const int64_t l = lo ? (*lo)[i] : 0, h = hi ? (*hi)[i] : 0;
    any |= l != 0 || h != 0;
    pairs.push_back(absl::StrCat("[", l, ", ", h, "]"));
  }
  if (!any) return;
  fields->push_back(absl::StrCat("padding = dense<[", absl::StrJoin(pairs, ", "),
                                 "]> : tensor<", spatial, "x2xi64>"));
}

absl::Status LowerConvolution(const Node& node, MlirEmitter& e) {
  const int64_t rank = node.operand(0).shape().rank();
  const int64_t* fg = node.attrs().FindAs<int64_t>("feature_groups");
  const int64_t* bg = node.attrs().FindAs<int64_t>("batch_groups");
  std::vector<std::string> f;
  f.push_back(absl::StrCat("batch_group_count = ", bg ? *bg : 1, " : i64"));
  f.push_back(absl::StrCat(
      "dimension_numbers = #stablehlo.conv<",
      Layout(LayoutOr(node, "lhs_dims", rank, false), 'b', 'f'), "x",
      Layout(LayoutOr(node, "rhs_dims", rank, true), 'i', 'o'), "->",
      Layout(LayoutOr(node, "out_dims", rank, false), 'b', 'f'), ">"));
  f.push_back(absl::StrCat("feature_group_count = ", fg ? *fg : 1, " : i64"));
  AppendI64ArrayField("lhs_dilation",
                      node.attrs().FindAs<Dims>("lhs_dilation"), 1, &f);
  AddPadding(node, rank - 2, &f);
  if (const auto* precision = node.attrs().FindAs<std::string>("precision")) {
    f.push_back(absl::StrCat("precision_config = [#stablehlo<precision ",
                             *precision, ">, #stablehlo<precision ",
                             *precision, ">]"));
  }
  AppendI64ArrayField("rhs_dilation",
                      node.attrs().FindAs<Dims>("rhs_dilation"), 1, &f);
  AppendI64ArrayField("window_strides",
                      node.attrs().FindAs<Dims>("strides"), 1, &f);
  e.EmitNodeOp(node, "stablehlo.convolution",
               absl::StrCat("{", absl::StrJoin(f, ", "), "}"));
  return absl::OkStatus();
}

}  // namespace

absl::Status RegisterConvolutionLowerings(LowerRuleTable* table) {
  return table->Register(OpKind::kConvolution, &LowerConvolution);
}

}  // namespace torch_xla
