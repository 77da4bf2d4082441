#ifndef TORCH_XLA_CSRC_PLACEHOLDER_PLACEHOLDER_H_
#define TORCH_XLA_CSRC_PLACEHOLDER_PLACEHOLDER_H_

// A placeholder: shape and dtype, no buffer, no host bytes. It lowers to a
// computation parameter keyed by its unique data ID like any leaf, never
// allocates, and every attempt to read its value is an error.

#include <memory>

#include "torch_xla/csrc/ir/data.h"

namespace torch_xla {

class PlaceholderData final : public Data {
 public:
  explicit PlaceholderData(Shape shape)
      : Data(std::move(shape), DataKind::kPlaceholder) {}
};

inline DataPtr MakePlaceholder(Shape shape) {
  return std::make_shared<PlaceholderData>(std::move(shape));
}

}  // namespace torch_xla

#endif  // TORCH_XLA_CSRC_PLACEHOLDER_PLACEHOLDER_H_
