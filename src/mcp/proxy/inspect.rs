//! `toon mcp inspect`: what a setup's tool lists cost the model today, and with each mode.

use std::fmt;

use crate::mcp::{Catalog, Grouping, MetaTools, Status, Structured};
use crate::tokens::cost;

/// One server's line of an [`Inspection`].
#[derive(Clone, Debug, PartialEq, Eq)]
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
}

/// Token costs of a catalog: per server, and for the whole setup per view and per mode.
/// Counts are exact o200k with the `tiktoken` feature, else estimates
/// ([`tokens::cost`](crate::tokens::cost)).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Inspection {
    /// One line per server, in configuration order.
    pub servers: Vec<ServerCost>,
    /// All servers' `tools/list` JSON together.
    pub tools_list: usize,
    /// The proxy's `tools/list` in passthrough mode.
    pub passthrough: usize,
    /// The proxy's `tools/list` in lean mode (three meta-tools with the categories view).
    pub lean_mode: usize,
    /// The `full` view.
    pub full: usize,
    /// The `categories` view.
    pub categories: usize,
    /// The `lean` view.
    pub lean: usize,
}

impl Inspection {
    /// Measures `catalog`, with the passthrough listing as `structured` makes it.
    ///
    /// # Errors
    /// When a view cannot be rendered (a definition that is not valid JSON).
    pub fn of(catalog: &Catalog, structured: Structured) -> crate::Result<Inspection> {
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
            servers.push(ServerCost {
                name: server.name().to_owned(),
                status,
                tools: tools.len(),
                tools_list: cost(&tools_list_json(&tools)),
                full,
            });
        }
        let all: Vec<&str> = catalog.tools().map(|t| t.raw_json()).collect();
        let passthrough: Vec<String> = catalog
            .tools()
            .map(|t| super::serve::exposed_definition(t, structured == Structured::Drop))
            .collect();
        let passthrough: Vec<&str> = passthrough.iter().map(String::as_str).collect();
        let lean_mode = MetaTools::new(catalog).definitions()?;
        Ok(Inspection {
            servers,
            tools_list: cost(&tools_list_json(&all)),
            passthrough: cost(&tools_list_json(&passthrough)),
            lean_mode: cost(&serde_json::json!({ "tools": lean_mode }).to_string()),
            full: cost(&catalog.full()?),
            categories: cost(&catalog.categories(Grouping::Server)?),
            lean: cost(&catalog.lean()),
        })
    }
}

/// `{"tools":[...]}` around definitions kept as sent.
pub(super) fn tools_list_json(tools: &[&str]) -> String {
    let mut s = String::from("{\"tools\":[");
    s.push_str(&tools.join(","));
    s.push_str("]}");
    s
}

impl fmt::Display for Inspection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let counted = if cfg!(feature = "tiktoken") {
            "exact o200k tokens"
        } else {
            "estimated tokens (build with feature tiktoken for exact o200k counts)"
        };
        writeln!(f, "{counted}")?;
        writeln!(
            f,
            "{:<20} {:>6} {:>11} {:>6}  status",
            "server", "tools", "tools/list", "full"
        )?;
        for s in &self.servers {
            writeln!(
                f,
                "{:<20} {:>6} {:>11} {:>6}  {}",
                s.name, s.tools, s.tools_list, s.full, s.status
            )?;
        }
        let tools: usize = self.servers.iter().map(|s| s.tools).sum();
        writeln!(
            f,
            "{:<20} {:>6} {:>11} {:>6}",
            "total", tools, self.tools_list, self.full
        )?;
        writeln!(f)?;
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
            ("toon mcp serve --mode lean", self.lean_mode),
            ("view: full", self.full),
            ("view: categories", self.categories),
            ("view: lean", self.lean),
        ] {
            writeln!(f, "{what:<34} {n:>7}  {}", ratio(n))?;
        }
        Ok(())
    }
}
