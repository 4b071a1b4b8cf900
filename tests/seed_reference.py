"""Faithful transcriptions of the seed notebooks' own modules, used as independent references.

These are copied from ../shared/seeds/ (000 and 002's ``Attention``/``MultiHeadAttention``,
003's ``SelfAttention_P``/``SelfAttention``) with only the 002 ``values=`` keyword fixed, so tests
can run the notebooks' code under ``torch.random.fork_rng`` and compare with attention_core.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn


class Attention(nn.Module):  # 000 "Complete Self Attention", In [2]
    def __init__(self, d_model: int = 2, row_dim: int = 0, col_dim: int = 1) -> None:
        super().__init__()
        self.W_q = nn.Linear(in_features=d_model, out_features=d_model, bias=False)
        self.W_k = nn.Linear(in_features=d_model, out_features=d_model, bias=False)
        self.W_v = nn.Linear(in_features=d_model, out_features=d_model, bias=False)
        self.row_dim = row_dim
        self.col_dim = col_dim

    def forward(self, encodings_for_q, encodings_for_k, encodings_for_v, mask=None):
        q = self.W_q(encodings_for_q)
        k = self.W_k(encodings_for_k)
        v = self.W_v(encodings_for_v)
        sims = torch.matmul(q, k.transpose(dim0=self.row_dim, dim1=self.col_dim))
        scaled_sims = sims / torch.tensor(k.size(self.col_dim) ** 0.5)
        if mask is not None:
            scaled_sims = scaled_sims.masked_fill(mask == 0, float("-inf"))
        attention_percents = F.softmax(scaled_sims, dim=self.col_dim)
        return torch.matmul(attention_percents, v)


class Attention002(Attention):  # 002 In [2]: a boolean block mask filled with -1e9
    def forward(self, encodings_for_q, encodings_for_k, encodings_for_v, mask=None):
        q = self.W_q(encodings_for_q)
        k = self.W_k(encodings_for_k)
        v = self.W_v(encodings_for_v)
        sims = torch.matmul(q, k.transpose(self.row_dim, self.col_dim))
        sims_scaled = sims / torch.tensor(k.size(self.col_dim) ** 0.5)
        if mask is not None:
            # 002 writes masked_fill(mask, values=-1.e9), a TypeError; this is what it means
            sims_scaled = sims_scaled.masked_fill(mask, -1.0e9)
        attention_percents = F.softmax(sims_scaled, dim=self.col_dim)
        return torch.matmul(attention_percents, v)


class MultiHeadAttention(nn.Module):  # 000 In [5]: the per-head ModuleList loop
    def __init__(self, d_model: int = 2, row_dim: int = 0, col_dim: int = 1, num_heads: int = 1) -> None:
        super().__init__()
        self.heads = nn.ModuleList(
            [Attention(d_model=d_model, row_dim=row_dim, col_dim=col_dim) for _ in range(num_heads)]
        )
        self.col_dim = col_dim

    def forward(self, encodings_for_q, encodings_for_k, encodings_for_v, mask=None):
        return torch.cat(
            [head(encodings_for_q, encodings_for_k, encodings_for_v, mask=mask) for head in self.heads],
            dim=self.col_dim,
        )


class SelfAttentionP(nn.Module):  # 003 In [31]
    def __init__(self, d_in: int, d_out: int) -> None:
        super().__init__()
        self.W_query = nn.Parameter(torch.rand(d_in, d_out))
        self.W_key = nn.Parameter(torch.rand(d_in, d_out))
        self.W_value = nn.Parameter(torch.rand(d_in, d_out))

    def forward(self, x):
        key_vectors = x @ self.W_key
        query_vectors = x @ self.W_query
        value_vectors = x @ self.W_value
        attn_scores = query_vectors @ key_vectors.T
        scaled_attn_scores = attn_scores / (key_vectors.shape[-1] ** 0.5)
        attn_weights = torch.softmax(scaled_attn_scores, dim=-1)
        return attn_weights @ value_vectors


class SelfAttentionL(nn.Module):  # 003 In [33]
    def __init__(self, d_in: int, d_out: int, qkv_bias: bool = False) -> None:
        super().__init__()
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)

    def forward(self, x):
        key_vectors = self.W_key(x)
        query_vectors = self.W_query(x)
        value_vectors = self.W_value(x)
        attn_scores = query_vectors @ key_vectors.T
        scaled_attn_scores = attn_scores / (key_vectors.shape[-1] ** 0.5)
        attn_weights = torch.softmax(scaled_attn_scores, dim=-1)
        return attn_weights @ value_vectors


def run_001(seed: int, num_heads: int = 2) -> dict[str, torch.Tensor]:
    """001's cells in order, after torch.manual_seed(seed), inside fork_rng (global RNG untouched)."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        input_tensor = torch.randn(1, 3, 4)
        W_q = torch.randn(4, 4)
        W_k = torch.randn(4, 4)
        W_v = torch.randn(4, 4)
    Q = input_tensor @ W_q
    K = input_tensor @ W_k
    V = input_tensor @ W_v
    dk = Q.shape[-1]
    attention_scores = (Q @ K.transpose(-2, -1)) / torch.sqrt(torch.tensor(dk, dtype=torch.float32))
    attention_weights = F.softmax(attention_scores, dim=-1)
    attention_output = attention_weights @ V
    head_dim = dk // num_heads
    Q_heads = Q.view(1, 3, num_heads, head_dim).transpose(1, 2)
    K_heads = K.view(1, 3, num_heads, head_dim).transpose(1, 2)
    V_heads = V.view(1, 3, num_heads, head_dim).transpose(1, 2)
    s = (Q_heads @ K_heads.transpose(-2, -1)) / torch.sqrt(torch.tensor(head_dim, dtype=torch.float32))
    multi_head_output = (F.softmax(s, dim=-1) @ V_heads).transpose(1, 2).reshape(1, 3, dk)
    mask = torch.tensor([[1, 0, 0], [1, 1, 0], [1, 1, 1]])
    masked_attention_weights = F.softmax(attention_scores.masked_fill(mask == 0, float("-inf")), dim=-1)
    return {
        "input": input_tensor[0], "Q": Q[0], "attention_weights": attention_weights[0],
        "attention_output": attention_output[0], "multi_head_output": multi_head_output[0],
        "masked_attention_weights": masked_attention_weights[0],
    }  # fmt: skip
