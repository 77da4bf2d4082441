#ifndef TORCH_XLA_CSRC_IR_RULE_TABLE_H_
#define TORCH_XLA_CSRC_IR_RULE_TABLE_H_

// {op kind -> rule function} with O(1) lookup; one per rule family (shape
// rules in ir/, lower rules in lowering/). Filled by explicit Register*
// calls; registering a kind twice is an error.

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "torch_xla/csrc/ir/op_kind.h"

namespace torch_xla {

template <typename Fn>
class RuleTable {
 public:
  // `what` names the rule family in errors ("shape rule", "lower rule").
  explicit RuleTable(absl::string_view what) : what_(what) {}

  // InvalidArgument for a null rule, AlreadyExists if the kind has one.
  absl::Status Register(OpKind kind, Fn fn) {
    if (fn == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("null ", what_, " for op '", OpKindName(kind), "'"));
    }
    Fn& slot = fns_[OpKindIndex(kind)];
    if (slot != nullptr) {
      return absl::AlreadyExistsError(absl::StrCat(
          "duplicate ", what_, " for op '", OpKindName(kind), "'"));
    }
    slot = fn;
    return absl::OkStatus();
  }

  // nullptr if none.
  Fn Find(OpKind kind) const { return fns_[OpKindIndex(kind)]; }

 private:
  absl::string_view what_;
  Fn fns_[kNumOpKinds] = {};
};

}  // namespace torch_xla

#endif  // TORCH_XLA_CSRC_IR_RULE_TABLE_H_
