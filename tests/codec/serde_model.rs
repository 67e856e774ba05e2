//! The serde data model: every kind of Rust type round-trips, maps like serde_json does, and
//! decoding borrows from the input when it can.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};

use serde::{Deserialize, Serialize};
use toon::{Value, toon};

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
enum Shape {
    Unit,
    Newtype(u32),
    Tuple(i8, String),
    Struct { w: f64, h: f64 },
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
#[serde(tag = "type")]
enum Internal {
    Circle { r: f64 },
    Square { side: u32, label: Option<String> },
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
#[serde(tag = "t", content = "c")]
enum Adjacent {
    Num(i64),
    Pair(u8, u8),
    Empty,
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
#[serde(untagged)]
enum Untagged {
    Int(i64),
    Text(String),
    List(Vec<u8>),
    Obj { k: bool },
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Newtype(String);

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Unit;

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Everything {
    b: bool,
    i8: i8,
    i64: i64,
    i128: i128,
    u64: u64,
    u128: u128,
    f32: f32,
    f64: f64,
    ch: char,
    s: String,
    opt_none: Option<u8>,
    opt_some: Option<Vec<u8>>,
    unit: (),
    unit_struct: Unit,
    newtype: Newtype,
    tuple: (u8, String, bool),
    shapes: Vec<Shape>,
    internal: Vec<Internal>,
    adjacent: Vec<Adjacent>,
    untagged: Vec<Untagged>,
    int_keys: BTreeMap<u32, String>,
    bool_keys: BTreeMap<bool, u8>,
    nested: Vec<Vec<i32>>,
    empty_vec: Vec<String>,
    empty_map: HashMap<String, u8>,
    #[serde(with = "bytes_as_seq")]
    bytes: Vec<u8>,
}

mod bytes_as_seq {
    pub fn serialize<S: serde::Serializer>(v: &[u8], s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(v)
    }
    pub fn deserialize<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
        serde::Deserialize::deserialize(d)
    }
}

fn everything() -> Everything {
    Everything {
        b: true,
        i8: -8,
        i64: i64::MIN,
        i128: -170141183460469231731687303715884105728,
        u64: u64::MAX,
        u128: u128::MAX,
        f32: 0.1,
        f64: -1.5e-7,
        ch: 'é',
        s: "hello, world: \"quoted\"\n".into(),
        opt_none: None,
        opt_some: Some(vec![1, 2]),
        unit: (),
        unit_struct: Unit,
        newtype: Newtype("-dash".into()),
        tuple: (7, "true".into(), false),
        shapes: vec![
            Shape::Unit,
            Shape::Newtype(3),
            Shape::Tuple(-1, "x".into()),
            Shape::Struct { w: 1.5, h: 2.0 },
        ],
        internal: vec![
            Internal::Circle { r: 1.0 },
            Internal::Square {
                side: 2,
                label: Some("sq".into()),
            },
            Internal::Square {
                side: 3,
                label: None,
            },
        ],
        adjacent: vec![Adjacent::Num(-5), Adjacent::Pair(1, 2), Adjacent::Empty],
        untagged: vec![
            Untagged::Int(5),
            Untagged::Text("5x".into()),
            Untagged::List(vec![9]),
            Untagged::Obj { k: true },
        ],
        int_keys: [(1, "one".into()), (20, "twenty".into())].into(),
        bool_keys: [(false, 0), (true, 1)].into(),
        nested: vec![vec![1, 2], vec![], vec![-3]],
        empty_vec: vec![],
        empty_map: HashMap::new(),
        bytes: vec![0, 255, 16],
    }
}

#[test]
fn every_serde_type_round_trips() {
    let value = everything();
    let text = toon::to_string(&value).unwrap();
    let back: Everything = toon::from_str(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(back, value);
}

#[test]
fn mapping_follows_serde_json() {
    let value = everything();
    let via_toon: Value = toon::from_str(&toon::to_string(&value).unwrap()).unwrap();
    let via_json = Value::from(serde_json::to_value(&value).unwrap_or_else(|_| {
        // serde_json cannot hold i128/u128 beyond 64 bits; compare the rest.
        let mut v = serde_json::to_value(Everything {
            i128: 0,
            u128: 0,
            ..value.clone()
        })
        .unwrap();
        v["i128"] = serde_json::Value::Null;
        v["u128"] = serde_json::Value::Null;
        v
    }));
    for (k, v) in via_json.as_object().unwrap() {
        if k == "i128" || k == "u128" || k == "f32" {
            continue;
        }
        assert_eq!(&via_toon[k], v, "field {k}");
    }
    assert_eq!(
        via_toon["f32"],
        Value::from(0.1f64),
        "f32 prints its own shortest digits"
    );
}

#[test]
fn enums_are_externally_tagged_like_serde_json() {
    assert_eq!(toon::to_string(&Shape::Unit).unwrap(), "Unit");
    assert_eq!(toon::to_string(&Shape::Newtype(3)).unwrap(), "Newtype: 3");
    assert_eq!(
        toon::to_string(&Shape::Tuple(1, "a".into())).unwrap(),
        "Tuple[2]: 1,a"
    );
    assert_eq!(
        toon::to_string(&Shape::Struct { w: 1.0, h: 2.5 }).unwrap(),
        "Struct:\n  w: 1\n  h: 2.5"
    );
    for s in [
        Shape::Unit,
        Shape::Newtype(3),
        Shape::Tuple(1, "a".into()),
        Shape::Struct { w: 1.0, h: 2.5 },
    ] {
        let back: Shape = toon::from_str(&toon::to_string(&s).unwrap()).unwrap();
        assert_eq!(back, s);
    }
}

#[test]
fn big_integers_and_floats_are_exact() {
    assert_eq!(toon::to_string(&u64::MAX).unwrap(), "18446744073709551615");
    assert_eq!(
        toon::to_string(&u128::MAX).unwrap(),
        "340282366920938463463374607431768211455"
    );
    assert_eq!(toon::to_string(&0.1f32).unwrap(), "0.1");
    assert_eq!(toon::to_string(&f64::NAN).unwrap(), "null");
    assert_eq!(toon::to_string(&-0.0f64).unwrap(), "0");
    assert_eq!(
        toon::to_string(&[1e-7, 1.5e300]).unwrap(),
        "[2]: 1e-7,1.5e+300"
    );
    let v: u64 = toon::from_str("18446744073709551615").unwrap();
    assert_eq!(v, u64::MAX);
    let v: i64 = toon::from_str("-9223372036854775808").unwrap();
    assert_eq!(v, i64::MIN);
}

#[test]
fn map_keys_that_are_numbers_or_bools_become_strings() {
    let m: BTreeMap<i32, bool> = [(-1, true), (2, false)].into();
    let text = toon::to_string(&m).unwrap();
    assert_eq!(text, "\"-1\": true\n\"2\": false");
    let back: BTreeMap<i32, bool> = toon::from_str(&text).unwrap();
    assert_eq!(back, m);
}

#[test]
fn strings_borrow_from_the_input_without_escapes() {
    #[derive(Deserialize)]
    struct Doc<'a> {
        #[serde(borrow)]
        plain: Cow<'a, str>,
        #[serde(borrow)]
        escaped: Cow<'a, str>,
        name: &'a str,
        #[serde(borrow)]
        rows: Vec<Row<'a>>,
    }
    #[derive(Deserialize)]
    struct Row<'a> {
        id: u32,
        tag: &'a str,
    }
    let text = "plain: hello\nescaped: \"a\\nb\"\nname: \"quoted but plain\"\nrows[2]{id,tag}:\n  1,x\n  2,\"y z\"";
    let doc: Doc = toon::from_str(text).unwrap();
    assert!(matches!(doc.plain, Cow::Borrowed("hello")));
    assert!(matches!(doc.escaped, Cow::Owned(ref s) if s == "a\nb"));
    assert_eq!(doc.name, "quoted but plain");
    assert_eq!(doc.rows[1].tag, "y z");
    assert_eq!(doc.rows[0].id, 1);
}

#[test]
fn decodes_into_serde_json_value() {
    let v: serde_json::Value = toon::from_str("a[2]{x,y}:\n  1,null\n  2.5,\"s\"").unwrap();
    assert_eq!(
        v,
        serde_json::json!({"a": [{"x": 1, "y": null}, {"x": 2.5, "y": "s"}]})
    );
}

#[test]
fn value_conversions_and_macro() {
    let v = toon!({"a": [1, "two", null, true, 2.5], "b": {"c": {}}, "d": []});
    let j: serde_json::Value = v.clone().into();
    assert_eq!(
        j,
        serde_json::json!({"a": [1, "two", null, true, 2.5], "b": {"c": {}}, "d": []})
    );
    assert_eq!(Value::from(j), v);
    assert_eq!(v.to_string(), "a[5]: 1,two,null,true,2.5\nb:\n  c:\nd: []");
    assert_eq!(v["a"][1], "two");
    assert!(v["missing"]["deeper"].is_null());
}

#[test]
fn typed_errors_carry_positions() {
    #[derive(Deserialize, Debug)]
    #[allow(dead_code)]
    struct User {
        id: u32,
        name: String,
    }
    #[derive(Deserialize, Debug)]
    #[allow(dead_code)]
    struct Doc {
        users: Vec<User>,
    }
    let err = toon::from_str::<Doc>("users[2]{id,name}:\n  1,Ada\n  x,Bob").unwrap_err();
    assert_eq!(err.classify(), toon::Category::Data);
    assert_eq!((err.line(), err.column()), (3, 3), "{err}");
    assert!(err.to_string().contains("invalid type"), "{err}");

    let err = toon::from_str::<Doc>("users[1]:\n  - id: 1").unwrap_err();
    assert!(err.to_string().contains("missing field `name`"), "{err}");
    assert_eq!(err.line(), 2, "{err}");

    let err = toon::from_str::<Shape>("Circle").unwrap_err();
    assert!(err.to_string().contains("unknown variant"), "{err}");
    assert_eq!(err.line(), 1);

    let err = toon::from_str::<Doc>("users[2]{id,name}:\n  1,Ada\n  2,Bob,extra").unwrap_err();
    assert_eq!(err.classify(), toon::Category::Syntax);
    assert_eq!(
        err.to_string(),
        "line 3, column 3: expected 2 cells, found 3: \"  2,Bob,extra\""
    );
}

#[test]
fn i128_targets_follow_the_number_grammar() {
    assert!(toon::from_str::<i128>("+5").is_err());
    assert!(toon::from_str::<u128>("05").is_err());
    assert_eq!(toon::from_str::<u128>("7").unwrap(), 7);
}

#[test]
fn non_strict_duplicates_resolve_last_write_wins_for_structs_too() {
    #[derive(Deserialize, Debug, PartialEq)]
    struct Inner {
        a: u8,
        b: String,
    }
    #[derive(Deserialize, Debug, PartialEq)]
    struct Doc {
        name: String,
        inner: Inner,
        rows: Vec<Inner>,
        items: Vec<Inner>,
    }
    let text = "name: Ada\ninner:\n  a: 1\n  b: x\n  a: 2\nrows[1]{a,b,a}:\n  1,y,3\nitems[1]:\n  - a: 4\n    b: z\n    a: 5\nname: Bob\ninner:\n  a: 6\n  b: w";
    let lenient = toon::DecodeOptions::new().strict(false);
    let doc: Doc = toon::from_str_with(text, &lenient).unwrap();
    assert_eq!(
        doc,
        Doc {
            name: "Bob".into(),
            inner: Inner {
                a: 6,
                b: "w".into()
            },
            rows: vec![Inner {
                a: 3,
                b: "y".into()
            }],
            items: vec![Inner {
                a: 5,
                b: "z".into()
            }],
        }
    );
    // Untyped decoding keeps the first position with the last value, as the reference does.
    let v: Value = toon::from_str_with(text, &lenient).unwrap();
    assert_eq!(v["name"], "Bob");
    assert_eq!(v.as_object().unwrap().keys().next().unwrap(), "name");
    // Strict mode rejects the duplicate.
    assert!(toon::from_str::<Doc>(text).is_err());
}

#[test]
fn flatten_and_defaults_work_through_deserialize_any() {
    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    struct Meta {
        version: u32,
        tags: Vec<String>,
    }
    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    struct Doc {
        name: String,
        #[serde(flatten)]
        meta: Meta,
        #[serde(default)]
        missing: Vec<u8>,
        #[serde(flatten)]
        rest: BTreeMap<String, Value>,
    }
    let text = "name: x\nversion: 3\ntags[2]: a,b\nextra:\n  k: true";
    let doc: Doc = toon::from_str(text).unwrap();
    assert_eq!(doc.meta.version, 3);
    assert_eq!(doc.rest["extra"], toon!({"k": true}));
    assert!(doc.missing.is_empty());
    let again = toon::to_string(&doc).unwrap();
    assert_eq!(
        again,
        "name: x\nversion: 3\ntags[2]: a,b\nmissing: []\nextra:\n  k: true"
    );
}

#[test]
fn writer_failures_are_io_errors() {
    struct Broken;
    impl std::io::Write for Broken {
        fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
            Err(std::io::Error::new(
                std::io::ErrorKind::BrokenPipe,
                "pipe closed",
            ))
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let err = toon::to_writer(Broken, &toon!({"a": [1, 2]})).unwrap_err();
    assert_eq!(err.classify(), toon::Category::Io);
    assert!(std::error::Error::source(&err).is_some());
    let io: std::io::Error = err.into();
    assert_eq!(io.kind(), std::io::ErrorKind::BrokenPipe);
}

#[test]
fn non_string_map_keys_that_serde_json_rejects_are_errors() {
    let mut m = BTreeMap::new();
    m.insert(vec![1u8], 1u8);
    let err = toon::to_string(&m).unwrap_err();
    assert_eq!(err.classify(), toon::Category::Data);
    assert!(err.to_string().contains("key must be"), "{err}");
}

#[test]
fn options_apply_to_nested_scopes() {
    let v = toon!({"rows": [{"a": "x,y", "b": "p|q"}], "note": "x,y|z"});
    let pipe = toon::EncodeOptions::new()
        .delimiter(toon::Delimiter::Pipe)
        .indent_size(3);
    let text = toon::to_string_with(&v, &pipe).unwrap();
    assert_eq!(text, "rows[1|]{a|b}:\n   x,y|\"p|q\"\nnote: \"x,y|z\"");
    let back: Value =
        toon::from_str_with(&text, &toon::DecodeOptions::new().indent_size(3)).unwrap();
    assert_eq!(back, v);
}

#[test]
fn to_value_and_from_value_are_native_and_agree_with_serde_json() {
    let small = Everything {
        i128: -5,
        u128: 5,
        ..everything()
    };
    let v = toon::to_value(&small).unwrap();
    let via_json = Value::from(serde_json::to_value(&small).unwrap());
    for (k, val) in via_json.as_object().unwrap() {
        if k != "f32" {
            assert_eq!(&v[k], val, "field {k}");
        }
    }
    assert_eq!(
        v["f32"],
        Value::from(0.1f64),
        "f32 keeps its own shortest digits"
    );
    let back: Everything = toon::from_value(v.clone()).unwrap();
    assert_eq!(back, small);
    // Same bytes whether encoded from the typed value or from its Value.
    assert_eq!(
        toon::to_string(&small).unwrap(),
        toon::to_string(&v).unwrap()
    );
    assert!(
        toon::to_value(&everything()).is_err(),
        "u128::MAX does not fit a Value"
    );
    let err = toon::from_value::<Shape>(toon!([1, 2])).unwrap_err();
    assert!(err.to_string().contains("expected an enum"), "{err}");
}

/// Field names are checked for quoting once per name and remembered by address (§7.3):
/// names that need quotes, next to plain ones and map keys with the same text, stay quoted
/// on every record.
#[test]
fn struct_field_names_are_quoted_on_every_record_as_they_need() {
    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    struct Record {
        plain: u8,
        #[serde(rename = "a b")]
        spaced: u8,
        #[serde(rename = "1x")]
        digit: u8,
        #[serde(rename = "")]
        empty: u8,
        inner: Inner,
    }
    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    struct Inner {
        #[serde(rename = "-k")]
        hyphen: Vec<u8>,
        ok: u8,
    }
    let record = |n: u8| Record {
        plain: n,
        spaced: n,
        digit: n,
        empty: n,
        inner: Inner {
            hyphen: vec![n, 1],
            ok: n,
        },
    };
    let records: Vec<Record> = (0..3).map(record).collect();
    let text = toon::to_string(&records).unwrap();
    let one = "plain: 0\n    \"a b\": 0\n    \"1x\": 0\n    \"\": 0\n    inner:\n      \"-k\"[2]: 0,1\n      ok: 0";
    assert!(text.starts_with(&format!("[3]:\n  - {one}")), "{text}");
    assert_eq!(text.matches("\"a b\"").count(), 3, "{text}");
    assert_eq!(text.matches("\"-k\"[2]").count(), 3, "{text}");
    assert_eq!(toon::from_str::<Vec<Record>>(&text).unwrap(), records);
    // Map keys with the texts of remembered names are checked on their own.
    let mut map = BTreeMap::new();
    for key in ["plain", "a b", "1x", "", "-k", "ok"] {
        map.insert(key.to_string(), 1);
    }
    let text = toon::to_string(&(records, map)).unwrap();
    assert!(
        text.ends_with(
            "  - \"\": 1\n    \"-k\": 1\n    \"1x\": 1\n    \"a b\": 1\n    ok: 1\n    plain: 1"
        ),
        "{text}"
    );
}
