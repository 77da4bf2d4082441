import os
import sys

import pytest
import torch

# Tests import op_test_utils from this folder.
sys.path.insert(0, os.path.dirname(__file__))


@pytest.fixture(autouse=True)
def _seed():
  """Every test starts from the same random state."""
  torch.manual_seed(0)
