#ifndef TORCH_XLA_CSRC_RUNTIME_PROTO_READER_H_
#define TORCH_XLA_CSRC_RUNTIME_PROTO_READER_H_

// Reads protobuf wire format field by field, for the few XLA messages we
// decode by hand (compiled programs, shardings) instead of depending on
// protobuf. A reader borrows its bytes: fields' `bytes` point into them.

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace torch_xla::runtime {

// One field as it appears on the wire.
struct ProtoField {
  int number = 0;
  // 0 varint, 1 fixed64, 2 length-delimited, 5 fixed32.
  int wire = 0;
  uint64_t varint = 0;      // wire 0; wire 1 and 5: the fixed-width bits
  absl::string_view bytes;  // wire 2
};

class ProtoReader {
 public:
  // `what` names the message in errors ("the compiled program's shardings").
  ProtoReader(absl::string_view data, absl::string_view what)
      : data_(data), what_(what) {}
  bool done() const { return pos_ >= data_.size(); }

  // The next field; an error naming `what` when the bytes are malformed.
  absl::StatusOr<ProtoField> Next();

  // Reads one base-128 varint; false when the bytes end inside it.
  bool Varint(uint64_t* value);

 private:
  absl::Status Corrupt() const;

  absl::string_view data_;
  absl::string_view what_;
  size_t pos_ = 0;
};

// Appends a repeated integer field, packed (wire 2) or not (wire 0).
absl::Status AppendProtoInts(const ProtoField& field,
                             std::vector<int64_t>* out);

// A repeated fixed-width field (float, double), packed or not, as raw
// little-endian bit patterns of `width` bytes (4 or 8).
absl::Status AppendProtoFixed(const ProtoField& field, int width,
                              std::vector<uint64_t>* out);

}  // namespace torch_xla::runtime

#endif  // TORCH_XLA_CSRC_RUNTIME_PROTO_READER_H_
