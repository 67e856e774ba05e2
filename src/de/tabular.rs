//! Tabular arrays (§9.3): one row of delimited cells per line.

use serde::de::{DeserializeSeed, IgnoredAny, SeqAccess};

use super::header::Header;
use super::row::RowCells;
use super::scanner::Line;
use super::span::{LineRole, Span, stopped_early};
use super::token::after_quoted;
use super::{Deserializer, ValueDe};
use crate::error::{Error, Result};
use crate::swar::find_any;

/// §9.3 row/key-value disambiguation at row depth: a row unless an unquoted colon comes
/// before the first unquoted delimiter. Only the bytes up to the first of the two are read.
pub(crate) fn is_data_row(content: &str, delim: u8) -> bool {
    let bytes = content.as_bytes();
    let mut at = 0;
    while let Some(found) = find_any(bytes, at, [b':', delim, b'"']) {
        match bytes[found] {
            b'"' => match after_quoted(bytes, found) {
                Some(next) => at = next,
                None => return true,
            },
            b':' => return false,
            _ => return true,
        }
    }
    true
}

/// Strict mode, after a table's declared count: a line at row depth that would be one more
/// row (§9.3).
pub(crate) fn is_extra_row(content: &str, delim: u8) -> bool {
    !content.starts_with("- ") && is_data_row(content, delim)
}

/// §9.3 tabular array: one row per line.
pub(crate) struct TabularSeq<'a, 'de> {
    de: &'a mut Deserializer<'de>,
    rows: RowCells<'de>,
    span: Span<'de>,
}

impl<'a, 'de> TabularSeq<'a, 'de> {
    pub(crate) fn new(
        de: &'a mut Deserializer<'de>,
        header: Header<'de>,
        base: usize,
        line: Line<'de>,
    ) -> Result<Self> {
        let span = Span::open(de, header.len, base, line)?;
        let rows = RowCells::new(de, header);
        Ok(TabularSeq { de, rows, span })
    }

    pub(crate) fn finish(mut self) -> Result<()> {
        if !self.span.done && self.next_element::<IgnoredAny>()?.is_some() {
            return Err(stopped_early());
        }
        self.span.close(self.de, ["row", "rows"])?;
        let delim = self.rows.delim;
        self.span
            .refuse_extra(self.de, "rows", |next| is_extra_row(next.content, delim))?;
        self.rows.give_back(self.de);
        Ok(())
    }
}

impl<'de> SeqAccess<'de> for TabularSeq<'_, 'de> {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        let line = match self.rows.next_fast(self.de, &mut self.span) {
            Some(line) => line?,
            None => {
                let delim = self.rows.delim;
                let next = self.span.next_line(self.de, true, |line| {
                    Ok(if is_data_row(line.content, delim) {
                        LineRole::Item
                    } else {
                        LineRole::End
                    })
                })?;
                let Some(line) = next else {
                    return Ok(None);
                };
                self.rows.split(line.content, &line)?;
                line
            }
        };
        seed.deserialize(ValueDe {
            de: &mut *self.de,
            slot: self.rows.slot(line),
        })
        .map(Some)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.span.size_hint())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::de::token::find_unquoted;

    /// The early-stopping test decides as "colon before the first delimiter" does.
    #[test]
    fn data_rows_are_told_from_key_value_lines_as_section_9_3_says() {
        let alphabet = [b'a', b',', b'|', b'"', b'\\', b':', b' '];
        let mut state = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..20_000 {
            crate::test_rng::next(&mut state);
            let len = (state % 12) as usize;
            let text: String = (0..len)
                .map(|i| alphabet[((state >> (i * 4 + 8)) % 7) as usize] as char)
                .collect();
            for delim in [b',', b'|'] {
                let expected = match find_unquoted(&text, b':', 0) {
                    None => true,
                    Some(colon) => find_unquoted(&text, delim, 0).is_some_and(|d| d < colon),
                };
                assert_eq!(is_data_row(&text, delim), expected, "{text:?}");
            }
        }
    }
}
