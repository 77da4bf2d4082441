"""Runs a reference script of ../shared/anchors (the JAX models, or a
`*_txla.py` model under a given Python) in its own process and returns the
JSON line it prints, so a benchmark can report ratios measured in one run."""

import json
import os
import subprocess


def run_anchor(python, anchors, script, *args):
  env = dict(os.environ, JAX_PLATFORMS="cpu", PJRT_DEVICE="CPU")
  anchors = os.path.abspath(anchors)  # the script runs with cwd=anchors
  out = subprocess.run([python, os.path.join(anchors, script), *args],
                       check=True, capture_output=True, text=True, env=env,
                       cwd=anchors)
  return json.loads(out.stdout.strip().splitlines()[-1])


def steady_step_s(result):
  """The median steady step of an anchor's result (they nest it under
  'steady')."""
  return result.get("steady", result).get("median_wall_s")
