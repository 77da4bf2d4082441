"""Forwards to Bazel 4's native C++ rules (Debian's rules_cc is too new).

Bazel's own tools load these names from @rules_cc too, so every rule they
use is forwarded.
"""

cc_binary = native.cc_binary
cc_import = native.cc_import
cc_library = native.cc_library
cc_proto_library = native.cc_proto_library
cc_test = native.cc_test
cc_toolchain = native.cc_toolchain
cc_toolchain_suite = native.cc_toolchain_suite
objc_library = native.objc_library
