use super::*;

/// The token strings of `text` as the module tokenizes it.
fn tokens(text: &str) -> Vec<&'static str> {
    let model = MODEL.as_ref().expect("the compiled-in table reads");
    let mut by_id = vec![""; model.ids.len()];
    for (&token, &id) in &model.ids {
        by_id[id as usize] = token;
    }
    model
        .token_ids(text, MAX_TOKENS, |word, ids| model.cut(word, ids))
        .into_iter()
        .map(|id| by_id[id as usize])
        .collect()
}

// Expected lists: the model's own tokenizer (`tokenizer.json`, Hugging Face `tokenizers`
// 0.23.3), `encode(text, add_special_tokens=False).tokens`.
#[test]
fn tokenizes_as_the_reference() {
    let cases: &[(&str, &[&str])] = &[
        (
            "List Azure Container Registries in a subscription.",
            &[
                "list",
                "azure",
                "container",
                "regis",
                "##tries",
                "in",
                "a",
                "subscription",
                ".",
            ],
        ),
        (
            "Show me the best practices for Microsoft Foundry agents' code-generation!",
            &[
                "show",
                "me",
                "the",
                "best",
                "practices",
                "for",
                "microsoft",
                "foundry",
                "agents",
                "'",
                "code",
                "-",
                "generation",
                "!",
            ],
        ),
        (
            "Héllo, naïve café résumé — Ærøskøbing Łódź straße",
            &[
                "hello", ",", "naive", "cafe", "resume", "—", "æ", "##r", "##ø", "##sk", "##ø",
                "##bing", "łodz", "st", "##raße",
            ],
        ),
        (
            "cosmos_account_list: get_file_contents(path='/tmp/x.json') v2.0 $100",
            &[
                "cosmos", "_", "account", "_", "list", ":", "get", "_", "file", "_", "contents",
                "(", "path", "=", "'", "/", "t", "##mp", "/", "x", ".", "j", "##son", "'", ")",
                "v", "##2", ".", "0", "$", "100",
            ],
        ),
        (
            "unbelievably xyzzyqwv supercalifragilistic 日本語 text",
            &[
                "un", "##bel", "##ie", "##va", "##bly", "x", "##y", "##zzy", "##q", "##w", "##v",
                "super", "##cal", "##if", "##rag", "##ilis", "##tic", "日", "本", "語", "text",
            ],
        ),
        (
            "\tTabs\nand\r\nnewlines\u{200b} here\u{0}!",
            &["tab", "##s", "and", "new", "##lines", "here", "!"],
        ),
    ];
    for (text, want) in cases {
        assert_eq!(tokens(text), *want, "{text:?}");
    }
}

#[test]
fn unknown_words_and_overlong_words_are_dropped() {
    // A word with a character outside the vocabulary, or of over 100 characters, is the
    // reference's [UNK]: dropped whole (expected lists from the reference, less [UNK]).
    assert_eq!(tokens("deploy \u{1f680}rocket now"), ["deploy", "now"]);
    assert_eq!(embed("\u{1f680} \u{1f680}"), None);
    assert_eq!(embed(""), None);
    let blob = "QUJD".repeat(5_000);
    assert_eq!(
        tokens(&format!("upload {blob} image")),
        ["up", "##load", "image"]
    );
}

#[test]
fn caps_the_tokens_of_a_long_text() {
    let long = "word ".repeat(10_000);
    assert_eq!(tokens(&long).len(), MAX_TOKENS);
    assert!(embed(&long).is_some());
}

#[test]
fn long_sums_do_not_overflow() {
    // 512 rows of the word with the largest value in the table, summed in i16 255 at a
    // time: the same direction as one row (scaling by 512 is exact in floating point), where
    // an i16 overflow would bend it.
    let model = MODEL.as_ref().unwrap();
    let largest = |token: &str| {
        let row = model.ids[token] as usize * model.dims;
        let row = &model.vectors[row..row + model.dims];
        row.iter()
            .map(|&v| (v as i8).unsigned_abs())
            .max()
            .unwrap_or(0)
    };
    let mut words: Vec<&str> = (model.ids.keys().copied())
        .filter(|t| t.len() > 2 && t.bytes().all(|b| b.is_ascii_lowercase()))
        .collect();
    words.sort_by_key(|t| (std::cmp::Reverse(largest(t)), *t));
    let word = words.into_iter().find(|t| tokens(t) == [*t]).unwrap();
    assert!(largest(word) >= 100, "{word}: {}", largest(word));
    let many = format!("{word} ").repeat(600);
    assert_eq!(embed(&many), embed(word), "{word}");
}

/// `scripts/tokenlearn-embeddings.py --test-values`'s static embedding of the same sentence
/// (mean of the int8 rows, normalised), printed to 5 decimals.
#[rustfmt::skip]
const AZURE_SENTENCE: [f32; 128] = [
    -0.22284, -0.00874, 0.01092, -0.01529, -0.01311, -0.09613, -0.09394, -0.12016,
    0.08302, -0.30367, 0.00218, -0.15730, 0.01529, 0.16604, 0.14637, 0.01748,
    -0.12016, 0.06991, 0.07865, -0.13108, 0.00437, 0.00218, -0.16385, 0.03496,
    -0.09394, 0.17696, -0.14637, -0.20318, 0.01529, -0.08520, -0.08083, -0.14201,
    -0.05680, 0.03496, -0.11579, -0.09613, -0.00437, 0.16385, -0.15293, 0.04151,
    0.10705, -0.08302, 0.07210, 0.07865, 0.01748, 0.11142, 0.03059, 0.06554,
    -0.05680, 0.06554, 0.03496, -0.02622, -0.03932, -0.06773, 0.03277, 0.12890,
    -0.03714, 0.00437, -0.03714, -0.02840, -0.00218, -0.07646, -0.03277, -0.01529,
    -0.07428, 0.01311, 0.03496, -0.08739, -0.07646, 0.09831, 0.25124, -0.06991,
    -0.04151, 0.16822, -0.02185, -0.12234, 0.05462, -0.03714, -0.10705, 0.11360,
    0.04369, -0.02185, -0.07646, -0.01966, 0.01966, -0.06773, -0.00437, 0.08083,
    0.09394, 0.03714, -0.05680, -0.08957, 0.01748, -0.00437, -0.01092, -0.05899,
    0.07428, 0.11797, -0.06554, -0.08957, -0.08957, 0.13982, 0.08739, 0.02185,
    -0.12890, -0.01529, 0.00218, 0.01311, -0.03496, -0.00874, 0.01748, 0.04588,
    -0.06336, -0.00437, -0.05680, 0.08302, 0.04588, -0.04151, 0.05462, -0.00437,
    -0.03714, -0.08520, -0.00655, -0.12016, -0.10050, 0.03059, -0.05899, -0.02622,
];

#[test]
fn embeds_as_the_distillation_script() {
    assert_eq!(dims(), AZURE_SENTENCE.len());
    let got = embed("List Azure Container Registries in a subscription.").unwrap();
    for (i, (g, w)) in got.iter().zip(AZURE_SENTENCE).enumerate() {
        assert!((g - w).abs() < 1e-3, "dimension {i}: {g} vs {w}");
    }
    let norm: f32 = got.iter().map(|v| v * v).sum();
    assert!((norm - 1.0).abs() < 1e-5);
}

#[test]
fn related_texts_are_closer_than_unrelated_ones() {
    // The same pair `scripts/tokenlearn-embeddings.py --test-values` scores 0.726 and 0.165.
    let doc = embed("List Azure Container Registries in a subscription.").unwrap();
    let near = cosine(&doc, &embed("show me my container registries").unwrap());
    let far = cosine(&doc, &embed("send an email to a colleague").unwrap());
    assert!((near - 0.726).abs() < 1e-3, "{near}");
    assert!((far - 0.165).abs() < 1e-3, "{far}");
}

#[test]
fn is_deterministic() {
    let text = "Create a new branch in a GitHub repository";
    let first = embed(text).unwrap();
    for _ in 0..3 {
        assert_eq!(embed(text).unwrap(), first);
    }
    // A fresh parse of the table gives the same vector as the shared one.
    let fresh = Model::parse(MODEL_BYTES).unwrap();
    assert_eq!(fresh.embed(text).unwrap(), first);
}

#[test]
fn the_embedder_word_by_word_is_embed_of_the_first_tokens() {
    let mut embedder = Embedder::default();
    let text = "List Azure Container Registries in a subscription, für Köln 東京";
    for word in text.split(' ') {
        assert!(embedder.push(word));
    }
    assert_eq!(embedder.finish(), embed(text));
    // A second text starts afresh, and its words are looked up, not cut again, alike.
    for word in text.split(' ') {
        embedder.push(word);
    }
    assert_eq!(embedder.finish(), embed(text));
    // Past the limit more words are refused and change nothing.
    let long: Vec<String> = (0..DOC_TOKENS + 40)
        .map(|i| format!("file{}", i % 7))
        .collect();
    let mut taken = 0;
    while taken < long.len() && embedder.push(&long[taken]) {
        taken += 1;
    }
    assert!(taken < long.len());
    assert!(!embedder.push("directory"));
    let model = MODEL.as_ref().unwrap();
    let all = model.token_ids(&long.join(" "), usize::MAX, |w, ids| model.cut(w, ids));
    assert_eq!(embedder.finish(), model.vector(&all[..DOC_TOKENS]));
}

#[test]
fn cosine_edges() {
    assert_eq!(cosine(&[1.0, 0.0], &[0.0, 0.0]), 0.0);
    assert_eq!(cosine(&[1.0], &[1.0, 0.0]), 0.0);
    assert!((cosine(&[3.0, 4.0], &[6.0, 8.0]) - 1.0).abs() < 1e-6);
}

#[test]
fn a_malformed_table_reads_as_none() {
    assert!(Model::parse(b"TOONEMB1").is_none());
    assert!(Model::parse(&MODEL_BYTES[..MODEL_BYTES.len() - 1]).is_none());
    assert!(Model::parse(b"NOTMAGIC\0\0\0\0").is_none());
}

#[test]
fn accent_tables_strip_to_base_letters() {
    // The reference's pieces for the same text.
    assert_eq!(
        tokens("àéîõü çñ ýÿ ăęğıķľńőřşťůźž"),
        [
            "ae", "##io", "##u", "cn", "y", "##y", "ae", "##g", "##ı", "##k", "##ln", "##ors",
            "##tu", "##zz"
        ]
    );
}

/// Costs for the report, not a pass/fail timing: `cargo test --release --features
/// mcp,mcp-semantic --lib embedding::tests::costs -- --ignored --nocapture`.
#[test]
#[ignore = "prints timings; run on demand in release"]
fn costs() {
    use std::time::Instant;
    let start = Instant::now();
    let model = Model::parse(MODEL_BYTES).unwrap();
    let load = start.elapsed();
    // hashbrown keeps (key, value) pairs and one control byte per bucket, buckets a power of
    // two at least 8/7 of the capacity.
    let buckets = (model.ids.capacity() * 8 / 7).next_power_of_two();
    let heap = buckets * (std::mem::size_of::<(&str, u32)>() + 1);
    println!(
        "table: {} tokens x {} dims, {} bytes compiled in; parse {load:?}; heap ~{heap} bytes",
        model.ids.len(),
        model.dims,
        MODEL_BYTES.len()
    );
    let queries = [
        "Show me the best practices for Microsoft Foundry agents code generation",
        "List all storage accounts in my subscription",
        "Can you help me find research papers on a specific topic?",
        "move the element to the drop zone",
        "what's the weather like in Paris tomorrow",
    ];
    let description =
        "Lists the Azure Container Registries in a subscription, optionally filtered \
        by resource group, with each registry's name, location and SKU. "
            .repeat(12);
    let blob = format!(
        "describe this image {}",
        "iVBORw0KGgoAAAANSUhEUgAA+/9=".repeat(650)
    );
    for (label, texts) in [
        ("query", queries.map(String::from).to_vec()),
        ("description (~330 tokens)", vec![description]),
        ("18 kB base64 paste", vec![blob]),
    ] {
        let rounds = 2_000;
        let start = Instant::now();
        for _ in 0..rounds {
            for text in &texts {
                std::hint::black_box(model.embed(std::hint::black_box(text)));
            }
        }
        let per = start.elapsed().as_secs_f64() * 1e6 / (rounds * texts.len()) as f64;
        println!("{label}: {per:.2} µs per embed");
    }
}

/// Compares the tokenizer with the reference on a file of `{"text", "tokens"}` lines (the
/// reference's tokens less `[UNK]`, first 512), e.g. every query and tool text of
/// ../shared/retrieval: `EMBEDDING_TOKENS=path cargo test --features mcp,mcp-semantic --lib
/// embedding::tests::matches_reference_file -- --ignored --nocapture`.
#[test]
#[ignore = "needs a reference file named by EMBEDDING_TOKENS"]
fn matches_reference_file() {
    let path = std::env::var("EMBEDDING_TOKENS").expect("EMBEDDING_TOKENS names the file");
    let text = std::fs::read_to_string(path).unwrap();
    let (mut total, mut differ) = (0, 0);
    for line in text.lines() {
        let case: serde_json::Value = serde_json::from_str(line).unwrap();
        let want: Vec<&str> = case["tokens"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t.as_str().unwrap())
            .collect();
        let input = case["text"].as_str().unwrap();
        total += 1;
        if tokens(input) != want {
            differ += 1;
            if differ <= 5 {
                println!("{input:?}\n  got  {:?}\n  want {want:?}", tokens(input));
            }
        }
    }
    println!("{differ} of {total} texts tokenize differently");
    assert_eq!(differ, 0);
}

#[test]
fn lines_split_as_split_terminator_does() {
    for text in [
        "",
        "\n",
        "a",
        "a\n",
        "a\nb",
        "a\n\nb\n",
        "\n\na",
        "é\nß\n\n",
    ] {
        let want: Vec<&str> = text.split_terminator('\n').collect();
        assert_eq!(super::lines(text).collect::<Vec<_>>(), want, "{text:?}");
    }
}

#[test]
fn short_keys_tell_every_short_text_apart() {
    let mut texts = vec![String::new()];
    for base in [
        "abcdefghijklmnop",
        "aaaaaaaaaaaaaaaa",
        "ab\0\0cd\0\0ef\0\0gh\0\0",
        "éa",
    ] {
        for end in 1..=base.len() {
            if let Some(text) = base.get(..end) {
                texts.push(text.to_owned());
                let mut changed = text.to_owned();
                changed.pop();
                changed.push('x');
                texts.push(changed);
            }
        }
    }
    texts.sort();
    texts.dedup();
    let keys: std::collections::HashSet<_> = texts.iter().map(|t| super::short_key(t)).collect();
    assert_eq!(keys.len(), texts.len());
    assert!(keys.iter().all(Option::is_some));
    assert_eq!(super::short_key("abcdefghijklmnopq"), None);
}
