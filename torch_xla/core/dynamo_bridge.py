"""Upstream's import path for the torch.compile bridge (PyTorch's 'openxla'
backend imports it): see torch_xla/_dynamo/dynamo_bridge.py."""

from torch_xla._dynamo.dynamo_bridge import extract_compiled_graph  # noqa: F401
