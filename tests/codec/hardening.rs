//! Untrusted input: every failure is an error with a position, never a panic, hang, stack
//! overflow or unbounded allocation.

use toon::{Category, DecodeOptions, Value};

#[test]
fn nesting_beyond_the_limit_is_an_error_not_a_stack_overflow() {
    let mut text = String::new();
    for depth in 0..10_000 {
        text.push_str(&"  ".repeat(depth));
        text.push_str("a:\n");
    }
    let err = toon::from_str::<Value>(&text).unwrap_err();
    assert!(err.to_string().contains("nesting"), "{err}");
    // The root object is level 1; the `a:` on line 128 opens level 129.
    assert_eq!(err.line(), 128, "{err}");

    let mut list = String::from("a[1]:\n");
    for depth in 1..5_000 {
        list.push_str(&"  ".repeat(depth));
        list.push_str("- [1]:\n");
    }
    let err = toon::from_str::<Value>(&list).unwrap_err();
    assert!(err.to_string().contains("nesting"), "{err}");
}

#[test]
fn the_nesting_limit_is_configurable() {
    let text = "a:\n  b:\n    c: 1";
    assert!(toon::from_str_with::<Value>(text, &DecodeOptions::new().max_depth(2)).is_err());
    assert!(toon::from_str_with::<Value>(text, &DecodeOptions::new().max_depth(3)).is_ok());
}

#[test]
fn nested_field_groups_are_bounded_too() {
    let mut header = String::from("r[1]{");
    for _ in 0..100_000 {
        header.push_str("a{");
    }
    header.push('b');
    header.push_str(&"}".repeat(100_001));
    header.push_str(":\n  1");
    assert!(toon::from_str::<Value>(&header).is_err());
}

#[test]
fn huge_declared_lengths_do_not_allocate() {
    for text in [
        "a[999999999999]: 1,2",
        "a[999999999999]{x}:\n  1",
        "a[999999999999]:\n  - 1",
        "a[999999999999:]{x}:\n  k: 1",
    ] {
        let err = toon::from_str::<Value>(text).unwrap_err();
        // Syntax for a short inline list; Eof where the input ends before the rows do.
        assert!(err.is_syntax() || err.is_eof(), "{text}: {err}");
        let lenient: Value =
            toon::from_str_with(text, &DecodeOptions::new().strict(false)).unwrap();
        assert!(!lenient.is_null());
    }
    let typed = toon::from_str_with::<Vec<Vec<u8>>>(
        "[999999999999]:\n  - [2]: 1,2",
        &DecodeOptions::new().strict(false),
    )
    .unwrap();
    assert_eq!(typed, vec![vec![1, 2]]);
    let err = toon::from_str::<Value>("a[99999999999999999999999999]: 1").unwrap_err();
    assert!(err.to_string().contains("too large"), "{err}");
}

#[test]
fn counts_beyond_u64_are_advisory_in_non_strict_mode() {
    let lenient = DecodeOptions::new().strict(false);
    for (text, expected) in [
        ("[18446744073709551616]: 1,2", toon::toon!([1, 2])),
        ("a[99999999999999999999999]: x", toon::toon!({"a": ["x"]})),
        (
            "a[18446744073709551616]{x}:\n  1\n  2",
            toon::toon!({"a": [{"x": 1}, {"x": 2}]}),
        ),
        ("a[18446744073709551616]:\n  - 1", toon::toon!({"a": [1]})),
    ] {
        let value: Value = toon::from_str_with(text, &lenient).unwrap();
        assert_eq!(value, expected, "{text}");
        let err = toon::from_str::<Value>(text).unwrap_err();
        assert!(err.to_string().contains("too large"), "{text}: {err}");
    }
    let typed: Vec<u8> = toon::from_str_with("[18446744073709551616]: 1,2", &lenient).unwrap();
    assert_eq!(typed, [1, 2]);
}

#[test]
fn ill_formed_utf8_is_an_error_with_a_position() {
    let err = toon::from_slice::<Value>(b"a: 1\nb: caf\xc3\n").unwrap_err();
    assert_eq!(err.classify(), Category::Syntax);
    assert_eq!((err.line(), err.column()), (2, 7), "{err}");
    // Encoded surrogates (CESU-8 style) are ill-formed too.
    assert!(toon::from_slice::<Value>(b"a: \xed\xa0\x80").is_err());
}

#[test]
fn truncated_input_is_an_eof_error() {
    let err = toon::from_str::<Value>("rows[3]{a,b}:\n  1,2\n  3,4").unwrap_err();
    assert_eq!(err.classify(), Category::Eof, "{err}");
    assert_eq!(err.line(), 3);
}

#[test]
fn errors_quote_the_offending_line() {
    let err = toon::from_str::<Value>("a:\n  b: \"bad\\xescape\"").unwrap_err();
    assert_eq!(err.line(), 2);
    assert!(err.to_string().contains("invalid escape"), "{err}");
    assert!(
        err.to_string().ends_with(r#": "  b: \"bad\\xescape\"""#),
        "{err}"
    );
}

#[test]
fn many_keys_and_many_duplicates_stay_fast() {
    // Duplicate detection must not be quadratic: 200k distinct keys decode quickly.
    let mut text = String::new();
    for i in 0..200_000 {
        text.push_str(&format!("k{i}: {i}\n"));
    }
    let v: Value = toon::from_str(&text).unwrap();
    assert_eq!(v.as_object().unwrap().len(), 200_000);
    text.push_str("k7: dup\n");
    assert!(toon::from_str::<Value>(&text).is_err());
}

/// Non-strict decoding into a struct skips fields that a later field of the same name
/// overrides (§14.3). Which ones is decided once per header: the work per row is linear in its
/// width. Checked by ratio (8× the fields must cost about 8× the time, not 64×), the smaller
/// size timed several times so that a noisy machine does not decide.
#[test]
fn wide_tables_decode_in_linear_time_in_non_strict_mode() {
    #[derive(serde::Deserialize)]
    struct Doc {
        t: Vec<Row>,
    }
    #[derive(serde::Deserialize)]
    struct Row {
        f0: u64,
    }
    fn table(fields: usize) -> String {
        let names: Vec<String> = (0..fields).map(|i| format!("f{i}")).collect();
        let cells: Vec<String> = (0..fields).map(|i| i.to_string()).collect();
        let row = cells.join(",");
        format!(
            "t[4]{{{}}}:\n  {row}\n  {row}\n  {row}\n  {row}\n",
            names.join(",")
        )
    }
    let lenient = toon::DecodeOptions::new().strict(false);
    let time = |text: &str| {
        (0..3)
            .map(|_| {
                let start = std::time::Instant::now();
                let doc: Doc = toon::from_str_with(text, &lenient).unwrap();
                assert_eq!(doc.t[3].f0, 0);
                start.elapsed().as_secs_f64()
            })
            .fold(f64::INFINITY, f64::min)
    };
    let (small, large) = (table(4_000), table(32_000));
    let ratio = time(&large) / time(&small);
    assert!(ratio < 24.0, "8x the fields took {ratio:.1}x the time");
    // A repeated name still resolves to its last occurrence.
    let doc: Doc = toon::from_str_with("t[1]{f0,x,f0}:\n  1,2,3", &lenient).unwrap();
    assert_eq!(doc.t[0].f0, 3);
}

#[test]
fn counts_in_messages_agree_with_their_nouns() {
    let err = |text: &str| toon::from_str::<toon::Value>(text).unwrap_err().to_string();
    assert!(err("a[1]: 1,2").contains("expected 1 value, found 2"));
    assert!(err("a[2]: 1").contains("expected 2 values, found 1"));
    assert!(err("a[2]:\n  - 1").contains("expected 2 list items, found 1"));
    assert!(err("a[1]:\n  - 1\n  - 2").contains("more list items than the 1 declared"));
    assert!(err("a[1]{x,y}:\n  1").contains("expected 2 cells, found 1"));
    assert!(err("a[1]{x}:\nb: 1").contains("expected 1 row, found 0"));
    assert!(err("a[1]:\nb: 1").contains("expected 1 list item, found 0"));
}

/// Builds `{"a": {"a": … 1 …}}` nested `depth` objects deep without recursion.
fn deep_objects(depth: usize) -> Value {
    let mut value = Value::from(1);
    for _ in 0..depth {
        let mut map = toon::Map::new();
        map.insert("a".to_string(), value);
        value = Value::Object(map);
    }
    value
}

/// Takes a deep value apart iteratively: dropping it would recurse once per level.
fn dismantle(value: Value) {
    let mut stack = vec![value];
    while let Some(value) = stack.pop() {
        match value {
            Value::Array(items) => stack.extend(items),
            Value::Object(map) => stack.extend(map.into_iter().map(|(_, v)| v)),
            _ => {}
        }
    }
}

#[test]
fn encoding_beyond_the_limit_is_an_error_not_a_stack_overflow() {
    let deep = deep_objects(20_000);
    let err = toon::to_string(&deep).unwrap_err();
    assert_eq!(err.classify(), Category::Data, "{err}");
    assert!(
        err.to_string()
            .contains("nesting deeper than the limit of 128"),
        "{err}"
    );
    let err = toon::to_writer(std::io::sink(), &deep).unwrap_err();
    assert_eq!(err.classify(), Category::Data, "{err}");
    // Through serde's Serializer trait the value is recorded first: bounded too.
    let mut ser = toon::Serializer::new(Vec::new());
    assert!(serde::Serialize::serialize(&deep, &mut ser).is_err());
    // In a table row, as nested field groups (§9.3).
    let rows = Value::Array(vec![deep]);
    assert!(toon::to_string(&rows).is_err());
    dismantle(rows);
}

#[test]
fn the_encoding_limit_matches_the_decoding_limit() {
    for depth in [127, 128] {
        let value = deep_objects(depth);
        let text = toon::to_string(&value).unwrap();
        assert_eq!(toon::from_str::<Value>(&text).unwrap(), value, "{depth}");
    }
    let too_deep = deep_objects(129);
    assert!(toon::to_string(&too_deep).is_err());
    let options = toon::EncodeOptions::new().max_depth(129);
    let text = toon::to_string_with(&too_deep, &options).unwrap();
    assert!(toon::from_str::<Value>(&text).is_err());
    let lenient = DecodeOptions::new().max_depth(129);
    assert_eq!(
        toon::from_str_with::<Value>(&text, &lenient).unwrap(),
        too_deep
    );
    // Tables count their nested field groups: an array of rows 127 objects deep is 128 levels.
    let rows = Value::Array(vec![deep_objects(127), deep_objects(127)]);
    let text = toon::to_string(&rows).unwrap();
    assert!(text.starts_with("[2]{a{a{"), "{}", &text[..40]);
    assert_eq!(toon::from_str::<Value>(&text).unwrap(), rows);
    let rows = Value::Array(vec![deep_objects(128), deep_objects(128)]);
    assert!(toon::to_string(&rows).is_err());
}

#[derive(serde::Serialize)]
enum Chain {
    Link(Box<Chain>),
    End,
}

#[test]
fn deep_user_types_are_bounded_too() {
    let mut chain = Chain::End;
    for _ in 0..20_000 {
        chain = Chain::Link(Box::new(chain));
    }
    let err = toon::to_string(&chain).unwrap_err();
    assert!(err.to_string().contains("nesting"), "{err}");
    let mut ser = toon::Serializer::new(Vec::new());
    assert!(serde::Serialize::serialize(&chain, &mut ser).is_err());
    while let Chain::Link(next) = chain {
        chain = *next;
    }
}

#[test]
fn an_unlimited_depth_is_capped_at_the_ceiling() {
    let options = DecodeOptions::new().max_depth(usize::MAX);
    assert_eq!(options.get_max_depth(), toon::MAX_DEPTH_CEILING);
    let mut text = String::new();
    for depth in 0..50_000 {
        text.push_str(&"  ".repeat(depth));
        text.push_str("a:\n");
    }
    let err = toon::from_str_with::<Value>(&text, &options).unwrap_err();
    assert!(err.to_string().contains("nesting"), "{err}");

    // Everything up to the ceiling works on a 2 MiB stack, both ways, in a debug build too,
    // which takes ~10 KiB per level decoding: the recursion continues on the heap.
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(move || round_trip_at_the_ceiling(&options))
        .unwrap()
        .join()
        .unwrap();
}

fn round_trip_at_the_ceiling(options: &DecodeOptions) {
    let deep = deep_objects(toon::MAX_DEPTH_CEILING - 1);
    let unlimited = toon::EncodeOptions::new().max_depth(usize::MAX);
    let text = toon::to_string_with(&deep, &unlimited).unwrap();
    let back: Value = toon::from_str_with(&text, options).unwrap();
    assert!(back == deep);
    let json: serde_json::Value = toon::from_str_with(&text, options).unwrap();
    let mut ser = toon::Serializer::with_options(Vec::new(), &unlimited);
    serde::Serialize::serialize(&deep, &mut ser).unwrap();
    assert_eq!(String::from_utf8(ser.into_inner()).unwrap(), text);
    dismantle(deep);
    dismantle(back);
    drop(json);
}

#[test]
fn errors_quote_a_bounded_amount_of_the_input() {
    let huge = "\u{1}".repeat(2_000_000);
    let long_key = "k".repeat(2_000_000);
    let cases = [
        format!("a[1]{huge}: 1"),
        format!("a[{}x]: 1", "1".repeat(2_000_000)),
        format!("a[{}]: 1", "9".repeat(2_000_000)),
        format!("{long_key}: 1\n{long_key}: 2"),
        format!("a[1]{{{long_key},{long_key}}}:\n  1,2"),
        format!("a[1]{{{long_key},{long_key}}}: x"),
    ];
    for text in &cases {
        let err = toon::from_str::<Value>(text).unwrap_err();
        let message = err.to_string();
        assert!(
            message.len() < 1_000,
            "{} bytes: {}",
            message.len(),
            &message[..200]
        );
        assert!(err.line() >= 1, "{message}");
    }
    let err = toon::from_str::<Value>(&cases[3]).unwrap_err();
    assert!(
        err.to_string().contains(&format!(
            "duplicate key \"{}…\" (2000000 bytes)",
            &long_key[..48]
        )),
        "{err}"
    );
}

#[test]
fn unknown_field_errors_list_a_bounded_number_of_candidates() {
    use toon::project::{Projection, Unknown};
    let mut map = toon::Map::new();
    for i in 0..200_000 {
        map.insert(format!("key{i:06}"), Value::from(i));
    }
    let value = Value::Object(map);
    let err = Projection::new()
        .include(["nosuch"])
        .unknown(Unknown::Error)
        .apply_value(&value)
        .unwrap_err();
    let message = err.to_string();
    assert!(message.len() < 1_000, "{} bytes", message.len());
    assert!(message.contains("key000000, key000001"), "{message}");
    assert!(message.ends_with("and 199968 more"), "{message}");
}

#[test]
fn fitting_to_a_token_budget_is_not_quadratic() {
    // Many small arrays with long strings: every array and every string gets cut.
    fn doc(arrays: usize) -> Value {
        let mut map = toon::Map::new();
        for i in 0..arrays {
            let row =
                |j: usize| toon::toon!({"id": j, "note": format!("entry {i} {j} ").repeat(6)});
            map.insert(format!("a{i}"), Value::Array((0..3).map(row).collect()));
        }
        Value::Object(map)
    }
    let time = |value: &Value, budget: usize| {
        (0..3)
            .map(|_| {
                let start = std::time::Instant::now();
                let fitted = toon::tokens::fit(value, budget).unwrap();
                let elapsed = start.elapsed().as_secs_f64();
                assert!(fitted.cuts.len() > value.as_object().unwrap().len());
                elapsed
            })
            .fold(f64::INFINITY, f64::min)
    };
    let (small, large) = (doc(500), doc(4_000));
    // Budgets that force every array down to one row and the strings shorter.
    let ratio = time(&large, 4_000 * 22) / time(&small, 500 * 22);
    // O(n log n) is ~9x for 8x the input; the quadratic version took 19 s for 4,000 arrays.
    assert!(ratio < 24.0, "8x the arrays took {ratio:.1}x the time");
    let fitted = toon::tokens::fit(&small, 500 * 22).unwrap();
    assert!(fitted.tokens <= 500 * 22, "{}", fitted.tokens);
    assert!(
        fitted
            .cuts
            .iter()
            .any(|c| matches!(c, toon::tokens::Cut::Text { .. }))
    );
    assert_eq!(toon::from_str::<Value>(&fitted.toon).unwrap(), fitted.value);
    // The note for a prompt names a dozen cuts and counts the rest.
    let note = fitted.note().unwrap();
    assert!(note.len() < 1_000, "{} bytes", note.len());
    assert!(
        note.ends_with(&format!("; {} more cuts", fitted.cuts.len() - 12)),
        "{note}"
    );
}
