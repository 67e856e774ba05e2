//! The error type shared by encoding and decoding.
//!
//! Modelled on `serde_json::Error`: one opaque type with a [`Category`], and for errors found in
//! text, the 1-based line and column plus the offending source line in the message. As in
//! serde_json, what builds an error is `#[cold]`: the paths that raise one stay out of the way
//! of the paths that do not.

use std::borrow::Cow;
use std::fmt;

/// Alias for `Result<T, toon::Error>`.
pub type Result<T> = std::result::Result<T, Error>;

/// What kind of failure an [`Error`] is, as `serde_json::error::Category`.
///
/// ```
/// use toon::Category;
/// assert_eq!(toon::decode::<toon::Value>("a[2]: 1").unwrap_err().classify(), Category::Syntax);
/// assert_eq!(toon::decode::<u32>("a: 1").unwrap_err().classify(), Category::Data);
/// ```
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Category {
    /// Reading or writing the underlying I/O stream failed.
    Io,
    /// The input is not valid TOON (bad header, escape, indentation, count mismatch, …).
    Syntax,
    /// The input is valid TOON but does not fit the target type (missing field, wrong type, …).
    Data,
    /// The input ended before a complete value was read.
    Eof,
}

/// An error from encoding or decoding TOON.
///
/// ```
/// let err = toon::decode::<toon::Value>("tags[3]: a,b").unwrap_err();
/// assert_eq!(err.line(), 1);
/// assert_eq!(err.classify(), toon::Category::Syntax);
/// assert!(err.to_string().contains("expected 3 values, found 2"));
/// ```
pub struct Error {
    inner: Box<ErrorImpl>,
}

#[derive(Debug)]
struct ErrorImpl {
    category: Category,
    message: String,
    /// 1-based line and column; 0 when the error has no position in text.
    line: usize,
    column: usize,
    /// The source line the error was found on, quoted in the message.
    source_line: Option<String>,
    /// Where in the decoder's input the error was found, before line and column are known:
    /// the decoder carries byte addresses and counts lines only when an error leaves it
    /// ([`Error::resolve`]).
    unresolved: Option<InputAddress>,
    io: Option<std::io::Error>,
}

impl Error {
    /// The part of a source line an error message quotes: `line` itself when it is short,
    /// else 120 characters around `column` (1-based, in characters) with `…` where it was cut.
    /// For messages about other text that quote it as this crate's errors do.
    ///
    /// ```
    /// assert_eq!(toon::Error::excerpt("a: 1", 3), "a: 1");
    /// let long = "x".repeat(300);
    /// let quoted = toon::Error::excerpt(&long, 150);
    /// assert_eq!(quoted.chars().count(), 122);
    /// assert!(quoted.starts_with('…') && quoted.ends_with('…'));
    /// ```
    #[must_use]
    pub fn excerpt(line: &str, column: usize) -> String {
        excerpt(line, column)
    }

    #[cold]
    pub(crate) fn new(category: Category, message: impl Into<String>) -> Self {
        Error {
            inner: Box::new(ErrorImpl {
                category,
                message: message.into(),
                line: 0,
                column: 0,
                source_line: None,
                unresolved: None,
                io: None,
            }),
        }
    }

    #[cold]
    pub(crate) fn syntax(message: impl Into<String>) -> Self {
        Error::new(Category::Syntax, message)
    }

    #[cold]
    pub(crate) fn data(message: impl Into<String>) -> Self {
        Error::new(Category::Data, message)
    }

    #[cold]
    pub(crate) fn io(err: std::io::Error) -> Self {
        let mut e = Error::new(Category::Io, err.to_string());
        e.inner.io = Some(err);
        e
    }

    /// Attaches a position unless the error already has one (the innermost position wins).
    /// The quoted source line is cut to a window around the column, so a huge line cannot make
    /// a huge message.
    pub(crate) fn at(mut self, line: usize, column: usize, source_line: &str) -> Self {
        if self.inner.line == 0 && line > 0 {
            self.inner.line = line;
            self.inner.column = column;
            self.inner.source_line = Some(excerpt(source_line, column));
        }
        self
    }

    /// Attaches the address of a byte of the decoder's input, unless the error already has a
    /// position (the innermost position wins). `whole_line`: the error is about the line
    /// holding that byte, and its column is 1.
    pub(crate) fn at_address(mut self, address: usize, whole_line: bool) -> Self {
        if self.inner.line == 0 && self.inner.unresolved.is_none() {
            self.inner.unresolved = Some(InputAddress {
                address,
                whole_line,
            });
        }
        self
    }

    /// Turns an unresolved address (see [`Error::at_address`]) into the line, the column (in
    /// characters) and the quoted source line, counted in `src`, the text whose bytes the
    /// address points into. Runs once, when the error leaves the decoder.
    pub(crate) fn resolve(self, src: &str) -> Self {
        self.resolve_lines(src, true)
    }

    /// [`Error::resolve`]; `crlf`: a CR before a line's end is the CRLF's (§5.1), not the
    /// line's, and left out of the column's count and the quote.
    fn resolve_lines(mut self, src: &str, crlf: bool) -> Self {
        let Some(InputAddress {
            address,
            whole_line,
        }) = self.inner.unresolved.take()
        else {
            return self;
        };
        let Some(offset) = address
            .checked_sub(src.as_ptr() as usize)
            .filter(|&o| o <= src.len())
        else {
            return self;
        };
        let bytes = src.as_bytes();
        let start = memchr::memrchr(b'\n', &bytes[..offset]).map_or(0, |n| n + 1);
        let end = memchr::memchr(b'\n', &bytes[offset..]).map_or(src.len(), |n| offset + n);
        let raw = &src[start..end];
        let raw = match crlf {
            true => raw.strip_suffix('\r').unwrap_or(raw),
            false => raw,
        };
        let number = memchr::memchr_iter(b'\n', &bytes[..start]).count() + 1;
        let mut at = if whole_line {
            0
        } else {
            (offset - start).min(raw.len())
        };
        while !raw.is_char_boundary(at) {
            at -= 1;
        }
        let column = raw[..at].chars().count() + 1;
        self.at(number, column, raw)
    }

    /// [`Error::resolve`] for a reader that holds one line at a time (`stream/`): `line` is
    /// the raw line (no newline, no CR) that the address points into, and `number` its
    /// 1-based number in the whole input. An error with a position keeps it. The reader has
    /// taken the CRLF's CR off `line`: a CR still there is the line's own (`" 12\r"` of
    /// `" 12\r\r\n"`), quoted as the decoder quotes it.
    pub(crate) fn resolve_in_line(self, line: &str, number: usize) -> Self {
        if self.inner.line != 0 || self.inner.unresolved.is_none() {
            return self;
        }
        let mut err = self.resolve_lines(line, false);
        if err.inner.line != 0 {
            err.inner.line = number;
        }
        err
    }

    pub(crate) fn has_position(&self) -> bool {
        self.inner.line > 0 || self.inner.unresolved.is_some()
    }

    /// 1-based line of the error in the input text, or 0 if the error has no position
    /// (for example an error raised while encoding).
    #[must_use]
    pub fn line(&self) -> usize {
        self.inner.line
    }

    /// 1-based column (in characters) of the error on [`line`](Self::line), or 0 without position.
    #[must_use]
    pub fn column(&self) -> usize {
        self.inner.column
    }

    /// The kind of failure.
    #[must_use]
    pub fn classify(&self) -> Category {
        self.inner.category
    }

    /// True for [`Category::Syntax`].
    #[must_use]
    pub fn is_syntax(&self) -> bool {
        self.classify() == Category::Syntax
    }

    /// True for [`Category::Data`].
    #[must_use]
    pub fn is_data(&self) -> bool {
        self.classify() == Category::Data
    }

    /// True for [`Category::Eof`].
    #[must_use]
    pub fn is_eof(&self) -> bool {
        self.classify() == Category::Eof
    }

    /// True for [`Category::Io`].
    #[must_use]
    pub fn is_io(&self) -> bool {
        self.classify() == Category::Io
    }

    /// The message without position, as given to the error when it was raised.
    #[must_use]
    pub fn message(&self) -> &str {
        &self.inner.message
    }
}

/// Input text quoted inside a message (a key, a field name, a stray token): `Debug`-quoted,
/// cut to [`QuotedInput::MAX`] characters with its full size noted, so a message stays short
/// whatever the input holds.
pub(crate) struct QuotedInput<'a>(pub(crate) &'a str);

impl QuotedInput<'_> {
    /// Characters quoted, at most.
    pub(crate) const MAX: usize = 48;
}

impl fmt::Display for QuotedInput<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match clipped(self.0, Self::MAX) {
            Cow::Owned(short) => write!(f, "{short:?} ({} bytes)", self.0.len()),
            Cow::Borrowed(text) => write!(f, "{text:?}"),
        }
    }
}

/// `text` cut to its first `max` characters with `…` marking the cut, or `text` itself when
/// it is no longer than that.
pub(crate) fn clipped(text: &str, max: usize) -> Cow<'_, str> {
    match text.char_indices().nth(max) {
        Some((cut, _)) => Cow::Owned(format!("{}…", &text[..cut])),
        None => Cow::Borrowed(text),
    }
}

/// Characters of the source line quoted in a message, at most.
const EXCERPT: usize = 120;

/// `line` itself when short; otherwise `EXCERPT` characters around `column` with `…` marking
/// what was cut ([`Error::excerpt`]).
pub(crate) fn excerpt(line: &str, column: usize) -> String {
    let total = line.chars().count();
    if total <= EXCERPT {
        return line.to_owned();
    }
    let start = column.saturating_sub(EXCERPT / 2).min(total - EXCERPT);
    let mut out = String::new();
    if start > 0 {
        out.push('…');
    }
    out.extend(line.chars().skip(start).take(EXCERPT));
    if start + EXCERPT < total {
        out.push('…');
    }
    out
}

/// A byte of the decoder's input that an error is about (see [`Error::at_address`]).
#[derive(Debug, Clone, Copy)]
struct InputAddress {
    address: usize,
    whole_line: bool,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let i = &self.inner;
        if i.line == 0 {
            return f.write_str(&i.message);
        }
        write!(f, "line {}, column {}: {}", i.line, i.column, i.message)?;
        if let Some(src) = &i.source_line {
            write!(f, ": {src:?}")?;
        }
        Ok(())
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Error({:?}, {:?}", self.inner.category, self.to_string())?;
        f.write_str(")")
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.inner
            .io
            .as_ref()
            .map(|e| e as &(dyn std::error::Error + 'static))
    }
}

impl From<std::io::Error> for Error {
    #[cold]
    fn from(err: std::io::Error) -> Self {
        Error::io(err)
    }
}

impl From<Error> for std::io::Error {
    fn from(err: Error) -> Self {
        match err.inner.category {
            Category::Io => match err.inner.io {
                Some(io) => io,
                None => std::io::Error::other(err.inner.message),
            },
            Category::Eof => std::io::Error::new(std::io::ErrorKind::UnexpectedEof, err),
            _ => std::io::Error::new(std::io::ErrorKind::InvalidData, err),
        }
    }
}

impl serde::ser::Error for Error {
    #[cold]
    fn custom<T: fmt::Display>(msg: T) -> Self {
        Error::data(msg.to_string())
    }
}

impl serde::de::Error for Error {
    #[cold]
    fn custom<T: fmt::Display>(msg: T) -> Self {
        Error::data(msg.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An unresolved address becomes the line, the column in characters (after multi-byte
    /// characters, CR before LF not counted) and the raw line, only when resolved.
    #[test]
    fn input_addresses_resolve_to_line_and_column() {
        let src = "a: 1\r\nbé: x\r\n\n  c: [\nlast";
        let at = |needle: &str, whole: bool| {
            let offset = src.find(needle).unwrap();
            Error::syntax("bad").at_address(src.as_ptr() as usize + offset, whole)
        };
        let place = |e: Error| (e.line(), e.column(), e.inner.source_line.clone().unwrap());
        assert_eq!(at("x", false).line(), 0, "unresolved until it leaves");
        assert_eq!(place(at("x", false).resolve(src)), (2, 5, "bé: x".into()));
        assert_eq!(place(at("x", true).resolve(src)), (2, 1, "bé: x".into()));
        assert_eq!(place(at("[", false).resolve(src)), (4, 6, "  c: [".into()));
        assert_eq!(place(at("last", false).resolve(src)), (5, 1, "last".into()));
        let end = Error::syntax("eof").at_address(src.as_ptr() as usize + src.len(), false);
        assert_eq!(place(end.resolve(src)), (5, 5, "last".into()));
        // The innermost position wins; an address outside the text gives no position.
        let first = at("x", false).at_address(src.as_ptr() as usize, false);
        assert_eq!(first.resolve(src).line(), 2);
        let elsewhere = Error::syntax("bad").at_address(1, false).resolve(src);
        assert_eq!((elsewhere.line(), elsewhere.has_position()), (0, false));
    }

    #[test]
    fn long_source_lines_are_excerpted_around_the_column() {
        let line = format!("{}X{}", "a".repeat(5000), "b".repeat(5000));
        let err = Error::syntax("bad").at(1, 5001, &line);
        let text = err.to_string();
        assert!(text.len() < 400, "{}", text.len());
        assert!(text.contains("aX"), "{text}");
        assert!(text.contains('…'));
        assert_eq!(err.column(), 5001);
        assert_eq!(excerpt("short", 3), "short");
    }
}
