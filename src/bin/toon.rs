//! `toon`: convert JSON to TOON and back; a drop-in for the official `@toon-format/cli`.

use std::io::{Read, Write};
use std::process::ExitCode;

use toon::{DecodeOptions, Delimiter, EncodeOptions, Value};

const USAGE: &str = "\
Usage: toon [INPUT] [options]

Converts JSON to TOON (encode) or TOON to JSON (decode).
INPUT is a file path, or `-` / absent for standard input. The mode follows the extension
(.json encodes, .toon decodes) or, for other input, the content (valid JSON encodes).

Options:
  -o, --output FILE     write to FILE instead of standard output
  -e, --encode          force JSON -> TOON
  -d, --decode          force TOON -> JSON
      --delimiter D     ',' | '\\t' | '|' (or comma, tab, pipe); default ','
      --indent N        spaces per indentation level (default 2)
      --strict          strict decoding (default)
      --no-strict       lenient decoding (the five v4.4 recoveries)
      --stats           print size and token estimates for JSON vs TOON to stderr
      --tokens          print the estimated o200k tokens of the input text as given, and exit
      --exact           with --tokens: the exact o200k count (needs the `tiktoken` feature)
      --fields PATHS    keep only these comma-separated field paths (id,user.name,items.sku)
      --exclude PATHS   drop these field paths
      --tabularize      make semi-uniform arrays tabular (fills absent fields with null, folds
                        optional objects into field groups, drops all-null columns; lossy)
      --auto            print the cheapest of TOON (comma/tab/pipe) and compact JSON; the
                        choice and why go to stderr
      --budget N        cut rows and long strings until the output is ~N tokens or fewer;
                        what was cut goes to stderr
  -h, --help            show this help
  -V, --version         show the version";

#[derive(Default)]
struct Args {
    input: Option<String>,
    output: Option<String>,
    mode: Option<Mode>,
    delimiter: Delimiter,
    indent: usize,
    strict: bool,
    stats: bool,
    tokens: bool,
    exact: bool,
    fields: Vec<String>,
    exclude: Vec<String>,
    tabularize: bool,
    auto: bool,
    budget: Option<usize>,
}

#[derive(Copy, Clone, PartialEq)]
enum Mode {
    Encode,
    Decode,
}

fn parse_args(raw: impl Iterator<Item = String>) -> Result<Option<Args>, String> {
    let mut args = Args {
        indent: 2,
        strict: true,
        ..Args::default()
    };
    let mut raw = raw.peekable();
    while let Some(arg) = raw.next() {
        let (flag, inline) = match arg.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f.to_string(), Some(v.to_string())),
            _ => (arg.clone(), None),
        };
        let mut value = |name: &str| -> Result<String, String> {
            inline
                .clone()
                .or_else(|| raw.next())
                .ok_or_else(|| format!("{name} needs a value"))
        };
        match flag.as_str() {
            "-h" | "--help" => {
                println!("{USAGE}");
                return Ok(None);
            }
            "-V" | "--version" => {
                println!("toon {}", env!("CARGO_PKG_VERSION"));
                return Ok(None);
            }
            "-o" | "--output" => args.output = Some(value("--output")?),
            "-e" | "--encode" => args.mode = Some(Mode::Encode),
            "-d" | "--decode" => args.mode = Some(Mode::Decode),
            "--delimiter" => {
                let d = value("--delimiter")?;
                args.delimiter = Delimiter::parse(&d).ok_or_else(|| {
                    format!("invalid delimiter {d:?}: use ',', '\\t', '|' (or comma, tab, pipe)")
                })?;
            }
            "--indent" => {
                let n = value("--indent")?;
                args.indent = n
                    .parse()
                    .ok()
                    .filter(|&n: &usize| (1..=32).contains(&n))
                    .ok_or_else(|| format!("invalid indent {n:?}: expected an integer 1..=32"))?;
            }
            "--strict" => args.strict = true,
            "--no-strict" => args.strict = false,
            "--stats" => args.stats = true,
            "--tokens" => args.tokens = true,
            "--exact" => args.exact = true,
            "--fields" => args.fields.extend(paths(&value("--fields")?)),
            "--exclude" => args.exclude.extend(paths(&value("--exclude")?)),
            "--tabularize" => args.tabularize = true,
            "--auto" => args.auto = true,
            "--budget" => {
                let n = value("--budget")?;
                args.budget = Some(
                    n.parse()
                        .map_err(|_| format!("--budget needs a token count, got {n:?}"))?,
                );
            }
            "-" => args.input = Some(arg),
            _ if flag.starts_with('-') => return Err(format!("unknown option {arg}\n\n{USAGE}")),
            _ => {
                if args.input.is_some() {
                    return Err(format!("more than one input given: {arg}"));
                }
                args.input = Some(arg);
            }
        }
    }
    Ok(Some(args))
}

fn paths(list: &str) -> impl Iterator<Item = String> + '_ {
    list.split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(str::to_owned)
}

fn read_input(input: Option<&str>) -> Result<Vec<u8>, String> {
    let mut bytes = Vec::new();
    match input {
        None | Some("-") => std::io::stdin()
            .read_to_end(&mut bytes)
            .map_err(|e| format!("cannot read standard input: {e}"))?,
        Some(path) => {
            bytes = std::fs::read(path).map_err(|e| format!("cannot read {path}: {e}"))?;
            0
        }
    };
    Ok(bytes)
}

fn detect_mode(args: &Args, bytes: &[u8]) -> Mode {
    if let Some(mode) = args.mode {
        return mode;
    }
    match args
        .input
        .as_deref()
        .and_then(|p| p.rsplit_once('.'))
        .map(|(_, ext)| ext)
    {
        Some(ext) if ext.eq_ignore_ascii_case("json") => Mode::Encode,
        Some(ext) if ext.eq_ignore_ascii_case("toon") => Mode::Decode,
        _ if serde_json::from_slice::<serde::de::IgnoredAny>(bytes).is_ok() => Mode::Encode,
        _ => Mode::Decode,
    }
}

/// `--tokens [--exact]`: the token count of `text` exactly as given.
fn count_tokens(text: &str, exact: bool) -> Result<usize, String> {
    if !exact {
        return Ok(toon::tokens::estimate(text));
    }
    #[cfg(feature = "tiktoken")]
    {
        Ok(toon::tokens::count(text, toon::tokens::Encoding::O200kBase))
    }
    #[cfg(not(feature = "tiktoken"))]
    Err(
        "--exact needs the `tiktoken` feature (cargo install toon-codec --features cli,tiktoken)"
            .into(),
    )
}

/// Projection, tabularize and budget, in that order, on the value being converted.
fn transform(args: &Args, value: Value) -> Result<Value, String> {
    let mut value = value;
    if !args.fields.is_empty() || !args.exclude.is_empty() {
        let projection = toon::project::Projection::new()
            .include(&args.fields)
            .exclude(&args.exclude)
            .unknown(toon::project::Unknown::Error);
        value = projection.apply_value(&value).map_err(|e| e.to_string())?;
    }
    if args.tabularize {
        let (table, report) = toon::table::tabularize(&value, &toon::table::Tabularize::all());
        eprintln!(
            "tabularize: {} arrays rewritten, {} absent fields filled, {} objects folded{}",
            report.arrays,
            report.filled,
            report.folded,
            if report.dropped.is_empty() {
                String::new()
            } else {
                format!(", dropped all-null {}", report.dropped.join(", "))
            }
        );
        value = table;
    }
    if let Some(budget) = args.budget {
        let fitted = toon::tokens::fit(&value, budget).map_err(|e| e.to_string())?;
        if let Some(note) = fitted.note() {
            eprintln!("budget {budget}: ~{} tokens; {note}", fitted.tokens);
        }
        value = fitted.value;
    }
    Ok(value)
}

fn run(args: &Args) -> Result<(), String> {
    let bytes = read_input(args.input.as_deref())?;
    let source = args.input.as_deref().unwrap_or("<stdin>");
    if args.tokens {
        let text = std::str::from_utf8(&bytes).map_err(|e| format!("{source}: {e}"))?;
        println!("{}", count_tokens(text, args.exact)?);
        return Ok(());
    }
    let mode = detect_mode(args, &bytes);
    let opts = EncodeOptions::new()
        .delimiter(args.delimiter)
        .indent_size(args.indent);
    let value: Value = match mode {
        Mode::Encode => {
            serde_json::from_slice(&bytes).map_err(|e| format!("{source}: invalid JSON: {e}"))?
        }
        Mode::Decode => {
            let opts = DecodeOptions::new()
                .strict(args.strict)
                .indent_size(args.indent);
            toon::from_slice_with(&bytes, &opts).map_err(|e| format!("{source}: {e}"))?
        }
    };
    let transformed = args.tabularize
        || args.budget.is_some()
        || !args.fields.is_empty()
        || !args.exclude.is_empty();
    let value = transform(args, value)?;
    // The two texts --stats compares: the input as given unless it was transformed.
    let (output, json_text, toon_text) = if args.auto {
        let chosen = toon::table::auto(&value).map_err(|e| e.to_string())?;
        eprintln!("auto: {}", chosen.reason());
        // The texts --stats compares; not rendered again unless asked for.
        let (json, text) = if args.stats {
            (
                serde_json::to_string(&value).map_err(|e| e.to_string())?,
                toon::to_string(&value).map_err(|e| e.to_string())?,
            )
        } else {
            (String::new(), String::new())
        };
        (chosen.text, json, text)
    } else {
        match mode {
            Mode::Encode => {
                let text =
                    toon::to_string_with(&value, &opts).map_err(|e| format!("{source}: {e}"))?;
                let json = if transformed {
                    serde_json::to_string(&value).map_err(|e| e.to_string())?
                } else {
                    String::from_utf8_lossy(&bytes).into_owned()
                };
                (text.clone(), json, text)
            }
            Mode::Decode => {
                let json = pretty_json(&value, args.indent)?;
                let toon_text = if transformed {
                    toon::to_string(&value).map_err(|e| e.to_string())?
                } else {
                    String::from_utf8_lossy(&bytes).into_owned()
                };
                (json.clone(), json, toon_text)
            }
        }
    };
    match args.output.as_deref() {
        Some(path) => {
            std::fs::write(path, format!("{output}\n"))
                .map_err(|e| format!("cannot write {path}: {e}"))?;
            let verb = if mode == Mode::Encode {
                "Encoded"
            } else {
                "Decoded"
            };
            eprintln!("{verb} `{source}` → `{path}`");
        }
        None => {
            let mut out = std::io::stdout().lock();
            out.write_all(output.as_bytes())
                .and_then(|()| out.write_all(b"\n"))
                .and_then(|()| out.flush())
                .map_err(|e| format!("cannot write output: {e}"))?;
        }
    }
    if args.stats {
        let json_tokens = toon::tokens::estimate(&json_text);
        let toon_tokens = toon::tokens::estimate(&toon_text);
        let saved = json_tokens as f64 - toon_tokens as f64;
        let pct = if json_tokens > 0 {
            saved / json_tokens as f64 * 100.0
        } else {
            0.0
        };
        // The official CLI's wording, plus sizes.
        eprintln!(
            "Token estimates: ~{json_tokens} (JSON) → ~{toon_tokens} (TOON)\n\
             Saved ~{} tokens ({:.1}%)\n\
             Bytes: {} (JSON) → {} (TOON)",
            saved as i64,
            -pct,
            json_text.len(),
            toon_text.len(),
        );
    }
    Ok(())
}

fn pretty_json(value: &Value, indent: usize) -> Result<String, String> {
    let spaces = vec![b' '; indent];
    let mut out = Vec::new();
    let fmt = serde_json::ser::PrettyFormatter::with_indent(&spaces);
    let mut ser = serde_json::Serializer::with_formatter(&mut out, fmt);
    serde::Serialize::serialize(value, &mut ser).map_err(|e| e.to_string())?;
    String::from_utf8(out).map_err(|e| e.to_string())
}

fn main() -> ExitCode {
    let args = match parse_args(std::env::args().skip(1)) {
        Ok(Some(args)) => args,
        Ok(None) => return ExitCode::SUCCESS,
        Err(msg) => {
            eprintln!("toon: {msg}");
            return ExitCode::FAILURE;
        }
    };
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(msg) => {
            eprintln!("toon: error: {msg}");
            ExitCode::FAILURE
        }
    }
}
