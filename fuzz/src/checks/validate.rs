//! `toon::validate_with` against the decoder: it finds an error exactly when
//! `toon::from_str_with` fails, its first error is the decoder's (line, column, message), and
//! every diagnostic stands on a line of the text, quoting that line.

use toon::{Diagnostic, Severity, Value};

use super::input::{assert_within, lines, split};

/// Checks the validator on one input.
pub fn check(data: &[u8]) {
    let Some(input) = split(data) else {
        return;
    };
    let Ok(text) = std::str::from_utf8(input.text) else {
        return;
    };
    let found = toon::validate_with(text, &input.options);
    let decoded = toon::from_str_with::<Value>(text, &input.options);
    let first_error = found.iter().find(|d| d.severity() == Severity::Error);
    match (&decoded, first_error) {
        (Ok(_), None) => {}
        (Err(err), Some(d)) => assert_eq!(
            (d.line(), d.column(), d.message()),
            (err.line(), err.column(), err.message()),
            "the first error is not the decoder's in {text:?}"
        ),
        (Ok(_), Some(d)) => panic!("validate finds {d} in text that decodes: {text:?}"),
        (Err(err), None) => panic!("the decoder says {err}, validate finds no error: {text:?}"),
    }
    let lines = lines(text);
    for d in &found {
        if d.line() == 0 {
            // The document as a whole.
            assert_eq!(d.column(), 0, "{d}");
            continue;
        }
        assert_within(text, d.line(), d.column(), d);
        let line = lines[d.line() - 1];
        let line = if d.line() == 1 {
            line.strip_prefix('\u{feff}').unwrap_or(line)
        } else {
            line
        };
        assert_eq!(d.source_line(), line, "{d} quotes another line of {text:?}");
        let _ = d.to_string();
    }
    let _ = Diagnostic::summary(&found);
}
