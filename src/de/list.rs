//! Expanded lists (§9.4, §10): one `- ` item per element.

use serde::de::{DeserializeSeed, IgnoredAny, SeqAccess};

use super::scanner::Line;
use super::span::{LineRole, Span, stopped_early};
use super::{Deserializer, ValueDe};
use crate::error::{Error, Result};

/// §9.4 expanded list: one `- ` item per element.
pub(crate) struct ListSeq<'a, 'de> {
    de: &'a mut Deserializer<'de>,
    span: Span<'de>,
}

impl<'a, 'de> ListSeq<'a, 'de> {
    pub(crate) fn new(
        de: &'a mut Deserializer<'de>,
        declared: usize,
        base: usize,
        line: Line<'de>,
    ) -> Result<Self> {
        let span = Span::open(de, declared, base, line)?;
        Ok(ListSeq { de, span })
    }

    pub(crate) fn finish(mut self) -> Result<()> {
        if !self.span.done && self.next_element::<IgnoredAny>()?.is_some() {
            return Err(stopped_early());
        }
        self.span.close(self.de, ["list item", "list items"])?;
        if self.de.strict
            && let Some(next) = self.de.scan.peek()?
            && next.depth == self.span.depth
            && next.content.starts_with("- ")
        {
            return Err(next.error(format!(
                "more list items than the {} declared by the header on line {}",
                self.span.declared,
                self.de.scan.line_number(&self.span.header)
            )));
        }
        Ok(())
    }
}

impl<'de> SeqAccess<'de> for ListSeq<'_, 'de> {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        let next = self.span.next_line(self.de, true, |line| {
            Ok(if line.content.starts_with("- ") || line.content == "-" {
                LineRole::Item
            } else {
                LineRole::End
            })
        })?;
        let Some(line) = next else {
            return Ok(None);
        };
        let slot = self.de.list_item(line, self.span.depth)?;
        seed.deserialize(ValueDe {
            de: &mut *self.de,
            slot,
        })
        .map(Some)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.span.declared.saturating_sub(self.span.count).min(4096))
    }
}
