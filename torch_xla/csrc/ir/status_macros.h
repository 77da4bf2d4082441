#ifndef TORCH_XLA_CSRC_IR_STATUS_MACROS_H_
#define TORCH_XLA_CSRC_IR_STATUS_MACROS_H_

// Status propagation helpers (Debian's Abseil 20220623 has none public).

#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#define TXLA_RETURN_IF_ERROR(expr)                     \
  do {                                                 \
    ::absl::Status txla_status_ = (expr);              \
    if (!txla_status_.ok()) return txla_status_;       \
  } while (0)

#define TXLA_CONCAT_INNER_(a, b) a##b
#define TXLA_CONCAT_(a, b) TXLA_CONCAT_INNER_(a, b)

// TXLA_ASSIGN_OR_RETURN(auto x, Fn()); / TXLA_ASSIGN_OR_RETURN(x, Fn());
#define TXLA_ASSIGN_OR_RETURN(lhs, expr) \
  TXLA_ASSIGN_OR_RETURN_IMPL_(TXLA_CONCAT_(txla_statusor_, __LINE__), lhs, expr)

#define TXLA_ASSIGN_OR_RETURN_IMPL_(statusor, lhs, expr) \
  auto statusor = (expr);                                \
  if (!statusor.ok()) return std::move(statusor).status(); \
  lhs = std::move(statusor).value()

#endif  // TORCH_XLA_CSRC_IR_STATUS_MACROS_H_
