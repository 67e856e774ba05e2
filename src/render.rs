//! The render pipeline: projection → tabularize → token budget → output format, in one type
//! that the CLI and [`toon::mcp`](crate) both call.
//!
//! ## Which encoding
//!
//! One vocabulary, wherever the crate picks how a value is written:
//!
//! - A **rendering** is one way of writing a value: TOON with a delimiter, or **compact JSON**
//!   (JSON without whitespace) ([`Rendering`]; [`Rendered::rendering`] says which was
//!   written).
//! - An **output** is what a caller asks for ([`Output`]): one rendering (`Toon(options)`,
//!   `CompactJson`), or the cheaper one by token cost ([`tokens::cost`](crate::tokens::cost);
//!   ties go to compact JSON):
//!   - **auto**: the cheapest of all four renderings, TOON with a comma, tab or pipe and
//!     compact JSON ([`Output::Auto`], [`table::auto`](crate::table::auto), whose answer is a
//!     [`Choice`](crate::table::Choice); `toon --auto` on the command line);
//!   - **cheaper**: the cheaper of TOON with given options and compact JSON, two renderings
//!     instead of four ([`Output::Cheaper`]). The MCP result encoder's default is this one
//!     (`toon::mcp::Format::Cheaper`, which `toon mcp … --format cheaper` names on the command
//!     line).
//!
//! ```
//! use toon::render::{Output, Pipeline};
//! let rows: Vec<_> = (0..100).map(|i| toon::toon!({"id": i, "name": "user", "pw": "x"})).collect();
//! let pipeline = Pipeline::new().fields(["users.id", "users.name"]).budget(60);
//! let out = pipeline.render(toon::toon!({"users": rows}))?;
//! assert!(out.text.starts_with("users["));
//! assert!(!out.text.contains("pw"));
//! assert!(out.notes[0].starts_with("budget 60: ~"));
//! # Ok::<(), toon::Error>(())
//! ```

use crate::error::{Error, Result};
use crate::options::EncodeOptions;
use crate::project::{Projection, Unknown};
use crate::table::{Rendering, Tabularize, auto, tabularize};
use crate::tokens::{costs, fit};
use crate::value::Value;

/// How the pipeline's value is written: one rendering, or the cheapest of several (see
/// [Which encoding](self#which-encoding)).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Output {
    /// TOON with these options.
    Toon(EncodeOptions),
    /// JSON without whitespace.
    CompactJson,
    /// "auto": the cheapest of TOON (each delimiter) and compact JSON
    /// ([`table::auto`](crate::table::auto)).
    Auto,
    /// "cheaper": the cheaper of TOON with these options and compact JSON (two renderings
    /// instead of four; ties go to compact JSON).
    Cheaper(EncodeOptions),
}

impl Default for Output {
    fn default() -> Self {
        Output::Toon(EncodeOptions::default())
    }
}

/// A configured chain of transforms and an output format. Every step is optional; the
/// default pipeline writes the value as TOON unchanged.
#[derive(Clone, Debug, Default)]
pub struct Pipeline {
    fields: Vec<String>,
    exclude: Vec<String>,
    tabularize: Option<Tabularize>,
    budget: Option<usize>,
    output: Output,
}

/// What [`Pipeline::render`] produced.
#[derive(Clone, Debug)]
pub struct Rendered {
    /// The text.
    pub text: String,
    /// Its rendering.
    pub rendering: Rendering,
    /// Its tokens: exact o200k with the `tiktoken` feature, else by
    /// [`tokens::estimate_costs`](crate::tokens::estimate_costs).
    pub tokens: usize,
    /// One line per step that changed something (`tabularize: …`, `budget N: …`,
    /// `auto: chose …`), for a log or the model.
    pub notes: Vec<String>,
}

impl Pipeline {
    /// The pipeline that writes TOON with default options and changes nothing.
    #[must_use]
    pub fn new() -> Self {
        Pipeline::default()
    }

    /// Keeps only these field paths (see [`crate::project`]); unknown paths are errors.
    #[must_use]
    pub fn fields<I: IntoIterator<Item = S>, S: Into<String>>(mut self, paths: I) -> Self {
        self.fields.extend(paths.into_iter().map(Into::into));
        self
    }

    /// Drops these field paths.
    #[must_use]
    pub fn exclude<I: IntoIterator<Item = S>, S: Into<String>>(mut self, paths: I) -> Self {
        self.exclude.extend(paths.into_iter().map(Into::into));
        self
    }

    /// Applies [`table::tabularize`](crate::table::tabularize) with these options.
    #[must_use]
    pub fn tabularize(mut self, options: Tabularize) -> Self {
        self.tabularize = Some(options);
        self
    }

    /// Cuts the value to about this many tokens ([`tokens::fit`](crate::tokens::fit)).
    #[must_use]
    pub fn budget(mut self, max_tokens: usize) -> Self {
        self.budget = Some(max_tokens);
        self
    }

    /// Sets the output ([`Output`]).
    #[must_use]
    pub fn output(mut self, output: Output) -> Self {
        self.output = output;
        self
    }

    /// Whether any transform is configured (the value may differ from the input).
    #[must_use]
    pub fn transforms(&self) -> bool {
        !self.fields.is_empty()
            || !self.exclude.is_empty()
            || self.tabularize.is_some()
            || self.budget.is_some()
    }

    /// Runs the transforms on `value`; returns the new value and a note per step that
    /// changed something.
    ///
    /// # Errors
    /// An unknown field path, or a value the budget fitter cannot encode.
    pub fn transform(&self, mut value: Value) -> Result<(Value, Vec<String>)> {
        let mut notes = Vec::new();
        if !self.fields.is_empty() || !self.exclude.is_empty() {
            let projection = Projection::new()
                .include(&self.fields)
                .exclude(&self.exclude)
                .unknown(Unknown::Error);
            value = projection.apply_value(&value)?;
        }
        if let Some(options) = &self.tabularize {
            let (table, report) = tabularize(&value, options);
            notes.push(format!(
                "tabularize: {} arrays rewritten, {} absent fields filled, {} objects folded{}",
                report.arrays,
                report.filled,
                report.folded,
                if report.dropped.is_empty() {
                    String::new()
                } else {
                    format!(", dropped all-null {}", report.dropped.join(", "))
                }
            ));
            value = table;
        }
        if let Some(budget) = self.budget {
            let fitted = fit(&value, budget)?;
            if let Some(note) = fitted.note() {
                notes.push(format!(
                    "budget {budget}: ~{} tokens; {note}",
                    fitted.tokens
                ));
            }
            if fitted.tokens > budget {
                notes.push(format!(
                    "budget {budget} not met: the smallest fitting value is ~{} tokens",
                    fitted.tokens
                ));
            }
            value = fitted.value;
        }
        Ok((value, notes))
    }

    /// Transforms `value` and writes it in the output format.
    ///
    /// # Errors
    /// As [`transform`](Self::transform), or when the value cannot be encoded.
    pub fn render(&self, value: Value) -> Result<Rendered> {
        let (value, notes) = self.transform(value)?;
        let mut rendered = self.write(&value)?;
        rendered.notes.splice(0..0, notes);
        Ok(rendered)
    }

    /// Writes `value` in the output format without transforming it (for a value that went
    /// through [`transform`](Self::transform) already).
    ///
    /// # Errors
    /// When the value cannot be encoded.
    pub fn write(&self, value: &Value) -> Result<Rendered> {
        let mut notes = Vec::new();
        let (text, rendering) = match &self.output {
            Output::Toon(options) => (
                crate::to_string_with(value, options)?,
                Rendering::Toon(options.delimiter),
            ),
            Output::CompactJson => (
                crate::json::to_string(value).map_err(|e| Error::data(e.to_string()))?,
                Rendering::CompactJson,
            ),
            Output::Auto => {
                let chosen = auto(value)?;
                notes.push(format!("auto: {}", chosen.reason()));
                (chosen.text, chosen.rendering)
            }
            Output::Cheaper(options) => {
                let toon = crate::to_string_with(value, options)?;
                let json = crate::json::to_string(value).map_err(|e| Error::data(e.to_string()))?;
                let both = costs(&[&json, &toon]);
                let (j, t) = (both[0], both[1]);
                return Ok(if t < j {
                    Rendered {
                        text: toon,
                        rendering: Rendering::Toon(options.delimiter),
                        tokens: t,
                        notes,
                    }
                } else {
                    Rendered {
                        text: json,
                        rendering: Rendering::CompactJson,
                        tokens: j,
                        notes,
                    }
                });
            }
        };
        Ok(Rendered {
            tokens: costs(&[&text])[0],
            text,
            rendering,
            notes,
        })
    }
}
