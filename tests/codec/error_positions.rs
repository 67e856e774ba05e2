//! Where decoding errors point: line, column (in characters) and the quoted source line, for
//! errors raised at a token, at a line, or after a container, in every construct. The
//! decoder carries byte addresses and counts lines only when an error leaves it, so these
//! pin that count.

use std::collections::BTreeMap;

use serde::Deserialize;

#[derive(Deserialize, Debug)]
#[allow(dead_code)]
struct Item {
    id: u32,
    tags: Vec<u8>,
}

#[derive(Deserialize, Debug)]
#[allow(dead_code)]
struct Doc {
    name: String,
    count: u16,
    items: Vec<Item>,
    #[serde(default)]
    table: Vec<Row>,
    #[serde(default)]
    keyed: BTreeMap<String, Row>,
}

#[derive(Deserialize, Debug)]
#[allow(dead_code)]
struct Row {
    a: u8,
    b: bool,
}

fn place(text: &str) -> (usize, usize, String) {
    let err = match toon::from_str::<Doc>(text) {
        Ok(doc) => panic!("{text:?} decoded: {doc:?}"),
        Err(err) => err,
    };
    let shown = err.to_string();
    let quoted = shown.rsplit_once(": \"").map_or("", |(_, q)| q);
    (
        err.line(),
        err.column(),
        quoted.trim_end_matches('"').to_owned(),
    )
}

#[test]
fn errors_point_at_the_token_the_line_or_the_container() {
    let head = "name: é\ncount: 3\n";
    let items = "items[1]:\n  - id: 1\n    tags[2]: 1,2\n";
    // A token of the wrong type after a key, after multi-byte text and CRLF line ends.
    assert_eq!(
        place("name: é\r\ncount: x\r\nitems[0]:"),
        (2, 8, "count: x".into())
    );
    // The root's first line, read at the cursor: a token, a repeated key, a quoted key's
    // line read the general way, and after a BOM.
    assert_eq!(place("count: x\nname: a"), (1, 8, "count: x".into()));
    assert_eq!(place("name: 5\ncount: 3"), (1, 7, "name: 5".into()));
    assert_eq!(place("count: 1\ncount: 2"), (2, 1, "count: 2".into()));
    assert_eq!(
        place("\"count\": x\nname: a"),
        (1, 10, "\\\"count\\\": x".into())
    );
    assert_eq!(place("\u{feff}count: x"), (1, 8, "count: x".into()));
    // A list item's first field, and a field under it.
    assert_eq!(
        place(&format!("{head}items[1]:\n  - id: -1\n    tags[0]:")),
        (4, 9, "  - id: -1".into())
    );
    // A cell of an inline array.
    assert_eq!(
        place(&format!("{head}items[1]:\n  - id: 1\n    tags[2]: 1,300")),
        (5, 16, "    tags[2]: 1,300".into())
    );
    // A tabular cell and a keyed table's cell.
    assert_eq!(
        place(&format!(
            "{head}{items}table[2]{{a,b}}:\n  1,true\n  2,maybe"
        )),
        (8, 5, "  2,maybe".into())
    );
    assert_eq!(
        place(&format!(
            "{head}{items}keyed[2:]{{a,b}}:\n  k: 1,true\n  j: 999,false"
        )),
        (8, 6, "  j: 999,false".into())
    );
    // A missing field: reported on the last line read, column 1.
    assert_eq!(
        place(&format!("{head}items[1]:\n  - id: 1")),
        (4, 1, "  - id: 1".into())
    );
    // Syntax: a row with too few cells, a count mismatch at the end of input.
    assert_eq!(
        place(&format!("{head}{items}table[1]{{a,b}}:\n  1")),
        (7, 3, "  1".into())
    );
    let (line, column, _) = place(&format!("{head}{items}table[3]{{a,b}}:\n  1,true"));
    assert_eq!((line, column), (7, 3));
    // A strict blank line inside a table: the blank line itself.
    let (line, column, _) = place(&format!(
        "{head}{items}table[2]{{a,b}}:\n  1,true\n\n  2,false"
    ));
    assert_eq!((line, column), (8, 1));
}
