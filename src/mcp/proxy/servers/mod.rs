//! The servers behind the proxy: the `mcpServers` [`config`] (and where a key sits in its
//! text, [`locate`]), one [`upstream`] server started over its transport and initialized, the
//! [`cache`] of their last tool lists, and the [`toolbox`] of all of them: started in parallel,
//! their tools in one catalog, calls routed, results encoded, servers that go away reconnected.

pub(super) mod cache;
pub(super) mod config;
pub(super) mod locate;
pub(super) mod mode;
pub(super) mod modern;
pub(super) mod revision;
pub(super) mod toolbox;
pub(super) mod upstream;
