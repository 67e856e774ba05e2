//! An object's members rewritten in place: kept members keep their text and the separators
//! before them (comments included), dropped ones go with theirs, new ones are written in the
//! object's own layout (one member a line at its indentation, or all on one line).

use super::jsonc::Object;

/// One member of the rewritten object, in order.
pub(crate) enum Item {
    /// The original member at this index, as it was.
    Keep(usize),
    /// A new member's text (`"key": value`) in the place of the original member at this index
    /// (taking the separator before it), or at the end (`None`).
    New(String, Option<usize>),
}

/// How an object's members are laid out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Style {
    /// Members on lines of their own (else all on one line).
    pub multiline: bool,
    /// The indentation of a member's line.
    pub indent: String,
    /// One level of indentation in this file.
    pub unit: String,
}

impl Style {
    /// The layout of `object` in `original`: its members' indentation, or, for an empty
    /// object, one `unit` deeper than the line it is on.
    pub(crate) fn of(original: &str, object: &Object, unit: &str) -> Style {
        let text = &original[object.open..=object.close];
        match object.members.last() {
            Some(last) => {
                let before = &original[..last.key_start];
                let line = &before[before.rfind('\n').map_or(0, |n| n + 1)..];
                let multiline = text.contains('\n') && line.trim().is_empty();
                Style {
                    multiline,
                    indent: if multiline {
                        line.to_owned()
                    } else {
                        String::new()
                    },
                    unit: unit.to_owned(),
                }
            }
            None => {
                let before = &original[..object.open];
                let line = &before[before.rfind('\n').map_or(0, |n| n + 1)..];
                let lead: String = line.chars().take_while(|c| c.is_whitespace()).collect();
                Style {
                    multiline: original.contains('\n'),
                    indent: format!("{lead}{unit}"),
                    unit: unit.to_owned(),
                }
            }
        }
    }

    /// The indentation one level up (the closing brace's).
    fn outer(&self) -> &str {
        self.indent
            .strip_suffix(self.unit.as_str())
            .unwrap_or(&self.indent)
    }
}

/// The indentation unit of a file: that of the top object's first member, else two spaces.
pub(crate) fn unit(original: &str, top: &Object) -> String {
    top.members
        .first()
        .and_then(|m| {
            let before = &original[top.open + 1..m.key_start];
            let line = &before[before.rfind('\n')? + 1..];
            (!line.is_empty() && line.trim().is_empty()).then(|| line.to_owned())
        })
        .unwrap_or_else(|| "  ".to_owned())
}

/// An object being rewritten: the original's text and where its separators lie.
struct Rewrite<'a> {
    original: &'a str,
    blanked: &'a str,
    object: &'a Object,
    layout: &'a Style,
}

impl Rewrite<'_> {
    /// The text before member `i`: after the previous member's value (or the brace).
    fn before(&self, i: usize) -> std::ops::Range<usize> {
        let members = &self.object.members;
        let from = match i {
            0 => self.object.open + 1,
            _ => members[i - 1].value.end,
        };
        from..members[i].key_start
    }

    /// [`before`](Self::before) without its comma.
    fn without_comma(&self, i: usize) -> String {
        let range = self.before(i);
        let text = &self.original[range.clone()];
        match self.blanked[range].find(',') {
            Some(at) => format!("{}{}", &text[..at], &text[at + 1..]),
            None => text.to_owned(),
        }
    }

    /// What follows the opening brace on its line, when the first member is on another.
    fn brace_line(&self) -> &str {
        match self.object.members.first() {
            Some(_) => {
                let leading = &self.original[self.before(0)];
                leading.find('\n').map_or("", |at| &leading[..at])
            }
            None => "",
        }
    }

    /// A separator of this object's layout before a new member.
    fn fresh(&self, first: bool) -> String {
        match (first, self.layout.multiline) {
            (true, true) => format!("\n{}", self.layout.indent),
            (false, true) => format!(",\n{}", self.layout.indent),
            (true, false) => String::new(),
            (false, false) => ", ".to_owned(),
        }
    }

    /// The separator before a new member appended after the last one, on a line of its own:
    /// the rest of the last member's line (its comment) comes first, a trailing comma
    /// (only blanks come before it there) turned into the separator's.
    fn after_line(&self, tail_line: &str) -> String {
        let at = tail_line.len() - tail_line.trim_start().len();
        let line = match tail_line[at..].starts_with(',') {
            true => format!("{}{}", &tail_line[..at], &tail_line[at + 1..]),
            false => tail_line.to_owned(),
        };
        format!(",{line}\n{}", self.layout.indent)
    }
}

/// The object's text (from `{` to `}`) with `items` as its members. `blanked` is `original`
/// with comments blanked, where the separators' commas are found.
pub(crate) fn rewrite(
    original: &str,
    blanked: &str,
    object: &Object,
    items: &[Item],
    layout: &Style,
) -> String {
    let r = Rewrite {
        original,
        blanked,
        object,
        layout,
    };
    let members = &object.members;
    // After the last member: the rest of its line (a comment of its, a trailing comma),
    // then the closing brace's line.
    let last = members.len().checked_sub(1);
    let tail = match last {
        Some(l) => &original[members[l].value.end..object.close],
        None => &original[object.open + 1..object.close],
    };
    let (tail_line, tail_rest) = tail.split_at(tail.find('\n').unwrap_or(tail.len()));
    let mut tail_line_used = false;
    let mut out = String::from("{");
    // The original member the last one written is, if it is one.
    let mut previous: Option<usize> = None;
    for (k, item) in items.iter().enumerate() {
        let (origin, text) = match item {
            Item::Keep(i) => (
                Some(*i),
                &original[members[*i].key_start..members[*i].value.end],
            ),
            Item::New(text, at) => (*at, text.as_str()),
        };
        // Before the first member: what followed the brace on its line (a comment of the
        // object's) stays first.
        let lead = if k == 0 { r.brace_line() } else { "," };
        let separator = match (item, origin) {
            // After the member it followed, or first and the first: as it was.
            (Item::Keep(i), _) if *i > 0 && previous == Some(i - 1) => {
                original[r.before(*i)].to_owned()
            }
            (Item::Keep(0), _) => original[r.before(0)].to_owned(),
            // After another: without what followed the member before it on its line (its
            // comment goes with it).
            (Item::Keep(i), _) => format!("{lead}{}", own_line(&r.without_comma(*i))),
            // In a dropped member's place: without its comments.
            (Item::New(..), Some(_)) if layout.multiline => {
                format!("{lead}\n{}", layout.indent)
            }
            (Item::New(..), None)
                if previous.is_some()
                    && previous == last
                    && layout.multiline
                    && !tail_rest.is_empty() =>
            {
                tail_line_used = true;
                r.after_line(tail_line)
            }
            (Item::New(..), _) if k == 0 => format!("{lead}{}", r.fresh(true)),
            (Item::New(..), _) => r.fresh(false),
        };
        previous = match item {
            Item::Keep(i) => Some(*i),
            Item::New(..) => None,
        };
        out.push_str(&separator);
        out.push_str(text);
    }
    if items.is_empty() {
        return "{}".to_owned();
    }
    let trailing = match (last, tail_line_used) {
        (None, _) => tail,
        (Some(_), true) => tail_rest,
        (Some(l), false) if previous == Some(l) => tail,
        (Some(_), false) => own_line(tail),
    };
    if trailing.contains('\n') || !layout.multiline {
        out.push_str(trailing);
    } else {
        out.push('\n');
        out.push_str(layout.outer());
    }
    out.push('}');
    out
}

/// A separator without what precedes its first line break (the end of the line of the member
/// before it: a comment of that member's); all of it when it has none.
fn own_line(separator: &str) -> &str {
    separator
        .find('\n')
        .map_or(separator, |at| &separator[at..])
}

/// `value` (JSON text that sat at indentation `from`, in a file indented by `from_unit`)
/// re-indented to sit at `to` in a file indented by `to_unit`: every line after the first
/// loses `from` and gains `to`, and its further levels become `to_unit`s, when all of them
/// start with `from`.
pub(crate) fn reindent(value: &str, from: (&str, &str), to: (&str, &str)) -> String {
    let ((from, from_unit), (to, to_unit)) = (from, to);
    let mut lines = value.split('\n');
    let first = lines.next().unwrap_or_default();
    let rest: Vec<&str> = lines.collect();
    if rest.iter().any(|l| !l.is_empty() && !l.starts_with(from)) {
        return value.to_owned();
    }
    let mut out = first.to_owned();
    for line in rest {
        out.push('\n');
        if line.is_empty() {
            continue;
        }
        let mut line = &line[from.len()..];
        out.push_str(to);
        while !from_unit.is_empty() && from_unit != to_unit && line.starts_with(from_unit) {
            out.push_str(to_unit);
            line = &line[from_unit.len()..];
        }
        out.push_str(line);
    }
    out
}

/// The indentation of the line `at` is on.
pub(crate) fn indentation_at(text: &str, at: usize) -> &str {
    let start = text[..at].rfind('\n').map_or(0, |n| n + 1);
    let line = &text[start..];
    &line[..line.len() - line.trim_start_matches([' ', '\t']).len()]
}

#[cfg(test)]
mod tests {
    use super::super::jsonc::{blank, object_at};
    use super::*;

    fn rewritten(text: &str, items: &[Item]) -> String {
        let blanked = blank(text, true).unwrap();
        let object = object_at(&blanked, 0).unwrap();
        let layout = Style::of(text, &object, &unit(text, &object));
        rewrite(text, &blanked, &object, items, &layout)
    }

    #[test]
    fn kept_members_keep_their_separators_and_comments() {
        let text = "{\n  // first\n  \"a\": 1,\n  // second\n  \"b\": 2, // two\n  \"c\": 3\n}";
        let out = rewritten(text, &[Item::Keep(0), Item::Keep(2)]);
        assert_eq!(out, "{\n  // first\n  \"a\": 1,\n  \"c\": 3\n}");
        let out = rewritten(
            text,
            &[Item::New("\"toon\": {}".into(), Some(1)), Item::Keep(2)],
        );
        assert_eq!(out, "{\n  \"toon\": {},\n  \"c\": 3\n}");
        // A comment on the brace's line is the object's: it stays.
        let braced = "{ // servers\n  // a\n  \"a\": 1,\n  \"b\": 2\n}";
        let out = rewritten(
            braced,
            &[Item::New("\"t\": 0".into(), Some(0)), Item::Keep(1)],
        );
        assert_eq!(out, "{ // servers\n  \"t\": 0,\n  \"b\": 2\n}");
        let out = rewritten(braced, &[Item::Keep(1)]);
        assert_eq!(out, "{ // servers\n  \"b\": 2\n}");
        let all = [Item::Keep(0), Item::Keep(1), Item::Keep(2)];
        assert_eq!(rewritten(text, &all), text);
    }

    #[test]
    fn new_members_take_the_objects_layout() {
        let out = rewritten(
            "{\"a\": 1}",
            &[Item::Keep(0), Item::New("\"b\": 2".into(), None)],
        );
        assert_eq!(out, "{\"a\": 1, \"b\": 2}");
        let out = rewritten(
            "{\n    \"a\": 1\n}",
            &[Item::Keep(0), Item::New("\"b\": 2".into(), None)],
        );
        assert_eq!(out, "{\n    \"a\": 1,\n    \"b\": 2\n}");
        let out = rewritten("{\n}", &[Item::New("\"b\": 2".into(), None)]);
        assert_eq!(out, "{\n  \"b\": 2\n}");
        assert_eq!(rewritten("{\"a\": 1}", &[]), "{}");
        // A trailing comma (JSONC) is not needed after the new member.
        let out = rewritten(
            "{\n  \"a\": 1,\n}",
            &[Item::Keep(0), Item::New("\"b\": 2".into(), None)],
        );
        assert_eq!(out, "{\n  \"a\": 1,\n  \"b\": 2\n}");
        // A comment on the last member's line stays on it.
        let out = rewritten(
            "{\n  \"a\": 1 // one\n}",
            &[Item::Keep(0), Item::New("\"b\": 2".into(), None)],
        );
        assert_eq!(out, "{\n  \"a\": 1, // one\n  \"b\": 2\n}");
        // Dropped with the member it follows.
        let out = rewritten("{\n  \"a\": 1,\n  \"b\": 2 // two\n}", &[Item::Keep(0)]);
        assert_eq!(out, "{\n  \"a\": 1\n}");
    }

    #[test]
    fn values_move_to_another_indentation() {
        let value = "{\n      \"command\": \"x\"\n    }";
        assert_eq!(
            reindent(value, ("    ", "  "), ("  ", "  ")),
            "{\n    \"command\": \"x\"\n  }"
        );
        let tabs = "{\n\t\t\t\"env\": {\n\t\t\t\t\"K\": \"v\"\n\t\t\t}\n\t\t}";
        assert_eq!(
            reindent(tabs, ("\t\t", "\t"), ("    ", "  ")),
            "{\n      \"env\": {\n        \"K\": \"v\"\n      }\n    }"
        );
        assert_eq!(
            reindent("{\n\"a\": 1\n}", ("  ", "  "), ("", "  ")),
            "{\n\"a\": 1\n}"
        );
        assert_eq!(indentation_at("{\n   \"a\"", 6), "   ");
    }
}
