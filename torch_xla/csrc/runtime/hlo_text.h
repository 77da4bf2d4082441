#ifndef TORCH_XLA_CSRC_RUNTIME_HLO_TEXT_H_
#define TORCH_XLA_CSRC_RUNTIME_HLO_TEXT_H_

// Prints a compiled program in XLA's HLO text syntax, the view upstream's
// _get_xla_tensors_hlo gives. We have no XLA C++ library, only the PJRT C
// API plugin: the program comes from PJRT_Executable_OptimizedProgram as a
// serialized HloModuleProto (hlo_proto.h decodes it) and is printed here:
//
//   HloModule <name>, entry_computation_layout={(f32[2]{0})->f32[2]{0}}
//
//   %fused (param_0: f32[2]) -> f32[2] { ... }
//
//   ENTRY %main.3 (p0.1: f32[2]) -> f32[2] {
//     %p0.1 = f32[2]{0} parameter(0)
//     ROOT %sine.2 = f32[2]{0} sine(f32[2]{0} %p0.1), metadata={...}
//   }
//
// The layout is that of XLA's default text (HloModule::ToString): operands
// with their shapes, signatures without layouts. A debug view: what the
// proto holds, printed faithfully; attributes we do not decode are left
// out (never made up), constants are printed in full up to a few elements.

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace torch_xla::runtime {

// A serialized xla.HloModuleProto as HLO text.
absl::StatusOr<std::string> HloModuleProtoToText(absl::string_view proto);

// A compiled program (Client::OptimizedProgram) as HLO text; `format` is
// "hlo" or "hlo_with_config" (an HloModuleProtoWithConfig around the
// module).
absl::StatusOr<std::string> ProgramToHloText(absl::string_view format,
                                             absl::string_view code);

}  // namespace torch_xla::runtime

#endif  // TORCH_XLA_CSRC_RUNTIME_HLO_TEXT_H_
