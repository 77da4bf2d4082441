"""Mixed precision (upstream name: torch_xla.amp).

`autocast(device)` is `torch.autocast('xla', dtype=torch.bfloat16)`; the XLA
autocast policy it applies lives in torch_xla/_autocast.py.
"""

from torch_xla.amp.autocast_mode import autocast

__all__ = ["autocast"]
