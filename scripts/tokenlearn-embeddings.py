#!/usr/bin/env python3
"""Fits the static token table of `src/mcp/embedding/model.bin` to the teacher's *sentence*
embeddings of a corpus (model2vec's "tokenlearn" idea), starting from the table
`scripts/distill-embeddings.py` distils from single tokens. The teacher is all-MiniLM-L6-v2
unless `--teacher all-mpnet-base-v2` (then pass that teacher's `--raw` cache too).

    python3 scripts/gather-embedding-corpus.py --out target/embedding-corpus.tsv
    python3 scripts/gather-tool-corpus.py --out target/tool-corpus.tsv
    python3 scripts/distill-embeddings.py --raw-cache target/emb-raw.npy --out /dev/null
    python3 scripts/tokenlearn-embeddings.py --corpus target/embedding-corpus.tsv \
        --extra target/tool-corpus.tsv --raw target/emb-raw.npy --cache target/emb-teacher \
        --max-texts 8192 --lam 0.3 --iters 150 --out src/mcp/embedding/model.bin

The committed model.bin: the software corpus as gathered on Debian bookworm (92,000 texts,
5,154,249 bytes, sha256 bf54192b973da21d868dc18005d4f5e30413b92a4a76a17b113489ab9d34254d), its
first 8,192 texts in sha256 order, then the whole tool corpus (33,344 texts, 3,022,868 bytes,
sha256 9f1c3611bf79c08ab69328b28789dd0eac095859cc5c8f3f8a021163d2a1274f); model.bin sha256
2cf6d01d2dc3640237b52a2c844b3f182155defa28b9680ce0b33a14fd4fa7b9. Fitted to the software texts
alone (the first 24,576, `--lam 1`), the table served the search at macro R@5 0.788 on the four
retrieval sets; with the tool texts, 0.799, and 0.801 with `words::implied`'s `save` rule
(benches/README.md). The run prints `texts 41536`: the two corpora share no text.

Same requirements as distill-embeddings.py (scripts/distill-requirements.txt) plus scipy (sparse
matrices only). Deterministic: one BLAS thread per process, the teacher runs in worker
processes over fixed chunks, and the fit is plain conjugate gradients in float64.

Method:
1. corpus texts in the order of their sha256 (so any prefix is an unbiased sample), then the
   `--extra` corpus's texts in theirs, each cut to its first 64 WordPiece tokens; teacher =
   the model's mean-pooled sentence output (cached per chunk of 4096 texts);
2. the distilled table E0 (distill-embeddings.py steps 1-4: token outputs, PCA to D dims, SIF
   weights) and the same PCA applied to the teacher outputs: y_i, one target per text;
3. the student of text i is the mean of its tokens' rows, a_i . E (a_i = token counts / length);
   the target is y_i scaled to the length of a_i . E0 (only the direction of a text's vector
   matters at run time, and this keeps the rows' weights where the SIF weighting put them);
4. ridge regression toward the distilled table: minimise sum_i |a_i E - y_i|^2
   + lam * mean(diag A'A) * |E - E0|^2, solved for all D columns at once by conjugate gradients
   from E0; a token the corpus never shows keeps its distilled row exactly;
5. int8 as distill-embeddings.py (one scale for the table), special tokens left out.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import os
import sys
from multiprocessing import get_context
from pathlib import Path

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402

HERE = Path(__file__).resolve().parent
SPEC = importlib.util.spec_from_file_location("distill", HERE / "distill-embeddings.py")
distill = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(distill)

CHUNK = 4096
MAX_LEN = 64


def load_corpus(path: Path) -> list[str]:
    texts = [line.split("\t", 1)[1] for line in path.read_text(encoding="utf-8").splitlines()]
    return sorted(texts, key=lambda t: hashlib.sha256(t.encode()).digest())


_WORKER = {}


def _encode_chunk(args):
    seqs, out = args
    if out.exists():  # another run made it meanwhile
        return out
    if "bert" not in _WORKER:
        folder = distill.model_dir()
        _WORKER["bert"] = distill.load_encoder(folder)
    emb = distill.encode_ids(_WORKER["bert"], seqs, batch=128)
    tmp = out.with_suffix(".tmp.npy")
    np.save(tmp, emb)
    tmp.rename(out)
    return out


def teacher(texts: list[str], tok, cache: Path, workers: int, reverse: bool = False) -> np.ndarray:
    cache.mkdir(parents=True, exist_ok=True)
    cls_sep = lambda ids: [ids[0]] + ids[1:-1][:MAX_LEN] + [ids[-1]]  # noqa: E731 ([CLS] ... [SEP])
    jobs, files = [], []
    for c in range(0, len(texts), CHUNK):
        chunk = texts[c : c + CHUNK]
        key = hashlib.sha256("\n".join(chunk).encode()).hexdigest()[:16]
        f = cache / f"chunk{c // CHUNK:04d}-{key}.npy"
        files.append(f)
        if not f.exists():
            jobs.append(([cls_sep(tok.encode(t).ids) for t in chunk], f))
    if reverse:
        jobs.reverse()
    if jobs:
        with get_context("fork").Pool(workers) as pool:
            for done in pool.imap(_encode_chunk, jobs):
                print(f"teacher: {done}", file=sys.stderr, flush=True)
    return np.concatenate([np.load(f) for f in files])


def pca_basis(x: np.ndarray, dims: int):
    """distill.pca, also returning the mean, components and signs to project other vectors."""
    x = x.astype(np.float64)
    mean = x.mean(0)
    xc = x - mean
    _, eigvecs = np.linalg.eigh(xc.T @ xc / (len(x) - 1))
    comps = eigvecs[:, ::-1][:, :dims].T
    scores = xc @ comps.T
    signs = np.sign(scores[np.argmax(np.abs(scores), axis=0), range(dims)])
    return scores * signs, mean, comps * signs[:, None]


def design(texts, tok, row_of, n_rows):
    from scipy import sparse

    rows, cols, vals, counts = [], [], [], np.zeros(n_rows)
    for i, t in enumerate(texts):
        ids = [row_of[x] for x in tok.encode(t, add_special_tokens=False).ids[:MAX_LEN] if x in row_of]
        for r in ids:
            counts[r] += 1
        if not ids:
            continue
        u, c = np.unique(ids, return_counts=True)
        rows.extend([i] * len(u))
        cols.extend(u.tolist())
        vals.extend((c / len(ids)).tolist())
    a = sparse.csr_matrix((vals, (rows, cols)), shape=(len(texts), n_rows), dtype=np.float64)
    return a, counts


def ridge_cg(a, y, e0, lam: float, iters: int) -> np.ndarray:
    """(A'A + lam I) E = A'y + lam E0 by conjugate gradients, each column independently."""
    at = a.T.tocsr()
    mv = lambda x: at @ (a @ x) + lam * x  # noqa: E731
    b = at @ y + lam * e0
    x = e0.copy()
    r = b - mv(x)
    p = r.copy()
    rs = (r * r).sum(0)
    b_norm = np.sqrt((b * b).sum(0))
    for it in range(iters):
        mp = mv(p)
        alpha = rs / (p * mp).sum(0)
        x += alpha * p
        r -= alpha * mp
        rs_new = (r * r).sum(0)
        if it % 50 == 0 or it == iters - 1:
            print(f"cg {it}: max rel residual {np.max(np.sqrt(rs_new) / b_norm):.2e}", file=sys.stderr)
        p = r + (rs_new / rs) * p
        rs = rs_new
    return x


def test_values(path: Path, tok) -> None:
    """The values src/mcp/embedding/tests.rs hard-codes, from a written model file: the static
    embedding (mean of the int8 rows, normalised) of one sentence and two cosines."""
    import struct

    data = path.read_bytes()
    count, dims, _scale, vlen = struct.unpack("<IIfI", data[8:24])
    tokens = data[24 : 24 + vlen].decode().split("\n")[:-1]
    table = np.frombuffer(data[24 + vlen :], dtype=np.int8).reshape(count, dims).astype(np.float64)
    row = {t: i for i, t in enumerate(tokens)}

    def embed(text: str) -> np.ndarray:
        ids = [row[t] for t in tok.encode(text, add_special_tokens=False).tokens if t in row]
        v = table[ids].sum(0)
        return v / np.linalg.norm(v)

    doc = embed("List Azure Container Registries in a subscription.")
    print("AZURE_SENTENCE:", ", ".join(f"{v:.5f}" for v in doc))
    print(f"near {doc @ embed('show me my container registries'):.3f}")
    print(f"far {doc @ embed('send an email to a colleague'):.3f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--teacher", choices=sorted(distill.TEACHERS), default=distill.TEACHER.name)
    ap.add_argument("--corpus", type=Path, required=True)
    ap.add_argument("--raw", type=Path, required=True, help="distill-embeddings.py --raw-cache")
    ap.add_argument("--cache", type=Path, required=True, help="folder for the teacher chunks")
    ap.add_argument("--max-texts", type=int, default=0, help="of --corpus, 0 = all (--extra is used whole)")
    ap.add_argument("--extra", type=Path, help="a second corpus (gather-tool-corpus.py), all of it after --corpus's texts")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--dims", type=int, default=128)
    ap.add_argument("--lam", type=float, default=0.1)
    ap.add_argument("--iters", type=int, default=200)
    ap.add_argument("--center", choices=["token", "sentence"], default="token")
    ap.add_argument("--sif", choices=["rank", "corpus"], default="rank")
    ap.add_argument("--teacher-only", action="store_true")
    ap.add_argument("--reverse", action="store_true", help="encode the chunks last first (a second run alongside)")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--test-values", action="store_true", help="print tests.rs's values for --out, then exit")
    args = ap.parse_args()
    distill.use_teacher(args.teacher)
    folder = distill.model_dir()
    tok = distill.reference_tokenizer(folder)
    if args.test_values:
        test_values(args.out, tok)
        return
    texts = all_texts = load_corpus(args.corpus)
    if args.max_texts:
        texts = texts[: args.max_texts]
    if args.extra:
        # After the first corpus's chunks, so that their cached teacher outputs still serve
        # (when --max-texts is a multiple of the chunk size).
        seen = set(all_texts)
        extra = [t for t in load_corpus(args.extra) if t not in seen]
        texts, all_texts = texts + extra, all_texts + extra
    t_out = teacher(texts, tok, args.cache, args.workers, args.reverse)
    if args.teacher_only:
        return
    vocab = (folder / "vocab.txt").read_text(encoding="utf-8").split("\n")[:-1]
    kept = [(i, t) for i, t in enumerate(vocab) if not distill.UNUSED.fullmatch(t)]
    tokens = [t for _, t in kept]
    row_of = {i: r for r, (i, t) in enumerate(kept) if t not in distill.SPECIAL}
    raw = np.load(args.raw)
    scores, mean, comps = pca_basis(raw, args.dims)
    a, _ = design(texts, tok, row_of, len(tokens))
    _, counts = design(all_texts, tok, row_of, len(tokens))
    if args.sif == "rank":
        weights = distill.sif_weights(len(tokens))
    else:
        # Zipf by rank is a stand-in for frequency; here the corpus's own (add-one) frequencies.
        proba = (counts + 1) / (counts + 1).sum()
        weights = distill.SIF_COEFFICIENT / (distill.SIF_COEFFICIENT + proba)
    e0 = scores * weights[:, None]
    if args.lam > 0:
        center = mean if args.center == "token" else t_out.astype(np.float64).mean(0)
        y = (t_out.astype(np.float64) - center) @ comps.T
        pred0 = a @ e0
        scale = np.linalg.norm(pred0, axis=1) / np.maximum(np.linalg.norm(y, axis=1), 1e-12)
        y *= scale[:, None]
        lam = args.lam * float(a.multiply(a).sum() / a.shape[1])
        print(f"texts {len(texts)}, nnz {a.nnz}, tokens seen {(counts > 0).sum()}, lam {lam:.3g}", file=sys.stderr)
        table = ridge_cg(a, y, e0, lam, args.iters)
    else:
        table = e0
    q, s = distill.quantize(table, "int8")
    keep = [i for i, t in enumerate(tokens) if t not in distill.SPECIAL]
    distill.write_model(args.out, [tokens[i] for i in keep], q[keep], s)
    data = args.out.read_bytes()
    print(f"{args.out}: {len(keep)} x {args.dims} int8, scale {s:.6g}, sha256 {hashlib.sha256(data).hexdigest()}")


if __name__ == "__main__":
    main()
