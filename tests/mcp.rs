//! `toon::mcp` on real data: the `tools/list` results and tool results of seven real MCP
//! servers, captured from the servers (`tests/fixtures/mcp`).
// A test reads as a script: some run past the 80 lines a function is held to.
#![allow(clippy::too_many_lines)]

#[path = "retrieval/mod.rs"]
mod retrieval;

use std::path::PathBuf;

use serde_json::{Value as Json, json, value::RawValue};
use toon::mcp::{
    Catalog, Format, Grouping, META_KEY, MetaCall, MetaTools, Policy, ResultEncoder, Server,
    Shaping, SkipReason, Status, Structured, Tool,
};
use toon::tokens::cost;

const SERVERS: [&str; 7] = [
    "everything",
    "fetch",
    "filesystem",
    "git",
    "memory",
    "seqthink",
    "time",
];

/// The default policy, then `set` (`Policy` is `#[non_exhaustive]`).
fn policy(set: impl FnOnce(&mut Policy)) -> Policy {
    let mut policy = Policy::default();
    set(&mut policy);
    policy
}

/// No shaping, then `set` (`Shaping` is `#[non_exhaustive]`).
fn shaping(set: impl FnOnce(&mut Shaping)) -> Shaping {
    let mut shaping = Shaping::default();
    set(&mut shaping);
    shaping
}

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/mcp")
}

fn list_text(server: &str) -> String {
    std::fs::read_to_string(fixtures().join(format!("lists/{server}.json"))).unwrap()
}

fn catalog() -> Catalog {
    let mut catalog = Catalog::new();
    for server in SERVERS {
        catalog.add_server(server, &list_text(server)).unwrap();
    }
    catalog
}

/// Every captured `(tool, CallToolResult)`.
fn results() -> Vec<(String, Json)> {
    let mut out = Vec::new();
    for file in ["evres", "fsres", "memres", "timeres"] {
        let text =
            std::fs::read_to_string(fixtures().join(format!("results/{file}.jsonl"))).unwrap();
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let v: Json = serde_json::from_str(line).unwrap();
            out.push((v["call"].as_str().unwrap().to_owned(), v["result"].clone()));
        }
    }
    out
}

/// Tokens as `docs/proxy.md` reports them: exact o200k with `tiktoken`, else the estimate.
fn tokens(text: &str) -> usize {
    cost(text)
}

#[test]
fn describe_returns_each_definition_byte_for_byte() {
    let catalog = catalog();
    let mut n = 0;
    for server in SERVERS {
        #[derive(serde::Deserialize)]
        struct List<'a> {
            #[serde(borrow)]
            tools: Vec<&'a RawValue>,
        }
        let text = list_text(server);
        let list: List<'_> = serde_json::from_str(&text).unwrap();
        for raw in list.tools {
            let name = serde_json::from_str::<Json>(raw.get()).unwrap()["name"]
                .as_str()
                .unwrap()
                .to_owned();
            assert_eq!(catalog.describe(&name), Some(raw.get()), "{server}/{name}");
            n += 1;
        }
    }
    assert_eq!(n, 52);
    assert_eq!(catalog.len(), 52);
}

#[test]
fn full_view_names_every_tool_and_parameter_within_budget() {
    let catalog = catalog();
    let full = catalog.full().unwrap();
    let decoded: toon::Value =
        toon::from_str_with(&full, &toon::mcp::table_decode_options()).unwrap();
    for tool in catalog.tools() {
        let rows = decoded[tool.server()].as_array().unwrap();
        let row = rows
            .iter()
            .find(|r| r["name"] == tool.name())
            .unwrap_or_else(|| panic!("{} missing", tool.name()));
        let params = row["params"].as_str().unwrap();
        let schema = tool.input_schema().unwrap();
        let required: Vec<&str> = schema
            .get("required")
            .and_then(|r| r.as_array())
            .map(|r| r.iter().filter_map(|v| v.as_str()).collect())
            .unwrap_or_default();
        if let Some(props) = schema.get("properties").and_then(|p| p.as_object()) {
            for (name, prop) in props.iter() {
                // Each top-level parameter appears as `name`, `name?`, `name:` or `name=`.
                let entry = params
                    .split(' ')
                    .find(|p| {
                        p.strip_prefix(name).is_some_and(|rest| {
                            rest.is_empty() || rest.starts_with(['?', ':', '='])
                        })
                    })
                    .unwrap_or_else(|| panic!("{}: {name} missing in {params:?}", tool.name()));
                let optional_mark = entry[name.len()..].starts_with('?') || entry.contains('=');
                assert_eq!(
                    optional_mark,
                    !required.contains(&name),
                    "{}: {entry}",
                    tool.name()
                );
                let is_string = prop.get("type").and_then(|t| t.as_str()) == Some("string")
                    && prop.get("enum").is_none();
                // A string whose description lists its choices shows them as an enum's.
                let description = prop.get("description").and_then(|d| d.as_str());
                let choices = entry.split_once(':').is_some_and(|(_, values)| {
                    values
                        .split('|')
                        .all(|v| description.is_some_and(|d| d.contains(&format!("'{v}'"))))
                });
                assert_eq!(
                    !entry.contains(':') || choices,
                    is_string,
                    "{}: {entry}",
                    tool.name()
                );
            }
        }
    }
    let compact: usize = SERVERS
        .iter()
        .map(|s| {
            let v: Json = serde_json::from_str(&list_text(s)).unwrap();
            tokens(&serde_json::to_string(&json!({"tools": v["tools"]})).unwrap())
        })
        .sum();
    let full_tokens = tokens(&full);
    let lean_tokens = tokens(&catalog.lean());
    eprintln!("compact {compact}, full {full_tokens}, lean {lean_tokens}");
    // The targets are in exact o200k tokens; the estimate over-counts short cells.
    let (full_max, lean_max) = if cfg!(feature = "tiktoken") {
        (0.12, 0.02)
    } else {
        (0.15, 0.02)
    };
    assert!(
        full_tokens as f64 <= full_max * compact as f64,
        "{full_tokens} / {compact}"
    );
    assert!(
        lean_tokens as f64 <= lean_max * compact as f64,
        "{lean_tokens} / {compact}"
    );
}

/// Every captured `tools/list` (`lists/*.json`): the server named after its file, and the text.
fn captured_lists() -> Vec<(String, String)> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(fixtures().join("lists"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let name = p.file_stem().unwrap().to_str().unwrap().to_owned();
            (name, std::fs::read_to_string(&p).unwrap())
        })
        .collect()
}

/// The catalogs every view is checked on: each captured list alone, and all of them with a
/// copy of one (the names both have become `SERVER__NAME`), a server without tools and one
/// that could not start.
fn view_catalogs() -> Vec<Catalog> {
    let lists = captured_lists();
    assert_eq!(lists.len(), SERVERS.len());
    let mut catalogs: Vec<Catalog> = lists
        .iter()
        .map(|(name, text)| {
            let mut one = Catalog::new();
            one.add_server(name, text).unwrap();
            one
        })
        .collect();
    let mut all = Catalog::new();
    for (name, text) in &lists {
        all.add_server(name, text).unwrap();
    }
    all.add_server("copy", &list_text("filesystem")).unwrap();
    all.add_server("empty", r#"{"tools": []}"#).unwrap();
    all.add_unavailable("down", "start-up timed out after 30s");
    catalogs.push(all);
    catalogs
}

/// A table view decoded as its docs say: strict, `toon::mcp::table_decode_options()`.
fn decode_table(text: &str) -> toon::Value {
    toon::from_str_with(text, &toon::mcp::table_decode_options())
        .unwrap_or_else(|e| panic!("{e}:\n{text}"))
}

/// What the `full` view says of a tool: its name, its description's first sentence, and its
/// parameter signature.
fn full_row(tool: &Tool) -> toon::Value {
    toon::Value::from(json!({
        "name": tool.name(),
        "description": tool.summary(),
        "params": tool.signature().unwrap(),
    }))
}

/// What a server's entry in the `full` view says: its tools' rows, or why it has none.
fn full_entry(server: &Server) -> toon::Value {
    match server.status() {
        Status::Ready => toon::Value::Array(server.tools().iter().map(full_row).collect()),
        Status::Unavailable(why) => toon::Value::String(format!("unavailable: {why}")),
    }
}

/// A definition view (`describe_toon`, `get_tool_spec`) decoded: compact JSON where the view
/// chose it, else TOON, strict, with the default options.
fn decode_definition(text: &str) -> toon::Value {
    if text.starts_with('{') {
        return serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}:\n{text}"));
    }
    toon::from_str(text).unwrap_or_else(|e| panic!("{e}:\n{text}"))
}

#[test]
fn every_view_decodes_to_what_it_says() {
    for catalog in view_catalogs() {
        let servers: Vec<&str> = catalog.servers().iter().map(|s| s.name()).collect();

        // full: a table per server, in order, a row per tool; an unavailable server's reason.
        let full = decode_table(&catalog.full().unwrap());
        let mut expected = toon::Map::new();
        for server in catalog.servers() {
            expected.insert(server.name().to_owned(), full_entry(server));
        }
        assert_eq!(full, toon::Value::Object(expected), "{servers:?}");

        for grouping in [Grouping::Server, Grouping::Prefix, Grouping::Effect] {
            let groups = catalog.grouped(grouping);

            // categories: a row per category with its tool count and first tools' names.
            let categories = decode_table(&catalog.categories(grouping).unwrap());
            let rows = categories["categories"].as_array().unwrap();
            assert_eq!(rows.len(), groups.len(), "{servers:?} {grouping:?}");
            for (row, (name, tools)) in rows.iter().zip(&groups) {
                assert_eq!(row["name"], name.as_str());
                assert_eq!(row["tools"].as_u64(), Some(tools.len() as u64), "{name}");
                let description = row["description"].as_str().unwrap();
                match catalog.server(name).map(|s| s.status()) {
                    Some(Status::Unavailable(why)) if grouping == Grouping::Server => {
                        assert_eq!(description, format!("unavailable: {why}"));
                    }
                    _ => {
                        let named: Vec<&str> = description
                            .split(", ")
                            .filter(|n| *n != "…" && !n.is_empty())
                            .collect();
                        let names: Vec<&str> = tools.iter().map(|t| t.name()).collect();
                        assert!(names.starts_with(&named), "{name}: {description}");
                    }
                }
            }

            // full_in: the category's tools, under their servers; no other tool.
            for (category, tools) in &groups {
                let view = decode_table(&catalog.full_in(category, grouping).unwrap());
                let shown: Vec<(&str, &toon::Value)> = view.as_object().unwrap().iter().collect();
                let mut rows = Vec::new();
                for (server, entry) in &shown {
                    let status = catalog.server(server).unwrap().status();
                    match entry.as_array() {
                        Some(entries) => rows.extend(entries.iter().cloned()),
                        None => assert!(
                            matches!(status, Status::Unavailable(_))
                                && *entry == &full_entry(catalog.server(server).unwrap()),
                            "{category}: {server}: {entry:?}"
                        ),
                    }
                    if grouping == Grouping::Server {
                        assert_eq!(server, category);
                    }
                }
                let expected: Vec<toon::Value> = tools.iter().map(|t| full_row(t)).collect();
                assert_eq!(rows, expected, "{servers:?} {grouping:?} {category}");
            }
        }

        let meta = MetaTools::new(&catalog);
        let answer = |name: &str, args: Json| match meta.call(name, &args) {
            MetaCall::Answer(r) => {
                assert_ne!(r["isError"], true, "{name} {args}: {r}");
                r["content"][0]["text"].as_str().unwrap().to_owned()
            }
            other => panic!("{other:?}"),
        };

        // discover_tools: the categories, one category's full view, or the matches' rows.
        assert_eq!(
            answer("discover_tools", json!({})),
            catalog.categories(Grouping::Server).unwrap()
        );
        for server in &servers {
            assert_eq!(
                answer("discover_tools", json!({"category": server})),
                catalog.full_in(server, Grouping::Server).unwrap()
            );
        }
        for tool in catalog.tools() {
            let query = tool.name().replace(['_', '-'], " ");
            let found = decode_table(&answer(
                "discover_tools",
                json!({"query": query, "limit": 5}),
            ));
            let expected: Vec<toon::Value> = catalog
                .search(&query, 5)
                .into_iter()
                .map(|hit| full_row(hit.tool))
                .collect();
            assert!(!expected.is_empty(), "{query}");
            assert_eq!(found["tools"].as_array().unwrap(), &expected, "{query}");

            // The definitions: describe_toon as it is; get_tool_spec under the name to call.
            let definition = tool.definition().unwrap();
            let described = catalog.describe_toon(tool.name()).unwrap().unwrap();
            assert_eq!(
                &decode_definition(&described),
                definition,
                "{}",
                tool.name()
            );
            let spec = answer("get_tool_spec", json!({"name": tool.name()}));
            let mut called = definition.clone();
            called
                .as_object_mut()
                .unwrap()
                .insert("name".into(), tool.name().into());
            assert_eq!(decode_definition(&spec), called, "{}", tool.name());
        }
    }
}

/// `discover_tools` with query `*`: the `full` view without its parameters, in pages that a
/// cursor walks through, each tool once and in order.
#[test]
fn discover_lists_every_tool_by_server_in_pages() {
    for catalog in view_catalogs() {
        let meta = MetaTools::new(&catalog);
        let answer = |args: Json| match meta.call("discover_tools", &args) {
            MetaCall::Answer(r) => {
                assert_ne!(r["isError"], true, "{args}: {r}");
                r["content"][0]["text"].as_str().unwrap().to_owned()
            }
            other => panic!("{other:?}"),
        };

        // One page: the full view, rows without `params`, no legend and no paging line.
        let mut expected = decode_table(&catalog.full().unwrap());
        for (_, entry) in expected.as_object_mut().unwrap().iter_mut() {
            for row in entry.as_array_mut().into_iter().flatten() {
                row.as_object_mut().unwrap().shift_remove("params");
            }
        }
        let all = answer(json!({"query": "*", "limit": 200}));
        assert_eq!(decode_table(&all), expected);
        assert!(!all.contains('#'), "{all}");

        // Pages of five: every tool once, in order, under its server.
        let mut seen = Vec::new();
        let mut cursor: Option<String> = None;
        loop {
            let mut args = json!({"query": "", "limit": 5});
            if let Some(c) = &cursor {
                args["cursor"] = json!(c);
            }
            let page = answer(args);
            let value = decode_table(&page);
            for (server, entry) in value.as_object().unwrap().iter() {
                for row in entry.as_array().into_iter().flatten() {
                    seen.push((server.to_owned(), row["name"].as_str().unwrap().to_owned()));
                }
            }
            let next = page.lines().last().unwrap();
            cursor = next
                .split_once("cursor \"")
                .map(|(_, c)| c.trim_end_matches('"').to_owned());
            if cursor.is_none() {
                break;
            }
        }
        let every: Vec<(String, String)> = catalog
            .tools()
            .map(|t| (t.server().to_owned(), t.name().to_owned()))
            .collect();
        assert_eq!(seen, every);
    }
}

#[test]
fn shared_names_are_qualified_by_server() {
    let mut catalog = Catalog::new();
    catalog.add_server("a", &list_text("time")).unwrap();
    catalog.add_server("b", &list_text("time")).unwrap();
    assert!(catalog.get("get_current_time").is_none());
    let tool = catalog.get("b__get_current_time").unwrap();
    assert_eq!(
        (tool.server(), tool.original_name()),
        ("b", "get_current_time")
    );
    let full = catalog.full().unwrap();
    assert!(full.contains("a__convert_time") && full.contains("b__convert_time"));
}

#[test]
fn get_tool_spec_shows_the_name_to_call() {
    let mut catalog = Catalog::new();
    catalog
        .add_server("filesystem", &list_text("filesystem"))
        .unwrap();
    catalog
        .add_server("copy", &list_text("filesystem"))
        .unwrap();
    let meta = MetaTools::new(&catalog);
    let MetaCall::Answer(spec) = meta.call(
        "get_tool_spec",
        &json!({"name": "filesystem__directory_tree"}),
    ) else {
        panic!("expected an answer");
    };
    let text = spec["content"][0]["text"].as_str().unwrap();
    let shown: Json = serde_json::from_str(text)
        .or_else(|_| toon::decode::<Json>(text))
        .unwrap_or_else(|e| panic!("{e}: {text}"));
    assert_eq!(shown["name"], "filesystem__directory_tree", "{text}");
    // What it shows can be called.
    let MetaCall::Execute(plan) = meta.call(
        "execute_tool",
        &json!({"name": shown["name"], "arguments": {"path": "."}}),
    ) else {
        panic!("expected a plan");
    };
    assert_eq!(
        (plan.server.as_str(), plan.tool.as_str()),
        ("filesystem", "directory_tree")
    );
}

#[test]
fn search_ranks_the_obvious_tool_first() {
    let catalog = catalog();
    for (query, expected) in [
        ("git commit", "git_commit"),
        ("current time in a timezone", "get_current_time"),
        ("convert time zones", "convert_time"),
        ("fetch url markdown", "fetch"),
        ("move rename file", "move_file"),
        ("add observations to entity", "add_observations"),
        ("directory tree", "directory_tree"),
        ("branch checkout", "git_checkout"),
    ] {
        let hits = catalog.search(query, 3);
        assert!(
            hits.iter().any(|h| h.tool.name() == expected),
            "{query}: {:?}",
            hits.iter().map(|h| h.tool.name()).collect::<Vec<_>>()
        );
        assert_eq!(hits[0].tool.name(), expected, "{query}");
    }
    assert!(catalog.search("zebra quantum", 5).is_empty());
    assert_eq!(catalog.search("file", 2).len(), 2);
}

/// Every tool of the captured servers and the bundled retrieval sets, its name as the query
/// (as written, and with spaces for `_` and `-`): a tool of that name comes first.
#[test]
fn a_query_that_names_a_tool_finds_it_first() {
    let key = |s: &str| s.to_lowercase().replace(['_', '-'], " ");
    let sets = retrieval::load_sets(&retrieval::fixtures()).unwrap();
    let catalogs = std::iter::once(catalog()).chain(sets.into_iter().map(|s| s.catalog));
    for catalog in catalogs {
        for tool in catalog.tools() {
            let name = tool.original_name();
            for query in [name.to_owned(), key(name)] {
                let hits = catalog.search(&query, 3);
                let first = hits.first().map(|h| key(h.tool.original_name()));
                assert_eq!(
                    first.as_deref(),
                    Some(key(name).as_str()),
                    "{query}: {:?}",
                    hits.iter().map(|h| h.tool.name()).collect::<Vec<_>>()
                );
            }
        }
    }
}

/// A request of chat words only asks for no tool: meaning alone must not answer it.
#[test]
fn a_query_of_stop_words_matches_nothing() {
    let sets = retrieval::load_sets(&retrieval::fixtures()).unwrap();
    for set in &sets {
        for query in ["can you help me", "the", "please"] {
            let hits = set.catalog.search(query, 3);
            assert!(
                hits.is_empty(),
                "{} {query}: {:?}",
                set.name,
                hits.iter().map(|h| h.tool.name()).collect::<Vec<_>>()
            );
        }
    }
}

/// Made-up and off-topic requests find no Azure tool. With `mcp-semantic` they once did, through
/// cosines of 0.5-0.6 that the static table gives unrelated texts (`zzzqqq` →
/// `postgres_server_param_get`): a tool reached by meaning alone must now also stand out from
/// the catalog's similarities to the query (`search/semantic.rs`, `floor`).
#[test]
fn a_nonsense_query_matches_nothing() {
    let sets = retrieval::load_sets(&retrieval::fixtures()).unwrap();
    let azure = &sets.iter().find(|s| s.name == "azure").unwrap().catalog;
    for query in ["zzzqqq", "xyzzy", "ok"] {
        let hits = azure.search(query, 3);
        assert!(
            hits.is_empty(),
            "{query}: {:?}",
            hits.iter().map(|h| h.tool.name()).collect::<Vec<_>>()
        );
    }
}

#[test]
fn categories_by_server_prefix_and_effect() {
    let catalog = catalog();
    let by_server = catalog.categories(Grouping::Server).unwrap();
    assert!(
        by_server.starts_with("categories[7]{name,tools,description}:"),
        "{by_server}"
    );
    let prefixes: Vec<String> = catalog
        .grouped(Grouping::Prefix)
        .into_iter()
        .map(|g| g.0)
        .collect();
    assert!(prefixes.contains(&"git_*".to_owned()), "{prefixes:?}");
    let effect = catalog.grouped(Grouping::Effect);
    let read_only = effect.iter().find(|g| g.0 == "read-only").unwrap();
    assert!(read_only.1.iter().any(|t| t.name() == "git_status"));
    assert!(!read_only.1.iter().any(|t| t.name() == "write_file"));
}

/// The value a text block holds, whatever its format.
fn block_value(block: &Json) -> toon::Value {
    let text = block["text"].as_str().unwrap();
    match block["_meta"][META_KEY]["format"].as_str() {
        Some("toon") => toon::from_str(text).unwrap(),
        _ => serde_json::from_str(text).unwrap(),
    }
}

#[test]
fn results_are_lossless_and_never_dearer_than_the_cheaper_rendering() {
    let encoder = ResultEncoder::new(Policy::default());
    let (mut sent, mut after) = (0, 0);
    for (tool, result) in results() {
        let out = encoder.encode(&tool, result.clone()).unwrap();
        // Everything but text blocks and `_meta` is untouched.
        assert_eq!(
            out["structuredContent"], result["structuredContent"],
            "{tool}"
        );
        assert_eq!(out.get("isError"), result.get("isError"));
        for (before, now) in result["content"]
            .as_array()
            .unwrap()
            .iter()
            .zip(out["content"].as_array().unwrap())
        {
            let original = before["text"].as_str().unwrap();
            sent += tokens(original);
            after += tokens(now["text"].as_str().unwrap());
            let Ok(value) = serde_json::from_str::<toon::Value>(original) else {
                assert_eq!(before, now, "{tool}: non-JSON text changed");
                continue;
            };
            assert_eq!(block_value(now), value, "{tool}: not lossless");
            let compact = tokens(&serde_json::to_string(&value).unwrap());
            let toon_text = tokens(&toon::to_string(&value).unwrap());
            let now_tokens = tokens(now["text"].as_str().unwrap());
            assert!(
                now_tokens <= compact.min(toon_text).max(tokens(original).min(now_tokens)),
                "{tool}"
            );
            assert!(
                now_tokens <= compact.min(toon_text) || now == before,
                "{tool}"
            );
        }
    }
    let stats = encoder.stats();
    eprintln!(
        "results: {sent} tokens as sent, {after} after; {}",
        stats.summary()
    );
    assert!(after as f64 <= 0.56 * sent as f64, "{after} / {sent}");
    assert_eq!(stats.attempted, results().len() as u64);
    // The other four: two under 100 bytes, two plain-text listings.
    assert_eq!(stats.converted, 7, "{stats:?}");
    assert!(stats.tokens_saved() > 0);
}

#[test]
fn structured_content_can_be_dropped_and_unknown_fields_survive() {
    let (tool, mut result) = results()
        .into_iter()
        .find(|(t, _)| t == "read_graph")
        .unwrap();
    result["x-future"] = json!({"kept": true});
    result["content"][0]["annotations"] = json!({"audience": ["assistant"]});
    result["content"][0]["_meta"] = json!({"other.vendor/key": 1});
    result["_meta"] = json!({"io.example/trace": "abc"});
    result["content"]
        .as_array_mut()
        .unwrap()
        .push(json!({"type": "image", "data": "AAAA", "mimeType": "image/png"}));
    let policy = policy(|p| p.structured = Structured::Drop);
    let out = ResultEncoder::new(policy)
        .encode(&tool, result.clone())
        .unwrap();
    assert!(out.get("structuredContent").is_none());
    assert_eq!(out["x-future"], result["x-future"]);
    assert_eq!(
        out["content"][0]["annotations"],
        result["content"][0]["annotations"]
    );
    assert_eq!(out["content"][0]["_meta"]["other.vendor/key"], 1);
    assert_eq!(out["_meta"]["io.example/trace"], "abc");
    assert!(out["_meta"][META_KEY]["tokensAfter"].as_u64().unwrap() > 0);
    assert_eq!(out["content"][1], result["content"][1]);
    // A block whose `_meta` cannot take the format marker is not converted.
    let mut odd = result.clone();
    odd["content"][0]["_meta"] = json!("not an object");
    let out = ResultEncoder::new(Policy::default())
        .encode(&tool, odd.clone())
        .unwrap();
    assert_eq!(out["content"][0], odd["content"][0]);
}

#[test]
fn policy_skips_say_why() {
    let big = serde_json::to_string_pretty(
        &json!({"rows": (0..50).map(|i| json!({"i": i})).collect::<Vec<_>>()}),
    )
    .unwrap();
    let result = |text: &str| json!({"content": [{"type": "text", "text": text}]});
    let encoder = ResultEncoder::new(policy(|p| {
        p.exclude_tools = vec!["secret".into()];
        p.max_size_bytes = 10_000;
    }));
    let cases = [
        ("t", result("short"), SkipReason::TooSmall),
        (
            "t",
            result(&"plain words here ".repeat(20)),
            SkipReason::NotJson,
        ),
        (
            "t",
            result(&format!("{{{}", "x".repeat(200))),
            SkipReason::NotJson,
        ),
        ("secret", result(&big), SkipReason::Filtered),
        (
            "t",
            json!({"content": [{"type": "text", "text": big}], "isError": true}),
            SkipReason::ErrorResult,
        ),
        (
            "t",
            result(&format!("[{}]", "1,".repeat(6000) + "1")),
            SkipReason::TooLarge,
        ),
        ("t", json!({"nope": 1}), SkipReason::NotAResult),
        (
            "t",
            result(
                r#"{"config":{"server":{"http":{"port":8080,"host":"localhost","tls":{"cert":"/etc/cert.pem","key":"/etc/key.pem"}}}}}"#,
            ),
            SkipReason::NotSmaller,
        ),
    ];
    for (tool, r, reason) in &cases {
        let out = encoder.encode(tool, r.clone()).unwrap();
        assert_eq!(&out, r, "{reason:?}");
    }
    let stats = encoder.stats();
    for (_, _, reason) in &cases {
        let expected = cases.iter().filter(|c| c.2 == *reason).count() as u64;
        assert_eq!(
            stats.skipped.get(reason),
            Some(&expected),
            "{reason:?}: {stats:?}"
        );
    }
    assert_eq!(stats.converted, 0);
    // Forced formats convert whatever is JSON.
    let forced = ResultEncoder::new(policy(|p| p.format = Format::CompactJson));
    let out = forced.encode("t", result(&big)).unwrap();
    assert_eq!(out["content"][0]["_meta"][META_KEY]["format"], "json");
}

#[test]
fn shaping_pages_and_budgets_say_what_was_cut() {
    let (tool, result) = results()
        .into_iter()
        .find(|(t, _)| t == "read_graph")
        .unwrap();
    let encoder = ResultEncoder::new(Policy::default());
    let shaping = shaping(|s| {
        s.fields = vec!["entities.name".into()];
        s.limit = Some(5);
    });
    let out = encoder.encode_with(&tool, result, &shaping).unwrap();
    let value = block_value(&out["content"][0]);
    assert_eq!(value["entities"].as_array().unwrap().len(), 5);
    assert!(value.get("relations").is_none());
    let note = out["content"][1]["text"].as_str().unwrap();
    assert!(
        note.starts_with("/entities: items 1-5 of 18; next page: cursor "),
        "{note}"
    );
}

#[test]
fn meta_tools_discover_explain_and_execute() {
    let catalog = catalog();
    let meta = MetaTools::new(&catalog);
    let defs = meta.definitions().unwrap();
    let names: Vec<&str> = defs.iter().map(|d| d["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["discover_tools", "get_tool_spec", "execute_tool"]);
    assert!(
        defs[0]["description"]
            .as_str()
            .unwrap()
            .contains("filesystem (14)")
    );
    let answer = |call: MetaCall| match call {
        MetaCall::Answer(r) => r,
        other => panic!("{other:?}"),
    };
    let text = |r: &Json| r["content"][0]["text"].as_str().unwrap().to_owned();

    let found = answer(meta.call(
        "discover_tools",
        &json!({"query": "commit changes", "limit": 2}),
    ));
    assert!(
        text(&found).contains("\ntools[2]{name,description,params}:"),
        "{}",
        text(&found)
    );
    assert!(text(&found).contains("git_commit"));
    let in_category = answer(meta.call("discover_tools", &json!({"category": "time"})));
    assert!(text(&in_category).contains("convert_time"));
    let bad = answer(meta.call("discover_tools", &json!({"limit": "ten"})));
    assert_eq!(bad["isError"], true);

    let spec = answer(meta.call("get_tool_spec", &json!({"name": "git_log"})));
    assert!(text(&spec).contains("max_count"));
    let unknown = answer(meta.call("get_tool_spec", &json!({"name": "git_logs"})));
    assert!(
        text(&unknown).contains("did you mean git_log"),
        "{}",
        text(&unknown)
    );

    let invalid = answer(meta.call(
        "execute_tool",
        &json!({"name": "create_entities", "arguments": {"entities": [{"name": "a", "entityType": 3}]}}),
    ));
    assert_eq!(
        text(&invalid),
        "create_entities: invalid arguments:\n\
         - entities[0]: missing required field \"observations\" (array)\n\
         - entities[0].entityType: expected string, got number 3\n\
         params: entities:{name,entityType,observations:string[]}[]"
    );
    let MetaCall::Execute(plan) = meta.call(
        "execute_tool",
        &json!({"name": "read_graph", "arguments": {}, "fields": ["entities.name"], "max_tokens": 50}),
    ) else {
        panic!("expected a plan");
    };
    assert_eq!(
        (plan.server.as_str(), plan.tool.as_str()),
        ("memory", "read_graph")
    );
    let (_, result) = results()
        .into_iter()
        .find(|(t, _)| t == "read_graph")
        .unwrap();
    let out = plan.finish(&ResultEncoder::new(Policy::default()), result.clone());
    assert!(text(&out).starts_with("entities["), "{}", text(&out));
    assert!(
        out["content"][1]["text"]
            .as_str()
            .unwrap()
            .contains("elided: /entities")
    );
    let mut typo = plan.shaping.clone();
    typo.fields = vec!["entitys".into()];
    let plan = toon::mcp::Plan {
        shaping: typo,
        ..*plan
    };
    let err = plan.finish(&ResultEncoder::new(Policy::default()), result);
    assert_eq!(err["isError"], true);
    assert!(text(&err).contains("entities"), "{}", text(&err));
    assert!(matches!(
        meta.call("something_else", &json!({})),
        MetaCall::NotMeta
    ));
}

/// A `CallToolResult` text with one text block holding `block` (JSON text) and `rest` (more
/// entries, JSON text) after the content.
fn result_text(block: &str, rest: &str) -> String {
    let text = serde_json::to_string(block).unwrap();
    format!(r#"{{"content": [{{"type": "text", "text": {text}}}]{rest}}}"#)
}

/// The text of the `i`-th content block of a result's JSON text.
fn block_text(result: &str, i: usize) -> String {
    let v: Json = serde_json::from_str(result).unwrap();
    v["content"][i]["text"].as_str().unwrap().to_owned()
}

/// Rows whose numbers `f64` cannot hold (and that TOON would otherwise win by far).
fn rows_with_digits() -> String {
    let rows: Vec<String> = (0..30)
        .map(|i| {
            format!(
                "    {{\"id\": {i}, \"big\": 1234567890123456789012, \"low\": -9223372036854775809, \
                 \"tenth\": 0.1000000000000000055511151231257827, \"name\": \"user{i}\"}}"
            )
        })
        .collect();
    format!("{{\n  \"rows\": [\n{}\n  ]\n}}", rows.join(",\n"))
}

#[test]
fn numbers_keep_every_digit_and_untouched_bytes_stay_as_sent() {
    let block = rows_with_digits();
    let rest = r#", "structuredContent": {"big": 1234567890123456789012, "e": 1E2, "s": "\u00e9"},
  "x-future": [1.50, -0.0, 18446744073709551616],
  "_meta": {"io.example/n": 12345678901234567890123}"#;
    let image = r#"{"type": "image", "data": "AAAA", "mimeType": "image/png"}"#;
    let sent = result_text(&block, rest).replacen("}]", &format!("}}, {image}]"), 1);
    let encoder = ResultEncoder::new(Policy::default());
    let out = encoder
        .encode_text("t", &sent, &Shaping::default())
        .unwrap();
    // What the encoder does not change is as sent, byte for byte.
    for part in [
        image,
        r#""structuredContent": {"big": 1234567890123456789012, "e": 1E2, "s": "\u00e9"}"#,
        r#""x-future": [1.50, -0.0, 18446744073709551616]"#,
        r#""io.example/n": 12345678901234567890123"#,
    ] {
        assert!(out.contains(part), "{part} missing in {out}");
    }
    // TOON writes every digit of these numbers, and wins by far on these rows.
    let v: Json = serde_json::from_str(&out).unwrap();
    assert_eq!(v["content"][0]["_meta"][META_KEY]["format"], "toon");
    let text = block_text(&out, 0);
    // Numbers as JavaScript prints them (`1.2…e+21` from 21 digits on), every digit kept.
    let row = "0,1.234567890123456789012e+21,-9223372036854775809,\
               0.1000000000000000055511151231257827,user0";
    assert!(
        text.starts_with(&format!("rows[30]{{id,big,low,tenth,name}}:\n  {row}\n")),
        "{text}"
    );
    // Read back as JSON text, it is the block as sent without its whitespace.
    let mut json = Vec::new();
    toon::json::transcode(&mut toon::Deserializer::from_str(&text), &mut json, 0).unwrap();
    let minified: String = block.chars().filter(|c| !c.is_whitespace()).collect();
    assert_eq!(
        String::from_utf8(json).unwrap(),
        minified.replace("1234567890123456789012", "1.234567890123456789012e+21")
    );
    let stats = encoder.stats();
    assert_eq!(
        (stats.converted, stats.bytes_before),
        (1, block.len() as u64)
    );
    assert_eq!(stats.bytes_after, text.len() as u64);
    assert_eq!(stats.tokens_after, tokens(&text) as u64);
    // The same through `encode` (a `Value`'s text blocks are strings: their digits survive).
    let value: Json = serde_json::from_str(&result_text(&block, "")).unwrap();
    let out = encoder.encode("t", value).unwrap();
    assert_eq!(out["content"][0]["text"], text);
    // `format: json` gives the text as sent without whitespace, every digit kept.
    let json_only = ResultEncoder::new(policy(|p| p.format = Format::CompactJson));
    let out = json_only
        .encode_text("t", &result_text(&block, ""), &Shaping::default())
        .unwrap();
    assert_eq!(block_text(&out, 0), minified);
}

#[test]
fn the_json_candidate_is_the_text_as_sent_without_whitespace() {
    // 300 numbers in exponent notation: serde_json would print `3e53` as `3e+53` and `1E2` as
    // `100.0`, costing more than the text as sent.
    let rows: Vec<String> = (0..150)
        .map(|i| format!("[{}e53, 1E{}]", i % 9 + 1, i % 7 + 2))
        .collect();
    let block = format!("{{\n  \"m\": [\n    {}\n  ]\n}}", rows.join(",\n    "));
    let minified: String = block.chars().filter(|c| !c.is_whitespace()).collect();
    let encoder = ResultEncoder::new(Policy::default());
    let out = encoder
        .encode_text("t", &result_text(&block, ""), &Shaping::default())
        .unwrap();
    let text = block_text(&out, 0);
    assert!(tokens(&text) <= tokens(&minified), "{text}");
    if !text.starts_with("m[") {
        assert_eq!(text, minified);
    }
    let forced = ResultEncoder::new(policy(|p| p.format = Format::CompactJson));
    let out = forced
        .encode_text("t", &result_text(&block, ""), &Shaping::default())
        .unwrap();
    assert_eq!(block_text(&out, 0), minified);
    eprintln!(
        "300 exponent numbers: as sent {}, minified {}, output {} tokens",
        tokens(&block),
        tokens(&minified),
        tokens(&text)
    );
}

/// No serde_json feature keeps key order or float digits in this build (`tests/repo/features.rs`):
/// every rendering, shaped or not, and `encode` on a `serde_json::Value`, keep them the same.
/// serde_json alone reads `2.9168327507216497e-10` one unit in the last place off.
#[test]
fn key_order_and_float_digits_survive_every_rendering() {
    let row = |i: usize| {
        format!(
            r#"{{"zeta": 0.30000000000000004, "alpha": 2.9168327507216497e-10, "mid": {i}, "big": 12345678901234567890123, "inf": 1e400}}"#
        )
    };
    let rows: Vec<String> = (0..20).map(row).collect();
    let block = format!("{{\"rows\": [{}]}}", rows.join(", "));
    for format in [Format::Cheaper, Format::Toon, Format::CompactJson] {
        let encoder = ResultEncoder::new(policy(|p| p.format = format));
        let out = encoder
            .encode_text("t", &result_text(&block, ""), &Shaping::default())
            .unwrap();
        let text = block_text(&out, 0);
        let first = match format {
            Format::CompactJson => row(0).replace(' ', ""),
            _ => "0.30000000000000004,2.9168327507216497e-10,0,1.2345678901234567890123e+22,1e+400"
                .to_owned(),
        };
        assert!(text.contains(&first), "{format:?}: {text}");
    }
    // Shaped, through a `toon::Value` (numbers within `f64`).
    let rows: Vec<String> = (0..20)
        .map(|i| {
            format!(
                r#"{{"zeta": 0.30000000000000004, "alpha": 2.9168327507216497e-10, "mid": {i}}}"#
            )
        })
        .collect();
    let block = format!("{{\"rows\": [{}]}}", rows.join(", "));
    let shaping = shaping(|s| s.limit = Some(3));
    let out = ResultEncoder::new(Policy::default())
        .encode_text("t", &result_text(&block, ""), &shaping)
        .unwrap();
    let text = block_text(&out, 0);
    assert!(
        text.starts_with(
            "rows[3]{zeta,alpha,mid}:\n  0.30000000000000004,2.9168327507216497e-10,0\n"
        ),
        "{text}"
    );
    // `encode` writes the value as JSON and reads the result back: the same floats.
    let value = json!({"content": [{"type": "text", "text": block}],
                       "structuredContent": {"x": 2.9168327507216497e-10}});
    let out = ResultEncoder::new(Policy::default())
        .encode("t", value)
        .unwrap();
    assert_eq!(
        out["structuredContent"]["x"].as_f64(),
        Some(2.9168327507216497e-10)
    );
}

#[test]
fn shaping_a_block_whose_numbers_it_would_change_is_an_error() {
    let sent = result_text(&rows_with_digits(), "");
    let shaping = shaping(|s| s.fields = vec!["rows.id".into()]);
    let encoder = ResultEncoder::new(Policy::default());
    let err = encoder.encode_text("t", &sent, &shaping).unwrap_err();
    assert!(err.to_string().contains("without them"), "{err}");
    let plan = toon::mcp::Plan {
        server: "s".into(),
        tool: "t".into(),
        exposed: "t".into(),
        arguments: json!({}),
        shaping,
        content: toon::mcp::Decision::Convert("data".into()),
    };
    let out: Json = serde_json::from_str(&plan.finish_text(&encoder, &sent)).unwrap();
    assert_eq!(out["isError"], true);
    // Exact numbers shape as before, and `finish_text` keeps the rest as sent.
    let exact = result_text(
        &rows_with_digits()
            .replace("1234567890123456789012", "12")
            .replace("-9223372036854775809", "-9")
            .replace("0.1000000000000000055511151231257827", "0.1"),
        r#", "x": 1E2"#,
    );
    let out = plan.finish_text(&encoder, &exact);
    assert!(out.contains(r#""x": 1E2"#), "{out}");
    let text = block_text(&out, 0);
    assert!(text.contains("29") && !text.contains("name"), "{text}");
}

#[test]
fn dropping_structured_content_never_deletes_the_only_copy() {
    let drop = ResultEncoder::new(policy(|p| p.structured = Structured::Drop));
    let encode = |sent: &str| -> Json {
        serde_json::from_str(
            &drop
                .encode_text("weather", sent, &Shaping::default())
                .unwrap(),
        )
        .unwrap()
    };
    // The text block says nothing of the data: it becomes a text block of its own.
    let sent = r#"{"content": [{"type": "text", "text": "Weather retrieved."}], "structuredContent": {"temperature": 22.5, "unit": "C", "station": 12345678901234567890123}}"#;
    let out = encode(sent);
    assert!(out.get("structuredContent").is_none());
    assert_eq!(out["content"][0]["text"], "Weather retrieved.");
    assert_eq!(
        out["content"][1]["text"],
        r#"{"temperature":22.5,"unit":"C","station":12345678901234567890123}"#
    );
    assert_eq!(out["content"].as_array().unwrap().len(), 2);
    // Large enough, it is converted like any JSON block.
    let rows: Vec<Json> = (0..20).map(|i| json!({"id": i, "ok": true})).collect();
    let sent = json!({"content": [{"type": "text", "text": "Done."}], "structuredContent": {"rows": rows}});
    let out = encode(&sent.to_string());
    assert!(out.get("structuredContent").is_none());
    assert_eq!(
        block_value(&out["content"][1]),
        toon::Value::from(json!({"rows": rows}))
    );
    assert_eq!(out["content"][1]["_meta"][META_KEY]["format"], "toon");
    // A text block that carries it (pretty, or in another key order): simply dropped.
    for text in [
        serde_json::to_string_pretty(&json!({"rows": rows})).unwrap(),
        r#"{"rows": [{"ok": true, "id": 0}]}"#.to_owned(),
    ] {
        let structured = if text.starts_with("{\n") {
            json!({"rows": rows})
        } else {
            json!({"rows": [{"id": 0, "ok": true}]})
        };
        let sent =
            json!({"content": [{"type": "text", "text": text}], "structuredContent": structured});
        let out = encode(&sent.to_string());
        assert!(out.get("structuredContent").is_none());
        assert_eq!(out["content"].as_array().unwrap().len(), 1, "{text}");
    }
    // An error result is not touched; with `keep` nothing is added.
    let error = r#"{"content": [{"type": "text", "text": "Boom."}], "isError": true, "structuredContent": {"a": 1}}"#;
    assert_eq!(
        drop.encode_text("t", error, &Shaping::default()).unwrap(),
        error
    );
    let keep = ResultEncoder::new(Policy::default());
    let sent = r#"{"content": [{"type": "text", "text": "Weather retrieved."}], "structuredContent": {"t": 22.5}}"#;
    assert_eq!(
        keep.encode_text("t", sent, &Shaping::default()).unwrap(),
        sent
    );
}

#[test]
fn a_long_pretty_schema_is_given_the_cheaper_rendering() {
    // An AWS CloudFormation schema (QuickSight dashboard, cfn-lint 1.18.2, every 8th of its
    // 626 definitions), its definitions repeated under new names to the whole's size: sent
    // pretty (~290 KB) the block is decided on a sample of its value. The root's ten unlike
    // members once made the sample two of them (`additionalProperties`, `readOnlyProperties`),
    // which said TOON, 12% dearer here than compact JSON, as for the whole schema.
    let text = std::fs::read_to_string(fixtures().join("cfn-quicksight-dashboard.json")).unwrap();
    let mut schema: toon::Value = serde_json::from_str(&text).unwrap();
    let Some(toon::Value::Object(definitions)) = schema.get_mut("definitions") else {
        panic!("no definitions");
    };
    let kept: Vec<(String, toon::Value)> = definitions
        .iter()
        .map(|(k, v)| (k.to_string(), v.clone()))
        .collect();
    for copy in 1..8 {
        for (name, definition) in &kept {
            definitions.insert(format!("{name}{copy}"), definition.clone());
        }
    }
    let pretty = toon::json::to_string_pretty(&schema, 2).unwrap();
    assert!(pretty.len() > 256 * 1024 && pretty.len() < 5 * 64 * 1024);
    let json = toon::json::to_string(&schema).unwrap();
    let toon_text = toon::to_string(&schema).unwrap();
    assert!(
        cost(&json) * 105 < cost(&toon_text) * 100,
        "compact JSON is the cheaper"
    );

    let result = json!({"content": [{"type": "text", "text": pretty}]});
    let out = ResultEncoder::new(Policy::default())
        .encode("describe_type", result)
        .unwrap();
    assert_eq!(out["content"][0]["_meta"][META_KEY]["format"], "json");
    assert_eq!(out["content"][0]["text"], json);
}

/// Whether a content block holds `structured`'s data: the same value, or its only member's,
/// or (the filesystem server's wrapper) its only member's string as its text.
fn carries(block: &Json, structured: &Json) -> bool {
    let text = block["text"].as_str().unwrap();
    let value = || {
        let format = block["_meta"][META_KEY]["format"].as_str();
        match format {
            Some("toon") => toon::from_str::<toon::Value>(text).ok(),
            _ => serde_json::from_str::<toon::Value>(text).ok(),
        }
    };
    let only = structured
        .as_object()
        .filter(|o| o.len() == 1)
        .and_then(|o| o.values().next());
    match only {
        Some(Json::String(s)) => text == s || value() == serde_json::from_str(s).ok(),
        Some(only) => value() == Some(toon::Value::from(only.clone())),
        None => value() == Some(toon::Value::from(structured.clone())),
    }
}

#[test]
fn dropping_structured_content_adds_no_copy_of_what_a_block_carries() {
    // The memory server's captured results: its JSON as pretty text, and as structured
    // content the same data, wrapped (`{"entities": [...]}`) or not (`read_graph`).
    let drop = ResultEncoder::new(policy(|p| p.structured = Structured::Drop));
    let mut checked = 0;
    for (tool, result) in results() {
        let Some(structured) = result.get("structuredContent") else {
            continue;
        };
        let blocks = result["content"].as_array().unwrap().len();
        for out in [
            drop.encode(&tool, result.clone()).unwrap(),
            drop.keep(result.clone()),
        ] {
            assert!(out.get("structuredContent").is_none(), "{tool}");
            assert_eq!(out["content"].as_array().unwrap().len(), blocks, "{tool}");
            assert!(carries(&out["content"][0], structured), "{tool}");
        }
        checked += 1;
    }
    assert!(checked >= 4, "{checked}");
}

#[test]
fn raw_results_are_read_as_sent_and_unreadable_ones_returned_as_sent() {
    let block = serde_json::to_string_pretty(
        &json!({"rows": (0..30).map(|i| json!({"id": i, "name": format!("n{i}")})).collect::<Vec<_>>()}),
    )
    .unwrap();
    let deep = format!("{}1{}", "[".repeat(200), "]".repeat(200));
    // What serde_json::Value cannot hold, around a block that converts.
    let rest = format!(
        r#",
  "structuredContent": {{"s": "\ud83d", "n": 1e400, "deep": {deep}}}"#
    );
    let sent = result_text(&block, &rest).replace("{\"content\"", "\n {\n  \"content\"") + "\n";
    let encoder = ResultEncoder::new(Policy::default());
    let out = encoder
        .encode_text("t", &sent, &Shaping::default())
        .unwrap();
    assert!(
        out.starts_with(
            "\n {\n  \"content\": [{\"type\": \"text\", \"text\": \"rows[30]{id,name}:"
        )
    );
    assert!(out.contains(&rest), "{out}");
    // Entries go inside the object, whatever whitespace is around it.
    assert!(out.ends_with("}}\n"), "{out}");
    assert!(
        serde_json::from_str::<serde::de::IgnoredAny>(&out).is_ok(),
        "{out}"
    );
    // Results that cannot be read, and blocks that are not JSON, come back as sent.
    let surrogate_text = r#"{"content": [{"type": "text", "text": "{\"a\": \"\ud83d\", \"pad\": \"0123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789\"}"}]}"#;
    for sent in [
        "not json".to_owned(),
        "[1, 2]".to_owned(),
        r#"{"content": {"type": "text"}}"#.to_owned(),
        r#"{"content": [], "\ud83d": 1}"#.to_owned(),
        surrogate_text.to_owned(),
        result_text(
            &format!(r#"{{"deep": {deep}, "pad": "{}"}}"#, "x".repeat(100)),
            "",
        ),
    ] {
        let strict = ResultEncoder::new(policy(|p| p.skip_on_error = false));
        assert_eq!(
            strict.encode_text("t", &sent, &Shaping::default()).unwrap(),
            sent
        );
    }
    // A number past `f64` is read as the text it is, and converted with its digits.
    let huge = result_text(
        &format!(r#"{{"n": 1e400, "pad": "{}"}}"#, "x".repeat(100)),
        "",
    );
    let out = encoder
        .encode_text("t", &huge, &Shaping::default())
        .unwrap();
    let text = block_text(&out, 0);
    assert!(text.contains("1e400") || text.contains("1e+400"), "{text}");
}

#[test]
fn a_verbatim_result_is_kept_as_sent_and_drop_never_loses_its_data() {
    let keep = ResultEncoder::new(Policy::default());
    let sent = r#"{"content": [{"type": "text", "text": "{\n  \"a\": 1E2\n}"}], "structuredContent": {"t": 21.5}}"#;
    assert_eq!(keep.keep_text(sent), sent);
    let drop = ResultEncoder::new(policy(|p| p.structured = Structured::Drop));
    // No text block carries the data: it becomes a text block, then structuredContent goes.
    let out = drop.keep_text(sent);
    assert!(!out.contains("structuredContent"), "{out}");
    assert!(
        out.contains(r#"{"type":"text","text":"{\"t\":21.5}"}"#),
        "{out}"
    );
    assert!(out.contains(r#""text": "{\n  \"a\": 1E2\n}""#), "{out}");
    // A block that carries it: only structuredContent goes.
    let carried = r#"{"content": [{"type": "text", "text": "{\"t\": 21.5}"}], "structuredContent": {"t": 21.5}}"#;
    assert_eq!(
        drop.keep_text(carried),
        r#"{"content": [{"type": "text", "text": "{\"t\": 21.5}"}]}"#
    );
    assert_eq!(keep.stats().skipped[&toon::mcp::SkipReason::Verbatim], 1);
}

#[test]
fn a_shaped_result_carries_no_structured_content_beside_its_page() {
    let rows: Vec<Json> = (0..30)
        .map(|i| json!({"id": i, "name": format!("n{i}")}))
        .collect();
    let data = json!({"rows": rows});
    let sent = json!({"content": [{"type": "text", "text": data.to_string()}],
                      "structuredContent": data, "x": 1})
    .to_string();
    let plan = toon::mcp::Plan {
        server: "s".into(),
        tool: "t".into(),
        exposed: "t".into(),
        arguments: json!({}),
        shaping: shaping(|s| s.limit = Some(2)),
        content: toon::mcp::Decision::Convert("data".into()),
    };
    let encoder = ResultEncoder::new(Policy::default());
    let out: Json = serde_json::from_str(&plan.finish_text(&encoder, &sent)).unwrap();
    assert!(out.get("structuredContent").is_none(), "{out}");
    assert_eq!(out["x"], 1);
    assert!(
        out["content"][1]["text"]
            .as_str()
            .unwrap()
            .contains("items 1-2 of 30"),
        "{out}"
    );
    // Unshaped, it stays.
    let plan = toon::mcp::Plan {
        shaping: Shaping::default(),
        ..plan
    };
    let out: Json = serde_json::from_str(&plan.finish_text(&encoder, &sent)).unwrap();
    assert!(out.get("structuredContent").is_some());
}

/// Edits of `text` by a deterministic generator (xorshift64): inserted, removed or replaced
/// characters drawn from what JSON is made of.
fn mutants(text: &str, count: usize, mut state: u64) -> Vec<String> {
    const PIECES: &[&str] = &[
        "{",
        "}",
        "[",
        "]",
        "\"",
        ",",
        ":",
        "\\",
        " ",
        "\n",
        "\\u",
        "d83d",
        "1e400",
        "-",
        ".",
        "0",
        "9",
        "true",
        "null",
        "é",
        "\"text\"",
        "\"content\"",
        "\"_meta\"",
        "\"structuredContent\"",
    ];
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state as usize
    };
    (0..count)
        .map(|_| {
            let mut chars: Vec<String> = text.chars().map(String::from).collect();
            for _ in 0..1 + next() % 3 {
                let at = next() % (chars.len() + 1);
                let piece = PIECES[next() % PIECES.len()].to_owned();
                match next() % 3 {
                    0 => chars.insert(at, piece),
                    1 if at < chars.len() => {
                        chars.remove(at);
                    }
                    _ if at < chars.len() => chars[at] = piece,
                    _ => chars.push(piece),
                }
            }
            chars.concat()
        })
        .collect()
}

#[test]
fn any_result_text_comes_back_as_json_with_untouched_members_as_sent() {
    let rows: Vec<Json> = (0..12)
        .map(|i| json!({"id": i, "name": format!("row {i}"), "ok": i % 2 == 0}))
        .collect();
    let text = serde_json::to_string_pretty(&json!({"rows": rows})).unwrap();
    let seeds = [
        format!(
            r#"{{"content": [{{"type": "text", "text": {}, "_meta": {{"k": 1}}}}], "structuredContent": {{"n": 1234567890123456789012}}, "x": [1E2, 0.1000000000000000055511151231257827], "s": "\u00e9"}}"#,
            serde_json::to_string(&text).unwrap()
        ),
        format!(
            r#"{{"_meta": 3, "content": [{{"type": "text", "text": {}}}, {{"type": "image", "data": "AA=="}}, 7], "isError": false}}"#,
            serde_json::to_string(&text).unwrap()
        ),
    ];
    let mut encoders = Vec::new();
    for format in [Format::Cheaper, Format::Toon, Format::CompactJson] {
        for structured in [Structured::Keep, Structured::Drop] {
            encoders.push(ResultEncoder::new(policy(|p| {
                p.format = format;
                p.structured = structured;
                p.min_size_bytes = 0;
            })));
        }
    }
    let members = |text: &str| -> Option<Vec<(String, String)>> {
        let map: serde_json::Map<String, Json> = serde_json::from_str(text).ok()?;
        let raw: std::collections::BTreeMap<String, &RawValue> = serde_json::from_str(text).ok()?;
        Some(
            map.keys()
                .filter(|k| !["content", "_meta", "structuredContent"].contains(&k.as_str()))
                .map(|k| (k.clone(), raw[k].get().to_owned()))
                .collect(),
        )
    };
    for (i, seed) in seeds.iter().enumerate() {
        for input in std::iter::once(seed.clone()).chain(mutants(
            seed,
            1500,
            0x2545_F491_4F6C_DD1D + i as u64,
        )) {
            let readable = serde_json::from_str::<&RawValue>(&input).is_ok();
            for encoder in &encoders {
                for out in [
                    encoder
                        .encode_text("t", &input, &Shaping::default())
                        .unwrap(),
                    encoder.keep_text(&input),
                ] {
                    if !readable {
                        assert_eq!(out, input, "an unreadable result comes back as sent");
                        continue;
                    }
                    assert!(
                        serde_json::from_str::<&RawValue>(&out).is_ok(),
                        "{input}\n->\n{out}"
                    );
                    if let (Some(before), Some(after)) = (members(&input), members(&out)) {
                        assert_eq!(before, after, "{input}\n->\n{out}");
                    }
                }
            }
        }
    }
}

#[test]
fn a_block_over_the_size_limit_is_compacted_not_left_pretty() {
    // `toon!`: its keys in this order (serde_json's map sorts them).
    let pretty = serde_json::to_string_pretty(
        &toon::toon!({"rows": (0..400).map(|i| toon::toon!({"i": i, "big": 1, "e": "x y"})).collect::<Vec<_>>()}),
    )
    .unwrap()
    .replace("\"big\": 1", "\"big\": 1E2");
    let sent = json!({"content": [{"type": "text", "text": pretty}]}).to_string();
    let encoder = ResultEncoder::new(policy(|p| p.max_size_bytes = 1000));
    let out: Json = serde_json::from_str(
        &encoder
            .encode_text("t", &sent, &Shaping::default())
            .unwrap(),
    )
    .unwrap();
    let text = out["content"][0]["text"].as_str().unwrap();
    // Whitespace only: every other byte as sent (`1E2` stays), strings keep their spaces.
    assert_eq!(text, toon_minify(&pretty));
    assert!(
        text.starts_with(r#"{"rows":[{"i":0,"big":1E2,"e":"x y"}"#),
        "{text}"
    );
    assert_eq!(out["content"][0]["_meta"][META_KEY]["format"], "json");
    assert_eq!(encoder.stats().converted, 1);
    // The default limit is the proxy's message limit.
    assert_eq!(Policy::default().max_size_bytes, toon::mcp::MAX_SIZE_BYTES);
    assert_eq!(toon::mcp::MAX_SIZE_BYTES, 16 << 20);
}

/// JSON text without the whitespace between its tokens (strings kept whole).
fn toon_minify(text: &str) -> String {
    let mut out = String::new();
    let mut in_string = false;
    let mut escaped = false;
    for c in text.chars() {
        if in_string {
            out.push(c);
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
        } else if c == '"' {
            in_string = true;
            out.push(c);
        } else if !c.is_whitespace() {
            out.push(c);
        }
    }
    out
}

/// The recall `discover_tools` reaches on the bundled public request → tool sets
/// (`tests/fixtures/retrieval`), set by set: floors a little below what `examples/discovery.rs`
/// measures, so that no change makes discovery worse unseen.
#[test]
fn discovery_finds_the_right_tool_at_least_as_often_as_measured() {
    // (set, R@1, R@5) floors: lexical alone, or fused with the static embeddings.
    let floors = if cfg!(feature = "mcp-semantic") {
        [("azure", 0.77, 0.97), ("metatool", 0.50, 0.75)]
    } else {
        [("azure", 0.73, 0.93), ("metatool", 0.40, 0.63)]
    };
    let sets = retrieval::load_sets(&retrieval::fixtures()).unwrap();
    assert_eq!(sets.len(), floors.len());
    for (set, (name, r1, r5)) in sets.iter().zip(floors) {
        assert_eq!(set.name, name);
        let s = retrieval::score(set, retrieval::Part::All);
        assert!(
            s.r1 >= r1 && s.r5 >= r5,
            "{name}: R@1 {:.3}, R@5 {:.3}",
            s.r1,
            s.r5
        );
    }
}

/// Two indexes of the same catalog, built apart, rank every request of the sets alike.
#[test]
fn the_same_catalog_and_query_rank_the_same_in_two_indexes() {
    let first = retrieval::load_sets(&retrieval::fixtures()).unwrap();
    let second = retrieval::load_sets(&retrieval::fixtures()).unwrap();
    for (a, b) in first.iter().zip(&second) {
        for query in &a.queries {
            let (x, y) = (
                retrieval::ranking(&a.catalog, &query.text),
                retrieval::ranking(&b.catalog, &query.text),
            );
            assert_eq!(x, y, "{}: {:?}", a.name, query.text);
        }
    }
}
