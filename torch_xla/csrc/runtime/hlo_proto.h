#ifndef TORCH_XLA_CSRC_RUNTIME_HLO_PROTO_H_
#define TORCH_XLA_CSRC_RUNTIME_HLO_PROTO_H_

// A serialized xla.HloModuleProto (what PJRT_Executable_OptimizedProgram
// returns in format "hlo") decoded by hand into plain structs: the fields a
// debug view of the compiled program prints (hlo_text.h), nothing more.
// Field numbers are those of xla/service/hlo.proto and xla/xla_data.proto.
// The structs own copies of every string; the proto may be freed after.

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace torch_xla::runtime::hlo {

// xla.ShapeProto. element_type is xla.PrimitiveType's number.
struct ShapeProto {
  int64_t element_type = 0;
  std::vector<int64_t> dimensions;
  std::vector<bool> is_dynamic_dimension;
  std::vector<ShapeProto> tuple_shapes;
  bool has_layout = false;
  std::vector<int64_t> minor_to_major;
  int64_t memory_space = 0;
};

// xla.LiteralProto, for printing constants: the values as text, one per
// element in row-major order; `unprinted` when its type is not decoded.
struct LiteralProto {
  ShapeProto shape;
  std::vector<std::string> values;
  std::vector<LiteralProto> tuple_literals;
  bool unprinted = false;
};

struct WindowDimension {
  int64_t size = 0, stride = 1, padding_low = 0, padding_high = 0;
  int64_t window_dilation = 1, base_dilation = 1;
  bool window_reversal = false;
};

struct ConvolutionDimensions {
  int64_t input_batch = 0, input_feature = 0;
  std::vector<int64_t> input_spatial;
  int64_t kernel_input_feature = 0, kernel_output_feature = 0;
  std::vector<int64_t> kernel_spatial;
  int64_t output_batch = 0, output_feature = 0;
  std::vector<int64_t> output_spatial;
};

struct SliceDimension {
  int64_t start = 0, limit = 0, stride = 1;
};

// xla.HloInstructionProto (the printed subset). Repeated integer messages
// keep the proto's names; `int_lists` holds the dimension-number lists of
// dot, gather and scatter under the names XLA's text prints them with.
struct InstructionProto {
  std::string name;
  std::string opcode;
  ShapeProto shape;
  int64_t id = 0;
  int64_t parameter_number = 0;
  int64_t tuple_index = 0;
  std::string fusion_kind;
  std::vector<int64_t> dimensions;
  std::vector<int64_t> operand_ids;
  std::vector<int64_t> called_computation_ids;
  std::vector<SliceDimension> slice_dimensions;
  std::vector<int64_t> dynamic_slice_sizes;
  // (low, high, interior) per dimension.
  std::vector<std::vector<int64_t>> padding;
  std::vector<WindowDimension> window;
  bool has_convolution_dimensions = false;
  ConvolutionDimensions convolution_dimensions;
  int64_t feature_group_count = 0;
  int64_t batch_group_count = 0;
  std::vector<std::pair<std::string, std::vector<int64_t>>> int_lists;
  int64_t index_vector_dim = -1;  // gather, scatter
  std::string comparison_direction;
  std::string custom_call_target;
  std::string backend_config;
  bool has_literal = false;
  LiteralProto literal;
  std::vector<std::vector<int64_t>> replica_groups;
  // Iota form of the replica groups: [groups, per group] <= reshape dims,
  // transposed by perm.
  std::vector<int64_t> iota_groups, iota_reshape, iota_perm;
  std::vector<std::pair<int64_t, int64_t>> source_target_pairs;
  int64_t channel_id = 0;
  bool use_global_device_ids = false;
  bool is_stable = false;
  bool indices_are_sorted = false;
  bool unique_indices = false;
  int64_t exponent_bits = 0, mantissa_bits = 0;
  int64_t distribution = 0;   // xla.RandomDistribution
  int64_t rng_algorithm = 0;  // xla.RandomAlgorithm
  std::string op_type, op_name, source_file;
  int64_t source_line = 0;
};

struct ComputationProto {
  std::string name;
  std::vector<InstructionProto> instructions;
  int64_t id = 0;
  int64_t root_id = -1;
};

struct AliasEntry {
  std::vector<int64_t> output_index;
  int64_t parameter_number = 0;
  std::vector<int64_t> parameter_index;
  int64_t kind = 0;  // 1 may-alias, 2 must-alias
};

struct ModuleProto {
  std::string name;
  std::string entry_computation_name;
  int64_t entry_computation_id = -1;
  std::vector<ComputationProto> computations;
  bool has_host_program_shape = false;
  std::vector<ShapeProto> entry_parameters;
  ShapeProto entry_result;
  bool is_scheduled = false;
  std::vector<AliasEntry> aliases;
  // (parameter number, shape index) of each buffer donor.
  std::vector<std::pair<int64_t, std::vector<int64_t>>> buffer_donors;
};

// Decodes a serialized HloModuleProto; an error says which message was
// malformed.
absl::StatusOr<ModuleProto> ParseModule(absl::string_view proto);

}  // namespace torch_xla::runtime::hlo

#endif  // TORCH_XLA_CSRC_RUNTIME_HLO_PROTO_H_
