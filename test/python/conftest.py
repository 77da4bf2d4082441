import os
import sys

# Tests import op_test_utils from this folder.
sys.path.insert(0, os.path.dirname(__file__))
