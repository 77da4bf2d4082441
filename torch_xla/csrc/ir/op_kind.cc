#include "torch_xla/csrc/ir/op_kind.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace torch_xla {
namespace {

constexpr absl::string_view kOpKindNames[kNumOpKinds] = {
#define TORCH_XLA_OP_KIND_NAME(e, name) name,
    TORCH_XLA_FOR_EACH_OP_KIND(TORCH_XLA_OP_KIND_NAME)
#undef TORCH_XLA_OP_KIND_NAME
};

}  // namespace

absl::string_view OpKindName(OpKind kind) {
  return kOpKindNames[OpKindIndex(kind)];
}

absl::StatusOr<OpKind> OpKindFromName(absl::string_view name) {
  for (int i = 0; i < kNumOpKinds; ++i) {
    if (kOpKindNames[i] == name) return static_cast<OpKind>(i);
  }
  return absl::InvalidArgumentError(
      absl::StrCat("unknown op kind '", name, "'"));
}

}  // namespace torch_xla
