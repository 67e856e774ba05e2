//! What protocol revision 2026-07-28 adds on top of the session revisions the servers speak:
//! the per-request `_meta` envelope ([`era`]), a server's question as the `input_required`
//! result of the request it is for ([`mrtr`]), and `subscriptions/listen` streams
//! ([`listen`]), for clients in front of servers of 2025-11-25 and older. The fronts use these.
//! (Towards a server of 2026-07-28 the connection itself speaks that revision:
//! `servers/modern.rs`.)

pub(super) mod era;
pub(super) mod listen;
pub(super) mod mrtr;
