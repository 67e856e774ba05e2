//! The words a search compares: text split at non-alphanumerics and at camelCase and acronym
//! humps (`SEOTool` → `seo`, `tool`), lowercased, stop words dropped, and reduced to a stem
//! that keeps unrelated words apart (`files` → `file`, `creating` → `creat`, `news` stays).

/// Longer words are not words but ids, hashes or pasted data: they match nothing.
const MAX_WORD: usize = 32;
/// Longer alphanumeric runs are not names (MCP caps a tool name at 64) but pasted data: base64,
/// hex, tokens, whose humps would otherwise split into thousands of fragments.
const MAX_RUN: usize = 64;

/// Words that say nothing about which tool is wanted: English function words and the chat
/// around a request ("can you help me …"). Sorted (their keys are, [`STOP_KEYS`]).
const STOP_WORDS: &[&str] = &[
    "a", "about", "above", "after", "again", "am", "an", "and", "any", "are", "as", "assist", "at",
    "be", "because", "been", "being", "both", "but", "by", "can", "could", "did", "do", "does",
    "doing", "during", "each", "else", "etc", "for", "from", "further", "had", "has", "have",
    "having", "he", "hello", "help", "her", "here", "hers", "hey", "hi", "him", "his", "how", "i",
    "if", "im", "in", "into", "is", "it", "its", "itself", "just", "kindly", "let", "like", "may",
    "me", "might", "mine", "must", "my", "myself", "need", "of", "on", "once", "or", "our", "ours",
    "please", "shall", "she", "should", "so", "some", "such", "than", "thank", "thanks", "that",
    "the", "their", "theirs", "them", "then", "there", "these", "they", "this", "those", "through",
    "to", "too", "us", "very", "want", "was", "we", "were", "what", "when", "where", "which",
    "while", "who", "whom", "why", "will", "with", "would", "you", "your", "yours", "yourself",
];

/// Words whose ending is not an inflection (`news` is not the plural of `new`).
const KEEP: &[&str] = &[
    "always",
    "analysis",
    "basis",
    "bias",
    "canvas",
    "chaos",
    "cosmos",
    "kubernetes",
    "news",
    "perhaps",
    "physics",
    "series",
    "species",
    "status",
    "thus",
    "various",
];

/// Groups of stems that requests and tool texts use for one another, each kept only if it
/// does not lower recall on the fit halves (`show`/`list`/`get` did: azure tells them apart).
const RELATED: &[&[&str]] = &[
    &["delet", "remov", "eras", "drop"],
    &["creat", "add", "make", "new", "generat"],
    &["find", "search", "lookup", "look", "query"],
    &["updat", "modify", "edit", "chang", "set"],
    &["run", "execut", "start", "launch"],
    &["stop", "kill", "terminat", "cancel"],
    &["pictur", "imag", "photo"],
    &["fetch", "retriev", "get", "download"],
    &["save", "writ"],
];

/// Days named relative to today: a request that says one needs today's date first ("trains
/// next Wednesday", "stay from tomorrow"), which a time tool gives.
const RELATIVE_DAYS: &[&str] = &[
    "friday",
    "monday",
    "saturday",
    "sunday",
    "thursday",
    "today",
    "tomorrow",
    "tonight",
    "tuesday",
    "wednesday",
    "yesterday",
];

/// The stems related to `stem`, with itself.
pub(crate) fn related(stem: &str) -> Option<&'static [&'static str]> {
    RELATED.iter().copied().find(|group| group.contains(&stem))
}

/// The stems a request means without writing them, for the words it writes (`words`, its
/// stems) and its text: a file path it names (`save it to /root/notes/x.md`) stands for a
/// file, a day named relative to today for the current time. Fitted on the fit halves of the
/// retrieval sets, where agents' requests leave these steps unsaid (benches/README.md). A path
/// with `save` outside it implies writing (`save the report to /root/x.md` needs `write_file`,
/// and `save` is only related to `write`); a path alone does not: that put `write_file` first
/// for "read /tmp/x.txt" without the embeddings (MCPToolBench++ R@1 0.931 → 0.891). A request
/// that mentions a file it saved before ("read what I saved in /root/x.md") is taken as saving
/// too. Only the first `tokens` whitespace-separated tokens are read, as only a query's first
/// runs give its words.
pub(crate) fn implied(query: &str, words: &[String], tokens: usize) -> Vec<&'static str> {
    let mut out = Vec::new();
    let (mut path, mut save) = (false, false);
    for token in query.split_whitespace().take(tokens) {
        path |= is_file_path(token);
        save |= is_save(token);
    }
    if path {
        out.push("file");
        if save {
            out.push("writ");
        }
    }
    if words
        .iter()
        .any(|w| RELATIVE_DAYS.binary_search(&w.as_str()).is_ok())
    {
        out.extend(["current", "time"]);
    }
    out
}

/// Whether `token` is a form of "save", outside a path (`/data/savings.csv` is not).
fn is_save(token: &str) -> bool {
    let word = token.trim_matches(|c: char| !c.is_alphanumeric());
    ["save", "saves", "saved", "saving"]
        .iter()
        .any(|s| word.eq_ignore_ascii_case(s))
}

/// Whether `token` is a file's path: a `/` or `\\` before a name with an extension of one to
/// five letters or digits (`/root/notes/x.md`, `C:\\a\\b.txt`, `./data.csv`), not a URL.
fn is_file_path(token: &str) -> bool {
    let token = token.trim_end_matches(|c: char| !c.is_alphanumeric());
    let Some((path, extension)) = token.rsplit_once('.') else {
        return false;
    };
    (path.contains('/') || path.contains('\\'))
        && !path.contains("://")
        && (1..=5).contains(&extension.len())
        && extension.bytes().all(|b| b.is_ascii_alphanumeric())
}

/// An alphanumeric run of a text: its words, and when camelCase cut it in several
/// (`MySQL` → `sql`), the run as one word too (`mysql`), which a name may use.
#[derive(Debug, Default)]
pub(crate) struct Run {
    pub(crate) whole: Option<String>,
    pub(crate) parts: Vec<String>,
}

/// The stemmed, lowercased words of `text` that are not stop words, in order.
#[cfg(test)]
fn words(text: &str) -> Vec<String> {
    runs(text).into_iter().flat_map(|run| run.parts).collect()
}

/// The runs of `text` that have a word, in order.
#[cfg(test)]
fn runs(text: &str) -> Vec<Run> {
    raw_runs(text).map(run).filter(|r| !r.is_empty()).collect()
}

/// The alphanumeric runs of `text` as they are written; a run longer than any name is pasted
/// data (base64, hex, a token) and left out.
pub(crate) fn raw_runs(text: &str) -> impl Iterator<Item = &str> {
    Runs { text, at: 0 }.filter(|run| run.len() <= MAX_RUN || run.chars().count() <= MAX_RUN)
}

/// The maximal alphanumeric runs of a text: what splitting it at each non-alphanumeric
/// character and dropping the empty pieces gives, read a byte at a time where the text is ASCII
/// (decoding every character cost a tenth of the fused index's build).
struct Runs<'t> {
    text: &'t str,
    at: usize,
}

impl<'t> Iterator for Runs<'t> {
    type Item = &'t str;

    fn next(&mut self) -> Option<&'t str> {
        let start = scan(self.text, self.at, false);
        let end = scan(self.text, start, true);
        self.at = end;
        (start < end).then(|| &self.text[start..end])
    }
}

/// Per byte: 1 for an ASCII letter or digit (exactly the ASCII characters `is_alphanumeric`
/// takes), 0 for any other ASCII byte, 2 for a byte of a non-ASCII character.
static BYTE_CLASS: [u8; 256] = {
    let mut class = [2u8; 256];
    let mut b = 0;
    while b < 128 {
        class[b] = (b as u8).is_ascii_alphanumeric() as u8;
        b += 1;
    }
    class
};

/// The first character boundary from `at` (one) whose character is not alphanumeric when
/// `alphanumeric`, or is when not; the text's length if none.
#[inline]
fn scan(text: &str, mut at: usize, alphanumeric: bool) -> usize {
    let bytes = text.as_bytes();
    let same = u8::from(alphanumeric);
    loop {
        // A table look-up per ASCII byte; other characters are decoded.
        while bytes
            .get(at)
            .is_some_and(|&b| BYTE_CLASS[usize::from(b)] == same)
        {
            at += 1;
        }
        if bytes.get(at).is_none_or(u8::is_ascii) {
            return at;
        }
        match text.get(at..).and_then(|rest| rest.chars().next()) {
            Some(c) if c.is_alphanumeric() == alphanumeric => at += c.len_utf8(),
            _ => return at,
        }
    }
}

/// `text` as a tool's name to compare with a query that names it: its alphanumeric runs,
/// lowercased, one space apart (`Read_Text-File` and `read text file` alike); None for a text
/// longer than a name's runs can be.
pub(crate) fn name_key(text: &str) -> Option<String> {
    if text.len() > 2 * MAX_RUN {
        return None;
    }
    // One string, not one per run and a join: 10 M instructions for 5,000 names, now 4 M.
    let mut key = String::with_capacity(text.len());
    for run in raw_runs(text) {
        if !key.is_empty() {
            key.push(' ');
        }
        if run.is_ascii() {
            let at = key.len();
            key.push_str(run);
            key[at..].make_ascii_lowercase();
        } else {
            key.push_str(&run.to_lowercase());
        }
    }
    (!key.is_empty()).then_some(key)
}

/// The words of one alphanumeric run.
pub(crate) fn run(raw: &str) -> Run {
    // Most runs are one lowercase word: no cutting, no copies.
    if raw
        .bytes()
        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
    {
        return Run {
            whole: None,
            parts: word(raw).into_iter().collect(),
        };
    }
    // Each piece's word as it is cut: no copy of the pieces.
    let (mut pieces, mut parts) = (0, Vec::new());
    split(raw, |piece| {
        pieces += 1;
        parts.extend(word(piece));
    });
    Run {
        whole: (pieces > 1).then(|| word(&raw.to_lowercase())).flatten(),
        parts,
    }
}

#[cfg(test)]
impl Run {
    fn is_empty(&self) -> bool {
        self.whole.is_none() && self.parts.is_empty()
    }
}

/// [`STOP_WORDS`] as [`stop_key`]s, in the same order (the keys keep the words' order).
const STOP_KEYS: [u64; STOP_WORDS.len()] = {
    let mut keys = [0; STOP_WORDS.len()];
    let mut i = 0;
    while i < keys.len() {
        keys[i] = pack(STOP_WORDS[i].as_bytes());
        i += 1;
    }
    keys
};

/// [`STOP_KEYS`] as an open-addressing hash set ([`STOP_SLOTS`] slots, linear probing, 0 for
/// an empty slot: no stop word is empty): a look-up is a multiplication and a probe or two,
/// not the eight steps of a binary search (which were 6 M instructions of the fused index).
static STOP_SET: [u64; STOP_SLOTS] = {
    let mut set = [0u64; STOP_SLOTS];
    let mut i = 0;
    while i < STOP_KEYS.len() {
        let mut slot = stop_slot(STOP_KEYS[i]);
        while set[slot] != 0 {
            slot = (slot + 1) % STOP_SLOTS;
        }
        set[slot] = STOP_KEYS[i];
        i += 1;
    }
    set
};
/// A power of two, four times the stop words: probes are short.
const STOP_SLOTS: usize = 512;

/// Where [`STOP_SET`]'s probe for `key` starts: Fibonacci hashing's top bits.
const fn stop_slot(key: u64) -> usize {
    (key.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (64 - STOP_SLOTS.trailing_zeros())) as usize
}

/// Whether `key` is one of [`STOP_KEYS`].
fn is_stop_key(key: u64) -> bool {
    let mut slot = stop_slot(key);
    while STOP_SET[slot] != 0 {
        if STOP_SET[slot] == key {
            return true;
        }
        slot = (slot + 1) % STOP_SLOTS;
    }
    false
}

/// Up to eight bytes, lowercased, as one big-endian integer padded with zeros: two words
/// compare as their keys do, so a stop word is found by comparing integers, not strings (the
/// string search was a fifth of the fused index's build).
const fn pack(word: &[u8]) -> u64 {
    let mut key = 0u64;
    let mut i = 0;
    while i < 8 {
        key <<= 8;
        if i < word.len() {
            key |= word[i].to_ascii_lowercase() as u64;
        }
        i += 1;
    }
    key
}

/// `word`'s key for [`STOP_KEYS`]; None when it is longer than any stop word (8 letters).
fn stop_key(word: &str) -> Option<u64> {
    // `pack` at run time: the same key, but eight bytes at once rather than a byte a step.
    let word = word.as_bytes();
    let mut bytes = [0u8; 8];
    bytes.get_mut(..word.len())?.copy_from_slice(word);
    bytes.make_ascii_lowercase();
    Some(u64::from_be_bytes(bytes))
}

/// Whether the alphanumeric run `run` is a stop word, in any case (`The`, `PLEASE`); a
/// non-ASCII run never is (its bytes match no stop word's).
#[cfg(feature = "mcp-semantic")]
pub(crate) fn is_stop_word(run: &str) -> bool {
    stop_key(run).is_some_and(is_stop_key)
}

/// `piece`'s stem, unless it is a stop word, one letter or too long to be a word.
fn word(piece: &str) -> Option<String> {
    let ok = piece.len() > 1 && piece.len() <= MAX_WORD;
    let stop = stop_key(piece).is_some_and(is_stop_key);
    (ok && !stop).then(|| stem(piece))
}

/// Calls `f` with each lowercased piece of the alphanumeric `run`, cut where a lowercase
/// letter or digit meets an uppercase one (`readFile`) and before the last capital of an
/// acronym that a word follows (`HTTPServer` → `http`, `server`).
pub(crate) fn split(run: &str, f: impl FnMut(&str)) {
    if run.is_ascii() && run.len() <= MAX_RUN {
        split_ascii(run, f);
    } else {
        split_chars(run, f);
    }
}

/// [`split`] character by character, lowercasing as Unicode does.
fn split_chars(run: &str, mut f: impl FnMut(&str)) {
    let mut word = String::new();
    let mut chars = run.chars().peekable();
    let mut prev: Option<char> = None;
    while let Some(c) = chars.next() {
        if let Some(p) = prev.filter(|_| c.is_uppercase()) {
            let next_lower = chars.peek().is_some_and(|n| n.is_lowercase());
            if !p.is_uppercase() || next_lower {
                emit(&mut word, &mut f);
            }
        }
        word.extend(c.to_lowercase());
        prev = Some(c);
    }
    emit(&mut word, &mut f);
}

/// [`split`] of an ASCII run of at most `MAX_RUN` bytes: the same cuts, made on a lowercased
/// copy on the stack, so no piece is copied again (a tool's name pieces are split for every
/// tool embedded).
fn split_ascii(run: &str, mut f: impl FnMut(&str)) {
    let mut buf = [0u8; MAX_RUN];
    let Some(lower) = buf.get_mut(..run.len()) else {
        return;
    };
    lower.copy_from_slice(run.as_bytes());
    lower.make_ascii_lowercase();
    let Ok(lower) = std::str::from_utf8(lower) else {
        return;
    };
    let bytes = run.as_bytes();
    let mut start = 0;
    for i in 1..bytes.len() {
        if bytes[i].is_ascii_uppercase() {
            let next_lower = bytes.get(i + 1).is_some_and(u8::is_ascii_lowercase);
            if !bytes[i - 1].is_ascii_uppercase() || next_lower {
                f(&lower[start..i]);
                start = i;
            }
        }
    }
    if start < lower.len() {
        f(&lower[start..]);
    }
}

fn emit(word: &mut String, f: &mut impl FnMut(&str)) {
    if !word.is_empty() {
        f(word);
        word.clear();
    }
}

/// A light English stem: plurals, `-ing`, `-ed`, `-ion`, and a final `e`, so that `create`,
/// `creates`, `created`, `creating` and `creation` meet. Stems keep four letters at least, so
/// short words (`used`, `sing`) are left alone; non-ASCII words are left as they are.
pub(crate) fn stem(word: &str) -> String {
    if word.len() <= 3 || !word.is_ascii() || KEEP.binary_search(&word).is_ok() {
        return word.to_owned();
    }
    let mut w = plural(word).to_owned();
    if w.ends_with("ies") {
        w.truncate(w.len() - 3);
        w.push('y');
    }
    for suffix in ["ization", "ing", "ed", "ion"] {
        if let Some(base) = w
            .strip_suffix(suffix)
            .filter(|b| b.len() >= 4 && has_vowel(b))
        {
            w = undouble(base).to_owned();
            if suffix == "ization" {
                w.push_str("iz");
            }
            break;
        }
    }
    if w.len() > 4 && w.ends_with('e') {
        w.pop();
    }
    w
}

/// `word` without a plural ending: `files` → `file`, `boxes` → `box`; `ss`, `us`, `is` stay.
fn plural(word: &str) -> &str {
    if word.ends_with("ies") {
        return word;
    }
    for es in ["sses", "xes", "ches", "shes", "zes"] {
        if word.ends_with(es) {
            return &word[..word.len() - 2];
        }
    }
    let keep = ["ss", "us", "is"].iter().any(|e| word.ends_with(e));
    match word.strip_suffix('s') {
        Some(base) if !keep => base,
        _ => word,
    }
}

fn has_vowel(s: &str) -> bool {
    s.bytes().any(|b| b"aeiouy".contains(&b))
}

/// `runn` → `run`: the doubled consonant that `-ing` and `-ed` add (not `ll`, `ss`, `zz`).
fn undouble(s: &str) -> &str {
    let b = s.as_bytes();
    match b {
        [.., x, y] if x == y && !b"aeiouylsz".contains(x) => &s[..s.len() - 1],
        _ => s,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_are_sorted_for_binary_search() {
        assert!(STOP_WORDS.windows(2).all(|w| w[0] < w[1]));
        assert!(STOP_KEYS.windows(2).all(|k| k[0] < k[1]));
        assert!(STOP_WORDS.iter().all(|w| w.len() <= 8 && w.is_ascii()));
        assert!(KEEP.windows(2).all(|w| w[0] < w[1]));
        assert!(RELATIVE_DAYS.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn names_split_at_separators_humps_and_acronyms() {
        assert_eq!(words("git_diff-unstaged"), ["git", "diff", "unstag"]);
        assert_eq!(words("readMultipleFiles"), ["read", "multipl", "file"]);
        assert_eq!(words("SEOTool"), ["seo", "tool"]);
        assert_eq!(words("HTTPServer class"), ["http", "server", "class"]);
        assert_eq!(words("ec2 s3Bucket"), ["ec2", "s3", "bucket"]);
        let run = &runs("MySQL")[0];
        assert_eq!(
            (run.whole.as_deref(), &run.parts[..]),
            (Some("mysql"), &["sql".to_owned()][..])
        );
    }

    #[test]
    fn chat_and_function_words_are_dropped() {
        assert_eq!(
            words("Can you help me get the files in my directory?"),
            ["get", "file", "directory"]
        );
    }

    #[test]
    fn inflections_meet_and_unrelated_words_stay_apart() {
        let same = |a: &str, b: &str| assert_eq!(stem(a), stem(b), "{a} / {b}");
        same("create", "creating");
        same("create", "creation");
        same("created", "creates");
        same("listing", "lists");
        same("running", "run");
        same("optimize", "optimization");
        same("entries", "entry");
        same("boxes", "box");
        assert_eq!(stem("news"), "news");
        assert_eq!(stem("status"), "status");
        assert_eq!(stem("analysis"), "analysis");
        assert_ne!(stem("news"), stem("new"));
    }

    #[test]
    fn related_stems_are_what_the_stemmer_gives() {
        // One word for each stem of the groups, in their order: each must reach its group.
        let words = [
            "deleting",
            "removes",
            "erase",
            "drop",
            "created",
            "add",
            "make",
            "new",
            "generates",
            "find",
            "searching",
            "lookup",
            "look",
            "query",
            "updates",
            "modify",
            "edit",
            "changed",
            "set",
            "run",
            "execute",
            "start",
            "launch",
            "stopped",
            "kill",
            "terminate",
            "cancel",
            "pictures",
            "images",
            "photo",
            "fetch",
            "retrieve",
            "get",
            "downloads",
            "saves",
            "writes",
        ];
        let stems: Vec<&str> = RELATED
            .iter()
            .flat_map(|group| group.iter().copied())
            .collect();
        assert_eq!(stems.len(), words.len());
        for (word, group_stem) in words.iter().zip(stems) {
            assert_eq!(stem(word), group_stem, "{word}");
        }
    }

    #[test]
    #[cfg(feature = "mcp-semantic")]
    fn stop_words_are_known_in_any_case() {
        assert!(STOP_WORDS.iter().all(|w| w.len() <= 8));
        for w in ["the", "The", "PLEASE", "yourself"] {
            assert!(is_stop_word(w), "{w}");
        }
        for w in ["file", "theme", "yourselves", "thé", ""] {
            assert!(!is_stop_word(w), "{w}");
        }
    }

    #[test]
    fn a_path_to_a_file_saving_and_a_relative_day_imply_their_steps() {
        let implied = |q: &str| implied(q, &words(q), usize::MAX);
        assert_eq!(
            implied("Summarise bitcoin news and save it in /root/markdown/btc.md."),
            ["file", "writ"]
        );
        assert_eq!(implied("Saved at /root/html/ai.html"), ["file", "writ"]);
        assert_eq!(implied("read /tmp/notes.txt"), ["file"]);
        assert_eq!(implied("read /tmp/savings.csv"), ["file"]);
        assert_eq!(implied("cat /data/save.json"), ["file"]);
        assert_eq!(implied("SAVING it to ./out.md, please"), ["file", "writ"]);
        assert_eq!(implied(r"open C:\data\sales.xlsx"), ["file"]);
        assert_eq!(implied("save my settings"), Vec::<&str>::new());
        // Past the tokens read, a path implies nothing.
        assert_eq!(
            super::implied("save a b /x/y.md", &[], 3),
            Vec::<&str>::new()
        );
        assert_eq!(super::implied("save a b /x/y.md", &[], 4), ["file", "writ"]);
        assert_eq!(
            implied("train tickets for next Wednesday"),
            ["current", "time"]
        );
        for nothing in [
            "read https://example.com/page.html",
            "version 1.2.3",
            "and/or",
            "a/b.toolongext",
            "what day is it",
        ] {
            assert!(implied(nothing).is_empty(), "{nothing}");
        }
    }

    #[test]
    fn the_fast_paths_cut_as_the_slow_ones() {
        let texts = [
            "",
            "a",
            "A",
            "readFile",
            "HTTPServer",
            "SEOTool",
            "ec2 s3Bucket",
            "MySQL_db-x",
            "list__files--",
            "ABC",
            "aBC",
            "AbC",
            "x1Y2z3",
            "über_Größe",
            "naïveCafé",
            "日本語 x",
            "Ωmega ΣΑΣ",
            "tab\there",
            "ǅemal",
            "a\u{300}b",
        ];
        for text in texts {
            let slow: Vec<&str> = text
                .split(|c: char| !c.is_alphanumeric())
                .filter(|r| !r.is_empty())
                .collect();
            assert_eq!(Runs { text, at: 0 }.collect::<Vec<_>>(), slow, "{text:?}");
            for run in &slow {
                let (mut fast, mut chars) = (Vec::new(), Vec::new());
                split(run, |p| fast.push(p.to_owned()));
                split_chars(run, |p| chars.push(p.to_owned()));
                assert_eq!(fast, chars, "{run:?}");
            }
        }
        for word in [
            "",
            "a",
            "A",
            "Ab",
            "aB",
            "The",
            "Its",
            "PLEASE",
            "yourself",
            "yourselves",
            "thé",
            "x\u{0}",
            "@[`{",
            "AZaz09",
            "ÉÀ",
            "Zz",
            "MyDB",
            "abcdefgh",
            "ABCDEFGH",
            "ABCDEFGHI",
        ] {
            let packed = (word.len() <= 8).then(|| pack(word.as_bytes()));
            assert_eq!(stop_key(word), packed, "{word:?}");
        }
        // The hash set holds the stop words and nothing else (0 is the key of "" only).
        assert!(STOP_KEYS.iter().all(|&k| is_stop_key(k)));
        assert_eq!(
            STOP_SET.iter().filter(|&&k| k != 0).count(),
            STOP_KEYS.len()
        );
        for word in ["file", "list", "theme", "", "x", "z9", "youre", "zzzzzzzz"] {
            let key = pack(word.as_bytes());
            let known = STOP_KEYS.binary_search(&key).is_ok();
            assert_eq!(is_stop_key(key), known, "{word}");
        }
    }

    #[test]
    fn pasted_data_is_not_words() {
        let blob = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA";
        assert!(words(blob).is_empty());
    }
}
