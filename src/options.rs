//! Encoder and decoder options (§13).

/// The highest nesting limit [`EncodeOptions::max_depth`] and [`DecodeOptions::max_depth`]
/// accept; larger requests are lowered to it.
///
/// Encoding and decoding recurse once per level of nesting and continue on a heap-allocated
/// stack segment when the thread's stack runs low, so they are safe at any limit. What they
/// produce is not: a `Value` (or `serde_json::Value`) thousands of levels deep overflows the
/// stack later, when it is dropped, compared or formatted. At this ceiling those recursive
/// operations fit the 2 MiB stack of a spawned thread even in an unoptimized build.
pub const MAX_DEPTH_CEILING: usize = 512;

/// The delimiter that separates inline array values and tabular cells (§11).
///
/// ```
/// use toon::{Delimiter, EncodeOptions};
/// assert_eq!(Delimiter::parse("pipe"), Some(Delimiter::Pipe));
/// let opts = EncodeOptions::new().delimiter(Delimiter::Tab);
/// assert_eq!(toon::to_string_with(&[1, 2], &opts).unwrap(), "[2\t]: 1\t2");
/// ```
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub enum Delimiter {
    /// `,` (the default; headers carry no delimiter symbol).
    #[default]
    Comma,
    /// HTAB (U+0009); headers carry a tab inside brackets and braces.
    Tab,
    /// `|`; headers carry a pipe inside brackets and braces.
    Pipe,
}

impl Delimiter {
    /// The delimiter character.
    ///
    /// ```
    /// assert_eq!(toon::Delimiter::Pipe.as_char(), '|');
    /// ```
    #[must_use]
    pub const fn as_char(self) -> char {
        self.as_byte() as char
    }

    pub(crate) const fn as_byte(self) -> u8 {
        match self {
            Delimiter::Comma => b',',
            Delimiter::Tab => b'\t',
            Delimiter::Pipe => b'|',
        }
    }

    /// Parses `,`/`comma`, `\t`/`tab`, `|`/`pipe`.
    ///
    /// ```
    /// assert_eq!(toon::Delimiter::parse("tab"), Some(toon::Delimiter::Tab));
    /// assert_eq!(toon::Delimiter::parse(";"), None);
    /// ```
    #[must_use]
    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "," | "comma" => Some(Delimiter::Comma),
            "\t" | "\\t" | "tab" => Some(Delimiter::Tab),
            "|" | "pipe" => Some(Delimiter::Pipe),
            _ => None,
        }
    }
}

/// Options for encoding (§13): document delimiter and indentation width.
///
/// ```
/// use toon::{Delimiter, EncodeOptions};
/// let opts = EncodeOptions::new().delimiter(Delimiter::Pipe).indent_size(4);
/// let text = toon::to_string_with(&serde_json::json!({"tags": ["a", "b"]}), &opts).unwrap();
/// assert_eq!(text, "tags[2|]: a|b");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EncodeOptions {
    pub(crate) delimiter: Delimiter,
    pub(crate) indent_size: usize,
    pub(crate) max_depth: usize,
}

impl Default for EncodeOptions {
    fn default() -> Self {
        EncodeOptions {
            delimiter: Delimiter::Comma,
            indent_size: 2,
            max_depth: 128,
        }
    }
}

impl EncodeOptions {
    /// Comma delimiter, indent 2, nesting limit 128.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets the document delimiter (§11.1).
    #[must_use]
    pub fn delimiter(mut self, delimiter: Delimiter) -> Self {
        self.delimiter = delimiter;
        self
    }

    /// Sets the number of spaces per indentation level (§12); values below 1 are raised to 1.
    #[must_use]
    pub fn indent_size(mut self, indent_size: usize) -> Self {
        self.indent_size = indent_size.max(1);
        self
    }

    /// Maximum nesting of arrays and objects before encoding fails with a
    /// [`Category::Data`](crate::Category::Data) error instead of overflowing the stack
    /// (default 128, the decoder's default, so what encodes also decodes). Values above
    /// [`MAX_DEPTH_CEILING`] are lowered to it.
    ///
    /// ```
    /// use toon::EncodeOptions;
    /// let deep = serde_json::json!({"a": {"b": {"c": 1}}});
    /// assert!(toon::to_string_with(&deep, &EncodeOptions::new().max_depth(2)).is_err());
    /// assert!(toon::to_string_with(&deep, &EncodeOptions::new().max_depth(3)).is_ok());
    /// ```
    #[must_use]
    pub fn max_depth(mut self, max_depth: usize) -> Self {
        self.max_depth = max_depth.min(MAX_DEPTH_CEILING);
        self
    }

    /// The nesting limit.
    #[must_use]
    pub fn get_max_depth(&self) -> usize {
        self.max_depth
    }

    /// The document delimiter.
    #[must_use]
    pub fn get_delimiter(&self) -> Delimiter {
        self.delimiter
    }

    /// Spaces per indentation level.
    #[must_use]
    pub fn get_indent_size(&self) -> usize {
        self.indent_size
    }
}

/// Options for decoding (§13): strict mode, indentation width and nesting limit.
///
/// ```
/// use toon::DecodeOptions;
/// let lenient = DecodeOptions::new().strict(false);
/// let v: toon::Value = toon::from_str_with("tags[3]: a,b", &lenient).unwrap();
/// assert_eq!(v, toon::toon!({"tags": ["a", "b"]}));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DecodeOptions {
    pub(crate) strict: bool,
    pub(crate) indent_size: usize,
    pub(crate) max_depth: usize,
    pub(crate) max_expansion: usize,
}

impl Default for DecodeOptions {
    fn default() -> Self {
        DecodeOptions {
            strict: true,
            indent_size: 2,
            max_depth: 128,
            max_expansion: 16,
        }
    }
}

impl DecodeOptions {
    /// Strict, indent 2, nesting limit 128.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Strict mode (§14) errors on every violation; non-strict mode recovers from exactly the
    /// five conditions of v4.4: advisory `[N]` counts, last-write-wins duplicates, lenient
    /// indentation (a tab is one level, spaces are floored), blank lines inside arrays, and a
    /// block whose first line starts too deep.
    #[must_use]
    pub fn strict(mut self, strict: bool) -> Self {
        self.strict = strict;
        self
    }

    /// Spaces per indentation level (§12); values below 1 are raised to 1.
    #[must_use]
    pub fn indent_size(mut self, indent_size: usize) -> Self {
        self.indent_size = indent_size.max(1);
        self
    }

    /// Maximum nesting of arrays and objects before decoding fails (default 128, as
    /// serde_json). Values above [`MAX_DEPTH_CEILING`] are lowered to it, so no document can
    /// overflow the stack whatever is asked here.
    #[must_use]
    pub fn max_depth(mut self, max_depth: usize) -> Self {
        self.max_depth = max_depth.min(MAX_DEPTH_CEILING);
        self
    }

    /// Bounds how much a tabular header can expand (default 16).
    ///
    /// A header names its fields once, but a target that owns its keys (`serde_json::Value`,
    /// `HashMap<String, _>`) stores a copy of every name in every row: a 1 MB field name over
    /// 1,000 one-byte rows would take 1 GB. Like a YAML parser's alias limit, decoding fails
    /// with a [`Category::Data`](crate::Category::Data) error once the names copied into rows
    /// exceed `factor` times the input's length (inputs under 64 KiB count as 64 KiB). Real
    /// tables stay far below: each of the eight bundled data sets copies less than its own
    /// length.
    ///
    /// Targets that borrow or share keys are not charged: [`Value`](crate::Value) (rows share
    /// their header's names), `&str` keys, and struct fields.
    ///
    /// ```
    /// use std::collections::HashMap;
    /// let name = "n".repeat(100_000);
    /// let text = format!("[1000]{{{name}}}:\n{}", "  1\n".repeat(1000));
    /// let owned = toon::from_str::<Vec<HashMap<String, u8>>>(&text);
    /// assert!(owned.unwrap_err().to_string().contains("max_expansion"));
    /// let shared: toon::Value = toon::from_str(&text).unwrap();
    /// assert_eq!(shared.as_array().unwrap().len(), 1000);
    /// ```
    #[must_use]
    pub fn max_expansion(mut self, factor: usize) -> Self {
        self.max_expansion = factor;
        self
    }

    /// The expansion factor.
    #[must_use]
    pub fn get_max_expansion(&self) -> usize {
        self.max_expansion
    }

    /// Whether strict mode is on.
    #[must_use]
    pub fn is_strict(&self) -> bool {
        self.strict
    }

    /// Spaces per indentation level.
    #[must_use]
    pub fn get_indent_size(&self) -> usize {
        self.indent_size
    }

    /// The nesting limit.
    #[must_use]
    pub fn get_max_depth(&self) -> usize {
        self.max_depth
    }
}
