"""Upstream keeps the donor-config context manager here; same object."""

from torch_xla import alias_with_buffer_donor_config  # noqa: F401
