//! The contenders: toon-codec and the other Rust TOON crates behind one signature, so the
//! bench and the table run exactly the same calls.

use serde::de::DeserializeOwned;
use serde::Serialize;

/// The crates in table order; index 0 is ours.
pub const CRATES: [&str; 3] = ["toon-codec", "serde_toon 0.3.0", "toon-format 0.7.0"];

/// Encodes `value` with crate `i` of [`CRATES`].
pub fn encode<T: Serialize>(i: usize, value: &T) -> Result<String, String> {
    match i {
        0 => toon::to_string(value).map_err(|e| e.to_string()),
        1 => serde_toon::to_string(value).map_err(|e| e.to_string()),
        _ => toon_format::encode_default(value).map_err(|e| e.to_string()),
    }
}

/// Decodes `text` into `T` with crate `i` of [`CRATES`].
pub fn decode<T: DeserializeOwned>(i: usize, text: &str) -> Result<T, String> {
    match i {
        0 => toon::from_str(text).map_err(|e| e.to_string()),
        1 => serde_toon::from_str(text).map_err(|e| e.to_string()),
        _ => toon_format::decode_default(text).map_err(|e| e.to_string()),
    }
}
