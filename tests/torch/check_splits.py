#!/usr/bin/env python3
"""ctest torch.split.a and .b: `scripts/export_model.py ARCH... --check` (same arguments), with
torchvision's weight initialisation replaced by a cheap fill.

What the check proves, that the blocks run in order give the whole model's output, depends on
each model's graph, not on how its random weights are distributed. torchvision's initialisation
(trunc_normal_'s erfinv_, and uniform_ for every layer, most of them twice) took 6.4 s of CPU of
the eleven architectures' 14 s (2026-11-29). Here each tensor an init function is given is
filled from one pool of seeded normal samples at its own offset (no two layers alike, so a
block that ran another layer's weights would still show), scaled to the mean and deviation the
function would have drawn from, so activations keep their magnitudes.
"""

import math
import os
import sys

import torch
import torch.nn.init as init

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
import export_model  # noqa: E402  (after the path it is found on)

POOL_SIZE = 1 << 16
_pool = None
_offset = 0


def _fill(tensor, mean, std):
    global _pool, _offset
    if _pool is None:
        samples = torch.randn(POOL_SIZE, generator=torch.Generator().manual_seed(0))
        _pool = torch.cat([samples, samples])  # any offset has POOL_SIZE samples after it
    with torch.no_grad():
        flat = tensor.view(-1)
        for start in range(0, flat.numel(), POOL_SIZE):
            part = flat[start:start + POOL_SIZE]
            part.copy_(_pool[_offset:_offset + part.numel()])
            _offset = (_offset + 7919) % POOL_SIZE  # a prime: offsets cycle through the pool
        flat.mul_(std).add_(mean)
    return tensor


def uniform_(tensor, a=0.0, b=1.0, **_):
    return _fill(tensor, (a + b) / 2, (b - a) / math.sqrt(12))


def normal_(tensor, mean=0.0, std=1.0, **_):
    return _fill(tensor, mean, std)


def trunc_normal_(tensor, mean=0.0, std=1.0, a=-2.0, b=2.0, **_):
    _fill(tensor, mean, std)
    with torch.no_grad():
        return tensor.clamp_(a, b)


def _kaiming_std(tensor, a, mode, nonlinearity):
    return init.calculate_gain(nonlinearity, a) / math.sqrt(init._calculate_correct_fan(tensor, mode))


def kaiming_uniform_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", **_):
    return _fill(tensor, 0.0, _kaiming_std(tensor, a, mode, nonlinearity))


kaiming_normal_ = kaiming_uniform_  # the fill is the same shape for both; only the deviation counts


def _xavier_std(tensor, gain):
    fan_in, fan_out = init._calculate_fan_in_and_fan_out(tensor)
    return gain * math.sqrt(2.0 / (fan_in + fan_out))


def xavier_uniform_(tensor, gain=1.0, **_):
    return _fill(tensor, 0.0, _xavier_std(tensor, gain))


xavier_normal_ = xavier_uniform_


for _name in ("uniform_", "normal_", "trunc_normal_", "kaiming_uniform_", "kaiming_normal_", "xavier_uniform_",
              "xavier_normal_"):
    setattr(init, _name, globals()[_name])

if __name__ == "__main__":
    if "--check" not in sys.argv[1:]:
        sys.stderr.write("error: check_splits.py only checks (--check): exported models keep torchvision's weights\n")
        sys.exit(2)
    sys.exit(export_model.main(sys.argv[1:]))
