#include "test/cpp/golden_util.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "test/cpp/ir_test_util.h"
#include "torch_xla/csrc/lowering/lowering_context.h"

namespace torch_xla {
namespace testing {
namespace {

bool IsDir(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

const char* Env(const char* name) {
  const char* v = std::getenv(name);
  return (v != nullptr && v[0] != '\0') ? v : nullptr;
}

bool IsNameChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9') || c == '_' || c == '$' || c == '.';
}

// Runs the mlir_check tool on `text`; returns its output.
std::string RunMlirCheck(const char* tool, absl::string_view text,
                         absl::string_view name) {
  std::string path = absl::StrCat(::testing::TempDir(), "/mlir_check_",
                                  getpid(), "_", name);
  {
    std::ofstream f(path);
    f << text;
  }
  std::string out;
  FILE* p = popen(absl::StrCat(tool, " ", path, " 2>&1").c_str(), "r");
  if (p == nullptr) return "popen failed";
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), p)) > 0) out.append(buf, n);
  pclose(p);
  std::remove(path.c_str());
  return out;
}

}  // namespace

std::string Lower(const std::string& name, std::vector<Value> results) {
  LoweringContext context(name);
  absl::Status status = context.Build(results);
  EXPECT_TRUE(status.ok()) << status;
  return Ok(context.HloText());
}

std::string NormalizeSsaNames(absl::string_view text) {
  absl::flat_hash_map<std::string, std::string> renamed;
  int next_arg = 0, next_value = 0;
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    if (text[i] != '%') {
      out += text[i++];
      continue;
    }
    size_t j = i + 1;
    while (j < text.size() && IsNameChar(text[j])) ++j;
    std::string name(text.substr(i + 1, j - i - 1));
    if (name.empty()) {
      out += text[i++];
      continue;
    }
    auto it = renamed.find(name);
    if (it == renamed.end()) {
      bool is_arg = name.size() > 3 && name.compare(0, 3, "arg") == 0 &&
                    name.find_first_not_of("0123456789", 3) == std::string::npos;
      std::string fresh = is_arg ? absl::StrCat("arg", next_arg++)
                                 : absl::StrCat(next_value++);
      it = renamed.emplace(name, std::move(fresh)).first;
    }
    absl::StrAppend(&out, "%", it->second);
    i = j;
  }
  return out;
}

std::string TestDataDir() {
  if (const char* dir = Env("TORCH_XLA_TESTDATA")) return dir;
  if (const char* srcdir = Env("TEST_SRCDIR")) {
    const char* ws = Env("TEST_WORKSPACE");
    std::string dir =
        absl::StrCat(srcdir, "/", ws ? ws : "torch_xla", "/test/cpp/testdata");
    if (IsDir(dir)) return dir;
  }
  std::string prefix = "";
  for (int up = 0; up < 8; ++up) {
    std::string dir = prefix + "test/cpp/testdata";
    if (IsDir(dir)) return dir;
    prefix += "../";
  }
  std::string here = __FILE__;
  std::string dir = here.substr(0, here.find_last_of('/') + 1) + "testdata";
  if (IsDir(dir)) return dir;
  return "";
}

void ExpectMlirCheckOk(absl::string_view text, absl::string_view name) {
  const char* tool = Env("TORCH_XLA_MLIR_CHECK");
  if (tool == nullptr) return;
  std::string result = RunMlirCheck(tool, text, name);
  EXPECT_EQ(result.rfind("OK", 0), 0u)
      << "mlir_check rejected " << name << ":\n"
      << result << "\n--- text ---\n"
      << (text.size() > 20000 ? text.substr(0, 20000) : text);
}

void ExpectMatchesGolden(absl::string_view actual, absl::string_view name) {
  const std::string normalized = NormalizeSsaNames(actual);
  ExpectMlirCheckOk(actual, name);
  const std::string dir = TestDataDir();
  ASSERT_FALSE(dir.empty())
      << "golden directory test/cpp/testdata not found; set TORCH_XLA_TESTDATA";
  const std::string path = absl::StrCat(dir, "/", name);
  const char* update = Env("TORCH_XLA_UPDATE_GOLDENS");
  if (update != nullptr && std::string(update) == "1") {
    std::ofstream f(path);
    f << normalized;
    ASSERT_TRUE(f.good()) << "cannot write golden " << path;
    std::printf("updated golden %s\n", path.c_str());
    return;
  }
  std::ifstream f(path);
  ASSERT_TRUE(f.good()) << "missing golden " << path
                        << "; run scripts/update_goldens.sh to create it";
  std::stringstream expected;
  expected << f.rdbuf();
  EXPECT_EQ(NormalizeSsaNames(expected.str()), normalized)
      << "lowering differs from golden " << path
      << "; if the change is intended, run scripts/update_goldens.sh and "
         "review the diff";
}

}  // namespace testing
}  // namespace torch_xla
