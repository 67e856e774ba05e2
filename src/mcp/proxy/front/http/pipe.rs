//! A [`serve`](crate::mcp::proxy::front::serve()) front over an in-memory pipe: what an HTTP session, or the shared front of
//! 2026-07-28 stateless requests, talks to as a stdio client would (one message per line).

use std::future::Future;
use std::sync::{Arc, Mutex, Weak};

use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, ReadHalf, WriteHalf};
use tokio::sync::Mutex as AsyncMutex;
use tokio::task::JoinHandle;

use crate::mcp::proxy::front::serve::{Mode, serve_with};
use crate::mcp::proxy::servers::toolbox::Toolbox;
use crate::mcp::proxy::sync::lock;
use crate::mcp::proxy::transport::wire::MAX_MESSAGE_BYTES;

/// Bytes buffered in each direction of the pipe.
const PIPE_BYTES: usize = 256 << 10;

/// The longest line the front reads from the pipe: a body at the HTTP front's limit
/// ([`MAX_MESSAGE_BYTES`]) plus what the stateless front's remapping may add to it (an id and
/// a progress token of up to 20 digits each, where the client's could be one character).
const PIPE_LINE_BYTES: usize = MAX_MESSAGE_BYTES + 64;

/// The front's input, and its two tasks: the front, and the router of what it writes.
pub(super) struct FrontPipe {
    /// `None` once closed.
    input: AsyncMutex<Option<WriteHalf<DuplexStream>>>,
    tasks: Mutex<Vec<JoinHandle<()>>>,
}

/// The other ends of a new pipe, for [`FrontPipe::run`].
pub(super) struct FrontEnds {
    front: DuplexStream,
    output: ReadHalf<DuplexStream>,
}

impl FrontPipe {
    /// A pipe with nothing running on it yet: its owner keeps it, then [`run`](Self::run)s
    /// the front once it can be reached by a `Weak` (so that no line the front writes ever
    /// finds it missing).
    pub(super) fn new() -> (FrontPipe, FrontEnds) {
        let (ours, front) = tokio::io::duplex(PIPE_BYTES);
        let (output, input) = tokio::io::split(ours);
        let pipe = FrontPipe {
            input: AsyncMutex::new(Some(input)),
            tasks: Mutex::default(),
        };
        (pipe, FrontEnds { front, output })
    }

    /// Starts `serve` on `toolbox` in `mode` at the pipe's other end (a 2026-07-28
    /// request's log messages naming it when `related`: see `serve_with`). Each line the
    /// front writes goes to `route` with the owner (while it lives); `ended` runs on the
    /// owner if the front ends by itself.
    pub(super) fn run<T, R, F>(
        &self,
        ends: FrontEnds,
        (toolbox, mode, related): (Arc<Toolbox>, Mode, bool),
        owner: Weak<T>,
        route: R,
        ended: fn(&T),
    ) where
        T: Send + Sync + 'static,
        R: Fn(Arc<T>, String) -> F + Send + 'static,
        F: Future<Output = ()> + Send,
    {
        let (front_read, front_write) = tokio::io::split(ends.front);
        let front = {
            let owner = owner.clone();
            tokio::spawn(async move {
                let lines = PIPE_LINE_BYTES;
                let _ = serve_with(toolbox, mode, front_read, front_write, lines, related).await;
                if let Some(owner) = owner.upgrade() {
                    ended(&owner);
                }
            })
        };
        let router = tokio::spawn(async move {
            let mut lines = BufReader::new(ends.output);
            let mut line = Vec::new();
            loop {
                line.clear();
                match lines.read_until(b'\n', &mut line).await {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {}
                }
                let Some(owner) = owner.upgrade() else { break };
                let text = String::from_utf8_lossy(&line).trim_end().to_owned();
                if !text.is_empty() {
                    route(owner, text).await;
                }
            }
        });
        lock(&self.tasks).extend([front, router]);
    }

    /// Hands one message (a JSON object, any newlines in it already whitespace) to the front;
    /// `false` once the pipe is closed or broken.
    pub(super) async fn send(&self, line: &str) -> bool {
        let mut input = self.input.lock().await;
        let Some(input) = input.as_mut() else {
            return false;
        };
        let mut bytes = Vec::with_capacity(line.len() + 1);
        bytes.extend_from_slice(line.as_bytes());
        bytes.push(b'\n');
        input.write_all(&bytes).await.is_ok() && input.flush().await.is_ok()
    }

    /// Closes the front's input (the front ends as a stdio front does at end of input);
    /// `false` when it was already closed.
    pub(super) async fn close_input(&self) -> bool {
        match self.input.lock().await.take() {
            Some(mut input) => {
                let _ = input.shutdown().await;
                true
            }
            None => false,
        }
    }

    /// Stops both tasks.
    pub(super) fn abort(&self) {
        for task in lock(&self.tasks).drain(..) {
            task.abort();
        }
    }
}
