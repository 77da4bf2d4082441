"""Experimental APIs (upstream names): scan, scan_layers,
gradient_accumulation. Import the submodules directly."""
