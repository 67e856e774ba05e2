//! Arbitrary JSON-model values under every delimiter and indent: decode(encode(v)) == v.
#![no_main]

use arbitrary::{Arbitrary, Unstructured};
use libfuzzer_sys::fuzz_target;
use toon::{DecodeOptions, Delimiter, EncodeOptions, Map, Number, Value};

fn value(u: &mut Unstructured<'_>, depth: u32) -> arbitrary::Result<Value> {
    let kind = if depth > 5 {
        u.int_in_range(0..=4)?
    } else {
        u.int_in_range(0..=7)?
    };
    Ok(match kind {
        0 => Value::Null,
        1 => Value::Bool(u.arbitrary()?),
        2 => Value::from(i64::arbitrary(u)?),
        3 => Number::from_f64(u.arbitrary()?).map_or(Value::Null, Value::Number),
        4 => Value::String(u.arbitrary()?),
        5 => {
            let n = u.int_in_range(0..=5)?;
            Value::Array(
                (0..n)
                    .map(|_| value(u, depth + 1))
                    .collect::<Result<_, _>>()?,
            )
        }
        6 => {
            // Rows sharing keys, to reach tabular, nested-group and keyed forms.
            let keys: Vec<String> = (0..u.int_in_range(1..=3)?)
                .map(|_| u.arbitrary())
                .collect::<Result<_, _>>()?;
            let rows = u.int_in_range(1..=4)?;
            let mut out = Vec::new();
            for _ in 0..rows {
                let mut m = Map::new();
                for k in &keys {
                    m.insert(k.clone(), value(u, depth + 2)?);
                }
                out.push(Value::Object(m));
            }
            if u.arbitrary()? {
                Value::Array(out)
            } else {
                Value::Object(
                    out.into_iter()
                        .enumerate()
                        .map(|(i, v)| (format!("k{i}"), v))
                        .collect(),
                )
            }
        }
        _ => {
            let mut m = Map::new();
            for _ in 0..u.int_in_range(0..=4)? {
                m.insert(u.arbitrary()?, value(u, depth + 1)?);
            }
            Value::Object(m)
        }
    })
}

/// Equality by value; floats printed as integer digits (>= 2^53) decode as that integer.
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

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let Ok(v) = value(&mut u, 0) else { return };
    let delimiter = [Delimiter::Comma, Delimiter::Tab, Delimiter::Pipe]
        [usize::from(data.first().copied().unwrap_or(0) % 3)];
    let indent = 1 + usize::from(data.last().copied().unwrap_or(0) % 4);
    let text = toon::to_string_with(
        &v,
        &EncodeOptions::new()
            .delimiter(delimiter)
            .indent_size(indent),
    )
    .expect("every Value encodes");
    let back: Value = toon::from_str_with(&text, &DecodeOptions::new().indent_size(indent))
        .unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert!(
        equivalent(&back, &v),
        "round trip changed the value:\n{text}"
    );
});
