//! Keyword search: BM25 over documents made of weighted texts (for the catalog, each tool's
//! name, title, description, server and parameter names and descriptions, with the name and
//! parameter names weighted up: [`Catalog::search`](super::Catalog::search)). Knows nothing of
//! catalogs: the catalog builds the index from its tools.

use std::collections::HashMap;

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
    /// Anything else: descriptions, the server's name.
    Text,
}

impl TextKind {
    fn weight(self) -> f64 {
        match self {
            TextKind::Name => 3.0,
            TextKind::Title | TextKind::Param => 2.0,
            TextKind::Text => 1.0,
        }
    }
}
/// A query word that is only a prefix of a document word (`dir` → `directory`) counts this much.
const PREFIX_WEIGHT: f64 = 0.5;

const STOP_WORDS: &[&str] = &[
    "a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "if", "in", "is", "it", "of",
    "on", "or", "that", "the", "this", "to", "with", "you", "your",
];

/// The inverted index: per document its weighted term frequencies and length.
#[derive(Debug, Default)]
pub(crate) struct SearchIndex {
    docs: Vec<Doc>,
    /// Term → number of documents containing it.
    df: HashMap<String, usize>,
    avg_len: f64,
}

#[derive(Debug)]
struct Doc {
    name: String,
    terms: HashMap<String, f64>,
    len: f64,
}

/// Lowercase words of `text`, split at non-alphanumerics and at camelCase humps, with a plural
/// `s` dropped so `files` finds `file`.
pub(crate) fn words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut prev_lower = false;
    let flush = |word: &mut String, out: &mut Vec<String>| {
        if !word.is_empty() {
            let w = std::mem::take(word);
            if !STOP_WORDS.contains(&w.as_str()) {
                out.push(stem(w));
            }
        }
    };
    for c in text.chars() {
        if c.is_alphanumeric() {
            if c.is_uppercase() && prev_lower {
                flush(&mut word, &mut out);
            }
            prev_lower = c.is_lowercase() || c.is_numeric();
            word.extend(c.to_lowercase());
        } else {
            flush(&mut word, &mut out);
            prev_lower = false;
        }
    }
    flush(&mut word, &mut out);
    out
}

fn stem(mut w: String) -> String {
    if w.len() > 3 && w.ends_with('s') && !w.ends_with("ss") {
        w.pop();
    }
    w
}

impl SearchIndex {
    /// The index of `docs`: each a name and its texts, in the order results tie in.
    pub(crate) fn build<'t>(
        docs: impl IntoIterator<Item = (String, Vec<(&'t str, TextKind)>)>,
    ) -> SearchIndex {
        let mut index = SearchIndex::default();
        for (name, texts) in docs {
            let mut terms: HashMap<String, f64> = HashMap::new();
            for (text, field) in texts {
                for w in words(text) {
                    *terms.entry(w).or_default() += field.weight();
                }
            }
            for term in terms.keys() {
                *index.df.entry(term.clone()).or_default() += 1;
            }
            let len = terms.values().sum();
            index.docs.push(Doc { name, terms, len });
        }
        let n = index.docs.len().max(1) as f64;
        index.avg_len = index.docs.iter().map(|d| d.len).sum::<f64>() / n;
        index
    }

    fn idf(&self, term: &str) -> f64 {
        let n = self.docs.len() as f64;
        let df = self.df.get(term).copied().unwrap_or(0) as f64;
        ((n - df + 0.5) / (df + 0.5) + 1.0).ln()
    }

    /// (name, score) of every document matching `query`, best first.
    pub(crate) fn rank(&self, query: &str) -> Vec<(&str, f64)> {
        let mut query_words = words(query);
        query_words.sort();
        query_words.dedup();
        let mut scored: Vec<(&str, f64)> = Vec::new();
        for doc in &self.docs {
            let norm = K1 * (1.0 - B + B * doc.len / self.avg_len.max(1.0));
            let mut score = 0.0;
            for q in &query_words {
                // An exact word, else the best word it is a prefix of (3+ letters).
                let (tf, weight, term) = match doc.terms.get(q) {
                    Some(&tf) => (tf, 1.0, q.as_str()),
                    None if q.len() >= 3 => match doc
                        .terms
                        .iter()
                        .filter(|(t, _)| t.starts_with(q.as_str()))
                        .max_by(|a, b| a.1.total_cmp(b.1))
                    {
                        Some((t, &tf)) => (tf, PREFIX_WEIGHT, t.as_str()),
                        None => continue,
                    },
                    None => continue,
                };
                score += weight * self.idf(term) * tf * (K1 + 1.0) / (tf + norm);
            }
            if score > 0.0 {
                scored.push((doc.name.as_str(), score));
            }
        }
        // Best first; ties in catalog order (the sort is stable).
        scored.sort_by(|a, b| b.1.total_cmp(&a.1));
        scored
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_split_names_and_drop_plurals_and_stop_words() {
        assert_eq!(words("git_diff-unstaged"), ["git", "diff", "unstaged"]);
        assert_eq!(words("readMultipleFiles"), ["read", "multiple", "file"]);
        assert_eq!(
            words("Get the files in a directory"),
            ["get", "file", "directory"]
        );
        assert_eq!(words("HTTPServer class"), ["httpserver", "class"]);
    }
}
