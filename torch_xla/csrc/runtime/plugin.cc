#include "torch_xla/csrc/runtime/plugin.h"

#include <dlfcn.h>
#include <sys/stat.h>

#include <cstdlib>
#include <map>
#include <mutex>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "torch_xla/csrc/runtime/pjrt_api.h"

namespace torch_xla::runtime {
namespace {

struct PluginCandidates {
  absl::string_view device_type;
  std::vector<absl::string_view> relative_paths;  // under a search directory
  absl::string_view install_hint;
};

const std::vector<PluginCandidates>& KnownPlugins() {
  static const auto* plugins = new std::vector<PluginCandidates>{
      // The first found wins. lammps-jax-pjrt-cpu carries the XLA of
      // jaxlib 0.11.2 (measured 1.3-1.9x faster here than xla-cpu-pjrt's).
      {"CPU",
       {"lammps_jax_pjrt_cpu/pjrt_c_api_cpu_plugin.so",
        "xla_plugins/xla_cpu_pjrt/xla_cpu_pjrt.so"},
       "pip install --no-deps lammps-jax-pjrt-cpu (or pip install "
       "xla-cpu-pjrt)"},
      {"CUDA",
       {"jax_plugins/xla_cuda13/xla_cuda_plugin.so",
        "jax_plugins/xla_cuda12/xla_cuda_plugin.so"},
       "pip install jax-cuda12-plugin (or jax-cuda13-plugin)"},
      {"TPU", {"libtpu/libtpu.so"}, "pip install libtpu"},
  };
  return *plugins;
}

std::mutex& SearchPathMutex() {
  static auto* mu = new std::mutex();
  return *mu;
}

std::vector<std::string>& SearchPath() {
  static auto* path = new std::vector<std::string>();
  return *path;
}

bool IsFile(const std::string& path) {
  struct stat info;
  return stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode);
}

std::vector<std::string> SearchDirectories() {
  std::vector<std::string> directories;
  // Tests and scripts without Python point here at their environment.
  if (const char* env = std::getenv("TORCH_XLA_PLUGIN_SEARCH_PATH")) {
    for (absl::string_view dir : absl::StrSplit(env, ':', absl::SkipEmpty())) {
      directories.emplace_back(dir);
    }
  }
  std::lock_guard<std::mutex> lock(SearchPathMutex());
  for (const std::string& dir : SearchPath()) directories.push_back(dir);
  return directories;
}

}  // namespace

absl::Status CheckPluginApiVersion(int major, int minor) {
  // Argument structs only grow: a plugin at least as new as our header
  // reads what we send; an older one would read past its struct sizes.
  if (major == PJRT_API_MAJOR && minor >= PJRT_API_MINOR) {
    return absl::OkStatus();
  }
  return absl::FailedPreconditionError(absl::StrCat(
      "the plugin implements PJRT C API ", major, ".", minor,
      ", but this build uses the ", PJRT_API_MAJOR, ".", PJRT_API_MINOR,
      " header and needs ", PJRT_API_MAJOR, ".", PJRT_API_MINOR,
      " or newer (same major version); install a newer plugin"));
}

void SetPluginSearchPath(std::vector<std::string> directories) {
  std::lock_guard<std::mutex> lock(SearchPathMutex());
  SearchPath() = std::move(directories);
}

absl::StatusOr<std::string> FindPluginLibrary(absl::string_view device_type) {
  const char* path = std::getenv("PJRT_PLUGIN_LIBRARY_PATH");
  if (path != nullptr && *path != '\0') {  // empty means unset
    if (!IsFile(path)) {
      return absl::NotFoundError(absl::StrCat(
          "PJRT_PLUGIN_LIBRARY_PATH=", path, " is not a file; point it at a ",
          "PJRT plugin .so or unset it"));
    }
    return std::string(path);
  }
  for (const PluginCandidates& plugin : KnownPlugins()) {
    if (plugin.device_type != device_type) continue;
    std::vector<std::string> directories = SearchDirectories();
    for (const std::string& dir : directories) {
      for (absl::string_view relative : plugin.relative_paths) {
        std::string path = absl::StrCat(dir, "/", relative);
        if (IsFile(path)) return path;
      }
    }
    return absl::NotFoundError(absl::StrCat(
        "no PJRT plugin found for PJRT_DEVICE=", device_type, " (looked for ",
        absl::StrJoin(plugin.relative_paths, ", "), " in ",
        directories.empty() ? "no directories"
                            : absl::StrJoin(directories, ":"),
        "); install it with '", plugin.install_hint,
        "' or set PJRT_PLUGIN_LIBRARY_PATH to the plugin .so"));
  }
  return absl::InvalidArgumentError(
      absl::StrCat("unknown PJRT_DEVICE '", device_type,
                   "'; use CPU, CUDA or TPU, or set PJRT_PLUGIN_LIBRARY_PATH"));
}

absl::StatusOr<const PJRT_Api*> LoadPlugin(const std::string& path) {
  static auto* mu = new std::mutex();
  static auto* loaded = new std::map<std::string, const PJRT_Api*>();
  std::lock_guard<std::mutex> lock(*mu);
  if (auto it = loaded->find(path); it != loaded->end()) return it->second;

  void* library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot load PJRT plugin ", path, ": ", dlerror()));
  }
  using GetPjrtApiFn = const PJRT_Api* (*)();
  auto get_api = reinterpret_cast<GetPjrtApiFn>(dlsym(library, "GetPjrtApi"));
  if (get_api == nullptr) {
    return absl::FailedPreconditionError(absl::StrCat(
        path, " is not a PJRT plugin: it does not export GetPjrtApi"));
  }
  const PJRT_Api* api = get_api();
  if (api == nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat("GetPjrtApi in ", path, " returned null"));
  }
  absl::Status compatible =
      CheckPluginApiVersion(api->pjrt_api_version.major_version,
                            api->pjrt_api_version.minor_version);
  if (!compatible.ok()) {
    return absl::FailedPreconditionError(
        absl::StrCat(path, ": ", compatible.message()));
  }
  auto init = PJRT_ARGS(PJRT_Plugin_Initialize);
  PJRT_RETURN_IF_ERROR(api, PJRT_Plugin_Initialize, init);
  loaded->emplace(path, api);
  return api;
}

}  // namespace torch_xla::runtime
