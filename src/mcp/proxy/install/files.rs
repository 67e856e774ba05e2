//! Reading and writing the two files an install changes: bounded reads, atomic writes (a
//! temporary file beside the target, renamed over it) that keep the file's permissions.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// The largest client configuration read: `~/.claude.json` holds Claude Code's history and
/// state besides the servers, and grows to megabytes.
pub(crate) const MAX_FILE_BYTES: u64 = 64 << 20;

/// Why a file could not be read or written.
#[derive(Debug, thiserror::Error)]
pub(crate) enum FileError {
    #[error(transparent)]
    Io(#[from] std::io::Error),
    #[error("the file is larger than {} MiB", MAX_FILE_BYTES >> 20)]
    TooLarge,
    #[error("not UTF-8 text (invalid byte at offset {0})")]
    NotUtf8(usize),
}

/// The file's text, `None` when it does not exist.
pub(crate) fn read(path: &Path) -> Result<Option<String>, FileError> {
    let file = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e.into()),
    };
    let mut bytes = Vec::new();
    file.take(MAX_FILE_BYTES + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(FileError::TooLarge);
    }
    String::from_utf8(bytes)
        .map(Some)
        .map_err(|e| FileError::NotUtf8(e.utf8_error().valid_up_to()))
}

/// Where a write to `path` goes: the file a symbolic link names (dotfile managers link
/// `~/.claude.json` and the like), so that the link stays a link.
fn target(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

/// Writes `text` to `path` atomically: into a temporary file in the same directory, flushed,
/// with the permissions of the file it replaces (a new file gets `private` ones, owner only,
/// when it holds secrets), then renamed over it. Parent directories are created.
pub(crate) fn write(path: &Path, text: &str, private: bool) -> std::io::Result<()> {
    let path = target(path);
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let name = path
        .file_name()
        .map_or_else(Default::default, |n| n.to_string_lossy().into_owned());
    let temp = dir.join(format!(".{name}.toon-{}.tmp", std::process::id()));
    let written = (|| {
        let mut file = std::fs::File::create(&temp)?;
        file.write_all(text.as_bytes())?;
        file.sync_all()?;
        match std::fs::metadata(&path) {
            Ok(meta) => std::fs::set_permissions(&temp, meta.permissions())?,
            Err(_) if private => set_private(&temp)?,
            Err(_) => {}
        }
        std::fs::rename(&temp, &path)
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    written
}

/// Removes the file (one an install created); a missing one is no error.
pub(crate) fn remove(path: &Path) -> std::io::Result<()> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

#[cfg(unix)]
fn set_private(path: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))
}

#[cfg(not(unix))]
fn set_private(_: &Path) -> std::io::Result<()> {
    Ok(())
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn writes_replace_atomically_and_keep_permissions() {
        let dir = std::env::temp_dir().join(format!("toon-install-files-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let file = dir.join("sub/config.json");
        assert_eq!(read(&file).unwrap(), None);
        write(&file, "{}", true).unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&file), 0o600);
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o640)).unwrap();
        write(&file, "{\"a\": 1}", true).unwrap();
        assert_eq!(mode(&file), 0o640);
        assert_eq!(read(&file).unwrap().as_deref(), Some("{\"a\": 1}"));
        // Through a symbolic link, the linked file changes and the link stays.
        let link = dir.join("link.json");
        std::os::unix::fs::symlink(&file, &link).unwrap();
        write(&link, "[]", false).unwrap();
        assert!(
            std::fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(read(&file).unwrap().as_deref(), Some("[]"));
        // Only the two files are left: no temporary one.
        assert_eq!(std::fs::read_dir(dir.join("sub")).unwrap().count(), 1);
        std::fs::write(dir.join("bad"), [b'{', 0xff]).unwrap();
        assert!(matches!(read(&dir.join("bad")), Err(FileError::NotUtf8(1))));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
