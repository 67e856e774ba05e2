//! Response bodies: one JSON message, or a `text/event-stream` of them (Server-Sent Events,
//! each message one `event: message` whose `data` is the message on one line: a CR or LF in
//! it, JSON whitespace, is written as a space, [`sse::one_line`]).

use std::convert::Infallible;
use std::future::Future;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full, StreamBody};
use hyper::body::Frame;
use hyper::header::{self, HeaderValue};
use hyper::{Response, StatusCode};
use tokio::sync::mpsc;

use super::{Body, Forget};
use crate::mcp::proxy::transport::sse;

/// A message for an open response, and whether it ends that response.
#[derive(Debug)]
pub(super) struct Out {
    pub(super) text: String,
    pub(super) last: bool,
}

/// A comment line sent on a quiet stream, so that proxies keep it open and a client that went
/// away is noticed (its write fails and the stream is dropped).
const KEEP_ALIVE: Duration = Duration::from_secs(15);

/// One message as `application/json`.
pub(super) fn json(status: StatusCode, text: String) -> Response<Body> {
    let mut response = Response::new(Full::new(Bytes::from(text)).boxed_unsync());
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}

fn event(text: &str) -> Bytes {
    // A CR or LF would end the `data:` line, and a reader would split the message there.
    let data = sse::one_line(text.as_bytes());
    let mut frame = Vec::with_capacity(data.len() + 24);
    frame.extend_from_slice(b"event: message\ndata: ");
    frame.extend_from_slice(&data);
    frame.extend_from_slice(b"\n\n");
    Bytes::from(frame)
}

/// Where a stream's messages come from: a channel, or a session's
/// [`Inbox`](super::outbox::Inbox).
pub(super) trait Messages: Send + 'static {
    /// The next message; `None` when there will be no more.
    fn next(&mut self) -> impl Future<Output = Option<Out>> + Send;
}

impl Messages for mpsc::Receiver<Out> {
    fn next(&mut self) -> impl Future<Output = Option<Out>> + Send {
        self.recv()
    }
}

struct Writing<M> {
    first: Option<Out>,
    messages: M,
    /// A request's stream: disarmed once its response is written.
    forget: Option<Forget>,
    done: bool,
}

/// An SSE stream of `first` and then what `messages` brings, until a message marked last
/// (a request's response, § "After the JSON-RPC response has been sent, the server SHOULD
/// close the SSE stream") or until the sender is dropped (the session ended).
pub(super) fn stream(
    first: Option<Out>,
    messages: impl Messages,
    forget: Option<Forget>,
) -> Response<Body> {
    let state = Writing {
        first,
        messages,
        forget,
        done: false,
    };
    let frames = futures_util::stream::unfold(state, |mut state| async move {
        if state.done {
            return None;
        }
        let out = match state.first.take() {
            Some(out) => out,
            None => match tokio::time::timeout(KEEP_ALIVE, state.messages.next()).await {
                Ok(Some(out)) => out,
                Ok(None) => return None,
                Err(_) => {
                    let ping = Bytes::from_static(b": keep-alive\n\n");
                    return Some((Ok::<_, Infallible>(Frame::data(ping)), state));
                }
            },
        };
        if out.last {
            state.done = true;
            if let Some(forget) = state.forget.take() {
                forget.disarm();
            }
        }
        Some((Ok(Frame::data(event(&out.text))), state))
    });
    let mut response = Response::new(StreamBody::new(frames).boxed_unsync());
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    headers.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("no-store, no-transform"),
    );
    headers.insert("x-accel-buffering", HeaderValue::from_static("no"));
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_message_with_line_breaks_is_one_event_a_reader_reads_back() {
        // Valid JSON: CR and LF only as whitespace, escaped in strings.
        let text = "{\"jsonrpc\":\"2.0\",\r\"id\":7,\r\n\"result\":{\"t\":\"a\\r\\nb\"}\n}";
        let mut parser = sse::EventParser::new(1 << 20);
        let mut out = Vec::new();
        parser.feed(&event(text), &mut out);
        let [sse::SseEvent::Message(data)] = &out[..] else {
            panic!("{out:?}")
        };
        let read: serde_json::Value = serde_json::from_str(data).unwrap();
        let sent: serde_json::Value = serde_json::from_str(text).unwrap();
        assert_eq!(read, sent);
    }
}
