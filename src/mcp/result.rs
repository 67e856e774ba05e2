//! The result encoder: rewrites the JSON text blocks of `tools/call` results as TOON or compact
//! JSON under a gateway [`Policy`], leaving everything else exactly as it came.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::time::Instant;

use serde_json::Value as Json;

use super::META_KEY;
use super::error::{Error, Result};
use super::json_text::{minify, minify_joined};
use super::raw::{self, ItemText, Member, Splice};
use super::shaping::Shaping;
use crate::render::{Output, Pipeline};
use crate::table::Rendering;
use crate::tokens::costs;
use crate::{EncodeOptions, Recording, Value};

/// The rendering converted blocks get, in the words of [`render`](crate::render#which-encoding):
/// TOON at the default options, compact JSON, or the cheaper of the two.
///
/// ```
/// use toon::mcp::Format;
/// use toon::render::Output;
/// assert_eq!(Format::parse("cheaper"), Some(Format::Cheaper));
/// assert_eq!(Format::default().output(), Output::Cheaper(toon::EncodeOptions::default()));
/// ```
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum Format {
    /// The cheaper of TOON and compact JSON by [`tokens::cost`](crate::tokens::cost)
    /// ([`Output::Cheaper`]; `cheaper` on the command line). Not [`Output::Auto`], which also
    /// tries TOON's tab and pipe delimiters (`toon --auto`).
    #[default]
    Cheaper,
    /// Always TOON ([`Output::Toon`]).
    Toon,
    /// Always compact JSON: the text as sent without its whitespace ([`Output::CompactJson`]).
    CompactJson,
}

impl Format {
    /// Every format, in the order the command line lists them.
    pub const ALL: [Format; 3] = [Format::Cheaper, Format::Toon, Format::CompactJson];

    /// `cheaper`'s old name, still read as it (with a warning on the command line): `auto`
    /// is `toon --auto`'s choice, which also tries the tab and pipe delimiters.
    pub const OLD_CHEAPER: &'static str = "auto";

    /// The one spelling of each format: the command line's word (`--format json`), the
    /// `format` of a converted block's and result's `_meta`, and the proxy's metrics label.
    /// A converted block is only ever `toon` or `json`.
    ///
    /// ```
    /// use toon::mcp::Format;
    /// let names: Vec<&str> = Format::ALL.iter().map(|f| f.name()).collect();
    /// assert_eq!(names, ["cheaper", "toon", "json"]);
    /// ```
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Format::Cheaper => "cheaper",
            Format::Toon => "toon",
            Format::CompactJson => "json",
        }
    }

    /// Reads a [`name`](Self::name), or [`OLD_CHEAPER`](Self::OLD_CHEAPER).
    #[must_use]
    pub fn parse(s: &str) -> Option<Format> {
        if s == Self::OLD_CHEAPER {
            return Some(Format::Cheaper);
        }
        Self::ALL.into_iter().find(|format| format.name() == s)
    }

    /// The format a block written in `rendering` has: TOON with any delimiter is `toon`.
    #[must_use]
    pub fn of(rendering: Rendering) -> Format {
        match rendering {
            Rendering::CompactJson => Format::CompactJson,
            Rendering::Toon(_) => Format::Toon,
        }
    }

    /// The [`Output`] a shaped value is rendered with (a value as sent is written from its
    /// text, with the same choice).
    #[must_use]
    pub fn output(self) -> Output {
        match self {
            Format::Cheaper => Output::Cheaper(EncodeOptions::default()),
            Format::Toon => Output::Toon(EncodeOptions::default()),
            Format::CompactJson => Output::CompactJson,
        }
    }
}

/// Its [`name`](Format::name).
impl std::fmt::Display for Format {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// What happens to `structuredContent`.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum Structured {
    /// Leave it (clients that show it will show the JSON, not the converted text).
    #[default]
    Keep,
    /// Remove it, so every client shows the model the converted text. Only valid where the
    /// client was not told of an `outputSchema` (a proxy strips those from listed tools).
    /// When no text block carries its data (no block's JSON is the same value as the data,
    /// or as the data's only member: `{"entities": [...]}` beside the array as text), the
    /// data is first added as a text block, converted like any JSON block.
    Drop,
}

/// The default [`Policy::max_size_bytes`]: 16 MiB, the largest message the proxy passes on.
/// Converting costs 1.4–1.45× what `toon -e` costs on the same JSON (4 MB of pretty JSON:
/// 32–35 ms for the whole `toon mcp result` process, `toon -e` 22–25 ms), so every block a
/// message can hold is worth converting.
pub const MAX_SIZE_BYTES: usize = 16 << 20;

/// The gateway policy of a [`ResultEncoder`]; `Policy::default()` holds the defaults below,
/// and a policy is that with fields set (it may gain fields: `#[non_exhaustive]`).
///
/// ```
/// use toon::mcp::{Format, Policy};
/// let mut policy = Policy::default();
/// policy.format = Format::Toon;
/// policy.exclude_tools = vec!["read_file".into()];
/// assert_eq!(policy.min_size_bytes, 100);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Policy {
    /// Text blocks shorter than this many bytes stay as they are (default 100).
    pub min_size_bytes: usize,
    /// Text blocks longer than this many bytes are not converted, only compacted: a JSON
    /// block loses its insignificant whitespace, every other byte as sent, and its tokens are
    /// not counted (default [`MAX_SIZE_BYTES`]).
    pub max_size_bytes: usize,
    /// When not empty, only these tools' results are converted.
    pub include_tools: Vec<String>,
    /// These tools' results are never converted.
    pub exclude_tools: Vec<String>,
    /// These tools' results are converted even where [`Decision::of`] judges them document
    /// content, to reach the model verbatim (applied by the proxy and [`Plan::finish`]).
    ///
    /// [`Decision::of`]: super::Decision::of
    /// [`Plan::finish`]: super::Plan::finish
    pub convert_tools: Vec<String>,
    /// On any failure keep the original block (default `true`); else return the error.
    pub skip_on_error: bool,
    /// The rendering (default [`Format::Cheaper`]).
    pub format: Format,
    /// `structuredContent` policy (default [`Structured::Keep`]).
    pub structured: Structured,
}

impl Default for Policy {
    fn default() -> Self {
        Policy {
            min_size_bytes: 100,
            max_size_bytes: MAX_SIZE_BYTES,
            include_tools: Vec::new(),
            exclude_tools: Vec::new(),
            convert_tools: Vec::new(),
            skip_on_error: true,
            format: Format::Cheaper,
            structured: Structured::Keep,
        }
    }
}

/// Why a result (or a text block) was left as it was.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SkipReason {
    /// Not a `CallToolResult` object with a `content` array.
    NotAResult,
    /// Filtered out by `include_tools` / `exclude_tools`.
    Filtered,
    /// `isError` is true: error text reaches the model as the server wrote it.
    ErrorResult,
    /// No text block.
    NoText,
    /// Under `min_size_bytes`.
    TooSmall,
    /// Over `max_size_bytes`, and not JSON or already compact.
    TooLarge,
    /// The text is not a JSON object or array.
    NotJson,
    /// No rendering is cheaper than the text as sent.
    NotSmaller,
    /// Conversion failed (kept because of `skip_on_error`).
    Failed,
    /// The tool returns document content, kept verbatim ([`ResultEncoder::keep`]).
    Verbatim,
}

impl SkipReason {
    /// A short snake_case name (`too_small`).
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            SkipReason::NotAResult => "not_a_result",
            SkipReason::Filtered => "filtered",
            SkipReason::ErrorResult => "error_result",
            SkipReason::NoText => "no_text",
            SkipReason::TooSmall => "too_small",
            SkipReason::TooLarge => "too_large",
            SkipReason::NotJson => "not_json",
            SkipReason::NotSmaller => "not_smaller",
            SkipReason::Failed => "failed",
            SkipReason::Verbatim => "verbatim",
        }
    }
}

/// Running totals of a [`ResultEncoder`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Stats {
    /// Results seen.
    pub attempted: u64,
    /// Results with at least one block converted.
    pub converted: u64,
    /// Results left unchanged, by the reason of their first text block (or the result's).
    pub skipped: BTreeMap<SkipReason, u64>,
    /// Tokens of converted blocks before and after ([`tokens::cost`](crate::tokens::cost)).
    /// A block added for `structuredContent` under [`Structured::Drop`] counts its data's
    /// compact JSON as before.
    pub tokens_before: u64,
    /// See `tokens_before`.
    pub tokens_after: u64,
    /// Bytes of converted blocks before and after.
    pub bytes_before: u64,
    /// See `bytes_before`.
    pub bytes_after: u64,
}

impl Stats {
    /// Tokens saved over all converted blocks.
    #[must_use]
    pub fn tokens_saved(&self) -> u64 {
        self.tokens_before.saturating_sub(self.tokens_after)
    }

    /// One line: `3 results: 2 converted, 1 skipped (too_small 1); tokens 900 -> 500 (-44.4%)`.
    #[must_use]
    pub fn summary(&self) -> String {
        let skipped: u64 = self.skipped.values().sum();
        let reasons: Vec<String> = self
            .skipped
            .iter()
            .map(|(r, n)| format!("{} {n}", r.as_str()))
            .collect();
        let pct = if self.tokens_before > 0 {
            (self.tokens_after as f64 / self.tokens_before as f64 - 1.0) * 100.0
        } else {
            0.0
        };
        format!(
            "{} results: {} converted, {skipped} skipped{}; tokens {} -> {} ({pct:+.1}%), bytes {} -> {}",
            self.attempted,
            self.converted,
            if reasons.is_empty() {
                String::new()
            } else {
                format!(" ({})", reasons.join(", "))
            },
            self.tokens_before,
            self.tokens_after,
            self.bytes_before,
            self.bytes_after,
        )
    }
}

/// Converts tool results under a [`Policy`] and keeps [`Stats`]. Shareable between threads
/// (`&self` methods; the stats sit behind a mutex taken once per result).
///
/// What it changes: the `text` of each `type: "text"` content block that holds a JSON object
/// or array (and the block's `_meta`, which records the format), `structuredContent` under
/// [`Structured::Drop`], and the result's `_meta` (sizes before and after, time taken). It
/// never changes text that is not JSON, images, audio, resources, `isError`, or any field it
/// does not know: [`encode_text`](Self::encode_text) keeps every byte it does not change as
/// it was sent.
///
/// Numbers keep their digits. A converted block is the text as sent without its whitespace
/// (compact JSON) or TOON, whichever costs fewer tokens; TOON is written from a
/// [`Recording`](crate::Recording), which records every number with all its digits. Only what
/// the choice needs is counted: a block over 256 KiB is decided on a
/// [`Recording::sample`](crate::Recording::sample) and only the chosen rendering is written.
///
/// ```
/// use toon::mcp::{Policy, ResultEncoder};
/// use serde_json::json;
/// let rows: Vec<_> = (0..20).map(|i| json!({"id": i, "name": format!("user{i}")})).collect();
/// let text = serde_json::to_string_pretty(&json!({"users": rows})).unwrap();
/// let result = json!({"content": [{"type": "text", "text": text}]});
/// let encoder = ResultEncoder::new(Policy::default());
/// let out = encoder.encode("list_users", result)?;
/// assert!(out["content"][0]["text"].as_str().unwrap().starts_with("users[20]{id,name}:"));
/// assert_eq!(out["content"][0]["_meta"]["rs.toon-codec/conversion"]["format"], "toon");
/// assert_eq!(encoder.stats().converted, 1);
/// # Ok::<(), toon::mcp::Error>(())
/// ```
#[derive(Debug, Default)]
pub struct ResultEncoder {
    policy: Policy,
    stats: Mutex<Stats>,
    /// Told each result's outcome as it is counted (the proxy's metrics).
    #[cfg(feature = "mcp-stdio")]
    observer: Observing,
}

/// What one result came to, as an [`Observer`] is told: its converted blocks' format and
/// totals, or why it was kept as sent.
#[cfg(feature = "mcp-stdio")]
pub(crate) enum Outcome {
    /// At least one block converted: the first one's format (`Toon` or `CompactJson`),
    /// (tokens, bytes) before and after.
    Converted {
        format: Format,
        before: (u64, u64),
        after: (u64, u64),
    },
    /// Left as sent, for its first block's reason (or the result's).
    Kept(SkipReason),
}

/// Called with the tool's name and each result's [`Outcome`], outside the stats' lock.
#[cfg(feature = "mcp-stdio")]
pub(crate) type Observer = std::sync::Arc<dyn Fn(&str, &Outcome) + Send + Sync>;

/// An encoder's observer, if any (a type of its own for `Debug` and `Default`).
#[cfg(feature = "mcp-stdio")]
#[derive(Default)]
struct Observing(Option<Observer>);

#[cfg(feature = "mcp-stdio")]
impl std::fmt::Debug for Observing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Observing")
    }
}

/// What converting one block did.
enum Block {
    Converted {
        format: Format,
        before: (usize, usize),
        after: (usize, usize),
        notes: Vec<String>,
    },
    Skipped(SkipReason),
}

/// Where a JSON object's `_meta` can take the conversion marker.
enum MetaSlot<'t> {
    /// No `_meta`: one is added.
    Absent,
    /// A readable object: the marker is set among its entries.
    Object(&'t str, Vec<Member<'t>>),
    /// Not an object (the server's business) or not readable.
    Unusable,
}

impl<'t> MetaSlot<'t> {
    fn of(members: &[Member<'t>]) -> Self {
        match raw::get(members, "_meta") {
            None => MetaSlot::Absent,
            Some(meta) => match raw::entries(meta) {
                Some(inner) => MetaSlot::Object(meta, inner),
                None => MetaSlot::Unusable,
            },
        }
    }

    /// Sets `_meta[META_KEY]` to `marker` (JSON text) on `object`, keeping any other keys.
    fn set(&self, splice: &mut Splice<'t>, object: &str, members: &[Member<'_>], marker: String) {
        match self {
            MetaSlot::Absent => {
                let meta = format!("{{{}:{marker}}}", raw::quote(META_KEY));
                splice.set(object, members, "_meta", meta);
            }
            MetaSlot::Object(meta, inner) => splice.set(meta, inner, META_KEY, marker),
            MetaSlot::Unusable => {}
        }
    }
}

impl ResultEncoder {
    /// An encoder with `policy`.
    #[must_use]
    pub fn new(policy: Policy) -> Self {
        ResultEncoder {
            policy,
            stats: Mutex::default(),
            #[cfg(feature = "mcp-stdio")]
            observer: Observing::default(),
        }
    }

    /// The encoder with `observer` told of every result it counts.
    #[cfg(feature = "mcp-stdio")]
    #[must_use]
    pub(crate) fn with_observer(mut self, observer: Observer) -> Self {
        self.observer = Observing(Some(observer));
        self
    }

    /// Without the proxy, no one observes.
    #[cfg(not(feature = "mcp-stdio"))]
    fn observe(&self, _: &str, _: Option<SkipReason>, _: Option<&Totals>) {}

    /// Tells the observer, if any, what a result of `tool` came to.
    #[cfg(feature = "mcp-stdio")]
    fn observe(&self, tool: &str, kept: Option<SkipReason>, totals: Option<&Totals>) {
        if let Some(observer) = &self.observer.0 {
            let outcome = match (kept, totals) {
                (Some(reason), _) => Outcome::Kept(reason),
                (
                    None,
                    Some(Totals {
                        format: Some(format),
                        before,
                        after,
                        ..
                    }),
                ) => Outcome::Converted {
                    format: *format,
                    before: (before.0 as u64, before.1 as u64),
                    after: (after.0 as u64, after.1 as u64),
                },
                (None, Some(t)) => Outcome::Kept(t.first_skip.unwrap_or(SkipReason::NoText)),
                (None, None) => Outcome::Kept(SkipReason::Failed),
            };
            observer(tool, &outcome);
        }
    }

    /// Its policy.
    #[must_use]
    pub fn policy(&self) -> &Policy {
        &self.policy
    }

    /// A snapshot of the running totals.
    #[must_use]
    pub fn stats(&self) -> Stats {
        self.stats.lock().map(|s| s.clone()).unwrap_or_default()
    }

    /// Whether results of `tool` are converted at all under the policy.
    #[must_use]
    pub fn applies_to(&self, tool: &str) -> bool {
        (self.policy.include_tools.is_empty()
            || self.policy.include_tools.iter().any(|t| t == tool))
            && !self.policy.exclude_tools.iter().any(|t| t == tool)
    }

    /// A result of a tool whose results are document content (see
    /// [`Decision`](super::Decision)): as it came, counted as [`SkipReason::Verbatim`]. Only
    /// the policy's [`Structured::Drop`] applies (its data kept as a text block when no
    /// block carries it), as a client was told of no output schema.
    #[must_use]
    pub fn keep(&self, result: Json) -> Json {
        let Ok(text) = serde_json::to_string(&result) else {
            return result;
        };
        let out = self.keep_text(&text);
        if out == text {
            return result;
        }
        crate::json::from_str(&out).unwrap_or(result)
    }

    /// As [`keep`](Self::keep), with the result as JSON text: every byte as sent but for a
    /// dropped `structuredContent`.
    #[must_use]
    pub fn keep_text(&self, result: &str) -> String {
        if self.policy.structured == Structured::Keep {
            // Nothing to change: not even read.
            let mut stats = self.stats.lock().unwrap_or_else(|e| e.into_inner());
            stats.attempted += 1;
            *stats.skipped.entry(SkipReason::Verbatim).or_default() += 1;
            drop(stats);
            self.observe("", Some(SkipReason::Verbatim), None);
            return result.to_owned();
        }
        self.count(
            "",
            result,
            self.rewrite("", result, &Shaping::default(), Instant::now(), false),
        )
        .unwrap_or_else(|_| result.to_owned())
    }

    /// What the client gets for `result`, a server's result of a call to `tool` as the JSON
    /// text it sent: the one conversion every path of the proxy takes (passthrough calls,
    /// lean mode's `execute_tool`, task results), so that the format chosen, the `_meta`
    /// written and what the observer (the proxy's metrics) is told are the same for all.
    /// `decision` is whether the tool's results are converted, the policy already applied
    /// ([`Decision::with_policy`](super::Decision::with_policy)); a tool kept verbatim is
    /// still shaped when `shaping` asks for it. A shaped result loses its
    /// `structuredContent`: the text says what was cut and where the next page is, which the
    /// whole data beside it would hide from a client that shows it.
    ///
    /// ```
    /// use toon::mcp::{Decision, Policy, ResultEncoder, Shaping};
    /// let rows: Vec<String> = (0..20).map(|i| format!(r#"{{"id": {i}, "name": "user{i}"}}"#)).collect();
    /// let text = serde_json::to_string(&format!("[{}]", rows.join(", "))).unwrap();
    /// let sent = format!(r#"{{"content": [{{"type": "text", "text": {text}}}]}}"#);
    /// let encoder = ResultEncoder::new(Policy::default());
    /// let none = Shaping::default();
    /// let verbatim = Decision::Verbatim("document content".into());
    /// assert_eq!(encoder.convert("read_file", &verbatim, &sent, &none)?, sent);
    /// let data = Decision::Convert("data".into());
    /// let out = encoder.convert("list_ids", &data, &sent, &none)?;
    /// assert!(out.contains(r#""text": "[20]{id,name}:"#), "{out}");
    /// assert!(out.contains(r#""format":"toon""#));
    /// assert_eq!((encoder.stats().attempted, encoder.stats().converted), (2, 1));
    /// # Ok::<(), toon::mcp::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`encode_with`](Self::encode_with).
    pub fn convert(
        &self,
        tool: &str,
        decision: &super::Decision,
        result: &str,
        shaping: &Shaping,
    ) -> Result<String> {
        if !decision.converts() && shaping.is_empty() {
            return Ok(self.keep_text(result));
        }
        let out = self.encode_text(tool, result, shaping)?;
        Ok(if shaping.is_empty() {
            out
        } else {
            without_structured_content(&out)
        })
    }

    /// Converts the result of a call to `tool` (a `CallToolResult` as JSON). As
    /// [`encode_text`](Self::encode_text) on the value's JSON text.
    ///
    /// # Errors
    /// Only with `skip_on_error: false`, when a JSON block cannot be converted.
    pub fn encode(&self, tool: &str, result: Json) -> Result<Json> {
        self.encode_with(tool, result, &Shaping::default())
    }

    /// Converts as [`encode`](Self::encode), first shaping each JSON block's value by `shaping`
    /// (fields, page, token budget). What shaping cut is said in a text block added after the
    /// converted one, so the converted text itself stays lossless for what it holds.
    ///
    /// ```
    /// use toon::mcp::{Policy, ResultEncoder, Shaping};
    /// use serde_json::json;
    /// let rows: Vec<_> = (0..50).map(|i| json!({"id": i, "name": format!("user{i}")})).collect();
    /// let text = serde_json::to_string(&json!({"users": rows})).unwrap();
    /// let result = json!({"content": [{"type": "text", "text": text}]});
    /// let mut shaping = Shaping::default();
    /// shaping.fields = vec!["users.name".into()];
    /// shaping.limit = Some(3);
    /// let out = ResultEncoder::new(Policy::default()).encode_with("list_users", result, &shaping)?;
    /// let text = out["content"][0]["text"].as_str().unwrap();
    /// assert!(text.contains("user2") && !text.contains("user3"));
    /// assert!(out["content"][1]["text"].as_str().unwrap().starts_with("/users: items 1-3 of 50"));
    /// # Ok::<(), toon::mcp::Error>(())
    /// ```
    ///
    /// # Errors
    /// A shaping that does not fit the result (an unknown field path, a stale cursor, a block
    /// whose numbers shaping would change), always; conversion failures only with
    /// `skip_on_error: false`.
    pub fn encode_with(&self, tool: &str, result: Json, shaping: &Shaping) -> Result<Json> {
        // Numbers of a `Value` are u64, i64 or f64 already: its text loses nothing.
        let text = serde_json::to_string(&result).map_err(Error::Write)?;
        let out = self.encode_text(tool, &text, shaping)?;
        if out == text {
            return Ok(result);
        }
        // Only a value nested deeper than serde_json reads can fail here: keep it as it was.
        Ok(crate::json::from_str(&out).unwrap_or(result))
    }

    /// Converts the result of a call to `tool` given as the JSON text its server sent, and
    /// returns the new text: each converted block's `text` and `_meta`, `structuredContent`
    /// under [`Structured::Drop`] and the result's `_meta` are changed; every other byte is
    /// as sent (numbers with all their digits, escapes, key order, whitespace). A result that
    /// cannot be read as an object with a `content` array (not JSON, a key with a lone
    /// surrogate) comes back as sent; so does a text block whose text is not JSON or holds a
    /// lone surrogate.
    ///
    /// ```
    /// use toon::mcp::{Policy, ResultEncoder, Shaping};
    /// let rows: Vec<String> = (0..20).map(|i| format!(r#"{{"id": {i}, "big": 1234567890123456789012{i}}}"#)).collect();
    /// let text = serde_json::to_string(&format!(r#"{{"rows": [{}]}}"#, rows.join(", "))).unwrap();
    /// let result = format!(r#"{{"content": [{{"type": "text", "text": {text}}}], "x": 1E2}}"#);
    /// let out = ResultEncoder::new(Policy::default()).encode_text("t", &result, &Shaping::default())?;
    /// // Compact JSON with every digit (TOON could not write them), and `1E2` as sent.
    /// assert!(out.starts_with(r#"{"content": [{"type": "text", "text": "{\"rows\":[{\"id\":0,\"big\":12345678901234567890120}"#));
    /// assert!(out.contains(r#""x": 1E2,"_meta":"#));
    /// # Ok::<(), toon::mcp::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`encode_with`](Self::encode_with).
    pub fn encode_text(&self, tool: &str, result: &str, shaping: &Shaping) -> Result<String> {
        let started = Instant::now();
        self.count(
            tool,
            result,
            self.rewrite(tool, result, shaping, started, true),
        )
    }

    /// Counts what [`rewrite`](Self::rewrite) did in the stats; its text, or the result as
    /// sent when it was left.
    fn count(
        &self,
        tool: &str,
        result: &str,
        outcome: std::result::Result<(String, Totals), Skip>,
    ) -> Result<String> {
        let mut stats = self.stats.lock().unwrap_or_else(|e| e.into_inner());
        stats.attempted += 1;
        let (out, totals) = match outcome {
            Ok(done) => done,
            Err(Skip::Result(reason)) => {
                *stats.skipped.entry(reason).or_default() += 1;
                drop(stats);
                self.observe(tool, Some(reason), None);
                return Ok(result.to_owned());
            }
            Err(Skip::Error(e) | Skip::Shaping(e)) => {
                *stats.skipped.entry(SkipReason::Failed).or_default() += 1;
                drop(stats);
                self.observe(tool, None, None);
                return Err(e);
            }
        };
        match totals.format {
            None => {
                let reason = totals.first_skip.unwrap_or(SkipReason::NoText);
                *stats.skipped.entry(reason).or_default() += 1;
            }
            Some(_) => {
                stats.converted += 1;
                stats.tokens_before += totals.before.0 as u64;
                stats.tokens_after += totals.after.0 as u64;
                stats.bytes_before += totals.before.1 as u64;
                stats.bytes_after += totals.after.1 as u64;
            }
        }
        drop(stats);
        self.observe(tool, None, Some(&totals));
        Ok(out)
    }

    /// The new text of `result` and what each text block came to.
    fn rewrite(
        &self,
        tool: &str,
        result: &str,
        shaping: &Shaping,
        started: Instant,
        convert: bool,
    ) -> std::result::Result<(String, Totals), Skip> {
        if convert && !self.applies_to(tool) {
            return Err(Skip::Result(SkipReason::Filtered));
        }
        let not_a_result = || Skip::Result(SkipReason::NotAResult);
        // One pass over the result: its entries, `content`'s objects and their `text`s.
        let read = raw::call_result(result).ok_or_else(not_a_result)?;
        let entries = &read.members;
        if raw::get(entries, "isError") == Some("true") {
            return Err(Skip::Result(SkipReason::ErrorResult));
        }
        let content = read.content.as_ref().ok_or_else(not_a_result)?;
        let structured = match self.policy.structured {
            Structured::Drop => raw::get(entries, "structuredContent"),
            Structured::Keep => None,
        };
        let mut rewriting = Rewriting {
            splice: Splice::new(result),
            blocks: Vec::new(),
            carrier: structured.map(super::structured::Carried::new),
            // `null` holds nothing to carry.
            carried: structured.is_none_or(|s| s == "null"),
        };
        for item in content.items.iter().flatten() {
            self.content_item(item, shaping, convert, &mut rewriting)?;
        }
        let Rewriting {
            mut splice,
            mut blocks,
            carried,
            ..
        } = rewriting;
        if let Some(data) = structured {
            if !carried {
                // The only copy of the data: it becomes a text block like any JSON block.
                let added = self.structured_block(data, shaping, convert, &mut blocks)?;
                splice.push(content.json, content.items.len(), &added);
            }
            splice.remove(result, entries, "structuredContent");
        }
        let totals = Totals::of(&blocks);
        if let Some(format) = totals.format {
            let marker = totals.marker(format, started);
            MetaSlot::of(entries).set(&mut splice, result, entries, marker);
        }
        Ok((splice.finish(), totals))
    }

    /// One item of `content`: a text block is converted in place (its text, its `_meta`
    /// marker, a note after it) or stays, and may be the one that carries the structured
    /// data (`--structured drop`). Items that are not text blocks are left.
    fn content_item<'t>(
        &self,
        item: &raw::ContentObject<'t>,
        shaping: &Shaping,
        convert: bool,
        rewriting: &mut Rewriting<'t>,
    ) -> std::result::Result<(), Skip> {
        let fields = &item.members;
        let is_text = raw::get(fields, "type").and_then(raw::unquote);
        if is_text.as_deref() != Some("text") {
            return Ok(());
        }
        let (Some(text_value), Some(text)) = (raw::get(fields, "text"), &item.text) else {
            return Ok(());
        };
        let blocks = &mut rewriting.blocks;
        let ItemText::String(text) = text else {
            // Not a string, or a lone surrogate Rust strings cannot hold.
            blocks.push(Block::Skipped(SkipReason::NotJson));
            return Ok(());
        };
        if let Some(carrier) = &rewriting.carrier
            && !rewriting.carried
        {
            rewriting.carried = carrier.by(text);
        }
        if !convert {
            blocks.push(Block::Skipped(SkipReason::Verbatim));
            return Ok(());
        }
        // A converted block must carry its format marker; a `_meta` that is not an object
        // cannot, so the block stays as it is.
        let slot = MetaSlot::of(fields);
        if matches!(slot, MetaSlot::Unusable) {
            blocks.push(Block::Skipped(SkipReason::Failed));
            return Ok(());
        }
        match self.block(text, shaping)? {
            Err(skipped) => blocks.push(skipped),
            Ok((new_text, block)) => {
                let splice = &mut rewriting.splice;
                splice.replace_quoted(text_value, new_text);
                slot.set(splice, item.json, fields, block_marker(&block));
                if let Some(note) = note_block(&block) {
                    splice.insert_after(item.json, format!(",{note}"));
                }
                blocks.push(block);
            }
        }
        Ok(())
    }

    /// The text block added for structured data no text block carries
    /// (`--structured drop`): its minified JSON, converted as any JSON block is.
    fn structured_block(
        &self,
        data: &str,
        shaping: &Shaping,
        convert: bool,
        blocks: &mut Vec<Block>,
    ) -> std::result::Result<String, Skip> {
        let text = minify(data);
        let converted = if convert {
            self.block(&text, shaping)?
        } else {
            Err(Block::Skipped(SkipReason::Verbatim))
        };
        Ok(match converted {
            Err(skipped) => {
                blocks.push(skipped);
                text_block(&text, None)
            }
            Ok((new_text, block)) => {
                let mut added = text_block(&new_text, Some(block_marker(&block)));
                if let Some(note) = note_block(&block) {
                    added = format!("{added},{note}");
                }
                blocks.push(block);
                added
            }
        })
    }

    /// One block's conversion: `Ok(Err(skipped))` when it stays as it is, `Err` for what is
    /// reported (a shaping that does not fit; a failure without `skip_on_error`).
    fn block(
        &self,
        text: &str,
        shaping: &Shaping,
    ) -> std::result::Result<std::result::Result<(String, Block), Block>, Skip> {
        match self.convert_block(text, shaping) {
            Ok(done) => Ok(Ok(done)),
            Err(Skip::Result(reason)) => Ok(Err(Block::Skipped(reason))),
            Err(Skip::Error(_)) if self.policy.skip_on_error => {
                Ok(Err(Block::Skipped(SkipReason::Failed)))
            }
            Err(e) => Err(e),
        }
    }

    /// The new text of one block, or why it stays.
    fn convert_block(
        &self,
        text: &str,
        shaping: &Shaping,
    ) -> std::result::Result<(String, Block), Skip> {
        let policy = &self.policy;
        if text.len() < policy.min_size_bytes {
            return Err(Skip::Result(SkipReason::TooSmall));
        }
        if text.len() > policy.max_size_bytes {
            return Self::compact(text);
        }
        let trimmed = text.trim_start();
        if !trimmed.starts_with(['{', '[']) {
            return Err(Skip::Result(SkipReason::NotJson));
        }
        let not_json = |_| Skip::Result(SkipReason::NotJson);
        let (format, mut new_text, after_tokens, notes, mut before_tokens) = if shaping.is_empty() {
            // Read as sent: a recording keeps every number's digits, so its TOON is lossless.
            let document = Recording::from_json_slice(text.as_bytes()).map_err(not_json)?;
            let (format, new_text, tokens, before) = self.render_as_sent(text, document)?;
            (format, new_text, tokens, Vec::new(), before)
        } else {
            let (json, joins) = minify_joined(text);
            // Without whitespace the text reads as sent (the same value, or not JSON either),
            // and ~6% faster: pretty JSON is a third whitespace.
            let readable = if joins { text } else { &json };
            let mut value: Value = crate::json::from_str(readable).map_err(not_json)?;
            // Shaping rewrites the value, and the value's numbers are what `f64` kept.
            if !crate::json::inexact_numbers(readable.as_bytes()).is_empty() {
                return Err(Skip::Shaping(Error::InexactNumbers));
            }
            let shaped = shaping.apply(&mut value).map_err(Skip::Shaping)?;
            let (format, new_text, tokens) = self.render(value).map_err(Skip::Error)?;
            (format, new_text, tokens, shaped.notes, costs(&[text])[0])
        };
        // The text lives on in the result: drop the growth slack of its buffer.
        new_text.shrink_to_fit();
        // The text as sent without its whitespace never costs more tokens than it; estimated
        // apart, a long text's sampled estimate can say otherwise (a source map of 220k tokens
        // was left pretty, 780 tokens dearer).
        let compacted =
            shaping.is_empty() && format == Format::CompactJson && new_text.len() < text.len();
        if compacted {
            before_tokens = before_tokens.max(after_tokens);
        } else if shaping.is_empty()
            && after_tokens >= before_tokens
            && policy.format == Format::Cheaper
        {
            return Err(Skip::Result(SkipReason::NotSmaller));
        }
        let block = Block::Converted {
            format,
            before: (before_tokens, text.len()),
            after: (after_tokens, new_text.len()),
            notes,
        };
        Ok((new_text, block))
    }

    /// A block over `max_size_bytes`: without its insignificant whitespace when it is JSON,
    /// which is linear and never costs more tokens; nothing else is worth its time there.
    fn compact(text: &str) -> std::result::Result<(String, Block), Skip> {
        let too_large = || Skip::Result(SkipReason::TooLarge);
        if !text.trim_start().starts_with(['{', '['])
            || serde_json::from_str::<serde::de::IgnoredAny>(text).is_err()
        {
            return Err(too_large());
        }
        let compact = minify(text);
        if compact.len() == text.len() {
            return Err(too_large());
        }
        let block = Block::Converted {
            format: Format::CompactJson,
            before: (0, text.len()),
            after: (0, compact.len()),
            notes: Vec::new(),
        };
        Ok((compact, block))
    }

    /// (format name, text, tokens, tokens of `sent`) of the policy's rendering of an
    /// unshaped block: its JSON is the text as sent without whitespace, its TOON the
    /// recording's. Only what the choice needs is counted and written: a long block is
    /// decided on a sample of its value ([`Self::choose_by_sample`]) and only the chosen
    /// rendering written.
    fn render_as_sent(
        &self,
        sent: &str,
        document: Recording,
    ) -> std::result::Result<(Format, String, usize, usize), Skip> {
        let toon = |document: Recording| crate::to_string(&document).map_err(Skip::codec);
        let cost = |text: &str| costs(&[text])[0];
        // The text as sent is its own JSON candidate when it came compact.
        let before = |json: &str, json_tokens: usize| {
            if json.len() == sent.len() {
                json_tokens
            } else {
                cost(sent)
            }
        };
        // What is not written from the document is written after it is freed, so that its
        // memory can serve the text (a block of megabytes).
        let json = |document: Recording| {
            drop(document);
            minify(sent)
        };
        let format = match self.policy.format {
            Format::Cheaper => match Self::choose_by_sample(sent, &document)? {
                Some(true) => Format::Toon,
                Some(false) => Format::CompactJson,
                None => Format::Cheaper,
            },
            format => format,
        };
        match format {
            Format::CompactJson => {
                let json = json(document);
                let tokens = cost(&json);
                let before = before(&json, tokens);
                Ok((Format::CompactJson, json, tokens, before))
            }
            Format::Toon => {
                let toon = toon(document)?;
                let tokens = cost(&toon);
                let before = cost(sent);
                // Chosen on a sample, TOON may still not beat the text as sent, which compact
                // JSON, the same text without its whitespace, never loses to.
                if self.policy.format == Format::Cheaper && tokens >= before {
                    let json = minify(sent);
                    if json.len() < sent.len() {
                        let tokens = cost(&json);
                        return Ok((Format::CompactJson, json, tokens, before));
                    }
                }
                Ok((Format::Toon, toon, tokens, before))
            }
            Format::Cheaper => {
                let toon = toon(document)?;
                let json = minify(sent);
                let both = costs(&[&json, &toon]);
                let before = before(&json, both[0]);
                // Ties go to compact JSON, as `Output::Cheaper`; so does a TOON that does not
                // beat the text as sent (estimated apart, the two can disagree with the JSON's
                // estimate, but compact JSON never costs more than the text it compacts).
                Ok(if both[1] < both[0].min(before) {
                    (Format::Toon, toon, both[1], before)
                } else {
                    (Format::CompactJson, json, both[0], before)
                })
            }
        }
    }

    /// Whether TOON is the cheaper rendering of a long block, decided on a sample: both
    /// renderings of a [`Recording::sample`] of about `SAMPLE_TARGET` bytes are costed
    /// ([`tokens::cost`](crate::tokens::cost): exact with `tiktoken`), so that only the
    /// cheaper one need be written whole. `None` when the block is short, has no long array or
    /// object to sample, keeps more than a tenth of the sample whole beside what it thinned,
    /// keeps under half its share of the items (what was kept is not like the rest), or the
    /// sample's renderings are within 3% of each other (then both are written and costed, as
    /// for a short block).
    fn choose_by_sample(
        sent: &str,
        document: &Recording,
    ) -> std::result::Result<Option<bool>, Skip> {
        use crate::tokens::cost;
        /// Bytes of JSON text the sample is cut to, about.
        const SAMPLE_TARGET: usize = 64 * 1024;
        /// Texts up to this long are costed whole: 256 KiB, where
        /// [`tokens::estimate_costs`](crate::tokens::estimate_costs) starts to sample.
        const SAMPLE_ABOVE: usize = 256 * 1024;
        // Two costs within 3% of each other are a close call (as `estimate_costs` calls one):
        // `cheaper` ≤ `dearer`.
        let close =
            |cheaper: usize, dearer: usize| (dearer - cheaper) as f64 <= 0.03 * dearer as f64;
        if sent.len() <= SAMPLE_ABOVE {
            return Ok(None);
        }
        let sample = document.sample(sent.len().div_ceil(SAMPLE_TARGET));
        if !sample.representative {
            return Ok(None);
        }
        let sample = sample.recording;
        let toon_sample = crate::to_string(&sample).map_err(Skip::codec)?;
        let json_sample =
            crate::json::to_string(&sample).map_err(|e| Skip::Error(Error::Write(e)))?;
        // Exact counts with `tiktoken`: the sample is small.
        let (toon_tokens, json_tokens) = (cost(&toon_sample), cost(&json_sample));
        let (low, high) = (toon_tokens.min(json_tokens), toon_tokens.max(json_tokens));
        Ok((!close(low, high)).then_some(toon_tokens < json_tokens))
    }

    /// (format name, text, tokens) of the policy's rendering of a shaped value.
    fn render(&self, value: Value) -> Result<(Format, String, usize)> {
        let rendered = Pipeline::new()
            .output(self.policy.format.output())
            .render(value)?;
        let format = Format::of(rendered.rendering);
        Ok((format, rendered.text, rendered.tokens))
    }
}

/// A result's text as its blocks are rewritten: the edits to it, what each block came to,
/// and (`--structured drop`) whether a text block carries the structured data.
struct Rewriting<'t> {
    splice: Splice<'t>,
    blocks: Vec<Block>,
    carrier: Option<super::structured::Carried<'t>>,
    carried: bool,
}

/// What the blocks of one result came to.
struct Totals {
    /// The format of the first converted block; `None` when none was.
    format: Option<Format>,
    /// Why the first skipped block stayed.
    first_skip: Option<SkipReason>,
    /// (tokens, bytes) of the converted blocks before and after.
    before: (usize, usize),
    after: (usize, usize),
}

impl Totals {
    fn of(blocks: &[Block]) -> Self {
        let mut totals = Totals {
            format: None,
            first_skip: None,
            before: (0, 0),
            after: (0, 0),
        };
        for block in blocks {
            match block {
                Block::Converted {
                    format,
                    before,
                    after,
                    ..
                } => {
                    totals.format.get_or_insert(*format);
                    totals.before = (totals.before.0 + before.0, totals.before.1 + before.1);
                    totals.after = (totals.after.0 + after.0, totals.after.1 + after.1);
                }
                Block::Skipped(reason) => {
                    totals.first_skip.get_or_insert(*reason);
                }
            }
        }
        totals
    }

    /// The result's `_meta` marker: the format of its first converted block, its totals
    /// and the time taken, written in this order whatever serde_json's map keeps.
    fn marker(&self, format: Format, started: Instant) -> String {
        format!(
            r#"{{"format":"{}","tokensBefore":{},"tokensAfter":{},"bytesBefore":{},"bytesAfter":{},"micros":{}}}"#,
            format.name(),
            self.before.0,
            self.after.0,
            self.before.1,
            self.after.1,
            started.elapsed().as_micros() as u64,
        )
    }
}

enum Skip {
    /// Left as it is, for this reason.
    Result(SkipReason),
    /// Conversion failed: kept or reported as `skip_on_error` says.
    Error(Error),
    /// The caller's shaping does not fit: always reported.
    Shaping(Error),
}

impl Skip {
    /// A failure of the codec's.
    fn codec(e: crate::Error) -> Skip {
        Skip::Error(Error::Codec(e))
    }
}

/// The `_meta` marker of a converted block: `{"format":"toon"}` ([`Format::name`]).
fn block_marker(block: &Block) -> String {
    match block {
        Block::Converted { format, .. } => format!(r#"{{"format":"{}"}}"#, format.name()),
        Block::Skipped(_) => String::new(),
    }
}

/// `result` (JSON text) without its `structuredContent`, every other byte as it was.
fn without_structured_content(result: &str) -> String {
    let Some(entries) = raw::entries(result) else {
        return result.to_owned();
    };
    if raw::get(&entries, "structuredContent").is_none() {
        return result.to_owned();
    }
    let mut splice = Splice::new(result);
    splice.remove(result, &entries, "structuredContent");
    splice.finish()
}

/// The text block that says what shaping cut, if it cut anything.
fn note_block(block: &Block) -> Option<String> {
    match block {
        Block::Converted { notes, .. } if !notes.is_empty() => {
            Some(text_block(&notes.join("\n"), None))
        }
        _ => None,
    }
}

/// A text content block as JSON text, with the conversion marker if any.
fn text_block(text: &str, marker: Option<String>) -> String {
    let text = raw::quote(text);
    match marker {
        Some(marker) => format!(
            r#"{{"type":"text","text":{text},"_meta":{{{}:{marker}}}}}"#,
            raw::quote(META_KEY)
        ),
        None => format!(r#"{{"type":"text","text":{text}}}"#),
    }
}
