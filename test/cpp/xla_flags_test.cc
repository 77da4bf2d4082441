#include "torch_xla/csrc/runtime/xla_flags.h"

#include <cstdlib>
#include <string>

#include "gtest/gtest.h"

namespace torch_xla::runtime {
namespace {

TEST(XlaFlagsTest, AFlagIsAppendedUnlessTheUserSetIt) {
  EXPECT_EQ(WithXlaFlag(nullptr, "xla_a", "1"), "--xla_a=1");
  EXPECT_EQ(WithXlaFlag("", "xla_a", "1"), "--xla_a=1");
  EXPECT_EQ(WithXlaFlag("--xla_dump_to=/tmp/d", "xla_a", "1"),
            "--xla_dump_to=/tmp/d --xla_a=1");
  // The user's own value wins, also when given as a bare boolean.
  EXPECT_EQ(WithXlaFlag("--xla_a=0", "xla_a", "1"), "--xla_a=0");
  EXPECT_EQ(WithXlaFlag("--xla_b=2  --xla_a", "xla_a", "1"),
            "--xla_b=2  --xla_a");
  // A flag whose name only starts with `xla_a` is another flag.
  EXPECT_EQ(WithXlaFlag("--xla_ab=0", "xla_a", "1"), "--xla_ab=0 --xla_a=1");
}

TEST(XlaFlagsTest, CpuNanSemanticsTurnFastMinMaxOff) {
  setenv("XLA_FLAGS", "--xla_dump_to=/tmp/d", /*overwrite=*/1);
  ApplyCpuNanSemantics();
  ApplyCpuNanSemantics();
  EXPECT_EQ(std::string(std::getenv("XLA_FLAGS")),
            "--xla_dump_to=/tmp/d --xla_cpu_enable_fast_min_max=false");
}

}  // namespace
}  // namespace torch_xla::runtime
