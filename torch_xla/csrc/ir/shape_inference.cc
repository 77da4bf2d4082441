#include "torch_xla/csrc/ir/shape_inference.h"

#include <cstdio>
#include <cstdlib>

#include "absl/strings/str_join.h"
#include "torch_xla/csrc/ir/status_macros.h"

namespace torch_xla {

absl::Status ShapeRuleArgs::ExpectNumOperands(size_t n) const {
  if (operands_.size() == n) return absl::OkStatus();
  return Error(absl::StrCat("expected ", n, " operand", n == 1 ? "" : "s",
                            ", got ", operands_.size(), " (",
                            OperandShapes(), ")"));
}

std::string ShapeRuleArgs::OperandShapes() const {
  std::string out;
  for (size_t i = 0; i < operands_.size(); ++i) {
    absl::StrAppend(&out, i == 0 ? "" : ", ", shape(i).ToString());
  }
  return out;
}

namespace {

absl::Status RegisterAll(ShapeRuleTable* table) {
  TXLA_RETURN_IF_ERROR(RegisterLeafShapeRules(table));
  TXLA_RETURN_IF_ERROR(RegisterElementwiseShapeRules(table));
  TXLA_RETURN_IF_ERROR(RegisterDataMovementShapeRules(table));
  TXLA_RETURN_IF_ERROR(RegisterReduceShapeRules(table));
  TXLA_RETURN_IF_ERROR(RegisterDotShapeRules(table));
  TXLA_RETURN_IF_ERROR(RegisterGatherScatterShapeRules(table));
  TXLA_RETURN_IF_ERROR(RegisterControlShapeRules(table));
  TXLA_RETURN_IF_ERROR(RegisterRandomShapeRules(table));
  TXLA_RETURN_IF_ERROR(RegisterSortShapeRules(table));
  TXLA_RETURN_IF_ERROR(RegisterConvolutionShapeRules(table));
  TXLA_RETURN_IF_ERROR(RegisterWindowShapeRules(table));
  TXLA_RETURN_IF_ERROR(RegisterCallShapeRules(table));
  TXLA_RETURN_IF_ERROR(RegisterCollectiveShapeRules(table));
  return absl::OkStatus();
}

}  // namespace

const ShapeRuleTable& DefaultShapeRules() {
  static const ShapeRuleTable* const table = [] {
    auto* t = new ShapeRuleTable();
    absl::Status status = RegisterAll(t);
    if (!status.ok()) {
      // A broken built-in table is a programming error.
      std::fprintf(stderr, "torch_xla: building the shape rule table: %s\n",
                   std::string(status.message()).c_str());
      std::abort();
    }
    return t;
  }();
  return *table;
}

std::string DimsToString(absl::Span<const int64_t> dims) {
  return absl::StrCat("[", absl::StrJoin(dims, ","), "]");
}

absl::Status CheckDimIndices(const ShapeRuleArgs& args, absl::string_view what,
                             absl::Span<const int64_t> dims, int64_t rank,
                             absl::string_view owner,
                             const Shape* owner_shape) {
  uint64_t seen_small = 0;
  for (size_t i = 0; i < dims.size(); ++i) {
    int64_t d = dims[i];
    if (d < 0 || d >= rank) {
      return args.Error(absl::StrCat(
          what, " ", DimsToString(dims), ": dimension ", d,
          " is out of range for ", owner,
          owner_shape ? absl::StrCat(" ", owner_shape->ToString()) : "",
          " of rank ", rank));
    }
    bool repeated = false;
    if (d < 64) {
      repeated = (seen_small >> d) & 1;
      seen_small |= uint64_t{1} << d;
    } else {
      for (size_t j = 0; j < i; ++j) repeated |= dims[j] == d;
    }
    if (repeated) {
      return args.Error(absl::StrCat(what, " ", DimsToString(dims),
                                     ": dimension ", d, " is repeated"));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<DType> ContractionDType(const ShapeRuleArgs& args,
                                       DType operands,
                                       const DType* preferred) {
  if (preferred == nullptr) return operands;
  if (IsFloating(*preferred) != IsFloating(operands) ||
      *preferred == DType::kBool) {
    return args.Error(absl::StrCat(
        "preferred element type ", DTypeName(*preferred),
        " must be of the operands' kind (", DTypeName(operands), ")"));
  }
  return *preferred;
}

absl::Status CheckDimSizes(const ShapeRuleArgs& args, absl::string_view what,
                           absl::Span<const int64_t> dims) {
  for (int64_t d : dims) {
    if (d < 0) {
      return args.Error(absl::StrCat(what, " ", DimsToString(dims),
                                     ": sizes must be >= 0"));
    }
  }
  return absl::OkStatus();
}

}  // namespace torch_xla
