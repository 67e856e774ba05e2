//! Install and uninstall on fixture configurations of each client
//! (`tests/fixtures/mcp/install/`), in a scratch home directory.

use std::path::{Path, PathBuf};

use super::*;
use crate::mcp::proxy::Config;

fn fixture(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/mcp/install")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A scratch home directory, removed at the end.
struct Home {
    places: Places,
}

impl Home {
    fn new(name: &str) -> Home {
        let home = std::env::temp_dir().join(format!("toon-install-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&home);
        std::fs::create_dir_all(&home).unwrap();
        Home {
            places: Places {
                config_home: home.join(".config"),
                home,
                macos: false,
            },
        }
    }

    fn gateway(&self) -> PathBuf {
        self.places.config_home.join("toon/mcp.json")
    }

    /// A request for `client`'s user file, the gateway at `/opt/toon/bin/toon`.
    fn request(&self, client: Client) -> Request {
        let mut request = Request::new(client, Runner::Binary("/opt/toon/bin/toon".into()));
        request.gateway_config = Some(self.gateway());
        request
    }

    /// `client`'s user file, written with `text`.
    fn with(&self, client: Client, text: &str) -> PathBuf {
        let path = client.file(&Scope::User, &self.places).unwrap();
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        path
    }

    /// Every file under the home directory, with its text.
    fn files(&self) -> Vec<(PathBuf, String)> {
        fn walk(dir: &Path, out: &mut Vec<(PathBuf, String)>) {
            for entry in std::fs::read_dir(dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    walk(&path, out);
                } else {
                    out.push((path.clone(), std::fs::read_to_string(&path).unwrap()));
                }
            }
        }
        let mut out = Vec::new();
        walk(&self.places.home, &mut out);
        out.sort();
        out
    }
}

impl Drop for Home {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.places.home);
    }
}

/// Each client's fixture, and the servers an install moves and keeps.
fn cases() -> Vec<(Client, &'static str, Vec<&'static str>, Vec<&'static str>)> {
    // Without `mcp-http` the gateway cannot reach `url` servers: those stay.
    let http = cfg!(feature = "mcp-http");
    let pick = |stdio: Vec<&'static str>, url: Vec<&'static str>| {
        if http { [stdio, url].concat() } else { stdio }
    };
    let unless = |url: Vec<&'static str>| if http { vec![] } else { url };
    vec![
        (
            Client::ClaudeCode,
            "claude-code.json",
            pick(vec!["github"], vec!["sentry"]),
            [unless(vec!["sentry"]), vec!["notes"]].concat(),
        ),
        (
            Client::ClaudeDesktop,
            "claude-desktop.json",
            vec!["filesystem", "brave-search"],
            vec![],
        ),
        (
            Client::Cursor,
            "cursor.json",
            vec!["time", "memory"],
            vec!["linear"],
        ),
        (
            Client::VsCode,
            "vscode.jsonc",
            pick(vec!["filesystem", "fetch"], vec!["github"]),
            [vec!["perplexity"], unless(vec!["github"])].concat(),
        ),
        (
            Client::Windsurf,
            "windsurf.json",
            pick(vec!["git"], vec!["context7"]),
            unless(vec!["context7"]),
        ),
    ]
}

/// Whether one of the `moved` servers of the client's `text` holds a secret.
fn secret_moved(client: Client, text: &str, moved: &[&str]) -> bool {
    let blanked = jsonc::blank(text, client.jsonc()).unwrap();
    let top = jsonc::object_at(&blanked, 0).unwrap();
    let servers =
        jsonc::object_at(&blanked, top.get(client.servers_key()).unwrap().value.start).unwrap();
    servers
        .members
        .iter()
        .any(|m| moved.contains(&m.key.as_str()) && text[m.value.clone()].contains("FIXTURESECRET"))
}

#[test]
fn install_then_uninstall_leaves_each_clients_file_byte_identical() {
    for (client, name, moved, kept) in cases() {
        let home = Home::new(client.name());
        let original = fixture(name);
        let path = home.with(client, &original);
        let plan = plan_install(&home.request(client), &home.places).unwrap();
        assert_eq!(plan.moved().collect::<Vec<_>>(), moved, "{client}");
        assert_eq!(
            plan.kept().map(|(n, _)| n).collect::<Vec<_>>(),
            kept,
            "{client}"
        );
        plan.apply().unwrap();

        // The client's file: the kept servers and `toon`, all else as it was.
        let installed = std::fs::read_to_string(&path).unwrap();
        let blanked = jsonc::blank(&installed, client.jsonc()).unwrap();
        let top = jsonc::object_at(&blanked, 0).unwrap();
        let servers =
            jsonc::object_at(&blanked, top.get(client.servers_key()).unwrap().value.start).unwrap();
        let names: Vec<&str> = servers.members.iter().map(|m| m.key.as_str()).collect();
        let mut expected = kept.clone();
        expected.insert(0, "toon");
        let mut sorted = names.clone();
        sorted.sort_unstable();
        expected.sort_unstable();
        assert_eq!(sorted, expected, "{client}");
        for member in &top.members {
            if member.key != client.servers_key() {
                let was = jsonc::blank(&original, client.jsonc()).unwrap();
                let was_top = jsonc::object_at(&was, 0).unwrap();
                let before = &original[was_top.get(&member.key).unwrap().value.clone()];
                assert_eq!(
                    &installed[member.value.clone()],
                    before,
                    "{client} {}",
                    member.key
                );
            }
        }
        // The gateway's configuration has the moved servers, and reads.
        let gateway = std::fs::read_to_string(home.gateway()).unwrap();
        let config = Config::from_str_with(&gateway, &|_| Some("x".into())).unwrap();
        let there: Vec<&str> = config.servers.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(there, moved, "{client}");
        // Secrets are copied, not shown.
        let report = plan.to_string();
        assert!(!report.contains("FIXTURESECRET"), "{report}");
        if secret_moved(client, &original, &moved) {
            assert!(gateway.contains("FIXTURESECRET"), "{client}");
        }

        let undo = plan_uninstall(&home.request(client), &home.places).unwrap();
        undo.apply().unwrap();
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            original,
            "{client}"
        );
        // Only the client's file is left: the gateway's configuration the install created
        // and the backup are gone.
        assert_eq!(home.files(), [(path, original)], "{client}");
    }
}

#[test]
fn an_install_edits_only_the_servers_in_the_files_own_layout() {
    let home = Home::new("layout");
    let path = home.with(Client::Cursor, &fixture("cursor.json"));
    let mut request = home.request(Client::Cursor);
    request.runner = Runner::Uvx;
    request.serve_args = vec!["--mode".into(), "lean".into()];
    plan_install(&request, &home.places)
        .unwrap()
        .apply()
        .unwrap();
    let gateway = home.gateway().to_string_lossy().into_owned();
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        format!(
            "{{\n\t\"mcpServers\": {{\n\t\t\"toon\": {{\n\t\t\t\"command\": \"uvx\",\n\t\t\t\"args\": \
             [\"--from\", \"toon-gateway\", \"toon\", \"mcp\", \"serve\", \"--config\", \
             \"{gateway}\", \"--mode\", \"lean\"]\n\t\t}},\n\t\t\"linear\": {{\n\t\t\t\"url\": \
             \"https://mcp.linear.app/mcp\",\n\t\t\t\"headers\": {{\n\t\t\t\t\"Authorization\": \
             \"Bearer ${{env:LINEAR_API_KEY}}\"\n\t\t\t}}\n\t\t}}\n\t}}\n}}\n"
        )
    );
    // The gateway's new file, its entries re-indented to their new depth.
    assert_eq!(
        std::fs::read_to_string(home.gateway()).unwrap(),
        "{\n  \"mcpServers\": {\n    \"time\": {\n      \"command\": \"uvx\",\n      \"args\": \
         [\"mcp-server-time\", \"--local-timezone=Europe/Paris\"]\n    },\n    \"memory\": {\n      \
         \"command\": \"npx\",\n      \"args\": [\"-y\", \"@modelcontextprotocol/server-memory\"],\n      \
         \"env\": {\n        \"MEMORY_FILE_PATH\": \"/home/me/.cursor/memory.jsonl\"\n      },\n      \
         \"disabled\": true\n    }\n  }\n}\n"
    );
}

#[test]
fn vscode_comments_and_trailing_commas_survive() {
    let home = Home::new("jsonc");
    let original = fixture("vscode.jsonc");
    let path = home.with(Client::VsCode, &original);
    plan_install(&home.request(Client::VsCode), &home.places)
        .unwrap()
        .apply()
        .unwrap();
    let installed = std::fs::read_to_string(&path).unwrap();
    // Comments outside the moved servers, `inputs`, the kept server and the trailing commas.
    for kept in [
        "// VS Code's user mcp.json (MCP: Open User Configuration).\n{\n  \"inputs\": [",
        "    /* Asks for the key once, VS Code keeps it. */\n    \"perplexity\": {",
        "\"PERPLEXITY_API_KEY\": \"${input:perplexity-key}\"",
        "\n  },\n}\n",
        "\"type\": \"stdio\",\n      \"command\": \"/opt/toon/bin/toon\"",
    ] {
        assert!(installed.contains(kept), "{kept:?} not in\n{installed}");
    }
    // The moved servers' comments went with them, and none reached the gateway's JSON.
    assert!(!installed.contains("read-write"), "{installed}");
    let gateway = std::fs::read_to_string(home.gateway()).unwrap();
    assert!(
        !gateway.contains("//") || !gateway.contains("read-write"),
        "{gateway}"
    );
    Config::from_str_with(&gateway, &|_| Some("x".into())).unwrap();
}

#[test]
fn a_dry_run_writes_nothing_and_shows_no_secret() {
    for (client, name, _, _) in cases() {
        let home = Home::new(&format!("dry-{}", client.name()));
        home.with(client, &fixture(name));
        let before = home.files();
        let plan = plan_install(&home.request(client), &home.places).unwrap();
        let report = plan.to_string();
        assert_eq!(home.files(), before, "{client}");
        assert!(!report.contains("FIXTURESECRET"), "{report}");
        let moved: Vec<&str> = plan.moved().collect();
        if secret_moved(client, &fixture(name), &moved) {
            assert!(report.contains("<hidden>"), "{report}");
        }
        assert!(
            report.contains("\"command\":\"/opt/toon/bin/toon\""),
            "{report}"
        );
    }
}

#[test]
fn a_name_the_gateway_has_otherwise_is_an_error_and_the_same_one_is_shared() {
    let home = Home::new("conflict");
    home.with(Client::ClaudeDesktop, &fixture("claude-desktop.json"));
    std::fs::create_dir_all(home.gateway().parent().unwrap()).unwrap();
    std::fs::write(home.gateway(), fixture("gateway-conflict.json")).unwrap();
    let err = plan_install(&home.request(Client::ClaudeDesktop), &home.places).unwrap_err();
    assert!(matches!(&err, InstallError::Conflict { names, .. } if names == &["filesystem"]));
    assert!(
        err.to_string().contains("servers of those names")
            || err.to_string().contains("filesystem")
    );

    // Cursor's `time` is in the gateway's file already, defined the same: shared, not added
    // twice, and left there by the uninstall.
    let home = Home::new("shared");
    let path = home.with(Client::Cursor, &fixture("cursor.json"));
    std::fs::create_dir_all(home.gateway().parent().unwrap()).unwrap();
    std::fs::write(home.gateway(), fixture("gateway.json")).unwrap();
    let plan = plan_install(&home.request(Client::Cursor), &home.places).unwrap();
    assert!(plan.to_string().contains("time: already there, the same"));
    plan.apply().unwrap();
    let gateway = std::fs::read_to_string(home.gateway()).unwrap();
    assert_eq!(gateway.matches("\"time\"").count(), 1, "{gateway}");
    assert!(gateway.contains("\"memory\""));
    plan_uninstall(&home.request(Client::Cursor), &home.places)
        .unwrap()
        .apply()
        .unwrap();
    assert_eq!(
        std::fs::read_to_string(home.gateway()).unwrap(),
        fixture("gateway.json")
    );
    assert_eq!(
        std::fs::read_to_string(path).unwrap(),
        fixture("cursor.json")
    );
}

#[test]
fn what_changed_since_the_install_is_kept_or_refused() {
    let home = Home::new("changed");
    let original = fixture("claude-code.json");
    let path = home.with(Client::ClaudeCode, &original);
    let request = home.request(Client::ClaudeCode);
    plan_install(&request, &home.places)
        .unwrap()
        .apply()
        .unwrap();
    let installed = std::fs::read_to_string(&path).unwrap();

    // Claude Code rewrote its state: the servers come back, the new state stays.
    let later = installed.replace("\"numStartups\": 42", "\"numStartups\": 43");
    std::fs::write(&path, &later).unwrap();
    let undo = plan_uninstall(&request, &home.places).unwrap();
    assert!(
        undo.to_string()
            .contains("the rest of the file as it is now")
    );
    undo.apply().unwrap();
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        original.replace("\"numStartups\": 42", "\"numStartups\": 43")
    );

    // A server added beside `toon` since: refused, nothing written.
    std::fs::write(&path, &original).unwrap();
    plan_install(&request, &home.places)
        .unwrap()
        .apply()
        .unwrap();
    let installed = std::fs::read_to_string(&path).unwrap();
    let edited = installed.replacen(
        "\"toon\": {",
        "\"new\": {\"command\": \"x\"},\n    \"toon\": {",
        1,
    );
    std::fs::write(&path, &edited).unwrap();
    let before = home.files();
    let err = plan_uninstall(&request, &home.places).unwrap_err();
    assert!(matches!(err, InstallError::Changed { .. }), "{err}");
    assert!(
        err.to_string()
            .contains("\"mcpServers\" changed since `toon mcp install`"),
        "{err}"
    );
    assert!(
        err.to_string().contains(".claude.json.toon-backup"),
        "{err}"
    );
    assert_eq!(home.files(), before);

    // A moved server edited in the gateway's file since: refused too.
    std::fs::write(&path, &installed).unwrap();
    let gateway = std::fs::read_to_string(home.gateway()).unwrap();
    std::fs::write(
        home.gateway(),
        gateway.replace("server-github", "server-github@2"),
    )
    .unwrap();
    let err = plan_uninstall(&request, &home.places).unwrap_err();
    assert!(
        err.to_string().contains("the server \"github\" changed"),
        "{err}"
    );

    // Installing twice is refused while the backup is there.
    let err = plan_install(&request, &home.places).unwrap_err();
    assert!(
        matches!(err, InstallError::AlreadyInstalled { .. }),
        "{err}"
    );
}

#[test]
fn unreadable_files_are_refused_at_their_line_and_column() {
    let home = Home::new("malformed");
    let cases = [
        (
            Client::Cursor,
            "malformed-missing-comma.json",
            5,
            7,
            "expected `,` or `}`",
        ),
        (
            Client::VsCode,
            "malformed-open-comment.jsonc",
            3,
            5,
            "a /* comment that is never closed",
        ),
        (
            Client::Windsurf,
            "malformed-comment-in-json.json",
            3,
            5,
            "key must be a string",
        ),
    ];
    for (client, name, line, column, message) in cases {
        home.with(client, &fixture(name));
        let err = plan_install(&home.request(client), &home.places).unwrap_err();
        let InstallError::Unreadable {
            line: l,
            column: c,
            message: m,
            ..
        } = &err
        else {
            panic!("{name}: {err}");
        };
        assert_eq!((*l, *c, m.as_str()), (line, column, message), "{name}");
        assert!(err.to_string().contains("fix the file"), "{err}");
    }
    home.with(
        Client::ClaudeDesktop,
        &fixture("malformed-servers-array.json"),
    );
    let err = plan_install(&home.request(Client::ClaudeDesktop), &home.places).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "{}: \"mcpServers\" is not an object of servers",
            home.places
                .home
                .join(".config/Claude/claude_desktop_config.json")
                .display()
        )
    );
    // A client with a `toon` of its own.
    home.with(
        Client::Cursor,
        r#"{"mcpServers": {"toon": {"command": "toon"}}}"#,
    );
    let err = plan_install(&home.request(Client::Cursor), &home.places).unwrap_err();
    assert!(matches!(err, InstallError::NameTaken { .. }), "{err}");
    let err = plan_uninstall(&home.request(Client::Cursor), &home.places).unwrap_err();
    assert!(matches!(err, InstallError::NotInstalled { .. }), "{err}");
}

#[test]
fn a_client_without_a_file_gets_one_and_loses_it_again() {
    let home = Home::new("new-file");
    let request = home.request(Client::Windsurf);
    let plan = plan_install(&request, &home.places).unwrap();
    assert!(plan.to_string().contains("no server to move"));
    plan.apply().unwrap();
    let path = Client::Windsurf.file(&Scope::User, &home.places).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(
        text.starts_with("{\n  \"mcpServers\": {\n    \"toon\": {\n      \"command\""),
        "{text}"
    );
    plan_uninstall(&request, &home.places)
        .unwrap()
        .apply()
        .unwrap();
    assert!(!path.exists());
    // The directories the install made stay; no file is left.
    assert!(home.files().is_empty(), "{:?}", home.files());

    // A file without servers gets the member at its end.
    home.with(Client::ClaudeDesktop, "{\n  \"globalShortcut\": \"\"\n}\n");
    let plan = plan_install(&home.request(Client::ClaudeDesktop), &home.places).unwrap();
    assert!(
        plan.client_text().starts_with(
            "{\n  \"globalShortcut\": \"\",\n  \"mcpServers\": {\n    \"toon\": {\n      \"command\""
        ),
        "{}",
        plan.client_text()
    );
}

#[test]
fn a_vscode_project_names_its_gateway_file_under_the_workspace() {
    let home = Home::new("project");
    let root = home.places.home.join("app");
    let mut request = home.request(Client::VsCode);
    request.scope = Scope::Project(root.clone());
    request.gateway_config = None;
    std::fs::create_dir_all(root.join(".vscode")).unwrap();
    std::fs::write(root.join(".vscode/mcp.json"), fixture("vscode.jsonc")).unwrap();
    let plan = plan_install(&request, &home.places).unwrap();
    assert_eq!(plan.gateway_file(), root.join(".vscode/toon-mcp.json"));
    assert!(
        plan.client_text()
            .contains("\"--config\", \"${workspaceFolder}/.vscode/toon-mcp.json\"")
    );
    request.client = Client::Windsurf;
    let err = plan_install(&request, &home.places).unwrap_err();
    assert_eq!(
        err.to_string(),
        "Windsurf has no project configuration: run it without --project"
    );
}

#[test]
fn a_server_two_installs_share_stays_until_neither_needs_it() {
    let home = Home::new("two-clients");
    let cursor = home.with(Client::Cursor, &fixture("cursor.json"));
    let time =
        r#"{"command": "uvx", "args": ["mcp-server-time", "--local-timezone=Europe/Paris"]}"#;
    let windsurf_text = format!("{{\"mcpServers\": {{\"time\": {time}}}}}\n");
    let windsurf = home.with(Client::Windsurf, &windsurf_text);
    plan_install(&home.request(Client::Cursor), &home.places)
        .unwrap()
        .apply()
        .unwrap();
    let plan = plan_install(&home.request(Client::Windsurf), &home.places).unwrap();
    assert!(plan.to_string().contains("time: already there, the same"));
    plan.apply().unwrap();

    // Cursor's install added `time`; Windsurf's uses it: it stays, `memory` goes.
    let undo = plan_uninstall(&home.request(Client::Cursor), &home.places).unwrap();
    assert_eq!(undo.removed().collect::<Vec<_>>(), ["memory"]);
    assert!(
        undo.to_string()
            .contains("another client's install uses them: time")
    );
    undo.apply().unwrap();
    assert_eq!(
        std::fs::read_to_string(&cursor).unwrap(),
        fixture("cursor.json")
    );
    let gateway = std::fs::read_to_string(home.gateway()).unwrap();
    let config = Config::from_str(&gateway).unwrap();
    let names: Vec<&str> = config.servers.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["time"]);

    plan_uninstall(&home.request(Client::Windsurf), &home.places)
        .unwrap()
        .apply()
        .unwrap();
    assert_eq!(std::fs::read_to_string(&windsurf).unwrap(), windsurf_text);
}

#[test]
fn the_gateways_file_cannot_be_the_clients() {
    let home = Home::new("same-file");
    let path = home.with(Client::Cursor, &fixture("cursor.json"));
    let mut request = home.request(Client::Cursor);
    request.gateway_config = Some(path);
    let err = plan_install(&request, &home.places).unwrap_err();
    assert!(
        err.to_string().contains("is the client's own file"),
        "{err}"
    );
}

/// Prefixes of two fixtures, and the fixtures with one byte taken out (every fifth of each, to
/// keep the test short): refused with an error or planned into texts that read back, never a
/// panic.
#[test]
fn cut_and_damaged_files_are_refused_or_planned_never_a_panic() {
    let home = Home::new("damaged");
    for (client, name) in [
        (Client::VsCode, "vscode.jsonc"),
        (Client::Cursor, "cursor.json"),
    ] {
        let text = fixture(name);
        let cut = (0..text.len())
            .step_by(5)
            .filter(|&n| text.is_char_boundary(n))
            .map(|n| text[..n].to_owned());
        let damaged = (2..text.len())
            .step_by(5)
            .filter(|&n| text.is_char_boundary(n) && text.is_char_boundary(n + 1))
            .map(|n| format!("{}{}", &text[..n], &text[n + 1..]));
        let mut planned = 0;
        for variant in cut.chain(damaged) {
            home.with(client, &variant);
            let Ok(plan) = plan_install(&home.request(client), &home.places) else {
                continue;
            };
            planned += 1;
            jsonc::blank(plan.client_text(), client.jsonc()).unwrap();
            Config::from_str_with(plan.gateway_text(), &|_| Some("x".into())).unwrap();
        }
        assert!(planned > 0, "{name}");
    }
}

#[test]
fn servers_the_install_added_to_a_file_go_again_when_the_rest_changed() {
    let home = Home::new("inserted");
    let original = "{\n  \"globalShortcut\": \"\",\n  \"preferences\": {}\n}\n";
    let path = home.with(Client::ClaudeDesktop, original);
    let request = home.request(Client::ClaudeDesktop);
    plan_install(&request, &home.places)
        .unwrap()
        .apply()
        .unwrap();
    let installed = std::fs::read_to_string(&path).unwrap();
    std::fs::write(
        &path,
        installed.replace("\"globalShortcut\": \"\"", "\"globalShortcut\": \"F1\""),
    )
    .unwrap();
    plan_uninstall(&request, &home.places)
        .unwrap()
        .apply()
        .unwrap();
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        original.replace("\"globalShortcut\": \"\"", "\"globalShortcut\": \"F1\"")
    );
}

#[test]
fn a_claude_code_project_keeps_its_servers_in_the_project() {
    let home = Home::new("cc-project");
    let root = home.places.home.join("site");
    std::fs::create_dir_all(&root).unwrap();
    let original = fixture("claude-code-project.mcp.json");
    std::fs::write(root.join(".mcp.json"), &original).unwrap();
    let mut request = home.request(Client::ClaudeCode);
    request.scope = Scope::Project(root.clone());
    request.gateway_config = None;
    let plan = plan_install(&request, &home.places).unwrap();
    assert_eq!(plan.gateway_file(), root.join(".toon-mcp.json"));
    let config = root.join(".toon-mcp.json").to_string_lossy().into_owned();
    assert!(
        plan.client_text()
            .contains(&format!("\"--config\", \"{config}\""))
    );
    plan.apply().unwrap();
    let gateway =
        Config::from_str(&std::fs::read_to_string(root.join(".toon-mcp.json")).unwrap()).unwrap();
    assert_eq!(gateway.servers[0].name, "playwright");
    plan_uninstall(&request, &home.places)
        .unwrap()
        .apply()
        .unwrap();
    assert_eq!(
        std::fs::read_to_string(root.join(".mcp.json")).unwrap(),
        original
    );
    assert!(!root.join(".toon-mcp.json").exists());
}
