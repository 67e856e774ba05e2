//! A server's process, from spawn to the last of its descendants.
//!
//! On Unix the server leads its own process group, and one task per server waits for it: the
//! moment it exits — stdin closed by the proxy, stopped by [`Process::stop`], or on its own —
//! its exit status is published and whatever is left of its group is cleared (`SIGTERM`, then
//! `SIGKILL` after the grace). A server that exits on stdin EOF without waiting for its own
//! children (`npx`, `uvx`, shell wrappers) therefore leaves nothing behind, whichever way the
//! proxy ends. What it started outside its group (a `setsid` daemon) is found and stopped next,
//! on Linux, by [`orphans`](super::orphans).
//!
//! Every server is registered here from its spawn until its group is cleared, whatever holds
//! it: a toolbox stops the servers it runs, but one still starting (its `initialize` under
//! way, for a client or for `/readyz`'s warm-up) is held by no toolbox yet, and would outlive
//! the proxy. [`stop_children`], at the proxy's end, stops every one registered, and any
//! spawned after it as it starts.

use std::collections::BTreeMap;
use std::process::ExitStatus;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::orphans::{self, EXIT_GRACE};
use crate::mcp::proxy::sync::lock;

use process_wrap::tokio::ChildWrapper;
use tokio::sync::watch;

#[cfg(unix)]
mod signal {
    pub(crate) const KILL: i32 = 9;
    pub(crate) const TERM: i32 = 15;
    /// Resumes a stopped member, which would otherwise not act on `SIGTERM`; sent to the group,
    /// its failure (`ESRCH`) also says that no member is left. Its number differs by system.
    #[cfg(any(target_os = "linux", target_os = "android"))]
    pub(crate) const CONT: Option<i32> = Some(18);
    #[cfg(any(
        target_os = "macos",
        target_os = "ios",
        target_os = "freebsd",
        target_os = "netbsd",
        target_os = "openbsd",
        target_os = "dragonfly"
    ))]
    pub(crate) const CONT: Option<i32> = Some(19);
    #[cfg(not(any(
        target_os = "linux",
        target_os = "android",
        target_os = "macos",
        target_os = "ios",
        target_os = "freebsd",
        target_os = "netbsd",
        target_os = "openbsd",
        target_os = "dragonfly"
    )))]
    pub(crate) const CONT: Option<i32> = None;
}

/// What the watching task knows.
#[derive(Clone, Debug, Default)]
struct Watched {
    /// How the server ended, in words, once it has.
    exit: Option<String>,
    /// Its process group is empty (or was killed and given up on).
    cleared: bool,
}

/// A spawned server, watched by its own task.
pub(crate) struct Process {
    pid: Option<u32>,
    state: watch::Receiver<Watched>,
    stop: Arc<watch::Sender<bool>>,
}

/// The servers not cleared yet, each by a number of its own (see the module's documentation).
static LIVE: Mutex<Live> = Mutex::new(Live {
    next: 0,
    ending: false,
    watched: BTreeMap::new(),
});

struct Live {
    next: u64,
    /// Set by [`stop_children`]: a server spawned from then on is stopped at once.
    ending: bool,
    watched: BTreeMap<u64, Watching>,
}

/// What [`stop_children`] needs of a server: to tell it to stop, and to see it cleared.
struct Watching {
    stop: Arc<watch::Sender<bool>>,
    state: watch::Receiver<Watched>,
}

impl Process {
    /// Starts watching `child` (its pipes already taken), started with `tag` as its
    /// [`orphans::TAG_ENV`], and registers it until it is cleared. Must be called within a
    /// tokio runtime.
    pub(crate) fn watch(child: Box<dyn ChildWrapper>, tag: Option<String>) -> Process {
        let pid = child.id();
        let (state_tx, state) = watch::channel(Watched::default());
        let (stop, stop_rx) = watch::channel(false);
        let stop = Arc::new(stop);
        let number = {
            let mut live = lock(&LIVE);
            if live.ending {
                stop.send_replace(true);
            }
            live.next += 1;
            let watching = Watching {
                stop: stop.clone(),
                state: state.clone(),
            };
            let number = live.next;
            live.watched.insert(number, watching);
            number
        };
        tokio::spawn(reap(Group(child, false), tag, stop_rx, state_tx, number));
        Process { pid, state, stop }
    }

    /// The server's process id (its process group's, on Unix).
    pub(crate) fn pid(&self) -> Option<u32> {
        self.pid
    }

    /// How it ended (`exited with status 7`, `killed by signal 9`), if it has.
    pub(crate) fn exit(&self) -> Option<String> {
        self.state.borrow().exit.clone()
    }

    /// Waits at most `within` for it to end; how it did.
    pub(crate) async fn exit_within(&self, within: Duration) -> Option<String> {
        self.exit_watch().wait(within).await
    }

    /// A handle that waits for its end without keeping it running.
    pub(crate) fn exit_watch(&self) -> ExitWatch {
        ExitWatch(self.state.clone())
    }

    /// Has it (and its group) terminated: `SIGTERM` now, `SIGKILL` after the grace. Returns at
    /// once; the watching task does the rest.
    pub(crate) fn stop(&self) {
        self.stop.send_replace(true);
    }

    /// Waits until it has ended, its group is cleared and the orphans it left are stopped (at
    /// most about four times the grace after [`stop`](Self::stop)).
    pub(crate) async fn cleared(&self) {
        let mut state = self.state.clone();
        let _ = state.wait_for(|s| s.cleared).await;
    }
}

/// Stops every server process still registered, whatever its state (starting, running,
/// failing), and the adopted orphans left ([`orphans::stop_orphans`]); a server spawned after
/// this is stopped as it starts. Returns once each is cleared, its group and orphans too
/// (about six times the grace at most). For the end of the proxy, once its toolboxes are
/// shut down: what they still held is stopped cleanly, `SIGTERM` first.
pub async fn stop_children() {
    let deadline = tokio::time::Instant::now() + EXIT_GRACE * 6;
    loop {
        let states: Vec<watch::Receiver<Watched>> = {
            let mut live = lock(&LIVE);
            live.ending = true;
            (live.watched.values())
                .map(|w| {
                    w.stop.send_replace(true);
                    w.state.clone()
                })
                .collect()
        };
        if states.is_empty() {
            break;
        }
        let cleared =
            futures_util::future::join_all(states.into_iter().map(|mut state| async move {
                let _ = state.wait_for(|s| s.cleared).await;
            }));
        if tokio::time::timeout_at(deadline, cleared).await.is_err() {
            break;
        }
    }
    orphans::stop_orphans().await;
}

/// Waits for a [`Process`] to end, for those who do not own it.
#[derive(Clone, Debug)]
pub(crate) struct ExitWatch(watch::Receiver<Watched>);

impl ExitWatch {
    /// Waits at most `within` for the process to end; how it did.
    pub(crate) async fn wait(&self, within: Duration) -> Option<String> {
        let mut state = self.0.clone();
        let ended = tokio::time::timeout(within, state.wait_for(|s| s.exit.is_some())).await;
        ended.ok()?.ok()?.exit.clone()
    }
}

impl Drop for Process {
    /// A server nobody stopped is stopped, never left behind.
    fn drop(&mut self) {
        self.stop();
    }
}

/// The child, killed with its group if the task holding it is dropped before the group is
/// cleared (the runtime shutting down within the grace); `true` once it is.
struct Group(Box<dyn ChildWrapper>, bool);

impl Drop for Group {
    fn drop(&mut self) {
        if !self.1 {
            // On Unix the wrapper kills the group: the leader may be gone, the rest not.
            let _ = self.0.start_kill();
        }
    }
}

/// The watching task: waits for the server to exit (terminating it when told to stop), says
/// how it ended, then clears its group and stops the orphans it left.
async fn reap(
    mut child: Group,
    tag: Option<String>,
    mut stop: watch::Receiver<bool>,
    state: watch::Sender<Watched>,
    number: u64,
) {
    // Taken now: tokio forgets the id once it has waited for the leader.
    let pid = child.0.id();
    let status = tokio::select! {
        status = wait_leader(&mut child) => status,
        () = stopped(&mut stop) => terminate(&mut child).await,
    };
    if let Some(pid) = pid {
        orphans::waited(pid);
    }
    let exit = match status {
        Ok(status) => describe(status),
        Err(e) => format!("exit status unknown: {e}"),
    };
    state.send_modify(|s| s.exit = Some(exit));
    clear_group(&child).await;
    // Cleared: a later kill could only hit a group id since reused.
    child.1 = true;
    if let Some(tag) = tag {
        orphans::stop(&tag).await;
    }
    // Unregistered first: a registered server is never one already cleared.
    lock(&LIVE).watched.remove(&number);
    state.send_modify(|s| s.cleared = true);
}

/// The leader's own exit. Not process-wrap's wait for the group: the members a subreaper
/// adopted are its children too, and that wait would block until they all exit, while they
/// are stopped only after it ([`clear_group`]).
async fn wait_leader(child: &mut Group) -> std::io::Result<ExitStatus> {
    match leader(child.0.as_mut()) {
        Some(leader) => leader.wait().await,
        None => child.0.wait().await,
    }
}

/// The tokio child under the wrappers (each wrapper's `inner_mut` is the child it wraps).
fn leader(mut child: &mut dyn ChildWrapper) -> Option<&mut tokio::process::Child> {
    for _ in 0..8 {
        if (&*child as &dyn std::any::Any).is::<tokio::process::Child>() {
            return (child as &mut dyn std::any::Any).downcast_mut();
        }
        child = child.inner_mut();
    }
    None
}

/// Until told to stop (a dropped sender is a stop too).
async fn stopped(stop: &mut watch::Receiver<bool>) {
    let _ = stop.wait_for(|s| *s).await;
}

/// `SIGTERM` to the group, and `SIGKILL` if the server has not exited within the grace.
async fn terminate(child: &mut Group) -> std::io::Result<ExitStatus> {
    #[cfg(unix)]
    {
        let _ = child.0.signal(signal::TERM);
        if let Some(cont) = signal::CONT {
            let _ = child.0.signal(cont);
        }
        if let Ok(status) = tokio::time::timeout(EXIT_GRACE, wait_leader(child)).await {
            return status;
        }
    }
    let _ = child.0.start_kill();
    wait_leader(child).await
}

/// After the server's exit: `SIGTERM` to whatever is left of its group, then `SIGKILL` if
/// anything is still there after the grace.
async fn clear_group(child: &Group) {
    #[cfg(unix)]
    {
        // The group is empty: the usual case, nothing to wait for.
        if child.0.signal(signal::TERM).is_err() {
            return;
        }
        let Some(cont) = signal::CONT else {
            tokio::time::sleep(EXIT_GRACE).await;
            let _ = child.0.signal(signal::KILL);
            return;
        };
        let deadline = tokio::time::Instant::now() + EXIT_GRACE;
        while tokio::time::Instant::now() < deadline {
            // Members a subreaper adopted stay in the group until it reaps them.
            orphans::reap_exited();
            if child.0.signal(cont).is_err() {
                return;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let _ = child.0.signal(signal::KILL);
    }
    #[cfg(not(unix))]
    let _ = child;
}

/// `exited with status 7`, `killed by signal 9`.
fn describe(status: ExitStatus) -> String {
    if let Some(code) = status.code() {
        return format!("exited with status {code}");
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            return format!("killed by signal {signal}");
        }
    }
    format!("ended ({status})")
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use process_wrap::tokio::{CommandWrap, ProcessGroup};

    fn spawn(script: &str) -> Process {
        let mut cmd = tokio::process::Command::new("sh");
        cmd.args(["-c", script]).stdin(std::process::Stdio::null());
        let mut wrap = CommandWrap::from(cmd);
        wrap.wrap(ProcessGroup::leader());
        Process::watch(wrap.spawn().unwrap(), None)
    }

    fn alive(pid: u32) -> bool {
        std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .is_ok_and(|s| !s[s.rfind(')').unwrap() + 2..].starts_with('Z'))
    }

    #[tokio::test]
    async fn says_how_it_ended() {
        let wait = Duration::from_secs(30);
        let p = spawn("exit 7");
        assert_eq!(p.exit_within(wait).await.unwrap(), "exited with status 7");
        let p = spawn("kill -9 $$");
        assert_eq!(p.exit_within(wait).await.unwrap(), "killed by signal 9");
        let p = spawn("sleep 30");
        assert_eq!(p.exit_within(Duration::from_millis(10)).await, None);
        p.stop();
        assert_eq!(p.exit_within(wait).await.unwrap(), "killed by signal 15");
    }

    #[tokio::test]
    async fn clears_the_group_a_server_leaves_behind() {
        if !std::path::Path::new("/proc/self/stat").exists() {
            return;
        }
        let dir = std::env::temp_dir().join(format!("toon-process-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let pidfile = dir.join("pid");
        // The server starts a long-lived child in its group and exits without waiting for it.
        let p = spawn(&format!(
            "sleep 300 </dev/null >/dev/null 2>&1 & echo $! > {}; exit 0",
            pidfile.display()
        ));
        tokio::time::timeout(Duration::from_secs(30), p.cleared())
            .await
            .unwrap();
        let pid: u32 = std::fs::read_to_string(&pidfile)
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        let _ = std::fs::remove_dir_all(&dir);
        assert!(!alive(pid), "the server's child {pid} survived it");
    }
}
