"""Seed 003's SimpleTokenizer and its weightless ("simplified") self-attention."""

from __future__ import annotations

import re
from dataclasses import dataclass

import torch
from torch import Tensor


class SimpleTokenizer:
    """Splits on whitespace and keeps each whitespace character as a token; sorted vocabulary.

    >>> t = SimpleTokenizer("The dog attacks the wild cat")
    >>> t.encode("The dog attacks the wild cat")
    [1, 0, 4, 0, 2, 0, 5, 0, 6, 0, 3]
    >>> t.vocab_size
    7
    """

    def __init__(self, text: str) -> None:
        self.vocab: list[str] = sorted(set(self.tokenize(text)))
        self.ids: dict[str, int] = {tok: i for i, tok in enumerate(self.vocab)}

    @staticmethod
    def tokenize(text: str) -> list[str]:
        return [t for t in re.split(r"(\s)", text) if t]

    @property
    def vocab_size(self) -> int:
        return len(self.vocab)

    def encode(self, text: str) -> list[int]:
        return [self.ids[t] for t in self.tokenize(text)]

    def decode(self, ids: list[int]) -> str:
        return "".join(self.vocab[i] for i in ids)


@dataclass(frozen=True)
class SimplifiedTrace:
    """003 section 1.1: attention with no weights, q = k = v = the embeddings X (T, D)."""

    scores: Tensor  # (T, T)  X @ X.T
    weights_sum: Tensor  # (T, T)  each row divided by its sum (003 cell 9: can be negative)
    weights_softmax: Tensor  # (T, T)  softmax over each row (003 cell 12)
    context_sum: Tensor  # (T, D)
    context_softmax: Tensor  # (T, D)  003 cell 19: attention_weights @ embeddings


def simplified_attention(x: Tensor) -> SimplifiedTrace:
    """Both of 003's normalisations side by side, for embeddings x (T, D)."""
    scores = x @ x.T  # (T, D) x (D, T) -> (T, T)
    by_sum = scores / scores.sum(dim=-1, keepdim=True)
    by_softmax = torch.softmax(scores, dim=-1)
    return SimplifiedTrace(scores, by_sum, by_softmax, by_sum @ x, by_softmax @ x)


MAX_SENTENCE = 400  # characters a sentence may have in the playground
SHOWN = {" ": "␣", "\n": "⏎", "\t": "⇥"}


def shown_token(tok: str) -> str:
    """A token as a table label: whitespace made visible (003 keeps every space as a token)."""
    return "".join(SHOWN.get(ch, ch) for ch in tok)


def embedding_table(vocab_size: int, d: int, seed: int) -> Tensor:
    """(vocab, d) float32 rows drawn as ``nn.Embedding(vocab, d)`` initialises them after ``manual_seed(seed)``.

    nn.Embedding fills with ``normal_(0, 1)``; here from a private generator, so the global RNG is untouched.
    That fill is platform-dependent: 003's printed table does not come back on every machine.
    """
    g = torch.Generator().manual_seed(seed)
    return torch.empty(vocab_size, d).normal_(0.0, 1.0, generator=g)
