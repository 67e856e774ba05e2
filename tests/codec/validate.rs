//! `toon::validate` (issue #36, item 3): every problem of a document in one run. Errors are
//! the decoder's (the first one is exactly `from_str`'s), valid documents get none, and
//! independent errors seeded into generated documents are all found, each once.

use crate::common;

use toon::{DecodeOptions, Diagnostic, Severity, Value};

fn errors(found: &[Diagnostic]) -> Vec<&Diagnostic> {
    found
        .iter()
        .filter(|d| d.severity() == Severity::Error)
        .collect()
}

/// On every fixture, strict and not: a text the decoder accepts has no error; one it
/// refuses has errors, the first of them the decoder's, at its line and column.
#[test]
fn fixtures_are_judged_as_the_decoder_judges_them() {
    let all = common::all_decode_cases();
    let mut failures = Vec::new();
    for (name, input, options) in &all {
        for options in [
            options.clone(),
            options.clone().strict(!options.is_strict()),
        ] {
            let found = toon::validate_with(input, &options);
            let errors = errors(&found);
            match toon::from_str_with::<Value>(input, &options) {
                Ok(_) if errors.is_empty() => {}
                Ok(_) => failures.push(format!("{name}: {errors:?}")),
                Err(err) => match errors.first() {
                    Some(d)
                        if (d.line(), d.column(), d.message())
                            == (err.line(), err.column(), err.message()) => {}
                    _ => failures.push(format!("{name}: {err} but {errors:?}")),
                },
            }
        }
    }
    for f in &failures {
        eprintln!("FAIL {f}");
    }
    assert!(failures.is_empty(), "{} failures", failures.len());
}

#[test]
fn data_sets_have_no_diagnostic() {
    for (name, text) in common::dataset_texts() {
        assert_eq!(toon::validate(&text), [], "{name}");
    }
}

/// One section of a generated document, and the errors that can be seeded into it.
fn section(i: usize, fault: Option<usize>) -> (String, Option<usize>) {
    // Lines of the section, and the index of the line its fault is reported on.
    let mut lines: Vec<String> = vec![
        format!("s{i}:"),
        format!("  name: n{i}"),
        "  rows[3]{id,name}:".into(),
        "    1,a".into(),
        "    2,b".into(),
        "    3,c".into(),
        "  tags[2]: x,y".into(),
        "  items[2]:".into(),
        "    - k: 1".into(),
        "      v: one".into(),
        "    - k: 2".into(),
    ];
    let at = fault.map(|kind| match kind {
        0 => {
            lines[4] = "    2,b,extra".into(); // row width
            4
        }
        1 => {
            lines[1] = format!("  name: \"n{i}\\q\""); // bad escape
            1
        }
        2 => {
            lines.insert(2, format!("  name: again{i}")); // duplicate key
            2
        }
        3 => {
            lines[6] = "\ttags[2]: x,y".into(); // tab indentation
            6
        }
        4 => {
            lines[9] = "      just text".into(); // missing colon
            9
        }
        5 => {
            lines.insert(4, String::new()); // blank line inside a table
            4
        }
        6 => {
            lines[2] = "  rows[4]{id,name}:".into(); // declared count: reported on the last row
            5
        }
        7 => {
            lines[1] = format!("  name: \"n{i}"); // unterminated quote
            1
        }
        8 => {
            lines[2] = "  rows[3|]{id,name}:".into(); // delimiter mismatch in the header
            2
        }
        9 => {
            lines.push("    - k: 3".into()); // one list item more than declared
            11
        }
        _ => {
            lines[6] = "  tags[3]: x,y".into(); // inline count
            6
        }
    });
    (lines.join("\n"), at)
}

/// Several independent errors seeded into generated documents: one run finds every one of
/// them, at its line, and nothing else.
#[test]
fn seeded_errors_are_all_found_in_one_run() {
    let mut next = common::rng(0x51ed_2701);
    for round in 0..300 {
        let sections = 4 + next(8);
        let mut text = String::new();
        let mut expected = Vec::new();
        for i in 0..sections {
            let fault = (next(3) != 0).then(|| next(11));
            let (body, at) = section(i, fault);
            let first = text.lines().count() + 1;
            if let Some(at) = at {
                expected.push(first + at);
            }
            text.push_str(&body);
            text.push('\n');
        }
        let found = toon::validate(&text);
        let mut lines: Vec<usize> = errors(&found).iter().map(|d| d.line()).collect();
        lines.sort_unstable();
        assert_eq!(lines, expected, "round {round}:\n{text}\n{found:#?}");
        // The first is the decoder's.
        if let Err(err) = toon::from_str::<Value>(&text) {
            assert_eq!(err.line(), expected[0], "{text}");
        }
    }
}

#[test]
fn warnings_for_json_keys_json_documents_and_trailing_spaces() {
    let found = toon::validate("{\"a\": 1, \"b\": [1, 2]}");
    assert_eq!(found.len(), 2, "{found:#?}");
    assert!(
        found[0].message().contains("this document is JSON"),
        "{found:#?}"
    );
    assert!(found[1].message().contains("looks like JSON"), "{found:#?}");
    assert!(found.iter().all(|d| d.severity() == Severity::Warning));
    // The first line's BOM is no column, nor part of the line quoted.
    let found = toon::validate("\u{feff}{a}: 1");
    assert_eq!((found[0].line(), found[0].column()), (1, 1), "{found:#?}");
    assert_eq!(found[0].source_line(), "{a}: 1");
    let found = toon::validate("a: 1  \nb: 2");
    assert_eq!((found[0].line(), found[0].column()), (1, 5));
    assert_eq!(found[0].message(), "trailing spaces");
    assert!(
        toon::validate("[]").is_empty(),
        "JSON that means the same as TOON"
    );
}

/// A summary a model can act on; rendering with a caret.
#[test]
fn summaries_and_rendering() {
    let text = "users[2]{id,name}:\n  1,Ada\n  2,Bob,admin\nusers: again";
    let found = toon::validate(text);
    let summary = Diagnostic::summary(&found);
    assert!(summary.starts_with("The TOON has 2 errors."), "{summary}");
    assert!(
        summary.contains("Line 3, column 3: expected 2 cells, found 3 (in `2,Bob,admin`)"),
        "{summary}"
    );
    assert!(summary.ends_with("Fix each error and send the whole document again."));
    assert_eq!(
        found[0].to_string(),
        "line 3, column 3: error: expected 2 cells, found 3\n    2,Bob,admin\n    ^"
    );
}

/// Random and mutated texts: the validator never panics, and its first error is the
/// decoder's.
#[test]
fn mutated_texts_first_error_is_the_decoders() {
    let dir = common::datasets_dir();
    let base = std::fs::read_to_string(dir.join("nested-config.toon")).unwrap();
    let mut next = common::rng(0x2545_f491);
    for _ in 0..2000 {
        let mut bytes = base.clone().into_bytes();
        for _ in 0..1 + next(4) {
            let at = next(bytes.len() + 1);
            let piece: &[u8] = [
                &b"\n"[..],
                b"  ",
                b"\t",
                b":",
                b",",
                b"\"",
                b"[9]",
                b"- ",
                b"x",
            ][next(9)];
            bytes.splice(at..at, piece.iter().copied());
        }
        let Ok(text) = String::from_utf8(bytes) else {
            continue;
        };
        let options = DecodeOptions::new().strict(next(2) == 0);
        let found = toon::validate_with(&text, &options);
        let errors = errors(&found);
        match toon::from_str_with::<Value>(&text, &options) {
            Ok(_) => assert!(errors.is_empty(), "{text}\n{errors:#?}"),
            Err(err) => {
                let first = errors.first().unwrap_or_else(|| panic!("{text}: {err}"));
                assert_eq!(
                    (first.line(), first.column(), first.message()),
                    (err.line(), err.column(), err.message()),
                    "{text}"
                );
            }
        }
    }
}
