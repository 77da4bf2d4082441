#include "torch_xla/csrc/ir/data.h"

#include <atomic>

namespace torch_xla {
namespace {

int64_t NextDataId() {
  static std::atomic<int64_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}

}  // namespace

Data::Data(Shape shape, DataKind kind)
    : id_(NextDataId()), shape_(std::move(shape)), kind_(kind) {}

}  // namespace torch_xla
