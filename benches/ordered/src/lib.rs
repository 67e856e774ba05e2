//! The baseline's one property this package exists for.

/// Whether serde_json's `Map` keeps insertion order here (`preserve_order` is on).
#[must_use]
pub fn keeps_order() -> bool {
    let map: serde_json::Value = serde_json::from_str(r#"{"b":1,"a":2}"#).unwrap();
    map.as_object()
        .is_some_and(|m| m.keys().map(String::as_str).eq(["b", "a"]))
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_baseline_keeps_insertion_order() {
        assert!(super::keeps_order());
    }
}
