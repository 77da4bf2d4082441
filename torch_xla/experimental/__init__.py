"""Experimental APIs (upstream names): scan, scan_layers,
gradient_accumulation. Import the submodules directly."""
from torch_xla.experimental.eager import (eager_mode, eager_mode_context,  # noqa: F401
                                          is_eager_mode)
