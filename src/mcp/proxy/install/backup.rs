//! The backup an install leaves beside the client's file (`FILE.toon-backup`, owner-only: it
//! holds the servers' secrets): both files as they were and as the install wrote them, and
//! what it moved, which is all an exact uninstall needs.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// The backup format's version.
const VERSION: u32 = 1;

/// One file before and after an install.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct FileChange {
    pub path: PathBuf,
    /// Its text before, `None` when the install created it.
    pub before: Option<String>,
    /// Its text as the install wrote it.
    pub after: String,
}

/// A server the install added to the gateway's configuration.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Added {
    pub name: String,
    /// Its value's text as written there.
    pub text: String,
}

/// What an install changed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Backup {
    pub version: u32,
    /// The client's name (`cursor`).
    pub client: String,
    pub client_file: FileChange,
    /// The client's object of servers before (its value's text; `None`: there was none) and
    /// after: an uninstall puts the first back where it finds the second, whatever else
    /// changed in the file since.
    pub servers_before: Option<String>,
    pub servers_after: String,
    pub gateway_file: FileChange,
    pub added: Vec<Added>,
    /// The client's servers the gateway had already, defined the same: another install's
    /// (or the user's), which this one uses and an uninstall of another leaves in place.
    pub shared: Vec<String>,
}

impl Backup {
    pub(crate) fn new(
        client: &str,
        client_file: FileChange,
        servers: (Option<String>, String),
        gateway_file: FileChange,
        (added, shared): (Vec<Added>, Vec<String>),
    ) -> Backup {
        Backup {
            shared,
            version: VERSION,
            client: client.to_owned(),
            client_file,
            servers_before: servers.0,
            servers_after: servers.1,
            gateway_file,
            added,
        }
    }

    /// The backup's text.
    pub(crate) fn to_text(&self) -> String {
        // Plain strings, paths and options: serializing cannot fail.
        serde_json::to_string_pretty(self).unwrap_or_default() + "\n"
    }

    /// A backup read back; `None` when the text is not one this version wrote.
    pub(crate) fn from_text(text: &str) -> Option<Backup> {
        serde_json::from_str::<Backup>(text)
            .ok()
            .filter(|b| b.version == VERSION)
    }
}

/// Where the backup of an install into `client_file` is kept.
pub(crate) fn path_for(client_file: &Path) -> PathBuf {
    let mut name = client_file.as_os_str().to_os_string();
    name.push(".toon-backup");
    PathBuf::from(name)
}
