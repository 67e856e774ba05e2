//! The closed sets of words some flags take (`--view full`), as clap `ValueEnum`s: clap checks
//! them and lists them in `--help`, and each maps onto the library's own type, which stays
//! free of clap.

use clap::ValueEnum;

/// `toon mcp catalog --view`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum ViewArg {
    /// Every tool with its parameters' signature.
    Full,
    /// Categories of tools and their counts.
    Categories,
    /// The three meta-tools of lean mode.
    Lean,
}

/// `toon mcp catalog --group`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum GroupingArg {
    /// By the server that provides them.
    Server,
    /// By the part of the name before the first `_`, `-` or `.`.
    Prefix,
    /// By annotations: read-only, additive or destructive.
    Effect,
}

/// `toon mcp serve --mode`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum ModeArg {
    /// Every tool, results encoded.
    Passthrough,
    /// Three meta-tools.
    Lean,
    /// Every tool, definitions cut to a summary and a signature.
    Compact,
}

/// `--format` of `toon mcp result` and `toon mcp serve`: a [`toon::mcp::Format`], its words
/// those of [`Format::name`](toon::mcp::Format::name), so that the command line, `_meta` and
/// the metrics spell each one way. Without the `mcp` feature the flag takes any word, as
/// the command only says that it needs the feature.
#[cfg(feature = "mcp")]
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct FormatArg {
    format: toon::mcp::Format,
    /// Given as [`Format::OLD_CHEAPER`](toon::mcp::Format::OLD_CHEAPER), read with a warning.
    old_name: bool,
}

#[cfg(not(feature = "mcp"))]
pub(crate) type FormatArg = Option<String>;

#[cfg(feature = "mcp")]
mod format_arg {
    use super::FormatArg;
    use clap::ValueEnum;
    use clap::builder::PossibleValue;
    use toon::mcp::Format;

    /// What `--format` takes: each format by its name, then `cheaper`'s old name, hidden.
    const ARGS: [FormatArg; Format::ALL.len() + 1] = {
        let mut args = [FormatArg {
            format: Format::Cheaper,
            old_name: true,
        }; Format::ALL.len() + 1];
        let mut i = 0;
        while i < Format::ALL.len() {
            args[i] = FormatArg {
                format: Format::ALL[i],
                old_name: false,
            };
            i += 1;
        }
        args
    };

    impl ValueEnum for FormatArg {
        fn value_variants<'a>() -> &'a [Self] {
            &ARGS
        }

        fn to_possible_value(&self) -> Option<PossibleValue> {
            if self.old_name {
                return Some(PossibleValue::new(Format::OLD_CHEAPER).hide(true));
            }
            let help = match self.format {
                Format::Cheaper => "The cheaper of TOON and compact JSON, per text block",
                Format::Toon => "Always TOON",
                Format::CompactJson => "Always compact JSON",
            };
            Some(PossibleValue::new(self.format.name()).help(help))
        }
    }

    impl FormatArg {
        /// The warning `--format auto` gets, since `cheaper` is its name.
        pub(crate) fn warning(self) -> Option<&'static str> {
            self.old_name.then_some(
                "warning: --format auto is now --format cheaper (the cheaper of TOON and \
                 compact JSON); `auto` is `toon --auto`, which also tries the tab and pipe \
                 delimiters",
            )
        }
    }

    impl From<FormatArg> for Format {
        fn from(arg: FormatArg) -> Self {
            arg.format
        }
    }
}

/// `--structured` of `toon mcp result` and `toon mcp serve`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum StructuredArg {
    /// Leave structuredContent as it is.
    Keep,
    /// Remove it (its data first added as a text block where none carries it) and
    /// outputSchema from tools.
    Drop,
}

/// The message of a flag given a word it does not take, as the other errors read:
/// `invalid --view "wide": use full, categories or lean`.
pub(crate) fn invalid_value(e: &clap::Error) -> Option<String> {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    if e.kind() != ErrorKind::InvalidValue {
        return None;
    }
    let text = |kind| match e.get(kind) {
        Some(ContextValue::String(s)) => Some(s.clone()),
        _ => None,
    };
    let flag = text(ContextKind::InvalidArg)?;
    let flag = flag
        .split_whitespace()
        .next()
        .unwrap_or_default()
        .to_owned();
    let value = text(ContextKind::InvalidValue)?;
    let Some(ContextValue::Strings(valid)) = e.get(ContextKind::ValidValue) else {
        return None;
    };
    let allowed = match valid.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => return None,
    };
    Some(format!("invalid {flag} {value:?}: use {allowed}"))
}

#[cfg(feature = "mcp")]
mod to_library {
    use super::{GroupingArg, StructuredArg};
    use toon::mcp::{Grouping, Structured};

    impl From<GroupingArg> for Grouping {
        fn from(arg: GroupingArg) -> Self {
            match arg {
                GroupingArg::Server => Grouping::Server,
                GroupingArg::Prefix => Grouping::Prefix,
                GroupingArg::Effect => Grouping::Effect,
            }
        }
    }

    impl From<StructuredArg> for Structured {
        fn from(arg: StructuredArg) -> Self {
            match arg {
                StructuredArg::Keep => Structured::Keep,
                StructuredArg::Drop => Structured::Drop,
            }
        }
    }
}

/// `toon mcp install CLIENT` and `toon mcp uninstall CLIENT`: the names are the library's
/// (`Client::name`), which a test holds to these.
#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum ClientArg {
    /// Claude Code: ~/.claude.json (user servers), or .mcp.json with --project.
    ClaudeCode,
    /// Claude Desktop: claude_desktop_config.json.
    ClaudeDesktop,
    /// Cursor: ~/.cursor/mcp.json, or .cursor/mcp.json with --project.
    Cursor,
    /// VS Code: the user profile's mcp.json, or .vscode/mcp.json with --project.
    #[value(name = "vscode")]
    VsCode,
    /// Windsurf: ~/.codeium/windsurf/mcp_config.json.
    Windsurf,
}

#[cfg(feature = "mcp-stdio")]
impl From<ClientArg> for toon::mcp::proxy::install::Client {
    fn from(arg: ClientArg) -> Self {
        use toon::mcp::proxy::install::Client;
        match arg {
            ClientArg::ClaudeCode => Client::ClaudeCode,
            ClientArg::ClaudeDesktop => Client::ClaudeDesktop,
            ClientArg::Cursor => Client::Cursor,
            ClientArg::VsCode => Client::VsCode,
            ClientArg::Windsurf => Client::Windsurf,
        }
    }
}

/// `toon mcp install --launch`: how the client's entry starts the gateway.
#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum LaunchArg {
    /// `uvx --from toon-gateway toon mcp serve` (the Python wheel).
    Uvx,
    /// `npx -y toon-gateway mcp serve` (the npm package).
    Npx,
    /// This binary, by its absolute path.
    Path,
}

#[cfg(feature = "mcp-stdio")]
impl From<ModeArg> for toon::mcp::proxy::Mode {
    fn from(arg: ModeArg) -> Self {
        match arg {
            ModeArg::Passthrough => toon::mcp::proxy::Mode::Passthrough,
            ModeArg::Lean => toon::mcp::proxy::Mode::Lean,
            ModeArg::Compact => toon::mcp::proxy::Mode::Compact,
        }
    }
}

#[cfg(all(test, feature = "mcp"))]
mod tests {
    use super::FormatArg;
    use clap::ValueEnum;

    #[cfg(feature = "mcp-stdio")]
    #[test]
    fn client_names_are_the_librarys() {
        for arg in super::ClientArg::value_variants() {
            let name = arg.to_possible_value().unwrap().get_name().to_owned();
            let client: toon::mcp::proxy::install::Client = (*arg).into();
            assert_eq!(name, client.name());
        }
    }

    #[test]
    fn format_auto_is_cheapers_old_name_read_with_a_warning() {
        let auto = FormatArg::from_str("auto", false).unwrap();
        let cheaper = FormatArg::from_str("cheaper", false).unwrap();
        assert!(auto.warning().unwrap().contains("--format cheaper"));
        assert_eq!(cheaper.warning(), None);
        // `--help` lists cheaper, toon and json: auto is hidden.
        let listed: Vec<String> = FormatArg::value_variants()
            .iter()
            .filter_map(|v| v.to_possible_value())
            .filter(|v| !v.is_hide_set())
            .map(|v| v.get_name().to_owned())
            .collect();
        assert_eq!(listed, ["cheaper", "toon", "json"]);
        assert_eq!(
            toon::mcp::Format::from(auto),
            toon::mcp::Format::from(cheaper)
        );
    }
}
