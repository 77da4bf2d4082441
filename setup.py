"""Builds torch_xla: Bazel compiles the _XLAC extension, setuptools packages it.

  pip install --no-build-isolation -e .   # development (scripts/setup.sh)
  pip wheel --no-build-isolation .        # distribution

--no-build-isolation matters: Bazel's repository rule reads torch, pybind11
and the PJRT header from the Python environment doing the build.
"""

import os
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
    install_requires=["torch==2.13.0", "xla-cpu-pjrt"],
)
