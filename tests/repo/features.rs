//! This crate's features leave serde_json as it is for the rest of a build: key order
//! (`preserve_order`), float reading (`float_roundtrip`) and numbers (`arbitrary_precision`)
//! are serde_json's defaults here, whichever of our features this test binary was built with
//! (`cargo test --all-features` builds it with all of them). Key order and exact numbers come
//! from the crate's own types and readers instead: `toon::Value`, `Recording`,
//! `toon::json::from_str`.

#[test]
fn serde_json_keeps_its_default_key_order() {
    let json = serde_json::json!({"b": 1, "a": 2});
    assert_eq!(json.to_string(), r#"{"a":2,"b":1}"#, "preserve_order is on");
    // The crate's own value keeps the order it was given.
    let ours = toon::toon!({"b": 1, "a": 2});
    assert_eq!(serde_json::to_string(&ours).unwrap(), r#"{"b":1,"a":2}"#);
}

#[test]
fn serde_json_keeps_its_default_float_reading() {
    // serde_json reads this float one unit in the last place off without `float_roundtrip`.
    let token = "2.9168327507216497e-10";
    let default: f64 = serde_json::from_str(token).unwrap();
    assert_ne!(default, 2.9168327507216497e-10, "float_roundtrip is on");
    let ours: f64 = toon::json::from_str(token).unwrap();
    assert_eq!(ours, 2.9168327507216497e-10);
}

#[test]
fn serde_json_numbers_are_not_arbitrary_precision() {
    let big: serde_json::Value = serde_json::from_str("12345678901234567890123").unwrap();
    assert_eq!(
        big.to_string(),
        "1.2345678901234568e+22",
        "arbitrary_precision is on"
    );
}

/// The crates a build with `features` links (normal dependencies, this crate's own features).
fn crates_with(features: &str) -> Vec<String> {
    let out = super::cargo(&[
        "tree",
        "--offline",
        "--locked",
        "-e",
        "normal",
        "--prefix",
        "none",
        "--no-default-features",
        "--features",
        features,
    ]);
    let text = String::from_utf8(out).unwrap();
    let mut crates: Vec<String> = text
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .map(str::to_owned)
        .collect();
    crates.sort();
    crates.dedup();
    crates
}

#[test]
fn stdio_proxying_links_no_http_or_tls_stack() {
    let http_stack = [
        "hyper",
        "hyper-util",
        "hyper-rustls",
        "rustls",
        "webpki-roots",
    ];
    let stdio = crates_with("cli,mcp-stdio");
    assert!(stdio.iter().any(|c| c == "tokio"), "{stdio:?}");
    for name in http_stack {
        assert!(!stdio.iter().any(|c| c == name), "mcp-stdio links {name}");
    }
    let http = crates_with("cli,mcp-http");
    for name in http_stack {
        assert!(http.iter().any(|c| c == name), "mcp-http lacks {name}");
    }
    // `mcp-proxy`, which existing users name, is still the whole proxy.
    assert_eq!(crates_with("cli,mcp-proxy"), http);
}

#[test]
fn only_the_proxy_links_tracing() {
    // The codec, the CLI and `toon::mcp` log nothing; the proxy's events (and the stderr layer
    // the CLI installs for them) come with `mcp-stdio`.
    let tracing = ["tracing", "tracing-core", "tracing-subscriber"];
    for features in ["cli", "mcp", "cli,mcp"] {
        let crates = crates_with(features);
        for name in tracing {
            assert!(!crates.iter().any(|c| c == name), "{features} links {name}");
        }
    }
    let stdio = crates_with("mcp-stdio");
    for name in tracing {
        assert!(stdio.iter().any(|c| c == name), "mcp-stdio lacks {name}");
    }
}

#[test]
fn only_the_gateway_links_the_metrics_client() {
    // The codec, the CLI and `toon::mcp` count nothing; the proxy's metrics
    // (`mcp/proxy/metrics.rs`) come with `mcp-stdio` (and so `mcp-http`), with their own
    // crates: prometheus-client, its derive macro, parking_lot's locks and dtoa
    // (52 -> 60 crates for `mcp-stdio`, 74 -> 81 for `mcp-http`).
    let metrics = ["prometheus-client", "prometheus-client-derive-encode"];
    for features in ["cli", "mcp", "cli,mcp", "mcp-semantic"] {
        let crates = crates_with(features);
        for name in metrics {
            assert!(!crates.iter().any(|c| c == name), "{features} links {name}");
        }
    }
    for features in ["mcp-stdio", "mcp-http"] {
        let crates = crates_with(features);
        for name in metrics {
            assert!(crates.iter().any(|c| c == name), "{features} lacks {name}");
        }
    }
}
