//! The proxy's log: `tracing` events, and [`StderrLayer`], the stderr writer `toon mcp serve`
//! and `toon mcp inspect` install (a program on the library can install the same).
//!
//! The library never writes to stderr itself: what it has to say are `tracing` events, and a
//! program that installs no subscriber hears none of them. Two targets:
//! - [`SERVER`] (`toon::mcp::server`), at `INFO`, with `server = NAME`: a server's own words,
//!   each line it writes on its stderr and each of its `notifications/message` log messages
//!   (as `LEVEL: DATA`).
//! - [`PROXY`] (`toon::mcp::proxy`): the proxy's notes, with `server = NAME` when about one
//!   server: `INFO` for what happened (a server reconnected, an HTTP session opened or
//!   closed), `WARN` for what failed, was refused or dropped, `ERROR` for a server that is
//!   unavailable.
//!
//! No event carries a secret: no token, header or configured `env` value, and an HTTP session
//! id only by its first 8 characters.
//!
//! [`StderrLayer`] writes each event as one line: `[NAME] message` for an event with a
//! `server`, the message alone otherwise (the proxy's lines as they always were), or, when
//! [`detailed`](StderrLayer::detailed), after the level and target and followed by the
//! event's other fields. stdout carries protocol only, so these lines go to stderr, which a
//! client may never read. A blocking write there would stall whichever task logged (two
//! chatty servers stall a two-thread runtime, shutdown included), so lines go through a
//! bounded queue to one writer thread. When the queue is full (1024 lines, or 4 MiB of them) a
//! line is dropped and counted, and the count is written once the writer catches up:
//! `[proxy] N log lines dropped: stderr not read`.
//!
//! A line is one line whatever its text says: control characters (CR, LF, tab, ESC, the rest
//! of C0 and C1, DEL) and the Unicode line and paragraph separators are written escaped
//! (`\n`, `\u{1b}`), so a server's words cannot end its line and start one that looks like
//! the proxy's, nor move a terminal's cursor. A message longer than 16 KiB is cut there, and
//! its line ends with `… [N bytes cut]`.
//!
//! ```
//! use tracing_subscriber::layer::SubscriberExt;
//! use toon::mcp::proxy::log::StderrLayer;
//!
//! let stderr = StderrLayer::new();
//! let subscriber = tracing_subscriber::registry().with(stderr.clone());
//! tracing::subscriber::with_default(subscriber, || {
//!     // What a server wrote on its stderr: `[git] ready` on ours.
//!     tracing::info!(target: toon::mcp::proxy::log::SERVER, server = "git", "ready");
//! });
//! // At exit: lines still queued are lost, so give them a moment (not forever).
//! stderr.flush(std::time::Duration::from_secs(1));
//! ```

use std::fmt::{Debug, Write as _};
use std::io::Write;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, TrySendError, sync_channel};
use std::time::{Duration, Instant};

use tracing::field::{Field, Visit};
use tracing::{Event, Subscriber};
use tracing_subscriber::layer::{Context, Layer};

/// The target of a server's own words: its stderr lines and its log messages.
pub const SERVER: &str = "toon::mcp::server";

/// The target of the proxy's own notes.
pub const PROXY: &str = "toon::mcp::proxy";

/// Lines waiting for the writer, at most (about 4 MiB at the 4 KiB cap on a server's line).
const QUEUE: usize = 1024;

/// Bytes waiting for the writer, all lines together, at most: the line bound alone let 150
/// log messages of 4 MiB each, with stderr unread, hold 700 MiB. The same 4 MiB the line
/// bound means for lines of a server's stderr.
const QUEUE_BYTES: usize = 4 << 20;

/// The most bytes of an event's message a line keeps (its other fields, in detailed lines,
/// as many again); the rest is cut and counted on the line. Far below `QUEUE_BYTES`, so any
/// line fits an empty queue, and above the 4 KiB of a server's stderr line even escaped.
const LINE_BYTES: usize = 16 << 10;

/// The most bytes of a server's name a line keeps (a name is a configuration key).
const NAME_BYTES: usize = 256;

/// A `tracing_subscriber` layer that writes events to stderr, one line each, without ever
/// blocking the task that logs (see the [module](self)). Clones share one queue and writer
/// thread: keep one to [`flush`](Self::flush) at exit.
#[derive(Clone)]
pub struct StderrLayer {
    queue: Arc<Queue>,
    detailed: bool,
}

impl StderrLayer {
    /// A layer writing to this process's stderr, through a writer thread of its own.
    pub fn new() -> StderrLayer {
        StderrLayer::to(QUEUE, stderr_writer())
    }

    fn to(capacity: usize, out: Box<dyn Write + Send>) -> StderrLayer {
        StderrLayer {
            queue: Arc::new(Queue::start(capacity, QUEUE_BYTES, out)),
            detailed: false,
        }
    }

    /// With `detailed`, each line starts with the event's level and target, and ends with its
    /// fields other than `message` and `server` (`key=value`).
    pub fn detailed(mut self, detailed: bool) -> StderrLayer {
        self.detailed = detailed;
        self
    }

    /// Waits at most `within` for the lines queued so far to be written; whether they were.
    /// For the end of a run: lines still queued when the process exits are lost.
    pub fn flush(&self, within: Duration) -> bool {
        self.queue.flush(within)
    }

    /// `event` as its line, with the newline: one line, whatever its fields hold.
    fn line(&self, event: &Event<'_>) -> String {
        let mut fields = Fields::default();
        event.record(&mut fields);
        let mut line = String::new();
        if self.detailed {
            let meta = event.metadata();
            let _ = write!(line, "{:>5} {}: ", meta.level(), meta.target());
        }
        if let Some(server) = &fields.server {
            let _ = write!(line, "[{}] ", server.text);
        }
        fields.message.end_into(&mut line);
        if self.detailed {
            fields.rest.end_into(&mut line);
        }
        line.push('\n');
        line
    }
}

impl Default for StderrLayer {
    fn default() -> StderrLayer {
        StderrLayer::new()
    }
}

impl Debug for StderrLayer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StderrLayer")
            .field("detailed", &self.detailed)
            .finish_non_exhaustive()
    }
}

impl<S: Subscriber> Layer<S> for StderrLayer {
    fn on_event(&self, event: &Event<'_>, _: Context<'_, S>) {
        self.queue.send(self.line(event));
    }
}

/// An event's fields as its line shows them, escaped and bounded ([`Escaped`]).
struct Fields {
    message: Escaped,
    server: Option<Escaped>,
    /// ` key=value` for each other field.
    rest: Escaped,
}

impl Default for Fields {
    fn default() -> Fields {
        Fields {
            message: Escaped::within(LINE_BYTES),
            server: None,
            rest: Escaped::within(LINE_BYTES),
        }
    }
}

impl Visit for Fields {
    fn record_str(&mut self, field: &Field, value: &str) {
        match field.name() {
            "message" => {
                let _ = self.message.write_str(value);
            }
            "server" => self.server = Some(Escaped::of(value, NAME_BYTES)),
            name => {
                let _ = write!(self.rest, " {name}={value:?}");
            }
        }
    }

    fn record_debug(&mut self, field: &Field, value: &dyn Debug) {
        match field.name() {
            // The message's `format_args!`, whose `Debug` is its text: formatted straight
            // into the bounded text, so a 4 MiB message is never copied whole.
            "message" => {
                let _ = write!(self.message, "{value:?}");
            }
            "server" => self.server = Some(Escaped::of(&format!("{value:?}"), NAME_BYTES)),
            name => {
                let _ = write!(self.rest, " {name}={value:?}");
            }
        }
    }
}

/// Text for a line, written through [`std::fmt::Write`]: each character that could end the
/// line or drive a terminal escaped ([`escape`]), and at most `limit` bytes kept; from the
/// first character that would pass it on, nothing more is kept, only counted.
struct Escaped {
    text: String,
    limit: usize,
    /// Bytes of the text given that were not kept.
    cut: usize,
}

impl Escaped {
    fn within(limit: usize) -> Escaped {
        Escaped {
            text: String::new(),
            limit,
            cut: 0,
        }
    }

    fn of(text: &str, limit: usize) -> Escaped {
        let mut escaped = Escaped::within(limit);
        let _ = escaped.write_str(text);
        escaped
    }

    /// Appends the text to `line`, and `… [N bytes cut]` if some was cut.
    fn end_into(&self, line: &mut String) {
        line.push_str(&self.text);
        if self.cut > 0 {
            let _ = write!(line, "… [{} bytes cut]", self.cut);
        }
    }
}

impl std::fmt::Write for Escaped {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        // The common case, plain text that fits, in one copy.
        if self.cut == 0 && self.text.len() + s.len() <= self.limit && !s.chars().any(escaped) {
            self.text.push_str(s);
            return Ok(());
        }
        for c in s.chars() {
            if self.cut == 0 {
                let at = self.text.len();
                escape(c, &mut self.text);
                if self.text.len() <= self.limit {
                    continue;
                }
                self.text.truncate(at);
            }
            self.cut += c.len_utf8();
        }
        Ok(())
    }
}

/// Whether `c` is written escaped: a control character (C0, DEL, C1: Unicode's `Cc`) or a
/// line or paragraph separator, which some readers take for a line break.
fn escaped(c: char) -> bool {
    c.is_control() || matches!(c, '\u{2028}' | '\u{2029}')
}

/// Appends `c` to `out`, visibly if [`escaped`]: `\n`, `\r`, `\t`, else `\u{HEX}`.
fn escape(c: char, out: &mut String) {
    match c {
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        c if escaped(c) => {
            let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
        }
        c => out.push(c),
    }
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

/// A queue of lines (each with its newline, written in one piece) in front of one writer
/// thread, bounded by lines and by bytes.
struct Queue {
    tx: SyncSender<String>,
    counts: Arc<Counts>,
    /// The most bytes sent and not yet written.
    max_bytes: usize,
}

#[derive(Default)]
struct Counts {
    /// Sent and not yet written (for [`Queue::flush`]).
    pending: AtomicUsize,
    /// The bytes of those lines, the one being written included.
    bytes: AtomicUsize,
    /// Dropped since the writer last said so.
    dropped: AtomicU64,
}

impl Queue {
    fn start(capacity: usize, max_bytes: usize, out: Box<dyn Write + Send>) -> Queue {
        let (tx, rx) = sync_channel(capacity);
        let counts = Arc::new(Counts::default());
        let writer = counts.clone();
        // If the thread cannot start, sends fail as disconnected and lines are dropped:
        // logging must never be why the proxy fails.
        let _ = std::thread::Builder::new()
            .name("toon-stderr".into())
            .spawn(move || write_lines(&rx, out, &writer));
        Queue {
            tx,
            counts,
            max_bytes,
        }
    }

    fn send(&self, line: String) {
        let len = line.len();
        // Its bytes are taken before it is queued, so that senders racing each other never
        // hold more than `max_bytes` together.
        let before = self.counts.bytes.fetch_add(len, Ordering::SeqCst);
        if before + len > self.max_bytes {
            self.counts.bytes.fetch_sub(len, Ordering::SeqCst);
            self.dropped();
            return;
        }
        self.counts.pending.fetch_add(1, Ordering::SeqCst);
        let sent = self.tx.try_send(line);
        if let Err(e) = sent {
            self.counts.pending.fetch_sub(1, Ordering::SeqCst);
            self.counts.bytes.fetch_sub(len, Ordering::SeqCst);
            if let TrySendError::Full(_) = e {
                self.dropped();
            }
        }
    }

    /// Counts a line dropped for want of room (said by the writer, and in the metrics).
    fn dropped(&self) {
        self.counts.dropped.fetch_add(1, Ordering::SeqCst);
        crate::mcp::proxy::metrics::global().log_line_dropped();
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
            counts.bytes.fetch_sub(line.len(), Ordering::SeqCst);
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
    use tracing_subscriber::layer::SubscriberExt;

    /// Output that keeps what is written, for the test to read.
    #[derive(Clone, Default)]
    struct CapturedOutput(Arc<Mutex<Vec<u8>>>);

    impl Write for CapturedOutput {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    /// What `layer` writes for the events `emit` sends.
    fn written(layer: StderrLayer, kept: &CapturedOutput, emit: impl FnOnce()) -> String {
        let subscriber = tracing_subscriber::registry().with(layer.clone());
        tracing::subscriber::with_default(subscriber, emit);
        assert!(layer.flush(Duration::from_secs(30)));
        String::from_utf8(kept.0.lock().unwrap().clone()).unwrap()
    }

    fn some_events() {
        tracing::info!(target: SERVER, server = "git", "Serving on stdio…");
        let why = "it exited (code 3)";
        tracing::error!(target: PROXY, server = "git", "unavailable: {why}");
        tracing::info!(target: PROXY, session = "1a2b3c4d", "toon: http: session 1a2b3c4d closed");
    }

    #[test]
    fn a_server_s_line_is_its_name_in_brackets_and_the_line_and_a_note_is_as_said() {
        let kept = CapturedOutput::default();
        let text = written(
            StderrLayer::to(8, Box::new(kept.clone())),
            &kept,
            some_events,
        );
        assert_eq!(
            text,
            "[git] Serving on stdio…\n[git] unavailable: it exited (code 3)\n\
             toon: http: session 1a2b3c4d closed\n"
        );
    }

    #[test]
    fn detailed_lines_say_level_target_and_the_other_fields() {
        let kept = CapturedOutput::default();
        let layer = StderrLayer::to(8, Box::new(kept.clone())).detailed(true);
        let text = written(layer, &kept, some_events);
        assert_eq!(
            text,
            " INFO toon::mcp::server: [git] Serving on stdio…\n\
             ERROR toon::mcp::proxy: [git] unavailable: it exited (code 3)\n \
             INFO toon::mcp::proxy: toon: http: session 1a2b3c4d closed session=\"1a2b3c4d\"\n"
        );
    }

    #[test]
    fn events_that_find_the_queue_full_are_dropped_counted_and_said() {
        let gate = Arc::new(Mutex::new(()));
        let closed = gate.lock().unwrap();
        let (written, output) = channel();
        let stuck = Stuck {
            gate: gate.clone(),
            written,
        };
        let layer = StderrLayer::to(4, Box::new(stuck));
        let subscriber = tracing_subscriber::registry().with(layer.clone());
        let started = Instant::now();
        tracing::subscriber::with_default(subscriber, || {
            for i in 0..50 {
                tracing::info!(target: SERVER, server = "chatty", "line {i}");
            }
        });
        // The writer cannot write, and no event waited for it.
        assert!(started.elapsed() < Duration::from_secs(10));
        assert!(!layer.flush(Duration::from_millis(50)));
        drop(closed);
        assert!(layer.flush(Duration::from_secs(30)));
        let text: String = output
            .try_iter()
            .map(|b| String::from_utf8(b).unwrap())
            .collect();
        let lines: Vec<&str> = text.lines().collect();
        let kept = lines
            .iter()
            .filter(|l| l.starts_with("[chatty] line "))
            .count();
        assert!((4..=5).contains(&kept), "{lines:?}");
        let note = format!("[proxy] {} log lines dropped: stderr not read", 50 - kept);
        assert_eq!(lines.last(), Some(&note.as_str()), "{lines:?}");
    }

    #[test]
    fn a_line_is_one_line_whatever_its_text_holds() {
        let kept = CapturedOutput::default();
        let text = written(StderrLayer::to(8, Box::new(kept.clone())), &kept, || {
            // A log message forging the proxy's lines, a terminal's escapes, every kind
            // of control character.
            let data = "info: ok\n[other] unavailable: forged\r\ntoon: http: session x opened";
            tracing::info!(target: SERVER, server = "evil", "{data}");
            let controls = "a\u{1b}[2Jb\u{0}c\u{7f}d\u{85}e\u{9b}f\u{2028}g\th";
            tracing::info!(target: SERVER, server = "evil", "{controls}");
            // A name is a configuration key: escaped as well.
            tracing::info!(target: SERVER, server = "a\n[b", "fine");
        });
        assert_eq!(
            text,
            "[evil] info: ok\\n[other] unavailable: forged\\r\\ntoon: http: session x opened\n\
             [evil] a\\u{1b}[2Jb\\u{0}c\\u{7f}d\\u{85}e\\u{9b}f\\u{2028}g\\th\n\
             [a\\n[b] fine\n"
        );
        assert_eq!(text.lines().count(), 3);
    }

    #[test]
    fn detailed_fields_stay_on_their_line_too() {
        let kept = CapturedOutput::default();
        let layer = StderrLayer::to(8, Box::new(kept.clone())).detailed(true);
        let text = written(layer, &kept, || {
            // As `Display`, the field's text comes unquoted and unescaped to the layer.
            tracing::warn!(target: PROXY, why = %"x\ny", "note");
        });
        assert_eq!(text, " WARN toon::mcp::proxy: note why=x\\ny\n");
    }

    #[test]
    fn a_long_message_is_cut_and_says_how_much() {
        let kept = CapturedOutput::default();
        let long = "a".repeat(3 * LINE_BYTES);
        // An escape that would pass the bound is not split: cut whole from there on.
        let escapes = format!("{}\u{1b}z", "b".repeat(LINE_BYTES - 3));
        let text = written(StderrLayer::to(8, Box::new(kept.clone())), &kept, || {
            tracing::info!(target: SERVER, server = "big", "{long}");
            tracing::info!(target: SERVER, server = "big", "{escapes}");
        });
        let lines: Vec<&str> = text.lines().collect();
        let first = format!(
            "[big] {}… [{} bytes cut]",
            "a".repeat(LINE_BYTES),
            2 * LINE_BYTES
        );
        assert_eq!(lines[0], first);
        let second = format!("[big] {}… [2 bytes cut]", "b".repeat(LINE_BYTES - 3));
        assert_eq!(lines[1], second);
        assert_eq!(lines.len(), 2);
    }

    #[test]
    fn queued_bytes_stay_within_their_bound_and_the_drops_are_counted() {
        let gate = Arc::new(Mutex::new(()));
        let closed = gate.lock().unwrap();
        let (written, output) = channel();
        let stuck = Stuck {
            gate: gate.clone(),
            written,
        };
        // Room for 1024 lines but 1 MiB, lines of 256 KiB (the newline included), and a
        // writer that cannot write: as the attack's 150 log messages of 4 MiB did.
        let max = 1 << 20;
        let queue = Queue::start(1024, max, Box::new(stuck));
        let line = format!("{}\n", "x".repeat((256 << 10) - 1));
        for _ in 0..150 {
            queue.send(line.clone());
            let queued = queue.counts.bytes.load(Ordering::SeqCst);
            assert!(queued <= max, "{queued} bytes queued");
        }
        // Four lines fill the bound (the one the writer holds counts until written).
        assert_eq!(queue.counts.pending.load(Ordering::SeqCst), 4);
        assert_eq!(queue.counts.dropped.load(Ordering::SeqCst), 146);
        drop(closed);
        assert!(queue.flush(Duration::from_secs(30)));
        assert_eq!(queue.counts.bytes.load(Ordering::SeqCst), 0);
        let text: String = output
            .try_iter()
            .map(|b| String::from_utf8(b).unwrap())
            .collect();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.iter().filter(|l| l.starts_with('x')).count(), 4);
        assert_eq!(
            lines.last(),
            Some(&"[proxy] 146 log lines dropped: stderr not read")
        );
    }

    /// This test binary again, running only `child`, with `CHILD` set to `mode`: its stderr.
    #[cfg(unix)]
    fn child_stderr(mode: &str) -> String {
        let path = module_path!().split_once("::").map_or("", |(_, p)| p);
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .args(["--exact", &format!("{path}::child"), "--nocapture"])
            .env(CHILD, mode)
            .output()
            .unwrap();
        let stderr = String::from_utf8(out.stderr).unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{stdout}{stderr}");
        assert!(stdout.contains("1 passed"), "{stdout}");
        stderr
    }

    const CHILD: &str = "TOON_LOG_TEST_CHILD";

    #[cfg(unix)]
    #[test]
    fn without_a_subscriber_the_library_writes_nothing_to_stderr() {
        // With the layer installed, the server's line and the proxy's note are heard...
        let heard = child_stderr("layer");
        assert!(heard.contains("[noisy] a line on stderr\n"), "{heard}");
        assert!(heard.contains("[noisy] unavailable: "), "{heard}");
        // ...and without, the same run says nothing.
        assert_eq!(child_stderr("none"), "");
    }

    /// Run by the test above only (in a process of its own): the library starts a server that
    /// writes a line on its stderr and exits.
    #[cfg(unix)]
    #[test]
    fn child() {
        use crate::mcp::proxy::{Config, Options, Toolbox};
        let Ok(mode) = std::env::var(CHILD) else {
            return;
        };
        let layer = (mode == "layer").then(|| {
            let layer = StderrLayer::new();
            let subscriber = tracing_subscriber::registry().with(layer.clone());
            tracing::subscriber::set_global_default(subscriber).unwrap();
            layer
        });
        let config = Config::from_str(
            r#"{"mcpServers": {"noisy": {"command": "sh",
                "args": ["-c", "echo a line on stderr >&2; sleep 0.2; exit 3"]}}}"#,
        )
        .unwrap();
        let runtime = tokio::runtime::Runtime::new().unwrap();
        runtime.block_on(async {
            let toolbox = Toolbox::start(&config, Options::default());
            toolbox.ready().await;
            // The stderr line is read by then; time for it to be logged as well.
            tokio::time::sleep(Duration::from_millis(300)).await;
            toolbox.shutdown().await;
        });
        if let Some(layer) = layer {
            assert!(layer.flush(Duration::from_secs(30)));
        }
    }

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
            QUEUE_BYTES,
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
