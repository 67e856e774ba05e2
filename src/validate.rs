//! The validator (§13.3, §14): every problem of a document in one pass, for an application
//! that must tell a model what to fix in the TOON it wrote.
//!
//! It drives the event reader's machine (`stream/machine.rs`) a line at a time, so that every
//! error is the decoder's own, with its line, column and words; after an error it goes on
//! where the machine says ([`Resume`]): the line again when it was not taken (a scope it
//! closed had the wrong count, a blank line before it was refused), else past the bad line
//! and the lines deeper than it (its block), so that one bad row hides no later problem.
//! Warnings are the ones §13.3 allows: a document that is JSON, a key that looks like JSON,
//! trailing spaces.

use std::fmt;

use crate::de::scanner::{Indentation, RawLine};
use crate::error::{Error, clipped};
use crate::options::DecodeOptions;
use crate::stream::Event;
use crate::stream::machine::{Borrow, Machine, RawDepth, Resume};

/// How serious a [`Diagnostic`] is.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// The text is not valid TOON: decoding it fails.
    Error,
    /// The text is valid TOON, but probably not what its writer meant.
    Warning,
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        })
    }
}

/// One problem of a document: where it is, how serious, what it is.
///
/// `Display` renders it for a person or a model: the position, the message, and the line it
/// is on with a caret under the column.
///
/// ```
/// let found = toon::validate("rows[2]{a,b}:\n  1,2\n  3");
/// let d = &found[0];
/// assert_eq!((d.line(), d.column(), d.severity()), (3, 3, toon::Severity::Error));
/// assert_eq!(d.to_string(), "line 3, column 3: error: expected 2 cells, found 1\n    3\n    ^");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    line: usize,
    column: usize,
    severity: Severity,
    message: String,
    source: String,
}

impl Diagnostic {
    /// 1-based line, or 0 for the document as a whole.
    #[must_use]
    pub fn line(&self) -> usize {
        self.line
    }

    /// 1-based column in characters, or 0 for the document as a whole.
    #[must_use]
    pub fn column(&self) -> usize {
        self.column
    }

    /// Error or warning.
    #[must_use]
    pub fn severity(&self) -> Severity {
        self.severity
    }

    /// What is wrong, without the position.
    #[must_use]
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The line the problem is on, as written (empty for the document as a whole).
    #[must_use]
    pub fn source_line(&self) -> &str {
        &self.source
    }

    /// A decoder's error as a diagnostic, with the line of `text` it is on.
    fn from_error(err: &Error, text: &RawLines<'_>) -> Self {
        Diagnostic {
            line: err.line(),
            column: err.column(),
            severity: Severity::Error,
            message: err.message().to_owned(),
            source: text.line(err.line()).to_owned(),
        }
    }

    fn warning(line: usize, column: usize, message: String, source: &str) -> Self {
        Diagnostic {
            line,
            column,
            severity: Severity::Warning,
            message,
            source: source.to_owned(),
        }
    }

    /// One paragraph for the model that wrote the text: how many errors and warnings, each
    /// with its line, column, message and the start of its line, and what to do. Lists the
    /// first 20.
    ///
    /// ```
    /// let text = "users[2]{id,name}:\n  1,Ada,admin\n  2,Bob";
    /// let summary = toon::Diagnostic::summary(&toon::validate(text));
    /// assert!(summary.starts_with("The TOON has 1 error. Line 2, column 3: expected 2 cells, found 3"));
    /// assert_eq!(toon::Diagnostic::summary(&[]), "The TOON is valid.");
    /// ```
    #[must_use]
    pub fn summary(diagnostics: &[Diagnostic]) -> String {
        const LISTED: usize = 20;
        let errors = diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .count();
        let warnings = diagnostics.len() - errors;
        if diagnostics.is_empty() {
            return "The TOON is valid.".to_owned();
        }
        let count = |n: usize, what: &str| format!("{n} {what}{}", if n == 1 { "" } else { "s" });
        let mut out = match (errors, warnings) {
            (0, w) => format!("The TOON is valid but has {}.", count(w, "warning")),
            (e, 0) => format!("The TOON has {}.", count(e, "error")),
            (e, w) => format!(
                "The TOON has {} and {}.",
                count(e, "error"),
                count(w, "warning")
            ),
        };
        for d in diagnostics.iter().take(LISTED) {
            let kind = match d.severity {
                Severity::Error => "",
                Severity::Warning => "Warning: ",
            };
            if d.line == 0 {
                out.push_str(&format!(" {kind}{}.", d.message));
                continue;
            }
            out.push_str(&format!(
                " {kind}Line {}, column {}: {} (in `{}`).",
                d.line,
                d.column,
                d.message,
                clipped(d.source.trim(), 60)
            ));
        }
        if diagnostics.len() > LISTED {
            out.push_str(&format!(" And {} more.", diagnostics.len() - LISTED));
        }
        out.push_str(if errors > 0 {
            " Fix each error and send the whole document again."
        } else {
            " Check that these are meant."
        });
        out
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            return write!(f, "{}: {}", self.severity, self.message);
        }
        write!(
            f,
            "line {}, column {}: {}: {}",
            self.line, self.column, self.severity, self.message
        )?;
        // The line (tabs shown as spaces, so the caret stands under its character), cut to
        // 80 characters around the column.
        let chars: Vec<char> = self
            .source
            .chars()
            .map(|c| if c == '\t' { ' ' } else { c })
            .collect();
        let column = self.column.saturating_sub(1).min(chars.len());
        let start = column.saturating_sub(60);
        let end = (start + 80).min(chars.len());
        let shown: String = chars[start..end].iter().collect();
        write!(
            f,
            "\n  {}\n  {}^",
            shown.trim_end(),
            " ".repeat(column - start)
        )
    }
}

/// Every problem of TOON text, with default options (strict): the errors a decoder meets,
/// each one, and warnings (§13.3), in the order a reader finds them (the first error is the
/// one [`from_str`](crate::from_str) reports; a wrong count is found where its scope ends).
/// An empty list: the text decodes, and nothing in it looks unintended.
///
/// ```
/// let text = "a: 1\nb[2]: x\nc: \"open\nd: 4\na: 5";
/// let found = toon::validate(text);
/// let lines: Vec<usize> = found.iter().map(|d| d.line()).collect();
/// assert_eq!(lines, [2, 3, 5]); // a count, a quote, a duplicate key
/// assert!(toon::validate("a: 1").is_empty());
/// ```
#[must_use]
pub fn validate(text: &str) -> Vec<Diagnostic> {
    validate_with(text, &DecodeOptions::default())
}

/// [`validate`] with `options`: non-strict mode reports only what it does not recover from.
///
/// ```
/// let lenient = toon::DecodeOptions::new().strict(false);
/// assert!(toon::validate_with("a[3]: 1,2", &lenient).is_empty());
/// assert_eq!(toon::validate("a[3]: 1,2").len(), 1);
/// ```
#[must_use]
pub fn validate_with(text: &str, options: &DecodeOptions) -> Vec<Diagnostic> {
    let lines = RawLines::new(text);
    let mut found = Vec::new();
    json_document(text, options, &lines, &mut found);
    let mut machine = Machine::new(options);
    let indentation = Indentation::new(options.indent_size, options.strict);
    let mut events: Vec<Event<'_>> = Vec::new();
    // Lines deeper than this belong to a bad line's block and are passed over.
    let mut skipping: Option<usize> = None;
    for raw in lines.raw.iter().copied() {
        if let Some(depth) = skipping {
            match machine.depth_of(raw) {
                RawDepth::At(d) if d > depth => {
                    machine.skip();
                    continue;
                }
                RawDepth::Bad => {
                    machine.skip();
                    continue;
                }
                // Blank and comment lines inside the block go with it.
                RawDepth::None => {
                    machine.skip();
                    continue;
                }
                RawDepth::At(_) => skipping = None,
            }
        }
        trailing_spaces(raw, machine.lines() + 1, &indentation, &mut found);
        events.clear();
        let mut read = machine.step::<Borrow, _>(raw, &mut events);
        // Each retry takes a closed scope or a refused blank line away, so retries end.
        let mut retries = 0;
        while let Err(err) = read {
            found.push(Diagnostic::from_error(&err, &lines));
            match machine.resume() {
                Resume::Retry if retries <= crate::options::MAX_DEPTH_CEILING => {
                    retries += 1;
                    events.clear();
                    read = machine.again::<Borrow, _>(raw, &mut events);
                    continue;
                }
                Resume::Skip(depth) => skipping = Some(depth),
                Resume::Retry | Resume::Line => {}
                Resume::Stop => return found,
            }
            events.clear();
            break;
        }
        json_keys(raw, machine.lines(), &events, &mut found);
    }
    // The end of input closes what is open; each scope short of its count says so.
    for _ in 0..=crate::options::MAX_DEPTH_CEILING {
        match machine.finish(&mut events) {
            Ok(()) => break,
            Err(err) => found.push(Diagnostic::from_error(&err, &lines)),
        }
    }
    found
}

/// The input's raw lines (no newline, no CR), as the decoder splits them.
struct RawLines<'a> {
    raw: Vec<&'a str>,
}

impl<'a> RawLines<'a> {
    fn new(text: &'a str) -> Self {
        let mut raw: Vec<&str> = text.split('\n').collect();
        if text.ends_with('\n') || text.is_empty() {
            raw.pop();
        }
        RawLines { raw }
    }

    /// Line `number` (1-based) without its CR and the first line's BOM.
    fn line(&self, number: usize) -> &'a str {
        let Some(raw) = number.checked_sub(1).and_then(|i| self.raw.get(i)) else {
            return "";
        };
        let raw = raw.strip_suffix('\r').unwrap_or(raw);
        match number {
            1 => raw.strip_prefix('\u{feff}').unwrap_or(raw),
            _ => raw,
        }
    }
}

/// §13.3: a document that is JSON, which TOON reads as something else (`{"a": 1}` is an
/// object whose key is `{"a"`).
fn json_document(
    text: &str,
    options: &DecodeOptions,
    lines: &RawLines<'_>,
    found: &mut Vec<Diagnostic>,
) {
    let trimmed = text.trim_start_matches('\u{feff}').trim();
    if !(trimmed.starts_with('{') || trimmed.starts_with('[')) {
        return;
    }
    let Ok(json) = serde_json::from_str::<crate::Value>(trimmed) else {
        return;
    };
    if crate::from_str_with::<crate::Value>(text, options).is_ok_and(|toon| toon == json) {
        return;
    }
    found.push(Diagnostic::warning(
        1,
        1,
        "this document is JSON, which TOON reads as something else: write it as TOON \
         (`key: value` lines, `name[N]{fields}:` tables) or convert it with toon::encode"
            .to_owned(),
        lines.line(1),
    ));
}

/// §13.3: a key that looks like JSON (an unquoted key that starts with `{`), on a line that
/// was read without error.
fn json_keys(raw: &str, number: usize, events: &[Event<'_>], found: &mut Vec<Diagnostic>) {
    // Columns and the quoted line leave the first line's BOM out, as everywhere else.
    let raw = raw.strip_suffix('\r').unwrap_or(raw);
    let raw = match number {
        1 => raw.strip_prefix('\u{feff}').unwrap_or(raw),
        _ => raw,
    };
    for event in events {
        if let Event::Key(key) = event
            && key.starts_with('{')
            && let Some(at) = raw.find(key.as_ref())
        {
            found.push(Diagnostic::warning(
                number,
                raw[..at].chars().count() + 1,
                format!(
                    "the key {} looks like JSON: TOON keys stand alone, as in `name: value`",
                    crate::error::QuotedInput(key)
                ),
                raw,
            ));
        }
    }
}

/// §13.3: spaces after a significant line's content (decoders ignore them).
fn trailing_spaces(
    raw: &str,
    number: usize,
    indentation: &Indentation,
    found: &mut Vec<Diagnostic>,
) {
    let raw = raw.strip_suffix('\r').unwrap_or(raw);
    let raw = match number {
        1 => raw.strip_prefix('\u{feff}').unwrap_or(raw),
        _ => raw,
    };
    if !raw.ends_with(' ') || !matches!(indentation.read(raw), Ok(RawLine::Line(_))) {
        return;
    }
    let content = raw.trim_end_matches(' ');
    found.push(Diagnostic::warning(
        number,
        content.chars().count() + 1,
        "trailing spaces".to_owned(),
        raw,
    ));
}
