"""Builds torch_xla: Bazel compiles the _XLAC extension, setuptools packages it.

  pip install --no-build-isolation -e .   # development (scripts/setup.sh)
  pip wheel --no-build-isolation .        # distribution

--no-build-isolation matters: Bazel's repository rule reads torch, pybind11
and the PJRT header from the Python environment doing the build.
"""

import os
import re
import shutil
import subprocess
import sys

from setuptools import Extension, find_packages, setup
from setuptools.command.build_ext import build_ext

ROOT = os.path.dirname(os.path.abspath(__file__))


class BazelExtension(Extension):

  def __init__(self, name: str, target: str, output: str):
    super().__init__(name, sources=[])
    self.target = target
    self.output = output


class BazelBuildExt(build_ext):

  def build_extension(self, ext: BazelExtension) -> None:
    env = dict(os.environ, TORCH_XLA_PYTHON=sys.executable)
    subprocess.check_call(["bazel", "build", ext.target], cwd=ROOT, env=env)
    built = os.path.join(ROOT, "bazel-bin", ext.output)
    destination = self.get_ext_fullpath(ext.name)
    os.makedirs(os.path.dirname(destination), exist_ok=True)
    if os.path.exists(destination):
      os.remove(destination)  # Bazel outputs are read-only
    shutil.copyfile(built, destination)
    os.chmod(destination, 0o755)
    if not self.inplace:
      # A wheel must run where Debian's Abseil is not installed.
      bundle_shared_libs(destination, os.path.join(
          os.path.dirname(destination), BUNDLED_LIB_DIR))


# Shared libraries a wheel carries next to _XLAC.so: Abseil, which Bazel links
# from Debian's libabsl-dev (its static archives are not -fPIC, so they
# cannot go into a shared object). _XLAC.so's DT_RPATH ($ORIGIN/lib, see
# torch_xla/BUILD) finds them, and their own dependencies on each other too.
BUNDLED_LIB_DIR = "lib"
BUNDLED_LIB_PATTERN = re.compile(r"libabsl_\w+\.so[.\d]*$")


def bundle_shared_libs(extension: str, lib_dir: str) -> None:
  """Copies the bundled libraries `extension` loads (directly or not) into
  `lib_dir`, each under the name its dependents ask for (its soname)."""
  # A previous build's bundle would be found through the rpath: start over
  # so ldd reports the system's copies.
  shutil.rmtree(lib_dir, ignore_errors=True)
  listing = subprocess.run(["ldd", extension], check=True,
                           capture_output=True, text=True).stdout
  os.makedirs(lib_dir)
  copied = 0
  for line in listing.splitlines():
    # "\tlibabsl_base.so.20220623 => /usr/lib/.../libabsl_base.so.20220623 (0x..)"
    parts = line.split()
    if len(parts) < 3 or parts[1] != "=>":
      continue
    soname, path = parts[0], parts[2]
    if not BUNDLED_LIB_PATTERN.match(soname):
      continue
    if not os.path.isfile(path):
      raise RuntimeError(f"bundling {soname} into the wheel: ldd does not "
                         f"find it ({line.strip()}); apt-get install "
                         f"libabsl-dev")
    shutil.copyfile(path, os.path.join(lib_dir, soname))  # follows links
    copied += 1
  if copied == 0:
    raise RuntimeError(f"bundling Abseil into the wheel: ldd lists no "
                       f"libabsl_* library for {extension}:\n{listing}")


setup(
    name="torch_xla",
    version="0.1.0",
    description="PyTorch on XLA devices through PJRT (fork module)",
    packages=find_packages(include=["torch_xla", "torch_xla.*"]),
    ext_modules=[
        BazelExtension("torch_xla._XLAC", "//torch_xla:_XLAC",
                       "torch_xla/_XLAC.so")
    ],
    cmdclass={"build_ext": BazelBuildExt},
    python_requires=">=3.10",
    # The CPU PJRT plugin: xla-cpu-pjrt has no dependencies. The faster
    # lammps-jax-pjrt-cpu declares jax, so it is a manual, --no-deps install
    # (README.md); libtpu for TPUs likewise.
    install_requires=["torch==2.13.*", "xla-cpu-pjrt>=0.0.1"],
)
