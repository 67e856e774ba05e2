//! The MCP clients `toon mcp install` knows: where each keeps its servers and in what form.
//!
//! Checked against each client's documentation (2026-12-02):
//! - Claude Code (code.claude.com/docs/en/mcp, "MCP installation scopes"): user-scope servers
//!   under the top-level `mcpServers` of `~/.claude.json` (local scope is the same file's
//!   `projects.PATH.mcpServers`, left alone here); project scope in `.mcp.json` at the
//!   project's root, `mcpServers` too.
//! - Claude Desktop (modelcontextprotocol.io's user quickstart): `claude_desktop_config.json`
//!   in `~/Library/Application Support/Claude/` on macOS; on Linux, where there is no official
//!   build, the community builds use `~/.config/Claude/`. `mcpServers`; no project file.
//! - Cursor (cursor.com/docs/mcp): `~/.cursor/mcp.json`, and `.cursor/mcp.json` in a project;
//!   `mcpServers`.
//! - VS Code (code.visualstudio.com/docs/copilot/reference/mcp-configuration): "MCP server
//!   configuration is stored in the mcp.json JSON file. This file can be in your workspace
//!   (.vscode/mcp.json) or in your user profile", with the servers under a top-level `servers`
//!   object (since VS Code 1.102; before that they were `mcp.servers` in `settings.json`), each
//!   with a `type`, and `inputs` beside them. The user profile's folder is
//!   `~/.config/Code/User/` on Linux and `~/Library/Application Support/Code/User/` on macOS
//!   (the default profile). The file is JSONC: comments and trailing commas are allowed.
//! - Windsurf (docs.windsurf.com/windsurf/cascade/mcp): `~/.codeium/windsurf/mcp_config.json`,
//!   `mcpServers` "following the same schema as Claude Desktop", remote servers with `serverUrl`
//!   or `url`; no project file.

use std::path::{Path, PathBuf};

/// An MCP client whose configuration `toon mcp install` edits.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Client {
    /// Anthropic's Claude Code (`claude`).
    ClaudeCode,
    /// The Claude desktop app.
    ClaudeDesktop,
    /// The Cursor editor.
    Cursor,
    /// Visual Studio Code (GitHub Copilot's agent mode).
    VsCode,
    /// The Windsurf editor (Cascade).
    Windsurf,
}

/// Which of a client's configuration files: the user's, or a project's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Scope {
    /// The user's own file, for every project.
    User,
    /// The project at this directory (its root).
    Project(PathBuf),
}

/// Where a user's files are: the home directory, the XDG configuration directory, and whether
/// the layout is macOS's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Places {
    /// `$HOME`.
    pub home: PathBuf,
    /// `$XDG_CONFIG_HOME`, else `~/.config`.
    pub config_home: PathBuf,
    /// macOS keeps applications' files under `~/Library/Application Support`.
    pub macos: bool,
}

impl Places {
    /// This process's: `HOME`, `XDG_CONFIG_HOME`; `None` without a home directory.
    #[must_use]
    pub fn from_env() -> Option<Places> {
        let var = |k: &str| {
            std::env::var_os(k)
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
        };
        let home = var("HOME")?;
        Some(Places {
            config_home: var("XDG_CONFIG_HOME").unwrap_or_else(|| home.join(".config")),
            home,
            macos: cfg!(target_os = "macos"),
        })
    }

    fn app_support(&self) -> PathBuf {
        if self.macos {
            self.home.join("Library/Application Support")
        } else {
            self.config_home.clone()
        }
    }
}

impl Client {
    /// Every client, in the order `--help` lists them.
    pub const ALL: [Client; 5] = [
        Client::ClaudeCode,
        Client::ClaudeDesktop,
        Client::Cursor,
        Client::VsCode,
        Client::Windsurf,
    ];

    /// The name the command line takes: `claude-code`, `claude-desktop`, `cursor`, `vscode`,
    /// `windsurf`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Client::ClaudeCode => "claude-code",
            Client::ClaudeDesktop => "claude-desktop",
            Client::Cursor => "cursor",
            Client::VsCode => "vscode",
            Client::Windsurf => "windsurf",
        }
    }

    /// The client named `name` ([`name`](Self::name)).
    #[must_use]
    pub fn parse(name: &str) -> Option<Client> {
        Client::ALL.into_iter().find(|c| c.name() == name)
    }

    /// What people call it.
    #[must_use]
    pub fn title(self) -> &'static str {
        match self {
            Client::ClaudeCode => "Claude Code",
            Client::ClaudeDesktop => "Claude Desktop",
            Client::Cursor => "Cursor",
            Client::VsCode => "VS Code",
            Client::Windsurf => "Windsurf",
        }
    }

    /// The key of the object of servers in its file.
    #[must_use]
    pub fn servers_key(self) -> &'static str {
        match self {
            Client::VsCode => "servers",
            _ => "mcpServers",
        }
    }

    /// Whether its file may hold comments and trailing commas.
    #[must_use]
    pub fn jsonc(self) -> bool {
        self == Client::VsCode
    }

    /// Whether its entries name their transport (`"type": "stdio"`), as VS Code requires.
    pub(crate) fn typed_entries(self) -> bool {
        self == Client::VsCode
    }

    /// Whether it starts commands without the user's shell, so that an entry's command
    /// should be an absolute path (the Claude Desktop app's own `PATH` is the system's).
    pub(crate) fn needs_absolute_command(self) -> bool {
        self == Client::ClaudeDesktop
    }

    /// Its configuration file for `scope`; `None` when it has no project file.
    ///
    /// ```
    /// use std::path::Path;
    /// use toon::mcp::proxy::install::{Client, Places, Scope};
    /// let places = Places { home: "/home/me".into(), config_home: "/home/me/.config".into(), macos: false };
    /// assert_eq!(Client::Cursor.file(&Scope::User, &places).unwrap(), Path::new("/home/me/.cursor/mcp.json"));
    /// let project = Scope::Project("/work/app".into());
    /// assert_eq!(Client::VsCode.file(&project, &places).unwrap(), Path::new("/work/app/.vscode/mcp.json"));
    /// assert_eq!(Client::ClaudeDesktop.file(&project, &places), None);
    /// ```
    #[must_use]
    pub fn file(self, scope: &Scope, places: &Places) -> Option<PathBuf> {
        match scope {
            Scope::User => Some(match self {
                Client::ClaudeCode => places.home.join(".claude.json"),
                Client::ClaudeDesktop => places
                    .app_support()
                    .join("Claude/claude_desktop_config.json"),
                Client::Cursor => places.home.join(".cursor/mcp.json"),
                Client::VsCode => places.app_support().join("Code/User/mcp.json"),
                Client::Windsurf => places.home.join(".codeium/windsurf/mcp_config.json"),
            }),
            Scope::Project(root) => match self {
                Client::ClaudeCode => Some(root.join(".mcp.json")),
                Client::Cursor => Some(root.join(".cursor/mcp.json")),
                Client::VsCode => Some(root.join(".vscode/mcp.json")),
                Client::ClaudeDesktop | Client::Windsurf => None,
            },
        }
    }

    /// The gateway's configuration for a project's servers: beside the client's project file
    /// (`.toon-mcp.json` at the root for Claude Code, `toon-mcp.json` in `.cursor/` or
    /// `.vscode/`), so that a project's servers stay the project's.
    #[must_use]
    pub fn project_gateway_file(self, root: &Path) -> Option<PathBuf> {
        match self {
            Client::ClaudeCode => Some(root.join(".toon-mcp.json")),
            Client::Cursor => Some(root.join(".cursor/toon-mcp.json")),
            Client::VsCode => Some(root.join(".vscode/toon-mcp.json")),
            Client::ClaudeDesktop | Client::Windsurf => None,
        }
    }
}

impl std::fmt::Display for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.title())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_clients_files_are_where_its_docs_say() {
        let linux = Places {
            home: "/home/me".into(),
            config_home: "/home/me/.config".into(),
            macos: false,
        };
        let mac = Places {
            home: "/Users/me".into(),
            config_home: "/Users/me/.config".into(),
            macos: true,
        };
        let user = |c: Client, p: &Places| c.file(&Scope::User, p).unwrap();
        assert_eq!(
            user(Client::ClaudeCode, &linux),
            Path::new("/home/me/.claude.json")
        );
        assert_eq!(
            user(Client::ClaudeDesktop, &linux),
            Path::new("/home/me/.config/Claude/claude_desktop_config.json")
        );
        assert_eq!(
            user(Client::ClaudeDesktop, &mac),
            Path::new("/Users/me/Library/Application Support/Claude/claude_desktop_config.json")
        );
        assert_eq!(
            user(Client::Cursor, &mac),
            Path::new("/Users/me/.cursor/mcp.json")
        );
        assert_eq!(
            user(Client::VsCode, &linux),
            Path::new("/home/me/.config/Code/User/mcp.json")
        );
        assert_eq!(
            user(Client::VsCode, &mac),
            Path::new("/Users/me/Library/Application Support/Code/User/mcp.json")
        );
        assert_eq!(
            user(Client::Windsurf, &linux),
            Path::new("/home/me/.codeium/windsurf/mcp_config.json")
        );
        let project = Scope::Project("/work/p".into());
        assert_eq!(
            Client::VsCode.file(&project, &linux).unwrap(),
            Path::new("/work/p/.vscode/mcp.json")
        );
        assert_eq!(
            Client::ClaudeCode.file(&project, &linux).unwrap(),
            Path::new("/work/p/.mcp.json")
        );
        assert_eq!(Client::Windsurf.file(&project, &linux), None);
        for client in Client::ALL {
            assert_eq!(Client::parse(client.name()), Some(client));
        }
    }
}
