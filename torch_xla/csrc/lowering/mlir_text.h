#ifndef TORCH_XLA_CSRC_LOWERING_MLIR_TEXT_H_
#define TORCH_XLA_CSRC_LOWERING_MLIR_TEXT_H_

// Spelling of MLIR / StableHLO attribute values as text. Pure functions.

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "torch_xla/csrc/ir/attrs.h"
#include "torch_xla/csrc/ir/float_bits.h"
#include "torch_xla/csrc/ir/shape.h"

namespace torch_xla {

// "array<i64: 1, 0>" (DenseI64ArrayAttr; "array<i64>" when empty).
std::string I64Array(absl::Span<const int64_t> values);
// Appends "field = array<i64: ..>" to `fields` unless `values` is null or
// every value equals `trivial` (an attribute left at its default).
void AppendI64ArrayField(absl::string_view field,
                         const std::vector<int64_t>* values, int64_t trivial,
                         std::vector<std::string>* fields);
// "[1, 0]" (the lists inside #stablehlo.dot / gather / scatter).
std::string I64List(absl::Span<const int64_t> values);

// The scalar of a splat `dense<...>` literal, exact: floats as bit-exact hex
// ("0x3F800000"), integers in decimal (u64 from the int64 bit pattern),
// pred as true/false. `value` is a constant node's "value" attribute.
absl::StatusOr<std::string> SplatLiteral(const AttrValue& value, DType dtype);

// A double-quoted MLIR string literal with escapes.
std::string MlirStringLiteral(absl::string_view s);
// A symbol reference for a module/function name: @name when `name` is a bare
// identifier, else @"quoted name". Empty names become @unnamed.
std::string MlirSymbol(absl::string_view name);

// "(t1, t2) -> t3", "(t) -> (t1, t2)", "() -> t".
std::string FunctionType(absl::Span<const std::string> operand_types,
                         absl::Span<const std::string> result_types);

}  // namespace torch_xla

#endif  // TORCH_XLA_CSRC_LOWERING_MLIR_TEXT_H_
