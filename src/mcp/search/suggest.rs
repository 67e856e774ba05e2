//! "Did you mean": the tools an unknown tool name is closest to, for its error, in work that
//! does not grow with the catalog. Every unknown name a client sends runs one, so the full
//! ranking ([`SearchIndex::rank`]: a score per document, a sort of every match) let 200
//! pipelined calls of made-up names hold a 100,000-tool proxy for seconds.
//!
//! A catalog of at most [`FULL_RANK_DOCS`] tools gets the full ranking's best, as it always
//! did. A larger one is ranked by the same BM25 scores over a bounded set of candidates: the
//! documents of the name's rarest terms (those that say most), read within [`READ_POSTINGS`],
//! then scored for its commoner terms too by lookups within [`LOOKUP_STEPS`]; a tool the name
//! names (`Read-File` for `read_file`) is found by its key and comes first, as in the ranking.
//! Meaning (`mcp-semantic`) is left out there: a mistyped name says nothing its words do not.

use super::{COMPOUND_WEIGHT, MAX_EXPANSIONS, PREFIX_WEIGHT, Posting, RELATED_WEIGHT};
use super::{SearchIndex, words};

/// Up to this many documents, suggestions are the full ranking's best: its work, at most a
/// few postings lists of this length per word, is small.
pub(super) const FULL_RANK_DOCS: usize = 1_000;
/// The most bytes of a name looked at (far beyond any tool's name: [`words::name_key`] stops
/// at 128).
const NAME_BYTES: usize = 256;
/// The most words of a name looked at (a tool's name rarely has more).
const NAME_WORDS: usize = 8;
/// The most postings read to find candidates, the rarest terms' first.
const READ_POSTINGS: usize = 1_024;
/// The most binary-search steps spent scoring candidates on commoner terms; a term whose
/// lookups would pass it, and every commoner one, adds nothing.
const LOOKUP_STEPS: usize = 32_768;

/// A term a name's word stands for: its postings and how much it counts. A document scores,
/// per group of terms, its best term's score (a prefix's expansions), and the groups add up.
struct Term<'i> {
    postings: &'i [Posting],
    weight: f64,
    group: usize,
}

impl SearchIndex {
    /// The names of at most `limit` documents closest to `name`, best first, and the work it
    /// took (postings read and search steps), for tests to bound.
    pub(crate) fn suggest(&self, name: &str, limit: usize) -> (Vec<&str>, usize) {
        let name = cut(name, NAME_BYTES);
        if self.names.len() <= FULL_RANK_DOCS {
            let ranked = self.rank(name).into_iter().take(limit);
            return (ranked.map(|(n, _)| n).collect(), 0);
        }
        let mut work = 0;
        let mut words = self.query_words(name);
        words.truncate(NAME_WORDS);
        let (mut terms, mut groups) = (Vec::new(), 0);
        for q in &words {
            self.terms_of(q, &mut groups, &mut terms);
        }
        // Rarest first: the candidates come from the terms that tell documents apart, and
        // the commonest, which tell least, are the ones left out when lookups run out.
        terms.sort_by_key(|t| t.postings.len());
        let (candidates, read) = candidates(&terms, &mut work);
        let looked_up = lookups(&terms[read..], candidates.len(), &mut work);
        let mut scores = vec![0.0; candidates.len()];
        let mut best = vec![0.0; candidates.len()];
        for group in 0..groups {
            best.iter_mut().for_each(|b| *b = 0.0);
            let of_group = terms.iter().enumerate().filter(|(_, t)| t.group == group);
            for (at, term) in of_group {
                if at < read {
                    self.score_read(term, &candidates, &mut best, &mut work);
                } else if at < read + looked_up {
                    self.score_looked_up(term, &candidates, &mut best);
                }
            }
            scores.iter_mut().zip(&best).for_each(|(s, b)| *s += b);
        }
        let named = self.named(name, &mut work);
        (self.best(&candidates, &scores, &named, limit), work)
    }

    /// The terms query word `q` stands for, as [`score_word`](Self::score_word) scores them:
    /// each related word a group, then the word itself, or its compound's halves (two groups),
    /// or its prefix's expansions (one group, each document's best).
    /// `groups` counts the groups so far.
    fn terms_of<'i>(&'i self, q: &str, groups: &mut usize, terms: &mut Vec<Term<'i>>) {
        let mut push = |postings, weight, new_group: bool| {
            *groups += usize::from(new_group);
            terms.push(Term {
                postings,
                weight,
                group: *groups - 1,
            });
        };
        if let Some(related) = words::related(q) {
            for r in related.iter().filter(|r| **r != q) {
                if let Some(postings) = self.postings(r) {
                    push(postings, RELATED_WEIGHT, true);
                }
            }
        }
        if let Some(postings) = self.postings(q) {
            push(postings, 1.0, true);
        } else if let Some((head, tail)) = self.compound(q) {
            push(head, COMPOUND_WEIGHT, true);
            push(tail, COMPOUND_WEIGHT, true);
        } else if q.len() >= 3 {
            for (i, (_, postings)) in self.longer(q).take(MAX_EXPANSIONS).enumerate() {
                push(postings, PREFIX_WEIGHT, i == 0);
            }
        }
    }

    /// `term`'s score in a document, by its weighted frequency there.
    fn term_score(&self, term: &Term<'_>, (doc, tf): Posting) -> f64 {
        term.weight * self.idf(term.postings.len()) * self.saturate(f64::from(tf), doc)
    }

    /// Scores a term read (whole, or its first `READ_POSTINGS`: [`candidates`]): each of
    /// those postings found among the candidates.
    fn score_read(&self, term: &Term<'_>, candidates: &[u32], best: &mut [f64], work: &mut usize) {
        for &posting in term.postings.iter().take(READ_POSTINGS) {
            *work += steps(candidates.len());
            if let Ok(i) = candidates.binary_search(&posting.0) {
                best[i] = f64::max(best[i], self.term_score(term, posting));
            }
        }
    }

    /// Scores a commoner term: each candidate looked up in its postings (both in document
    /// order, so each search starts where the last ended).
    fn score_looked_up(&self, term: &Term<'_>, candidates: &[u32], best: &mut [f64]) {
        let mut from = 0;
        for (i, &doc) in candidates.iter().enumerate() {
            let rest = &term.postings[from..];
            from += rest.partition_point(|p| p.0 < doc);
            if let Some(&posting) = term.postings.get(from).filter(|p| p.0 == doc) {
                best[i] = f64::max(best[i], self.term_score(term, posting));
            }
        }
    }

    /// The documents `name` names ([`words::name_key`]), in document order, by a binary
    /// search of the documents sorted by key.
    fn named(&self, name: &str, work: &mut usize) -> Vec<u32> {
        let Some(key) = words::name_key(name) else {
            return Vec::new();
        };
        let key = Some(key);
        let of = |d: &u32| &self.keys[*d as usize];
        *work += steps(self.by_key.len());
        let start = self.by_key.partition_point(|d| *of(d) < key);
        let mut named: Vec<u32> = self.by_key[start..]
            .iter()
            .take_while(|d| *of(d) == key)
            .copied()
            .collect();
        named.sort_unstable();
        named
    }

    /// The best `limit` names: those named first, then by score, ties in document order, as
    /// [`rank`](Self::rank) orders them.
    fn best(&self, candidates: &[u32], scores: &[f64], named: &[u32], limit: usize) -> Vec<&str> {
        let score = |d: u32| candidates.binary_search(&d).map_or(0.0, |i| scores[i]);
        let mut ranked: Vec<(bool, f64, u32)> =
            named.iter().map(|&d| (true, score(d), d)).collect();
        ranked.extend(
            candidates
                .iter()
                .zip(scores)
                .filter(|&(d, &s)| s > 0.0 && named.binary_search(d).is_err())
                .map(|(&d, &s)| (false, s, d)),
        );
        ranked.sort_by(|a, b| {
            (b.0.cmp(&a.0))
                .then(b.1.total_cmp(&a.1))
                .then(a.2.cmp(&b.2))
        });
        ranked
            .into_iter()
            .take(limit)
            .map(|(_, _, d)| self.names[d as usize].as_str())
            .collect()
    }
}

/// How many of `terms` (the first ones: the rarest after those read) are looked up for each
/// of `candidates` candidates within `LOOKUP_STEPS`; their cost is added to `work`.
fn lookups(terms: &[Term<'_>], candidates: usize, work: &mut usize) -> usize {
    let mut spent = 0;
    let mut looked_up = 0;
    for term in terms {
        let cost = candidates * steps(term.postings.len());
        if spent + cost > LOOKUP_STEPS {
            break;
        }
        spent += cost;
        looked_up += 1;
    }
    *work += spent;
    looked_up
}

/// The candidates (document ids, ascending) and how many of `terms` (the first ones) were
/// read to find them: terms while their postings fit in `READ_POSTINGS` together; if not
/// even the first does, its first `READ_POSTINGS` documents (a sample in document order, as
/// ties go), and that term counts as read.
fn candidates(terms: &[Term<'_>], work: &mut usize) -> (Vec<u32>, usize) {
    let mut docs = Vec::new();
    let mut read = 0;
    for term in terms {
        if docs.len() + term.postings.len() > READ_POSTINGS {
            break;
        }
        docs.extend(term.postings.iter().map(|p| p.0));
        read += 1;
    }
    if read == 0
        && let Some(term) = terms.first()
    {
        docs.extend(term.postings.iter().take(READ_POSTINGS).map(|p| p.0));
        read = 1;
    }
    *work += docs.len();
    docs.sort_unstable();
    docs.dedup();
    (docs, read)
}

/// The steps of a binary search over `n` items.
fn steps(n: usize) -> usize {
    (usize::BITS - n.leading_zeros()) as usize + 1
}

/// `text`'s first `max` bytes at most, cut at a character's start.
fn cut(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::search::TextKind;

    /// An index of `docs`' (name, description) pairs.
    fn index(docs: &[(String, String)]) -> SearchIndex {
        SearchIndex::build(docs, |(name, text)| {
            (
                name.clone(),
                vec![
                    (name.as_str().into(), TextKind::Name),
                    (text.as_str().into(), TextKind::Description),
                ],
            )
        })
    }

    /// `n` tools that share their words (`get`, `item`, `list`), and a few that stand out.
    fn big(n: usize) -> SearchIndex {
        let mut docs: Vec<(String, String)> = (0..n)
            .map(|i| {
                let verb = ["get", "list", "update"][i % 3];
                (
                    format!("{verb}_item_{i}"),
                    format!("{verb} item {i} of the list"),
                )
            })
            .collect();
        for (name, text) in [
            ("weather_forecast", "Forecast the weather for a city"),
            (
                "github_create_issue",
                "Create an issue in a GitHub repository",
            ),
            ("read_text_file", "Read a text file"),
        ] {
            docs.insert(n / 2, (name.to_owned(), text.to_owned()));
        }
        index(&docs)
    }

    /// The most work one suggestion may take, whatever the catalog: candidates read and
    /// located among themselves, lookups, the search by key (of at most 2^32 documents).
    fn max_work() -> usize {
        READ_POSTINGS * (1 + steps(READ_POSTINGS)) + LOOKUP_STEPS + steps(u32::MAX as usize)
    }

    #[test]
    fn a_large_catalog_s_suggestions_take_bounded_work_and_find_the_close_names() {
        let idx = big(60_000);
        // Less than one step per document, which the full ranking took at least (a score
        // each, then a sort of those that matched).
        assert!(max_work() < 60_000, "{}", max_work());
        let suggest = |name: &str| {
            let (names, work) = idx.suggest(name, 3);
            assert!(work <= max_work(), "{name:.40}: {work} steps");
            names
        };
        assert_eq!(suggest("weather_forcast")[0], "weather_forecast");
        assert_eq!(suggest("github_issue_create")[0], "github_create_issue");
        // Named, in other spelling: first, as the full ranking puts it.
        assert_eq!(suggest("Read-Text-File")[0], "read_text_file");
        assert_eq!(suggest("GET ITEM 4710")[0], "get_item_4710");
        // Words every tool has, a prefix of thousands, a paste: bounded all the same.
        assert_eq!(suggest("get_item_list").len(), 3);
        suggest("ite");
        suggest(&"list_item_get_update ".repeat(50_000));
        assert!(suggest("zzzqqq").is_empty());
    }

    /// The full ranking of `rank` without meaning (`mcp-semantic`), for comparison.
    fn lexical_best<'i>(idx: &'i SearchIndex, query: &str, limit: usize) -> Vec<&'i str> {
        let mut scores = vec![0.0; idx.names.len()];
        for q in idx.query_words(query) {
            idx.score_word(&q, &mut scores);
        }
        let key = words::name_key(query);
        let mut ranked: Vec<(usize, f64, bool)> = scores
            .into_iter()
            .enumerate()
            .map(|(d, s)| (d, s, key.is_some() && idx.keys[d] == key))
            .filter(|&(_, s, named)| s > 0.0 || named)
            .collect();
        ranked.sort_by(|a, b| {
            (b.2.cmp(&a.2))
                .then(b.1.total_cmp(&a.1))
                .then(a.0.cmp(&b.0))
        });
        ranked
            .into_iter()
            .take(limit)
            .map(|(d, _, _)| idx.names[d].as_str())
            .collect()
    }

    #[test]
    fn when_nothing_is_left_out_suggestions_are_the_full_ranking_s() {
        let verbs = [
            "get", "list", "create", "delete", "search", "read", "write", "move",
        ];
        let things = [
            "file", "issue", "branch", "user", "table", "image", "note", "event",
        ];
        let places = ["github", "slack", "drive", "jira", "notion"];
        let mut docs = Vec::new();
        for (p, place) in places.iter().enumerate() {
            for (v, verb) in verbs.iter().enumerate() {
                for (t, thing) in things.iter().enumerate() {
                    for copy in 0..(1 + (p + v + t) % 6) {
                        let name = format!("{place}_{verb}_{thing}_{copy}");
                        docs.push((name, format!("{verb} a {thing} in {place}")));
                    }
                }
            }
        }
        assert!(docs.len() > FULL_RANK_DOCS, "{}", docs.len());
        let idx = index(&docs);
        let queries = [
            "github_get_file",
            "slack_delete_user_2",
            "jira issue",
            "drive_writ_image",
            "notoin_search_note",
            "remove_event",
            "githubfile",
        ];
        for query in queries {
            let (names, _) = idx.suggest(query, 3);
            assert_eq!(names, lexical_best(&idx, query, 3), "{query}");
        }
    }

    #[test]
    fn a_small_catalog_s_suggestions_are_the_full_ranking_s() {
        let docs: Vec<(String, String)> = (0..200)
            .map(|i| {
                (
                    format!("tool_{i}"),
                    format!("read{} file{} data", i % 7, i % 5),
                )
            })
            .collect();
        let idx = index(&docs);
        for query in ["read file da", "tool_12", "file3"] {
            let ranked: Vec<&str> = idx
                .rank(query)
                .into_iter()
                .take(3)
                .map(|(n, _)| n)
                .collect();
            assert_eq!(idx.suggest(query, 3).0, ranked, "{query}");
        }
    }
}
