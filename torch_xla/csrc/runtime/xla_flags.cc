#include "torch_xla/csrc/runtime/xla_flags.h"

#include <cstdlib>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace torch_xla::runtime {

std::string WithXlaFlag(const char* xla_flags, absl::string_view name,
                        absl::string_view value) {
  std::string flags = xla_flags == nullptr ? "" : xla_flags;
  const std::string flag = absl::StrCat("--", name);
  // --<name> or --<name>=...: a flag whose name only starts with it is
  // another flag.
  for (absl::string_view token :
       absl::StrSplit(flags, absl::ByAnyChar(" \t\n"), absl::SkipEmpty())) {
    if (token == flag || absl::StartsWith(token, flag + "=")) return flags;
  }
  return absl::StrCat(flags, flags.empty() ? "" : " ", flag, "=", value);
}

void AddXlaFlag(absl::string_view name, absl::string_view value) {
  const std::string flags = WithXlaFlag(std::getenv("XLA_FLAGS"), name, value);
  setenv("XLA_FLAGS", flags.c_str(), /*overwrite=*/1);
}

void ApplyCpuNanSemantics() {
  AddXlaFlag("xla_cpu_enable_fast_min_max", "false");
}

}  // namespace torch_xla::runtime
