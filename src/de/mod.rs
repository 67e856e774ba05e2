//! Deserialization: TOON text straight into any `Deserialize` type, without an intermediate
//! tree ([`Deserializer`], [`from_str`] and the functions beside it).
//!
//! The decoder walks the document line by line and hands serde one value at a time. Where a
//! value is depends on the line that introduced it: a token after `key:`, a nested block, an
//! array header (§6) with inline values, tabular rows (§9.3) or list items (§9.4), a keyed
//! table (§9.5), or one cell of a row; each is read as the visitor calls serde expects of it
//! (a string, a number, a sequence, a map). The common value after an object's `key: ` is
//! read where it stands, in the same pass that finds its line's end. The decoder keeps byte
//! addresses, not line numbers: an [`Error`] gets its line and column only
//! when it leaves the decoder.
//!
//! `ARCHITECTURE.md` in the repository names the file behind each of these steps.

pub(crate) mod duplicates;
pub(crate) mod exact;
mod field_value;
pub(crate) mod form;
pub(crate) mod header;
pub(crate) mod inline;
pub(crate) mod key;
pub(crate) use key::KeyDe;
pub(crate) mod keyed;
pub(crate) mod list;
mod object;
pub(crate) mod row;
pub(crate) mod scanner;
pub(crate) mod span;
pub(crate) mod tabular;
pub(crate) mod token;
mod variant;

use std::borrow::Cow;

use serde::de::{self, Deserialize, DeserializeOwned, IntoDeserializer, Visitor};

use crate::error::{Category, Error, Result};
use crate::options::DecodeOptions;
use header::{Header, HeaderCache};
use inline::InlineSeq;
use keyed::KeyedAccess;
use list::ListSeq;
use object::{First, ObjectAccess};
use row::RowMap;
use scanner::{Line, Scanner};
use tabular::TabularSeq;
use token::{Integer, ParsedPrimitive, TypedNumber, parse_primitive, trim_spaces};

/// Inputs shorter than this are treated as this long when the expansion limit is set, so
/// small documents with wide tables are never refused.
const EXPANSION_FLOOR: usize = 64 * 1024;

/// A TOON deserializer over a string, like `serde_json::Deserializer`.
///
/// ```
/// use serde::Deserialize;
/// #[derive(Deserialize, Debug, PartialEq)]
/// struct User<'a> { id: u32, name: &'a str }
///
/// let text = "[2]{id,name}:\n  1,Ada\n  2,Bob";
/// let mut de = toon::Deserializer::from_str(text);
/// let users = Vec::<User>::deserialize(&mut de).unwrap();
/// de.end().unwrap();
/// assert_eq!(users[1], User { id: 2, name: "Bob" });
/// ```
pub struct Deserializer<'de> {
    scan: Scanner<'de>,
    strict: bool,
    max_depth: usize,
    depth_left: usize,
    /// Reusable buffer for the cells of one row.
    cells: Vec<&'de str>,
    /// The keys of every open object, for strict duplicate checks (`duplicates.rs`).
    keys: Vec<duplicates::Keyed<'de>>,
    /// Field lists already parsed (§6), shared by the headers that repeat them.
    headers: HeaderCache<'de>,
    /// The box of the last header read: a header is boxed to keep [`Slot`] small, and the
    /// next one reuses the box instead of allocating.
    spare_header: Option<Box<Header<'de>>>,
    /// Whether the root form was an array or keyed table (trailing lines are then an error).
    root_is_closed_form: bool,
    /// Bytes of tabular field names still allowed to be copied into rows (see
    /// [`DecodeOptions::max_expansion`]), and the factor that set it, for the message.
    expansion_left: usize,
    max_expansion: usize,
}

impl<'de> Deserializer<'de> {
    /// A deserializer with default options (strict, indent 2, nesting limit 128).
    #[allow(clippy::should_implement_trait)]
    pub fn from_str(text: &'de str) -> Self {
        Self::from_str_with(text, &DecodeOptions::default())
    }

    /// A deserializer with the given options.
    pub fn from_str_with(text: &'de str, options: &DecodeOptions) -> Self {
        Deserializer {
            scan: Scanner::new(text, options.indent_size, options.strict),
            strict: options.strict,
            max_depth: options.max_depth,
            depth_left: options.max_depth,
            cells: Vec::new(),
            keys: Vec::new(),
            headers: HeaderCache::default(),
            spare_header: None,
            root_is_closed_form: false,
            expansion_left: options
                .max_expansion
                .saturating_mul(text.len().max(EXPANSION_FLOOR)),
            max_expansion: options.max_expansion,
        }
    }

    /// A deserializer over UTF-8 bytes, checked up front, with default options.
    ///
    /// ```
    /// use serde::Deserialize;
    /// let mut de = toon::Deserializer::from_slice(b"a: 1").unwrap();
    /// let v = toon::Value::deserialize(&mut de).unwrap();
    /// de.end().unwrap();
    /// assert_eq!(v["a"], 1);
    /// ```
    ///
    /// # Errors
    ///
    /// Ill-formed UTF-8 (§4), with the line and column of the first bad byte.
    pub fn from_slice(bytes: &'de [u8]) -> Result<Self> {
        Self::from_slice_with(bytes, &DecodeOptions::default())
    }

    /// A deserializer over UTF-8 bytes, checked up front, with the given options.
    ///
    /// ```
    /// let err = toon::Deserializer::from_slice_with(b"a: 1\nb: \xff", &toon::DecodeOptions::new())
    ///     .err()
    ///     .unwrap();
    /// assert_eq!((err.line(), err.column()), (2, 4));
    /// ```
    ///
    /// # Errors
    ///
    /// Ill-formed UTF-8 (§4), with the line and column of the first bad byte.
    pub fn from_slice_with(bytes: &'de [u8], options: &DecodeOptions) -> Result<Self> {
        Ok(Self::from_str_with(utf8(bytes)?, options))
    }

    /// Checks that nothing but blank and comment lines follows the decoded value (§5: a root
    /// array or keyed table spans the whole document).
    ///
    /// # Errors
    ///
    /// Content after a root array or keyed table, or a line that does not belong to the decoded
    /// value (§5), with its line and column.
    pub fn end(&mut self) -> Result<()> {
        let err = match self.scan.peek() {
            Ok(None) => return Ok(()),
            Ok(Some(line)) => form::after_document(&line, self.root_is_closed_form),
            Err(err) => err,
        };
        Err(self.scan.resolve(err))
    }

    /// Gives an error leaving the decoder its line and column: an error without a position
    /// is placed on the last consumed line, and an unresolved address is counted in the input.
    fn locate(&self, err: Error) -> Error {
        let err = match self.scan.last {
            Some(line) if !err.has_position() => line.error_on_line(err),
            _ => err,
        };
        self.scan.resolve(err)
    }

    /// Charges `bytes` of a field name copied into a row's key to the expansion limit.
    pub(crate) fn expand(&mut self, bytes: usize) -> Result<()> {
        match self.expansion_left.checked_sub(bytes) {
            Some(left) => {
                self.expansion_left = left;
                Ok(())
            }
            None => Err(Error::data(format!(
                "tabular field names copied into every row exceed {}x the input \
                 (DecodeOptions::max_expansion); toon::Value shares them and has no such limit",
                self.max_expansion
            ))),
        }
    }

    /// Opens one container against the nesting limit. The error is placed at `line`'s
    /// content, or, for a container that starts where its key or hyphen line ends (a block,
    /// `[]`, `-`), on the last consumed line.
    fn enter(&mut self, line: Option<&Line<'de>>) -> Result<()> {
        if self.depth_left == 0 {
            let err = form::too_deep(self.max_depth);
            return Err(match (line, self.scan.last) {
                (Some(l), _) => l.error_at(0, err),
                (None, Some(last)) => last.error_on_line(err),
                // The root object read at the cursor: its first line, not yet consumed.
                (None, None) => match self.scan.peek() {
                    Ok(Some(first)) => first.error_at(0, err),
                    _ => err,
                },
            });
        }
        self.depth_left -= 1;
        Ok(())
    }

    fn leave(&mut self) {
        self.depth_left += 1;
    }

    /// The grammar settings and field-list cache for [`form`]'s decisions.
    fn rules(&mut self) -> form::Rules<'_, 'de> {
        form::Rules {
            strict: self.strict,
            max_depth: self.max_depth,
            headers: &mut self.headers,
        }
    }

    /// A header in a box: the last header's box when there is one.
    fn boxed(&mut self, header: Header<'de>) -> Box<Header<'de>> {
        match self.spare_header.take() {
            Some(mut spare) => {
                *spare = header;
                spare
            }
            None => Box::new(header),
        }
    }

    /// A header out of its box, which is kept for the next one.
    fn unbox(&mut self, mut boxed: Box<Header<'de>>) -> Header<'de> {
        let header = std::mem::take(&mut *boxed);
        self.spare_header = Some(boxed);
        header
    }

    /// §5 root form discovery.
    fn root(&mut self) -> Result<Slot<'de, 'de>> {
        // The common document: a first line `key: …` with a plain key is an object's first
        // field (not an array header, whose `[` comes before the colon), read at the cursor
        // like every later field instead of being peeked and split.
        if self.scan.at_plain_key(0) {
            return Ok(Slot::Object {
                first: None,
                depth: 0,
            });
        }
        let Some(first) = self.scan.peek()? else {
            return Ok(Slot::EmptyObject);
        };
        let root = form::root(&first, &mut self.rules())?;
        self.scan.consume()?;
        match root {
            form::RootForm::EmptyArray => {
                self.root_is_closed_form = true;
                Ok(Slot::EmptyArray)
            }
            form::RootForm::Header(header) => {
                self.root_is_closed_form = true;
                Ok(Slot::Header {
                    header: self.boxed(header),
                    base: 0,
                    line: first,
                })
            }
            form::RootForm::Undecided
                if !form::root_without_colon(&first, self.scan.peek()?.as_ref())? =>
            {
                Ok(Slot::Token {
                    text: first.content,
                })
            }
            form::RootForm::Object | form::RootForm::Undecided => Ok(Slot::Object {
                first: Some(First::Text(first.content, first)),
                depth: 0,
            }),
        }
    }

    /// Splits a key-value or header line of an object at `base` depth (§5.2, §8).
    fn field(
        &mut self,
        content: &'de str,
        line: Line<'de>,
        base: usize,
    ) -> Result<(Cow<'de, str>, Slot<'de, 'de>)> {
        let (key, field) = form::field(content, &line, &mut self.rules())?;
        let slot = match field {
            form::FieldForm::After(after) => Slot::after(after, base),
            form::FieldForm::Header(header) => Slot::Header {
                header: self.boxed(header),
                base,
                line,
            },
        };
        Ok((key, slot))
    }

    /// One list item (§9.4, §10) whose hyphen line has just been consumed.
    fn list_item(&mut self, line: Line<'de>, item_depth: usize) -> Result<Slot<'de, 'de>> {
        Ok(match form::list_item(&line, &mut self.rules())? {
            form::ItemForm::EmptyObject => Slot::EmptyObject,
            form::ItemForm::EmptyArray => Slot::EmptyArray,
            form::ItemForm::Header(header) => Slot::Header {
                header: self.boxed(header),
                base: item_depth,
                line,
            },
            form::ItemForm::Object(after) => Slot::Object {
                first: Some(First::Text(after, line)),
                depth: item_depth + 1,
            },
            form::ItemForm::Token(after) => Slot::Token { text: after },
        })
    }

    /// §8 depth of the first line of a scope opened at `base` ([`form::scope_depth`]).
    fn content_depth(&mut self, base: usize) -> Result<usize> {
        // The common scope, found at the cursor without peeking its first line, so that the
        // line, too, is read by the scope's fast path.
        if self.scan.starts_at_depth(base + 1) {
            return Ok(base + 1);
        }
        form::scope_depth(base, self.scan.peek()?.as_ref(), self.strict)
    }
}

/// Where the next value is.
pub(crate) enum Slot<'a, 'de> {
    /// A primitive token; errors about it are placed at its first byte.
    Token {
        text: &'de str,
    },
    EmptyArray,
    EmptyObject,
    /// `key:` with nothing after the colon: a nested object if deeper lines follow, else `{}`.
    Block {
        parent: usize,
    },
    /// An array or keyed table header whose scope content is below depth `base`.
    Header {
        header: Box<Header<'de>>,
        base: usize,
        line: Line<'de>,
    },
    /// An object at `depth` whose first field is on an already consumed line.
    Object {
        first: Option<First<'de>>,
        depth: usize,
    },
    /// An object built from row cells by a field list (§9.3).
    Row {
        fields: &'a [header::HeaderField<'de>],
        cells: &'a [&'de str],
        cursor: &'a mut usize,
        line: Line<'de>,
    },
}

impl<'de> Slot<'de, 'de> {
    /// The value of a `key: rest` line (§8) whose key is at depth `base + 1`, `rest` trimmed
    /// ([`form::after_colon`]).
    #[inline]
    fn after_colon(rest: &'de str, base: usize) -> Self {
        Self::after(form::after_colon(rest), base)
    }

    #[inline]
    fn after(after: form::After<'de>, base: usize) -> Self {
        match after {
            form::After::Block => Slot::Block { parent: base },
            form::After::EmptyArray => Slot::EmptyArray,
            form::After::Token(text) => Slot::Token { text },
        }
    }
}

/// Deserializes the value in one [`Slot`].
pub(crate) struct ValueDe<'a, 'de> {
    pub(crate) de: &'a mut Deserializer<'de>,
    pub(crate) slot: Slot<'a, 'de>,
}

fn visit_primitive<'de, V: Visitor<'de>>(
    prim: ParsedPrimitive<'de>,
    visitor: V,
) -> Result<V::Value> {
    match prim {
        ParsedPrimitive::Null => visitor.visit_unit(),
        ParsedPrimitive::Bool(b) => visitor.visit_bool(b),
        ParsedPrimitive::I64(v) => visitor.visit_i64(v),
        ParsedPrimitive::U64(v) => visitor.visit_u64(v),
        ParsedPrimitive::F64(v) => visitor.visit_f64(v),
        ParsedPrimitive::Str(Cow::Borrowed(s)) => visitor.visit_borrowed_str(s),
        ParsedPrimitive::Str(Cow::Owned(s)) => visitor.visit_string(s),
    }
}

/// Visits an integer a typed hint read: two arms, where [`visit_primitive`] has seven.
#[inline]
fn visit_integer<'de, V: Visitor<'de>>(int: Integer, visitor: V) -> Result<V::Value> {
    match int {
        Integer::U64(v) => visitor.visit_u64(v),
        Integer::I64(v) => visitor.visit_i64(v),
    }
}

/// Visits a number a typed hint read.
#[inline]
fn visit_number<'de, V: Visitor<'de>>(number: TypedNumber, visitor: V) -> Result<V::Value> {
    match number {
        TypedNumber::F64(v) => visitor.visit_f64(v),
        TypedNumber::Integer(int) => visit_integer(int, visitor),
    }
}

fn token(text: &str) -> Result<ParsedPrimitive<'_>> {
    parse_primitive(text).map_err(|e| at_text(text, e))
}

/// An error about a token, placed at its first byte.
pub(crate) fn at_text(text: &str, err: Error) -> Error {
    err.at_address(text.as_ptr() as usize, false)
}

impl<'a, 'de> ValueDe<'a, 'de> {
    /// Runs a container visit with the nesting limit and positions for visitor errors.
    fn container<T>(
        de: &mut Deserializer<'de>,
        line: Option<&Line<'de>>,
        f: impl FnOnce(&mut Deserializer<'de>) -> Result<T>,
    ) -> Result<T> {
        de.enter(line)?;
        let out = crate::stack::nested(|| f(de)).map_err(|e| de.locate(e));
        de.leave();
        out
    }

    /// The general path of the typed hints, taken when a token is not what the target's
    /// type reads directly: rare, so out of line and apart from the hints' fast paths.
    #[cold]
    #[inline(never)]
    fn any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.visit(visitor, false)
    }

    /// Visits the slot's value as `deserialize_any` does, except a number token that an
    /// `f64` would change: that is visited as a newtype around its exact text (`exact`).
    #[cold]
    #[inline(never)]
    fn visit_exact<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        if let Slot::Token { text } = self.slot
            && let Some(exact) = exact::exact_text(trim_spaces(text))
        {
            let exact = de::value::StringDeserializer::<Error>::new(exact);
            return visitor
                .visit_newtype_struct(exact)
                .map_err(|e| at_text(text, e));
        }
        self.visit(visitor, false)
    }

    /// Visits the slot's value. `last_write_wins` (non-strict struct targets) makes objects
    /// skip earlier occurrences of repeated keys, since a struct visitor rejects repeats.
    fn visit<V: Visitor<'de>>(self, visitor: V, last_write_wins: bool) -> Result<V::Value> {
        let ValueDe { de, slot } = self;
        match slot {
            Slot::Token { text } => {
                let prim = token(text)?;
                visit_primitive(prim, visitor).map_err(|e| at_text(text, e))
            }
            Slot::EmptyArray => Self::container(de, None, |_| {
                visitor.visit_seq(de::value::SeqDeserializer::<_, Error>::new(
                    std::iter::empty::<()>(),
                ))
            }),
            Slot::EmptyObject => Self::container(de, None, |_| visitor.visit_map(empty_map())),
            Slot::Block { parent } => {
                Self::container(de, None, |de| match ObjectAccess::block(de, parent)? {
                    Some(access) => visit_object(access, last_write_wins, visitor),
                    None => visitor.visit_map(empty_map()),
                })
            }
            Slot::Object { first, depth } => {
                let line = first.map(|f| f.line());
                Self::container(de, line.as_ref(), |de| {
                    visit_object(
                        ObjectAccess::inline(de, first, depth),
                        last_write_wins,
                        visitor,
                    )
                })
            }
            Slot::Header { header, base, line } => Self::container(de, Some(&line), |de| {
                let header = de.unbox(header);
                visit_header(de, header, base, line, visitor)
            }),
            Slot::Row {
                fields,
                cells,
                cursor,
                line,
            } => Self::container(de, Some(&line), |de| {
                let access = RowMap::new(de, fields, cells, cursor, line);
                let mut access = if last_write_wins {
                    access.last_write_wins()
                } else {
                    access
                };
                visitor.visit_map(&mut access)
            }),
        }
    }
}

fn empty_map() -> de::value::MapDeserializer<'static, std::iter::Empty<((), ())>, Error> {
    de::value::MapDeserializer::new(std::iter::empty())
}

/// Visits an object's fields and checks the visitor consumed them all.
fn visit_object<'de, V: Visitor<'de>>(
    mut access: ObjectAccess<'_, 'de>,
    last_write_wins: bool,
    visitor: V,
) -> Result<V::Value> {
    if last_write_wins {
        access = access.last_write_wins();
    }
    let v = visitor.visit_map(&mut access)?;
    access.finish()?;
    Ok(v)
}

fn visit_header<'de, V: Visitor<'de>>(
    de: &mut Deserializer<'de>,
    header: Header<'de>,
    base: usize,
    line: Line<'de>,
    visitor: V,
) -> Result<V::Value> {
    if header.keyed {
        let mut access = KeyedAccess::new(de, header, base, line)?;
        let v = visitor.visit_map(&mut access)?;
        access.finish()?;
        return Ok(v);
    }
    if let Some(inline) = header.inline {
        let mut access = InlineSeq::new(de, inline, &header, line)?;
        let v = visitor.visit_seq(&mut access)?;
        access.finish()?;
        return Ok(v);
    }
    if header.fields.is_some() {
        let mut access = TabularSeq::new(de, header, base, line)?;
        let v = visitor.visit_seq(&mut access)?;
        access.finish()?;
        return Ok(v);
    }
    let mut access = ListSeq::new(de, header.len, base, line)?;
    let v = visitor.visit_seq(&mut access)?;
    access.finish()?;
    Ok(v)
}

/// serde's externally tagged enums: a string is a unit variant, a one-key object a variant with
/// content (as serde_json).
fn visit_enum<'de, V: Visitor<'de>>(value: ValueDe<'_, 'de>, visitor: V) -> Result<V::Value> {
    match value.slot {
        Slot::Token { text } => match token(text)? {
            ParsedPrimitive::Str(Cow::Borrowed(s)) => visitor
                .visit_enum(de::value::BorrowedStrDeserializer::<Error>::new(s))
                .map_err(|e| at_text(text, e)),
            ParsedPrimitive::Str(Cow::Owned(s)) => visitor
                .visit_enum(s.into_deserializer())
                .map_err(|e: Error| at_text(text, e)),
            _ => Err(at_text(
                text,
                Error::data("invalid type: expected an enum variant name or a one-key object"),
            )),
        },
        slot => variant::EnumFromMap::visit(ValueDe { de: value.de, slot }, visitor),
    }
}

/// Typed hints (as serde_json has): a token that the target's type reads directly is typed
/// by its first bytes, with the same result the full §4 grammar gives; anything else takes
/// `deserialize_any`.
macro_rules! typed_hint {
    (integer: $($int:ident)*; float: $($float:ident)*; string: $($str:ident)*;) => {
        $(fn $float<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
            if let Slot::Token { text } = &self.slot
                && let Some(number) = token::typed_number(text)
            {
                return visit_number(number, visitor).map_err(|e| at_text(text, e));
            }
            self.any(visitor)
        })*
        $(fn $int<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
            if let Slot::Token { text } = &self.slot
                && let Some(int) = token::parse_integer(text)
            {
                return visit_integer(int, visitor).map_err(|e| at_text(text, e));
            }
            self.any(visitor)
        })*
        $(fn $str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
            if let Slot::Token { text } = &self.slot {
                let text: &'de str = text;
                if token::is_plain_string(text) {
                    return visitor.visit_borrowed_str(text).map_err(|e| at_text(text, e));
                }
                if text.starts_with('"') {
                    let value = match token::parse_quoted(text) {
                        Ok(value) => value,
                        Err(e) => return Err(at_text(text, e)),
                    };
                    let visited = match value {
                        Cow::Borrowed(s) => visitor.visit_borrowed_str(s),
                        Cow::Owned(s) => visitor.visit_string(s),
                    };
                    return visited.map_err(|e| at_text(text, e));
                }
            }
            self.any(visitor)
        })*
    };
}

impl<'de> de::Deserializer<'de> for ValueDe<'_, 'de> {
    type Error = Error;

    /// Out of line: the callers that know no type (`toon::Value`, `serde_json::Value`,
    /// untagged enums) call it from large visitors, which stay smaller for it. It is their
    /// common path, so it does not go through the typed hints' cold `any`.
    #[inline(never)]
    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.visit(visitor, false)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.slot {
            Slot::Token { text, .. } if trim_spaces(text) == "null" => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        if name == exact::EXACT_NUMBERS {
            return self.visit_exact(visitor);
        }
        visitor.visit_newtype_struct(self)
    }

    /// Non-strict mode resolves duplicate keys last-write-wins (§14.3); a struct visitor would
    /// reject the repeat, so earlier occurrences are skipped for struct targets. (Map targets
    /// overwrite in place themselves, keeping the first position as the reference does.)
    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        let last_write_wins = !self.de.strict;
        self.visit(visitor, last_write_wins)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        visit_enum(self, visitor)
    }

    /// Integers beyond 64 bits are exact when the target asks for 128 bits.
    fn deserialize_i128<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match &self.slot {
            Slot::Token { text } if token::is_integer(trim_spaces(text)) => {
                match trim_spaces(text).parse::<i128>() {
                    Ok(v) => visitor.visit_i128(v).map_err(|e| at_text(text, e)),
                    Err(_) => self.any(visitor),
                }
            }
            _ => self.any(visitor),
        }
    }

    fn deserialize_u128<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match &self.slot {
            Slot::Token { text } if token::is_integer(trim_spaces(text)) => {
                match trim_spaces(text).parse::<u128>() {
                    Ok(v) => visitor.visit_u128(v).map_err(|e| at_text(text, e)),
                    Err(_) => self.any(visitor),
                }
            }
            _ => self.any(visitor),
        }
    }

    typed_hint! {
        integer: deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64
            deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u64;
        float: deserialize_f32 deserialize_f64;
        string: deserialize_str deserialize_string;
    }

    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        if let Slot::Token { text } = &self.slot {
            match *text {
                "true" => return visitor.visit_bool(true).map_err(|e| at_text(text, e)),
                "false" => {
                    return visitor.visit_bool(false).map_err(|e| at_text(text, e));
                }
                _ => {}
            }
        }
        self.any(visitor)
    }

    serde::forward_to_deserialize_any! {
        char bytes byte_buf unit unit_struct seq tuple tuple_struct map identifier ignored_any
    }
}

macro_rules! root_method {
    ($($method:ident $(($($arg:ident: $ty:ty),*))?),*) => {$(
        fn $method<V: Visitor<'de>>(self, $($($arg: $ty,)*)? visitor: V) -> Result<V::Value> {
            let slot = self.root().map_err(|e| self.locate(e))?;
            ValueDe { de: &mut *self, slot }
                .$method($($($arg,)*)? visitor)
                .map_err(|e| self.locate(e))
        }
    )*};
}

impl<'de> de::Deserializer<'de> for &mut Deserializer<'de> {
    type Error = Error;

    root_method!(
        deserialize_any, deserialize_bool, deserialize_i8, deserialize_i16, deserialize_i32,
        deserialize_i64, deserialize_i128, deserialize_u8, deserialize_u16, deserialize_u32,
        deserialize_u64, deserialize_u128, deserialize_f32, deserialize_f64, deserialize_char,
        deserialize_str, deserialize_string, deserialize_bytes, deserialize_byte_buf,
        deserialize_option, deserialize_unit, deserialize_seq, deserialize_map,
        deserialize_identifier, deserialize_ignored_any,
        deserialize_unit_struct(name: &'static str),
        deserialize_newtype_struct(name: &'static str),
        deserialize_tuple(len: usize),
        deserialize_tuple_struct(name: &'static str, len: usize),
        deserialize_struct(name: &'static str, fields: &'static [&'static str]),
        deserialize_enum(name: &'static str, variants: &'static [&'static str])
    );
}

/// Decodes a value from TOON text with default options (strict).
///
/// ```
/// use serde::Deserialize;
/// #[derive(Deserialize)]
/// struct Doc { users: Vec<User> }
/// #[derive(Deserialize)]
/// struct User { id: u32, name: String }
///
/// let doc: Doc = toon::from_str("users[2]{id,name}:\n  1,Ada\n  2,Bob").unwrap();
/// assert_eq!(doc.users[1].name, "Bob");
/// ```
///
/// # Errors
///
/// Text that is not valid TOON (a syntax error with line and column, [`Category::Syntax`]),
/// or TOON that does not fit `T` ([`Category::Data`]): a missing field, a wrong type.
pub fn from_str<'de, T: Deserialize<'de>>(text: &'de str) -> Result<T> {
    from_str_with(text, &DecodeOptions::default())
}

/// Decodes a value from TOON text with `options`.
///
/// ```
/// let opts = toon::DecodeOptions::new().strict(false);
/// let v: toon::Value = toon::from_str_with("name: Ada\nname: Bob", &opts).unwrap();
/// assert_eq!(v["name"], "Bob");
/// ```
///
/// # Errors
///
/// As [`from_str`], under `options` (strict or not, indentation, nesting limit).
pub fn from_str_with<'de, T: Deserialize<'de>>(
    text: &'de str,
    options: &DecodeOptions,
) -> Result<T> {
    let mut de = Deserializer::from_str_with(text, options);
    let value = T::deserialize(&mut de).map_err(|e| de.locate(e))?;
    de.end()?;
    Ok(value)
}

/// Decodes a value from UTF-8 bytes; ill-formed UTF-8 is an error (§4).
///
/// ```
/// let v: Vec<u32> = toon::from_slice(b"[3]: 1,2,3").unwrap();
/// assert_eq!(v, [1, 2, 3]);
/// assert!(toon::from_slice::<toon::Value>(b"k: \xff").is_err());
/// ```
///
/// # Errors
///
/// Ill-formed UTF-8, then as [`from_str`].
pub fn from_slice<'de, T: Deserialize<'de>>(bytes: &'de [u8]) -> Result<T> {
    from_slice_with(bytes, &DecodeOptions::default())
}

/// Decodes a value from UTF-8 bytes with `options`.
///
/// ```
/// let opts = toon::DecodeOptions::new().indent_size(4);
/// let v: toon::Value = toon::from_slice_with(b"a:\n    b: 1", &opts).unwrap();
/// assert_eq!(v, toon::toon!({"a": {"b": 1}}));
/// ```
///
/// # Errors
///
/// Ill-formed UTF-8, then as [`from_str_with`].
pub fn from_slice_with<'de, T: Deserialize<'de>>(
    bytes: &'de [u8],
    options: &DecodeOptions,
) -> Result<T> {
    let text = utf8(bytes)?;
    from_str_with(text, options)
}

fn utf8(bytes: &[u8]) -> Result<&str> {
    std::str::from_utf8(bytes).map_err(|e| {
        let offset = e.valid_up_to();
        let line = bytes[..offset].iter().filter(|&&b| b == b'\n').count() + 1;
        let line_start = bytes[..offset]
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |p| p + 1);
        utf8_error(offset, line, &bytes[line_start..offset])
    })
}

/// Ill-formed UTF-8 (§4) at byte `offset` of the input, on line `line`, after the bytes
/// `before` of that line (quoted, lossily).
pub(crate) fn utf8_error(offset: usize, line: usize, before: &[u8]) -> Error {
    let prefix = String::from_utf8_lossy(before);
    Error::syntax(format!("invalid UTF-8 at byte {offset}")).at(
        line,
        prefix.chars().count() + 1,
        &prefix,
    )
}

/// Decodes a value from a reader of UTF-8 TOON text (read fully, then decoded).
///
/// ```
/// let v: toon::Value = toon::from_reader("tags[2]: a,b".as_bytes()).unwrap();
/// assert_eq!(v, toon::toon!({"tags": ["a", "b"]}));
/// ```
///
/// # Errors
///
/// The reader's I/O error ([`Category::Io`]), then as [`from_slice`].
pub fn from_reader<R: std::io::Read, T: DeserializeOwned>(reader: R) -> Result<T> {
    from_reader_with(reader, &DecodeOptions::default())
}

/// Decodes a value from a reader with `options`.
///
/// ```
/// let opts = toon::DecodeOptions::new().strict(false);
/// let v: Vec<u8> = toon::from_reader_with("[5]: 1,2".as_bytes(), &opts).unwrap();
/// assert_eq!(v, [1, 2]);
/// ```
///
/// # Errors
///
/// The reader's I/O error ([`Category::Io`]), then as [`from_slice_with`].
pub fn from_reader_with<R: std::io::Read, T: DeserializeOwned>(
    mut reader: R,
    options: &DecodeOptions,
) -> Result<T> {
    let mut bytes = Vec::new();
    reader.read_to_end(&mut bytes).map_err(Error::io)?;
    let text = utf8(&bytes)?;
    from_str_with(text, options)
}

pub(crate) fn eof(message: impl Into<String>) -> Error {
    Error::new(Category::Eof, message)
}
