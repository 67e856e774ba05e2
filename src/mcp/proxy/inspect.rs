//! `toon mcp inspect`: what a setup's tool lists cost the model today, with each mode and as
//! configured (each server in its own mode); what was wrong with them; which tools compact
//! mode keeps whole and why; and which tools' results are converted.

use std::fmt;

use crate::mcp::proxy::front::listing::{Showing, tools_list_json};
use crate::mcp::proxy::servers::mode::{Mode, ServerModes};
use crate::mcp::{Catalog, Decision, Form, Grouping, Policy, Status, Structured, Tool, form_of};
use crate::tokens::cost;

/// One server's line of an [`Inspection`].
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ServerCost {
    /// The server's name.
    pub name: String,
    /// `ready`, or `unavailable: why`.
    pub status: String,
    /// How many tools it lists.
    pub tools: usize,
    /// Tokens of its `tools/list` result as compact JSON (what a client puts in the prompt).
    pub tools_list: usize,
    /// Tokens of its part of the `full` view.
    pub full: usize,
    /// The mode its tools are shown in.
    pub mode: Mode,
    /// Tokens of the proxy's `tools/list` with this server's tools alone, in each mode of
    /// [`Mode::ALL`] (passthrough, compact, lean), the proxy's own tools included.
    pub in_mode: [usize; 3],
    /// What was skipped or ignored in its listing ([`Server::warnings`](crate::mcp::Server::warnings)).
    pub warnings: Vec<String>,
}

/// Whether one tool's results are converted, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ToolResults {
    /// Its server.
    pub server: String,
    /// The name the proxy exposes it under.
    pub name: String,
    /// The content rule with the policy's overrides.
    pub decision: Decision,
}

/// A tool compact mode lists with its whole schema, and why ([`form_of`]).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct WholeSchema {
    /// Its server.
    pub server: String,
    /// The name the proxy exposes it under.
    pub name: String,
    /// What in its schema a signature would not say.
    pub why: String,
}

/// Token costs of a catalog: per server, and for the whole setup per view and per mode.
/// Counts are exact o200k with the `tiktoken` feature, else estimates
/// ([`tokens::cost`](crate::tokens::cost)).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Inspection {
    /// One line per server, in configuration order.
    pub servers: Vec<ServerCost>,
    /// All servers' `tools/list` JSON together.
    pub tools_list: usize,
    /// The proxy's `tools/list` in passthrough mode.
    pub passthrough: usize,
    /// The proxy's `tools/list` in lean mode (three meta-tools with the categories view).
    pub lean_mode: usize,
    /// The proxy's `tools/list` in compact mode.
    pub compact_mode: usize,
    /// The proxy's `tools/list` as configured: each server in its own mode.
    pub configured: usize,
    /// Whether servers are in more than one mode (then [`configured`](Self::configured) is
    /// none of the single modes).
    pub mixed: bool,
    /// The `full` view.
    pub full: usize,
    /// The `categories` view.
    pub categories: usize,
    /// The `lean` view.
    pub lean: usize,
    /// The tools compact mode keeps whole, and why.
    pub whole_schemas: Vec<WholeSchema>,
    /// Every tool, and whether its results are converted or reach the model verbatim.
    pub results: Vec<ToolResults>,
}

impl Inspection {
    /// Measures `catalog` under `policy` (its `structured` shapes the passthrough listing; its
    /// tool lists override the content rule), each server in its mode of `modes`.
    ///
    /// # Errors
    /// When a view cannot be rendered (a definition that is not valid JSON).
    pub fn of(
        catalog: &Catalog,
        policy: &Policy,
        modes: &ServerModes,
    ) -> crate::mcp::Result<Inspection> {
        let drop = policy.structured == Structured::Drop;
        let modes = &modes.resolved(catalog.servers().iter().map(|s| s.name()));
        let every = |_: &Tool| true;
        let listing = |catalog: &Catalog, modes: &ServerModes| {
            let showing = Showing {
                modes,
                lists: &every,
                drop_output_schema: drop,
            };
            showing.tools_list(catalog).map(|list| cost(&list))
        };
        let mut servers = Vec::new();
        for server in catalog.servers() {
            let tools: Vec<&str> = server.tools().iter().map(|t| t.raw_json()).collect();
            let status = match server.status() {
                Status::Ready => "ready".to_owned(),
                Status::Unavailable(why) => format!("unavailable: {why}"),
            };
            let full = if tools.is_empty() {
                0
            } else {
                cost(&catalog.full_in(server.name(), Grouping::Server)?)
            };
            // The server alone, its tools under the names they have beside the others.
            let alone = catalog.only(&|s| s.name() == server.name());
            let mut in_mode = [0; 3];
            for (n, mode) in in_mode.iter_mut().zip(Mode::ALL) {
                *n = listing(&alone, &ServerModes::new(mode))?;
            }
            servers.push(ServerCost {
                name: server.name().to_owned(),
                status,
                tools: tools.len(),
                tools_list: cost(&tools_list_json(&tools)),
                full,
                mode: modes.of(server.name()),
                in_mode,
                warnings: server.warnings().to_vec(),
            });
        }
        let all: Vec<&str> = catalog.tools().map(|t| t.raw_json()).collect();
        let mixed = Mode::ALL.iter().filter(|m| modes.uses(**m)).count() > 1;
        Ok(Inspection {
            servers,
            tools_list: cost(&tools_list_json(&all)),
            passthrough: listing(catalog, &ServerModes::new(Mode::Passthrough))?,
            lean_mode: listing(catalog, &ServerModes::new(Mode::Lean))?,
            compact_mode: listing(catalog, &ServerModes::new(Mode::Compact))?,
            configured: listing(catalog, modes)?,
            mixed,
            full: cost(&catalog.full()?),
            categories: cost(&catalog.categories(Grouping::Server)?),
            lean: cost(&catalog.lean()),
            whole_schemas: whole_schemas(catalog),
            results: catalog
                .tools()
                .map(|t| ToolResults {
                    server: t.server().to_owned(),
                    name: t.name().to_owned(),
                    decision: Decision::of(t).with_policy(policy, t.name()),
                })
                .collect(),
        })
    }
}

/// The tools whose schema compact mode lists whole, and why.
fn whole_schemas(catalog: &Catalog) -> Vec<WholeSchema> {
    (catalog.tools())
        .filter_map(|tool| match form_of(tool) {
            Form::WholeSchema(why) => Some(WholeSchema {
                server: tool.server().to_owned(),
                name: tool.name().to_owned(),
                why,
            }),
            Form::Signature => None,
        })
        .collect()
}

impl fmt::Display for Inspection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let counted = if cfg!(feature = "tiktoken") {
            "exact o200k tokens"
        } else {
            "estimated tokens (build with feature tiktoken for exact o200k counts)"
        };
        writeln!(f, "{counted}")?;
        self.write_servers(f)?;
        writeln!(f)?;
        self.write_renderings(f)?;
        self.write_warnings(f)?;
        self.write_whole_schemas(f)?;
        self.write_results(f)
    }
}

impl Inspection {
    /// The table of servers: each one's tools, the tokens of its `tools/list` and `full`
    /// view, its status; then the totals.
    fn write_servers(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{:<20} {:>6} {:>11} {:>8} {:>5} {:>6}  {:<12} status",
            "server", "tools", "tools/list", "compact", "lean", "full", "mode"
        )?;
        for s in &self.servers {
            let [_, compact, lean] = s.in_mode;
            writeln!(
                f,
                "{:<20} {:>6} {:>11} {compact:>8} {lean:>5} {:>6}  {:<12} {}",
                s.name,
                s.tools,
                s.tools_list,
                s.full,
                s.mode.name(),
                s.status
            )?;
        }
        let tools: usize = self.servers.iter().map(|s| s.tools).sum();
        writeln!(
            f,
            "{:<20} {:>6} {:>11} {:>8} {:>5} {:>6}",
            "total", tools, self.tools_list, self.compact_mode, self.lean_mode, self.full
        )?;
        writeln!(
            f,
            "(compact, lean: the proxy's tools/list in that mode, its own tools included)"
        )
    }

    /// What the model reads of the tools in each mode and view, in tokens and against the
    /// `tools/list` JSON.
    fn write_renderings(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ratio = |n: usize| {
            if self.tools_list == 0 {
                String::new()
            } else {
                format!("{:.3}×", n as f64 / self.tools_list as f64)
            }
        };
        writeln!(
            f,
            "{:<34} {:>7}  vs tools/list JSON",
            "what the model reads", "tokens"
        )?;
        for (what, n) in [
            ("tools/list JSON (today)", self.tools_list),
            ("toon mcp serve (passthrough)", self.passthrough),
            ("toon mcp serve --mode compact", self.compact_mode),
            ("toon mcp serve --mode lean", self.lean_mode),
            ("view: full", self.full),
            ("view: categories", self.categories),
            ("view: lean", self.lean),
        ] {
            writeln!(f, "{what:<34} {n:>7}  {}", ratio(n))?;
        }
        if self.mixed {
            let n = self.configured;
            writeln!(
                f,
                "{:<34} {n:>7}  {}",
                "as configured (each server's mode)",
                ratio(n)
            )?;
        }
        Ok(())
    }

    /// The tools compact mode keeps whole, and why; nothing when there are none.
    fn write_whole_schemas(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.whole_schemas.is_empty() {
            writeln!(
                f,
                "\ncompact mode keeps these schemas whole (a signature would not say it all)"
            )?;
            for w in &self.whole_schemas {
                writeln!(f, "[{}] {}: {}", w.server, w.name, w.why)?;
            }
        }
        Ok(())
    }

    /// The `tools/list` problems worked around, by server; nothing when there were none.
    fn write_warnings(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let warned: Vec<&ServerCost> = self
            .servers
            .iter()
            .filter(|s| !s.warnings.is_empty())
            .collect();
        if !warned.is_empty() {
            writeln!(f, "\nwarnings (tools/list problems worked around)")?;
            for s in warned {
                for warning in &s.warnings {
                    writeln!(f, "[{}] {warning}", s.name)?;
                }
            }
        }
        Ok(())
    }

    /// Whether each tool's results are converted or passed on verbatim, and why.
    fn write_results(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.results.is_empty() {
            writeln!(
                f,
                "\nresults (convert: JSON text as TOON or compact JSON; verbatim: as the server sent them)"
            )?;
            let width = self
                .results
                .iter()
                .map(|t| t.name.chars().count())
                .max()
                .unwrap_or(0);
            for t in &self.results {
                let what = if t.decision.converts() {
                    "convert"
                } else {
                    "verbatim"
                };
                writeln!(f, "{:<width$}  {what:<8}  {}", t.name, t.decision.reason())?;
            }
        }
        Ok(())
    }
}
