//! Why a `toon::mcp` operation failed: [`Error`], for catalogs, registries, views, meta-tools
//! and the result encoder. (The proxy's own failures are
//! [`proxy::CallError`](super::proxy::CallError) and
//! [`proxy::ConfigError`](super::proxy::ConfigError).)

use std::fmt;

/// Alias for `Result<T, toon::mcp::Error>`.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Why a [`Catalog`](super::Catalog), [`Registry`](super::Registry), view,
/// [`MetaTools`](super::MetaTools) or [`ResultEncoder`](super::ResultEncoder) operation failed.
///
/// The message ([`Display`](std::fmt::Display)) is written for the person or model that
/// supplied the input; the variant says what kind of failure it is, and keeps what caused it
/// as its [`source`](std::error::Error::source) (serde_json's error, the codec's).
///
/// ```
/// use toon::mcp::{Catalog, Error};
/// let err = Catalog::from_json("{\n  \"tools\": [,]\n}", "fs").unwrap_err();
/// assert!(matches!(err, Error::Json { .. }));
/// assert_eq!((err.line(), err.column()), (2, 13));
/// assert!(err.to_string().starts_with("line 2, column 13: invalid JSON: expected value"));
/// assert!(std::error::Error::source(&err).is_some());
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Text that should be JSON is not: serde_json's description, with the 1-based line and
    /// column it gave (0 when it gave none) and that line quoted, cut around the column.
    #[error("{}invalid JSON: {message}{}", at(*.line, *.column), quoted_line(.excerpt))]
    Json {
        /// serde_json's description, without its position.
        message: String,
        /// 1-based line of the failure, 0 when unknown.
        line: usize,
        /// 1-based column (in characters) of the failure, 0 when unknown.
        column: usize,
        /// The text of that line, cut to a window around the column.
        excerpt: Option<String>,
        /// serde_json's error.
        #[source]
        source: serde_json::Error,
    },
    /// JSON of none of the shapes a catalog reads (a `tools/list` result, a tool array, an
    /// object of those by server).
    #[error("{message}")]
    NotToolList {
        /// What was expected and what came.
        message: String,
        /// serde_json's error, when it found the mismatch.
        #[source]
        source: Option<serde_json::Error>,
    },
    /// A tool definition the catalog cannot read as a [`Value`](crate::Value) (a number beyond
    /// `f64`, nesting deeper than serde_json reads).
    #[error("tool {tool:?}: {source}")]
    Definition {
        /// The tool's exposed name.
        tool: String,
        /// serde_json's error (shared: the catalog keeps it for later calls).
        #[source]
        source: std::sync::Arc<serde_json::Error>,
    },
    /// No tool of this name.
    #[error("unknown tool {}{}", Quoted(.name), did_you_mean(.suggestions))]
    UnknownTool {
        /// The name asked for.
        name: String,
        /// Close names that do exist (see [`Catalog::suggest`](super::Catalog::suggest)).
        suggestions: Vec<String>,
    },
    /// No category of this name under the grouping asked for.
    #[error("no category {name:?}; categories are: {}", .known.join(", "))]
    UnknownCategory {
        /// The category asked for.
        name: String,
        /// The categories there are.
        known: Vec<String>,
    },
    /// A [`ToolSource`](super::ToolSource) could not list a server; its error's message.
    #[error("{source}")]
    Listing {
        /// The server.
        server: String,
        /// The tool source's error.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync + 'static>,
    },
    /// A server's listing repeated a cursor (it would loop).
    #[error("tools/list of {server:?} returned the same cursor {cursor:?} twice")]
    CursorLoop {
        /// The server.
        server: String,
        /// The cursor it repeated.
        cursor: String,
    },
    /// A cursor that is not one of ours.
    #[error("invalid cursor {}", Quoted(.0))]
    InvalidCursor(String),
    /// A cursor of the browse listing (`discover_tools` with query `*`) at or past its end:
    /// the catalog has fewer tools than when the cursor was given.
    #[error(
        "cursor \"{cursor}\" is past the last of the {total} tools listed; call again without \
         cursor to start over"
    )]
    CursorPastEnd {
        /// The cursor: the number of the first tool asked for, counted from 0.
        cursor: usize,
        /// How many tools there are to list.
        total: usize,
    },
    /// A cursor of another result: no array where it points.
    #[error("cursor {cursor:?} does not fit this result (no array at {path:?})")]
    CursorMismatch {
        /// The cursor.
        cursor: String,
        /// The JSON Pointer it names.
        path: String,
    },
    /// A later page's cursor whose result is no longer kept ([`Pages`](super::Pages): expired,
    /// pushed out by newer ones, or never kept).
    #[error(
        "this cursor's result is no longer kept (results stay pageable for {} minutes, the last \
         {}); call {} again without cursor to run the tool anew",
        super::pages::TTL.as_secs() / 60,
        super::pages::MAX_RESULTS,
        super::EXECUTE_TOOL
    )]
    CursorExpired,
    /// A later page's cursor made for a result of another tool.
    #[error("this cursor pages a result of {kept}, not of {tool}")]
    CursorOtherTool {
        /// The tool whose result the cursor pages.
        kept: String,
        /// The tool called with it.
        tool: String,
    },
    /// A later page's cursor made for a call with other arguments.
    #[error(
        "this cursor pages a result of other arguments: pass the arguments of the first call, \
         or call without cursor to run the tool anew"
    )]
    CursorOtherArguments,
    /// A result with numbers a shaped rendering would change (more digits than `u64`, `i64`
    /// or `f64` hold): only the result as sent keeps them.
    #[error(
        "this result has numbers with more digits than fields, limit, cursor or max_tokens can \
         keep; call again without them to get it as sent"
    )]
    InexactNumbers,
    /// The codec failed: encoding a view or a result, or an unknown field path.
    #[error(transparent)]
    Codec(#[from] crate::Error),
    /// serde_json failed writing a value as JSON text.
    #[error(transparent)]
    Write(serde_json::Error),
}

impl Error {
    /// An [`Error::Json`] for `source`, a serde_json error in reading `text`.
    pub(crate) fn json(source: serde_json::Error, text: &str) -> Self {
        let message = source.to_string();
        // serde_json appends " at line L column C"; the position is carried separately.
        let message = match message.rfind(" at line ") {
            Some(i) if source.line() > 0 => message[..i].to_owned(),
            _ => message,
        };
        let (line, column) = (source.line(), source.column());
        let excerpt = text
            .lines()
            .nth(line.saturating_sub(1))
            .filter(|_| line > 0)
            .map(|l| crate::Error::excerpt(l, column));
        let (line, column) = if excerpt.is_some() {
            (line, column)
        } else {
            (0, 0)
        };
        Error::Json {
            message,
            line,
            column,
            excerpt,
            source,
        }
    }

    /// 1-based line of the failure in the input text, or 0 when it has no position (only
    /// [`Error::Json`] has one).
    #[must_use]
    pub fn line(&self) -> usize {
        match self {
            Error::Json { line, .. } => *line,
            _ => 0,
        }
    }

    /// 1-based column (in characters) of the failure on [`line`](Self::line), or 0.
    #[must_use]
    pub fn column(&self) -> usize {
        match self {
            Error::Json { column, .. } => *column,
            _ => 0,
        }
    }
}

/// `line L, column C: `, or nothing without a position.
pub(crate) fn at(line: usize, column: usize) -> String {
    if line == 0 {
        String::new()
    } else {
        format!("line {line}, column {column}: ")
    }
}

/// `: "the line"` after a message, or nothing.
fn quoted_line(excerpt: &Option<String>) -> String {
    excerpt
        .as_ref()
        .map(|l| format!(": {l:?}"))
        .unwrap_or_default()
}

/// `; did you mean a, b?` after "unknown tool", or nothing.
pub(crate) fn did_you_mean(suggestions: &[String]) -> String {
    if suggestions.is_empty() {
        String::new()
    } else {
        format!("; did you mean {}?", suggestions.join(", "))
    }
}

/// Input text quoted inside a message (a tool name, a cursor, a key): `Debug`-quoted, cut to
/// [`Quoted::MAX`] characters with its full size noted, so a message stays short whatever the
/// input holds. (As the codec quotes input in its own messages.)
pub(crate) struct Quoted<'a>(pub(crate) &'a str);

impl Quoted<'_> {
    /// Characters quoted, at most.
    pub(crate) const MAX: usize = 48;
}

impl fmt::Display for Quoted<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0.char_indices().nth(Self::MAX) {
            Some((cut, _)) => write!(
                f,
                "{:?} ({} bytes)",
                format!("{}…", &self.0[..cut]),
                self.0.len()
            ),
            None => write!(f, "{:?}", self.0),
        }
    }
}
