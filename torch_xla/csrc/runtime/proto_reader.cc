#include "torch_xla/csrc/runtime/proto_reader.h"

#include "absl/strings/str_cat.h"

namespace torch_xla::runtime {

absl::StatusOr<ProtoField> ProtoReader::Next() {
  ProtoField field;
  uint64_t key;
  if (!Varint(&key)) return Corrupt();
  field.number = static_cast<int>(key >> 3);
  field.wire = static_cast<int>(key & 7);
  switch (field.wire) {
    case 0:
      if (!Varint(&field.varint)) return Corrupt();
      break;
    case 1:
    case 5: {
      const size_t size = field.wire == 1 ? 8 : 4;
      if (pos_ + size > data_.size()) return Corrupt();
      for (size_t i = 0; i < size; ++i) {
        field.varint |= static_cast<uint64_t>(
                            static_cast<uint8_t>(data_[pos_ + i]))
                        << (8 * i);
      }
      pos_ += size;
      break;
    }
    case 2: {
      uint64_t size;
      if (!Varint(&size) || size > data_.size() - pos_) return Corrupt();
      field.bytes = data_.substr(pos_, size);
      pos_ += size;
      break;
    }
    default:
      return Corrupt();
  }
  return field;
}

bool ProtoReader::Varint(uint64_t* value) {
  *value = 0;
  for (int shift = 0; shift < 64 && pos_ < data_.size(); shift += 7) {
    const uint8_t byte = static_cast<uint8_t>(data_[pos_++]);
    *value |= static_cast<uint64_t>(byte & 0x7f) << shift;
    if (byte < 0x80) return true;
  }
  return false;
}

absl::Status ProtoReader::Corrupt() const {
  return absl::InternalError(absl::StrCat("cannot read ", what_,
                                          ": malformed protobuf at byte ",
                                          pos_, " of ", data_.size()));
}

absl::Status AppendProtoInts(const ProtoField& field,
                             std::vector<int64_t>* out) {
  if (field.wire == 0) {
    out->push_back(static_cast<int64_t>(field.varint));
    return absl::OkStatus();
  }
  if (field.wire != 2) {
    return absl::InternalError(absl::StrCat(
        "protobuf field ", field.number, " should hold integers but has wire "
        "type ", field.wire));
  }
  ProtoReader packed(field.bytes, "packed integers");
  while (!packed.done()) {
    uint64_t v;
    if (!packed.Varint(&v)) {
      return absl::InternalError(absl::StrCat(
          "malformed packed integers in protobuf field ", field.number));
    }
    out->push_back(static_cast<int64_t>(v));
  }
  return absl::OkStatus();
}

absl::Status AppendProtoFixed(const ProtoField& field, int width,
                              std::vector<uint64_t>* out) {
  if (field.wire == (width == 8 ? 1 : 5)) {
    out->push_back(field.varint);
    return absl::OkStatus();
  }
  if (field.wire != 2 || field.bytes.size() % width != 0) {
    return absl::InternalError(absl::StrCat(
        "protobuf field ", field.number, " should hold ", width,
        "-byte values"));
  }
  for (size_t at = 0; at < field.bytes.size(); at += width) {
    uint64_t bits = 0;
    for (int i = 0; i < width; ++i) {
      bits |= static_cast<uint64_t>(static_cast<uint8_t>(field.bytes[at + i]))
              << (8 * i);
    }
    out->push_back(bits);
  }
  return absl::OkStatus();
}

}  // namespace torch_xla::runtime
