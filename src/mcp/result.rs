//! The result encoder: rewrites the JSON text blocks of `tools/call` results as TOON or compact
//! JSON under a gateway [`Policy`], leaving everything else exactly as it came.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::time::Instant;

use serde_json::{Map as JsonMap, Value as Json, json};

use super::META_KEY;
use super::shape::Shape;
use crate::error::{Error, Result};
use crate::options::EncodeOptions;
use crate::render::{Output, Pipeline};
use crate::tokens::cost;
use crate::value::Value;

/// The rendering converted blocks get.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum Format {
    /// The cheaper of TOON and compact JSON by [`tokens::cost`](crate::tokens::cost).
    #[default]
    Auto,
    /// Always TOON.
    Toon,
    /// Always compact JSON.
    Json,
}

impl Format {
    /// Parses `auto`, `toon` or `json`.
    #[must_use]
    pub fn parse(s: &str) -> Option<Format> {
        match s {
            "auto" => Some(Format::Auto),
            "toon" => Some(Format::Toon),
            "json" => Some(Format::Json),
            _ => None,
        }
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
    Drop,
}

/// The gateway policy of a [`ResultEncoder`]; `Policy::default()` holds the defaults below.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Policy {
    /// Text blocks shorter than this many bytes stay as they are (default 100).
    pub min_size_bytes: usize,
    /// Text blocks longer than this many bytes stay as they are (default 1 MiB).
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
    /// The rendering (default [`Format::Auto`]).
    pub format: Format,
    /// `structuredContent` policy (default [`Structured::Keep`]).
    pub structured: Structured,
}

impl Default for Policy {
    fn default() -> Self {
        Policy {
            min_size_bytes: 100,
            max_size_bytes: 1 << 20,
            include_tools: Vec::new(),
            exclude_tools: Vec::new(),
            convert_tools: Vec::new(),
            skip_on_error: true,
            format: Format::Auto,
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
    /// Over `max_size_bytes`.
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
pub struct Stats {
    /// Results seen.
    pub attempted: u64,
    /// Results with at least one block converted.
    pub converted: u64,
    /// Results left unchanged, by the reason of their first text block (or the result's).
    pub skipped: BTreeMap<SkipReason, u64>,
    /// Tokens of converted blocks before and after ([`tokens::cost`](crate::tokens::cost)).
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
/// does not know.
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
/// # Ok::<(), toon::Error>(())
/// ```
#[derive(Debug, Default)]
pub struct ResultEncoder {
    policy: Policy,
    stats: Mutex<Stats>,
}

/// What converting one block did.
enum Block {
    Converted {
        format: &'static str,
        before: (usize, usize),
        after: (usize, usize),
        notes: Vec<String>,
    },
    Skipped(SkipReason),
}

impl ResultEncoder {
    /// An encoder with `policy`.
    #[must_use]
    pub fn new(policy: Policy) -> Self {
        ResultEncoder {
            policy,
            stats: Mutex::default(),
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

    /// A result as it came, counted as [`SkipReason::Verbatim`]: for
    /// tools whose results are document content (see [`Decision`](super::Decision)). Only
    /// the policy's [`Structured::Drop`] applies, as a client was told of no output schema.
    #[must_use]
    pub fn keep(&self, mut result: Json) -> Json {
        let mut stats = self.stats.lock().unwrap_or_else(|e| e.into_inner());
        stats.attempted += 1;
        *stats.skipped.entry(SkipReason::Verbatim).or_default() += 1;
        drop(stats);
        if self.policy.structured == Structured::Drop
            && let Some(obj) = result.as_object_mut()
        {
            obj.remove("structuredContent");
        }
        result
    }

    /// As [`keep`](Self::keep), with the result as JSON text: returned as it came unless
    /// `structuredContent` is dropped.
    #[must_use]
    pub fn keep_text(&self, result: &str) -> String {
        if self.policy.structured == Structured::Keep {
            let _ = self.keep(Json::Null);
            return result.to_owned();
        }
        match serde_json::from_str::<Json>(result) {
            Ok(value) => self.keep(value).to_string(),
            Err(_) => {
                let _ = self.keep(Json::Null);
                result.to_owned()
            }
        }
    }

    /// Converts the result of a call to `tool` (a `CallToolResult` as JSON).
    ///
    /// # Errors
    /// Only with `skip_on_error: false`, when a JSON block cannot be converted.
    pub fn encode(&self, tool: &str, result: Json) -> Result<Json> {
        self.encode_with(tool, result, &Shape::default())
    }

    /// Converts a `CallToolResult` given as JSON text; returns the new text.
    ///
    /// # Errors
    /// As [`encode_with`](Self::encode_with).
    pub fn encode_text(&self, tool: &str, result: &str, shape: &Shape) -> Result<String> {
        let Ok(value) = serde_json::from_str::<Json>(result) else {
            return Ok(result.to_owned());
        };
        let out = self.encode_with(tool, value, shape)?;
        Ok(out.to_string())
    }

    /// Converts as [`encode`](Self::encode), first shaping each JSON block's value by `shape`
    /// (fields, page, token budget). What shaping cut is said in a text block added after the
    /// converted one, so the converted text itself stays lossless for what it holds.
    ///
    /// # Errors
    /// A shape that does not fit the result (an unknown field path, a stale cursor), always;
    /// conversion failures only with `skip_on_error: false`.
    pub fn encode_with(&self, tool: &str, mut result: Json, shape: &Shape) -> Result<Json> {
        let started = Instant::now();
        let outcome = self.convert(tool, &mut result, shape);
        let mut stats = self.stats.lock().unwrap_or_else(|e| e.into_inner());
        stats.attempted += 1;
        let blocks = match outcome {
            Ok(blocks) => blocks,
            Err(Skip::Result(reason)) => {
                *stats.skipped.entry(reason).or_default() += 1;
                return Ok(result);
            }
            Err(Skip::Error(e) | Skip::Shape(e)) => {
                *stats.skipped.entry(SkipReason::Failed).or_default() += 1;
                return Err(e);
            }
        };
        let (mut before, mut after) = ((0, 0), (0, 0));
        let mut first_skip = None;
        for block in &blocks {
            match block {
                Block::Converted {
                    before: b,
                    after: a,
                    ..
                } => {
                    before = (before.0 + b.0, before.1 + b.1);
                    after = (after.0 + a.0, after.1 + a.1);
                }
                Block::Skipped(reason) => {
                    first_skip.get_or_insert(*reason);
                }
            }
        }
        let converted = blocks.iter().any(|b| matches!(b, Block::Converted { .. }));
        if !converted {
            let reason = first_skip.unwrap_or(SkipReason::NoText);
            *stats.skipped.entry(reason).or_default() += 1;
        } else {
            stats.converted += 1;
            stats.tokens_before += before.0 as u64;
            stats.tokens_after += after.0 as u64;
            stats.bytes_before += before.1 as u64;
            stats.bytes_after += after.1 as u64;
        }
        drop(stats);
        if self.policy.structured == Structured::Drop
            && let Some(obj) = result.as_object_mut()
        {
            obj.remove("structuredContent");
        }
        if converted {
            let format = blocks.iter().find_map(|b| match b {
                Block::Converted { format, .. } => Some(*format),
                Block::Skipped(_) => None,
            });
            set_meta(
                &mut result,
                json!({
                    "format": format,
                    "tokensBefore": before.0,
                    "tokensAfter": after.0,
                    "bytesBefore": before.1,
                    "bytesAfter": after.1,
                    "micros": started.elapsed().as_micros() as u64,
                }),
            );
        }
        Ok(result)
    }

    fn convert(
        &self,
        tool: &str,
        result: &mut Json,
        shape: &Shape,
    ) -> std::result::Result<Vec<Block>, Skip> {
        if !self.applies_to(tool) {
            return Err(Skip::Result(SkipReason::Filtered));
        }
        let Some(obj) = result.as_object_mut() else {
            return Err(Skip::Result(SkipReason::NotAResult));
        };
        if obj.get("isError") == Some(&Json::Bool(true)) {
            return Err(Skip::Result(SkipReason::ErrorResult));
        }
        let Some(Json::Array(content)) = obj.get_mut("content") else {
            return Err(Skip::Result(SkipReason::NotAResult));
        };
        let mut blocks = Vec::new();
        let mut notes_at = Vec::new();
        for (i, block) in content.iter_mut().enumerate() {
            if block.get("type").and_then(Json::as_str) != Some("text") {
                continue;
            }
            let Some(text) = block.get("text").and_then(Json::as_str) else {
                continue;
            };
            // A converted block must carry its format marker; a `_meta` that is not an object
            // cannot, so the block stays as it is.
            if block.get("_meta").is_some_and(|m| !m.is_object()) {
                blocks.push(Block::Skipped(SkipReason::Failed));
                continue;
            }
            let outcome = match self.convert_text(text, shape) {
                Ok((new_text, converted)) => {
                    block["text"] = Json::String(new_text);
                    set_meta(block, json!({ "format": format_name(&converted) }));
                    if let Block::Converted { notes, .. } = &converted
                        && !notes.is_empty()
                    {
                        notes_at.push((i, notes.join("\n")));
                    }
                    converted
                }
                Err(Skip::Result(reason)) => Block::Skipped(reason),
                Err(Skip::Shape(e)) => return Err(Skip::Shape(e)),
                Err(Skip::Error(_)) if self.policy.skip_on_error => {
                    Block::Skipped(SkipReason::Failed)
                }
                Err(Skip::Error(e)) => return Err(Skip::Error(e)),
            };
            blocks.push(outcome);
        }
        // Notes go right after their block, last first so earlier positions stay valid.
        for (i, note) in notes_at.into_iter().rev() {
            content.insert(i + 1, json!({"type": "text", "text": note}));
        }
        Ok(blocks)
    }

    /// The new text of one block, or why it stays.
    fn convert_text(
        &self,
        text: &str,
        shape: &Shape,
    ) -> std::result::Result<(String, Block), Skip> {
        let policy = &self.policy;
        if text.len() < policy.min_size_bytes {
            return Err(Skip::Result(SkipReason::TooSmall));
        }
        if text.len() > policy.max_size_bytes {
            return Err(Skip::Result(SkipReason::TooLarge));
        }
        let trimmed = text.trim_start();
        if !trimmed.starts_with(['{', '[']) {
            return Err(Skip::Result(SkipReason::NotJson));
        }
        let mut value: Value =
            serde_json::from_str(text).map_err(|_| Skip::Result(SkipReason::NotJson))?;
        let shaped = shape.apply(&mut value).map_err(Skip::Shape)?;
        let before_tokens = cost(text);
        let (format, mut new_text, after_tokens) = self.render(value).map_err(Skip::Error)?;
        // The text lives on in the result: drop the growth slack of its buffer.
        new_text.shrink_to_fit();
        let changed_by_shape = !shape.is_empty();
        if !changed_by_shape && after_tokens >= before_tokens && self.policy.format == Format::Auto
        {
            return Err(Skip::Result(SkipReason::NotSmaller));
        }
        let block = Block::Converted {
            format,
            before: (before_tokens, text.len()),
            after: (after_tokens, new_text.len()),
            notes: shaped.notes,
        };
        Ok((new_text, block))
    }

    /// (format name, text, tokens) of the policy's rendering of `value`.
    fn render(&self, value: Value) -> Result<(&'static str, String, usize)> {
        let output = match self.policy.format {
            Format::Auto => Output::Cheaper(EncodeOptions::default()),
            Format::Toon => Output::Toon(EncodeOptions::default()),
            Format::Json => Output::CompactJson,
        };
        let rendered = Pipeline::new().output(output).render(value)?;
        let name = match rendered.format {
            crate::table::Format::CompactJson => "json",
            crate::table::Format::Toon(_) => "toon",
        };
        Ok((name, rendered.text, rendered.tokens))
    }
}

enum Skip {
    /// Left as it is, for this reason.
    Result(SkipReason),
    /// Conversion failed: kept or reported as `skip_on_error` says.
    Error(Error),
    /// The caller's shape does not fit: always reported.
    Shape(Error),
}

fn format_name(block: &Block) -> &'static str {
    match block {
        Block::Converted { format, .. } => format,
        Block::Skipped(_) => "",
    }
}

/// Sets `_meta[META_KEY]` on an object, keeping any other `_meta` keys.
fn set_meta(target: &mut Json, entry: Json) {
    let Some(obj) = target.as_object_mut() else {
        return;
    };
    let meta = obj
        .entry("_meta")
        .or_insert_with(|| Json::Object(JsonMap::new()));
    if !meta.is_object() {
        // A non-object `_meta` is the server's business; leave it alone.
        return;
    }
    meta[META_KEY] = entry;
}
