//! Which protocol revision the proxy speaks to one server (`"toon": {"revision": ...}` in its
//! configuration entry): 2026-07-28, whose connection opens with `server/discover`
//! (`// 2026-07-28 server/discover`), or 2025-11-25, which opens with `initialize`; pinned,
//! or the first of the two the server takes.

/// How the proxy opens a server's connection, and so which revision it speaks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Revision {
    /// `server/discover` first, then `initialize` if the server refuses it or does not know
    /// it (`// 2026-07-28 basic/versioning` "Backward compatibility"); `initialize` is also
    /// sent beside it if the server has not answered within a probe's time, and the first
    /// opening to succeed is the connection's. What a server is opened with unless its entry
    /// says otherwise (`"auto"`): a server of both revisions is spoken to in 2026-07-28.
    #[default]
    DiscoverFirst,
    /// `initialize` only, revision 2025-11-25: `"2025-11-25"`.
    Legacy,
    /// `server/discover` and the per-request `_meta` envelope only, revision 2026-07-28:
    /// `"2026-07-28"`.
    Modern,
}

impl Revision {
    /// The configuration's spelling of a revision choice.
    #[must_use]
    pub fn parse(text: &str) -> Option<Revision> {
        match text {
            "auto" => Some(Revision::DiscoverFirst),
            "2025-11-25" => Some(Revision::Legacy),
            "2026-07-28" => Some(Revision::Modern),
            _ => None,
        }
    }
}
