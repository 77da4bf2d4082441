"""The bad-input probe (see test_bad_input_probe.py for the harness):
indexing with host-known and device-computed indices, nn ops
(convolution, pooling, embedding, one_hot, losses, padding), random
sampling, histograms and distances, view(dtype), and tensors of two
devices."""

import pytest
import torch
import torch.nn.functional as F

from test_bad_input_probe import case, computed, f, ints, params, run

_NAN, _INF = float("nan"), float("inf")
_OUT_OF_BOUNDS = r"index is out of bounds for dimension \d with size 3"
_SAME_DEVICE = (RuntimeError, r"same device.*xla:0 and cpu|cpu and xla:0")


def _b(d, values):
  return torch.tensor(values, dtype=torch.bool).to(d)


def _img(d, n=1, c=3, h=5, w=5):
  return f(d, n, c, h, w)


def _grad(d, fn, *shape):
  """The gradient of fn(w).sum() with respect to w = f(d, *shape)."""
  w = f(d, *shape).detach().requires_grad_()
  fn(w).sum().backward()
  return w.grad


def _setitem(x, index, value):
  x[index] = value
  return x


CASES = [
    # Indexing: host-known indices.
    case("x[5] of 3", lambda d: f(d, 3)[5]),
    case("x[-4] of 3", lambda d: f(d, 3)[-4]),
    case("x[:, 5] of 2x3", lambda d: f(d, 2, 3)[:, 5]),
    case("too many indices", lambda d: f(d, 3)[0, 0]),
    case("float index tensor", lambda d: f(d, 3)[f(d, 1)],
         match="tensors used as indices must be long, int, byte or bool"),
    case("int16 index tensor", lambda d: f(d, 3)[ints(d, [0], torch.int16)],
         match="tensors used as indices must be long, int, byte or bool"),
    case("setitem float index tensor", lambda d: _setitem(
        f(d, 3), f(d, 1), 1.0),
         match="tensors used as indices must be long, int, byte or bool"),
    case("mask shape", lambda d: f(d, 3)[_b(d, [True, False])]),
    case("mask ok", lambda d: f(d, 3)[_b(d, [True, False, True])]),
    case("setitem value shape", lambda d: _setitem(f(d, 3), ints(
        d, [0, 1, 2]), f(d, 2))),
    case("setitem mask count", lambda d: _setitem(f(d, 3), _b(
        d, [True, False, True]), f(d, 3))),
    case("setitem float into int ok", lambda d: _setitem(ints(d, [1, 2]), 0,
                                                         2.7)),
    case("index_select dim 2", lambda d: f(d, 2, 3).index_select(2, ints(
        d, [0]))),
    case("index_select 2-d index", lambda d: f(d, 3).index_select(0, ints(
        d, [[0]]))),
    case("index_select float index", lambda d: f(d, 3).index_select(0, f(d,
                                                                         1))),
    case("index_select empty index ok", lambda d: f(d, 3).index_select(
        0, ints(d, []))),
    case("masked_select shape", lambda d: f(d, 3).masked_select(_b(
        d, [True, False]))),
    case("masked_select float mask", lambda d: f(d, 3).masked_select(f(d,
                                                                       3))),
    case("masked_fill float mask", lambda d: f(d, 3).masked_fill(f(d, 3),
                                                                 0.0)),
    case("masked_fill 1-d value", lambda d: f(d, 3).masked_fill(_b(
        d, [True, False, True]), f(d, 3))),
    case("gather rank mismatch", lambda d: torch.gather(f(d, 2, 3), 1, ints(
        d, [0, 1]))),
    case("gather index too large", lambda d: torch.gather(f(d, 2, 3), 0, ints(
        d, [[0, 1, 0, 1]]))),
    case("gather int32 index", lambda d: torch.gather(f(d, 2, 3), 1, ints(
        d, [[0], [1]], torch.int32))),
    case("scatter src dtype", lambda d: f(d, 3).scatter(0, ints(d, [0]), ints(
        d, [1]))),
    case("scatter_add src dtype", lambda d: f(d, 3).scatter_add(
        0, ints(d, [0]), ints(d, [1]))),
    case("scatter bad reduce", lambda d: f(d, 3).scatter_reduce(
        0, ints(d, [0]), f(d, 1), "median")),
    case("index_add source dtype", lambda d: f(d, 3).index_add(
        0, ints(d, [0]), ints(d, [1]))),
    case("index_put_ value dtype", lambda d: f(d, 3).index_put_(
        (ints(d, [0]),), ints(d, [1]))),
    case("index_copy dim mismatch", lambda d: f(d, 3, 2).index_copy(
        0, ints(d, [0]), f(d, 1, 3))),
    case("take float index", lambda d: torch.take(f(d, 3), f(d, 1))),
    # Indexing: indices computed on the device (checked at the sync).
    case("x[computed] out of range", lambda d: f(d, 3)[computed(d, [1, 3])]),
    case("x[computed] negative ok", lambda d: f(d, 3)[computed(d, [-3, 2])]),
    case("setitem computed", lambda d: _setitem(f(d, 3), computed(d, [4]),
                                                1.0)),
    case("index_select computed", lambda d: f(d, 3).index_select(
        0, computed(d, [0, 5]))),
    case("gather computed", lambda d: torch.gather(f(d, 2, 3), 1, computed(
        d, [[0], [3]])), match="gather: an " + _OUT_OF_BOUNDS),
    case("scatter computed", lambda d: f(d, 3).scatter(0, computed(d, [-1]),
                                                       1.0),
         match="scatter: an " + _OUT_OF_BOUNDS),
    case("take computed", lambda d: torch.take(f(d, 3), computed(d, [-4]))),
    case("index_add computed", lambda d: f(d, 3).index_add(
        0, computed(d, [3]), f(d, 1))),
    case("embedding computed", lambda d: F.embedding(computed(d, [4]),
                                                     f(d, 4, 2))),
    # Embedding.
    case("embedding padding_idx too large", lambda d: F.embedding(
        ints(d, [0]), f(d, 4, 2), padding_idx=4)),
    case("embedding padding_idx too negative", lambda d: F.embedding(
        ints(d, [0]), f(d, 4, 2), padding_idx=-5)),
    case("embedding padding_idx grad", lambda d: _grad(
        d, lambda w: F.embedding(ints(d, [0, 1, 1, 3]), w, padding_idx=1),
        4, 2)),
    case("embedding negative padding_idx grad", lambda d: _grad(
        d, lambda w: F.embedding(ints(d, [0, 3, 3]), w, padding_idx=-1), 4,
        2)),
    case("embedding float indices", lambda d: F.embedding(f(d, 2), f(d, 4,
                                                                     2))),
    case("embedding 1-d weight", lambda d: F.embedding(ints(d, [0]), f(d,
                                                                       4))),
    case("embedding negative index", lambda d: F.embedding(ints(d, [-1]),
                                                           f(d, 4, 2))),
    # one_hot.
    case("one_hot value >= classes", lambda d: F.one_hot(ints(d, [0, 5]),
                                                         3)),
    case("one_hot negative", lambda d: F.one_hot(ints(d, [0, -1]), 3)),
    case("one_hot computed >= classes", lambda d: F.one_hot(
        computed(d, [0, 3]), 3)),
    case("one_hot computed negative", lambda d: F.one_hot(
        computed(d, [-2, 1]), 3)),
    case("one_hot ok", lambda d: F.one_hot(computed(d, [[0, 2], [1, 1]]),
                                           3)),
    case("one_hot infer classes ok", lambda d: F.one_hot(ints(d, [0, 4]))),
    case("one_hot infer from empty", lambda d: F.one_hot(ints(d, []))),
    case("one_hot empty with classes ok", lambda d: F.one_hot(ints(d, []),
                                                              4)),
    case("one_hot 0 classes", lambda d: F.one_hot(ints(d, [0]), 0)),
    case("one_hot float", lambda d: F.one_hot(f(d, 2), 3)),
    case("one_hot int32", lambda d: F.one_hot(ints(d, [1], torch.int32), 3)),
    case("one_hot classes < -1", lambda d: F.one_hot(ints(d, [0]), -2)),
    # Convolution.
    case("conv2d channels", lambda d: F.conv2d(_img(d, c=2), f(d, 4, 3, 3,
                                                              3))),
    case("conv2d kernel too big", lambda d: F.conv2d(_img(d, h=2, w=2), f(
        d, 4, 3, 3, 3))),
    case("conv2d groups", lambda d: F.conv2d(_img(d, c=4), f(d, 3, 2, 1, 1),
                                             groups=2)),
    case("conv2d 2-d input", lambda d: F.conv2d(f(d, 5, 5), f(d, 4, 3, 3,
                                                              3))),
    case("conv2d stride 0", lambda d: F.conv2d(_img(d), f(d, 4, 3, 3, 3),
                                               stride=0)),
    case("conv2d negative padding", lambda d: F.conv2d(
        _img(d), f(d, 4, 3, 3, 3), padding=-1)),
    case("conv2d dilation 0", lambda d: F.conv2d(_img(d), f(d, 4, 3, 3, 3),
                                                 dilation=0)),
    case("conv2d bias size", lambda d: F.conv2d(_img(d), f(d, 4, 3, 3, 3),
                                                f(d, 3))),
    case("conv2d same strided", lambda d: F.conv2d(
        _img(d), f(d, 4, 3, 3, 3), stride=2, padding="same")),
    case("conv2d int input", lambda d: F.conv2d(_img(d).long(), f(
        d, 4, 3, 3, 3).long())),
    case("conv2d dtypes differ", lambda d: F.conv2d(_img(d), f(
        d, 4, 3, 3, 3).double())),
    case("conv1d 2-d weight", lambda d: F.conv1d(f(d, 1, 3, 5), f(d, 4, 3))),
    case("conv_transpose2d channels", lambda d: F.conv_transpose2d(
        _img(d, c=2), f(d, 3, 4, 3, 3))),
    case("conv_transpose2d output_padding", lambda d: F.conv_transpose2d(
        _img(d), f(d, 3, 4, 3, 3), stride=2, output_padding=2)),
    case("conv2d empty batch ok", lambda d: F.conv2d(_img(d, n=0), f(
        d, 4, 3, 3, 3))),
    # Pooling.
    case("max_pool2d kernel too big", lambda d: F.max_pool2d(_img(d), 6)),
    case("max_pool2d pad too big", lambda d: F.max_pool2d(_img(d), 2,
                                                          padding=2)),
    case("max_pool2d stride 0", lambda d: F.max_pool2d(_img(d), 2,
                                                       stride=0)),
    case("max_pool2d kernel 0", lambda d: F.max_pool2d(_img(d), 0)),
    case("max_pool2d 2-d input", lambda d: F.max_pool2d(f(d, 5, 5), 2)),
    case("max_pool2d int ok", lambda d: F.max_pool2d(_img(d).long(), 2)),
    case("max_pool1d kernel too big", lambda d: F.max_pool1d(f(d, 1, 2, 3),
                                                             4)),
    case("avg_pool2d kernel too big", lambda d: F.avg_pool2d(_img(d), 6)),
    case("avg_pool2d pad too big", lambda d: F.avg_pool2d(_img(d), 2,
                                                          padding=2)),
    case("avg_pool2d int", lambda d: F.avg_pool2d(_img(d).long(), 2)),
    case("avg_pool2d divisor 0", lambda d: F.avg_pool2d(_img(d), 2,
                                                        divisor_override=0)),
    case("adaptive_avg_pool2d negative", lambda d: F.adaptive_avg_pool2d(
        _img(d), (-1, 2))),
    case("adaptive_max_pool2d empty spatial", lambda d: F.adaptive_max_pool2d(
        _img(d, h=0), 2)),
    case("adaptive_avg_pool2d larger ok", lambda d: F.adaptive_avg_pool2d(
        _img(d, h=2, w=2), 3)),
    # Padding, normalization, losses.
    case("pad odd length", lambda d: F.pad(f(d, 2, 3), (1,))),
    case("pad too long", lambda d: F.pad(f(d, 3), (1, 1, 1, 1))),
    case("pad reflect too big", lambda d: F.pad(f(d, 1, 2, 3), (3, 3),
                                                mode="reflect")),
    case("pad negative crops ok", lambda d: F.pad(f(d, 2, 4), (-1, -1))),
    # Eager's text comes from the narrow it runs.
    case("pad negative too much", lambda d: F.pad(f(d, 2, 4), (-3, -2)),
         match="negative"),
    case("layer_norm shape", lambda d: F.layer_norm(f(d, 2, 3), (4,))),
    case("group_norm groups", lambda d: F.group_norm(f(d, 2, 6, 2), 4)),
    case("batch_norm running_mean size", lambda d: F.batch_norm(
        f(d, 2, 3), torch.zeros(4, device=d), torch.ones(4, device=d))),
    case("cross_entropy batch sizes", lambda d: F.cross_entropy(
        f(d, 2, 3), ints(d, [0, 1, 2]))),
    case("cross_entropy float target shape", lambda d: F.cross_entropy(
        f(d, 2, 3), f(d, 2, 4))),
    case("nll_loss float target", lambda d: F.nll_loss(f(d, 2, 3), f(d, 2))),
    case("nll_loss computed target", lambda d: F.nll_loss(
        f(d, 2, 3), computed(d, [0, 3]))),
    case("cross_entropy int logits", lambda d: F.cross_entropy(
        ints(d, [[1, 2]]), ints(d, [0]))),
    case("mse_loss shapes", lambda d: F.mse_loss(f(d, 2, 3), f(d, 3, 2))),
    case("bce input above 1", lambda d: F.binary_cross_entropy(
        f(d, 3) + 2, f(d, 3) * 0),
         match="all elements of input should be between 0 and 1"),
    case("bce target above 1", lambda d: F.binary_cross_entropy(
        f(d, 3).sigmoid(), f(d, 3) + 2),
         match="all elements of target should be between 0 and 1"),
    case("bce ok", lambda d: F.binary_cross_entropy(
        f(d, 3).sigmoid(), torch.tensor([0.0, 1.0, 0.5]).to(d))),
    case("bce target shape", lambda d: F.binary_cross_entropy(
        f(d, 3).sigmoid(), f(d, 2).sigmoid())),
    case("kl_div shapes", lambda d: F.kl_div(f(d, 2, 3), f(d, 3, 2))),
    case("dropout p > 1", lambda d: F.dropout(f(d, 3), 1.5)),
    # Random sampling.
    case("multinomial negative", lambda d: torch.multinomial(
        f(d, 2, 3), 1)),
    case("multinomial nan", lambda d: torch.multinomial(
        f(d, 3).exp() * _NAN, 1)),
    case("multinomial inf", lambda d: torch.multinomial(
        f(d, 3).exp() + _INF, 1)),
    case("multinomial zero row", lambda d: torch.multinomial(
        torch.tensor([[1.0, 2.0], [0.0, 0.0]]).to(d), 1)),
    case("multinomial computed negative", lambda d: torch.multinomial(
        f(d, 3) * 1 - 5, 1)),
    case("multinomial too many samples", lambda d: torch.multinomial(
        f(d, 3).exp(), 4)),
    case("multinomial 3-d", lambda d: torch.multinomial(f(d, 1, 2, 3).exp(),
                                                        1)),
    case("multinomial 0 samples", lambda d: torch.multinomial(f(d, 3).exp(),
                                                              0)),
    case("multinomial int probs", lambda d: torch.multinomial(
        ints(d, [1, 2]), 1)),
    case("multinomial 0 categories", lambda d: torch.multinomial(f(d, 2, 0),
                                                                 1)),
    case("multinomial ok", lambda d: torch.multinomial(
        f(d, 2, 3).exp(), 5, replacement=True), values=False),
    case("randint low >= high", lambda d: torch.randint(5, 5, (2,),
                                                        device=d)),
    case("randint high 0", lambda d: torch.randint(0, (2,), device=d)),
    case("randint negative size", lambda d: torch.randint(3, (-1,),
                                                          device=d)),
    case("rand int dtype", lambda d: torch.rand(2, dtype=torch.int64,
                                                device=d)),
    case("randn int dtype", lambda d: torch.randn(2, dtype=torch.int64,
                                                  device=d)),
    case("randperm negative", lambda d: torch.randperm(-1, device=d)),
    case("normal_ negative std", lambda d: f(d, 3).normal_(0, -1)),
    case("normal tensor negative std", lambda d: torch.normal(
        f(d, 3), f(d, 3))),
    case("uniform_ from > to", lambda d: f(d, 3).uniform_(1, 0)),
    case("uniform_ int", lambda d: ints(d, [1]).uniform_()),
    case("bernoulli p > 1", lambda d: f(d, 3).bernoulli_(1.5)),
    case("bernoulli tensor p > 1", lambda d: torch.bernoulli(f(d, 3) + 2)),
    case("exponential_ lambda 0", lambda d: f(d, 3).exponential_(0)),
    case("exponential_ negative lambda", lambda d: f(d, 3).exponential_(-1)),
    case("geometric_ p 0", lambda d: f(d, 3).geometric_(0)),
    case("geometric_ p > 1", lambda d: f(d, 3).geometric_(1.5)),
    case("random_ from >= to", lambda d: f(d, 3).random_(5, 2)),
    case("cauchy_ sigma 0", lambda d: f(d, 3).cauchy_(0, 0)),
    case("log_normal_ std 0", lambda d: f(d, 3).log_normal_(0, 0)),
    case("randint ok", lambda d: torch.randint(3, 7, (4,), device=d),
         values=False),
    case("random_ int8 to 1000", lambda d: ints(d, [0, 0], torch.int8)
         .random_(0, 1000)),
    case("random_ uint8 from -1", lambda d: ints(d, [0], torch.uint8)
         .random_(-1, 5)),
    case("random_ f16 to 70000", lambda d: f(d, 2).half().random_(0, 70000)),
    case("randint int8 high 1000", lambda d: torch.randint(
        0, 1000, (3,), dtype=torch.int8, device=d)),
    case("exponential_ int", lambda d: ints(d, [1, 2]).exponential_()),
    case("log_normal_ int", lambda d: ints(d, [1, 2]).log_normal_()),
    case("cauchy_ int", lambda d: ints(d, [1, 2]).cauchy_()),
    case("normal_ nan std", lambda d: f(d, 3).normal_(0, _NAN)),
    case("exponential_ nan", lambda d: f(d, 3).exponential_(_NAN)),
    case("bernoulli_ p nan", lambda d: f(d, 3).bernoulli_(_NAN)),
    case("uniform_ to inf", lambda d: f(d, 3).uniform_(0, _INF)),
    case("uniform_ from nan", lambda d: f(d, 3).uniform_(_NAN, 1)),
    case("uniform_ f16 from -70000", lambda d: f(d, 3).half().uniform_(
        -70000, 70000)),
    case("uniform_ range overflows", lambda d: f(d, 3).uniform_(-3e38, 3e38)),
    case("randperm int8 300", lambda d: torch.randperm(300, dtype=torch.int8,
                                                       device=d)),
    case("randperm uint8 256 ok", lambda d: torch.randperm(
        256, dtype=torch.uint8, device=d).sort()[0]),
    case("randperm f16 5000", lambda d: torch.randperm(
        5000, dtype=torch.float16, device=d)),
    case("dropout int", lambda d: F.dropout(ints(d, [1, 2]), 0.5)),
    case("dropout p -0.1", lambda d: F.dropout(f(d, 3), -0.1)),
    case("rand_like int", lambda d: torch.rand_like(ints(d, [1, 2]))),
    case("randn bool", lambda d: torch.randn(3, dtype=torch.bool, device=d)),
    case("poisson negative rates", lambda d: torch.poisson(f(d, 3))),
    # Histograms, distances, searching.
    case("histc min > max", lambda d: torch.histc(f(d, 4), 4, 3, 1)),
    case("histc bins 0", lambda d: torch.histc(f(d, 4), 0)),
    # Integers are counted as eager CUDA counts them (histogram.py); eager
    # CPU raises NotImplementedError.
    case("histc int", lambda d: torch.histc(ints(d, [1, 2]), 4),
         eager=lambda d: torch.histc(ints(d, [1, 2]).double(), 4).long()),
    case("bincount negative", lambda d: torch.bincount(ints(d, [1, -1]))),
    case("bincount float", lambda d: torch.bincount(f(d, 2))),
    case("bincount 2-d", lambda d: torch.bincount(ints(d, [[1]]))),
    case("bincount weights length", lambda d: torch.bincount(
        ints(d, [1, 2]), f(d, 3))),
    case("bincount ok", lambda d: torch.bincount(ints(d, [1, 4, 1]))),
    case("cdist columns", lambda d: torch.cdist(f(d, 2, 3), f(d, 2, 4))),
    case("cdist negative p", lambda d: torch.cdist(f(d, 2, 3), f(d, 2, 3),
                                                   p=-1)),
    case("cdist 1-d", lambda d: torch.cdist(f(d, 3), f(d, 3))),
    case("pdist 1-d", lambda d: F.pdist(f(d, 3))),
    case("pdist negative p", lambda d: F.pdist(f(d, 2, 3), p=-1)),
    case("cosine_similarity shapes", lambda d: F.cosine_similarity(
        f(d, 2, 3), f(d, 2, 4))),
    case("searchsorted dims", lambda d: torch.searchsorted(f(d, 2, 3),
                                                           f(d, 3, 1))),
    case("searchsorted int and float", lambda d: torch.searchsorted(
        ints(d, [1, 2, 3]), f(d, 2))),
    case("bucketize 2-d boundaries", lambda d: torch.bucketize(f(d, 2),
                                                               f(d, 2, 2))),
    # view(dtype): the bits, with eager's shape rules.
    case("view f32 as int16", lambda d: f(d, 2, 3).view(torch.int16)),
    case("view f32 as int64", lambda d: f(d, 2, 4).view(torch.int64)),
    case("view f32 as uint8", lambda d: f(d, 2).view(torch.uint8)),
    case("view uint8 as f64", lambda d: ints(d, [[0, 0, 0, 0, 0, 0, 240, 63]],
                                             torch.uint8).view(
                                                 torch.float64)),
    case("view f32 as bool", lambda d: (f(d, 2) * 0).view(torch.bool)),
    case("view bool as uint8", lambda d: _b(d, [True, False]).view(
        torch.uint8)),
    case("view int8 as bool", lambda d: ints(d, [1, 0], torch.int8).view(
        torch.bool)),
    case("view f16 as int32 odd", lambda d: f(d, 2, 3).half().view(
        torch.int32)),
    case("view f32 as int64 odd", lambda d: f(d, 2, 3).view(torch.int64)),
    case("view 0-d as int16", lambda d: f(d, 1).sum().view(torch.int16)),
    case("view 0-d as int32 ok", lambda d: f(d, 1).sum().view(torch.int32)),
    case("view transpose as int16", lambda d: f(d, 2, 4).t().view(
        torch.int16)),
    case("view offset slice as int64", lambda d: f(d, 2, 4)[:, 1:3].view(
        torch.int64)),
    case("view slice as int64 ok", lambda d: f(d, 2, 4)[:, 2:].view(
        torch.int64)),
    case("view f32 as int16 write back", lambda d: _setitem(
        f(d, 2, 2), (), f(d, 2, 2)).view(torch.int16).add_(1)),
    case("view as int16 then write base", lambda d: _view_write(d)),
    case("view empty as int64 ok", lambda d: f(d, 0, 2).view(torch.int64)),
    case("view f64 as f32", lambda d: f(d, 2, 3).double().view(
        torch.float32)),
    case("view bf16 as uint8", lambda d: f(d, 3).bfloat16().view(
        torch.uint8)),
    case("view int8 as f16", lambda d: ints(d, [[0, 60, 1, -68]],
                                            torch.int8).view(torch.float16)),
    case("view int16 as f64", lambda d: ints(d, [[0, 0, 0, 16368, 1, 2, 3,
                                                  -4]], torch.int16).view(
                                                      torch.float64)),
    case("write through int16 view reaches base", lambda d: _write_view(
        d, torch.int16)),
    case("write through int64 view reaches base", lambda d: _write_view(
        d, torch.int64)),
    case("write through uint8 view of slice", lambda d: _write_view(
        d, torch.uint8, sliced=True)),
    # Tensors of two devices (eager on an accelerator refuses them too).
    case("add xla and cpu", lambda d: f(d, 2, 3) + f("cpu", 2, 3),
         expect=_SAME_DEVICE),
    case("add cpu and xla", lambda d: f("cpu", 2, 3) + f(d, 2, 3),
         expect=_SAME_DEVICE),
    case("mm xla and cpu", lambda d: f(d, 2, 3) @ f("cpu", 3, 2),
         expect=_SAME_DEVICE),
    case("cat xla and cpu", lambda d: torch.cat([f(d, 2), f("cpu", 2)]),
         expect=_SAME_DEVICE),
    case("where cpu condition", lambda d: torch.where(_b(
        "cpu", [True, False]), f(d, 2), f(d, 2)), expect=_SAME_DEVICE),
    case("add_ cpu into xla", lambda d: f(d, 2).add_(f("cpu", 2)),
         expect=_SAME_DEVICE),
    case("linear cpu weight", lambda d: F.linear(f(d, 2, 3), f("cpu", 4, 3)),
         expect=_SAME_DEVICE),
    case("scatter cpu src", lambda d: f(d, 3).scatter(0, ints(d, [0]), f(
        "cpu", 1)), expect=_SAME_DEVICE),
    case("add xla and cpu 0-d ok", lambda d: f(d, 2) + f("cpu", 1).sum()),
    case("copy_ cpu into xla ok", lambda d: f(d, 2).copy_(f("cpu", 2) + 1)),
]


def _write_view(d, dtype, sliced=False):
  x = f(d, 2, 4)
  y = (x[:, 2:] if sliced else x).view(dtype)
  y[0, 1] = 7
  y[-1].add_(1)
  return x, y


def _view_write(d):
  x = f(d, 2, 2)
  y = x.view(torch.int16)
  x.mul_(3)
  return y.clone(), x


@pytest.mark.parametrize("c", params(CASES))
def test_indexing_nn_random_devices(c):
  run(c)
