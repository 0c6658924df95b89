"""Models a user brings of their own (issue 48), exported by ctest through FILE.py:FACTORY:
token ids into a small BERT-like encoder, a GRU classifier over token ids, and a model whose
first step turns its float input into integers (bins looked up in an embedding). Small, so
that export, profile and a live run stay quick on a CPU."""

import torch
from torch import nn

VOCABULARY = 1000
SEQUENCE = 32


class Encoder(nn.Module):
    """Token ids (SEQUENCE of them) through an embedding with learned positions, two
    transformer layers, mean pooling and a classifier."""

    def __init__(self, width=64, heads=4, layers=2, classes=8):
        super().__init__()
        self.tokens = nn.Embedding(VOCABULARY, width)
        self.positions = nn.Parameter(torch.randn(1, SEQUENCE, width) * 0.02)
        self.layers = nn.Sequential(*[
            nn.TransformerEncoderLayer(width, heads, dim_feedforward=4 * width, dropout=0.0, batch_first=True)
            for _ in range(layers)])
        self.norm = nn.LayerNorm(width)
        self.head = nn.Linear(width, classes)

    def forward(self, ids):
        x = self.tokens(ids) + self.positions
        x = self.layers(x)
        return self.head(self.norm(x).mean(dim=1))


class GruClassifier(nn.Module):
    """Token ids through an embedding and a two-layer GRU; the last step's state classified."""

    def __init__(self, width=64, classes=8):
        super().__init__()
        self.tokens = nn.Embedding(VOCABULARY, width)
        self.gru = nn.GRU(width, width, num_layers=2, batch_first=True)
        self.head = nn.Sequential(nn.Linear(width, width), nn.ReLU(), nn.Linear(width, classes))

    def forward(self, ids):
        out, _ = self.gru(self.tokens(ids))
        return self.head(out[:, -1])


class Binned(nn.Module):
    """A float signal (SEQUENCE samples in [0, 1)) binned into integers, each bin looked up in
    an embedding, then a small MLP: an integer step inside the model, whose output crosses a cut
    as int64."""

    def __init__(self, bins=64, width=32, classes=4):
        super().__init__()
        self.bins = bins
        self.embed = nn.Embedding(bins, width)
        self.mlp = nn.Sequential(nn.Flatten(), nn.Linear(SEQUENCE * width, 128), nn.ReLU(), nn.Linear(128, classes))

    def forward(self, x):
        ids = torch.clamp((x * self.bins).long(), 0, self.bins - 1)
        return self.mlp(self.embed(ids))


def encoder():
    return Encoder()


def gru_classifier():
    return GruClassifier()


def binned():
    return Binned()


def raises():
    raise ValueError("this factory fails on purpose")


def not_a_module():
    return 42


class Untraceable(nn.Module):
    """Control flow on a tensor's value: torch.fx cannot trace it, TorchScript can script it."""

    def __init__(self):
        super().__init__()
        self.a = nn.Linear(16, 16)
        self.b = nn.Linear(16, 4)

    def forward(self, x):
        y = self.a(x)
        if bool(y.sum() > 0):
            y = y * 2
        return self.b(y)


def untraceable():
    return Untraceable()
