use super::*;

/// The token strings of `text` as the module tokenizes it.
fn tokens(text: &str) -> Vec<&'static str> {
    let model = MODEL.as_ref().expect("the compiled-in table reads");
    let mut by_id = vec![""; model.ids.len()];
    for (&token, &id) in &model.ids {
        by_id[id as usize] = token;
    }
    model
        .token_ids(text)
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

/// `scripts/eval-embeddings.py`'s static embedding of the same sentence (mean of the int8
/// rows times the scale, normalised), printed to 5 decimals.
#[rustfmt::skip]
const AZURE_SENTENCE: [f32; 128] = [
    -0.20110, -0.08649, 0.11460, -0.02595, -0.03676, -0.05622, -0.15136, -0.25516, 0.07568, -0.31138, 0.06055, -0.20542, -0.03027, 0.20975, 0.13839, 0.00216,
    -0.12542, 0.05406, 0.03244, -0.13190, 0.01946, 0.03027, -0.16866, 0.04108, -0.03244, 0.13623, -0.16001, -0.22488, 0.00432, -0.04325, -0.11028, -0.13839,
    -0.04973, 0.05622, -0.06487, -0.09731, 0.00000, 0.13623, -0.12325, -0.00216, 0.06055, -0.05190, 0.08866, 0.03676, 0.01946, 0.12542, 0.05838, 0.06920,
    0.04973, 0.10812, 0.04325, 0.00000, -0.01946, -0.02379, -0.04325, 0.07784, 0.05406, 0.01297, -0.06920, -0.01514, -0.04973, -0.04973, -0.07568, -0.03892,
    -0.01946, -0.04973, 0.04973, -0.07568, -0.05190, 0.11028, 0.18812, -0.05406, -0.03676, 0.15353, -0.03676, -0.15136, 0.11028, 0.05838, -0.09082, 0.07568,
    0.01081, 0.04108, -0.03027, 0.03892, 0.06487, -0.08866, -0.04325, 0.06271, 0.08217, -0.00216, -0.03460, -0.11028, 0.05190, -0.01297, -0.01514, -0.06487,
    0.04973, 0.05406, -0.06920, -0.06055, -0.09082, 0.10595, 0.02811, 0.03027, -0.09731, 0.02162, 0.00432, 0.03244, -0.08001, -0.05190, -0.02162, 0.07136,
    -0.07568, 0.00216, -0.07352, 0.06487, 0.02162, -0.02379, 0.01297, 0.00216, 0.02162, -0.06271, 0.01730, -0.12109, -0.03027, 0.06487, -0.04541, -0.03460,
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
    // The same pair the Python script scores 0.705 and 0.177.
    let doc = embed("List Azure Container Registries in a subscription.").unwrap();
    let near = cosine(&doc, &embed("show me my container registries").unwrap());
    let far = cosine(&doc, &embed("send an email to a colleague").unwrap());
    assert!((near - 0.705).abs() < 1e-3, "{near}");
    assert!((far - 0.177).abs() < 1e-3, "{far}");
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
