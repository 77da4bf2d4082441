#ifndef TORCH_XLA_CSRC_RUNTIME_XLA_FLAGS_H_
#define TORCH_XLA_CSRC_RUNTIME_XLA_FLAGS_H_

// XLA_FLAGS: the flags of the XLA inside the plugin, which it reads once,
// at the latest when it first compiles, so they are set before the client
// exists. What we add never overrides a flag the user set there.

#include <string>

#include "absl/strings/string_view.h"

namespace torch_xla::runtime {

// `xla_flags` (XLA_FLAGS, or null) with `--<name>=<value>` appended, unless
// it already sets --<name>.
std::string WithXlaFlag(const char* xla_flags, absl::string_view name,
                        absl::string_view value);

// XLA_FLAGS becomes WithXlaFlag(XLA_FLAGS, name, value).
void AddXlaFlag(absl::string_view name, absl::string_view value);

// Eager's NaN semantics on the CPU backend. XLA CPU's fast min/max (on by
// default) returns the first operand when the second is NaN, so
// torch.maximum(1, nan) gave 1 where eager (and JAX, which turns it off
// too) gives nan. Idempotent.
void ApplyCpuNanSemantics();

}  // namespace torch_xla::runtime

#endif  // TORCH_XLA_CSRC_RUNTIME_XLA_FLAGS_H_
