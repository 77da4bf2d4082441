"""torch_xla.core.xla_env_vars: the names user code imports, and every
variable the runtime reads is among them."""

import os
import pathlib
import re
import subprocess
import sys

import torch_xla.core.xla_env_vars as xenv

ROOT = pathlib.Path(__file__).resolve().parents[2]


def constants():
  return {k: v for k, v in vars(xenv).items() if k.isupper()}


def test_every_variable_the_sources_read_has_a_constant():
  # getenv("X") in C++, os.environ.get("X") in Python.
  pattern = re.compile(r'(?:getenv\(|environ\.get\(|environ\[)"([A-Z_0-9]+)"')
  read = set()
  for path in (ROOT / "torch_xla").rglob("*"):
    if path.suffix in (".cc", ".h", ".py") and path.name != "xla_env_vars.py":
      read.update(pattern.findall(path.read_text()))
  assert {"PJRT_DEVICE", "CPU_NUM_DEVICES", "XLA_USE_SPMD"} <= read
  assert read <= set(constants().values())


def test_the_runtime_reads_the_named_variables():
  code = ("import torch_xla.runtime as xr; "
          "print(xr.device_type(), xr.global_runtime_device_count(), "
          "xr.is_spmd())")
  env = dict(os.environ)
  env.update({xenv.PJRT_DEVICE: "CPU", xenv.CPU_NUM_DEVICES: "2",
              xenv.XLA_USE_SPMD: "1"})
  out = subprocess.run([sys.executable, "-c", code], env=env, check=True,
                       capture_output=True, text=True).stdout
  assert out.split() == ["CPU", "2", "True"]
