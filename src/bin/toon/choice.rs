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
}

/// `--format` of `toon mcp result` and `toon mcp serve`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum FormatArg {
    /// The cheaper of TOON and compact JSON, per text block.
    Auto,
    /// Always TOON.
    Toon,
    /// Always compact JSON.
    Json,
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
    use super::{FormatArg, GroupingArg, StructuredArg};
    use toon::mcp::{Format, Grouping, Structured};

    impl From<GroupingArg> for Grouping {
        fn from(arg: GroupingArg) -> Self {
            match arg {
                GroupingArg::Server => Grouping::Server,
                GroupingArg::Prefix => Grouping::Prefix,
                GroupingArg::Effect => Grouping::Effect,
            }
        }
    }

    impl From<FormatArg> for Format {
        fn from(arg: FormatArg) -> Self {
            match arg {
                FormatArg::Auto => Format::Cheaper,
                FormatArg::Toon => Format::Toon,
                FormatArg::Json => Format::CompactJson,
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

#[cfg(feature = "mcp-stdio")]
impl From<ModeArg> for toon::mcp::proxy::Mode {
    fn from(arg: ModeArg) -> Self {
        match arg {
            ModeArg::Passthrough => toon::mcp::proxy::Mode::Passthrough,
            ModeArg::Lean => toon::mcp::proxy::Mode::Lean,
        }
    }
}
