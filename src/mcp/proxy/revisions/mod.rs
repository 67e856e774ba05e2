//! What protocol revision 2026-07-28 adds on top of the session revisions the servers speak:
//! the per-request `_meta` envelope ([`era`]), a server's question as the `input_required`
//! result of the request it is for ([`mrtr`]), and `subscriptions/listen` streams
//! ([`listen`]). The fronts use these; the servers below never see a 2026-07-28 message.

pub(super) mod era;
pub(super) mod listen;
pub(super) mod mrtr;
