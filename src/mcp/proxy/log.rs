//! The proxy's stderr: servers' lines (`[NAME] line`) and the proxy's own notes.
//!
//! stdout carries protocol only, so everything else goes to stderr — which a client may never
//! read. A blocking write there would stall whichever task logged (two chatty servers stall a
//! two-thread runtime, shutdown included), so lines go through a bounded queue to one writer
//! thread. When the queue is full a line is dropped and counted, and the count is written once
//! the writer catches up: `[proxy] N log lines dropped: stderr not read`.

use std::io::Write;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, TrySendError, sync_channel};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

/// Lines waiting for the writer, at most (about 4 MiB at the 4 KiB cap on a server's line).
const QUEUE: usize = 1024;

/// Writes `[name] line` to stderr without blocking (dropped and counted if stderr is not read).
pub fn log(name: &str, line: &str) {
    stderr().send(format!("[{name}] {line}\n"));
}

/// Writes `line` to stderr as is, without blocking.
pub fn note(line: &str) {
    stderr().send(format!("{line}\n"));
}

/// Waits at most `within` for the lines queued so far to be written; whether they were.
/// For the end of a run: lines still queued when the process exits are lost.
pub fn flush(within: Duration) -> bool {
    stderr().flush(within)
}

fn stderr() -> &'static Queue {
    static STDERR: OnceLock<Queue> = OnceLock::new();
    STDERR.get_or_init(|| Queue::start(QUEUE, stderr_writer()))
}

/// Our own handle on fd 2 where there is one: a writer blocked on a full pipe then holds no
/// lock that `eprintln!` elsewhere in the process would wait for.
fn stderr_writer() -> Box<dyn Write + Send> {
    #[cfg(unix)]
    {
        use std::os::fd::AsFd;
        if let Ok(fd) = std::io::stderr().as_fd().try_clone_to_owned() {
            return Box::new(std::fs::File::from(fd));
        }
    }
    Box::new(std::io::stderr())
}

/// A bounded queue of lines (each with its newline, written in one piece) in front of one
/// writer thread.
struct Queue {
    tx: SyncSender<String>,
    counts: Arc<Counts>,
}

#[derive(Default)]
struct Counts {
    /// Sent and not yet written (for [`Queue::flush`]).
    pending: AtomicUsize,
    /// Dropped since the writer last said so.
    dropped: AtomicU64,
}

impl Queue {
    fn start(capacity: usize, out: Box<dyn Write + Send>) -> Queue {
        let (tx, rx) = sync_channel(capacity);
        let counts = Arc::new(Counts::default());
        let writer = counts.clone();
        // If the thread cannot start, sends fail as disconnected and lines are dropped:
        // logging must never be why the proxy fails.
        let _ = std::thread::Builder::new()
            .name("toon-stderr".into())
            .spawn(move || write_lines(&rx, out, &writer));
        Queue { tx, counts }
    }

    fn send(&self, line: String) {
        self.counts.pending.fetch_add(1, Ordering::SeqCst);
        match self.tx.try_send(line) {
            Ok(()) => {}
            Err(TrySendError::Full(_)) => {
                self.counts.pending.fetch_sub(1, Ordering::SeqCst);
                self.counts.dropped.fetch_add(1, Ordering::SeqCst);
            }
            Err(TrySendError::Disconnected(_)) => {
                self.counts.pending.fetch_sub(1, Ordering::SeqCst);
            }
        }
    }

    fn flush(&self, within: Duration) -> bool {
        let deadline = Instant::now() + within;
        loop {
            let idle = self.counts.pending.load(Ordering::SeqCst) == 0
                && self.counts.dropped.load(Ordering::SeqCst) == 0;
            if idle {
                return true;
            }
            if Instant::now() >= deadline {
                return false;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }
}

/// The writer thread: writes what is queued, and after each run of lines (the queue empty
/// again) how many were dropped meanwhile. Write errors (stderr closed) are ignored: the
/// queue keeps draining so senders never wait.
fn write_lines(rx: &Receiver<String>, mut out: Box<dyn Write + Send>, counts: &Counts) {
    while let Ok(first) = rx.recv() {
        let mut next = Some(first);
        while let Some(line) = next {
            let _ = out.write_all(line.as_bytes());
            counts.pending.fetch_sub(1, Ordering::SeqCst);
            next = rx.try_recv().ok();
        }
        let dropped = counts.dropped.load(Ordering::SeqCst);
        if dropped > 0 {
            let note = format!("[proxy] {dropped} log lines dropped: stderr not read\n");
            let _ = out.write_all(note.as_bytes());
            // Only what was said: lines dropped meanwhile are told next time.
            counts.dropped.fetch_sub(dropped, Ordering::SeqCst);
        }
        let _ = out.flush();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;
    use std::sync::mpsc::{Sender, channel};

    /// Output that blocks every write until the test lets it go, like a pipe nobody reads.
    struct Stuck {
        gate: Arc<Mutex<()>>,
        written: Sender<Vec<u8>>,
    }

    impl Write for Stuck {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            let _open = self.gate.lock().unwrap();
            let _ = self.written.send(buf.to_vec());
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_stuck_writer_never_blocks_senders_and_the_drops_are_counted() {
        let gate = Arc::new(Mutex::new(()));
        let closed = gate.lock().unwrap();
        let (written, output) = channel();
        let queue = Queue::start(
            4,
            Box::new(Stuck {
                gate: gate.clone(),
                written,
            }),
        );
        // 100 lines into a queue of 4 whose writer cannot write: all sends return at once.
        let started = Instant::now();
        for i in 0..100 {
            queue.send(format!("line {i}\n"));
        }
        assert!(started.elapsed() < Duration::from_secs(10));
        assert!(!queue.flush(Duration::from_millis(50)));
        drop(closed);
        assert!(queue.flush(Duration::from_secs(30)));
        let text: String = output
            .try_iter()
            .map(|b| String::from_utf8(b).unwrap())
            .collect();
        let lines: Vec<&str> = text.lines().collect();
        // The writer took one line and blocked; four more were queued; the rest were dropped.
        let kept = lines.iter().filter(|l| l.starts_with("line ")).count();
        assert!((4..=5).contains(&kept), "{lines:?}");
        let note = format!("[proxy] {} log lines dropped: stderr not read", 100 - kept);
        assert_eq!(lines.last(), Some(&note.as_str()), "{lines:?}");
        // Lines sent after it caught up are written, and nothing more is said of drops.
        queue.send("after\n".to_owned());
        assert!(queue.flush(Duration::from_secs(30)));
        let more: Vec<u8> = output.try_iter().flatten().collect();
        assert_eq!(String::from_utf8(more).unwrap(), "after\n");
    }
}
