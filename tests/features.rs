//! This crate's features leave serde_json as it is for the rest of a build: key order
//! (`preserve_order`), float reading (`float_roundtrip`) and numbers (`arbitrary_precision`)
//! are serde_json's defaults here, whichever of our features this test binary was built with
//! (`cargo test --all-features` builds it with all of them). Key order and exact numbers come
//! from the crate's own types and readers instead: `toon::Value`, `Recording`,
//! `toon::json::from_str`.

#[test]
fn serde_json_keeps_its_default_key_order() {
    let json = serde_json::json!({"b": 1, "a": 2});
    assert_eq!(json.to_string(), r#"{"a":2,"b":1}"#, "preserve_order is on");
    // The crate's own value keeps the order it was given.
    let ours = toon::toon!({"b": 1, "a": 2});
    assert_eq!(serde_json::to_string(&ours).unwrap(), r#"{"b":1,"a":2}"#);
}

#[test]
fn serde_json_keeps_its_default_float_reading() {
    // serde_json reads this float one unit in the last place off without `float_roundtrip`.
    let token = "2.9168327507216497e-10";
    let default: f64 = serde_json::from_str(token).unwrap();
    assert_ne!(default, 2.9168327507216497e-10, "float_roundtrip is on");
    let ours: f64 = toon::json::from_str(token).unwrap();
    assert_eq!(ours, 2.9168327507216497e-10);
}

#[test]
fn serde_json_numbers_are_not_arbitrary_precision() {
    let big: serde_json::Value = serde_json::from_str("12345678901234567890123").unwrap();
    assert_eq!(
        big.to_string(),
        "1.2345678901234568e+22",
        "arbitrary_precision is on"
    );
}
