//! Which protocol revision the proxy speaks to one server (`"toon": {"revision": ...}` in its
//! configuration entry): 2026-07-28, whose connection opens with `server/discover`
//! (`// 2026-07-28 server/discover`), or 2025-11-25, which opens with `initialize`; pinned,
//! or the first of the two the server takes.

/// How the proxy opens a server's connection, and so which revision it speaks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Revision {
    /// `initialize` first, then `server/discover` if the server refuses it (one of
    /// 2026-07-28 only): what a server of either revision is opened with unless its entry
    /// says otherwise. A server of both revisions keeps the one it has always been spoken to
    /// in.
    #[default]
    LegacyFirst,
    /// `server/discover` first, then `initialize` if the server refuses it or does not know
    /// it (`// 2026-07-28 basic/versioning` "Backward compatibility"): `"auto"`.
    ModernFirst,
    /// `initialize` only, revision 2025-11-25: `"2025-11-25"`.
    Legacy,
    /// `server/discover` and the per-request `_meta` envelope only, revision 2026-07-28:
    /// `"2026-07-28"`.
    Modern,
}

/// One way of opening a connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Opening {
    /// `initialize` (2025-11-25).
    Initialize,
    /// `server/discover` (2026-07-28).
    Discover,
}

impl Revision {
    /// The configuration's spelling of a revision choice (the default has none).
    #[must_use]
    pub fn parse(text: &str) -> Option<Revision> {
        match text {
            "auto" => Some(Revision::ModernFirst),
            "2025-11-25" => Some(Revision::Legacy),
            "2026-07-28" => Some(Revision::Modern),
            _ => None,
        }
    }

    /// The openings to try, in order: the next is tried when the server refuses one.
    pub(crate) fn openings(self) -> &'static [Opening] {
        match self {
            Revision::LegacyFirst => &[Opening::Initialize, Opening::Discover],
            Revision::ModernFirst => &[Opening::Discover, Opening::Initialize],
            Revision::Legacy => &[Opening::Initialize],
            Revision::Modern => &[Opening::Discover],
        }
    }
}
