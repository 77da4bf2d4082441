// The HLO text printer on HloModuleProtos built here field by field (the
// numbers of xla/service/hlo.proto and xla/xla_data.proto), so the printer
// is checked against the proto's meaning, not against our own decoder.

#include "torch_xla/csrc/runtime/hlo_text.h"

#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <string>

#include "gtest/gtest.h"

namespace torch_xla::runtime {
namespace {

// A protobuf message under construction.
class Message {
 public:
  Message& Int(int field, int64_t value) {
    Key(field, 0);
    Varint(static_cast<uint64_t>(value));
    return *this;
  }
  Message& Bytes(int field, const std::string& value) {
    Key(field, 2);
    Varint(value.size());
    out_ += value;
    return *this;
  }
  Message& Sub(int field, const Message& message) {
    return Bytes(field, message.out_);
  }
  Message& Packed(int field, std::initializer_list<int64_t> values) {
    Message packed;
    for (int64_t v : values) packed.Varint(static_cast<uint64_t>(v));
    return Bytes(field, packed.out_);
  }
  Message& Float(int field, float value) {  // one unpacked fixed32
    Key(field, 5);
    char bytes[4];
    std::memcpy(bytes, &value, 4);
    out_.append(bytes, 4);
    return *this;
  }
  const std::string& str() const { return out_; }

 private:
  void Key(int field, int wire) { Varint((field << 3) | wire); }
  void Varint(uint64_t v) {
    while (v >= 0x80) {
      out_.push_back(static_cast<char>(v | 0x80));
      v >>= 7;
    }
    out_.push_back(static_cast<char>(v));
  }
  std::string out_;
};

constexpr int64_t kPred = 1, kS32 = 4, kF32 = 11, kTuple = 13, kBf16 = 16;

Message Shape(int64_t type, std::initializer_list<int64_t> dims,
              std::initializer_list<int64_t> minor_to_major) {
  Message shape;
  shape.Int(2, type);
  if (dims.size() > 0) shape.Packed(3, dims);
  Message layout;
  if (minor_to_major.size() > 0) layout.Packed(1, minor_to_major);
  return shape.Sub(5, layout);
}

Message Instruction(const std::string& name, const std::string& opcode,
                    const Message& shape, int64_t id,
                    std::initializer_list<int64_t> operands = {}) {
  Message in;
  in.Bytes(1, name).Bytes(2, opcode).Sub(3, shape).Int(35, id);
  if (operands.size() > 0) in.Packed(36, operands);
  return in;
}

TEST(HloTextTest, PrintsAWhileLoopWithItsComputations) {
  const Message s32 = Shape(kS32, {}, {});
  const Message f32x2 = Shape(kF32, {2}, {0});
  Message state = Message().Int(2, kTuple).Sub(4, s32).Sub(4, f32x2);

  Message cond;
  cond.Bytes(1, "cond").Int(5, 1).Int(6, 3);
  cond.Sub(2, Instruction("arg", "parameter", state, 1));
  cond.Sub(2, Instruction("i", "get-tuple-element", s32, 2, {1}).Int(13, 0));
  Message ten = Message().Sub(1, s32).Packed(4, {10});
  cond.Sub(2, Instruction("limit", "constant", s32, 4).Sub(8, ten));
  cond.Sub(2, Instruction("lt", "compare", Shape(kPred, {}, {}), 3, {2, 4})
                  .Bytes(63, "LT"));

  Message body;
  body.Bytes(1, "body").Int(5, 2).Int(6, 13);
  body.Sub(2, Instruction("arg", "parameter", state, 11));
  body.Sub(2,
           Instruction("x", "get-tuple-element", f32x2, 12, {11}).Int(13, 1));
  body.Sub(2, Instruction("s", "sine", f32x2, 14, {12}));
  body.Sub(2, Instruction("t", "tuple", state, 13, {12, 14}));

  Message entry;
  entry.Bytes(1, "main.9").Int(5, 3).Int(6, 22);
  entry.Sub(2, Instruction("p0.1", "parameter", state, 21).Int(9, 0));
  // A while calls its body first, then its condition.
  entry.Sub(2, Instruction("w", "while", state, 22, {21}).Packed(38, {2, 1}));

  Message program_shape = Message().Sub(1, state).Sub(2, state);
  Message module;
  module.Bytes(1, "SyncTensorsGraph").Bytes(2, "main.9").Int(6, 3);
  module.Sub(3, cond).Sub(3, body).Sub(3, entry).Sub(4, program_shape);

  absl::StatusOr<std::string> text = HloModuleProtoToText(module.str());
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_EQ(*text,
            "HloModule SyncTensorsGraph, entry_computation_layout="
            "{((s32[], f32[2]{0}))->(s32[], f32[2]{0})}\n"
            "\n"
            "%cond (arg: (s32[], f32[2])) -> pred[] {\n"
            "  %arg = (s32[], f32[2]{0}) parameter(0)\n"
            "  %i = s32[] get-tuple-element((s32[], f32[2]{0}) %arg), "
            "index=0\n"
            "  %limit = s32[] constant(10)\n"
            "  ROOT %lt = pred[] compare(s32[] %i, s32[] %limit), "
            "direction=LT\n"
            "}\n"
            "\n"
            "%body (arg: (s32[], f32[2])) -> (s32[], f32[2]) {\n"
            "  %arg = (s32[], f32[2]{0}) parameter(0)\n"
            "  %x = f32[2]{0} get-tuple-element((s32[], f32[2]{0}) %arg), "
            "index=1\n"
            "  %s = f32[2]{0} sine(f32[2]{0} %x)\n"
            "  ROOT %t = (s32[], f32[2]{0}) tuple(f32[2]{0} %x, "
            "f32[2]{0} %s)\n"
            "}\n"
            "\n"
            "ENTRY %main.9 (p0.1: (s32[], f32[2])) -> (s32[], f32[2]) {\n"
            "  %p0.1 = (s32[], f32[2]{0}) parameter(0)\n"
            "  ROOT %w = (s32[], f32[2]{0}) while((s32[], f32[2]{0}) %p0.1), "
            "condition=%cond, body=%body\n"
            "}\n");
}

TEST(HloTextTest, PrintsDotFusionConstantsAndAliases) {
  const Message a = Shape(kBf16, {3, 4}, {1, 0});
  const Message b = Shape(kBf16, {4, 2}, {0, 1});
  const Message out = Shape(kF32, {3, 2}, {1, 0});

  Message fused;
  fused.Bytes(1, "fused_dot").Int(5, 1).Int(6, 3);
  fused.Sub(2, Instruction("param_0", "parameter", a, 1).Int(9, 0));
  fused.Sub(2, Instruction("param_1", "parameter", b, 2).Int(9, 1));
  Message dnums = Message().Packed(1, {1}).Packed(2, {0});
  fused.Sub(2, Instruction("dot.1", "dot", out, 3, {1, 2}).Sub(30, dnums));

  Message entry;
  entry.Bytes(1, "main").Int(5, 2).Int(6, 13);
  entry.Sub(2, Instruction("p1", "parameter", b, 11).Int(9, 1));
  entry.Sub(2, Instruction("p0", "parameter", a, 12).Int(9, 0));
  Message half = Message().Sub(1, Shape(kF32, {2}, {0})).Float(8, 0.5f)
                     .Float(8, -2.0f);
  entry.Sub(2, Instruction("c", "constant", Shape(kF32, {2}, {0}), 14)
                   .Sub(8, half));
  entry.Sub(2, Instruction("f", "fusion", out, 13, {12, 11})
                   .Bytes(11, "kOutput").Packed(38, {1})
                   .Sub(7, Message().Bytes(2, "aten::mm")));

  Message alias = Message().Sub(
      1, Message().Packed(1, {}).Int(2, 1).Int(4, 1));
  Message module;
  module.Bytes(1, "m").Bytes(2, "main").Int(6, 2);
  module.Sub(3, fused).Sub(3, entry).Sub(8, alias);

  absl::StatusOr<std::string> text = HloModuleProtoToText(module.str());
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_NE(text->find("HloModule m, input_output_alias={ {}: (1, {}, "
                       "may-alias) }\n"),
            std::string::npos)
      << *text;
  // Parameters are listed by number, whatever their order in the body.
  EXPECT_NE(text->find("ENTRY %main (p0: bf16[3,4], p1: bf16[4,2]) -> "
                       "f32[3,2] {\n"),
            std::string::npos)
      << *text;
  EXPECT_NE(text->find("  ROOT %dot.1 = f32[3,2]{1,0} dot(bf16[3,4]{1,0} "
                       "%param_0, "
                       "bf16[4,2]{0,1} %param_1), "
                       "lhs_contracting_dims={1}, rhs_contracting_dims={0}\n"),
            std::string::npos)
      << *text;
  EXPECT_NE(text->find("  %p1 = bf16[4,2]{0,1} parameter(1)\n"),
            std::string::npos)
      << *text;
  EXPECT_NE(text->find("  %c = f32[2]{0} constant({0.5, -2})\n"),
            std::string::npos)
      << *text;
  EXPECT_NE(text->find("  ROOT %f = f32[3,2]{1,0} fusion(bf16[3,4]{1,0} %p0, "
                       "bf16[4,2]{0,1} %p1), "
                       "kind=kOutput, calls=%fused_dot, "
                       "metadata={op_name=\"aten::mm\"}\n"),
            std::string::npos)
      << *text;
}

TEST(HloTextTest, MalformedProtoIsAnError) {
  absl::StatusOr<std::string> text = HloModuleProtoToText("\x0a\x05" "ab");
  ASSERT_FALSE(text.ok());
  EXPECT_NE(std::string(text.status().message()).find("HloModuleProto"),
            std::string::npos)
      << text.status();
  EXPECT_FALSE(ProgramToHloText("mlir", "").ok());
}

}  // namespace
}  // namespace torch_xla::runtime
