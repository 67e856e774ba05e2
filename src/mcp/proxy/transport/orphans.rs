//! What a server leaves outside its process group: a daemon started with `setsid` or a double
//! fork is in a session of its own, out of reach of the signals [`process`](super::process)
//! sends the group, and once its parent is gone it would be re-parented to init and outlive
//! the server, its session and the proxy.
//!
//! On Linux a proxy that [adopts orphans](adopt_orphans) (the CLI's `toon mcp serve` and
//! `inspect` do) is its descendants' child subreaper (`PR_SET_CHILD_SUBREAPER`): an orphan
//! becomes a child of the proxy instead of init's. Each stdio server starts with [`TAG_ENV`]
//! set to a value of its own, which its descendants inherit; once the server has exited and
//! its group is cleared, the proxy's adopted children that carry its tag are stopped
//! ([`stop`]: `SIGTERM` and `SIGCONT` to each and to the group it leads, `SIGKILL` after the
//! grace), round after round, as their own children are re-parented in turn. So the HTTP
//! front's sessions stop what their own servers left, never another session's. At exit,
//! every adopted child left is stopped ([`stop_orphans`]). Adopted children that exit are
//! reaped at each `SIGCHLD`, so that none stays a zombie.
//!
//! The servers themselves are tokio's children, waited for by tokio: their ids are registered
//! while they are spawned (the registry's lock is held across the spawn, and across every
//! scan, signal and reap here), so a scan never takes a server for an orphan, nor reaps its
//! exit status, and no id is signalled after it could have been reused.
//!
//! Limits: a descendant that empties its environment (or cannot be read: not dumpable) carries
//! no tag, and is stopped when the proxy exits, not with its server. Elsewhere than Linux
//! nothing is adopted: process groups are all there is.

use std::sync::atomic::{AtomicU64, Ordering};

/// How long a process (or what is left of its group) gets to exit after `SIGTERM`, and a
/// server after its stdin closes.
pub(crate) const EXIT_GRACE: std::time::Duration = std::time::Duration::from_secs(2);

/// The variable each stdio server gets (and its descendants inherit), naming the server for
/// this proxy: `PROXY_PID-N`.
pub const TAG_ENV: &str = "TOON_MCP_SERVER_TAG";

/// A tag of its own for the next server.
pub(crate) fn new_tag() -> String {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    format!(
        "{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    )
}

/// Makes this process its descendants' child subreaper, and starts reaping the orphans it
/// adopts as they exit; `Ok(false)` where that does not exist (not Linux). Must be called
/// within a tokio runtime. A library embedding the proxy calls it only if every child of its
/// process that it did not spawn through the proxy may be reaped and stopped by it.
///
/// # Errors
/// The system refused (`prctl`).
pub fn adopt_orphans() -> std::io::Result<bool> {
    #[cfg(target_os = "linux")]
    {
        linux::adopt()?;
        Ok(true)
    }
    #[cfg(not(target_os = "linux"))]
    Ok(false)
}

/// Stops every adopted child left (`SIGTERM`, `SIGKILL` after the grace) and reaps them: for
/// the end of the proxy, once its servers are shut down
/// ([`stop_children`](super::process::stop_children) stops those first, then calls this).
/// Nothing to do unless [`adopt_orphans`] was called.
pub async fn stop_orphans() {
    #[cfg(target_os = "linux")]
    linux::stop(None).await;
}

/// Stops the adopted children tagged `tag` (what one server left behind), as
/// [`stop_orphans`] does.
pub(crate) async fn stop(tag: &str) {
    #[cfg(target_os = "linux")]
    linux::stop(Some(tag)).await;
    #[cfg(not(target_os = "linux"))]
    let _ = tag;
}

/// Runs `spawn` (a server's fork and exec) with the registry locked, and registers the
/// child's id before any scan can see it.
pub(crate) fn spawned<T>(
    spawn: impl FnOnce() -> std::io::Result<T>,
    id: impl Fn(&T) -> Option<u32>,
) -> std::io::Result<T> {
    #[cfg(target_os = "linux")]
    {
        let mut spawned = linux::registry();
        let child = spawn()?;
        if let Some(pid) = id(&child) {
            spawned.insert(pid);
        }
        Ok(child)
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = id;
        spawn()
    }
}

/// The server `pid` has been waited for (tokio reaped it): its id may now be reused.
pub(crate) fn waited(pid: u32) {
    #[cfg(target_os = "linux")]
    linux::registry().remove(&pid);
    #[cfg(not(target_os = "linux"))]
    let _ = pid;
}

/// Reaps the adopted children that have exited.
pub(crate) fn reap_exited() {
    #[cfg(target_os = "linux")]
    linux::reap();
}

#[cfg(target_os = "linux")]
mod linux {
    use std::collections::BTreeSet;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::{Mutex, MutexGuard, PoisonError};
    use std::time::Duration;

    use nix::sys::signal::{Signal, kill, killpg};
    use nix::sys::wait::{WaitPidFlag, waitpid};
    use nix::unistd::Pid;

    use super::{EXIT_GRACE, TAG_ENV};

    /// Set once this process is a subreaper: before, no child is anyone's orphan.
    static ADOPTING: AtomicBool = AtomicBool::new(false);

    /// Ids of the children spawned as servers, until tokio has waited for them.
    static SPAWNED: Mutex<BTreeSet<u32>> = Mutex::new(BTreeSet::new());

    pub(crate) fn registry() -> MutexGuard<'static, BTreeSet<u32>> {
        SPAWNED.lock().unwrap_or_else(PoisonError::into_inner)
    }

    pub(crate) fn adopt() -> std::io::Result<()> {
        nix::sys::prctl::set_child_subreaper(true)?;
        if !ADOPTING.swap(true, Ordering::SeqCst) {
            tokio::spawn(async {
                use tokio::signal::unix::{SignalKind, signal};
                let Ok(mut exits) = signal(SignalKind::child()) else {
                    return;
                };
                while exits.recv().await.is_some() {
                    reap();
                }
            });
        }
        Ok(())
    }

    /// A child of this process that it did not spawn as a server.
    struct Adopted {
        pid: Pid,
        exited: bool,
        leads_group: bool,
    }

    /// This process's adopted children, read from `/proc` (with the registry locked).
    fn adopted(spawned: &BTreeSet<u32>) -> Vec<Adopted> {
        let me = std::process::id();
        let Ok(dir) = std::fs::read_dir("/proc") else {
            return Vec::new();
        };
        dir.flatten()
            .filter_map(|entry| entry.file_name().to_str()?.parse::<u32>().ok())
            .filter(|pid| !spawned.contains(pid))
            .filter_map(|pid| {
                let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
                // After the command's `)`: state, parent, process group.
                let mut fields = stat.get(stat.rfind(')')? + 2..)?.split(' ');
                let state = fields.next()?;
                let parent: u32 = fields.next()?.parse().ok()?;
                let group: u32 = fields.next()?.parse().ok()?;
                (parent == me).then_some(Adopted {
                    pid: Pid::from_raw(i32::try_from(pid).ok()?),
                    exited: matches!(state, "Z" | "X"),
                    leads_group: group == pid,
                })
            })
            .collect()
    }

    /// Whether the process's environment has `TOON_MCP_SERVER_TAG=tag`.
    fn tagged(pid: Pid, tag: &str) -> bool {
        let Ok(environ) = std::fs::read(format!("/proc/{pid}/environ")) else {
            return false;
        };
        let want = format!("{TAG_ENV}={tag}");
        environ.split(|&b| b == 0).any(|v| v == want.as_bytes())
    }

    pub(crate) fn reap() {
        if !ADOPTING.load(Ordering::SeqCst) {
            return;
        }
        let spawned = registry();
        for child in adopted(&spawned).into_iter().filter(|c| c.exited) {
            let _ = waitpid(child.pid, Some(WaitPidFlag::WNOHANG));
        }
    }

    /// One round: the exited adopted children reaped, and those tagged `tag` (all, for
    /// `None`) signalled: `SIGTERM` and `SIGCONT` the first time they are seen, `SIGKILL`
    /// when `kill`. How many are still running.
    fn round(tag: Option<&str>, signalled: &mut BTreeSet<Pid>, kill_now: bool) -> usize {
        let spawned = registry();
        let mut running = 0;
        for child in adopted(&spawned) {
            if child.exited {
                let _ = waitpid(child.pid, Some(WaitPidFlag::WNOHANG));
                continue;
            }
            if tag.is_some_and(|tag| !tagged(child.pid, tag)) {
                continue;
            }
            running += 1;
            let signals: &[Signal] = if kill_now {
                &[Signal::SIGKILL]
            } else if signalled.insert(child.pid) {
                // A stopped process would not act on `SIGTERM`.
                &[Signal::SIGTERM, Signal::SIGCONT]
            } else {
                &[]
            };
            for &signal in signals {
                let _ = kill(child.pid, signal);
                if child.leads_group {
                    let _ = killpg(child.pid, signal);
                }
            }
        }
        running
    }

    pub(crate) async fn stop(tag: Option<&str>) {
        if !ADOPTING.load(Ordering::SeqCst) {
            return;
        }
        let started = tokio::time::Instant::now();
        let mut signalled = BTreeSet::new();
        loop {
            let kill_now = started.elapsed() >= EXIT_GRACE;
            if round(tag, &mut signalled, kill_now) == 0 || started.elapsed() >= EXIT_GRACE * 2 {
                return;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}
