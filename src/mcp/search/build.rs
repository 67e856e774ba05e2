//! Building a [`SearchIndex`]: the documents are cut into parts, each part indexed on a core of
//! its own (its words interned, its postings gathered, its texts embedded), and the parts'
//! sorted term tables merged in document order. The result does not depend on how many parts
//! there were: postings stay in document order and every score is computed per document.

use std::borrow::Cow;
use std::collections::HashMap;
use std::ops::Range;

use foldhash::fast::FixedState;

use super::{Posting, SearchIndex, TextKind, words};

/// A document: its name (what a ranking returns) and its texts, each with the kind that says
/// how much its words count.
/// Texts are borrowed from the items unless they had to be unescaped.
pub(crate) type Document<'t> = (String, Vec<(Cow<'t, str>, TextKind)>);

/// Fewer documents than this per core are indexed on the calling thread: below it a thread
/// costs more than it saves (a 1,000-tool catalog indexes in a few milliseconds).
const DOCS_PER_THREAD: usize = 1024;
/// At most this many threads: the work is a few tens of milliseconds at most.
const MAX_THREADS: usize = 4;

impl SearchIndex {
    /// The index of `items`' documents, in the order results tie in. `document` may parse
    /// (a tool's schema); it runs on the core that indexes the item.
    pub(crate) fn build<'t, T: Sync>(
        items: &'t [T],
        document: impl Fn(&'t T) -> Document<'t> + Sync,
    ) -> SearchIndex {
        let cores = std::thread::available_parallelism().map_or(1, usize::from);
        let threads = cores.min(MAX_THREADS).min(items.len() / DOCS_PER_THREAD);
        Self::build_in(threads.max(1), items, &document)
    }

    /// [`build`](Self::build) in `parts` parts.
    fn build_in<'t, T: Sync>(
        parts: usize,
        items: &'t [T],
        document: &(impl Fn(&'t T) -> Document<'t> + Sync),
    ) -> SearchIndex {
        let size = items.len().div_ceil(parts.max(1)).max(1);
        let mut chunks = items.chunks(size);
        let first = chunks.next().unwrap_or_default();
        let built = std::thread::scope(|scope| {
            let others: Vec<_> = chunks
                .map(|chunk| {
                    let work = move || Part::build(chunk, document);
                    // A thread the system refuses is built here instead, once the rest is.
                    std::thread::Builder::new()
                        .spawn_scoped(scope, work)
                        .map_err(|_| chunk)
                })
                .collect();
            let mut built = vec![Part::build(first, document)];
            for other in others {
                built.push(match other {
                    Ok(handle) => handle
                        .join()
                        .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
                    Err(chunk) => Part::build(chunk, document),
                });
            }
            built
        });
        merge(built)
    }
}

/// The index of a run of consecutive documents, its document ids counted from 0.
#[derive(Default)]
struct Part {
    index: SearchIndex,
    /// Per term id, the term; its postings are `postings[id]`.
    words: Vec<String>,
    postings: Vec<Vec<Posting>>,
}

impl Part {
    fn build<'t, T>(items: &'t [T], document: &impl Fn(&'t T) -> Document<'t>) -> Part {
        let mut part = Part::default();
        let mut terms = Interner::default();
        // Per term, its weighted frequency in the document at hand; `touched` lists the terms
        // it has, in first-seen order, so that postings go in document order.
        let mut tf: Vec<f64> = Vec::new();
        let mut touched: Vec<u32> = Vec::new();
        #[cfg(feature = "mcp-semantic")]
        let mut embedder = super::semantic::Embedder::default();
        for item in items {
            let (name, texts) = document(item);
            let id = part.index.names.len() as u32;
            let name_text = texts
                .iter()
                .find(|(_, kind)| matches!(kind, TextKind::Name));
            let key = name_text.and_then(|(text, _)| words::name_key(text));
            part.index.keys.push(key);
            for (text, kind) in &texts {
                let ids = match text {
                    Cow::Borrowed(text) => terms.text(text, Cow::Borrowed),
                    Cow::Owned(text) => terms.text(text, |s| Cow::Owned(s.to_owned())),
                };
                for &t in ids {
                    let t = t as usize;
                    if t >= tf.len() {
                        tf.resize(t + 1, 0.0);
                    }
                    if tf[t] == 0.0 {
                        touched.push(t as u32);
                    }
                    tf[t] += kind.weight();
                }
            }
            #[cfg(feature = "mcp-semantic")]
            part.index
                .vectors
                .push(super::semantic::embed_document(&mut embedder, &texts));
            part.postings.resize_with(tf.len(), Vec::new);
            let len = touched.iter().map(|&t| tf[t as usize]).sum();
            part.index.lens.push(len);
            for t in touched.drain(..) {
                part.postings[t as usize].push((id, std::mem::take(&mut tf[t as usize]) as f32));
            }
            part.index.names.push(name);
        }
        part.words = terms.into_words();
        part
    }
}

/// The parts' indexes as one: documents in part order, each term's postings those of the
/// parts in order, so in document order.
fn merge(parts: Vec<Part>) -> SearchIndex {
    let mut index = SearchIndex::default();
    let mut terms: Vec<(String, Vec<Posting>)> = Vec::new();
    for part in parts {
        let offset = index.names.len() as u32;
        for (word, mut postings) in part.words.into_iter().zip(part.postings) {
            postings.iter_mut().for_each(|(d, _)| *d += offset);
            terms.push((word, postings));
        }
        let p = part.index;
        index.names.extend(p.names);
        index.keys.extend(p.keys);
        index.lens.extend(p.lens);
        #[cfg(feature = "mcp-semantic")]
        index.vectors.extend(p.vectors);
    }
    // A stable sort: a term's entries stay in part order, so its postings in document order.
    terms.sort_by(|a, b| a.0.cmp(&b.0));
    for (word, postings) in terms {
        match index.terms.last_mut() {
            Some((last, all)) if *last == word => all.extend(postings),
            _ => index.terms.push((word, postings)),
        }
    }
    let n = index.names.len().max(1) as f64;
    index.avg_len = index.lens.iter().sum::<f64>() / n;
    let keys = &index.keys;
    let mut by_key: Vec<u32> = (0..keys.len() as u32)
        .filter(|&d| keys[d as usize].is_some())
        .collect();
    // Stable: equal keys stay in document order.
    by_key.sort_by(|&a, &b| keys[a as usize].cmp(&keys[b as usize]));
    index.by_key = by_key;
    index
}

/// Term ids while a part is built: each distinct text, and each distinct run of text, is cut
/// into words once, and each distinct word gets one id. Catalogs repeat themselves: a server's
/// tools share parameters and their descriptions, and 5,000 tools have a few thousand words.
#[derive(Default)]
struct Interner<'t> {
    /// Each word's id, ids counted from 0 in the order words are first seen.
    ids: HashMap<String, u32, FixedState>,
    runs: HashMap<Cow<'t, str>, Vec<u32>, FixedState>,
    /// Per distinct text, where its term ids are in `cut`.
    texts: HashMap<Cow<'t, str>, Range<usize>, FixedState>,
    cut: Vec<u32>,
}

impl<'t> Interner<'t> {
    /// The term ids of `text`, run by run, in order; `key` makes a memo's key of a part of
    /// it (borrowed when the text lives as long as the part).
    fn text<'a>(&mut self, text: &'a str, key: impl Fn(&'a str) -> Cow<'t, str>) -> &[u32] {
        if let Some(range) = self.texts.get(text) {
            return &self.cut[range.clone()];
        }
        let start = self.cut.len();
        for raw in words::raw_runs(text) {
            self.push_run(raw, || key(raw));
        }
        let range = start..self.cut.len();
        self.texts.insert(key(text), range.clone());
        &self.cut[range]
    }

    /// Appends to `cut` the term ids of the raw run `raw`: its whole (for a camelCase run)
    /// and its words.
    fn push_run(&mut self, raw: &str, key: impl FnOnce() -> Cow<'t, str>) {
        if !self.runs.contains_key(raw) {
            let run = words::run(raw);
            let ids = run
                .whole
                .into_iter()
                .chain(run.parts)
                .map(|w| self.id(w))
                .collect();
            self.runs.insert(key(), ids);
        }
        self.cut.extend_from_slice(&self.runs[raw]);
    }

    /// `word`'s id: the next one when it is new (one hash per word, and no copy of it).
    fn id(&mut self, word: String) -> u32 {
        let next = self.ids.len() as u32;
        *self.ids.entry(word).or_insert(next)
    }

    /// Per term id, the term.
    fn into_words(self) -> Vec<String> {
        let mut words = vec![String::new(); self.ids.len()];
        for (word, id) in self.ids {
            words[id as usize] = word;
        }
        words
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Documents made from real-looking text: names and descriptions that share words.
    fn docs() -> Vec<(String, String)> {
        let verbs = ["list", "get", "create", "delete", "update", "search"];
        let things = [
            "file",
            "directory",
            "issue",
            "storageAccount",
            "cosmosDB",
            "page",
        ];
        let mut docs = Vec::new();
        for (i, verb) in verbs.iter().enumerate() {
            for (j, thing) in things.iter().enumerate() {
                let name = format!("{verb}_{thing}_{}", (i * 7 + j) % 5);
                let text = format!("{verb} a {thing}; {verb}s {thing}s by id {i}{j}");
                docs.push((name, text));
            }
        }
        docs
    }

    fn document((name, text): &(String, String)) -> Document<'_> {
        (
            name.clone(),
            vec![
                (Cow::Borrowed(name.as_str()), TextKind::Name),
                (Cow::Borrowed(text.as_str()), TextKind::Text),
            ],
        )
    }

    #[test]
    fn any_number_of_parts_builds_the_same_index() {
        let docs = docs();
        let one = SearchIndex::build_in(1, &docs, &document);
        for parts in [2, 3, 7, docs.len(), docs.len() + 5] {
            let many = SearchIndex::build_in(parts, &docs, &document);
            assert_eq!(many.names, one.names, "{parts} parts");
            assert_eq!(many.keys, one.keys, "{parts} parts");
            assert_eq!(many.lens, one.lens, "{parts} parts");
            assert_eq!(many.avg_len, one.avg_len, "{parts} parts");
            assert_eq!(many.terms, one.terms, "{parts} parts");
            for query in [
                "list files",
                "cosmos",
                "storage account",
                "dir",
                "delete issue 3",
            ] {
                assert_eq!(many.rank(query), one.rank(query), "{parts} parts: {query}");
            }
        }
    }

    #[test]
    fn no_documents_make_an_empty_index() {
        let none: [(String, String); 0] = [];
        let index = SearchIndex::build_in(3, &none, &document);
        assert!(index.names.is_empty() && index.terms.is_empty());
        assert!(index.rank("anything").is_empty());
    }
}
