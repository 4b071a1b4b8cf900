"""Each step's code line, as each notebook writes it (000's names, 002's, 004's, …), for the notebook view."""

from __future__ import annotations

import attention_core as ac


def family(preset_id: str | None) -> str:
    """The notebook whose names the code lines use: the preset's; 001's (Q, K, V split into heads, as Llama's
    projections are) for today's presets, which have no notebook; 000's in free play."""
    if not preset_id:
        return "000"
    source = ac.read_preset(preset_id).source[:3]
    return source if source in SCALED_NAMES else "001"


# each family's name for the scaled scores, and the fixed lines of the steps that do not depend on the settings
SCALED_NAMES = {"000": "scaled_sims", "002": "sims_scaled", "001": "attention_scores", "003": "scaled_attn_scores",
                "004": "scaled_dot_product"}  # fmt: skip


SCORES_CODE = {
    "000": "sims = torch.matmul(q, k.transpose(dim0=self.row_dim, dim1=self.col_dim))",
    "002": "sims = torch.matmul(q, k.transpose(self.row_dim_idx, self.col_dim_idx))",
    "001": "Q @ K.transpose(-2, -1)",
    "003": "attn_scores = query_vectors @ key_vectors.T",
    "004": "np.matmul(q, k.T)",
}


OUTPUT_CODE = {
    "000": "attention_scores = torch.matmul(attention_percents, v)",
    "002": "attention_scores = torch.matmul(attention_percents, v)",
    "001": "attention_output = attention_weights @ V",
    "003": "context_vectors = attn_weights @ value_vectors",
    "004": "attention = np.matmul(softmax(scaled_dot_product + mask), v)",
}


def code_for(step: str, fam: str, s: ac.Scenario) -> str:
    """The PyTorch line(s) for one step, in the family's names, for the current settings."""
    if step == "scores":
        return SCORES_CODE[fam]
    if step == "output":
        return OUTPUT_CODE[fam]
    return {"qkv": _qkv_code, "scaled": _scaled_code, "masked": _masked_code, "weights": _weights_code,
            "combine": _combine_code}[step](fam, s)  # fmt: skip


def _qkv_code(fam: str, s: ac.Scenario) -> str:
    lin = s.weights.layout == "linear"
    if fam in ("000", "002"):
        src = ("encodings_for_q", "encodings_for_k", "encodings_for_v")
        lines = [
            f"{v} = self.W_{v}({x})" if lin else f"{v} = {x} @ self.W_{v}" for v, x in zip("qkv", src, strict=True)
        ]
    elif fam == "003":
        lines = [
            f"{n}_vectors = self.W_{n}(x)" if lin else f"{n}_vectors = x @ self.W_{n}"
            for n in ("query", "key", "value")
        ]
    elif fam == "004":
        lines = ["q, k, v = (np.random.randn(T, d_k) for _ in range(3))  # printed values, used as given"]
    else:
        lines = [
            f"{v} = input_tensor @ W_{v.lower()}" if not lin else f"{v} = input_tensor @ W_{v.lower()}.T" for v in "QKV"
        ]
    if s.head_mode == "split":
        lines.append("Q_heads = Q.view(1, T, num_heads, head_dim).transpose(1, 2)  # and K, V alike")
    return "\n".join(lines + bias_lines(s))


def _scaled_code(fam: str, s: ac.Scenario) -> str:
    names = SCALED_NAMES[fam]
    src = {"000": "sims", "002": "sims", "001": "(Q @ K.transpose(-2, -1))", "003": "attn_scores",
           "004": "np.matmul(q, k.T)"}[fam]  # fmt: skip
    if s.scale is False:
        return f"{names} = {src}  # scaling off"
    if s.scale is True:
        root = {
            "000": "torch.tensor(k.size(self.col_dim)**0.5)",
            "002": "torch.tensor(k.size(self.col_dim_idx) ** 0.5)",
            "001": "torch.sqrt(torch.tensor(dk, dtype=torch.float32))",
            "003": "(key_vectors.shape[-1] ** 0.5)",
            "004": "math.sqrt(d_k)",
        }[fam]
        return f"{names} = {src} / {root}"
    return f"{names} = {src} / {s.scale:g}  # temperature"


def _masked_code(fam: str, s: ac.Scenario) -> str:
    names = SCALED_NAMES[fam]
    if s.keep is None:
        return "# no mask"
    return {
        "-inf": f"{names} = {names}.masked_fill(mask == 0, float('-inf'))",
        "-1e9": f"{names} = {names}.masked_fill(mask, -1e9)  # mask True = blocked; 002 writes "
        "values=-1.e9, a TypeError in every torch",
        "additive": "mask[mask == 0] = -np.inf\nmask[mask == 1] = 0\n" + f"{names} + mask",
    }[s.fill]


def _weights_code(fam: str, s: ac.Scenario) -> str:
    names = SCALED_NAMES[fam]
    if s.normalize == "sum":
        return "atwts = atscs / atscs.sum(dim=-1, keepdim=True)  # 003's naive normalisation"
    return {
        "000": f"attention_percents = F.softmax({names}, dim=self.col_dim)",
        "002": f"attention_percents = F.softmax({names}, dim=self.col_dim_idx)",
        "001": f"attention_weights = F.softmax({names}, dim=-1)",
        "003": f"attn_weights = torch.softmax({names}, dim=-1)",
        "004": f"softmax({names} + mask)",
    }[fam]


def _combine_code(fam: str, s: ac.Scenario) -> str:
    if s.head_mode == "split":
        line = "multi_head_output = attention_output_heads.transpose(1, 2).reshape(1, T, d_model)"
    else:
        line = "torch.cat([head(encodings_for_q, encodings_for_k, encodings_for_v) for head in self.heads], dim=1)"
    if s.weights.W_o is not None:
        line += "\noutput = W_o(multi_head_output)" if s.weights.layout == "linear" else "\noutput = concat @ W_o"
        if s.weights.b_o is not None:
            line += "  # W_o = nn.Linear(H·d, d_model, bias=True): + b_o"
    return line


def bias_lines(s: ac.Scenario) -> list[str]:
    """How the q/k/v step's biases enter: nn.Linear(..., bias=True) adds b after x @ W.T."""
    roles = [r for r in "qkv" if getattr(s.weights, f"b_{r}") is not None]
    if not roles:
        return []
    named = ", ".join(f"W_{r}" for r in roles)
    if s.weights.layout == "linear":
        return [f"# {named} = nn.Linear(d_model, d_out, bias=True): each adds its bias, x @ W.T + b"]
    return [f"# with bias=True: {' ; '.join(f'{r} = x @ W_{r} + b_{r}' for r in roles)}"]
