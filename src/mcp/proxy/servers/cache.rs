//! The catalog cache (#60): each server's last tool list on disk, so that a client's first
//! `tools/list` has a slow server's tools at once, while it starts.
//!
//! One file per server, named by the SHA-256 of its configuration entry (its name, command,
//! arguments, environment and working directory, or URL and headers): another command,
//! another key, another file. The file holds the tools as the server listed them, its
//! prompts, resources and resource templates as last listed, the capabilities it declared,
//! and when they were written, never the configuration itself (no environment, no headers: the hash
//! is all that is kept of them). It is written whole to a temporary file (0600) and renamed
//! over the old one, so a reader sees the last list or the one before, never half of one.
//! A file that is not what this module writes (not JSON, another format, another server's
//! key, a link, a file another user owns or other users can access, in a folder another user
//! owns or other users can write) is ignored with a warning, never trusted; a folder of the
//! user's that others can access is made 0700 on the next write, and temporary files a killed
//! gateway left are removed;
//! a cached tool is only ever called once its server has listed it again
//! ([`Toolbox`](super::toolbox::Toolbox)).

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::Deserialize;
use serde_json::value::RawValue;
use sha2::{Digest, Sha256};

use super::config::{Launch, ServerConfig};
use crate::mcp::raw;

/// The first member of every cache file: another value is another format, not read.
pub const FORMAT: &str = "toon-catalog-cache/1";

/// A cache file larger than this is not read (a tool list of [`MAX_PAGES`](crate::mcp::MAX_PAGES)
/// large pages is far below it).
const MAX_FILE_BYTES: u64 = 64 << 20;

/// Why a cache file was not read or written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CacheError {
    /// Reading, writing or renaming failed.
    #[error("catalog cache {path}: {source}")]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// What the system said.
        #[source]
        source: std::io::Error,
    },
    /// The file is not one this module wrote for this server: ignored.
    #[error("catalog cache {path}: {why}; ignored")]
    Foreign {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        why: String,
    },
}

/// What a cache file holds for one server.
#[derive(Clone, Debug)]
pub struct Cached {
    /// Its tools' definitions (JSON text each, as the server sent it), in its order.
    pub tools: Vec<String>,
    /// Its other lists by method (`prompts/list`, `resources/list`,
    /// `resources/templates/list`): the items of every page, JSON text each, as sent.
    pub lists: BTreeMap<String, Vec<String>>,
    /// The `capabilities` of its `initialize` result (JSON text), if it was known.
    pub capabilities: Option<String>,
    /// When it was written ([`CatalogCache::store`] stamps it).
    pub written: SystemTime,
}

impl Cached {
    /// Its tools as one `tools/list` result (`{"tools": [...]}`).
    #[must_use]
    pub fn page(&self) -> String {
        format!(r#"{{"tools":[{}]}}"#, self.tools.join(","))
    }

    /// Whether the server declared `capability` (`prompts`, `resources`): an object there.
    #[must_use]
    pub fn declares(&self, capability: &str) -> bool {
        let Some(capabilities) = &self.capabilities else {
            return false;
        };
        raw::entries(capabilities)
            .and_then(|e| raw::get(&e, capability).map(|v| v.trim_start().starts_with('{')))
            .unwrap_or(false)
    }

    /// How long ago they were listed (zero for a time in the future).
    #[must_use]
    pub fn age(&self) -> Duration {
        SystemTime::now()
            .duration_since(self.written)
            .unwrap_or_default()
    }
}

/// The cache folder: one file per configured server.
#[derive(Clone, Debug)]
pub struct CatalogCache {
    dir: PathBuf,
}

/// A cache file as read: borrowed from its text.
#[derive(Deserialize)]
struct File<'a> {
    format: &'a str,
    server: String,
    key: &'a str,
    written: u64,
    #[serde(borrow)]
    tools: Vec<&'a RawValue>,
    #[serde(borrow, default)]
    lists: BTreeMap<String, Vec<&'a RawValue>>,
    #[serde(borrow, default)]
    capabilities: Option<&'a RawValue>,
}

impl CatalogCache {
    /// A cache in `dir` (created, 0700, on the first write).
    #[must_use]
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        CatalogCache { dir: dir.into() }
    }

    /// `$XDG_CACHE_HOME/toon/catalogs`, else `~/.cache/toon/catalogs` (on Windows
    /// `%LOCALAPPDATA%\toon\catalogs`); `None` when no home directory is known. A relative
    /// `XDG_CACHE_HOME` is ignored, as the XDG specification says.
    #[must_use]
    pub fn default_dir() -> Option<PathBuf> {
        let var = |k: &str| {
            std::env::var_os(k)
                .map(PathBuf::from)
                .filter(|v| v.is_absolute())
        };
        let base = if cfg!(windows) {
            var("LOCALAPPDATA")
        } else {
            var("XDG_CACHE_HOME").or_else(|| var("HOME").map(|h| h.join(".cache")))
        };
        base.map(|b| b.join("toon").join("catalogs"))
    }

    /// Its folder.
    #[must_use]
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The file of `server`'s configuration; `None` for a server the proxy cannot start.
    #[must_use]
    pub fn path(&self, server: &ServerConfig) -> Option<PathBuf> {
        key(server).map(|key| self.file(&key))
    }

    /// The file of the key `key`.
    fn file(&self, key: &str) -> PathBuf {
        self.dir.join(format!("{key}.json"))
    }

    /// What the cache holds for `server`: `Ok(None)` when nothing.
    ///
    /// # Errors
    /// A file that cannot be read, or is not one [`store`](Self::store) wrote for this
    /// server's configuration ([`CacheError::Foreign`]).
    pub fn load(&self, server: &ServerConfig) -> Result<Option<Cached>, CacheError> {
        let Some(key) = key(server) else {
            return Ok(None);
        };
        let path = self.file(&key);
        let Some(text) = read_own(&self.dir, &path)? else {
            return Ok(None);
        };
        let foreign = |why: String| CacheError::Foreign {
            path: path.clone(),
            why,
        };
        let file: File<'_> =
            serde_json::from_str(&text).map_err(|e| foreign(format!("not a cache file: {e}")))?;
        if file.format != FORMAT {
            return Err(foreign(format!("format {:?}, not {FORMAT:?}", file.format)));
        }
        if file.key != key || file.server != server.name {
            return Err(foreign(format!(
                "written for another configuration (server {:?})",
                file.server
            )));
        }
        let written = Duration::from_secs(file.written);
        let written = UNIX_EPOCH
            .checked_add(written)
            .ok_or_else(|| foreign(format!("written at {} s, past any clock", file.written)))?;
        // Only objects: what a list item is.
        let texts = |items: &[&RawValue]| {
            (items.iter())
                .map(|i| i.get())
                .filter(|i| i.starts_with('{'))
                .map(str::to_owned)
                .collect()
        };
        Ok(Some(Cached {
            tools: texts(&file.tools),
            lists: (file.lists.iter())
                .map(|(method, items)| (method.clone(), texts(items)))
                .collect(),
            capabilities: (file.capabilities.map(RawValue::get))
                .filter(|c| c.starts_with('{'))
                .map(str::to_owned),
            written,
        }))
    }

    /// Keeps `cached` as `server`'s, stamped with the time now (its `written` is not read):
    /// written to a temporary file and renamed over the old one.
    ///
    /// # Errors
    /// When the folder cannot be created or the file written.
    pub fn store(&self, server: &ServerConfig, cached: &Cached) -> Result<(), CacheError> {
        let Some(key) = key(server) else {
            return Ok(());
        };
        let path = self.file(&key);
        let written = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let lists: Vec<String> = (cached.lists.iter())
            .map(|(method, items)| format!("{}:[{}]", raw::quote(method), items.join(",")))
            .collect();
        let capabilities = cached.capabilities.as_deref().unwrap_or("null");
        let text = format!(
            r#"{{"format":{},"server":{},"key":"{key}","written":{written},"tools":[{}],"lists":{{{}}},"capabilities":{capabilities}}}"#,
            raw::quote(FORMAT),
            raw::quote(&server.name),
            cached.tools.join(","),
            lists.join(",")
        );
        self.write_atomically(&path, &key, text.as_bytes())
    }

    fn write_atomically(&self, path: &Path, key: &str, bytes: &[u8]) -> Result<(), CacheError> {
        let io = |path: &Path| {
            let path = path.to_owned();
            move |source| CacheError::Io { path, source }
        };
        create_private_dir(&self.dir).map_err(io(&self.dir))?;
        remove_stale(&self.dir, key);
        let mut suffix = [0u8; 8];
        let _ = getrandom::fill(&mut suffix);
        let temporary = self.dir.join(format!(".{key}.{}.tmp", hex(&suffix)));
        let written = create_private_file(&temporary)
            .and_then(|mut file| file.write_all(bytes).and_then(|()| file.sync_all()))
            .and_then(|()| std::fs::rename(&temporary, path));
        if let Err(e) = written {
            let _ = std::fs::remove_file(&temporary);
            return Err(io(path)(e));
        }
        Ok(())
    }
}

/// The cache key of a server: the SHA-256 (hex) of its name and how it is reached, values
/// included (another token may list other tools), so that nothing of them is kept but the hash.
fn key(server: &ServerConfig) -> Option<String> {
    let entry = match &server.launch {
        Launch::Stdio {
            command,
            args,
            env,
            cwd,
        } => serde_json::json!({
            "server": server.name,
            "command": command,
            "args": args,
            "env": env,
            "cwd": cwd.as_ref().map(|c| c.to_string_lossy()),
        }),
        Launch::Http { url, headers } | Launch::Sse { url, headers } => serde_json::json!({
            "server": server.name,
            "transport": if matches!(server.launch, Launch::Sse { .. }) { "sse" } else { "http" },
            "url": url,
            "headers": headers,
        }),
        Launch::Unsupported(_) => return None,
    };
    Some(hex(&Sha256::digest(entry.to_string().as_bytes())))
}

/// Bytes as lowercase hex digits.
fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Removes the temporary files of `key` older than a minute: a gateway killed while it wrote
/// left them (a write takes milliseconds).
fn remove_stale(dir: &Path, key: &str) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let prefix = format!(".{key}.");
    for entry in entries.flatten() {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        let old = (entry.metadata().ok())
            .and_then(|m| m.modified().ok())
            .and_then(|t| t.elapsed().ok())
            .is_some_and(|age| age > Duration::from_secs(60));
        if name.starts_with(&prefix) && name.ends_with(".tmp") && old {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// The effective user this process runs as, where it can be known without `unsafe`.
fn own_uid() -> Option<u32> {
    #[cfg(target_os = "linux")]
    return Some(nix::unistd::geteuid().as_raw());
    #[cfg(not(target_os = "linux"))]
    None
}

/// Why another user could have put a file at `meta`'s path or read it: its owner, or
/// `others` of its mode bits (group and other) set.
#[cfg(unix)]
fn exposed(meta: &std::fs::Metadata, others: u32) -> Option<String> {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    if own_uid().is_some_and(|uid| uid != meta.uid()) {
        return Some(format!("owned by another user (uid {})", meta.uid()));
    }
    let mode = meta.permissions().mode();
    (mode & others != 0).then(|| format!("other users can access it (mode {:o})", mode & 0o777))
}

/// The text of `path` if it is a regular file of at most [`MAX_FILE_BYTES`] of this user's
/// that no other user can access, in a folder `dir` of this user's that no other user can
/// write; `None` if there is none.
fn read_own(dir: &Path, path: &Path) -> Result<Option<String>, CacheError> {
    let io = |source| CacheError::Io {
        path: path.to_owned(),
        source,
    };
    let foreign = |why: &str| CacheError::Foreign {
        path: path.to_owned(),
        why: why.to_owned(),
    };
    let meta = match std::fs::symlink_metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io(e)),
    };
    if !meta.file_type().is_file() {
        return Err(foreign("not a regular file"));
    }
    #[cfg(unix)]
    {
        if let Some(why) = exposed(&meta, 0o077) {
            return Err(foreign(&why));
        }
        // Others who can write the folder can put any file in it.
        let folder = std::fs::metadata(dir).map_err(io)?;
        if let Some(why) = exposed(&folder, 0o022) {
            return Err(CacheError::Foreign {
                path: dir.to_owned(),
                why,
            });
        }
    }
    if meta.len() > MAX_FILE_BYTES {
        return Err(foreign("larger than 64 MiB"));
    }
    let mut text = String::new();
    std::fs::File::open(path)
        .and_then(|f| f.take(MAX_FILE_BYTES).read_to_string(&mut text))
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::InvalidData => foreign("not UTF-8"),
            _ => io(e),
        })?;
    Ok(Some(text))
}

/// `dir`, created 0700 if it is not there; one of this user's that others can access is
/// made 0700 (a file's name is the hash of its server's configuration: not for other eyes).
fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(dir)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::{MetadataExt, PermissionsExt};
        let meta = std::fs::metadata(dir)?;
        let mine = own_uid().is_none_or(|uid| uid == meta.uid());
        if mine && meta.permissions().mode() & 0o077 != 0 {
            std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))?;
        }
    }
    Ok(())
}

fn create_private_file(path: &Path) -> std::io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options.open(path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::proxy::servers::config::Config;

    fn server(config: &str) -> ServerConfig {
        Config::from_str(config)
            .unwrap()
            .enabled()
            .next()
            .unwrap()
            .clone()
    }

    fn memory() -> ServerConfig {
        server(
            r#"{"mcpServers": {"memory": {"command": "mcp-server-memory", "env": {"TOKEN": "s3cret"}}}}"#,
        )
    }

    const TOOLS: [&str; 2] = [
        r#"{"name":"read_graph","inputSchema":{"type":"object"}}"#,
        r#"{"name":"add","description":"x \u00e9 1.50","inputSchema":{"type":"object"}}"#,
    ];

    fn listing(tools: &[&str]) -> Cached {
        Cached {
            tools: tools.iter().map(|t| (*t).to_owned()).collect(),
            lists: BTreeMap::from([(
                "prompts/list".to_owned(),
                vec![r#"{"name":"p","arguments":[]}"#.to_owned()],
            )]),
            capabilities: Some(r#"{"tools":{},"prompts":{"listChanged":true}}"#.to_owned()),
            written: UNIX_EPOCH,
        }
    }

    #[test]
    fn what_is_stored_is_loaded_byte_for_byte_and_no_secret_is_kept() {
        let dir = tempdir("round-trip");
        let cache = CatalogCache::new(dir.join("catalogs"));
        let server = memory();
        assert!(cache.load(&server).unwrap().is_none());
        cache.store(&server, &listing(&TOOLS)).unwrap();
        let cached = cache.load(&server).unwrap().unwrap();
        assert_eq!(
            cached.page(),
            format!(r#"{{"tools":[{}]}}"#, TOOLS.join(","))
        );
        assert_eq!(cached.lists, listing(&[]).lists);
        assert!(cached.declares("prompts") && !cached.declares("resources"));
        assert!(cached.age() < Duration::from_secs(60));
        let path = cache.path(&server).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(
            !text.contains("s3cret") && !text.contains("mcp-server-memory"),
            "{text}"
        );
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode(&path), 0o600);
            assert_eq!(mode(cache.dir()), 0o700);
        }
        // Written again: replaced, and no temporary file is left.
        cache.store(&server, &listing(&TOOLS[..1])).unwrap();
        assert_eq!(cache.load(&server).unwrap().unwrap().tools.len(), 1);
        assert_eq!(std::fs::read_dir(cache.dir()).unwrap().count(), 1);
    }

    #[test]
    fn another_configuration_has_another_file() {
        let cache = CatalogCache::new(tempdir("keys"));
        let other = server(
            r#"{"mcpServers": {"memory": {"command": "mcp-server-memory", "env": {"TOKEN": "other"}}}}"#,
        );
        assert_ne!(cache.path(&memory()), cache.path(&other));
        cache.store(&memory(), &listing(&TOOLS)).unwrap();
        assert!(cache.load(&other).unwrap().is_none());
    }

    #[test]
    fn corrupt_foreign_or_exposed_files_are_refused() {
        let cache = CatalogCache::new(tempdir("foreign"));
        let server = memory();
        cache.store(&server, &listing(&TOOLS)).unwrap();
        let path = cache.path(&server).unwrap();
        let good = std::fs::read_to_string(&path).unwrap();
        let refused = |text: &str| {
            std::fs::write(&path, text).unwrap();
            refusal(&cache, &server)
        };
        assert!(refused(&good[..good.len() / 2]).contains("not a cache file"));
        assert!(refused(&good.replace(FORMAT, "toon-catalog-cache/9")).contains("format"));
        // Another server's file copied over this one's.
        let moved = good.replace(r#""server":"memory""#, r#""server":"git""#);
        assert!(refused(&moved).contains("another configuration"));
        assert!(refused(r#"{"format":"toon-catalog-cache/1"}"#).contains("not a cache file"));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::write(&path, &good).unwrap();
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
            let why = refusal(&cache, &server);
            assert!(why.contains("other users"), "{why}");
            std::fs::remove_file(&path).unwrap();
            let elsewhere = cache.dir().join("elsewhere.json");
            std::fs::write(&elsewhere, &good).unwrap();
            std::fs::set_permissions(&elsewhere, std::fs::Permissions::from_mode(0o600)).unwrap();
            std::os::unix::fs::symlink(&elsewhere, &path).unwrap();
            let why = refusal(&cache, &server);
            assert!(why.contains("not a regular file"), "{why}");
        }
    }

    #[test]
    fn a_time_past_any_clock_and_items_that_are_not_objects_are_not_trusted() {
        let cache = CatalogCache::new(tempdir("values"));
        let server = memory();
        cache.store(&server, &listing(&TOOLS)).unwrap();
        let path = cache.path(&server).unwrap();
        let good = std::fs::read_to_string(&path).unwrap();
        let at = good.find(r#""written":"#).unwrap() + r#""written":"#.len();
        let end = at + good[at..].find(',').unwrap();
        let future = format!("{}18446744073709551615{}", &good[..at], &good[end..]);
        std::fs::write(&path, future).unwrap();
        assert!(
            matches!(cache.load(&server), Err(CacheError::Foreign { why, .. }) if why.contains("past any clock"))
        );
        let odd = good
            .replace(r#""tools":["#, r#""tools":[1,null,"s","#)
            .replace(r#""prompts/list":["#, r#""prompts/list":[2,"#)
            .replace(r#""capabilities":{"#, r#""capabilities":7,"x":{"#);
        std::fs::write(&path, odd).unwrap();
        let cached = cache.load(&server).unwrap().unwrap();
        assert_eq!(cached.tools.len(), 2);
        assert_eq!(cached.lists["prompts/list"].len(), 1);
        assert_eq!(cached.capabilities, None);
    }

    #[cfg(unix)]
    #[test]
    fn a_folder_others_can_write_is_not_read_and_one_of_ours_is_made_private() {
        use std::os::unix::fs::PermissionsExt;
        let cache = CatalogCache::new(tempdir("folder"));
        let server = memory();
        cache.store(&server, &listing(&TOOLS)).unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        std::fs::set_permissions(cache.dir(), std::fs::Permissions::from_mode(0o777)).unwrap();
        let why = refusal(&cache, &server);
        assert!(why.contains("other users"), "{why}");
        // The next write makes it private again, and removes what a killed writer left.
        let stale = cache
            .dir()
            .join(format!(".{}.0011223344556677.tmp", key(&server).unwrap()));
        std::fs::write(&stale, "half").unwrap();
        let old = SystemTime::now() - Duration::from_secs(3600);
        std::fs::File::options()
            .write(true)
            .open(&stale)
            .unwrap()
            .set_modified(old)
            .unwrap();
        cache.store(&server, &listing(&TOOLS)).unwrap();
        assert_eq!(mode(cache.dir()), 0o700);
        assert!(!stale.exists());
        assert!(cache.load(&server).unwrap().is_some());
    }

    /// Why `server`'s file is refused (it must be).
    fn refusal(cache: &CatalogCache, server: &ServerConfig) -> String {
        match cache.load(server) {
            Err(CacheError::Foreign { why, .. }) => why,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_server_that_cannot_start_has_no_file() {
        let cache = CatalogCache::new(tempdir("unsupported"));
        let server = ServerConfig {
            launch: Launch::Unsupported("no".into()),
            ..memory()
        };
        assert!(cache.path(&server).is_none());
        cache.store(&server, &listing(&TOOLS)).unwrap();
        assert!(cache.load(&server).unwrap().is_none());
    }

    fn tempdir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!(
            "toon-cache-test-{name}-{}-{:?}",
            std::process::id(),
            SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .unwrap()
                .as_nanos()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }
}
