//! The primer: the shortest system-prompt text that teaches a model to read TOON.

/// System-prompt lines that teach a model to read TOON (and the catalog's signatures).
/// 129 o200k tokens; every example in it is valid TOON (a test decodes them).
pub const PRIMER: &str = "\
Some tool results are TOON, a compact JSON: `key: value` lines, nesting by indentation, \
`[N]` = array length.
Tables list field names once, then one row per item:
users[2]{id,name}:
  1,Ada
  2,Bob
= {\"users\":[{\"id\":1,\"name\":\"Ada\"},{\"id\":2,\"name\":\"Bob\"}]}
Lists: `tags[2]: a,b`; items on their own lines start with `- `. Strings are quoted only when \
needed. Tool params: name = required string, name:type, name? optional, =default.";

#[cfg(test)]
mod tests {
    use super::PRIMER;
    use crate::Value;

    #[test]
    fn the_examples_decode_to_what_the_primer_says() {
        let table: String = PRIMER
            .lines()
            .skip_while(|l| !l.starts_with("users[2]"))
            .take(3)
            .collect::<Vec<_>>()
            .join("\n");
        let decoded: Value = crate::from_str(&table).unwrap();
        let claimed = PRIMER.lines().find_map(|l| l.strip_prefix("= ")).unwrap();
        let claimed: Value = serde_json::from_str(claimed).unwrap();
        assert_eq!(decoded, claimed);
        let list: Value = crate::from_str("tags[2]: a,b").unwrap();
        assert_eq!(list["tags"][1], "b");
        assert!(PRIMER.contains("`tags[2]: a,b`"));
    }

    #[cfg(feature = "tiktoken")]
    #[test]
    fn the_primer_costs_what_its_docs_say() {
        let n = crate::tokens::count(PRIMER, crate::tokens::Encoding::O200kBase);
        assert!(n <= 130, "{n}");
    }
}
