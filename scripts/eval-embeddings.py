#!/usr/bin/env python3
"""Recall of the distilled static embeddings (and of the full model, and of their fusion with a
plain BM25) on ../shared/retrieval, to choose the table's dims and quantization.

    /tmp/distill/bin/python scripts/eval-embeddings.py --raw /tmp/raw.npy [--full]

`--raw` is the token-output cache `distill-embeddings.py --raw-cache` writes (it is made
if missing). `--full` also runs the teacher (`--teacher`) itself on every query and tool (minutes).
Recall@k counts a query's need met when any of its acceptable tools is in the first k.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import re
from collections import Counter
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
SPEC = importlib.util.spec_from_file_location("distill", HERE / "distill-embeddings.py")
distill = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(distill)

SETS = ["azure", "metatool"]
MAX_TOKENS = 512


def load_set(root: Path, name: str):
    catalog = json.loads((root / f"{name}.catalog.json").read_text())
    tools = [(server, t) for server, ts in catalog.items() for t in ts]
    ids = [f"{s}::{t['name']}" for s, t in tools]
    queries = [json.loads(line) for line in (root / f"{name}.queries.jsonl").read_text().splitlines()]
    return tools, ids, queries


def split_name(name: str) -> str:
    name = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name)
    return re.sub(r"[_\-.]+", " ", name)


def doc_texts(tools, variant: str) -> list[str]:
    out = []
    for _, t in tools:
        desc = t.get("description") or ""
        name = split_name(t["name"])
        if variant == "desc":
            out.append(desc)
        elif variant == "name+desc":
            out.append(f"{name}: {desc}")
        elif variant == "name+desc+params":
            props = (t.get("inputSchema") or {}).get("properties") or {}
            out.append(f"{name}: {desc} " + " ".join(split_name(p) for p in props))
    return out


def recall(scores: np.ndarray, ids: list[str], queries, ks=(1, 5)) -> dict[int, float]:
    order = np.argsort(-scores, axis=1, kind="stable")
    hits = {k: 0.0 for k in ks}
    for qi, q in enumerate(queries):
        for k in ks:
            top = {ids[j] for j in order[qi, :k]}
            hits[k] += sum(any(g in top for g in need) for need in q["gold"]) / len(q["gold"])
    return {k: v / len(queries) for k, v in hits.items()}


class Static:
    """The Rust module's embed(): mean of the token rows, L2-normalised; unknown words dropped."""

    def __init__(self, tokens: list[str], table: np.ndarray, tok):
        self.row = {t: i for i, t in enumerate(tokens)}
        self.table = table.astype(np.float32)
        self.tok = tok

    def embed(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.table.shape[1]), dtype=np.float32)
        for i, text in enumerate(texts):
            pieces = self.tok.encode(text, add_special_tokens=False).tokens[:MAX_TOKENS]
            rows = [self.row[p] for p in pieces if p in self.row]
            if rows:
                v = self.table[rows].mean(0)
                out[i] = v / (np.linalg.norm(v) or 1.0)
        return out


def bm25(docs: list[str], queries: list[str], k1=1.2, b=0.75) -> np.ndarray:
    """Plain BM25 on lowercase alphanumeric words: the lexical side for trying fusion here."""
    words = [re.findall(r"[a-z0-9]+", d.lower()) for d in docs]
    avg = sum(map(len, words)) / len(words)
    df = Counter(w for ws in words for w in set(ws))
    idf = {w: math.log(1 + (len(docs) - n + 0.5) / (n + 0.5)) for w, n in df.items()}
    tfs = [Counter(ws) for ws in words]
    out = np.zeros((len(queries), len(docs)))
    for qi, q in enumerate(queries):
        for w in set(re.findall(r"[a-z0-9]+", q.lower())):
            if w not in idf:
                continue
            for di, tf in enumerate(tfs):
                f = tf.get(w, 0)
                if f:
                    out[qi, di] += idf[w] * f * (k1 + 1) / (f + k1 * (1 - b + b * len(words[di]) / avg))
    return out


def rrf(*score_sets: np.ndarray, k: float = 60.0) -> np.ndarray:
    total = np.zeros_like(score_sets[0], dtype=np.float64)
    for s in score_sets:
        ranks = np.argsort(np.argsort(-s, axis=1, kind="stable"), axis=1)
        total += 1.0 / (k + ranks + 1)
    return total


def linear(lex: np.ndarray, cos: np.ndarray, lam: float) -> np.ndarray:
    """BM25 divided by the query's best BM25 (0..1), plus lam x cosine."""
    top = lex.max(axis=1, keepdims=True)
    return np.where(top > 0, lex / np.where(top > 0, top, 1), 0) + lam * cos


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--raw", type=Path, required=True)
    ap.add_argument("--data", type=Path, default=HERE.parent.parent / "shared" / "retrieval")
    ap.add_argument("--full", action="store_true")
    ap.add_argument("--teacher", choices=sorted(distill.TEACHERS), default=distill.TEACHER.name)
    args = ap.parse_args()
    distill.use_teacher(args.teacher)
    folder = distill.model_dir()
    tok = distill.reference_tokenizer(folder)
    tok.no_truncation()
    vocab = (folder / "vocab.txt").read_text(encoding="utf-8").split("\n")[:-1]
    tokens = [t for t in vocab if not distill.UNUSED.fullmatch(t)]
    raw = np.load(args.raw)
    bert = distill.load_encoder(folder) if args.full else None
    configs = [(d, q) for d in (64, 128, 256) for q in ("f16", "int8")] + [(raw.shape[1], "f16")]
    models = {}
    for d, q in configs:
        table, scale = distill.quantize(distill.distil(raw, d), q)
        models[(d, q)] = Static(tokens, table.astype(np.float32) * scale, tok)
    for name in SETS:
        evaluate(name, args, models, bert)


def evaluate(name: str, args, models, bert) -> None:
    tools, ids, queries = load_set(args.data, name)
    qtexts = [q["query"] for q in queries]
    print(f"\n== {name}: {len(tools)} tools, {len(queries)} queries")
    for variant in ("desc", "name+desc", "name+desc+params"):
        docs = doc_texts(tools, variant)
        for (d, q), m in models.items():
            r = recall(m.embed(qtexts) @ m.embed(docs).T, ids, queries)
            print(f"static D={d:3} {q:4} {variant:17} R@1 {r[1]:.3f} R@5 {r[5]:.3f}")
    docs = doc_texts(tools, "name+desc")
    lex = bm25(docs, qtexts)
    r = recall(lex, ids, queries)
    print(f"bm25 name+desc          R@1 {r[1]:.3f} R@5 {r[5]:.3f}")
    m = models[(128, "int8")]
    cos = m.embed(qtexts) @ m.embed(docs).T
    for label, fused in [("rrf k=60", rrf(lex, cos))] + [
        (f"bm25/max + {lam}*cos", linear(lex, cos, lam)) for lam in (0.5, 1.0, 2.0, 4.0)
    ]:
        r = recall(fused, ids, queries)
        print(f"fusion D=128 int8 {label:18} R@1 {r[1]:.3f} R@5 {r[5]:.3f}")
    if bert is not None:
        full_model(name, bert, tools, ids, queries)


def full_model(name, bert, tools, ids, queries) -> None:
    tok = distill.reference_tokenizer(distill.model_dir())
    cache = Path(f"/tmp/full-{name}.npz")
    if cache.exists():
        z = np.load(cache)
        qe, de = z["q"], z["d"]
    else:
        docs = doc_texts(tools, "name+desc")
        qe = distill.encode_ids(bert, [tok.encode(q["query"]).ids for q in queries])
        de = distill.encode_ids(bert, [tok.encode(d).ids for d in docs])
        np.savez(cache, q=qe, d=de)
    qe = qe / np.linalg.norm(qe, axis=1, keepdims=True)
    de = de / np.linalg.norm(de, axis=1, keepdims=True)
    r = recall(qe @ de.T, ids, queries)
    print(f"full {args.teacher} name+desc R@1 {r[1]:.3f} R@5 {r[5]:.3f}")


if __name__ == "__main__":
    main()
