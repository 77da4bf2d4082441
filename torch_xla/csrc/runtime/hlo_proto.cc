#include "torch_xla/csrc/runtime/hlo_proto.h"

#include <charconv>
#include <cmath>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "torch_xla/csrc/runtime/proto_reader.h"

namespace torch_xla::runtime::hlo {
namespace {

#define HLO_RETURN_IF_ERROR(expr)            \
  do {                                       \
    absl::Status status_ = (expr);           \
    if (!status_.ok()) return status_;       \
  } while (0)

// Calls `visit(field)` for each field of `bytes`, a message named `what`.
template <typename Visit>
absl::Status ForEachField(absl::string_view bytes, absl::string_view what,
                          Visit visit) {
  ProtoReader reader(bytes, what);
  while (!reader.done()) {
    absl::StatusOr<ProtoField> field = reader.Next();
    if (!field.ok()) return field.status();
    HLO_RETURN_IF_ERROR(visit(*field));
  }
  return absl::OkStatus();
}

std::string String(const ProtoField& f) { return std::string(f.bytes); }
int64_t Int(const ProtoField& f) { return static_cast<int64_t>(f.varint); }

absl::Status ParseLayout(absl::string_view bytes, ShapeProto* shape) {
  shape->has_layout = true;
  return ForEachField(bytes, "LayoutProto", [&](const ProtoField& f) {
    if (f.number == 1) return AppendProtoInts(f, &shape->minor_to_major);
    if (f.number == 8) shape->memory_space = Int(f);
    return absl::OkStatus();
  });
}

absl::Status ParseShape(absl::string_view bytes, ShapeProto* shape) {
  return ForEachField(bytes, "ShapeProto", [&](const ProtoField& f) {
    switch (f.number) {
      case 2: shape->element_type = Int(f); break;
      case 3: return AppendProtoInts(f, &shape->dimensions);
      case 4:
        shape->tuple_shapes.emplace_back();
        return ParseShape(f.bytes, &shape->tuple_shapes.back());
      case 5: return ParseLayout(f.bytes, shape);
      case 6: {
        std::vector<int64_t> flags;
        HLO_RETURN_IF_ERROR(AppendProtoInts(f, &flags));
        for (int64_t flag : flags) {
          shape->is_dynamic_dimension.push_back(flag != 0);
        }
        break;
      }
      default: break;
    }
    return absl::OkStatus();
  });
}

std::string FloatText(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value < 0 ? "-inf" : "inf";
  char buffer[64];
  auto result = std::to_chars(buffer, buffer + sizeof(buffer), value);
  return std::string(buffer, result.ptr);
}

std::string Float32Text(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof(value));
  if (std::isnan(value) || std::isinf(value)) return FloatText(value);
  char buffer[64];
  auto result = std::to_chars(buffer, buffer + sizeof(buffer), value);
  return std::string(buffer, result.ptr);
}

// IEEE half to float.
float HalfToFloat(uint16_t h) {
  const int sign = (h >> 15) & 1, exponent = (h >> 10) & 0x1f;
  const int mantissa = h & 0x3ff;
  float value;
  if (exponent == 0) {
    value = std::ldexp(static_cast<float>(mantissa), -24);
  } else if (exponent == 31) {
    value = mantissa == 0 ? INFINITY : NAN;
  } else {
    value = std::ldexp(static_cast<float>(mantissa | 0x400), exponent - 25);
  }
  return sign ? -value : value;
}

// Little-endian 16-bit values of a bytes field.
std::vector<uint16_t> Halves(absl::string_view bytes) {
  std::vector<uint16_t> out;
  for (size_t i = 0; i + 1 < bytes.size(); i += 2) {
    out.push_back(static_cast<uint16_t>(static_cast<uint8_t>(bytes[i]) |
                                        (static_cast<uint8_t>(bytes[i + 1])
                                         << 8)));
  }
  return out;
}

absl::Status ParseLiteral(absl::string_view bytes, LiteralProto* literal) {
  return ForEachField(bytes, "LiteralProto", [&](const ProtoField& f) {
    std::vector<std::string>& values = literal->values;
    std::vector<int64_t> ints;
    std::vector<uint64_t> bits;
    switch (f.number) {
      case 1: return ParseShape(f.bytes, &literal->shape);
      case 2:  // preds
        HLO_RETURN_IF_ERROR(AppendProtoInts(f, &ints));
        for (int64_t v : ints) values.push_back(v ? "true" : "false");
        break;
      case 3:  // u8s
        for (char c : f.bytes) {
          values.push_back(absl::StrCat(static_cast<uint8_t>(c)));
        }
        break;
      case 15:  // s8s
        for (char c : f.bytes) {
          values.push_back(absl::StrCat(static_cast<int8_t>(c)));
        }
        break;
      case 4:  // s32s
      case 5:  // s64s
        HLO_RETURN_IF_ERROR(AppendProtoInts(f, &ints));
        for (int64_t v : ints) {
          values.push_back(absl::StrCat(f.number == 4 ? static_cast<int32_t>(v)
                                                      : v));
        }
        break;
      case 6:  // u32s
      case 7:  // u64s
        HLO_RETURN_IF_ERROR(AppendProtoInts(f, &ints));
        for (int64_t v : ints) {
          values.push_back(absl::StrCat(static_cast<uint64_t>(v)));
        }
        break;
      case 8:  // f32s
        HLO_RETURN_IF_ERROR(AppendProtoFixed(f, 4, &bits));
        for (uint64_t b : bits) {
          values.push_back(Float32Text(static_cast<uint32_t>(b)));
        }
        break;
      case 9:  // f64s
        HLO_RETURN_IF_ERROR(AppendProtoFixed(f, 8, &bits));
        for (uint64_t b : bits) {
          double v;
          std::memcpy(&v, &b, sizeof(v));
          values.push_back(FloatText(v));
        }
        break;
      case 10:
        literal->tuple_literals.emplace_back();
        return ParseLiteral(f.bytes, &literal->tuple_literals.back());
      case 11:  // f16s
        for (uint16_t h : Halves(f.bytes)) {
          values.push_back(FloatText(HalfToFloat(h)));
        }
        break;
      case 13:  // bf16s
        for (uint16_t h : Halves(f.bytes)) {
          values.push_back(Float32Text(static_cast<uint32_t>(h) << 16));
        }
        break;
      case 16:  // u16s
        for (uint16_t h : Halves(f.bytes)) values.push_back(absl::StrCat(h));
        break;
      case 17:  // s16s
        for (uint16_t h : Halves(f.bytes)) {
          values.push_back(absl::StrCat(static_cast<int16_t>(h)));
        }
        break;
      default:
        // Complex, fp8, sub-byte and sparse literals are not decoded.
        if (f.number > 1) literal->unprinted = true;
        break;
    }
    return absl::OkStatus();
  });
}

absl::Status ParseWindow(absl::string_view bytes, InstructionProto* instr) {
  return ForEachField(bytes, "Window", [&](const ProtoField& f) {
    if (f.number != 1) return absl::OkStatus();
    WindowDimension d;
    d.stride = d.window_dilation = d.base_dilation = 0;  // proto3 defaults
    HLO_RETURN_IF_ERROR(
        ForEachField(f.bytes, "WindowDimension", [&](const ProtoField& g) {
          switch (g.number) {
            case 1: d.size = Int(g); break;
            case 2: d.stride = Int(g); break;
            case 3: d.padding_low = Int(g); break;
            case 4: d.padding_high = Int(g); break;
            case 5: d.window_dilation = Int(g); break;
            case 6: d.base_dilation = Int(g); break;
            case 7: d.window_reversal = g.varint != 0; break;
            default: break;
          }
          return absl::OkStatus();
        }));
    instr->window.push_back(d);
    return absl::OkStatus();
  });
}

absl::Status ParseConvolution(absl::string_view bytes,
                              ConvolutionDimensions* c) {
  return ForEachField(bytes, "ConvolutionDimensionNumbers",
                      [&](const ProtoField& f) {
                        switch (f.number) {
                          case 3: c->kernel_input_feature = Int(f); break;
                          case 4: c->kernel_output_feature = Int(f); break;
                          case 6: return AppendProtoInts(f, &c->kernel_spatial);
                          case 7: c->input_batch = Int(f); break;
                          case 8: c->input_feature = Int(f); break;
                          case 9: c->output_batch = Int(f); break;
                          case 10: c->output_feature = Int(f); break;
                          case 11: return AppendProtoInts(f, &c->input_spatial);
                          case 12:
                            return AppendProtoInts(f, &c->output_spatial);
                          default: break;
                        }
                        return absl::OkStatus();
                      });
}

// A message of repeated integer fields (dot, gather, scatter dimension
// numbers), kept as named lists in `names` order by field number (1-based;
// an empty name skips the field); `scalar_field` is the one singular
// integer field (index_vector_dim), or 0.
absl::Status ParseIntLists(absl::string_view bytes, absl::string_view what,
                           const std::vector<std::string>& names,
                           int scalar_field, InstructionProto* instr) {
  std::vector<std::vector<int64_t>> lists(names.size());
  HLO_RETURN_IF_ERROR(ForEachField(bytes, what, [&](const ProtoField& f) {
    if (f.number == scalar_field) {
      instr->index_vector_dim = Int(f);
    } else if (f.number >= 1 && f.number <= static_cast<int>(names.size())) {
      return AppendProtoInts(f, &lists[f.number - 1]);
    }
    return absl::OkStatus();
  }));
  for (size_t i = 0; i < names.size(); ++i) {
    if (!names[i].empty()) instr->int_lists.emplace_back(names[i], lists[i]);
  }
  return absl::OkStatus();
}

absl::Status ParseReplicaGroup(absl::string_view bytes,
                               InstructionProto* instr) {
  instr->replica_groups.emplace_back();
  return ForEachField(bytes, "ReplicaGroup", [&](const ProtoField& f) {
    if (f.number != 1) return absl::OkStatus();
    return AppendProtoInts(f, &instr->replica_groups.back());
  });
}

absl::Status ParseDeviceList(absl::string_view bytes,
                             InstructionProto* instr) {
  return ForEachField(bytes, "CollectiveDeviceListProto",
                      [&](const ProtoField& f) -> absl::Status {
    if (f.number == 1) return ParseReplicaGroup(f.bytes, instr);
    if (f.number != 2) return absl::OkStatus();
    instr->iota_groups.assign(2, 0);
    return ForEachField(f.bytes, "IotaReplicaGroupListProto",
                        [&](const ProtoField& g) {
      if (g.number == 1 || g.number == 2) {
        instr->iota_groups[g.number - 1] = Int(g);
      }
      if (g.number == 3) return AppendProtoInts(g, &instr->iota_reshape);
      if (g.number == 4) return AppendProtoInts(g, &instr->iota_perm);
      return absl::OkStatus();
    });
  });
}

absl::Status ParseInstruction(absl::string_view bytes, InstructionProto* in) {
  return ForEachField(bytes, "HloInstructionProto", [&](const ProtoField& f)
                                                        -> absl::Status {
    switch (f.number) {
      case 1: in->name = String(f); break;
      case 2: in->opcode = String(f); break;
      case 3: return ParseShape(f.bytes, &in->shape);
      case 7:
        return ForEachField(f.bytes, "OpMetadata", [&](const ProtoField& g) {
          if (g.number == 1) in->op_type = String(g);
          if (g.number == 2) in->op_name = String(g);
          if (g.number == 3) in->source_file = String(g);
          if (g.number == 4) in->source_line = Int(g);
          return absl::OkStatus();
        });
      case 8:
        in->has_literal = true;
        return ParseLiteral(f.bytes, &in->literal);
      case 9: in->parameter_number = Int(f); break;
      case 11: in->fusion_kind = String(f); break;
      case 13: in->tuple_index = Int(f); break;
      case 14: return AppendProtoInts(f, &in->dimensions);
      case 15: return ParseWindow(f.bytes, in);
      case 16:
        in->has_convolution_dimensions = true;
        return ParseConvolution(f.bytes, &in->convolution_dimensions);
      case 17: {
        SliceDimension s;
        s.stride = 0;  // proto3 default
        HLO_RETURN_IF_ERROR(
            ForEachField(f.bytes, "SliceDimensions", [&](const ProtoField& g) {
              if (g.number == 1) s.start = Int(g);
              if (g.number == 2) s.limit = Int(g);
              if (g.number == 3) s.stride = Int(g);
              return absl::OkStatus();
            }));
        in->slice_dimensions.push_back(s);
        break;
      }
      case 18: in->exponent_bits = Int(f); break;
      case 19: in->mantissa_bits = Int(f); break;
      case 20: return AppendProtoInts(f, &in->dynamic_slice_sizes);
      case 21:
        return ForEachField(f.bytes, "PaddingConfig", [&](const ProtoField& g) {
          if (g.number != 1) return absl::OkStatus();
          std::vector<int64_t> d(3, 0);
          in->padding.push_back(d);
          return ForEachField(g.bytes, "PaddingConfigDimension",
                              [&](const ProtoField& h) {
                                if (h.number >= 1 && h.number <= 3) {
                                  in->padding.back()[h.number - 1] = Int(h);
                                }
                                return absl::OkStatus();
                              });
        });
      case 23: in->distribution = Int(f); break;
      case 26: in->channel_id = Int(f); break;
      case 28: in->custom_call_target = String(f); break;
      case 30:
        return ParseIntLists(f.bytes, "DotDimensionNumbers",
                             {"lhs_contracting_dims", "rhs_contracting_dims",
                              "lhs_batch_dims", "rhs_batch_dims"},
                             0, in);
      case 33:
        return ParseIntLists(f.bytes, "GatherDimensionNumbers",
                             {"offset_dims", "collapsed_slice_dims",
                              "start_index_map", "", "operand_batching_dims",
                              "start_indices_batching_dims"},
                             4, in);
      case 34: {
        std::vector<int64_t> sizes;
        HLO_RETURN_IF_ERROR(AppendProtoInts(f, &sizes));
        in->int_lists.emplace_back("slice_sizes", sizes);
        break;
      }
      case 35: in->id = Int(f); break;
      case 36: return AppendProtoInts(f, &in->operand_ids);
      case 38: return AppendProtoInts(f, &in->called_computation_ids);
      case 43: in->backend_config = String(f); break;
      case 48:
        return ParseIntLists(f.bytes, "ScatterDimensionNumbers",
                             {"update_window_dims", "inserted_window_dims",
                              "scatter_dims_to_operand_dims", "",
                              "input_batching_dims",
                              "scatter_indices_batching_dims"},
                             4, in);
      case 49: return ParseReplicaGroup(f.bytes, in);
      case 50: in->feature_group_count = Int(f); break;
      case 52: {
        std::pair<int64_t, int64_t> pair{0, 0};
        HLO_RETURN_IF_ERROR(
            ForEachField(f.bytes, "SourceTarget", [&](const ProtoField& g) {
              if (g.number == 1) pair.first = Int(g);
              if (g.number == 2) pair.second = Int(g);
              return absl::OkStatus();
            }));
        in->source_target_pairs.push_back(pair);
        break;
      }
      case 58: in->batch_group_count = Int(f); break;
      case 60: in->is_stable = f.varint != 0; break;
      case 63: in->comparison_direction = String(f); break;
      case 67: in->indices_are_sorted = f.varint != 0; break;
      case 69: in->unique_indices = f.varint != 0; break;
      case 70: in->rng_algorithm = Int(f); break;
      case 71: in->use_global_device_ids = f.varint != 0; break;
      case 87: return ParseDeviceList(f.bytes, in);
      default: break;
    }
    return absl::OkStatus();
  });
}

absl::Status ParseComputation(absl::string_view bytes, ComputationProto* c) {
  return ForEachField(bytes, "HloComputationProto", [&](const ProtoField& f) {
    switch (f.number) {
      case 1: c->name = String(f); break;
      case 2:
        c->instructions.emplace_back();
        return ParseInstruction(f.bytes, &c->instructions.back());
      case 5: c->id = Int(f); break;
      case 6: c->root_id = Int(f); break;
      default: break;
    }
    return absl::OkStatus();
  });
}

absl::Status ParseAliases(absl::string_view bytes, ModuleProto* module) {
  return ForEachField(bytes, "HloInputOutputAliasProto",
                      [&](const ProtoField& f) {
    if (f.number != 1) return absl::OkStatus();
    module->aliases.emplace_back();
    AliasEntry& e = module->aliases.back();
    return ForEachField(f.bytes, "AliasEntryProto", [&](const ProtoField& g) {
      if (g.number == 1) return AppendProtoInts(g, &e.output_index);
      if (g.number == 2) e.parameter_number = Int(g);
      if (g.number == 3) return AppendProtoInts(g, &e.parameter_index);
      if (g.number == 4) e.kind = Int(g);
      return absl::OkStatus();
    });
  });
}

absl::Status ParseDonors(absl::string_view bytes, ModuleProto* module) {
  return ForEachField(bytes, "HloBufferDonorProto", [&](const ProtoField& f) {
    if (f.number != 1) return absl::OkStatus();
    module->buffer_donors.emplace_back();
    auto& donor = module->buffer_donors.back();
    donor.first = 0;
    return ForEachField(f.bytes, "BufferDonorEntryProto",
                        [&](const ProtoField& g) {
      if (g.number == 1) donor.first = Int(g);
      if (g.number == 2) return AppendProtoInts(g, &donor.second);
      return absl::OkStatus();
    });
  });
}

}  // namespace

absl::StatusOr<ModuleProto> ParseModule(absl::string_view proto) {
  ModuleProto module;
  HLO_RETURN_IF_ERROR(ForEachField(proto, "HloModuleProto",
                                   [&](const ProtoField& f) -> absl::Status {
    switch (f.number) {
      case 1: module.name = String(f); break;
      case 2: module.entry_computation_name = String(f); break;
      case 3:
        module.computations.emplace_back();
        return ParseComputation(f.bytes, &module.computations.back());
      case 4:
        module.has_host_program_shape = true;
        return ForEachField(f.bytes, "ProgramShapeProto",
                            [&](const ProtoField& g) {
          if (g.number == 1) {
            module.entry_parameters.emplace_back();
            return ParseShape(g.bytes, &module.entry_parameters.back());
          }
          if (g.number == 2) return ParseShape(g.bytes, &module.entry_result);
          return absl::OkStatus();
        });
      case 6: module.entry_computation_id = Int(f); break;
      case 7: module.is_scheduled = true; break;
      case 8: return ParseAliases(f.bytes, &module);
      case 18: return ParseDonors(f.bytes, &module);
      default: break;
    }
    return absl::OkStatus();
  }));
  return module;
}

}  // namespace torch_xla::runtime::hlo
