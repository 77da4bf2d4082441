"""Internal modules kept at upstream's paths (torch_xla._internal.pjrt)."""
