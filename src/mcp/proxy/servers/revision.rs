//! Which protocol revision the proxy speaks to one server (`"toon": {"revision": ...}` in its
//! configuration entry): 2026-07-28 opened with `server/discover` (`// 2026-07-28
//! server/discover`), 2025-11-25 opened with `initialize`, or the first that works.

/// How the proxy opens a server's connection, and which revision it then speaks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Revision {
    /// `server/discover` first; `initialize` when the server refuses it or does not know it
    /// (`// 2026-07-28 basic/versioning` "Backward compatibility"): `"auto"`.
    Auto,
    /// `initialize`, revision 2025-11-25 (what every server before July 2026 speaks):
    /// `"2025-11-25"`. The default until the proxy's 2026-07-28 client is complete.
    #[default]
    Legacy,
    /// `server/discover` and the per-request `_meta` envelope of revision 2026-07-28, for a
    /// server that answers `initialize` badly or not at all: `"2026-07-28"`.
    Modern,
}

impl Revision {
    /// The configuration's spelling of a revision choice.
    #[must_use]
    pub fn parse(text: &str) -> Option<Revision> {
        match text {
            "auto" => Some(Revision::Auto),
            "2025-11-25" => Some(Revision::Legacy),
            "2026-07-28" => Some(Revision::Modern),
            _ => None,
        }
    }

    /// Whether the connection opens with `server/discover`.
    #[must_use]
    pub fn discovers(self) -> bool {
        matches!(self, Revision::Auto | Revision::Modern)
    }
}
