"""The work of one torch.fx node, from the shapes ShapeProp gave it (issue 48: cost for every
operator): multiply-accumulates of convolutions, linear layers, matrix products, attention,
transformer layers and recurrent layers; an element's worth for each output element of
everything else (norms, softmax, activations, elementwise arithmetic, embedding lookups), so no
block of a model counts as nothing. export_model.py balances blocks by it."""

import math

import torch
from torch import nn
import torch.nn.functional as F


def _shape(value):
    meta = getattr(value, "meta", {}).get("tensor_meta") if hasattr(value, "meta") else None
    return list(meta.shape) if hasattr(meta, "shape") else None


def _elements(shape):
    return math.prod(shape) if shape else 0


def _sequence_and_width(shape, batch_first):
    """(length, width) of a (batch, length, width) or (length, batch, width) tensor."""
    if not shape or len(shape) < 2:
        return 1, shape[-1] if shape else 0
    if len(shape) == 2:
        return shape[0], shape[1]
    return (shape[1] if batch_first else shape[0]), shape[-1]


def _attention(length, width):
    """Q, K, V and output projections, the scores and their weighted sum, per sequence."""
    return 4 * length * width * width + 2 * length * length * width


def _recurrent(m, length):
    gates = {nn.LSTM: 4, nn.GRU: 3}.get(type(m), 1)
    directions = 2 if m.bidirectional else 1
    total, width_in = 0, m.input_size
    for _ in range(m.num_layers):
        total += directions * length * gates * m.hidden_size * (width_in + m.hidden_size)
        width_in = m.hidden_size * directions
    return total


def _module_work(m, node, out_shape):
    first = _shape(node.args[0]) if node.args else None
    if isinstance(m, nn.modules.conv._ConvNd):
        return _elements(out_shape) * math.prod(m.kernel_size) * (m.in_channels // m.groups)
    if isinstance(m, nn.Linear):
        return _elements(out_shape) * m.in_features
    if isinstance(m, nn.MultiheadAttention):
        length, width = _sequence_and_width(first, m.batch_first)
        batch = _elements(first) // max(1, length * width)
        return batch * _attention(length, width)
    if isinstance(m, (nn.TransformerEncoderLayer, nn.TransformerDecoderLayer)):
        attention = m.self_attn
        length, width = _sequence_and_width(first, attention.batch_first)
        batch = _elements(first) // max(1, length * width)
        ffn = 2 * length * width * m.linear1.out_features
        cross = _attention(length, width) if isinstance(m, nn.TransformerDecoderLayer) else 0
        return batch * (_attention(length, width) + cross + ffn)
    if isinstance(m, (nn.TransformerEncoder, nn.TransformerDecoder)):
        return sum(_module_work(layer, node, out_shape) for layer in m.layers)
    if isinstance(m, nn.RNNBase):
        length, _ = _sequence_and_width(first, m.batch_first)
        batch = _elements(first) // max(1, length * m.input_size)
        return batch * _recurrent(m, length)
    return None  # an element's worth per output element


def _function_work(node, out_shape):
    target = node.target
    if target in (torch.matmul, torch.bmm, torch.mm, "matmul", "bmm", "mm") or \
            getattr(target, "__name__", "") in ("matmul", "bmm", "mm"):
        a = _shape(node.args[0]) if node.args else None
        return _elements(out_shape) * (a[-1] if a else 1)
    if target is F.linear:
        w = _shape(node.args[1]) if len(node.args) > 1 else None
        return _elements(out_shape) * (w[-1] if w else 1)
    if target in (F.conv1d, F.conv2d, F.conv3d):
        w = _shape(node.args[1]) if len(node.args) > 1 else None
        return _elements(out_shape) * (_elements(w[1:]) if w else 1)
    sdpa = getattr(F, "scaled_dot_product_attention", None)
    if sdpa is not None and target is sdpa:
        q = _shape(node.args[0])
        k = _shape(node.args[1]) if len(node.args) > 1 else q
        return 2 * _elements(q) * (k[-2] if k and len(k) >= 2 else 1)
    return None


def node_work(node, modules):
    """The node's work in multiply-accumulates (an element's worth for elementwise steps)."""
    if node.op in ("placeholder", "output", "get_attr"):
        return 0
    out_shape = _shape(node)
    if out_shape is None:  # a tuple (an RNN's output and state): costed where it is made
        meta = node.meta.get("tensor_meta")
        parts = meta if isinstance(meta, (tuple, list)) else ()
        out_shape = [sum(_elements(list(p.shape)) for p in parts if hasattr(p, "shape"))]
    work = None
    if node.op == "call_module":
        work = _module_work(modules[node.target], node, out_shape)
    elif node.op in ("call_function", "call_method"):
        work = _function_work(node, out_shape)
    return work if work is not None else _elements(out_shape)
