//! The `toon` command line: conversions both ways, options, stats, and errors.
#![cfg(feature = "cli")]

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
    // here is expected then, and the exit status tells the rest.
    let _ = child.stdin.take().unwrap().write_all(stdin.as_bytes());
    child.wait_with_output().unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

#[test]
fn encodes_json_from_stdin_by_content() {
    let o = toon(
        &[],
        r#"{"users":[{"id":1,"name":"Ada"},{"id":2,"name":"Bob"}]}"#,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o), "users[2]{id,name}:\n  1,Ada\n  2,Bob\n");
}

#[test]
fn decodes_toon_to_json_keeping_key_order() {
    let o = toon(&["-"], "b: 1\na[2]: x,y");
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
    let dir = std::env::temp_dir().join(format!("toon-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
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
    std::fs::remove_dir_all(&dir).unwrap();
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
    let o = toon(&["--tokens"], "hello world");
    assert!(o.status.success());
    assert_eq!(stdout(&o).trim(), "2");
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

#[cfg(feature = "mcp")]
mod mcp {
    use super::{stderr, stdout, toon};

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
        assert!(out["content"][0]["text"]
            .as_str()
            .unwrap()
            .starts_with("rows[30]{id,name}:"));
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
        assert!(out["content"][0]["text"]
            .as_str()
            .unwrap()
            .starts_with(r#"{"rows":[{"id":0},"#));
    }

    #[test]
    fn bad_input_is_a_clear_error() {
        for (args, input, message) in [
            (&["mcp", "result"][..], "{\"a\":", "invalid JSON"),
            (&["mcp", "result"][..], "[1]", "not a tools/call result"),
            (&["mcp", "catalog"][..], "[1]", "a tool must be an object"),
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
