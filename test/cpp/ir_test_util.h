#ifndef TORCH_XLA_TEST_CPP_IR_TEST_UTIL_H_
#define TORCH_XLA_TEST_CPP_IR_TEST_UTIL_H_

// Small helpers for IR and lowering tests.

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "torch_xla/csrc/ir/builder.h"
#include "torch_xla/csrc/ir/data.h"
#include "torch_xla/csrc/ir/node.h"

namespace torch_xla {
namespace testing {

// A fresh device-data leaf (a new Data id each call).
inline DataPtr NewData(DType dtype, std::vector<int64_t> dims,
                       DataKind kind = DataKind::kDevice) {
  return std::make_shared<Data>(Shape(dtype, std::move(dims)), kind);
}

inline NodePtr Leaf(DType dtype, std::vector<int64_t> dims) {
  return MakeDataNode(NewData(dtype, std::move(dims)));
}

// Unwraps a builder result; a failure here is a bug in the test itself.
template <typename T>
T Ok(absl::StatusOr<T> result) {
  if (!result.ok()) {
    std::fprintf(stderr, "unexpected error: %s\n",
                 std::string(result.status().message()).c_str());
    std::abort();
  }
  return *std::move(result);
}

inline NodePtr Make(OpKind kind, std::vector<Value> operands,
                    Attrs attrs = Attrs()) {
  return Ok(MakeNode(kind, std::move(operands), std::move(attrs)));
}

// a @ b for matrices.
inline NodePtr Matmul(Value a, Value b) {
  return Make(OpKind::kDotGeneral, {std::move(a), std::move(b)},
              Attrs()
                  .Set("lhs_contract", std::vector<int64_t>{1})
                  .Set("rhs_contract", std::vector<int64_t>{0}));
}

// The transpose of a matrix.
inline NodePtr Transpose(Value x) {
  return Make(OpKind::kTranspose, {std::move(x)},
              Attrs().Set("permutation", std::vector<int64_t>{1, 0}));
}

// Whether `text` contains `part` (for checks on lowered or printed text).
inline bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace testing
}  // namespace torch_xla

#endif  // TORCH_XLA_TEST_CPP_IR_TEST_UTIL_H_
