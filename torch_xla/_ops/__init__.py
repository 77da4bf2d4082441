"""ATen rules for the 'xla' device, one module per op family.

Importing this package registers every rule (see registry.py).
"""

from torch_xla._ops import registry  # noqa: F401  (first: holds the table)
from torch_xla._ops import copy_ops  # noqa: F401
from torch_xla._ops import elementwise, unary_math, clamp  # noqa: F401
from torch_xla._ops import reductions, normalization, losses  # noqa: F401
from torch_xla._ops import views, storage_views, shape_ops  # noqa: F401
from torch_xla._ops import index_util, advanced_indexing  # noqa: F401
from torch_xla._ops import index_along_dim, gather_scatter  # noqa: F401
from torch_xla._ops import masked_ops, embedding  # noqa: F401
from torch_xla._ops import linalg, convolution, pooling  # noqa: F401
from torch_xla._ops import random_ops, random_sampling, optim_ops  # noqa: F401
from torch_xla._ops import distances, histogram, group_norm  # noqa: F401
from torch_xla._ops import bit_math, order_stats  # noqa: F401
from torch_xla._ops import view_copies  # noqa: F401  (after the views)

from torch_xla._ops import grouped_mm  # noqa: F401,E402
from torch_xla._ops import one_hot  # noqa: F401,E402
from torch_xla._ops import decomposition_checks  # noqa: F401,E402
from torch_xla._ops import interpolation, grid_sampler  # noqa: F401,E402
from torch_xla._ops import unpooling  # noqa: F401,E402

from torch_xla._ops import cpu_fallback  # noqa: E402

registry.register_dispatch(cpu_fallback.cpu_fallback)
