//! Keyword search: BM25 over documents made of weighted texts (for the catalog, each tool's
//! name, title, description, server and parameter names and descriptions, with the name and
//! parameter names weighted up: [`Catalog::search`](super::Catalog::search)). Knows nothing of
//! catalogs: the catalog builds the index from its tools.
//!
//! Rankings are deterministic: the index is ordered (a sorted table of terms, postings in
//! document order, however many cores built it: `build.rs`) and ties keep document order, so
//! the same documents and query rank the same in every process.

mod build;
#[cfg(feature = "mcp-semantic")]
mod semantic;
mod suggest;
mod words;

/// BM25's term-frequency saturation and length normalisation (the usual values).
const K1: f64 = 1.2;
const B: f64 = 0.75;

/// Where a text of a document comes from, which says how much its words count.
#[derive(Copy, Clone, Debug)]
pub(crate) enum TextKind {
    /// A tool's name.
    Name,
    /// Its title.
    Title,
    /// A parameter's name.
    Param,
    /// Its description.
    Description,
    /// Anything else: the server's name.
    Text,
    /// A parameter's description.
    ParamText,
}

impl TextKind {
    fn weight(self) -> f64 {
        // Fitted on the fit halves of the retrieval sets (`examples/discovery.rs`): a name
        // says most; parameter descriptions, long and alike across a server's tools, little.
        match self {
            TextKind::Name => 3.0,
            TextKind::Title => 2.0,
            TextKind::Param | TextKind::Description | TextKind::Text => 1.0,
            TextKind::ParamText => 0.3,
        }
    }
}

/// A query word that is only a prefix of a document word (`dir` → `directory`) counts this much.
const PREFIX_WEIGHT: f64 = 0.5;
/// Each half of a query word that the index knows only as two words (`cosmosdb`) counts this much.
const COMPOUND_WEIGHT: f64 = 0.8;
/// A word related to a query word (`show` → `list`) counts this much.
const RELATED_WEIGHT: f64 = 0.4;
/// The most distinct query words looked at: a pasted document is not a request.
const MAX_QUERY_WORDS: usize = 64;
/// The most alphanumeric runs of a query looked at: repeated words do not count towards
/// `MAX_QUERY_WORDS`, so without this a paste of a few words over and over is cut whole.
const MAX_QUERY_RUNS: usize = 16 * MAX_QUERY_WORDS;
/// The most index words one query word may stand for as their prefix.
const MAX_EXPANSIONS: usize = 32;

/// A document that has a term, and the term's weighted frequency in it.
type Posting = (u32, f32);

/// The inverted index: per term the documents that contain it, with its weighted frequency.
#[derive(Debug, Default)]
pub(crate) struct SearchIndex {
    names: Vec<String>,
    /// Per document, its name as a query naming it would write it ([`words::name_key`]).
    keys: Vec<Option<String>>,
    /// The documents that have a key, sorted by it (then in document order): a suggestion
    /// finds those a name names without comparing every key (`suggest.rs`).
    by_key: Vec<u32>,
    lens: Vec<f64>,
    avg_len: f64,
    /// (term, its postings: (document, weighted term frequency), documents ascending), terms
    /// sorted, so that a prefix's terms are one range.
    terms: Vec<(String, Vec<Posting>)>,
    /// Per document, the embedding of its name and description (`mcp-semantic`).
    #[cfg(feature = "mcp-semantic")]
    vectors: Vec<Option<Vec<f32>>>,
}

impl SearchIndex {
    /// The postings of `term`.
    fn postings(&self, term: &str) -> Option<&[Posting]> {
        let i = self
            .terms
            .binary_search_by(|(t, _)| t.as_str().cmp(term))
            .ok()?;
        Some(&self.terms[i].1)
    }

    /// The terms that begin with `prefix` and are longer, in order.
    fn longer(&self, prefix: &str) -> impl Iterator<Item = &(String, Vec<Posting>)> {
        let start = self.terms.partition_point(|(t, _)| t.as_str() <= prefix);
        self.terms[start..]
            .iter()
            .take_while(move |(t, _)| t.starts_with(prefix))
    }

    /// (name, score) of every document matching `query`, best first, those `query` names
    /// before all; ties in document order.
    pub(crate) fn rank(&self, query: &str) -> Vec<(&str, f64)> {
        let mut scores = vec![0.0; self.names.len()];
        let words = self.query_words(query);
        for q in &words {
            self.score_word(q, &mut scores);
        }
        // A query of stop words only ("can you help me") asks for no tool; by meaning alone
        // its chat was near enough to some.
        #[cfg(feature = "mcp-semantic")]
        if !words.is_empty() {
            semantic::fuse(query, &self.vectors, &mut scores);
        }
        // A query that is a tool's name wants that tool, though words of it score higher in
        // a longer name (`read file` in `read_multiple_files`) or a name says only stop words.
        let key = words::name_key(query);
        let named = |d: usize| key.is_some() && self.keys[d] == key;
        let mut ranked: Vec<(usize, f64, bool)> = scores
            .into_iter()
            .enumerate()
            .map(|(d, s)| (d, s, named(d)))
            .filter(|&(_, s, named)| s > 0.0 || named)
            .collect();
        ranked.sort_by(|a, b| {
            (b.2.cmp(&a.2))
                .then(b.1.total_cmp(&a.1))
                .then(a.0.cmp(&b.0))
        });
        ranked
            .into_iter()
            .map(|(d, s, _)| (self.names[d].as_str(), s))
            .collect()
    }

    /// The distinct words of a query, in order, at most `MAX_QUERY_WORDS`, then those it
    /// implies ([`words::implied`]). A camelCase run counts as one word when the index has it
    /// so (`MySQL`), else as its parts.
    fn query_words(&self, query: &str) -> Vec<String> {
        let mut seen = Vec::new();
        // Run by run, and only the first runs: a 10 MB paste of camelCase runs took seconds
        // to cut into words, nearly all of them repeats.
        for run in words::raw_runs(query).take(MAX_QUERY_RUNS).map(words::run) {
            let whole = run.whole.filter(|w| self.postings(w).is_some());
            for w in whole.map_or(run.parts, |w| vec![w]) {
                if !seen.contains(&w) {
                    seen.push(w);
                }
            }
            if seen.len() >= MAX_QUERY_WORDS {
                seen.truncate(MAX_QUERY_WORDS);
                break;
            }
        }
        for w in words::implied(query, &seen, MAX_QUERY_RUNS) {
            if !seen.iter().any(|s| s == w) {
                seen.push(w.to_owned());
            }
        }
        seen
    }

    /// Adds what query word `q` scores to each document: as itself, else as the two words of
    /// a compound, else as the prefix of longer words (each document's best one).
    fn score_word(&self, q: &str, scores: &mut [f64]) {
        if let Some(related) = words::related(q) {
            for r in related.iter().filter(|r| **r != q) {
                if let Some(postings) = self.postings(r) {
                    self.add(postings, RELATED_WEIGHT, scores);
                }
            }
        }
        if let Some(postings) = self.postings(q) {
            self.add(postings, 1.0, scores);
        } else if let Some((head, tail)) = self.compound(q) {
            self.add(head, COMPOUND_WEIGHT, scores);
            self.add(tail, COMPOUND_WEIGHT, scores);
        } else if q.len() >= 3 {
            let mut best = vec![0.0; scores.len()];
            for (_, postings) in self.longer(q).take(MAX_EXPANSIONS) {
                let idf = self.idf(postings.len());
                for &(d, tf) in postings {
                    let s = PREFIX_WEIGHT * idf * self.saturate(f64::from(tf), d);
                    let b = &mut best[d as usize];
                    *b = f64::max(*b, s);
                }
            }
            scores.iter_mut().zip(best).for_each(|(s, b)| *s += b);
        }
    }

    /// `q` as two words the index has (`cosmosdb` → `cosmos`, `db`), the longest head first.
    fn compound(&self, q: &str) -> Option<(&[Posting], &[Posting])> {
        (3..q.len().saturating_sub(1)).rev().find_map(|i| {
            let (head, tail) = (q.get(..i)?, q.get(i..)?);
            Some((self.postings(head)?, self.postings(tail)?))
        })
    }

    fn add(&self, postings: &[Posting], weight: f64, scores: &mut [f64]) {
        let idf = self.idf(postings.len());
        for &(d, tf) in postings {
            scores[d as usize] += weight * idf * self.saturate(f64::from(tf), d);
        }
    }

    fn idf(&self, df: usize) -> f64 {
        let n = self.names.len() as f64;
        let df = df as f64;
        ((n - df + 0.5) / (df + 0.5) + 1.0).ln()
    }

    /// BM25's saturated, length-normalised term frequency.
    fn saturate(&self, tf: f64, doc: u32) -> f64 {
        let len = self.lens[doc as usize];
        let norm = K1 * (1.0 - B + B * len / self.avg_len.max(1.0));
        tf * (K1 + 1.0) / (tf + norm)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn index(docs: &[(&str, &str)]) -> SearchIndex {
        SearchIndex::build(docs, |&(name, text)| {
            (
                name.to_owned(),
                vec![(name.into(), TextKind::Name), (text.into(), TextKind::Text)],
            )
        })
    }

    fn top(index: &SearchIndex, query: &str) -> Vec<String> {
        index
            .rank(query)
            .into_iter()
            .map(|(n, _)| n.to_owned())
            .collect()
    }

    #[test]
    fn compounds_and_prefixes_find_their_words() {
        let idx = index(&[
            ("cosmos_account_list", "List Cosmos DB accounts"),
            ("storage_account_list", "List storage accounts"),
            ("list_directory", "List a directory's entries"),
        ]);
        assert_eq!(top(&idx, "my cosmosdb accounts")[0], "cosmos_account_list");
        assert_eq!(top(&idx, "dir")[0], "list_directory");
    }

    #[test]
    fn the_same_documents_rank_the_same_every_time() {
        let docs: Vec<(String, String)> = (0..200)
            .map(|i| {
                (
                    format!("tool_{i}"),
                    format!("read{} file{} data", i % 7, i % 5),
                )
            })
            .collect();
        let pairs: Vec<(&str, &str)> = docs.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
        let rankings: Vec<Vec<String>> = (0..3)
            .map(|_| top(&index(&pairs), "read file da"))
            .collect();
        assert_eq!(rankings[0], rankings[1]);
        assert_eq!(rankings[1], rankings[2]);
        assert!(rankings[0].len() > 10);
    }

    #[test]
    fn a_huge_query_costs_no_more_than_its_first_words() {
        let idx = index(&[("read_file", "Read a file")]);
        let query = format!("read file {}", "aBcDeF ".repeat(300_000));
        let start = std::time::Instant::now();
        assert_eq!(top(&idx, &query)[0], "read_file");
        // Cutting all 2 MB into words took over a second in a debug build.
        assert!(start.elapsed().as_millis() < 300, "{:?}", start.elapsed());
    }

    #[test]
    fn a_pasted_blob_costs_little_and_matches_nothing() {
        let idx = index(&[("read_file", "Read a file")]);
        let blob = "QUJD".repeat(5000);
        assert!(idx.rank(&blob).is_empty());
    }
}
