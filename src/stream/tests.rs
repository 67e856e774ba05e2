//! The event reader against the decoder.

use super::*;

fn events(text: &str) -> Vec<Event<'_>> {
    from_str(text).collect::<Result<_>>().unwrap()
}

#[test]
fn a_small_document() {
    let got = events("a: 1\nb[2]{x,y}:\n  1,2\n  3,4\nc[0]:\nd:\ne[2]: a,\"b\"");
    assert_eq!(got.len(), 32, "{got:?}");
}
