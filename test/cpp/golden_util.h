#ifndef TORCH_XLA_TEST_CPP_GOLDEN_UTIL_H_
#define TORCH_XLA_TEST_CPP_GOLDEN_UTIL_H_

// Lowering tests: lowering values to text and golden-file comparison.
//
// Goldens live in test/cpp/testdata/. They are found under Bazel through the
// runfiles tree (TEST_SRCDIR / TEST_WORKSPACE), by hand through
// $TORCH_XLA_TESTDATA, else by looking for test/cpp/testdata from the
// current directory upwards, else next to this source file.
//
// TORCH_XLA_UPDATE_GOLDENS=1 rewrites the goldens instead of comparing
// (into $TORCH_XLA_TESTDATA when set; see scripts/update_goldens.sh).
// TORCH_XLA_MLIR_CHECK=<path to mlir_check> also compiles every text with
// the real CPU plugin and expects "OK".

#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "torch_xla/csrc/ir/node.h"

namespace torch_xla {
namespace testing {

// The StableHLO text of a module `name` returning `results` (fails the
// current gtest and returns "" when lowering fails).
std::string Lower(const std::string& name, std::vector<Value> results);

// Renumbers SSA names in order of first appearance: function arguments
// (%argN) as %arg0, %arg1, ...; every other name as %0, %1, ...
std::string NormalizeSsaNames(absl::string_view text);

// The directory holding the goldens ("" if none is found).
std::string TestDataDir();

// With $TORCH_XLA_MLIR_CHECK set, compiles `text` with that tool and expects
// it to print "OK"; otherwise does nothing.
void ExpectMlirCheckOk(absl::string_view text, absl::string_view name);

// Compares normalized `actual` with the golden `name` (e.g. "dot.mlir"),
// failing the current gtest on a difference; or rewrites it (see above).
void ExpectMatchesGolden(absl::string_view actual, absl::string_view name);

}  // namespace testing
}  // namespace torch_xla

#endif  // TORCH_XLA_TEST_CPP_GOLDEN_UTIL_H_
