//! `toon::Value`, `Map` and `Number` used the way a serde_json user writes them: every item of
//! serde_json's API that TOON's model allows, with serde_json's names and behaviour. Each test
//! runs the same steps on serde_json's types beside ours where serde_json has them, so a
//! difference in behaviour fails here.

// The comparisons are spelled both ways on purpose, as users write them.
#![allow(
    clippy::nonminimal_bool,
    clippy::bool_comparison,
    clippy::op_ref,
    clippy::cmp_owned
)]

use serde::Deserialize;
use toon::{Map, Number, Value, toon};

#[test]
fn map_entry_api() {
    let mut m = Map::new();
    *m.entry("count").or_insert(Value::from(0)) = Value::from(1);
    m.entry("count")
        .and_modify(|v| *v = Value::from(v.as_i64().unwrap() + 1))
        .or_insert(Value::from(0));
    m.entry("list")
        .or_insert_with(|| Value::Array(vec![]))
        .as_array_mut()
        .unwrap()
        .push(1.into());
    m.entry(String::from("empty")).or_default();
    assert_eq!(m.entry("count").key(), "count");
    assert_eq!(
        Value::Object(m.clone()),
        toon!({"count": 2, "list": [1], "empty": null})
    );

    match m.entry("count") {
        toon::map::Entry::Occupied(mut o) => {
            assert_eq!(o.key(), "count");
            assert_eq!(o.get(), &2);
            *o.get_mut() = 5.into();
            assert_eq!(o.insert(6.into()), 5);
            assert_eq!(o.remove(), 6);
        }
        toon::map::Entry::Vacant(_) => panic!("count is there"),
    }
    match m.entry("new") {
        toon::map::Entry::Vacant(v) => {
            assert_eq!(v.key(), "new");
            *v.insert(true.into()) = false.into();
        }
        toon::map::Entry::Occupied(_) => panic!("new is not there"),
    }
    // Insertion order as serde_json's preserve_order: `new` is last, `count` is gone.
    assert_eq!(m.keys().collect::<Vec<_>>(), ["list", "empty", "new"]);
    assert_eq!(m["new"], false);

    // Past the small-map threshold the same API works the same way.
    let mut big = Map::new();
    for i in 0..40 {
        *big.entry(format!("k{}", i % 20)).or_insert(0.into()) = Value::from(
            big.get(&format!("k{}", i % 20))
                .and_then(Value::as_i64)
                .unwrap_or(0)
                + 1,
        );
    }
    assert_eq!(big.len(), 20);
    assert!(big.values().all(|v| *v == 2));
}

#[test]
fn value_accessors() {
    let mut v = toon!({"a": [1, -2, 2.5, null], "b": {"c": "d"}});
    *v.get_mut("b").unwrap().get_mut("c").unwrap() = "e".into();
    assert_eq!(v["b"]["c"], "e");
    *v.get_mut("a").unwrap().get_mut(0).unwrap() = 10.into();
    assert_eq!(v["a"][0], 10);
    assert!(v.get_mut("zz").is_none());
    assert_eq!(v["a"][3].as_null(), Some(()));
    assert_eq!(v["a"][0].as_null(), None);
    assert!(v["a"][0].is_i64() && v["a"][0].is_u64() && !v["a"][0].is_f64());
    assert!(v["a"][1].is_i64() && !v["a"][1].is_u64());
    assert!(v["a"][2].is_f64() && !v["a"][2].is_i64());
    assert!(!v["b"].is_i64());

    let mut unsorted = toon!({"b": 1, "a": {"z": 1, "y": [{"q": 1, "p": 2}]}});
    unsorted.sort_all_objects();
    assert_eq!(
        unsorted.to_string(),
        "a:\n  y[1]{p,q}:\n    2,1\n  z: 1\nb: 1"
    );
}

#[test]
fn partial_eq_both_directions() {
    let f = Value::from(1.5);
    assert!(f == 1.5 && 1.5 == f && f == 1.5f32 && 1.5f32 == f);
    let i = Value::from(1);
    assert!(i == 1 && 1 == i && i == 1u8 && 1u64 == i && i == 1isize && 1usize == i);
    assert!(i == 1i16 && 1i32 == i && i != 2);
    let s = Value::from("a");
    assert!(s == "a" && "a" == s && s == String::from("a") && String::from("a") == s);
    assert!(s == *"a" && *"a" == s);
    let b = Value::from(true);
    assert!(b == true && true == b);
    let r = &s;
    assert!(r == "a" && *r == "a");
    let mut m = Value::from(3);
    let rm = &mut m;
    assert!(*rm == 3);
    // The same as serde_json, value by value.
    let j = serde_json::json!({"x": 1, "y": 1.5, "z": "a"});
    assert_eq!(j["x"] == 1, Value::from(j["x"].clone()) == 1);
    assert_eq!(j["y"] == 1.5, Value::from(j["y"].clone()) == 1.5);
    assert_eq!(j["z"] == "a", Value::from(j["z"].clone()) == "a");
}

#[test]
fn map_methods() {
    let mut m: Map = [
        ("b", Value::from(1)),
        ("a", Value::from(2)),
        ("c", Value::from(3)),
    ]
    .into_iter()
    .collect();
    m.sort_keys();
    assert_eq!(m.keys().collect::<Vec<_>>(), ["a", "b", "c"]);
    for v in m.values_mut() {
        *v = Value::from(v.as_i64().unwrap() * 10);
    }
    assert_eq!(m.get_key_value("b"), Some(("b", &Value::from(10))));
    m["c"] = 31.into();
    assert_eq!(m["c"], 31);
    assert_eq!(
        m.remove_entry("a"),
        Some(("a".to_string(), Value::from(20)))
    );
    let mut other = Map::new();
    other.insert("d".into(), 4.into());
    other.insert("b".into(), 11.into());
    m.append(&mut other);
    assert!(other.is_empty());
    assert_eq!(m.keys().collect::<Vec<_>>(), ["b", "c", "d"]);
    assert_eq!(m["b"], 11);

    let mut s = m.clone();
    assert_eq!(s.shift_remove("b"), Some(Value::from(11)));
    assert_eq!(s.keys().collect::<Vec<_>>(), ["c", "d"]);
    let mut w = m.clone();
    assert_eq!(w.swap_remove("b"), Some(Value::from(11)));
    assert_eq!(w.keys().collect::<Vec<_>>(), ["d", "c"]);
    let mut se = m.clone();
    assert_eq!(
        se.shift_remove_entry("c"),
        Some(("c".to_string(), Value::from(31)))
    );
    let mut we = m.clone();
    assert_eq!(
        we.swap_remove_entry("c"),
        Some(("c".to_string(), Value::from(31)))
    );

    assert_eq!(
        m.clone().into_values().collect::<Vec<_>>(),
        [11, 31, 4].map(Value::from)
    );
    m.clear();
    assert!(m.is_empty());
}

#[test]
fn number_api() {
    assert!(Number::from_i128(-(1i128 << 70)).is_none());
    assert_eq!(Number::from_i128(-5).unwrap().as_i64(), Some(-5));
    assert_eq!(Number::from_i128(5).unwrap().as_i64(), Some(5));
    assert_eq!(
        Number::from_u128(u128::from(u64::MAX)).unwrap().as_u64(),
        Some(u64::MAX)
    );
    assert_eq!(Number::from(7).as_i128(), Some(7));
    assert_eq!(Number::from(7u64).as_u128(), Some(7));
    assert_eq!(Number::from_f64(1.5).unwrap().as_i128(), None);
    assert_eq!("12".parse::<Number>().unwrap(), Number::from(12));
    assert_eq!("-1.5e3".parse::<Number>().unwrap().as_f64(), Some(-1500.0));
    assert!("x".parse::<Number>().is_err());
    assert!("NaN".parse::<Number>().is_err());
    assert!("1e400".parse::<Number>().is_err());
    assert!(
        "05".parse::<Number>().is_err(),
        "leading zeros make a string in TOON (§4)"
    );
    assert!(" 1".parse::<Number>().is_err());
    let err = "x".parse::<Number>().unwrap_err();
    assert_eq!((err.line(), err.column()), (1, 1));
    // serde_json's answers for the same calls.
    assert_eq!(
        serde_json::Number::from_i128(5).map(|n| n.as_i64()),
        Number::from_i128(5).map(|n| n.as_i64())
    );
    assert_eq!(
        serde_json::Number::from_i128(1i128 << 70).is_some(),
        Number::from_i128(1i128 << 70).is_some()
    );
}

#[test]
fn from_serde_json_map_and_value_as_deserializer() {
    let mut jm = serde_json::Map::new();
    jm.insert("z".into(), serde_json::json!(1));
    jm.insert("a".into(), serde_json::json!([true]));
    let v = Value::from(jm);
    assert_eq!(v["a"][0], true);

    #[derive(Deserialize, Debug, PartialEq)]
    struct P {
        x: i32,
        tags: Vec<String>,
    }
    let v = toon!({"x": 3, "tags": ["a", "b"]});
    let p = P::deserialize(&v).unwrap();
    assert_eq!(
        p,
        P {
            x: 3,
            tags: vec!["a".into(), "b".into()]
        }
    );
    let p2 = P::deserialize(v).unwrap();
    assert_eq!(p, p2);
    let e = P::deserialize(&toon!({"x": "no"})).unwrap_err();
    assert!(e.to_string().contains("invalid type"), "{e}");
}
