//! Inline primitive arrays (§9.1): the delimited values after the header's colon.

use serde::de::{DeserializeSeed, SeqAccess};

use super::header::Header;
use super::scanner::Line;
use super::span::{counted, stopped_early};
use super::token::split_delimited;
use super::{Deserializer, Slot, ValueDe};
use crate::error::{Error, Result};

/// §9.1, strict: an inline array carries its declared count of values (non-strict: advisory,
/// v4.4 recovery 1). `inline` is the text after the colon, on `line`.
pub(crate) fn check_inline(
    strict: bool,
    values: usize,
    declared: usize,
    inline: &str,
    line: &Line<'_>,
) -> Result<()> {
    if strict && values != declared {
        return Err(line.error_in(
            inline,
            Error::syntax(format!(
                "expected {}, found {values}",
                counted(declared, ["value", "values"]),
            )),
        ));
    }
    Ok(())
}

/// §9.1 inline primitive array: the values after the header's colon.
pub(crate) struct InlineSeq<'a, 'de> {
    de: &'a mut Deserializer<'de>,
    cells: Vec<&'de str>,
    next: usize,
    line: Line<'de>,
}

impl<'a, 'de> InlineSeq<'a, 'de> {
    pub(crate) fn new(
        de: &'a mut Deserializer<'de>,
        inline: &'de str,
        header: &Header<'de>,
        line: Line<'de>,
    ) -> Result<Self> {
        let mut cells = std::mem::take(&mut de.cells);
        cells.clear();
        // Room for a typical list at once (reused by later arrays), not grown from four.
        cells.reserve(header.len.min(16));
        split_delimited(inline, header.delim, &mut cells);
        check_inline(de.strict, cells.len(), header.len, inline, &line)?;
        Ok(InlineSeq {
            de,
            cells,
            next: 0,
            line,
        })
    }

    pub(crate) fn finish(mut self) -> Result<()> {
        if self.next < self.cells.len() {
            return Err(self.line.error_at(0, stopped_early()));
        }
        self.de.cells = std::mem::take(&mut self.cells);
        Ok(())
    }
}

impl<'de> SeqAccess<'de> for InlineSeq<'_, 'de> {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        let Some(&text) = self.cells.get(self.next) else {
            return Ok(None);
        };
        self.next += 1;
        seed.deserialize(ValueDe {
            de: &mut *self.de,
            slot: Slot::Token { text },
        })
        .map(Some)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.cells.len() - self.next)
    }
}
