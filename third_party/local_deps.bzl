"""Repository rules that find the build's inputs on this machine, offline.

python_env_repository: the project's Python environment (.venv in the
workspace, or $TORCH_XLA_PYTHON) gives the Python headers, pybind11, torch's
c10 headers and libc10 (for the device guard only) and the PJRT C API header
from the xla-cpu-pjrt package.

system_deps_repository: Abseil and googletest from Debian packages.
"""

_PROBE = """
import json, os, sysconfig
import pybind11, torch
import xla_plugins.xla_cpu_pjrt as cpu
torch_dir = os.path.dirname(torch.__file__)
print(json.dumps({
    "python_include": sysconfig.get_paths()["include"],
    "pybind11_include": pybind11.get_include(),
    "torch_include": os.path.join(torch_dir, "include"),
    "torch_lib": os.path.join(torch_dir, "lib"),
    "cxx11_abi": int(torch._C._GLIBCXX_USE_CXX11_ABI),
    "pjrt_include": os.path.join(os.path.dirname(cpu.__file__), "include"),
    "site_packages": sysconfig.get_paths()["purelib"],
}))
"""

def _find_python(ctx):
    explicit = ctx.os.environ.get("TORCH_XLA_PYTHON", "")
    if explicit:
        return explicit
    workspace = ctx.path(Label("//:WORKSPACE")).dirname
    venv = workspace.get_child(".venv").get_child("bin").get_child("python")
    if venv.exists:
        return str(venv)
    fail("no Python environment: run scripts/setup.sh (it makes .venv) or " +
         "set TORCH_XLA_PYTHON to a python with torch, pybind11 and " +
         "xla-cpu-pjrt installed")

def _python_env_impl(ctx):
    python = _find_python(ctx)
    result = ctx.execute([python, "-c", _PROBE])
    if result.return_code != 0:
        fail("probing " + python + " failed (is requirements.txt " +
             "installed?):\n" + result.stderr)
    info = json.decode(result.stdout)
    ctx.symlink(info["python_include"], "python_include")
    ctx.symlink(info["pybind11_include"], "pybind11_include")
    ctx.symlink(info["torch_include"] + "/c10", "c10_include/c10")
    ctx.symlink(info["torch_include"] + "/torch/headeronly", "c10_include/torch/headeronly")
    ctx.symlink(info["torch_lib"] + "/libc10.so", "lib/libc10.so")
    ctx.symlink(info["pjrt_include"] + "/pjrt_c_api.h",
                "pjrt_include/xla/pjrt/c/pjrt_c_api.h")
    ctx.file("paths.bzl", "SITE_PACKAGES = %r\nPYTHON = %r\n" % (
        info["site_packages"],
        python,
    ))
    ctx.file("BUILD", """
package(default_visibility = ["//visibility:public"])

cc_library(
    name = "python_headers",
    hdrs = glob(["python_include/**/*.h"]),
    includes = ["python_include"],
)

cc_library(
    name = "pybind11",
    hdrs = glob(["pybind11_include/**/*.h"]),
    includes = ["pybind11_include"],
    deps = [":python_headers"],
)

# Only c10: the device guard is the one file that includes torch headers.
cc_library(
    name = "c10",
    hdrs = glob(["c10_include/**/*.h"]),
    includes = ["c10_include"],
    defines = ["_GLIBCXX_USE_CXX11_ABI=%d"],
    srcs = ["lib/libc10.so"],
)

cc_library(
    name = "pjrt_c_api",
    hdrs = ["pjrt_include/xla/pjrt/c/pjrt_c_api.h"],
    includes = ["pjrt_include"],
)
""" % info["cxx11_abi"])

python_env_repository = repository_rule(
    implementation = _python_env_impl,
    environ = ["TORCH_XLA_PYTHON"],
    local = True,
)

_LIB_DIRS = ["/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64", "/usr/lib"]

def _system_deps_impl(ctx):
    libdir = None
    for d in _LIB_DIRS:
        if ctx.path(d + "/libabsl_base.so").exists:
            libdir = d
            break
    if libdir == None:
        fail("Abseil not found: apt-get install libabsl-dev")
    if not ctx.path("/usr/include/gtest/gtest.h").exists:
        fail("googletest not found: apt-get install libgtest-dev")
    ctx.symlink("/usr/include/absl", "include/absl")
    ctx.symlink("/usr/include/gtest", "gtest_include/gtest")
    absl_libs = []
    for entry in ctx.path(libdir).readdir():
        name = entry.basename
        if name.startswith("libabsl_") and name.endswith(".so"):
            absl_libs.append("-l" + name[len("lib"):-len(".so")])
    ctx.file("BUILD", """
package(default_visibility = ["//visibility:public"])

# Debian ships Abseil's static archives without -fPIC, so link the shared
# libraries (--as-needed keeps only the ones we use).
cc_library(
    name = "absl",
    hdrs = glob(["include/absl/**/*.h", "include/absl/**/*.inc"]),
    includes = ["include"],
    linkopts = ["-Wl,--as-needed"] + %r + ["-Wl,--no-as-needed"],
)

cc_library(
    name = "gtest",
    hdrs = glob(["gtest_include/**/*.h"]),
    includes = ["gtest_include"],
    linkopts = ["-lgtest", "-pthread"],
)

cc_library(
    name = "gtest_main",
    deps = [":gtest"],
    linkopts = ["-lgtest_main"],
)
""" % sorted(absl_libs))

system_deps_repository = repository_rule(
    implementation = _system_deps_impl,
    local = True,
)
