//! The `toon` command line: conversions both ways, options, stats, and errors.
// A test reads as a script: some run past the 80 lines a function is held to.
#![allow(clippy::too_many_lines)]

mod common;

use std::io::Write;
use std::process::{Command, Output, Stdio};

fn toon(args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_toon"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The child may exit without reading stdin (a missing file, a bad flag): a broken pipe
    // here is expected then, and the exit status tells the rest. Written from a thread of its
    // own: a child that writes as it reads (`toon -d` of a large input) would otherwise fill
    // its output pipe while this side still writes.
    let mut input = child.stdin.take().unwrap();
    let text = stdin.to_owned();
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(text.as_bytes());
    });
    let output = child.wait_with_output().unwrap();
    writer.join().unwrap();
    output
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

#[test]
fn standard_input_encodes_unless_decoding_is_asked() {
    let o = toon(
        &[],
        r#"{"users":[{"id":1,"name":"Ada"},{"id":2,"name":"Bob"}]}"#,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o), "users[2]{id,name}:\n  1,Ada\n  2,Bob\n");
}

#[test]
fn decodes_toon_to_json_keeping_key_order() {
    let o = toon(&["-d", "-"], "b: 1\na[2]: x,y");
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        "{\n  \"b\": 1,\n  \"a\": [\n    \"x\",\n    \"y\"\n  ]\n}\n"
    );
}

#[test]
fn delimiter_and_indent_options() {
    let o = toon(
        &["-e", "--delimiter", "pipe", "--indent", "4"],
        r#"{"a":{"t":[1,2]}}"#,
    );
    assert_eq!(stdout(&o), "a:\n    t[2|]: 1|2\n");
    let o = toon(&["--encode", "--delimiter=\t"], "[1,2]");
    assert_eq!(stdout(&o), "[2\t]: 1\t2\n");
}

#[test]
fn strict_and_lenient_decoding() {
    let o = toon(&["-d"], "tags[3]: a,b");
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("line 1, column"), "{}", stderr(&o));
    let o = toon(&["-d", "--no-strict"], "tags[3]: a,b");
    assert!(o.status.success());
}

#[test]
fn files_and_output_by_extension() {
    let dir = scratch("files");
    let json = dir.join("in.json");
    let out = dir.join("out.toon");
    std::fs::write(&json, r#"{"k":[{"a":1},{"a":2}]}"#).unwrap();
    let o = toon(&[json.to_str().unwrap(), "-o", out.to_str().unwrap()], "");
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        std::fs::read_to_string(&out).unwrap(),
        "k[2]{a}:\n  1\n  2\n"
    );
    assert!(stderr(&o).contains("Encoded"), "{}", stderr(&o));
    let o = toon(&[out.to_str().unwrap()], "");
    assert_eq!(
        stdout(&o),
        "{\n  \"k\": [\n    {\n      \"a\": 1\n    },\n    {\n      \"a\": 2\n    }\n  ]\n}\n"
    );
}

#[test]
fn stats_report_bytes_and_tokens() {
    let o = toon(
        &["--stats"],
        r#"{"rows":[{"id":1,"name":"a"},{"id":2,"name":"b"}]}"#,
    );
    assert!(o.status.success());
    let err = stderr(&o);
    assert!(err.contains("Token estimates: ~"), "{err}");
    assert!(err.contains("(JSON) → ~"), "{err}");
    assert!(err.contains("Saved ~"), "{err}");
    assert!(err.contains("Bytes: 50 (JSON) → "), "{err}");
}

/// `--stats`'s token lines for `json`: (JSON estimate, TOON estimate, the line after them).
fn token_stats(json: &str) -> (usize, usize, String) {
    let o = toon(&["--stats"], json);
    assert!(o.status.success(), "{}", stderr(&o));
    let err = stderr(&o);
    let mut lines = err.lines();
    let estimates = lines.next().unwrap();
    let counts = estimates
        .strip_prefix("Token estimates: ~")
        .and_then(|rest| rest.strip_suffix(" (TOON)"))
        .and_then(|rest| rest.split_once(" (JSON) → ~"))
        .unwrap_or_else(|| panic!("{err}"));
    let (json_tokens, toon_tokens) = (counts.0.parse().unwrap(), counts.1.parse().unwrap());
    (json_tokens, toon_tokens, lines.next().unwrap().to_owned())
}

#[test]
fn stats_say_saved_or_costs_more_with_positive_numbers() {
    // A table: TOON is smaller. The official CLI's words, every number positive.
    let rows: Vec<String> = (0..40)
        .map(|i| format!(r#"{{"id":{i},"name":"user{i}","active":true}}"#))
        .collect();
    let (json, toon_n, line) = token_stats(&format!(r#"{{"rows":[{}]}}"#, rows.join(",")));
    assert!(toon_n < json, "{json} → {toon_n}");
    let saved = json - toon_n;
    let percent = saved as f64 / json as f64 * 100.0;
    assert_eq!(line, format!("Saved ~{saved} tokens ({percent:.1}%)"));

    // Nested arrays of arrays: TOON is larger. A cost, said as one, numbers positive.
    let nested: Vec<String> = (0..20)
        .map(|i| format!(r#"[[{i},[{i},[{i}]]],[{{"k":[1,[2]]}}]]"#))
        .collect();
    let (json, toon_n, line) = token_stats(&format!("[{}]", nested.join(",")));
    assert!(toon_n > json, "{json} → {toon_n}");
    let more = toon_n - json;
    let percent = more as f64 / json as f64 * 100.0;
    assert_eq!(line, format!("Costs ~{more} more tokens ({percent:.1}%)"));
    assert!(!line.contains(['-', '+']), "{line}");
}

#[test]
fn bad_input_and_bad_flags_fail_cleanly() {
    let o = toon(&["-e"], "{not json");
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("invalid JSON"));
    let o = toon(&["--delimiter", ";"], "{}");
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("invalid delimiter"));
    let o = toon(&["/no/such/file.json"], "");
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("cannot read"));
    let o = toon(&["-d"], "a:\n  b: \"x\n");
    assert_eq!(o.status.code(), Some(1));
    assert!(!stderr(&o).contains("panicked"));
}

#[test]
fn tokens_prints_one_integer_for_the_text_as_given() {
    let o = toon(&["--tokens"], "users[2]{id,name}:\n  1,Alice\n  2,Bob");
    assert!(o.status.success());
    assert_eq!(
        stdout(&o).trim(),
        toon::tokens::estimate("users[2]{id,name}:\n  1,Alice\n  2,Bob").to_string()
    );
    let o = toon(&["--tokens", "--exact"], "hello world");
    if cfg!(feature = "tiktoken") {
        assert_eq!(stdout(&o).trim(), "2");
    } else {
        assert!(!o.status.success());
        assert!(stderr(&o).contains("tiktoken"));
    }
}

#[test]
fn fields_and_exclude_project_and_report_unknown_paths() {
    let json = r#"{"users":[{"id":1,"name":"a","email":"x"},{"id":2,"name":"b","email":"y"}]}"#;
    let o = toon(&["--fields", "users.id,users.name"], json);
    assert_eq!(stdout(&o), "users[2]{id,name}:\n  1,a\n  2,b\n");
    let o = toon(&["--exclude=users.email"], json);
    assert_eq!(stdout(&o), "users[2]{id,name}:\n  1,a\n  2,b\n");
    let o = toon(&["--fields", "users.mail"], json);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("unknown field path `users.mail`; fields at `users`: email, id, name")
    );
}

#[test]
fn tabularize_auto_and_budget() {
    let json = r#"{"logs":[{"a":1,"e":{"m":"x"}},{"a":2}]}"#;
    let o = toon(&["--tabularize"], json);
    assert_eq!(stdout(&o), "logs[2]{a,e{m}}:\n  1,x\n  2,null\n");
    assert!(stderr(&o).contains("1 objects folded"));

    let deep = r#"{"a":{"b":{"c":[1,{"d":[{"e":1},2]}]}}}"#;
    let o = toon(&["--auto"], deep);
    assert_eq!(stdout(&o).trim_end(), deep);
    assert!(stderr(&o).starts_with("auto: chose compact JSON"));

    let rows: Vec<String> = (0..200)
        .map(|i| format!(r#"{{"id":{i},"n":"row"}}"#))
        .collect();
    let big = format!(r#"{{"rows":[{}]}}"#, rows.join(","));
    let o = toon(&["--budget", "50"], &big);
    assert!(o.status.success());
    let out = stdout(&o);
    assert!(toon::tokens::estimate(out.trim_end()) <= 50, "{out}");
    assert!(stderr(&o).contains("elided: /rows: first"));
    let back: toon::Value = toon::from_str(out.trim_end()).unwrap();
    assert!(back["rows"].as_array().unwrap().len() < 200);
}

#[test]
fn encode_and_decode_together_is_an_error() {
    let o = toon(&["-e", "-d"], "{}");
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("cannot be used with"), "{}", stderr(&o));
}

/// The mode follows the flags and the extension, never the content: what is not valid JSON
/// is an error with its position, not a TOON document holding one string.
#[test]
fn malformed_json_on_standard_input_is_an_error_with_its_position() {
    for (json, at) in [
        (r#"{"a":1,}"#, "line 1 column 8"),
        ("[1,2,]", "line 1 column 6"),
        ("a: 1", "line 1 column 1"),
        ("[1,\n2\n", "line 3 column 0"),
    ] {
        let o = toon(&[], json);
        assert_eq!(o.status.code(), Some(1), "{json}");
        assert!(stdout(&o).is_empty(), "{json}: {}", stdout(&o));
        let err = stderr(&o);
        assert!(
            err.contains("invalid JSON") && err.contains(at),
            "{json}: {err}"
        );
    }
    let dir = scratch("mode");
    let named = dir.join("data.txt");
    std::fs::write(&named, "key: value").unwrap();
    let o = toon(&[named.to_str().unwrap()], "");
    assert_eq!(o.status.code(), Some(1), "other extensions encode too");
    let o = toon(&["-d", named.to_str().unwrap()], "");
    assert_eq!(stdout(&o), "{\n  \"key\": \"value\"\n}\n");
}

#[test]
fn a_byte_order_mark_before_json_is_skipped() {
    let o = toon(&[], "\u{feff}{\"a\":[1,2]}");
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o), "a[2]: 1,2\n");
    let dir = scratch("bom");
    let file = dir.join("bom.json");
    std::fs::write(&file, "\u{feff}[{\"x\":1}]").unwrap();
    let o = toon(&[file.to_str().unwrap(), "--stats"], "");
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o), "[1]{x}:\n  1\n");
    let o = toon(&["-d"], "\u{feff}a: 1");
    assert_eq!(stdout(&o), "{\n  \"a\": 1\n}\n");
}

#[test]
fn empty_input_encodes_to_an_error_and_decodes_to_an_empty_object() {
    for args in [&[][..], &["-e"], &["--stats"], &["--fields", "a"]] {
        let o = toon(args, "");
        assert_eq!(o.status.code(), Some(1), "{args:?}");
        assert!(stderr(&o).contains("empty input"), "{}", stderr(&o));
    }
    for args in [&["-d"][..], &["-d", "--no-strict"]] {
        let o = toon(args, "");
        assert!(o.status.success(), "{}", stderr(&o));
        assert_eq!(stdout(&o), "{}\n");
    }
}

#[test]
fn meaningless_flag_combinations_are_refused() {
    for (args, conflict) in [
        (
            &["-e", "-d"][..],
            "'--encode' cannot be used with '--decode'",
        ),
        (&["--exact"], "--tokens"),
        (
            &["--tokens", "--fields", "a"],
            "'--tokens' cannot be used with '--fields",
        ),
        (
            &["--tokens", "--stats"],
            "'--tokens' cannot be used with '--stats'",
        ),
        (
            &["--tokens", "-d"],
            "'--tokens' cannot be used with '--decode'",
        ),
        (
            &["--auto", "--delimiter", "|"],
            "'--auto' cannot be used with '--delimiter",
        ),
        (&["--indent", "0"], "--indent 0 applies to decoding"),
        (&["--indent", "33"], "invalid indent"),
    ] {
        let o = toon(args, "{}");
        assert_eq!(o.status.code(), Some(1), "{args:?}");
        assert!(stderr(&o).contains(conflict), "{args:?}: {}", stderr(&o));
    }
}

#[test]
fn verbose_prints_the_cause() {
    let o = toon(&["/no/such/file.json", "--verbose"], "");
    let err = stderr(&o);
    assert!(err.contains("cannot read /no/such/file.json"), "{err}");
    assert!(err.contains("kind: NotFound"), "{err}");
    let o = toon(&["/no/such/file.json"], "");
    assert!(!stderr(&o).contains("NotFound"));
    let o = toon(&["-d", "--verbose"], "a[2]: 1");
    assert!(stderr(&o).contains("Error(Syntax"), "{}", stderr(&o));
}

#[cfg(feature = "mcp")]
#[test]
fn verbose_prints_the_cause_of_an_mcp_error_too() {
    let o = toon(&["mcp", "catalog", "--verbose"], "{\"tools\": 1}");
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("toon: error: <stdin>: "), "{err}");
    assert!(err.contains("\n  error: "), "{err}");
    let o = toon(&["mcp", "result", "--verbose"], "{\"a\":");
    let err = stderr(&o);
    assert!(
        err.contains("invalid JSON") && err.contains("\n  error: Error("),
        "{err}"
    );
}

#[test]
fn decoded_numbers_are_written_as_javascript_writes_them() {
    let o = toon(
        &["-d", "--indent", "0"],
        "a: 1.0\nb[5]: 0.000001,1e21,-0,1.5e-7,123456789012345678\nc: 2.50",
    );
    assert!(o.status.success(), "{}", stderr(&o));
    // Integers past 2^53 keep their digits (JavaScript would print 123456789012345680).
    assert_eq!(
        stdout(&o),
        "{\"a\":1,\"b\":[0.000001,1e+21,0,1.5e-7,123456789012345678],\"c\":2.5}\n"
    );
}

#[test]
fn json_numbers_survive_encoding_exactly() {
    let o = toon(
        &["-e"],
        "[912068.5437784989,5e-324,1.7976931348623157e308,0.1]",
    );
    assert_eq!(
        stdout(&o),
        "[4]: 912068.5437784989,5e-324,1.7976931348623157e+308,0.1\n"
    );
    // Random doubles over every exponent: each comes back with the same bits.
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let doubles: Vec<f64> = std::iter::from_fn(|| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        Some(f64::from_bits(state))
    })
    .filter(|v| v.is_finite())
    .take(5_000)
    .collect();
    let o = toon(&["-e"], &serde_json::to_string(&doubles).unwrap());
    assert!(o.status.success(), "{}", stderr(&o));
    let back: Vec<f64> = toon::from_str(stdout(&o).trim_end()).unwrap();
    let changed = doubles
        .iter()
        .zip(&back)
        .filter(|(a, b)| a.to_bits() != b.to_bits() && !(**a == 0.0 && **b == 0.0))
        .count();
    assert_eq!((back.len(), changed), (doubles.len(), 0));
}

/// Every golden data set, decoded from its TOON to compact JSON, is byte for byte the JSON the
/// reference tools wrote (JavaScript's `JSON.stringify`), numbers included.
#[test]
fn decoding_the_golden_data_sets_reproduces_their_json() {
    let dir = common::datasets_dir();
    for name in common::DATASETS {
        let toon_file = dir.join(format!("{name}.toon"));
        let o = toon(&[toon_file.to_str().unwrap(), "--indent", "0"], "");
        assert!(o.status.success(), "{name}: {}", stderr(&o));
        let want = std::fs::read_to_string(dir.join(format!("{name}.json"))).unwrap();
        assert!(stdout(&o) == format!("{}\n", want.trim_end()), "{name}");
    }
}

#[test]
fn a_closed_pipe_ends_quietly() {
    let rows: Vec<String> = (0..50_000)
        .map(|i| format!(r#"{{"id":{i},"name":"row {i}"}}"#))
        .collect();
    let json = format!("[{}]", rows.join(","));
    let dir = scratch("pipe");
    let file = dir.join("big.json");
    std::fs::write(&file, &json).unwrap();
    let toon_file = dir.join("big.toon");
    std::fs::write(
        &toon_file,
        toon::to_string(&serde_json::from_str::<toon::Value>(&json).unwrap()).unwrap(),
    )
    .unwrap();
    for path in [&file, &toon_file] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_toon"))
            .arg(path)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut first = [0u8; 16];
        std::io::Read::read_exact(child.stdout.as_mut().unwrap(), &mut first).unwrap();
        drop(child.stdout.take());
        let o = child.wait_with_output().unwrap();
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        assert!(o.stderr.is_empty(), "{}", stderr(&o));
    }
}

#[test]
fn a_failed_conversion_leaves_no_output_file() {
    let dir = scratch("partial");
    let out = dir.join("out.json");
    let bad = format!("a[3]: 1,2,3\nb:\n  c[2]: 1\n{}", "d: 1\n".repeat(100));
    let o = toon(&["-d", "-o", out.to_str().unwrap()], &bad);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("line 3, column"), "{}", stderr(&o));
    assert!(!out.exists());
}

#[test]
fn a_budget_that_cannot_be_met_is_reported() {
    let o = toon(
        &["--budget", "3"],
        r#"{"a":"one two three four five six","b":[1,2]}"#,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("budget 3 not met: the smallest fitting value is ~"),
        "{}",
        stderr(&o)
    );
}

#[cfg(unix)]
#[test]
fn a_file_name_that_is_not_utf8_is_reported_like_any_other() {
    use std::os::unix::ffi::OsStrExt;
    let name = std::ffi::OsStr::from_bytes(b"/no/such/bad\xff.toon");
    let o = Command::new(env!("CARGO_BIN_EXE_toon"))
        .arg(name)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("cannot read /no/such/bad\u{fffd}.toon"),
        "{err}"
    );
}

/// A fresh folder for one test's files, removed with everything in it when the test ends,
/// passed or failed (the guard drops while a failed assertion unwinds).
struct Scratch(std::path::PathBuf);

impl std::ops::Deref for Scratch {
    type Target = std::path::Path;

    fn deref(&self) -> &std::path::Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn scratch(name: &str) -> Scratch {
    let dir = std::env::temp_dir().join(format!("toon-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    Scratch(dir)
}

#[cfg(feature = "mcp")]
mod mcp {
    use super::{stderr, stdout, toon};
    use toon::mcp::{Catalog, Grouping};

    const LISTS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/mcp/lists");

    fn list(name: &str) -> String {
        format!("{LISTS}/{name}.json")
    }

    #[test]
    fn catalog_views() {
        let o = toon(&["mcp", "catalog", &list("git")], "");
        assert!(o.status.success(), "{}", stderr(&o));
        let out = stdout(&o);
        assert!(out.starts_with("# params:"), "{out}");
        assert!(
            out.contains("git[12]{name,description,params}:\n git_status,"),
            "{out}"
        );
        let o = toon(
            &[
                "mcp",
                "catalog",
                "--view",
                "categories",
                "--group",
                "effect",
                &list("memory"),
            ],
            "",
        );
        assert!(
            stdout(&o).starts_with("categories[3]{name,tools,description}:"),
            "{}",
            stdout(&o)
        );
        let o = toon(
            &["mcp", "catalog", "--view", "lean"],
            &std::fs::read_to_string(list("time")).unwrap(),
        );
        assert!(
            stdout(&o).starts_with("2 tools from 1 server (stdin 2)."),
            "{}",
            stdout(&o)
        );
        let o = toon(
            &[
                "mcp",
                "catalog",
                "--category",
                "read-only",
                "--group",
                "effect",
                &list("git"),
            ],
            "",
        );
        assert!(
            stdout(&o).contains("git_log") && !stdout(&o).contains("git_commit"),
            "{}",
            stdout(&o)
        );
    }

    /// The table views the command prints, as (arguments after the file, the library's view).
    fn table_views(catalog: &Catalog, server: &str) -> Vec<(Vec<&'static str>, String)> {
        let mut views = vec![(vec![], catalog.full().unwrap())];
        for (group, grouping) in [
            ("server", Grouping::Server),
            ("prefix", Grouping::Prefix),
            ("effect", Grouping::Effect),
        ] {
            views.push((
                vec!["--view", "categories", "--group", group],
                catalog.categories(grouping).unwrap(),
            ));
        }
        views.push((
            vec!["--category", "SERVER"],
            catalog.full_in(server, Grouping::Server).unwrap(),
        ));
        views
    }

    #[test]
    fn every_view_decodes_as_its_docs_say() {
        let mut files: Vec<_> = std::fs::read_dir(LISTS)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        assert_eq!(files.len(), 7);
        for file in files {
            let path = file.to_str().unwrap();
            let server = file.file_stem().unwrap().to_str().unwrap();
            let text = std::fs::read_to_string(&file).unwrap();
            let catalog = Catalog::from_json(&text, server).unwrap();
            for (args, view) in table_views(&catalog, server) {
                let args: Vec<&str> = args
                    .into_iter()
                    .map(|a| if a == "SERVER" { server } else { a })
                    .collect();
                let o = toon(&[&["mcp", "catalog", path][..], &args].concat(), "");
                assert!(o.status.success(), "{args:?}: {}", stderr(&o));
                assert_eq!(stdout(&o), format!("{view}\n"), "{server} {args:?}");
                // Strict, one space a level: the library's options, or `toon -d --indent 1`.
                let value: toon::Value =
                    toon::from_str_with(&view, &toon::mcp::table_decode_options()).unwrap();
                let o = toon(&["-d", "--indent", "1"], &stdout(&o));
                assert!(o.status.success(), "{server} {args:?}: {}", stderr(&o));
                let json: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
                assert_eq!(json, serde_json::to_value(&value).unwrap(), "{args:?}");
            }
            // describe --toon: the definition, as TOON with the default options.
            for tool in catalog.tools() {
                let o = toon(&["mcp", "describe", tool.name(), path, "--toon"], "");
                assert!(o.status.success(), "{}: {}", tool.name(), stderr(&o));
                let shown: toon::Value = toon::from_str(stdout(&o).trim_end()).unwrap();
                assert_eq!(&shown, tool.definition().unwrap(), "{}", tool.name());
            }
        }
    }

    #[test]
    fn catalog_of_several_servers_from_one_object() {
        let a = std::fs::read_to_string(list("time")).unwrap();
        let b = std::fs::read_to_string(list("fetch")).unwrap();
        let o = toon(
            &["mcp", "catalog", "--view", "lean"],
            &format!(r#"{{"t": {a}, "f": {b}}}"#),
        );
        assert!(
            stdout(&o).starts_with("3 tools from 2 servers (t 2, f 1)."),
            "{}",
            stdout(&o)
        );
    }

    #[test]
    fn describe_prints_the_original_bytes() {
        let o = toon(&["mcp", "describe", "git_status", &list("git")], "");
        assert!(o.status.success(), "{}", stderr(&o));
        let text = std::fs::read_to_string(list("git")).unwrap();
        assert!(text.contains(stdout(&o).trim_end()));
        let o = toon(&["mcp", "describe", "git_stat", &list("git")], "");
        assert_eq!(o.status.code(), Some(1));
        assert!(
            stderr(&o).contains("did you mean git_status"),
            "{}",
            stderr(&o)
        );
    }

    #[test]
    fn result_converts_and_reports() {
        let rows: Vec<String> = (0..30)
            .map(|i| format!(r#"{{"id":{i},"name":"n{i}"}}"#))
            .collect();
        let text = format!("{{\n  \"rows\": [\n    {}\n  ]\n}}", rows.join(",\n    "));
        let result = serde_json::json!({"content": [{"type": "text", "text": text}], "structuredContent": {"x": 1}});
        let o = toon(
            &["mcp", "result", "--structured", "drop"],
            &result.to_string(),
        );
        assert!(o.status.success(), "{}", stderr(&o));
        let out: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
        assert!(
            out["content"][0]["text"]
                .as_str()
                .unwrap()
                .starts_with("rows[30]{id,name}:")
        );
        assert!(out.get("structuredContent").is_none());
        assert!(
            stderr(&o).starts_with("1 results: 1 converted"),
            "{}",
            stderr(&o)
        );
        let o = toon(
            &["mcp", "result", "--fields", "rows.id", "--format", "json"],
            &result.to_string(),
        );
        let out: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
        assert!(
            out["content"][0]["text"]
                .as_str()
                .unwrap()
                .starts_with(r#"{"rows":[{"id":0},"#)
        );
    }

    #[test]
    fn result_prints_untouched_bytes_as_they_came() {
        let rows: Vec<String> = (0..30)
            .map(|i| format!(r#"{{"id":{i},"name":"n{i}"}}"#))
            .collect();
        let text = serde_json::to_string(&format!("[{}]", rows.join(", "))).unwrap();
        let rest =
            "\"structuredContent\": {\n    \"big\": 1234567890123456789012,\n    \"e\": 1E2\n  }";
        let input = format!(
            "{{\n  \"content\": [{{\"type\": \"text\", \"text\": {text}}}],\n  {rest}\n}}\n"
        );
        let o = toon(&["mcp", "result"], &input);
        assert!(o.status.success(), "{}", stderr(&o));
        let out = stdout(&o);
        assert!(out.contains(rest), "{out}");
        assert!(
            out.starts_with("{\n  \"content\": [{\"type\": \"text\", \"text\": \"[30]{id,name}:"),
            "{out}"
        );
        assert!(out.ends_with("}\n") && !out.ends_with("\n\n"), "{out:?}");
        let parsed: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(
            parsed["_meta"]["rs.toon-codec/conversion"]["format"],
            "toon"
        );
    }

    #[test]
    fn bad_input_is_a_clear_error() {
        for (args, input, message) in [
            (&["mcp", "result"][..], "{\"a\":", "invalid JSON"),
            (&["mcp", "result"][..], "[1]", "not a tools/call result"),
            (
                &["mcp", "catalog"][..],
                "[1]",
                "skipped a tool: not an object: 1",
            ),
            (
                &["mcp", "catalog"][..],
                "[{\"nam\": 1}]",
                "has no usable tool",
            ),
            (&["mcp", "catalog"][..], "{\"x\": 1}", "not a tool list"),
            (
                &["mcp", "catalog", "--view", "wide"][..],
                "[]",
                "invalid --view",
            ),
            (
                &["mcp", "result", "--format", "yaml"][..],
                "{}",
                "invalid --format",
            ),
        ] {
            let o = toon(args, input);
            assert_eq!(o.status.code(), Some(1), "{args:?}");
            assert!(stderr(&o).contains(message), "{args:?}: {}", stderr(&o));
            assert!(!stderr(&o).contains("panicked"));
        }
    }
}

/// The numbers whose digits serde_json's `u64`/`i64`/`f64` lose, and their §2 canonical text.
const EXACT: [(&str, &str); 7] = [
    ("18446744073709551616", "18446744073709551616"),
    ("-9223372036854775809", "-9223372036854775809"),
    ("1234567890123456789012", "1.234567890123456789012e+21"),
    (
        "0.1000000000000000055511151231257827",
        "0.1000000000000000055511151231257827",
    ),
    ("1e400", "1e+400"),
    ("-1e-400", "-1e-400"),
    (
        "123456789012345678901234567890",
        "1.2345678901234567890123456789e+29",
    ),
];

#[test]
fn json_numbers_keep_every_digit_in_every_position() {
    for (json, text) in EXACT {
        let input = format!(
            r#"{{"field":{json},"rows":[{{"a":{json},"b":1}},{{"a":2,"b":{json}}}],"inline":[1,{json}],"list":[[1],{json}]}}"#
        );
        let want = format!(
            "field: {text}\nrows[2]{{a,b}}:\n  {text},1\n  2,{text}\ninline[2]: 1,{text}\n\
             list[2]:\n  - [1]: 1\n  - {text}\n"
        );
        let o = toon(&["-e"], &input);
        assert!(o.status.success(), "{json}: {}", stderr(&o));
        assert_eq!(stdout(&o), want, "{json}");
        let o = toon(&["-e"], &format!(" {json}\n"));
        assert_eq!(stdout(&o), format!("{text}\n"), "{json} as the root");
        // --stats writes the same TOON.
        let o = toon(&["-e", "--stats"], &input);
        assert_eq!(stdout(&o), want, "{json} with --stats");
    }
    // A string that looks like one stays a string; a number that keeps its value is as ever.
    let o = toon(&["-e"], r#"["1e400", 1e21, 0.1, -0, 18446744073709551615]"#);
    assert_eq!(
        stdout(&o),
        "[5]: \"1e400\",1e+21,0.1,0,18446744073709551615\n"
    );
}

#[test]
fn exact_numbers_survive_a_round_trip() {
    for (json, text) in EXACT {
        let input = format!(r#"{{"a":{json},"t":[{{"x":{json}}},{{"x":1}}],"i":[{json},2]}}"#);
        let encoded = stdout(&toon(&["-e"], &input));
        let o = toon(&["-d", "--indent", "0"], &encoded);
        assert!(o.status.success(), "{json}: {}", stderr(&o));
        // A number beyond f64 is a string to a TOON decoder (§4, as the reference has it).
        let value = if json == "1e400" {
            format!("\"{text}\"")
        } else {
            text.to_owned()
        };
        assert_eq!(
            stdout(&o),
            format!(r#"{{"a":{value},"t":[{{"x":{value}}},{{"x":1}}],"i":[{value},2]}}"#) + "\n",
            "{json}"
        );
    }
}

#[test]
fn reshaping_routes_read_numbers_as_json_parse_does() {
    // `--fields`, `--tabularize`, `--budget`, `--auto` work on a `toon::Value`, whose numbers
    // are `u64`/`i64`/`f64`: a number beyond f64 is null there (JSON.parse's ±Infinity, §3).
    let o = toon(&["-e", "--fields", "a"], "{\"a\":1e400,\"b\":2}");
    assert_eq!(stdout(&o), "a: null\n");
    let o = toon(&["-e", "--fields", "a"], "{\"a\":18446744073709551616}");
    assert_eq!(stdout(&o), "a: 18446744073709552000\n");
    // Not silently: stderr names the first such number, where it is, and how many there are.
    let warned = stderr(&o);
    assert!(
        warned.contains("line 1, column 6: 18446744073709551616 has more digits")
            && warned.contains("plain `toon -e` keeps every digit"),
        "{warned}"
    );
    let o = toon(
        &["-e", "--fields", "a"],
        "{\"a\":[1e400,\n0.1000000000000000055511151231257827]}",
    );
    assert!(stderr(&o).contains("1e400 (and 1 more)"), "{}", stderr(&o));
    let o = toon(&["-e", "--fields", "a"], "{\"a\":[1.5, 2]}");
    assert_eq!(stderr(&o), "");
    // Errors keep their positions after the rewrite, on both routes.
    for args in [&["-e"][..], &["-e", "--fields", "a"]] {
        let o = toon(args, "[1e400, }");
        assert!(stderr(&o).contains("line 1 column 9"), "{}", stderr(&o));
    }
}

#[test]
fn every_json_the_cli_writes_prints_numbers_as_javascript_does() {
    // Deep enough that `--auto` picks compact JSON: its numbers as `JSON.stringify` writes
    // them, as `toon -d` does, not serde_json's `1.0`, `-0.0`.
    let deep = r#"{"a":{"b":{"c":{"d":[1.0,{"e":[{"f":-0.0},1e-7,2.50]}]}}}}"#;
    let o = toon(&["--auto"], deep);
    assert_eq!(
        stdout(&o).trim_end(),
        r#"{"a":{"b":{"c":{"d":[1,{"e":[{"f":0},1e-7,2.5]}]}}}}"#
    );
}

/// `toon -d` reads its input a line at a time (`toon::stream::transcode`); an output file
/// that is the input file itself is still read whole before it is overwritten.
#[test]
fn decoding_into_its_own_input_file_reads_it_first() {
    let dir = scratch("own-input");
    let file = dir.join("data.toon");
    std::fs::write(&file, "a[2]: 1,2\nb: x\n").unwrap();
    let path = file.to_str().unwrap();
    let o = toon(&["-d", path, "-o", path], "");
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        "{\n  \"a\": [\n    1,\n    2\n  ],\n  \"b\": \"x\"\n}\n"
    );
}

/// `toon --check`: one gcc-style line per problem, exit 1 on any error; nothing and exit 0
/// for a valid document.
#[test]
fn check_prints_every_problem_gcc_style() {
    let o = toon(&["--check"], "a: 1\nb[2]: x\nc: \"open\nd: 4\na: 5\n");
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stdout(&o),
        "<stdin>:2:7: error: expected 2 values, found 1\n\
         <stdin>:3:4: error: unterminated string: missing closing quote\n\
         <stdin>:5:1: error: duplicate key \"a\" (strict mode; non-strict keeps the last)\n"
    );
    assert_eq!(stderr(&o), "");
    let o = toon(&["--check"], "users[2]{id,name}:\n  1,Ada\n  2,Bob\n");
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o), "");
    let dir = scratch("check");
    let file = dir.join("doc.toon");
    std::fs::write(&file, "a: 1  \nb:\n\tc: 2\n").unwrap();
    let path = file.to_str().unwrap();
    let o = toon(&["--check", path], "");
    assert_eq!(o.status.code(), Some(1));
    let want = format!(
        "{path}:1:5: warning: trailing spaces\n\
         {path}:3:1: error: tabs are not allowed in indentation in strict mode\n"
    );
    assert_eq!(stdout(&o), want);
    let o = toon(&["--check", "--no-strict", path], "");
    assert!(o.status.success());
    assert_eq!(
        stdout(&o),
        format!("{path}:1:5: warning: trailing spaces\n")
    );
    let o = toon(&["--check", "-d"], "a: 1");
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("'--check' cannot be used with '--decode'"));
}

/// An input over 16 MiB is decoded a line at a time (`toon::stream::transcode`), from a file
/// and from standard input alike: the same bytes as the whole-input route writes.
#[test]
fn large_inputs_decode_a_line_at_a_time_to_the_same_bytes() {
    let rows = 700_000;
    let mut text = format!("rows[{rows}]{{id,name,score}}:\n");
    for i in 0..rows {
        text.push_str(&format!("  {i},user-{i},{}.5\n", i % 1000));
    }
    assert!(text.len() > 16 << 20, "{}", text.len());
    let mut de = toon::Deserializer::from_str(&text);
    let mut want = Vec::new();
    toon::json::transcode(&mut de, &mut want, 0).unwrap();
    want.push(b'\n');
    let dir = scratch("large");
    let file = dir.join("large.toon");
    std::fs::write(&file, &text).unwrap();
    let o = toon(&["-d", "--indent", "0", file.to_str().unwrap()], "");
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(o.stdout == want, "file route");
    let o = toon(&["-d", "--indent", "0"], &text);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(o.stdout == want, "standard input route");
}
