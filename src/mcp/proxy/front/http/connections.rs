//! The front's connections, in two rooms: connections that have not made an authenticated
//! request yet ([`HttpOptions::max_unauthenticated`](super::HttpOptions::max_unauthenticated),
//! each given [`FIRST_REQUEST_TIMEOUT`] to make one) and those that have
//! ([`HttpOptions::max_connections`](super::HttpOptions::max_connections)). A connection
//! is accepted at once, always: when its room is full the oldest idle connection in it is
//! closed, among the unauthenticated the oldest that has not sent a request's whole head
//! yet, once it has had [`GRACE`] to send one. So connections that send nothing (all peers on loopback share one address) can only
//! push one another out, never keep a client that presents the token from being served (its
//! request is waiting to be read: it is spared), and authenticated keep-alive connections
//! and streams keep their own room.
//! "Authenticated" means the request passed the front's checks: the token when one is set.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::net::TcpStream;
use tokio::sync::Notify;

use crate::mcp::proxy::sync::lock;

/// How long a new connection has to make its first authenticated request.
pub(super) const FIRST_REQUEST_TIMEOUT: Duration = Duration::from_secs(10);

/// How long a new connection is spared when room is made for another.
pub(super) const GRACE: Duration = Duration::from_millis(100);

/// Every open connection, by room.
pub(super) struct Connections {
    rooms: Mutex<Rooms>,
    max_unauthenticated: usize,
    max_authenticated: usize,
}

#[derive(Default)]
struct Rooms {
    /// Numbers connections in the order they came (the oldest is the smallest).
    next: u64,
    unauthenticated: BTreeMap<u64, Arc<Conn>>,
    authenticated: BTreeMap<u64, Arc<Conn>>,
}

/// One connection's place.
pub(super) struct Conn {
    number: u64,
    since: Instant,
    /// A second handle on an unauthenticated connection's socket, to see whether a request
    /// waits to be read (dropped when it authenticates or closes).
    spy: Mutex<Option<std::net::TcpStream>>,
    authenticated: AtomicBool,
    /// Requests in progress on it, until their response has been written.
    busy: AtomicUsize,
    /// Told when the connection is to close (pushed out of its room).
    close: Notify,
}

/// A request in progress on a connection, until dropped (with its response's body).
pub(super) struct Busy(Arc<Conn>);

impl Drop for Busy {
    fn drop(&mut self) {
        self.0.busy.fetch_sub(1, Ordering::Relaxed);
    }
}

impl Connections {
    pub(super) fn new(max_unauthenticated: usize, max_authenticated: usize) -> Connections {
        Connections {
            rooms: Mutex::default(),
            max_unauthenticated,
            max_authenticated,
        }
    }

    /// Makes room for one more unauthenticated connection, when they are as many as
    /// allowed: one is told to close, the oldest idle one that has no request's head waiting
    /// to be read, else the oldest idle one, else the oldest; never one younger than
    /// [`GRACE`] (this waits for it to be that old, so a flood is taken in at most the room
    /// per [`GRACE`] and a client has that long to send its request).
    pub(super) async fn make_room(&self) {
        loop {
            let wait = {
                let mut rooms = lock(&self.rooms);
                if rooms.unauthenticated.len() < self.max_unauthenticated {
                    return;
                }
                let room = &rooms.unauthenticated;
                let idle = || {
                    room.values()
                        .filter(|c| c.busy.load(Ordering::Relaxed) == 0)
                };
                let Some(out) = idle()
                    .find(|c| !c.has_request())
                    .or_else(|| idle().next())
                    .or_else(|| room.values().next())
                    .cloned()
                else {
                    return;
                };
                let age = out.since.elapsed();
                if age >= GRACE {
                    rooms.unauthenticated.remove(&out.number);
                    out.close.notify_one();
                    return;
                }
                GRACE - age
            };
            tokio::time::sleep(wait).await;
        }
    }

    /// A new connection's place among the unauthenticated (after [`make_room`](Self::make_room)).
    pub(super) fn admit(&self, stream: TcpStream) -> std::io::Result<(TcpStream, Arc<Conn>)> {
        let stream = stream.into_std()?;
        let spy = stream.try_clone().ok();
        let stream = TcpStream::from_std(stream)?;
        let mut rooms = lock(&self.rooms);
        rooms.next += 1;
        let conn = Arc::new(Conn {
            number: rooms.next,
            since: Instant::now(),
            spy: Mutex::new(spy),
            authenticated: AtomicBool::new(false),
            busy: AtomicUsize::new(0),
            close: Notify::new(),
        });
        rooms.unauthenticated.insert(conn.number, conn.clone());
        Ok((stream, conn))
    }

    /// Moves a connection whose request was authenticated to its room; when that is full,
    /// the oldest idle one there is told to close. `false` when every one there is busy.
    pub(super) fn authenticate(&self, conn: &Arc<Conn>) -> bool {
        if conn.authenticated.load(Ordering::Relaxed) {
            return true;
        }
        let mut rooms = lock(&self.rooms);
        if rooms.authenticated.len() >= self.max_authenticated {
            let Some(oldest) = oldest_idle(&rooms.authenticated) else {
                return false;
            };
            if let Some(old) = rooms.authenticated.remove(&oldest) {
                old.close.notify_one();
            }
        }
        // A connection pushed out meanwhile is closing: it takes no place.
        if rooms.unauthenticated.remove(&conn.number).is_some() {
            rooms.authenticated.insert(conn.number, conn.clone());
        }
        conn.authenticated.store(true, Ordering::Relaxed);
        lock(&conn.spy).take();
        true
    }

    /// Gives a closed connection's place back (and its socket: the spy's handle goes too).
    pub(super) fn leave(&self, conn: &Conn) {
        let mut rooms = lock(&self.rooms);
        rooms.unauthenticated.remove(&conn.number);
        rooms.authenticated.remove(&conn.number);
        lock(&conn.spy).take();
    }
}

impl Conn {
    /// Marks a request in progress until the returned guard is dropped.
    pub(super) fn busy(self: &Arc<Self>) -> Busy {
        self.busy.fetch_add(1, Ordering::Relaxed);
        Busy(self.clone())
    }

    /// Whether a request's whole head (up to its blank line) waits in the socket to be read.
    fn has_request(&self) -> bool {
        let mut head = [0u8; 8 << 10];
        lock(&self.spy)
            .as_ref()
            .and_then(|spy| spy.peek(&mut head).ok())
            .is_some_and(|n| head[..n].windows(4).any(|w| w == b"\r\n\r\n"))
    }

    /// Completes when the connection is to close: pushed out of its room, or still
    /// unauthenticated [`FIRST_REQUEST_TIMEOUT`] after it came.
    pub(super) async fn dismissed(&self) {
        let unauthenticated_too_long = async {
            tokio::time::sleep(FIRST_REQUEST_TIMEOUT).await;
            if self.authenticated.load(Ordering::Relaxed) {
                std::future::pending::<()>().await;
            }
        };
        tokio::select! {
            () = self.close.notified() => {}
            () = unauthenticated_too_long => {}
        }
    }
}

/// The oldest connection in `room` with no request in progress.
fn oldest_idle(room: &BTreeMap<u64, Arc<Conn>>) -> Option<u64> {
    room.iter()
        .find(|(_, c)| c.busy.load(Ordering::Relaxed) == 0)
        .map(|(n, _)| *n)
}
