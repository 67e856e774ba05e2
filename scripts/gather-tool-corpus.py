#!/usr/bin/env python3
"""Gathers the second corpus `scripts/tokenlearn-embeddings.py --extra` fits the static
embedding table on: what tools say they do and what people ask of them, across everyday domains
(shopping, travel, food, finance, health, ...), where the first corpus
(`gather-embedding-corpus.py`: Debian, man pages, Python) only speaks about software. No source
is one of the retrieval evaluation sets (azure, metatool, LiveMCPBench, MCPToolBench++).

    python3 scripts/gather-tool-corpus.py --src target/tool-corpus-src --out target/tool-corpus.tsv

Sources, read at pinned commits from bare clones under `--src` (made, or fetched up to the
commit, from GitHub when missing); recorded per line, a text found twice under the first source
in this order:
- `apis`: the public-apis list's descriptions as ToolAlpaca ships them (tangqiaoyu/ToolAlpaca,
  `data/public_apis.json`; the list itself is MIT, ToolAlpaca Apache-2.0);
- `seal`, `sealp`, `sealq`: Seal-Tools (fairyshine/Seal-Tools, Apache-2.0): its 4,076 tools'
  descriptions, their parameters' descriptions, and the requests of its dev and test splits;
- `bfcl`, `bfclp`, `bfclq`: the Berkeley Function Calling Leaderboard's data
  (ShishirPatil/gorilla, Apache-2.0, `bfcl_eval/data`): function and parameter descriptions and
  each question's first user message, from the single-turn Python files (multi-turn, memory,
  format-sensitivity, Java and JavaScript files are left out);
- `alpaca`, `alpacaq`: ToolAlpaca's evaluation APIs' descriptions (all already under `apis`
  at the pinned commit) and their instructions;
- `req`: every other tool description (by a hash of it) put into one of three request
  templates ("Can you help me ...?"), so that request words are seen beside tool words.
Texts are normalised (whitespace collapsed), deduplicated case-insensitively, kept if they have
3-40 words (the data sets' own requests, `sealq`, `bfclq`, `alpacaq`: 3-80), and written sorted
by (source, text). The same commits give the same file: it prints the counts and a sha256.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import subprocess
from pathlib import Path

REPOS = {
    "seal": ("fairyshine/Seal-Tools", "ce753ecd60ed08dd376984035de531ab8421f1c6"),
    "gorilla": ("ShishirPatil/gorilla", "6ea57973c7a6097fd7c5915698c54c17c5b1b6c8"),
    "alpaca": ("tangqiaoyu/ToolAlpaca", "189069998d64a7baf1b4a1c3c4b2e75eb9d05532"),
}
BFCL = "berkeley-function-call-leaderboard/bfcl_eval/data/"
TEMPLATES = [
    "Can you help me {x}?",
    "Is there something that can {x}?",
    "Show me how to {x}.",
]


def clean(text: str | None) -> str:
    return re.sub(r"\s+", " ", text or "").strip()


class Corpus:
    def __init__(self) -> None:
        self.texts: dict[str, tuple[str, str]] = {}

    def add(self, source: str, text: str | None, max_words: int = 40) -> None:
        text = clean(text)
        if 3 <= len(text.split()) <= max_words:
            self.texts.setdefault(text.lower(), (source, text))


class Repo:
    """A bare clone of one source, holding its pinned commit."""

    def __init__(self, src: Path, key: str) -> None:
        name, self.commit = REPOS[key]
        self.dir = src / name.replace("/", "+")
        if not (self.dir / "HEAD").exists() and not (self.dir / ".git").exists():
            self.dir.parent.mkdir(parents=True, exist_ok=True)
            url = f"https://github.com/{name}"
            subprocess.run(["git", "clone", "-q", "--bare", "--filter=blob:none", url, str(self.dir)], check=True)
        has = subprocess.run(["git", "-C", str(self.dir), "cat-file", "-e", f"{self.commit}^{{commit}}"])
        if has.returncode != 0:
            self.git("fetch", "-q", "origin", self.commit)

    def show(self, path: str) -> str:
        return self.git("show", f"{self.commit}:{path}")

    def git(self, *args: str) -> str:
        # stdout only: git's own message reaches the terminal when it fails.
        return subprocess.run(["git", "-C", str(self.dir), *args], stdout=subprocess.PIPE, text=True, check=True).stdout


def seal(repo: Repo, corpus: Corpus, descriptions: list[str]) -> None:
    for line in repo.show("Seal-Tools_Dataset/tool.jsonl").splitlines():
        tool = json.loads(line)
        corpus.add("seal", tool["api_description"])
        descriptions.append(tool["api_description"])
        for param in (tool.get("parameters") or {}).values():
            corpus.add("sealp", param.get("description", ""))
    for split in ("dev", "test_in_domain", "test_out_domain"):
        for line in repo.show(f"Seal-Tools_Dataset/{split}.jsonl").splitlines():
            corpus.add("sealq", json.loads(line)["query"], 80)


def bfcl(repo: Repo, corpus: Corpus, descriptions: list[str]) -> None:
    files = repo.git("ls-tree", "--name-only", repo.commit, BFCL).split()
    skip = ("multi_turn", "memory", "format", "java")
    for name in files:
        if not name.endswith(".json") or any(s in name for s in skip):
            continue
        for line in repo.show(name).splitlines():
            try:
                case = json.loads(line)
            except json.JSONDecodeError:
                continue
            for turn in (case.get("question") or [])[:1]:
                for message in turn:
                    if message.get("role") == "user":
                        corpus.add("bfclq", message["content"], 80)
            for function in case.get("function") or []:
                corpus.add("bfcl", function.get("description", ""))
                descriptions.append(function.get("description", ""))
                properties = (function.get("parameters") or {}).get("properties") or {}
                for param in properties.values():
                    if isinstance(param, dict):
                        corpus.add("bfclp", param.get("description", ""))


def public_apis(repo: Repo, corpus: Corpus, descriptions: list[str]) -> None:
    for entry in json.loads(repo.show("data/public_apis.json"))["entries"]:
        corpus.add("apis", entry["Description"])
        descriptions.append(entry["Description"])


def alpaca_evals(repo: Repo, corpus: Corpus) -> None:
    for split in ("eval_real", "eval_simulated"):
        for api in json.loads(repo.show(f"data/{split}.json")):
            corpus.add("alpaca", api.get("Description") or api.get("description"))
            for instruction in api.get("Instructions", []) or []:
                corpus.add("alpacaq", instruction, 80)


def requests(corpus: Corpus, descriptions: list[str]) -> None:
    for text in descriptions:
        text = clean(text).rstrip(".")
        if not text:
            continue
        h = int(hashlib.sha256(text.encode()).hexdigest(), 16)
        if h % 2 == 0:
            corpus.add("req", TEMPLATES[(h // 2) % len(TEMPLATES)].format(x=text[0].lower() + text[1:]))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--src", type=Path, default=Path("target/tool-corpus-src"), help="clones of the source repositories")
    ap.add_argument("--out", type=Path, default=Path("target/tool-corpus.tsv"))
    args = ap.parse_args()
    corpus, descriptions = Corpus(), []
    # The order decides which source a text shared by two is recorded under.
    alpaca = Repo(args.src, "alpaca")
    public_apis(alpaca, corpus, descriptions)
    seal(Repo(args.src, "seal"), corpus, descriptions)
    bfcl(Repo(args.src, "gorilla"), corpus, descriptions)
    alpaca_evals(alpaca, corpus)
    requests(corpus, descriptions)
    rows = sorted(corpus.texts.values())
    data = "".join(f"{s}\t{t}\n" for s, t in rows).encode()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_bytes(data)
    counts: dict[str, int] = {}
    for source, _ in rows:
        counts[source] = counts.get(source, 0) + 1
    print(f"{args.out}: {len(rows)} texts {counts}, {len(data)} bytes, sha256 {hashlib.sha256(data).hexdigest()}")


if __name__ == "__main__":
    main()
