#include "torch_xla/csrc/runtime/hlo_text.h"

#include <map>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "torch_xla/csrc/runtime/hlo_proto.h"
#include "torch_xla/csrc/runtime/proto_reader.h"

namespace torch_xla::runtime {
namespace {

using hlo::ComputationProto;
using hlo::InstructionProto;
using hlo::LiteralProto;
using hlo::ModuleProto;
using hlo::ShapeProto;

// Constants with more elements are printed as {...}.
constexpr size_t kMaxPrintedElements = 16;

// xla.PrimitiveType numbers to their names in HLO text.
std::string ElementTypeName(int64_t type) {
  static const std::map<int64_t, std::string>* names =
      new std::map<int64_t, std::string>{
          {1, "pred"},        {2, "s8"},
          {3, "s16"},         {4, "s32"},
          {5, "s64"},         {6, "u8"},
          {7, "u16"},         {8, "u32"},
          {9, "u64"},         {10, "f16"},
          {11, "f32"},        {12, "f64"},
          {14, "opaque"},     {15, "c64"},
          {16, "bf16"},       {17, "token"},
          {18, "c128"},       {19, "f8e5m2"},
          {20, "f8e4m3fn"},   {21, "s4"},
          {22, "u4"},         {23, "f8e4m3b11fnuz"},
          {24, "f8e5m2fnuz"}, {25, "f8e4m3fnuz"},
          {26, "s2"},         {27, "u2"},
          {28, "f8e4m3"},     {29, "f8e3m4"},
          {30, "s1"},         {31, "u1"},
          {32, "f4e2m1fn"},   {33, "f8e8m0fnu"}};
  auto it = names->find(type);
  if (it != names->end()) return it->second;
  return absl::StrCat("<element type ", type, ">");
}

constexpr int64_t kTuple = 13;

std::string ShapeText(const ShapeProto& shape, bool with_layout) {
  if (shape.element_type == kTuple) {
    std::vector<std::string> parts;
    for (const ShapeProto& s : shape.tuple_shapes) {
      parts.push_back(ShapeText(s, with_layout));
    }
    return absl::StrCat("(", absl::StrJoin(parts, ", "), ")");
  }
  std::vector<std::string> dims;
  for (size_t i = 0; i < shape.dimensions.size(); ++i) {
    const bool dynamic = i < shape.is_dynamic_dimension.size() &&
                         shape.is_dynamic_dimension[i];
    dims.push_back(absl::StrCat(dynamic ? "<=" : "", shape.dimensions[i]));
  }
  std::string text = absl::StrCat(ElementTypeName(shape.element_type), "[",
                                  absl::StrJoin(dims, ","), "]");
  if (with_layout && shape.has_layout && !shape.dimensions.empty()) {
    absl::StrAppend(&text, "{", absl::StrJoin(shape.minor_to_major, ","));
    if (shape.memory_space != 0) {
      absl::StrAppend(&text, ":S(", shape.memory_space, ")");
    }
    absl::StrAppend(&text, "}");
  }
  return text;
}

std::string Ints(const std::vector<int64_t>& values) {
  return absl::StrCat("{", absl::StrJoin(values, ","), "}");
}

// Row-major `values` nested by `dims`, from dimension `d` at `offset`.
std::string NestedValues(const std::vector<std::string>& values,
                         const std::vector<int64_t>& dims, size_t d,
                         size_t* offset) {
  if (d == dims.size()) return values[(*offset)++];
  std::vector<std::string> parts;
  for (int64_t i = 0; i < dims[d]; ++i) {
    parts.push_back(NestedValues(values, dims, d + 1, offset));
  }
  return absl::StrCat("{", absl::StrJoin(parts, ", "), "}");
}

std::string LiteralText(const LiteralProto& literal) {
  if (!literal.tuple_literals.empty()) {
    std::vector<std::string> parts;
    for (const LiteralProto& element : literal.tuple_literals) {
      parts.push_back(LiteralText(element));
    }
    return absl::StrCat("(", absl::StrJoin(parts, ", "), ")");
  }
  size_t count = 1;
  for (int64_t d : literal.shape.dimensions) count *= static_cast<size_t>(d);
  if (literal.unprinted || literal.values.size() != count ||
      count > kMaxPrintedElements) {
    return "{...}";
  }
  size_t offset = 0;
  return NestedValues(literal.values, literal.shape.dimensions, 0, &offset);
}

std::string ConvolutionLabels(const hlo::ConvolutionDimensions& c) {
  auto labels = [](size_t rank, std::vector<std::pair<int64_t, char>> named,
                   const std::vector<int64_t>& spatial) {
    std::string out(rank, '?');
    for (const auto& [dim, label] : named) {
      if (dim >= 0 && static_cast<size_t>(dim) < rank) out[dim] = label;
    }
    for (size_t i = 0; i < spatial.size(); ++i) {
      if (spatial[i] >= 0 && static_cast<size_t>(spatial[i]) < rank) {
        out[spatial[i]] = static_cast<char>('0' + i);
      }
    }
    return out;
  };
  const size_t rank = c.input_spatial.size() + 2;
  return absl::StrCat(
      labels(rank, {{c.input_batch, 'b'}, {c.input_feature, 'f'}},
             c.input_spatial),
      "_",
      labels(rank,
             {{c.kernel_input_feature, 'i'}, {c.kernel_output_feature, 'o'}},
             c.kernel_spatial),
      "->",
      labels(rank, {{c.output_batch, 'b'}, {c.output_feature, 'f'}},
             c.output_spatial));
}

std::string WindowText(const std::vector<hlo::WindowDimension>& window) {
  std::vector<std::string> size, stride, pad, lhs, rhs;
  bool strided = false, padded = false, lhs_dilated = false,
       rhs_dilated = false;
  for (const hlo::WindowDimension& d : window) {
    size.push_back(absl::StrCat(d.size));
    stride.push_back(absl::StrCat(d.stride));
    pad.push_back(absl::StrCat(d.padding_low, "_", d.padding_high));
    lhs.push_back(absl::StrCat(d.base_dilation));
    rhs.push_back(absl::StrCat(d.window_dilation));
    strided |= d.stride != 1;
    padded |= d.padding_low != 0 || d.padding_high != 0;
    lhs_dilated |= d.base_dilation != 1;
    rhs_dilated |= d.window_dilation != 1;
  }
  std::string text = absl::StrCat("window={size=", absl::StrJoin(size, "x"));
  if (strided) absl::StrAppend(&text, " stride=", absl::StrJoin(stride, "x"));
  if (padded) absl::StrAppend(&text, " pad=", absl::StrJoin(pad, "x"));
  if (lhs_dilated) {
    absl::StrAppend(&text, " lhs_dilate=", absl::StrJoin(lhs, "x"));
  }
  if (rhs_dilated) {
    absl::StrAppend(&text, " rhs_dilate=", absl::StrJoin(rhs, "x"));
  }
  return absl::StrCat(text, "}");
}

class Printer {
 public:
  explicit Printer(const ModuleProto& module) : module_(module) {
    for (const ComputationProto& c : module.computations) {
      computation_names_[c.id] = c.name;
    }
  }

  std::string Print() const {
    std::string out = absl::StrCat("HloModule ", module_.name);
    if (module_.is_scheduled) absl::StrAppend(&out, ", is_scheduled=true");
    if (!module_.aliases.empty()) {
      std::vector<std::string> entries;
      for (const hlo::AliasEntry& e : module_.aliases) {
        entries.push_back(absl::StrCat(
            Ints(e.output_index), ": (", e.parameter_number, ", ",
            Ints(e.parameter_index), e.kind == 2 ? ", must-alias" : "",
            e.kind == 1 ? ", may-alias" : "", ")"));
      }
      absl::StrAppend(&out, ", input_output_alias={ ",
                      absl::StrJoin(entries, ", "), " }");
    }
    if (!module_.buffer_donors.empty()) {
      std::vector<std::string> entries;
      for (const auto& [parameter, index] : module_.buffer_donors) {
        entries.push_back(absl::StrCat("(", parameter, ", ", Ints(index), ")"));
      }
      absl::StrAppend(&out, ", buffer_donor={ ", absl::StrJoin(entries, ", "),
                      " }");
    }
    if (module_.has_host_program_shape) {
      std::vector<std::string> params;
      for (const ShapeProto& p : module_.entry_parameters) {
        params.push_back(ShapeText(p, true));
      }
      absl::StrAppend(&out, ", entry_computation_layout={(",
                      absl::StrJoin(params, ", "), ")->",
                      ShapeText(module_.entry_result, true), "}");
    }
    absl::StrAppend(&out, "\n");
    const ComputationProto* entry = Entry();
    for (const ComputationProto& c : module_.computations) {
      absl::StrAppend(&out, "\n", Computation(c, &c == entry));
    }
    return out;
  }

 private:
  const ComputationProto* Entry() const {
    for (const ComputationProto& c : module_.computations) {
      if (!module_.entry_computation_name.empty()
              ? c.name == module_.entry_computation_name
              : c.id == module_.entry_computation_id) {
        return &c;
      }
    }
    return module_.computations.empty() ? nullptr
                                        : &module_.computations.back();
  }

  std::string Callee(int64_t id) const {
    auto it = computation_names_.find(id);
    if (it == computation_names_.end()) {
      return absl::StrCat("%<computation ", id, ">");
    }
    return absl::StrCat("%", it->second);
  }

  std::string Computation(const ComputationProto& c, bool entry) const {
    std::map<int64_t, const InstructionProto*> parameters;
    std::map<int64_t, const InstructionProto*> by_id;
    const InstructionProto* root = nullptr;
    for (const InstructionProto& in : c.instructions) {
      by_id[in.id] = &in;
      if (in.opcode == "parameter") parameters[in.parameter_number] = &in;
      if (in.id == c.root_id) root = &in;
    }
    if (root == nullptr && !c.instructions.empty()) {
      root = &c.instructions.back();
    }
    std::vector<std::string> signature;
    for (const auto& [number, in] : parameters) {
      signature.push_back(
          absl::StrCat(in->name, ": ", ShapeText(in->shape, false)));
    }
    std::string out = absl::StrCat(
        entry ? "ENTRY " : "", "%", c.name, " (",
        absl::StrJoin(signature, ", "), ") -> ",
        root == nullptr ? "()" : ShapeText(root->shape, false), " {\n");
    for (const InstructionProto& in : c.instructions) {
      absl::StrAppend(&out, "  ", &in == root ? "ROOT " : "",
                      Instruction(in, by_id), "\n");
    }
    return absl::StrCat(out, "}\n");
  }

  // As XLA's default text: each operand with its shape.
  std::string Instruction(
      const InstructionProto& in,
      const std::map<int64_t, const InstructionProto*>& by_id) const {
    std::string out = absl::StrCat("%", in.name, " = ",
                                   ShapeText(in.shape, true), " ", in.opcode,
                                   "(");
    if (in.opcode == "parameter") {
      absl::StrAppend(&out, in.parameter_number);
    } else if (in.opcode == "constant" && in.has_literal) {
      absl::StrAppend(&out, LiteralText(in.literal));
    } else {
      std::vector<std::string> operands;
      for (int64_t id : in.operand_ids) {
        auto it = by_id.find(id);
        if (it == by_id.end()) {
          operands.push_back(absl::StrCat("%<instruction ", id, ">"));
          continue;
        }
        operands.push_back(absl::StrCat(ShapeText(it->second->shape, true),
                                        " %", it->second->name));
      }
      absl::StrAppend(&out, absl::StrJoin(operands, ", "));
    }
    absl::StrAppend(&out, ")");
    for (const std::string& attribute : Attributes(in)) {
      absl::StrAppend(&out, ", ", attribute);
    }
    return out;
  }

  std::vector<std::string> Attributes(const InstructionProto& in) const {
    std::vector<std::string> a;
    const std::string& op = in.opcode;
    if (op == "get-tuple-element") {
      a.push_back(absl::StrCat("index=", in.tuple_index));
    }
    if (!in.comparison_direction.empty()) {
      a.push_back(absl::StrCat("direction=", in.comparison_direction));
    }
    if (op == "iota") {
      if (!in.dimensions.empty()) {
        a.push_back(absl::StrCat("iota_dimension=", in.dimensions[0]));
      }
    } else if (!in.dimensions.empty() || op == "broadcast") {
      a.push_back(absl::StrCat("dimensions=", Ints(in.dimensions)));
    }
    if (!in.slice_dimensions.empty()) {
      std::vector<std::string> parts;
      for (const hlo::SliceDimension& s : in.slice_dimensions) {
        parts.push_back(s.stride == 1
                            ? absl::StrCat("[", s.start, ":", s.limit, "]")
                            : absl::StrCat("[", s.start, ":", s.limit, ":",
                                           s.stride, "]"));
      }
      a.push_back(absl::StrCat("slice={", absl::StrJoin(parts, ", "), "}"));
    }
    if (!in.dynamic_slice_sizes.empty()) {
      a.push_back(absl::StrCat("dynamic_slice_sizes=",
                               Ints(in.dynamic_slice_sizes)));
    }
    if (!in.padding.empty()) {
      std::vector<std::string> parts;
      for (const std::vector<int64_t>& d : in.padding) {
        parts.push_back(d[2] == 0 ? absl::StrCat(d[0], "_", d[1])
                                  : absl::StrJoin(d, "_"));
      }
      a.push_back(absl::StrCat("padding=", absl::StrJoin(parts, "x")));
    }
    if (!in.window.empty()) a.push_back(WindowText(in.window));
    if (in.has_convolution_dimensions) {
      a.push_back(absl::StrCat("dim_labels=",
                               ConvolutionLabels(in.convolution_dimensions)));
    }
    if (in.feature_group_count > 1) {
      a.push_back(absl::StrCat("feature_group_count=", in.feature_group_count));
    }
    if (in.batch_group_count > 1) {
      a.push_back(absl::StrCat("batch_group_count=", in.batch_group_count));
    }
    for (const auto& [name, values] : in.int_lists) {
      if (!values.empty()) a.push_back(absl::StrCat(name, "=", Ints(values)));
    }
    if (op == "gather" || op == "scatter") {
      a.push_back(absl::StrCat("index_vector_dim=", in.index_vector_dim));
    }
    if (in.indices_are_sorted) a.push_back("indices_are_sorted=true");
    if (in.unique_indices) a.push_back("unique_indices=true");
    if (!in.replica_groups.empty()) {
      std::vector<std::string> groups;
      for (const std::vector<int64_t>& g : in.replica_groups) {
        groups.push_back(Ints(g));
      }
      a.push_back(absl::StrCat("replica_groups={", absl::StrJoin(groups, ","),
                               "}"));
    } else if (!in.iota_groups.empty()) {
      std::string groups =
          absl::StrCat("replica_groups=[", absl::StrJoin(in.iota_groups, ","),
                       "]<=[", absl::StrJoin(in.iota_reshape, ","), "]");
      if (!in.iota_perm.empty()) {
        absl::StrAppend(&groups, "T(", absl::StrJoin(in.iota_perm, ","), ")");
      }
      a.push_back(groups);
    }
    if (!in.source_target_pairs.empty()) {
      std::vector<std::string> pairs;
      for (const auto& [source, target] : in.source_target_pairs) {
        pairs.push_back(absl::StrCat("{", source, ",", target, "}"));
      }
      a.push_back(absl::StrCat("source_target_pairs={",
                               absl::StrJoin(pairs, ","), "}"));
    }
    if (in.channel_id > 0) {
      a.push_back(absl::StrCat("channel_id=", in.channel_id));
    }
    if (in.use_global_device_ids) a.push_back("use_global_device_ids=true");
    if (in.exponent_bits > 0 || in.mantissa_bits > 0) {
      a.push_back(absl::StrCat("exponent_bits=", in.exponent_bits));
      a.push_back(absl::StrCat("mantissa_bits=", in.mantissa_bits));
    }
    if (op == "rng") {
      a.push_back(in.distribution == 2 ? "distribution=rng_normal"
                                       : "distribution=rng_uniform");
    }
    if (op == "rng-bit-generator") {
      static const char* kAlgorithms[] = {"rng_default", "rng_three_fry",
                                          "rng_philox"};
      a.push_back(absl::StrCat(
          "algorithm=", in.rng_algorithm >= 0 && in.rng_algorithm <= 2
                            ? kAlgorithms[in.rng_algorithm]
                            : absl::StrCat(in.rng_algorithm)));
    }
    if (in.is_stable) a.push_back("is_stable=true");
    if (!in.fusion_kind.empty()) {
      a.push_back(absl::StrCat("kind=", in.fusion_kind));
    }
    Called(in, &a);
    if (!in.custom_call_target.empty()) {
      a.push_back(absl::StrCat("custom_call_target=\"", in.custom_call_target,
                               "\""));
    }
    if (!in.op_type.empty() || !in.op_name.empty() ||
        !in.source_file.empty()) {
      std::vector<std::string> fields;
      if (!in.op_type.empty()) {
        fields.push_back(absl::StrCat("op_type=\"", in.op_type, "\""));
      }
      if (!in.op_name.empty()) {
        fields.push_back(absl::StrCat("op_name=\"", in.op_name, "\""));
      }
      if (!in.source_file.empty()) {
        fields.push_back(absl::StrCat("source_file=\"", in.source_file, "\""));
        fields.push_back(absl::StrCat("source_line=", in.source_line));
      }
      a.push_back(absl::StrCat("metadata={", absl::StrJoin(fields, " "), "}"));
    }
    if (!in.backend_config.empty()) {
      a.push_back(absl::StrCat("backend_config=", in.backend_config));
    }
    return a;
  }

  // The called computations, under the names XLA's text gives them.
  void Called(const InstructionProto& in, std::vector<std::string>* a) const {
    const std::vector<int64_t>& ids = in.called_computation_ids;
    if (ids.empty()) return;
    const std::string& op = in.opcode;
    std::vector<std::string> callees;
    for (int64_t id : ids) callees.push_back(Callee(id));
    if (op == "while" && ids.size() == 2) {
      // A while calls its body first, then its condition.
      a->push_back(absl::StrCat("condition=", callees[1]));
      a->push_back(absl::StrCat("body=", callees[0]));
    } else if (op == "select-and-scatter" && ids.size() == 2) {
      a->push_back(absl::StrCat("select=", callees[0]));
      a->push_back(absl::StrCat("scatter=", callees[1]));
    } else if (op == "conditional") {
      a->push_back(absl::StrCat("branch_computations={",
                                absl::StrJoin(callees, ", "), "}"));
    } else if (op == "custom-call") {
      a->push_back(absl::StrCat("called_computations={",
                                absl::StrJoin(callees, ", "), "}"));
    } else if (op == "fusion" || absl::StartsWith(op, "async")) {
      a->push_back(absl::StrCat("calls=", absl::StrJoin(callees, ", ")));
    } else if (ids.size() == 1) {
      a->push_back(absl::StrCat("to_apply=", callees[0]));
    } else {
      a->push_back(absl::StrCat("calls={", absl::StrJoin(callees, ", "), "}"));
    }
  }

  const ModuleProto& module_;
  std::map<int64_t, std::string> computation_names_;
};

}  // namespace

absl::StatusOr<std::string> HloModuleProtoToText(absl::string_view proto) {
  absl::StatusOr<ModuleProto> module = hlo::ParseModule(proto);
  if (!module.ok()) return module.status();
  return Printer(*module).Print();
}

absl::StatusOr<std::string> ProgramToHloText(absl::string_view format,
                                             absl::string_view code) {
  if (format == "hlo") return HloModuleProtoToText(code);
  if (format != "hlo_with_config") {
    return absl::UnimplementedError(absl::StrCat(
        "cannot print a compiled program in format '", format,
        "' as HLO text (expected 'hlo' or 'hlo_with_config')"));
  }
  // HloModuleProtoWithConfig: the module is field 1.
  ProtoReader reader(code, "HloModuleProtoWithConfig");
  while (!reader.done()) {
    absl::StatusOr<ProtoField> field = reader.Next();
    if (!field.ok()) return field.status();
    if (field->number == 1 && field->wire == 2) {
      return HloModuleProtoToText(field->bytes);
    }
  }
  return absl::InternalError(
      "the compiled program (hlo_with_config) holds no HloModuleProto");
}

}  // namespace torch_xla::runtime
