"""ATen rules for the 'xla' device, one module per op family.

Importing this package registers every rule (see registry.py).
"""

from torch_xla._ops import registry  # noqa: F401  (first: holds the table)
from torch_xla._ops import copy_ops  # noqa: F401
from torch_xla._ops import elementwise  # noqa: F401
from torch_xla._ops import reductions, normalization, losses  # noqa: F401
from torch_xla._ops import views, shape_ops, indexing  # noqa: F401
from torch_xla._ops import linalg, convolution, pooling  # noqa: F401
from torch_xla._ops import random_ops, optim_ops  # noqa: F401

registry.install()
