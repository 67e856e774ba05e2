//! The lexical ranking fused with static embeddings (feature `mcp-semantic`): a request that
//! shares no word with the right tool ("papers on climate" → a research tool) still finds it
//! by meaning, and the words still decide between near neighbours. Request and tool are
//! embedded by their content words ([`content_words`]); the fused score is BM25 over the
//! query's best plus 3 × cosine. On the four retrieval sets that gives macro R@1 / R@5 / MRR
//! 0.602 / 0.801 / 0.735 (fit halves' R@5 0.800, held halves' 0.803).

use std::borrow::Cow;

use super::TextKind;
pub(super) use crate::mcp::embedding::{self, Embedder};

/// How much a document's cosine similarity to the query counts beside its BM25 score divided
/// by the query's best. Fitted on the fit halves of the retrieval sets (`examples/discovery.rs`)
/// with the table fitted to tool texts too (`scripts/gather-tool-corpus.py`): macro R@5 0.794 /
/// 0.795 at 3 / 3.5, a tie within one request, and the smaller weight leaves the words more say
/// (2.5 was best for the table fitted to software texts alone, 0.789).
const COSINE_WEIGHT: f64 = 3.0;
/// A document no query word reaches, for a request none of whose words the catalog has, is a
/// hit only this similar at least: below it, meaning alone is noise (the made-up `zzzqqq`
/// reaches 0.53 with an azure tool, 3.2 standard deviations over the catalog's mean). 0.5,
/// 0.55 and 0.6 give the same recall on the four sets, whose requests nearly always share a
/// word with the catalog; 0.6 leaves `zzzqqq` a margin. What it costs a request none of whose
/// words the catalog has (one in another language) is not measured.
const COSINE_FLOOR: f64 = 0.6;
/// See [`floor`]: 3 kept zzzqqq, xyzzy and ok from matching azure's tools when texts were
/// embedded whole, at 0.005 of metatool's R@5 (now `ok` stands 2.2, `xyzzy` 2.1 and `zzzqqq`
/// 3.2 deviations out, and `COSINE_FLOOR` stops all three).
const SPREAD: f64 = 3.0;
/// See [`floor`]: for a request some of whose words the catalog has, a tool reached by meaning
/// alone needs only to stand out from the catalog this much. Such a request is about the catalog
/// (made-up words and chat are not), and the floors above cost metatool's requests the tool they
/// paraphrase ("the current price of Ethereum" → a finance tool that says "cryptocurrencies"):
/// its R@5 0.731 → 0.748, the fit halves' macro 0.785 → 0.789 (1 and 2 deviations alike; 2.5
/// and 3: 0.788; measured with the table fitted to software texts alone).
const KNOWN_SPREAD: f64 = 2.0;

/// The embedding of a document: its name's words and its description, without stop words
/// ([`content_words`]; the text the distilled model matches requests against best: parameters
/// add noise).
pub(super) fn embed_document(
    embedder: &mut embedding::Embedder,
    texts: &[(Cow<'_, str>, TextKind)],
) -> Option<Vec<f32>> {
    let of = |want: fn(&TextKind) -> bool| {
        texts
            .iter()
            .find(|(_, kind)| want(kind))
            .map_or("", |(text, _)| text.as_ref())
    };
    let name = of(|k| matches!(k, TextKind::Name));
    let description = of(|k| matches!(k, TextKind::Description));
    // Word by word into the embedder, which stops taking them at its token limit: a long
    // description is neither copied nor read to its end.
    let mut more = true;
    for raw in super::words::raw_runs(name) {
        super::words::split(raw, |piece| {
            if more && !super::words::is_stop_word(piece) {
                more = embedder.push(piece);
            }
        });
    }
    let content =
        super::words::raw_runs(description).filter(|raw| !super::words::is_stop_word(raw));
    for raw in content.take(embedding::MAX_TOKENS) {
        if !more {
            break;
        }
        more = embedder.push(raw);
    }
    embedder.finish()
}

/// Appends the words of `text` that say what it is about, at most `limit` (each is a token at
/// least, and the model reads no more than `MAX_TOKENS`): its alphanumeric runs, one space
/// apart, less stop words and punctuation. A mean of token vectors has no attention to look
/// past "can you help me" and commas, and the table's frequency weights do not silence them:
/// embedding content words only lifts the table alone on the fit halves from macro R@5 0.679
/// to 0.723 (metatool 0.655 to 0.696, livemcpbench 0.155 to 0.287), and the fusion from 0.769
/// to 0.779 (then with `COSINE_WEIGHT` 2.5, `COSINE_FLOOR` 0.5 and the table fitted to software
/// texts alone).
fn content_words(text: &str, limit: usize, out: &mut String) {
    let content = super::words::raw_runs(text).filter(|raw| !super::words::is_stop_word(raw));
    for raw in content.take(limit) {
        out.push_str(raw);
        out.push(' ');
    }
}

/// Replaces each lexical score by the fused one: BM25 over the query's best BM25, plus
/// `COSINE_WEIGHT` × cosine (if positive); a document with no lexical score needs a cosine
/// of [`floor`] at least.
pub(super) fn fuse(query: &str, vectors: &[Option<Vec<f32>>], scores: &mut [f64]) {
    let mut content = String::with_capacity(query.len().min(4096));
    content_words(query, embedding::MAX_TOKENS, &mut content);
    let Some(q) = embedding::embed(&content) else {
        return;
    };
    let cosines: Vec<f64> = vectors
        .iter()
        .map(|v| {
            v.as_deref()
                .map_or(0.0, |v| f64::from(embedding::dot(&q, v)))
        })
        .collect();
    let best = scores.iter().copied().fold(0.0, f64::max);
    let floor = floor(&cosines, best > 0.0);
    for (score, cosine) in scores.iter_mut().zip(cosines) {
        let lexical = if best > 0.0 { *score / best } else { 0.0 };
        // A meaning far from the query's adds nothing, and takes nothing: a negative cosine
        // once cancelled the words and dropped a tool they had found.
        *score = if lexical > 0.0 || cosine >= floor {
            lexical + COSINE_WEIGHT * cosine.max(0.0)
        } else {
            0.0
        };
    }
}

/// How similar a tool no query word reaches must be: `KNOWN_SPREAD` standard deviations over
/// the catalog's mean similarity to this query when some query word reached a tool, else
/// `COSINE_FLOOR` and `SPREAD` deviations. Made-up words are about as close to every tool
/// (zzzqqq: at most 0.53 to any of azure's); a request stands out from the catalog at the tool
/// it means.
fn floor(cosines: &[f64], words_found: bool) -> f64 {
    let n = cosines.len().max(1) as f64;
    let mean = cosines.iter().sum::<f64>() / n;
    let var = cosines.iter().map(|c| (c - mean) * (c - mean)).sum::<f64>() / n;
    let sd = var.sqrt();
    if words_found {
        mean + KNOWN_SPREAD * sd
    } else {
        COSINE_FLOOR.max(mean + SPREAD * sd)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meaning_alone_needs_less_when_the_words_found_something() {
        // 100 tools: 98 at 0.2, one at 0.45, one at 0.6 (mean 0.2065, sd 0.047).
        let mut cosines = vec![0.2; 98];
        cosines.extend([0.45, 0.6]);
        let known = floor(&cosines, true);
        assert!(known < 0.45 && known > 0.25, "{known}");
        let unknown = floor(&cosines, false);
        assert_eq!(unknown, COSINE_FLOOR);
        // Spread wide, the deviations decide in both cases.
        let wide: Vec<f64> = (0..100).map(|i| f64::from(i) / 100.0).collect();
        assert!(floor(&wide, false) > COSINE_FLOOR && floor(&wide, true) < floor(&wide, false));
    }

    #[test]
    fn a_tool_the_words_find_stays_however_far_its_meaning() {
        let query = "read a file";
        let near = embedding::embed(query).unwrap();
        let far: Vec<f32> = near.iter().map(|x| -x).collect();
        let mut scores = [2.0, 1.0];
        fuse(query, &[Some(near), Some(far)], &mut scores);
        assert!(scores[0] > scores[1] && scores[1] > 0.0, "{scores:?}");
    }
}
