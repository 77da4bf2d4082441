#include "torch_xla/csrc/lowering/lower_rules.h"

#include <cstdio>
#include <cstdlib>
#include <string>

#include "absl/strings/str_cat.h"
#include "torch_xla/csrc/ir/status_macros.h"

namespace torch_xla {

namespace {

absl::Status RegisterAll(LowerRuleTable* table) {
  TXLA_RETURN_IF_ERROR(RegisterLeafLowerings(table));
  TXLA_RETURN_IF_ERROR(RegisterElementwiseLowerings(table));
  TXLA_RETURN_IF_ERROR(RegisterDataMovementLowerings(table));
  TXLA_RETURN_IF_ERROR(RegisterReduceLowerings(table));
  TXLA_RETURN_IF_ERROR(RegisterDotLowerings(table));
  TXLA_RETURN_IF_ERROR(RegisterGatherScatterLowerings(table));
  TXLA_RETURN_IF_ERROR(RegisterControlLowerings(table));
  TXLA_RETURN_IF_ERROR(RegisterRandomLowerings(table));
  TXLA_RETURN_IF_ERROR(RegisterSortLowerings(table));
  TXLA_RETURN_IF_ERROR(RegisterConvolutionLowerings(table));
  TXLA_RETURN_IF_ERROR(RegisterWindowLowerings(table));
  TXLA_RETURN_IF_ERROR(RegisterCallLowerings(table));
  TXLA_RETURN_IF_ERROR(RegisterCollectiveLowerings(table));
  return absl::OkStatus();
}

}  // namespace

const LowerRuleTable& DefaultLowerRules() {
  static const LowerRuleTable* const table = [] {
    auto* t = new LowerRuleTable();
    absl::Status status = RegisterAll(t);
    if (!status.ok()) {
      std::fprintf(stderr, "torch_xla: building the lower rule table: %s\n",
                   std::string(status.message()).c_str());
      std::abort();
    }
    return t;
  }();
  return *table;
}

}  // namespace torch_xla
