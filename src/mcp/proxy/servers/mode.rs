//! How a server's tools are shown to the client: the command line's `--mode` for every
//! server, or a server's own `"toon": {"mode": ...}` in the configuration.

/// How a server's tools are shown to the client.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum Mode {
    /// Its tools with their own definitions (shared names as `SERVER__NAME`).
    #[default]
    Passthrough,
    /// Behind the meta-tools `discover_tools`, `get_tool_spec` and `execute_tool`.
    Lean,
    /// Every tool under its own name, its definition cut to a summary and a signature line
    /// ([`CompactTools`](crate::mcp::CompactTools)), with `get_tool_spec` beside them; each
    /// call's arguments checked against its server's schema first.
    Compact,
}

impl Mode {
    /// The three modes, in the order `toon mcp inspect` prices them.
    pub const ALL: [Mode; 3] = [Mode::Passthrough, Mode::Compact, Mode::Lean];

    /// Parses `passthrough`, `lean` or `compact`.
    #[must_use]
    pub fn parse(s: &str) -> Option<Mode> {
        match s {
            "passthrough" => Some(Mode::Passthrough),
            "lean" => Some(Mode::Lean),
            "compact" => Some(Mode::Compact),
            _ => None,
        }
    }

    /// Its name, as [`parse`](Self::parse) reads it.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Mode::Passthrough => "passthrough",
            Mode::Lean => "lean",
            Mode::Compact => "compact",
        }
    }

    /// Whether the client calls the server's tools by their names (all but lean mode).
    #[must_use]
    pub fn lists_every_tool(self) -> bool {
        self != Mode::Lean
    }
}

impl std::fmt::Display for Mode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The mode of each server's tools: its own (`"toon": {"mode": ...}`), else the default
/// (`--mode`).
///
/// ```
/// use toon::mcp::proxy::{Mode, ServerModes};
/// let modes = ServerModes::new(Mode::Compact).with("small", Mode::Passthrough).with("big", Mode::Lean);
/// assert_eq!(modes.of("small"), Mode::Passthrough);
/// assert_eq!(modes.of("other"), Mode::Compact);
/// // Of the servers named, none is compact; "other" is, once it is known to be there.
/// assert!(modes.uses(Mode::Lean) && !modes.uses(Mode::Compact));
/// assert!(modes.resolved(["small", "big", "other"]).uses(Mode::Compact));
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ServerModes {
    default: Mode,
    servers: Vec<(String, Mode)>,
}

impl ServerModes {
    /// Every server in `default`, until [`with`](Self::with) says otherwise.
    #[must_use]
    pub fn new(default: Mode) -> Self {
        ServerModes {
            default,
            servers: Vec::new(),
        }
    }

    /// Server `name` in `mode`.
    #[must_use]
    pub fn with(mut self, name: &str, mode: Mode) -> Self {
        self.servers.retain(|(n, _)| n != name);
        self.servers.push((name.to_owned(), mode));
        self
    }

    /// The mode of server `name`'s tools.
    #[must_use]
    pub fn of(&self, name: &str) -> Mode {
        let own = self.servers.iter().find(|(n, _)| n == name);
        own.map_or(self.default, |(_, mode)| *mode)
    }

    /// Every one of `servers` under its mode here: what [`uses`](Self::uses) needs to know
    /// of the servers that take the default.
    #[must_use]
    pub fn resolved<'n>(&self, servers: impl IntoIterator<Item = &'n str>) -> ServerModes {
        let start = ServerModes::new(self.default);
        (servers.into_iter()).fold(start, |modes, name| modes.with(name, self.of(name)))
    }

    /// Whether some server is shown in `mode`, of those named by [`with`](Self::with) (a
    /// server named nowhere is not known to be there: [`resolved`](Self::resolved) names
    /// them all), or, when none is named, whether the default is `mode`.
    #[must_use]
    pub fn uses(&self, mode: Mode) -> bool {
        if self.servers.is_empty() {
            return self.default == mode;
        }
        self.servers.iter().any(|(_, m)| *m == mode)
    }

    /// Whether some server's tools are called by their names (one not in lean mode).
    #[must_use]
    pub fn lists_tools(&self) -> bool {
        self.uses(Mode::Passthrough) || self.uses(Mode::Compact)
    }

    /// Whether every server is in passthrough mode: no call is the proxy's to answer.
    #[must_use]
    pub fn only_passthrough(&self) -> bool {
        !self.uses(Mode::Lean) && !self.uses(Mode::Compact)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mode_reads_back_its_own_name() {
        for mode in Mode::ALL {
            assert_eq!(Mode::parse(mode.name()), Some(mode));
        }
        assert_eq!(Mode::parse("Compact"), None);
    }
}
