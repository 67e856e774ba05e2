//! An uninstall planned from an install's backup: the client's servers put back, the servers
//! the install added taken out of the gateway's configuration.

use std::fmt;
use std::path::{Path, PathBuf};

use super::backup::{self, Backup};
use super::jsonc::{self, Object};
use super::splice::{self, Item, Style};
use super::{Client, InstallError, Places, Request, Scope, Write};

/// An uninstall, planned ([`plan_uninstall`]): shown with [`Display`](fmt::Display), written
/// with [`apply`](Uninstall::apply).
#[derive(Debug)]
pub struct Uninstall {
    client: Client,
    backup_path: PathBuf,
    backup: Backup,
    /// The files' texts now, checked again before writing.
    client_now: Option<String>,
    gateway_now: Option<String>,
    client_write: Write,
    gateway_write: Write,
    /// The servers taken out of the gateway's configuration.
    removed: Vec<String>,
    /// The servers it added that another install uses: left there.
    needed: Vec<String>,
    /// Whether each file comes back byte for byte as it was before the install.
    client_exact: bool,
}

/// Plans undoing the install into `request.client`'s file (`request.scope` and
/// `request.file` say which; the rest is read from its backup). Nothing is written.
///
/// # Errors
/// [`InstallError::NotInstalled`] without a backup, [`InstallError::BadBackup`] for one this
/// version did not write, [`InstallError::Changed`] when the client's servers, or a server
/// the install added to the gateway, changed since the install (the message says what to do),
/// and the errors of reading a file.
pub fn plan_uninstall(request: &Request, places: &Places) -> Result<Uninstall, InstallError> {
    let path = super::plan::client_file(request, places)?;
    let backup_path = backup::path_for(&path);
    let text = super::read(&backup_path)?.ok_or_else(|| InstallError::NotInstalled {
        backup: backup_path.clone(),
    })?;
    let backup = Backup::from_text(&text).ok_or_else(|| InstallError::BadBackup {
        backup: backup_path.clone(),
    })?;
    let client_now = super::read(&backup.client_file.path)?;
    let gateway_now = super::read(&backup.gateway_file.path)?;
    let client_exact = client_now.as_deref() == Some(backup.client_file.after.as_str());
    let client_write =
        restore_client(request.client, &backup, client_now.as_deref(), &backup_path)?;
    let needed = needed_elsewhere(&backup_path, &backup, request, places);
    let (gateway_write, removed) =
        restore_gateway(&backup, gateway_now.as_deref(), &backup_path, &needed)?;
    Ok(Uninstall {
        client: request.client,
        backup_path,
        backup,
        client_now,
        gateway_now,
        client_write,
        gateway_write,
        removed,
        needed,
        client_exact,
    })
}

/// The servers this install added that another install into the same gateway configuration
/// uses (it found them there): they stay. The other installs are those of every client's user
/// file and of `request`'s project, found by their backups.
fn needed_elsewhere(
    backup_path: &Path,
    backup: &Backup,
    request: &Request,
    places: &Places,
) -> Vec<String> {
    let mut scopes = vec![Scope::User];
    if let Scope::Project(_) = &request.scope {
        scopes.push(request.scope.clone());
    }
    let mut needed = Vec::new();
    for client in Client::ALL {
        for scope in &scopes {
            let Some(file) = client.file(scope, places) else {
                continue;
            };
            let other = backup::path_for(&file);
            if other == backup_path {
                continue;
            }
            let Some(other) = std::fs::read_to_string(&other)
                .ok()
                .and_then(|t| Backup::from_text(&t))
            else {
                continue;
            };
            if other.gateway_file.path == backup.gateway_file.path {
                needed.extend(other.shared);
            }
        }
    }
    needed.retain(|name| backup.added.iter().any(|a| &a.name == name));
    needed
}

/// The text before, or its removal when the install created the file.
fn before(text: &Option<String>) -> Write {
    text.clone().map_or(Write::Remove, Write::Text)
}

fn changed(path: &Path, backup: &Path, what: &str) -> InstallError {
    InstallError::Changed {
        path: path.to_path_buf(),
        what: format!(
            "{what} since `toon mcp install`; put it back as it was, or restore the files by \
             hand from the backup {} and delete it",
            backup.display()
        ),
    }
}

/// The client's file with its servers back: the file as it was when nothing changed since,
/// else its object of servers as it was, when that is as the install left it.
fn restore_client(
    client: Client,
    backup: &Backup,
    now: Option<&str>,
    backup_path: &Path,
) -> Result<Write, InstallError> {
    let file = &backup.client_file;
    let Some(now) = now else {
        return Err(changed(&file.path, backup_path, "the file was removed"));
    };
    if now == file.after {
        return Ok(before(&file.before));
    }
    let blanked = super::blanked(&file.path, now, client.jsonc())?;
    let top = jsonc::object_at(&blanked, 0);
    let member = top
        .as_ref()
        .and_then(|t| t.get(client.servers_key()).map(|m| (t, m)));
    let Some((top, member)) = member.filter(|(_, m)| now[m.value.clone()] == backup.servers_after)
    else {
        let what = format!("its \"{}\" changed", client.servers_key());
        return Err(changed(&file.path, backup_path, &what));
    };
    Ok(Write::Text(match &backup.servers_before {
        Some(servers) => format!(
            "{}{servers}{}",
            &now[..member.value.start],
            &now[member.value.end..]
        ),
        None => {
            let index = top.members.iter().rposition(|m| m == member).unwrap_or(0);
            without(now, &blanked, top, &[index])
        }
    }))
}

/// `text` with the members at `indices` of `object` taken out.
fn without(text: &str, blanked: &str, object: &Object, indices: &[usize]) -> String {
    let items: Vec<Item> = (0..object.members.len())
        .filter(|i| !indices.contains(i))
        .map(Item::Keep)
        .collect();
    let layout = Style::of(text, object, &splice::unit(text, object));
    let rewritten = splice::rewrite(text, blanked, object, &items, &layout);
    format!(
        "{}{rewritten}{}",
        &text[..object.open],
        &text[object.close + 1..]
    )
}

/// The gateway's configuration without the servers the install added: as it was when nothing
/// changed since, else with each of them taken out that is as the install wrote it.
fn restore_gateway(
    backup: &Backup,
    now: Option<&str>,
    backup_path: &Path,
    needed: &[String],
) -> Result<(Write, Vec<String>), InstallError> {
    let file = &backup.gateway_file;
    let names = || backup.added.iter().map(|a| a.name.clone()).collect();
    let Some(now) = now else {
        // Removed since: nothing to take out.
        return Ok((Write::Remove, Vec::new()));
    };
    if now == file.after && needed.is_empty() {
        return Ok((before(&file.before), names()));
    }
    let blanked = super::blanked(&file.path, now, false)?;
    let servers = jsonc::object_at(&blanked, 0).and_then(|top| {
        let member = top.get("mcpServers").or_else(|| top.get("servers"))?;
        jsonc::object_at(&blanked, member.value.start)
    });
    let Some(servers) = servers else {
        return Ok((Write::Text(now.to_owned()), Vec::new()));
    };
    let mut indices = Vec::new();
    let mut removed = Vec::new();
    for added in backup.added.iter().filter(|a| !needed.contains(&a.name)) {
        let Some(index) = servers.members.iter().rposition(|m| m.key == added.name) else {
            continue;
        };
        if now[servers.members[index].value.clone()] != added.text {
            let what = format!("the server \"{}\" changed", added.name);
            return Err(changed(&file.path, backup_path, &what));
        }
        indices.push(index);
        removed.push(added.name.clone());
    }
    Ok((
        Write::Text(without(now, &blanked, &servers, &indices)),
        removed,
    ))
}

impl Uninstall {
    /// The client's file.
    #[must_use]
    pub fn client_file(&self) -> &Path {
        &self.backup.client_file.path
    }

    /// The gateway's configuration.
    #[must_use]
    pub fn gateway_file(&self) -> &Path {
        &self.backup.gateway_file.path
    }

    /// The servers taken out of the gateway's configuration.
    pub fn removed(&self) -> impl Iterator<Item = &str> {
        self.removed.iter().map(String::as_str)
    }

    /// Writes the client's file, then the gateway's configuration, and removes the backup.
    ///
    /// # Errors
    /// [`InstallError::Changed`] when a file changed since it was planned;
    /// [`InstallError::Write`] when writing failed.
    pub fn apply(&self) -> Result<(), InstallError> {
        let (client, gateway) = (&self.backup.client_file, &self.backup.gateway_file);
        for (file, now) in [(client, &self.client_now), (gateway, &self.gateway_now)] {
            if &super::read(&file.path)? != now {
                return Err(InstallError::Changed {
                    path: file.path.clone(),
                    what: "changed while the uninstall ran; run it again".to_owned(),
                });
            }
        }
        let writes = [
            (client.path.clone(), self.client_write.clone(), false),
            (gateway.path.clone(), self.gateway_write.clone(), true),
            (self.backup_path.clone(), Write::Remove, true),
        ];
        let before = [self.client_now.clone(), self.gateway_now.clone()];
        super::write_all(&writes, &before)
    }
}

impl fmt::Display for Uninstall {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{}: {}", self.client, self.client_file().display())?;
        match (&self.client_write, self.client_exact) {
            (Write::Remove, _) => writeln!(f, "  removed: the install created it")?,
            (_, true) => writeln!(f, "  put back as it was before the install")?,
            (_, false) => writeln!(
                f,
                "  servers put back as they were before the install (the rest of the file as it is now)"
            )?,
        }
        if self.removed.is_empty() {
            writeln!(
                f,
                "  nothing to take out of {}",
                self.gateway_file().display()
            )?;
        } else {
            let names = self.removed.join(", ");
            writeln!(
                f,
                "  taken out of {}: {names}",
                self.gateway_file().display()
            )?;
        }
        if !self.needed.is_empty() {
            let names = self.needed.join(", ");
            writeln!(
                f,
                "  left there, another client's install uses them: {names}"
            )?;
        }
        write!(f, "  backup removed: {}", self.backup_path.display())
    }
}
