//! Property tests: for arbitrary JSON-model values, decoding an encoding gives the value back
//! (under every delimiter and indent), encoding is deterministic, and typed values survive a
//! round trip through serde derive.

use proptest::prelude::*;
use serde::{Deserialize, Serialize};
use toon::{DecodeOptions, Delimiter, EncodeOptions, Map, Number, Value};

/// Strings rich in the characters TOON's quoting rules care about.
fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-zA-Z_][a-zA-Z0-9_.]{0,8}",
        "[ -~]{0,10}",
        "[\\t\\n\\r\\u{0}-\\u{1f} ,|:#\"\\\\\\[\\]{}\\-]{0,6}",
        "\\PC{0,8}",
        prop::sample::select(vec![
            "",
            "true",
            "null",
            "-",
            "#",
            "05",
            "1e5",
            "-3.5",
            " x",
            "x ",
            "[]",
            "- x",
            "\u{feff}a"
        ])
        .prop_map(String::from),
    ]
}

fn number() -> impl Strategy<Value = Value> {
    prop_oneof![
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(|f| Value::Number(Number::from_f64(f).unwrap())),
        (-1000i64..1000).prop_map(Value::from),
    ]
}

fn leaf() -> BoxedStrategy<Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        number(),
        text().prop_map(Value::String),
    ]
    .boxed()
}

fn object_of(inner: BoxedStrategy<Value>) -> BoxedStrategy<Value> {
    prop::collection::vec((text(), inner), 0..5)
        .prop_map(|entries| {
            let mut m = Map::new();
            for (k, v) in entries {
                m.insert(k, v);
            }
            Value::Object(m)
        })
        .boxed()
}

/// Arrays of objects sharing keys (some rows reordered), to exercise tabular and nested groups.
fn uniform_rows(inner: BoxedStrategy<Value>) -> BoxedStrategy<Value> {
    (prop::collection::vec(text(), 1..4), 1usize..4)
        .prop_flat_map(move |(keys, rows)| {
            let keys: Vec<String> = {
                let mut k = keys;
                k.sort();
                k.dedup();
                k
            };
            prop::collection::vec(
                (
                    prop::collection::vec(inner.clone(), keys.len()),
                    any::<bool>(),
                ),
                rows,
            )
            .prop_map(move |rows| {
                Value::Array(
                    rows.into_iter()
                        .map(|(vals, reverse)| {
                            let mut pairs: Vec<_> = keys.iter().cloned().zip(vals).collect();
                            if reverse {
                                pairs.reverse();
                            }
                            Value::Object(pairs.into_iter().collect())
                        })
                        .collect(),
                )
            })
        })
        .boxed()
}

fn value() -> impl Strategy<Value = Value> {
    leaf().prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            object_of(inner.clone()),
            uniform_rows(prop_oneof![leaf(), object_of(leaf())].boxed()),
            // Objects of uniform objects: keyed tabular candidates.
            uniform_rows(leaf()).prop_map(|rows| {
                let Value::Array(rows) = rows else {
                    unreachable!()
                };
                Value::Object(
                    rows.into_iter()
                        .enumerate()
                        .map(|(i, r)| (format!("e{i}"), r))
                        .collect(),
                )
            }),
        ]
    })
}

/// §2 equality for a host with exact integers: a float the encoder printed as integer digits
/// (JavaScript does so from 2^53 up) decodes as that exact integer, which rounds back to the
/// same float; anything else must match exactly. Key order is not compared here (tabular rows
/// take the header's order, §2).
fn equivalent(decoded: &Value, original: &Value) -> bool {
    match (decoded, original) {
        (Value::Number(a), Value::Number(b)) => a == b || (b.is_f64() && a.as_f64() == b.as_f64()),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| equivalent(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| equivalent(v, w)))
        }
        _ => decoded == original,
    }
}

fn options() -> impl Strategy<Value = (Delimiter, usize)> {
    (
        prop::sample::select(vec![Delimiter::Comma, Delimiter::Tab, Delimiter::Pipe]),
        1usize..5,
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn decode_inverts_encode(v in value(), (delim, indent) in options()) {
        let text = toon::to_string_with(&v, &EncodeOptions::new().delimiter(delim).indent_size(indent)).unwrap();
        let back: Value = toon::from_str_with(&text, &DecodeOptions::new().indent_size(indent))
            .unwrap_or_else(|e| panic!("{e}\n--- text\n{text}"));
        prop_assert!(equivalent(&back, &v), "decoded {:?}\ntext:\n{}", back, text);
        // Non-strict decoding of conforming output gives the same value.
        let lenient: Value = toon::from_str_with(&text, &DecodeOptions::new().strict(false).indent_size(indent)).unwrap();
        prop_assert!(equivalent(&lenient, &v));
    }

    #[test]
    fn encoding_is_deterministic_and_writer_agrees(v in value()) {
        let a = toon::to_string(&v).unwrap();
        let b = toon::to_string(&v).unwrap();
        prop_assert_eq!(&a, &b);
        let mut w = Vec::new();
        toon::to_writer(&mut w, &v).unwrap();
        prop_assert_eq!(a.as_bytes(), &w[..]);
        prop_assert!(!a.ends_with('\n'));
        prop_assert!(a.lines().all(|l| !l.ends_with(' ')), "no trailing spaces");
    }

    #[test]
    fn decoding_arbitrary_text_never_panics(text in "[ -~\\t\\n]{0,80}", strict in any::<bool>()) {
        let _ = toon::from_str_with::<Value>(&text, &DecodeOptions::new().strict(strict));
    }
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
enum Kind {
    A,
    B(i32),
    C { x: Option<u8>, y: String },
    D(u8, bool),
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Inner {
    name: String,
    score: f64,
    tags: Vec<String>,
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Model {
    id: u64,
    delta: i32,
    ratio: f32,
    flag: bool,
    label: Option<String>,
    kind: Kind,
    inner: Inner,
    rows: Vec<Inner>,
    pairs: Vec<(u16, String)>,
    kinds: Vec<Kind>,
    counts: std::collections::BTreeMap<String, u32>,
    big: i128,
}

fn kind() -> impl Strategy<Value = Kind> {
    prop_oneof![
        Just(Kind::A),
        any::<i32>().prop_map(Kind::B),
        (any::<Option<u8>>(), text()).prop_map(|(x, y)| Kind::C { x, y }),
        (any::<u8>(), any::<bool>()).prop_map(|(a, b)| Kind::D(a, b)),
    ]
}

fn inner() -> impl Strategy<Value = Inner> {
    (
        text(),
        any::<f64>().prop_filter("finite", |f| f.is_finite()),
        prop::collection::vec(text(), 0..3),
    )
        .prop_map(|(name, score, tags)| Inner { name, score, tags })
}

prop_compose! {
    fn model()(
        id in any::<u64>(), delta in any::<i32>(),
        ratio in any::<f32>().prop_filter("finite", |f| f.is_finite()),
        flag in any::<bool>(), label in prop::option::of(text()), kind in kind(),
        inner in inner(), rows in prop::collection::vec(inner(), 0..4),
        pairs in prop::collection::vec((any::<u16>(), text()), 0..3),
        kinds in prop::collection::vec(kind(), 0..4),
        counts in prop::collection::btree_map(text(), any::<u32>(), 0..4),
        big in any::<i128>(),
    ) -> Model {
        Model { id, delta, ratio, flag, label, kind, inner, rows, pairs, kinds, counts, big }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn typed_values_round_trip(m in model()) {
        let text = toon::to_string(&m).unwrap();
        let back: Model = toon::from_str(&text).unwrap_or_else(|e| panic!("{e}\n--- text\n{text}"));
        prop_assert_eq!(back, m);
    }
}

#[derive(Serialize, Debug, Clone)]
struct Variants {
    same_newtype: Vec<Kind>,
    same_struct: Vec<Kind>,
    mixed: Vec<Kind>,
    keyed: std::collections::BTreeMap<String, Kind>,
    first: Vec<Holder>,
}

#[derive(Serialize, Debug, Clone)]
struct Holder {
    kind: Kind,
    n: u8,
}

fn variants() -> impl Strategy<Value = Variants> {
    (
        prop::collection::vec(any::<i32>().prop_map(Kind::B), 0..4),
        prop::collection::vec(
            (any::<Option<u8>>(), text()).prop_map(|(x, y)| Kind::C { x, y }),
            0..4,
        ),
        prop::collection::vec(kind(), 0..5),
        prop::collection::btree_map(text(), kind(), 0..4),
        prop::collection::vec(
            (kind(), any::<u8>()).prop_map(|(kind, n)| Holder { kind, n }),
            0..4,
        ),
    )
        .prop_map(
            |(same_newtype, same_struct, mixed, keyed, first)| Variants {
                same_newtype,
                same_struct,
                mixed,
                keyed,
                first,
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    /// Typed encoding (which sees enum variants as serde calls) equals encoding the same data
    /// as a JSON-model value (where variants are plain one-key objects).
    #[test]
    fn typed_encoding_matches_the_json_model(v in variants(), (delim, indent) in options()) {
        let opts = EncodeOptions::new().delimiter(delim).indent_size(indent);
        let typed = toon::to_string_with(&v, &opts).unwrap();
        // Its JSON text read into `Value`, which keeps the keys' order (serde_json's map sorts
        // them).
        let model: Value = toon::json::from_str(&serde_json::to_string(&v).unwrap()).unwrap();
        prop_assert_eq!(&typed, &toon::to_string_with(&model, &opts).unwrap());
        // The serde-trait Serializer (which records the root) writes the same bytes.
        let mut out = Vec::new();
        v.serialize(&mut toon::Serializer::with_options(&mut out, &opts)).unwrap();
        prop_assert_eq!(typed.as_bytes(), &out[..]);
    }

    #[test]
    fn typed_model_encoding_matches_the_json_model(m in model()) {
        // Only data the JSON model holds (`to_value` refuses integers beyond 64 bits).
        if serde_json::to_value(&m).is_ok() {
            let typed = toon::to_string(&m).unwrap();
            let model: Value = toon::json::from_str(&serde_json::to_string(&m).unwrap()).unwrap();
            prop_assert_eq!(typed, toon::to_string(&model).unwrap());
        }
    }
}
