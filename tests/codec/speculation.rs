//! The encoder writes an array (or object) whose first rows make a flat table as that table
//! at once and checks each later row as it writes it (`ser/probe/guess.rs`). These pin that a
//! row breaking the table anywhere gives exactly the form a look at every element gives
//! (§9.3, §9.4, §9.5, §8), for `to_string` and for `to_writer`, whose guess is bounded.

use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::json;

fn both(value: &impl Serialize) -> String {
    let text = toon::to_string(value).unwrap();
    let mut written = Vec::new();
    toon::to_writer(&mut written, value).unwrap();
    assert_eq!(
        String::from_utf8(written).unwrap(),
        text,
        "to_writer and to_string differ"
    );
    text
}

#[test]
fn a_row_that_breaks_the_table_late_gives_the_list_form() {
    let cases = [
        // A third row with an extra key, a missing key, a nested value, another type.
        (
            json!({"r": [{"a": 1}, {"a": 2}, {"a": 3, "b": 4}]}),
            "r[3]:\n  - a: 1\n  - a: 2\n  - a: 3\n    b: 4",
        ),
        (
            json!({"r": [{"a": 1, "b": 1}, {"a": 2, "b": 2}, {"a": 3}]}),
            "r[3]:\n  - a: 1\n    b: 1\n  - a: 2\n    b: 2\n  - a: 3",
        ),
        (
            json!({"r": [{"a": 1}, {"a": 2}, {"a": [3]}]}),
            "r[3]:\n  - a: 1\n  - a: 2\n  - a[1]: 3",
        ),
        (
            json!({"r": [{"a": 1}, {"a": 2}, {"a": {"x": 3}}]}),
            "r[3]:\n  - a: 1\n  - a: 2\n  - a:\n      x: 3",
        ),
        (
            json!({"r": [{"a": 1}, {"a": 2}, 7]}),
            "r[3]:\n  - a: 1\n  - a: 2\n  - 7",
        ),
        (
            json!([{"a": 1}, {"a": 2}, {"b": 3}]),
            "[3]:\n  - a: 1\n  - a: 2\n  - b: 3",
        ),
        // Keys in another order still make the table.
        (
            json!({"r": [{"a": 1, "b": 2}, {"a": 3, "b": 4}, {"b": 6, "a": 5}]}),
            "r[3]{a,b}:\n  1,2\n  3,4\n  5,6",
        ),
    ];
    for (value, expected) in cases {
        assert_eq!(both(&value), expected, "{value}");
    }
}

/// A map that repeats a key: the probe counts it as breaking the table, and so must a row
/// written on the guess.
struct Repeats(u32);

impl Serialize for Repeats {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(None)?;
        map.serialize_entry("a", &self.0)?;
        map.serialize_entry("b", &self.0)?;
        if self.0 == 3 {
            map.serialize_entry("a", &0)?;
        }
        map.end()
    }
}

#[test]
fn a_row_that_repeats_a_key_breaks_the_table() {
    let rows = [Repeats(1), Repeats(2), Repeats(3)];
    let text = both(&rows);
    assert!(text.starts_with("[3]:\n  - a: 1"), "{text}");
}

#[test]
fn large_tables_break_late_the_same_way_through_a_writer() {
    // Past the guess buffer of a writer (256 KB): the guess is given up and the array probed.
    let mut rows: Vec<serde_json::Value> = (0..20_000)
        .map(|i| json!({"id": i, "name": format!("row {i}")}))
        .collect();
    let table = both(&json!({ "rows": rows }));
    assert!(table.starts_with("rows[20000]{id,name}:\n  0,row 0\n"));
    rows.push(json!({"id": 20_000}));
    let list = both(&json!({ "rows": rows }));
    assert!(list.starts_with("rows[20001]:\n  - id: 0\n    name: row 0\n"));
    assert!(list.ends_with("\n  - id: 20000"));
}

#[test]
fn an_entry_that_breaks_a_keyed_table_late_gives_plain_fields() {
    let keyed = json!({"f": {"a": {"x": 1}, "b": {"x": 2}, "c": {"x": 3}}});
    assert_eq!(both(&keyed), "f[3:]{x}:\n  a: 1\n  b: 2\n  c: 3");
    let cases = [
        (
            json!({"f": {"a": {"x": 1}, "b": {"x": 2}, "c": {"y": 3}}}),
            "f:\n  a:\n    x: 1\n  b:\n    x: 2\n  c:\n    y: 3",
        ),
        (
            json!({"f": {"a": {"x": 1}, "b": {"x": 2}, "c": 3}}),
            "f:\n  a:\n    x: 1\n  b:\n    x: 2\n  c: 3",
        ),
        (
            json!({"f": {"a": {"x": 1}, "b": {"x": 2}, "c": {}}}),
            "f:\n  a:\n    x: 1\n  b:\n    x: 2\n  c:",
        ),
        (
            json!({"a": {"x": 1}, "b": {"x": 2}, "c": {"x": [3]}}),
            "a:\n  x: 1\nb:\n  x: 2\nc:\n  x[1]: 3",
        ),
    ];
    for (value, expected) in cases {
        assert_eq!(both(&value), expected, "{value}");
    }
}

/// Objects are written as fields at once, without a probe, unless their first value is a
/// non-empty object (which may start a keyed table, §9.5): those are put back and probed.
/// Pinned in field, list-item and first-field positions, empty ones included, and through a
/// writer after enough output that chunks have been handed on.
#[test]
fn objects_written_at_once_give_the_probed_forms() {
    let cases = [
        (
            json!({"o": {"a": 1, "b": {"x": 1}}}),
            "o:\n  a: 1\n  b:\n    x: 1",
        ),
        (
            json!({"o": {"a": {"x": 1}, "b": {"x": 2}}}),
            "o[2:]{x}:\n  a: 1\n  b: 2",
        ),
        (
            json!({"o": {"a": {"x": 1}, "b": 2}}),
            "o:\n  a:\n    x: 1\n  b: 2",
        ),
        (json!({"o": {"a": {}, "b": {}}}), "o:\n  a:\n  b:"),
        (json!({"o": {}, "p": 1}), "o:\np: 1"),
        (
            json!({"l": [{}, {"a": 1}, {"a": {"x": 1}, "b": {"x": 2}}, 3]}),
            "l[4]:\n  -\n  - a: 1\n  - a:\n      x: 1\n    b:\n      x: 2\n  - 3",
        ),
        (
            json!({"l": [{"o": {"a": {"x": 1}, "b": 2}, "p": {}}, 1]}),
            "l[2]:\n  - o:\n      a:\n        x: 1\n      b: 2\n    p:\n  - 1",
        ),
    ];
    let filler: Vec<String> = (0..12_000).map(|i| format!("filler line {i}")).collect();
    for (value, expected) in cases {
        assert_eq!(both(&value), expected, "{value}");
        let mut long = serde_json::Map::new();
        long.insert("filler".into(), json!(filler));
        long.insert("v".into(), value.clone());
        let text = both(&serde_json::Value::Object(long));
        assert!(text.ends_with(&expected.replace('\n', "\n  ")), "{value}");
    }
}

/// An object whose first value could not be a keyed row (it holds an array, or nests past
/// the limit) is written at once; one whose first value could be is probed. Both must give
/// the probed form at every depth limit, where a row one level too deep breaks the table.
#[test]
fn keyed_rows_are_ruled_out_at_the_probes_depth() {
    let keyed_groups = json!({"o": {"a": {"x": {"y": 1}}, "b": {"x": {"y": 2}}}});
    let keyed_flat = json!({"o": {"a": {"x": 1}, "b": {"x": 2}}});
    let with_array = json!({"o": {"a": {"x": [1]}, "b": {"x": [2]}}});
    let cases = [
        (&keyed_groups, 4, "o[2:]{x{y}}:\n  a: 1\n  b: 2"),
        (&keyed_flat, 3, "o[2:]{x}:\n  a: 1\n  b: 2"),
        (&with_array, 4, "o:\n  a:\n    x[1]: 1\n  b:\n    x[1]: 2"),
    ];
    for (value, fits, expected) in cases {
        for depth in 1..=fits + 2 {
            let options = toon::EncodeOptions::new().max_depth(depth);
            let text = toon::to_string_with(value, &options);
            if depth < fits {
                assert!(text.is_err(), "{value} at {depth}: {text:?}");
            } else {
                assert_eq!(text.unwrap(), expected, "{value} at {depth}");
            }
        }
    }
}

/// A table's field list is offered to the next array's first row, which takes it only when
/// it has exactly those keys in that order with primitive values; any other first row gets
/// its own list, so headers always follow each array's first row (§9.3).
#[test]
fn the_last_tables_field_list_is_taken_only_by_the_same_first_row() {
    #[derive(serde::Serialize)]
    struct Ab {
        a: u32,
        b: &'static str,
    }
    #[derive(serde::Serialize)]
    struct Ba {
        b: &'static str,
        a: u32,
    }
    #[derive(serde::Serialize)]
    struct Nested {
        a: u32,
        b: Ab,
    }
    #[derive(serde::Serialize)]
    struct Doc {
        one: Vec<Ab>,
        two: Vec<Ab>,
        swapped: Vec<Ba>,
        again: Vec<Ab>,
        single: Vec<Ab>,
        grouped: Vec<Nested>,
        more: Vec<Ab>,
        mixed: Vec<serde_json::Value>,
    }
    let ab = |a, b| Ab { a, b };
    let doc = Doc {
        one: vec![ab(1, "x"), ab(2, "y")],
        two: vec![ab(3, "z"), ab(4, "w")],
        swapped: vec![Ba { b: "p", a: 5 }, Ba { b: "q", a: 6 }],
        again: vec![ab(7, "r"), ab(8, "s")],
        single: vec![ab(9, "t")],
        grouped: vec![
            Nested {
                a: 1,
                b: ab(2, "u"),
            },
            Nested {
                a: 3,
                b: ab(4, "v"),
            },
        ],
        more: vec![ab(5, "m"), ab(6, "n")],
        mixed: vec![json!({"a": 1, "b": "x", "c": 2}), json!({"a": 1})],
    };
    assert_eq!(
        both(&doc),
        "one[2]{a,b}:\n  1,x\n  2,y\ntwo[2]{a,b}:\n  3,z\n  4,w\n\
         swapped[2]{b,a}:\n  p,5\n  q,6\nagain[2]{a,b}:\n  7,r\n  8,s\n\
         single[1]{a,b}:\n  9,t\ngrouped[2]{a,b{a,b}}:\n  1,2,u\n  3,4,v\n\
         more[2]{a,b}:\n  5,m\n  6,n\nmixed[2]:\n  - a: 1\n    b: x\n    c: 2\n  - a: 1"
    );
    // Through a tab-delimited encoder, the copied list keeps that delimiter.
    let options = toon::EncodeOptions::default().delimiter(toon::Delimiter::Tab);
    let text = toon::to_string_with(&doc, &options).unwrap();
    assert!(text.contains("two[2\t]{a\tb}:\n  3\tz"), "{text}");
}

/// A first row that takes the last table's field list makes its array a table at once,
/// before its second row is looked at; a later row that breaks it still gives the form a
/// look at every element gives, as if no table had come before.
#[test]
fn a_table_taken_from_the_last_one_breaks_like_any_guess() {
    let first = json!([{"a": 1, "b": "x"}, {"a": 2, "b": "y"}]);
    let cases = [
        json!([{"a": 3, "b": "z"}, {"a": 4}]),
        json!([{"a": 3, "b": "z"}, {"a": 4, "b": "w", "c": 5}]),
        json!([{"a": 3, "b": "z"}, {"a": 4, "b": [1]}]),
        json!([{"a": 3, "b": "z"}, {"a": 4, "b": {"c": 5}}]),
        json!([{"a": 3, "b": "z"}, 4]),
        json!([{"a": 3, "b": "z"}, {"a": 4, "b": "w"}, {"a": 5}]),
        json!([{"a": 3, "b": "z"}, {"a": 4, "b": "w"}]),
        json!([{"a": 3, "b": "z"}]),
    ];
    for then in cases {
        let alone = both(&json!({ "then": then }));
        let after = both(&json!({ "first": first, "then": then }));
        let expected = format!("first[2]{{a,b}}:\n  1,x\n  2,y\n{alone}");
        assert_eq!(after, expected, "{then}");
    }
}

/// A sequence whose length hint is `declared` while it gives `items`: serde allows hints that
/// are wrong, and a form guessed from the hint must then give way to what the items are.
struct Hinted {
    declared: usize,
    items: Vec<serde_json::Value>,
}

impl Serialize for Hinted {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        let mut seq = s.serialize_seq(Some(self.declared))?;
        for item in &self.items {
            seq.serialize_element(item)?;
        }
        seq.end()
    }
}

#[test]
fn arrays_guessed_inline_from_their_first_primitives_give_the_probed_forms() {
    let cases = [
        (json!({"a": [1, "x", true, null]}), "a[4]: 1,x,true,null"),
        (json!({"a": ["x, y", "b"]}), "a[2]: \"x, y\",b"),
        (json!({"a": [1]}), "a[1]: 1"),
        // A container after the first primitives: the list form, every element in it.
        (
            json!({"a": [1, 2, {"k": 3}]}),
            "a[3]:\n  - 1\n  - 2\n  - k: 3",
        ),
        (json!({"a": [1, 2, [3]]}), "a[3]:\n  - 1\n  - 2\n  - [1]: 3"),
        (json!({"a": [1, 2, []]}), "a[3]:\n  - 1\n  - 2\n  - [0]:"),
        (json!([1, 2, {"k": 3}]), "[3]:\n  - 1\n  - 2\n  - k: 3"),
        // As a list item's field and as a list item.
        (json!([{"a": [1, 2, 3]}, 4]), "[2]:\n  - a[3]: 1,2,3\n  - 4"),
        (
            json!([[1, 2], [3, {"k": 4}]]),
            "[2]:\n  - [2]: 1,2\n  - [2]:\n    - 3\n    - k: 4",
        ),
    ];
    for (value, expected) in cases {
        assert_eq!(both(&value), expected, "{value}");
    }
    // Length hints that are wrong: the count written is the count of items.
    struct Field<'a>(&'a Hinted);
    impl Serialize for Field<'_> {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            let mut map = s.serialize_map(Some(1))?;
            map.serialize_entry("a", self.0)?;
            map.end()
        }
    }
    let more = Hinted {
        declared: 2,
        items: vec![json!(1), json!(2), json!(3)],
    };
    let fewer = Hinted {
        declared: 3,
        items: vec![json!(1), json!(2)],
    };
    assert_eq!(both(&Field(&more)), "a[3]: 1,2,3");
    assert_eq!(both(&Field(&fewer)), "a[2]: 1,2");
    assert_eq!(both(&[&fewer]), "[1]:\n  - [2]: 1,2");
}

#[test]
fn tables_with_nested_groups_guessed_from_their_first_rows_give_the_probed_forms() {
    // `toon!`: keys in the order written (serde_json's map sorts them).
    let row = |n: u32| toon::toon!({"id": n, "at": {"x": n, "y": n + 1}});
    let cases = [
        (
            toon::toon!({"r": [row(1), row(2), row(3)]}),
            "r[3]{id,at{x,y}}:\n  1,1,2\n  2,2,3\n  3,3,4",
        ),
        // A later row whose group lacks a field, has one more, or is no object.
        (
            toon::toon!({"r": [row(1), row(2), {"id": 3, "at": {"x": 3}}]}),
            "r[3]:\n  - id: 1\n    at:\n      x: 1\n      y: 2\n  - id: 2\n    at:\n      x: 2\n      y: 3\n  - id: 3\n    at:\n      x: 3",
        ),
        (
            toon::toon!({"r": [row(1), row(2), {"id": 3, "at": {"x": 3, "y": 4, "z": 5}}]}),
            "r[3]:\n  - id: 1\n    at:\n      x: 1\n      y: 2\n  - id: 2\n    at:\n      x: 2\n      y: 3\n  - id: 3\n    at:\n      x: 3\n      y: 4\n      z: 5",
        ),
        (
            toon::toon!({"r": [row(1), row(2), {"id": 3, "at": 7}]}),
            "r[3]:\n  - id: 1\n    at:\n      x: 1\n      y: 2\n  - id: 2\n    at:\n      x: 2\n      y: 3\n  - id: 3\n    at: 7",
        ),
        // The group's keys in another order still make the table.
        (
            toon::toon!({"r": [row(1), row(2), {"id": 3, "at": {"y": 4, "x": 3}}]}),
            "r[3]{id,at{x,y}}:\n  1,1,2\n  2,2,3\n  3,3,4",
        ),
    ];
    for (value, expected) in cases {
        assert_eq!(both(&value), expected, "{value}");
    }
    // Through a writer, past the bound on what a guess may hold back.
    let rows: Vec<_> = (0..20_000).map(row).collect();
    let mut broken = rows.clone();
    broken.push(toon::toon!({"id": 0, "at": {"x": [1]}}));
    for value in [toon::toon!({ "r": rows }), toon::toon!({ "r": broken })] {
        let text = both(&value);
        let back: toon::Value = toon::from_str(&text).unwrap();
        assert_eq!(back, value);
    }
}

/// A `Serialize` impl that drops the errors its entries return (as some hand-written ones
/// do) still gets the form the probe gives: the signal that an object may be a keyed table
/// is sent again at its next entry and at `end`, so no object is written without its first
/// field.
#[test]
fn an_impl_that_drops_entry_errors_still_gets_the_keyed_table() {
    struct Dropping(Vec<(&'static str, serde_json::Value)>);
    impl Serialize for Dropping {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            let mut map = serializer.serialize_map(Some(self.0.len()))?;
            for (key, value) in &self.0 {
                let _ = map.serialize_entry(key, value);
            }
            map.end()
        }
    }
    struct Outer(Dropping);
    impl Serialize for Outer {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            let mut map = serializer.serialize_map(Some(1))?;
            map.serialize_entry("f", &self.0)?;
            map.end()
        }
    }
    let entries = || vec![("a", json!({"x": 1})), ("b", json!({"x": 2}))];
    assert_eq!(
        both(&Outer(Dropping(entries()))),
        "f[2:]{x}:\n  a: 1\n  b: 2"
    );
    assert_eq!(
        both(&Dropping(entries())),
        both(&json!({"a": {"x": 1}, "b": {"x": 2}}))
    );
}
