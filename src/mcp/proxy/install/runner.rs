//! How a client starts the gateway: the way the running `toon` was installed.

use std::path::{Path, PathBuf};

/// The distribution that carries the `toon` binary, on PyPI and on npm.
pub const DISTRIBUTION: &str = "toon-gateway";

/// How the client's entry starts `toon mcp serve`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Runner {
    /// `uvx --from toon-gateway toon mcp serve …` (the Python wheel, from uv's cache).
    Uvx,
    /// `npx -y toon-gateway mcp serve …` (the npm package).
    Npx,
    /// The binary at this absolute path (`cargo install`, pipx, a download).
    Binary(PathBuf),
}

impl Runner {
    /// How the binary at `exe` was installed, read from its path: inside uv's cache, `uvx`
    /// (its buckets as uv's `CacheBucket` names them: an ephemeral tool environment is
    /// `…/uv/environments-v2/NAME-HASH/`, a link to `archive-v0/HASH/`, so the binary is seen
    /// at either), or in uv's tools (`…/uv/tools/…`); inside npm's
    /// `_npx` cache or a `node_modules/toon-gateway-PLATFORM` package, `npx`; else the binary.
    ///
    /// ```
    /// use std::path::Path;
    /// use toon::mcp::proxy::install::Runner;
    /// let uvx = Path::new("/home/me/.cache/uv/archive-v0/Xh3kQ2/bin/toon");
    /// assert_eq!(Runner::detect(uvx), Runner::Uvx);
    /// let npx = Path::new("/home/me/.npm/_npx/6a9f/node_modules/toon-gateway-linux-x64/bin/toon");
    /// assert_eq!(Runner::detect(npx), Runner::Npx);
    /// let cargo = Path::new("/home/me/.cargo/bin/toon");
    /// assert_eq!(Runner::detect(cargo), Runner::Binary(cargo.to_path_buf()));
    /// ```
    #[must_use]
    pub fn detect(exe: &Path) -> Runner {
        let parts: Vec<String> = exe
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        let pair = |a: &dyn Fn(&str) -> bool, b: &dyn Fn(&str) -> bool| {
            parts.windows(2).any(|w| a(&w[0]) && b(&w[1]))
        };
        let prefix = format!("{DISTRIBUTION}-");
        let after_uv = |bucket: &str| {
            parts
                .iter()
                .skip_while(|p| *p != "uv")
                .any(|p| p.starts_with(bucket))
        };
        if parts.iter().any(|p| p.starts_with("archive-v"))
            || after_uv("environments-v")
            || pair(&|a| a == "uv", &|b| b == "tools")
        {
            Runner::Uvx
        } else if parts.iter().any(|p| p == "_npx")
            || pair(&|a| a == "node_modules", &|b| b.starts_with(&prefix))
        {
            Runner::Npx
        } else {
            Runner::Binary(exe.to_path_buf())
        }
    }

    /// The entry's command and its arguments up to `serve`.
    pub(crate) fn command(&self) -> (String, Vec<String>) {
        let words = |w: &[&str]| w.iter().map(|s| (*s).to_owned()).collect();
        match self {
            Runner::Uvx => (
                "uvx".to_owned(),
                words(&["--from", DISTRIBUTION, "toon", "mcp", "serve"]),
            ),
            Runner::Npx => (
                "npx".to_owned(),
                words(&["-y", DISTRIBUTION, "mcp", "serve"]),
            ),
            Runner::Binary(path) => (
                path.to_string_lossy().into_owned(),
                words(&["mcp", "serve"]),
            ),
        }
    }
}

/// `name`'s absolute path on the search path `path` (`$PATH`'s value), if it is there: for a
/// client that does not start commands through the user's shell (Claude Desktop), whose own
/// `PATH` may lack `~/.local/bin` and the like.
pub(crate) fn find_on(path: &std::ffi::OsStr, name: &str) -> Option<PathBuf> {
    std::env::split_paths(path)
        .filter(|dir| dir.is_absolute())
        .map(|dir| dir.join(name))
        .find(|candidate| is_executable(candidate))
}

#[cfg(unix)]
fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(not(unix))]
fn is_executable(path: &Path) -> bool {
    path.is_file()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_runner_is_read_from_the_binarys_path() {
        let detect = |p: &str| Runner::detect(Path::new(p));
        for uvx in [
            "/home/me/.cache/uv/archive-v0/Xh3kQ2/bin/toon",
            "/Users/me/.cache/uv/environments-v2/toon-gateway-5f1c2a/bin/toon",
            "/Users/me/.cache/uv/archive-v0/abc/bin/toon",
            "/home/me/.local/share/uv/tools/toon-gateway/bin/toon",
            "/tmp/cache/archive-v0/abc/bin/toon",
        ] {
            assert_eq!(detect(uvx), Runner::Uvx, "{uvx}");
        }
        for npx in [
            "/home/me/.npm/_npx/6a9f/node_modules/toon-gateway-linux-x64/bin/toon",
            "/usr/lib/node_modules/toon-gateway/node_modules/toon-gateway-linux-arm64/bin/toon",
            "/work/app/node_modules/toon-gateway-linux-x64/toon",
        ] {
            assert_eq!(detect(npx), Runner::Npx, "{npx}");
        }
        for binary in [
            "/home/me/.cargo/bin/toon",
            "/home/me/.local/pipx/venvs/toon-gateway/bin/toon",
            "/work/uv-tools/target/release/toon",
            "/work/node_modules/other/bin/toon",
            "/srv/environments-v2/bin/toon",
        ] {
            assert_eq!(detect(binary), Runner::Binary(binary.into()), "{binary}");
        }
    }

    #[cfg(unix)]
    #[test]
    fn commands_are_found_on_a_search_path() {
        use std::os::unix::fs::PermissionsExt;
        let dir = std::env::temp_dir().join(format!("toon-runner-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("bin")).unwrap();
        std::fs::write(dir.join("bin/uvx"), "#!/bin/sh\n").unwrap();
        std::fs::write(dir.join("npx"), "not executable").unwrap();
        std::fs::set_permissions(dir.join("bin/uvx"), std::fs::Permissions::from_mode(0o755))
            .unwrap();
        let path = std::env::join_paths([dir.clone(), dir.join("bin"), "relative".into()]).unwrap();
        assert_eq!(find_on(&path, "uvx"), Some(dir.join("bin/uvx")));
        assert_eq!(find_on(&path, "npx"), None);
        assert_eq!(find_on(&path, "missing"), None);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn each_runner_starts_serve() {
        assert_eq!(
            Runner::Uvx.command(),
            (
                "uvx".to_owned(),
                ["--from", "toon-gateway", "toon", "mcp", "serve"]
                    .map(String::from)
                    .to_vec()
            )
        );
        assert_eq!(
            Runner::Npx.command().1,
            ["-y", "toon-gateway", "mcp", "serve"]
        );
        assert_eq!(
            Runner::Binary("/opt/toon".into()).command(),
            (
                "/opt/toon".to_owned(),
                vec!["mcp".to_owned(), "serve".to_owned()]
            )
        );
    }
}
