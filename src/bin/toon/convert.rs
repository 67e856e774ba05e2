//! `toon [INPUT]`: JSON → TOON and TOON → JSON.
//!
//! Plain conversions stream: JSON is recorded into a compact [`toon::Recording`] (TOON's
//! layout looks at every array twice), every number with its exact digits, and written out in
//! chunks, so memory stays near the input's size; TOON is read a line at a time and written
//! as JSON text as it is read ([`toon::stream::transcode`]), numbers with all their digits
//! too, so memory stays near the longest line's size whatever the input's. Options that reshape the data
//! (`--fields`, `--tabularize`, `--budget`, `--auto`, decoding `--stats` or `--no-strict`)
//! work on a [`toon::Value`] instead.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use clap::Args;
use toon::render::{Output, Pipeline};
use toon::table::Tabularize;
use toon::{DecodeOptions, Delimiter, EncodeOptions, Recording, Value};

use crate::io::{BufferedOutput, Input, Stream};
use crate::overflow;
use crate::{Failure, parse_paths};

#[derive(Args)]
pub(crate) struct Convert {
    /// Input file (`-` or absent: standard input).
    input: Option<PathBuf>,
    /// Write to FILE instead of standard output.
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// Encode JSON to TOON (the default, except for files ending in .toon).
    #[arg(short, long, conflicts_with = "decode")]
    encode: bool,
    /// Decode TOON to JSON.
    #[arg(short, long)]
    decode: bool,
    /// ',' | '\t' | '|' (or comma, tab, pipe).
    #[arg(long, value_name = "D", default_value = ",", value_parser = parse_delimiter)]
    delimiter: Delimiter,
    /// Spaces per indentation level (decoding: 0 prints compact JSON).
    #[arg(long, value_name = "N", default_value_t = 2, value_parser = parse_indent)]
    indent: usize,
    /// Strict decoding (the default).
    #[arg(long, overrides_with = "no_strict")]
    strict: bool,
    /// Lenient decoding (the five v4.4 recoveries).
    #[arg(long = "no-strict")]
    no_strict: bool,
    /// Print size and token estimates for JSON vs TOON to stderr.
    #[arg(long)]
    stats: bool,
    /// Print the estimated o200k tokens of the input text as given, and exit.
    #[arg(long, conflicts_with_all = [
        "output", "encode", "decode", "stats", "fields", "exclude", "tabularize", "auto", "budget",
    ])]
    tokens: bool,
    /// Validate TOON: print every problem as FILE:LINE:COL: error: MESSAGE (gcc style) and
    /// exit 1 on any error; print nothing for a valid document.
    #[arg(long, conflicts_with_all = [
        "output", "encode", "decode", "stats", "tokens", "fields", "exclude", "tabularize", "auto",
        "budget",
    ])]
    check: bool,
    /// With --tokens: the exact o200k count (needs the `tiktoken` feature).
    #[arg(long, requires = "tokens")]
    exact: bool,
    /// Keep only these comma-separated field paths (id,user.name,items.sku).
    #[arg(long, value_name = "PATHS", value_parser = parse_paths)]
    fields: Vec<Vec<String>>,
    /// Drop these field paths.
    #[arg(long, value_name = "PATHS", value_parser = parse_paths)]
    exclude: Vec<Vec<String>>,
    /// Make semi-uniform arrays tabular (fills absent fields with null, folds optional objects
    /// into field groups, drops all-null columns; lossy).
    #[arg(long)]
    tabularize: bool,
    /// Print the cheapest of TOON (comma/tab/pipe) and compact JSON; the choice goes to stderr.
    #[arg(long, conflicts_with = "delimiter")]
    auto: bool,
    /// Cut rows and long strings until the output is ~N tokens or fewer; what was cut goes
    /// to stderr.
    #[arg(long, value_name = "N")]
    budget: Option<usize>,
}

fn parse_delimiter(d: &str) -> Result<Delimiter, String> {
    Delimiter::parse(d).ok_or_else(|| {
        format!("invalid delimiter {d:?}: use ',', '\\t', '|' (or comma, tab, pipe)")
    })
}

fn parse_indent(n: &str) -> Result<usize, String> {
    n.parse()
        .ok()
        .filter(|n: &usize| *n <= 32)
        .ok_or_else(|| format!("invalid indent {n:?}: expected an integer 0..=32"))
}

/// Which way a conversion goes: JSON to TOON or back (the official CLI's mode).
#[derive(Copy, Clone, PartialEq)]
enum Direction {
    Encode,
    Decode,
}

impl Direction {
    /// As the official CLI decides: the flags, then a `.toon` file decodes; everything else
    /// (`.json`, other files, standard input) encodes. Never guessed from the content, so
    /// malformed JSON is an error rather than a one-string TOON document.
    fn of(args: &Convert) -> Direction {
        let toon_file = args
            .input
            .as_deref()
            .and_then(Path::extension)
            .is_some_and(|ext| ext.eq_ignore_ascii_case("toon"));
        if args.decode || (toon_file && !args.encode) {
            Direction::Decode
        } else {
            Direction::Encode
        }
    }
}

pub(crate) fn run(args: &Convert) -> Result<(), Failure> {
    if args.check {
        return check(args);
    }
    let direction = Direction::of(args);
    let pipeline = pipeline(args, direction);
    let reshaped = pipeline.transforms() || args.auto || args.stats || args.no_strict;
    if direction == Direction::Decode && !reshaped && !args.tokens {
        return decode(args);
    }
    let input = Input::read(args.input.as_deref())?;
    if args.tokens {
        let text =
            std::str::from_utf8(&input.bytes).map_err(|e| Failure::because(&input.label, e))?;
        println!("{}", count_tokens(text, args.exact)?);
        return Ok(());
    }
    match direction {
        Direction::Encode if args.indent == 0 => {
            Err("--indent 0 applies to decoding (compact JSON); TOON needs 1 or more".into())
        }
        Direction::Encode if pipeline.transforms() || args.auto => {
            let value = parse_value(&input)?;
            reshape(args, direction, &pipeline, &input, value)
        }
        Direction::Encode => encode(args, input),
        Direction::Decode => {
            // Non-strict decoding resolves duplicate keys last-write-wins (§14.3), which
            // needs the whole object: it goes through a `Value` too.
            let value = toon::from_slice_with(&input.bytes, &decode_options(args))
                .map_err(|e| Failure::because(&input.label, e))?;
            reshape(args, direction, &pipeline, &input, value)
        }
    }
}

/// The JSON text of the input: a leading byte order mark is skipped; nothing at all is an
/// error (JavaScript's `JSON.parse("")` fails too).
fn json_text(input: &Input) -> Result<&[u8], Failure> {
    let json = input
        .bytes
        .strip_prefix(b"\xEF\xBB\xBF")
        .unwrap_or(&input.bytes);
    if json.is_empty() {
        return Err(format!("{}: empty input: there is no JSON to encode", input.label).into());
    }
    Ok(json)
}

/// Parses the input as JSON into a `Recording`, every number with its exact decimal value
/// (`1e400`, `18446744073709551616` keep their digits).
fn parse_document(input: &Input) -> Result<Recording, Failure> {
    let text = json_text(input)?;
    Recording::from_json_slice(text)
        .map_err(|e| Failure::because(format_args!("{}: invalid JSON", input.label), e))
}

/// Parses the input as JSON into a `Value`, whose numbers are `u64`, `i64` or the nearest
/// `f64`, as `JSON.parse` reads them (`toon::json::from_slice`). A number beyond f64 becomes
/// `null`, as in the reference CLI (`JSON.parse` gives ±Infinity, which encodes as `null`, §3);
/// serde_json refuses such numbers, so only then is the text rewritten and parsed again.
fn parse_value(input: &Input) -> Result<Value, Failure> {
    let text = json_text(input)?;
    warn_inexact(&input.label, text);
    let invalid = |e| Failure::because(format_args!("{}: invalid JSON", input.label), e);
    match toon::json::from_slice(text) {
        Err(e) if e.to_string().starts_with("number out of range") => {
            match overflow::nulled(text) {
                Some(rewritten) => toon::json::from_slice(&rewritten).map_err(invalid),
                None => Err(invalid(e)),
            }
        }
        parsed => parsed.map_err(invalid),
    }
}

/// Says on stderr which numbers a `Value` route rounds, rather than rounding them silently.
fn warn_inexact(label: &str, text: &[u8]) {
    let inexact = toon::json::inexact_numbers(text);
    let Some(first) = inexact.first() else {
        return;
    };
    let before = &text[..first.start];
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let column = first.start
        - before
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1)
        + 1;
    let token = String::from_utf8_lossy(&text[first.clone()]);
    let more = match inexact.len() {
        1 => String::new(),
        n => format!(" (and {} more)", n - 1),
    };
    eprintln!(
        "toon: warning: {label}: line {line}, column {column}: {token}{more} has more digits than \
         this route keeps (64-bit integers and doubles): it is rounded, or null beyond f64; \
         plain `toon -e` keeps every digit"
    );
}

fn encode_options(args: &Convert) -> EncodeOptions {
    EncodeOptions::new()
        .delimiter(args.delimiter)
        .indent_size(args.indent)
}

fn decode_options(args: &Convert) -> DecodeOptions {
    // `--indent 0` asks for compact JSON; the TOON it reads is indented as usual.
    let indent = if args.indent == 0 { 2 } else { args.indent };
    DecodeOptions::new()
        .strict(!args.no_strict)
        .indent_size(indent)
}

/// JSON → TOON through a `Recording`: the input text is released before writing unless
/// `--stats` needs it.
fn encode(args: &Convert, input: Input) -> Result<(), Failure> {
    let document = parse_document(&input)?;
    let options = encode_options(args);
    let label = input.label.clone();
    let stats_input = args.stats.then_some(input);
    let mut sink = BufferedOutput::open(args.output.as_deref())?;
    let written = match &stats_input {
        None => toon::to_writer_with(&mut sink, &document, &options)
            .map_err(|e| Failure::because(&label, e)),
        Some(input) => {
            let text = toon::to_string_with(&document, &options)
                .map_err(|e| Failure::because(&label, e))?;
            let written = sink
                .write_all(text.as_bytes())
                .map_err(|e| Failure::because("cannot write output", e));
            let json = String::from_utf8_lossy(json_text(input)?);
            stats(&json, &text);
            written
        }
    };
    sink.finish(written)?;
    announce(args, Direction::Encode, &label);
    Ok(())
}

/// Inputs larger than this are decoded a line at a time ([`toon::stream::transcode`]), in
/// memory near the longest line's size; smaller ones are read whole and transcoded by
/// [`toon::json::transcode`], which reads the common lines at one cursor in fewer
/// instructions. Both write the same bytes.
const STREAM_ABOVE: u64 = 16 << 20;

/// TOON → JSON without a tree, the JSON written as the TOON is read: a large input a line at
/// a time, a smaller one whole.
fn decode(args: &Convert) -> Result<(), Failure> {
    let mut input = Stream::open(args.input.as_deref())?;
    let label = input.label.clone();
    // Creating the output would empty the input before it is read: then it is read whole
    // first.
    let over_input = writes_over_input(args);
    let large = !over_input && input.size.is_some_and(|size| size > STREAM_ABOVE);
    let head = if large {
        Vec::new()
    } else {
        // Standard input's size shows only when it is read: up to the limit, then the rest
        // is read a line at a time after what was read.
        let limit = if over_input {
            u64::MAX
        } else {
            STREAM_ABOVE + 1
        };
        let mut head = Vec::new();
        (&mut input.reader)
            .take(limit)
            .read_to_end(&mut head)
            .map_err(|e| Failure::because(format_args!("cannot read {label}"), e))?;
        head
    };
    let mut sink = BufferedOutput::open(args.output.as_deref())?;
    let options = decode_options(args);
    let written = if large || (!over_input && head.len() as u64 > STREAM_ABOVE) {
        let reader = std::io::Cursor::new(head).chain(input.reader);
        toon::stream::transcode(reader, &mut sink, args.indent, &options)
    } else {
        toon::Deserializer::from_slice_with(&head, &options)
            .and_then(|mut de| toon::json::transcode(&mut de, &mut sink, args.indent))
    };
    sink.finish(written.map_err(|e| Failure::because(&label, e)))?;
    announce(args, Direction::Decode, &label);
    Ok(())
}

/// `--check`: every diagnostic of the input (`toon::validate`), one line each as compilers
/// print them; exit 1 if one is an error.
fn check(args: &Convert) -> Result<(), Failure> {
    let input = Input::read(args.input.as_deref())?;
    let label = &input.label;
    let options = decode_options(args);
    let found = match std::str::from_utf8(&input.bytes) {
        Ok(text) => toon::validate_with(text, &options),
        Err(_) => {
            // Ill-formed UTF-8: the decoder's error, placed at the first bad byte.
            if let Err(err) = toon::Deserializer::from_slice_with(&input.bytes, &options) {
                println!(
                    "{label}:{}:{}: error: {}",
                    err.line(),
                    err.column(),
                    err.message()
                );
            }
            return Err(Failure::reported());
        }
    };
    let mut out = std::io::stdout().lock();
    for d in &found {
        let written = match d.line() {
            0 => writeln!(out, "{label}: {}: {}", d.severity(), d.message()),
            line => writeln!(
                out,
                "{label}:{line}:{}: {}: {}",
                d.column(),
                d.severity(),
                d.message()
            ),
        };
        written.map_err(|e| Failure::because("cannot write output", e))?;
    }
    if found.iter().any(|d| d.severity() == toon::Severity::Error) {
        return Err(Failure::reported());
    }
    Ok(())
}

/// Whether `-o` names the input file itself.
fn writes_over_input(args: &Convert) -> bool {
    let (Some(input), Some(output)) = (&args.input, &args.output) else {
        return false;
    };
    match (std::fs::canonicalize(input), std::fs::canonicalize(output)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

/// The `Value` route: projection, tabularize, budget, `--auto`, then the output.
fn reshape(
    args: &Convert,
    direction: Direction,
    pipeline: &Pipeline,
    input: &Input,
    value: Value,
) -> Result<(), Failure> {
    let (value, notes) = pipeline.transform(value).map_err(|e| e.to_string())?;
    notes.iter().for_each(|n| eprintln!("{n}"));
    let output = if args.auto || direction == Direction::Encode {
        let rendered = pipeline
            .write(&value)
            .map_err(|e| Failure::because(&input.label, e))?;
        rendered.notes.iter().for_each(|n| eprintln!("{n}"));
        rendered.text
    } else {
        toon::json::to_string_pretty(&value, args.indent)
            .map_err(|e| Failure::because(&input.label, e))?
    };
    let mut sink = BufferedOutput::open(args.output.as_deref())?;
    let written = sink
        .write_all(output.as_bytes())
        .map_err(|e| Failure::because("cannot write output", e));
    sink.finish(written)?;
    announce(args, direction, &input.label);
    if args.stats {
        // The input as given where nothing transformed it; otherwise the value's own texts.
        let transformed = pipeline.transforms();
        let as_given = || String::from_utf8_lossy(&input.bytes);
        let json = match direction {
            Direction::Encode if !transformed => as_given(),
            _ => toon::json::to_string(&value)
                .map_err(|e| e.to_string())?
                .into(),
        };
        let toon = match direction {
            Direction::Encode if !args.auto => output.as_str().into(),
            Direction::Decode if !transformed => as_given(),
            _ => toon::to_string(&value).map_err(|e| e.to_string())?.into(),
        };
        stats(&json, &toon);
    }
    Ok(())
}

fn pipeline(args: &Convert, direction: Direction) -> Pipeline {
    let mut p = Pipeline::new()
        .fields(args.fields.iter().flatten())
        .exclude(args.exclude.iter().flatten());
    if args.tabularize {
        p = p.tabularize(Tabularize::all());
    }
    if let Some(budget) = args.budget {
        p = p.budget(budget);
    }
    let output = if args.auto {
        Output::Auto
    } else if direction == Direction::Encode {
        Output::Toon(encode_options(args))
    } else {
        // Decoding writes pretty JSON itself; the pipeline only transforms.
        Output::CompactJson
    };
    p.output(output)
}

/// `Encoded `in` → `out`` on stderr when writing to a file, as the official CLI does.
fn announce(args: &Convert, direction: Direction, label: &str) {
    if let Some(path) = &args.output {
        let verb = match direction {
            Direction::Encode => "Encoded",
            Direction::Decode => "Decoded",
        };
        eprintln!("{verb} `{label}` → `{}`", path.display());
    }
}

/// `--tokens [--exact]`: the token count of `text` exactly as given.
fn count_tokens(text: &str, exact: bool) -> Result<usize, Failure> {
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

/// `--stats`: estimates for the JSON and TOON texts, in the official CLI's wording plus sizes.
fn stats(json_text: &str, toon_text: &str) {
    let json_tokens = toon::tokens::estimate(json_text);
    let toon_tokens = toon::tokens::estimate(toon_text);
    eprintln!(
        "Token estimates: ~{json_tokens} (JSON) → ~{toon_tokens} (TOON)\n\
         {}\n\
         Bytes: {} (JSON) → {} (TOON)",
        difference(json_tokens, toon_tokens),
        json_text.len(),
        toon_text.len(),
    );
}

/// What TOON saves, or costs more, than JSON, in tokens and in percent of the JSON's, both
/// positive: the word says which (`Saved ~396 tokens (60.4%)`, `Costs ~162 more tokens
/// (50.5%)`). The official CLI (@toon-format/cli 4.1.1) says "Saved" with a signed change,
/// `Saved ~396 tokens (-60.4%)`, and has no line for a cost (`Saved ~-162 tokens (--50.5%)`).
fn difference(json_tokens: usize, toon_tokens: usize) -> String {
    let percent = |diff: usize| {
        if json_tokens == 0 {
            0.0
        } else {
            diff as f64 / json_tokens as f64 * 100.0
        }
    };
    match json_tokens.checked_sub(toon_tokens) {
        Some(saved) => format!("Saved ~{saved} tokens ({:.1}%)", percent(saved)),
        None => {
            let more = toon_tokens - json_tokens;
            format!("Costs ~{more} more tokens ({:.1}%)", percent(more))
        }
    }
}
