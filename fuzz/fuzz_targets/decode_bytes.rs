//! Arbitrary bytes, strict and non-strict, any indent: decoding returns Ok or Err, never panics,
//! and whatever decodes re-encodes and decodes to the same value.
#![no_main]

use libfuzzer_sys::fuzz_target;
use toon::{DecodeOptions, Value};

fuzz_target!(|data: &[u8]| {
    let Some((&flags, text)) = data.split_first() else {
        return;
    };
    let options = DecodeOptions::new()
        .strict(flags & 1 == 0)
        .indent_size(1 + usize::from((flags >> 1) & 3));
    if let Ok(value) = toon::from_slice_with::<Value>(text, &options) {
        let again = toon::to_string(&value).expect("a decoded value encodes");
        let back: Value = toon::from_str(&again).expect("encoder output decodes");
        assert_eq!(
            toon::to_string(&back).unwrap(),
            again,
            "re-encoding is stable"
        );
    }
    let _ = toon::from_slice_with::<serde_json::Value>(text, &options);
});
