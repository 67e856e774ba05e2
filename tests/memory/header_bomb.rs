//! A tabular header is not a decompression bomb: its field names are held once, not copied
//! into every row. `toon::Value` shares them; targets that own their keys (`serde_json::Value`,
//! `HashMap<String, _>`) are stopped by `DecodeOptions::max_expansion` with a clear error.
//! Measured with a counting allocator (this test's own thread).

use std::collections::HashMap;

use crate::counting::peak_during;

fn rows(n: usize, row: &str) -> String {
    format!("  {row}\n").repeat(n)
}

#[test]
fn header_names_are_not_copied_per_row() {
    let name = "n".repeat(1 << 18);
    let escaped = format!("\"{}\\n{}\"", "e".repeat(1 << 17), "e".repeat(1 << 17));
    let bombs = [
        ("table", format!("[1000]{{{name}}}:\n{}", rows(1000, "1"))),
        (
            "nested group",
            format!("[1000]{{a{{{name}}}}}:\n{}", rows(1000, "1")),
        ),
        (
            "escaped name",
            format!("[1000]{{{escaped}}}:\n{}", rows(1000, "1")),
        ),
        (
            "keyed table",
            format!(
                "t[1000:]{{{name}}}:\n{}",
                (0..1000)
                    .map(|i| format!("  k{i}: 1\n"))
                    .collect::<String>()
            ),
        ),
    ];
    for (what, text) in &bombs {
        let input = text.len();
        // toon::Value: one copy of the name (two for an escaped one: the header unescapes it),
        // whatever the row count (was ~1000x the input).
        let mut value = toon::Value::Null;
        let peak = peak_during(|| value = toon::from_str(text).unwrap());
        assert!(
            peak < 3 * input,
            "{what}: Value peak {peak} for {input} input bytes"
        );
        assert_eq!(
            toon::from_str::<toon::Value>(&value.to_string()).unwrap(),
            value
        );

        // Owned keys: an error naming the limit, after at most 16x the input in copies.
        for peak in [
            peak_during(|| {
                let Err(err) = toon::from_str::<serde_json::Value>(text) else {
                    panic!("{what}: decoded into serde_json::Value");
                };
                assert!(err.to_string().contains("max_expansion"), "{what}: {err}");
                assert!(err.line() > 1, "{what}: {err}");
            }),
            peak_during(|| {
                assert!(toon::from_str::<Vec<HashMap<String, u8>>>(text).is_err());
            }),
        ] {
            assert!(
                peak < 24 * input,
                "{what}: owned-key peak {peak} for {input}"
            );
        }
    }

    // The limit is configurable, and generous: a table whose names add up to 8x its size
    // decodes with the default (16x), and fails at 4x.
    let wide = format!("[8]{{{}}}:\n{}", "x".repeat(80 * 1024), rows(8, "1"));
    assert!(
        toon::from_str::<serde_json::Value>(&wide).is_ok(),
        "the default refused 8x"
    );
    let tight = toon::DecodeOptions::new().max_expansion(4);
    assert!(toon::from_str_with::<serde_json::Value>(&wide, &tight).is_err());
    // Struct fields borrow nothing and copy nothing: never charged.
    #[derive(serde::Deserialize)]
    struct Row {
        #[allow(dead_code)]
        x: u8,
    }
    let narrow = toon::DecodeOptions::new().max_expansion(0);
    let named = format!("[1000]{{x}}:\n{}", rows(1000, "1"));
    assert_eq!(
        toon::from_str_with::<Vec<Row>>(&named, &narrow)
            .unwrap()
            .len(),
        1000
    );
}
