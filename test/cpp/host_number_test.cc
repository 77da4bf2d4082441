// Python numbers as host scalars (tensor/device_data.h): eager's checked
// conversion for fill-like ops (out of range -> an error raised as
// RuntimeError) and the wrapping conversion of arithmetic operands, both
// without undefined behaviour for NaN, infinities and values past int64.

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "torch_xla/csrc/ir/error_class.h"
#include "torch_xla/csrc/tensor/device_data.h"

namespace torch_xla {
namespace {

template <typename T>
T ValueOf(const std::shared_ptr<HostData>& data) {
  EXPECT_EQ(data->bytes().size(), sizeof(T));
  T value;
  std::memcpy(&value, data->bytes().data(), sizeof(T));
  return value;
}

void ExpectOverflow(const HostNumber& number, DType dtype) {
  absl::StatusOr<std::shared_ptr<HostData>> out =
      MakeCheckedHostScalar(number, dtype);
  ASSERT_FALSE(out.ok()) << number.ToString() << " -> " << DTypeName(dtype);
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(GetEagerErrorClass(out.status()), EagerErrorClass::kRuntimeError);
  EXPECT_NE(out.status().message().find(absl::StrCat(
                "value cannot be converted to type ", TorchDTypeName(dtype),
                " without overflow: got ", number.ToString())),
            absl::string_view::npos)
      << out.status();
}

template <typename T>
void ExpectChecked(const HostNumber& number, DType dtype, T expected) {
  absl::StatusOr<std::shared_ptr<HostData>> out =
      MakeCheckedHostScalar(number, dtype);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(ValueOf<T>(*out), expected);
}

const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

TEST(HostNumberTest, CheckedIntegersLikeEagerFill) {
  ExpectOverflow(HostNumber::Double(1e10), DType::kI32);
  ExpectOverflow(HostNumber::Double(kNaN), DType::kI32);
  ExpectOverflow(HostNumber::Double(kInf), DType::kI64);
  ExpectOverflow(HostNumber::Double(-kInf), DType::kI8);
  ExpectOverflow(HostNumber::Double(9223372036854775808.0), DType::kI64);
  ExpectOverflow(HostNumber::Int(128), DType::kI8);
  ExpectOverflow(HostNumber::Int(-129), DType::kI8);
  ExpectOverflow(HostNumber::Int(int64_t{1} << 40), DType::kI32);
  ExpectOverflow(HostNumber::Int(32768), DType::kI16);
  ExpectOverflow(HostNumber::Uint(uint64_t{1} << 63), DType::kI64);
  ExpectOverflow(HostNumber::Int(256), DType::kU8);
  ExpectOverflow(HostNumber::Int(-256), DType::kU8);
  ExpectOverflow(HostNumber::Double(-1.0), DType::kU8);

  ExpectChecked<int32_t>(HostNumber::Double(3.7), DType::kI32, 3);
  ExpectChecked<int32_t>(HostNumber::Double(-2147483648.0), DType::kI32,
                         INT32_MIN);
  ExpectChecked<int64_t>(HostNumber::Int(INT64_MIN), DType::kI64, INT64_MIN);
  ExpectChecked<int8_t>(HostNumber::Int(-128), DType::kI8, -128);
  // A negative integer wraps into an unsigned type down to -max (eager).
  ExpectChecked<uint8_t>(HostNumber::Int(-129), DType::kU8, 127);
  ExpectChecked<uint8_t>(HostNumber::Int(-1), DType::kU8, 255);
  ExpectChecked<uint64_t>(HostNumber::Uint(~uint64_t{0}), DType::kU64,
                          ~uint64_t{0});
}

TEST(HostNumberTest, CheckedFloatsAndBool) {
  ExpectOverflow(HostNumber::Double(1e300), DType::kF32);
  ExpectOverflow(HostNumber::Double(1e10), DType::kF16);
  ExpectOverflow(HostNumber::Int(70000), DType::kF16);
  ExpectOverflow(HostNumber::Uint(uint64_t{1} << 63), DType::kF16);
  ExpectOverflow(HostNumber::Double(1e300), DType::kBF16);
  // NaN and infinities fit floating types; anything fits bool and f64.
  absl::StatusOr<std::shared_ptr<HostData>> nan =
      MakeCheckedHostScalar(HostNumber::Double(kNaN), DType::kF32);
  ASSERT_TRUE(nan.ok());
  EXPECT_TRUE(std::isnan(ValueOf<float>(*nan)));
  ExpectChecked<float>(HostNumber::Double(-kInf), DType::kF32, -kInf);
  ExpectChecked<float>(HostNumber::Uint(uint64_t{1} << 63), DType::kF32,
                       9223372036854775808.0f);
  ExpectChecked<double>(HostNumber::Double(1e300), DType::kF64, 1e300);
  ExpectChecked<uint8_t>(HostNumber::Double(kNaN), DType::kBool, 1);
  ExpectChecked<uint8_t>(HostNumber::Double(1e300), DType::kBool, 1);
  ExpectChecked<uint8_t>(HostNumber::Int(0), DType::kBool, 0);
}

TEST(HostNumberTest, ArithmeticOperandsWrapWithoutUndefinedBehaviour) {
  // Like eager's `int_tensor + python_int`: two's complement.
  EXPECT_EQ(ValueOf<int32_t>(MakeHostScalarInt(int64_t{1} << 40, DType::kI32)),
            0);
  EXPECT_EQ(ValueOf<int8_t>(MakeHostScalarInt(1000, DType::kI8)), -24);
  EXPECT_EQ(ValueOf<uint8_t>(MakeHostScalarInt(-300, DType::kU8)), 212);
  EXPECT_EQ(ValueOf<int64_t>(MakeHostScalarNumber(
                HostNumber::Uint(uint64_t{1} << 63), DType::kI64)),
            INT64_MIN);
  // Doubles truncate toward zero through int64; NaN is 0, the rest saturate.
  EXPECT_EQ(ValueOf<int32_t>(MakeHostScalar(-3.7, DType::kI32)), -3);
  EXPECT_EQ(ValueOf<int32_t>(MakeHostScalar(kNaN, DType::kI32)), 0);
  EXPECT_EQ(ValueOf<int64_t>(MakeHostScalar(1e300, DType::kI64)), INT64_MAX);
  EXPECT_EQ(ValueOf<int64_t>(MakeHostScalar(-kInf, DType::kI64)), INT64_MIN);
  EXPECT_EQ(ValueOf<uint64_t>(MakeHostScalar(1.5e19, DType::kU64)),
            uint64_t{15000000000000000000u});
  // Floating types round; beyond their range they are infinite.
  EXPECT_EQ(ValueOf<float>(MakeHostScalar(1e300, DType::kF32)), kInf);
  EXPECT_EQ(ValueOf<uint8_t>(MakeHostScalar(kNaN, DType::kBool)), 1);
}

}  // namespace
}  // namespace torch_xla
