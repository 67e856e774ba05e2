//! The HTTP+SSE transport (MCP 2024-11-05, `basic/transports` § HTTP with SSE;
//! deprecated since 2025-03-26, still offered by servers and clients): the client GETs the
//! configured URL, an event stream whose first event is `endpoint`, the URI to POST messages
//! to; every message from the server arrives on that stream as a `message` event.
//!
//! The endpoint must be on the stream's own origin (scheme, host and port), as the official
//! SDK's client requires: a server cannot send the client's messages, with their headers,
//! elsewhere. The connection ends when the stream does (the session lives as long as it); the
//! toolbox reconnects.

use std::sync::Arc;
use std::time::Duration;

use hyper::body::Incoming;
use hyper::{Method, Uri};
use tokio::sync::{mpsc, oneshot};

use super::{
    ACCEPT_BOTH, EVENT_STREAM, Failed, Shared, describe, is_event_stream, sse, text_frame,
};
use crate::mcp::proxy::sync::lock;
use crate::mcp::proxy::transport::wire::{Bad, Kind, MAX_MESSAGE_BYTES, Message, head_id};

/// How long the server may take to name its endpoint (the start-up timeout bounds it too).
const ENDPOINT_WAIT: Duration = Duration::from_secs(30);

/// Opens the event stream, waits for the endpoint, then POSTs what the peer writes.
pub(super) async fn run(shared: Arc<Shared>, mut outgoing: mpsc::Receiver<String>) {
    let response = match shared.send(Method::GET, None, EVENT_STREAM, None).await {
        Ok(r) => r,
        Err(Failed::Unreachable(why)) => {
            return shared.end(format!("cannot reach the server: {why}"));
        }
        Err(Failed::Other(why)) => {
            return shared.end(format!("the event stream could not be opened: {why}"));
        }
    };
    let status = response.status();
    if !status.is_success() || !is_event_stream(&response) {
        return shared.end(format!(
            "the server did not open an event stream (HTTP {status}); is this an SSE endpoint?"
        ));
    }
    let (endpoint_tx, endpoint_rx) = oneshot::channel();
    let reader = tokio::spawn(read(shared.clone(), response.into_body(), endpoint_tx));
    *lock(&shared.listening) = Some(reader.abort_handle());
    let endpoint = match tokio::time::timeout(ENDPOINT_WAIT, endpoint_rx).await {
        Ok(Ok(endpoint)) => endpoint,
        Ok(Err(_)) => return,
        Err(_) => {
            return shared.end(format!(
                "the server named no endpoint within {} s",
                ENDPOINT_WAIT.as_secs()
            ));
        }
    };
    let endpoint = Arc::new(endpoint);
    while let Some(text) = outgoing.recv().await {
        let Ok(message) = Message::parse(text) else {
            continue;
        };
        let (this, to) = (shared.clone(), endpoint.clone());
        match message.kind() {
            Kind::Request { id, method } => {
                // The answer comes on the stream; a refusal is the request's answer.
                let (id, method) = (id.to_owned(), method.to_owned());
                tokio::spawn(async move {
                    let text = message.text().to_owned();
                    match this
                        .send_to(&to, Method::POST, Some(text), ACCEPT_BOTH, None, &[])
                        .await
                    {
                        Ok(r) if r.status().is_success() => {
                            let _ = super::read_body(r.into_body(), super::ERROR_BODY).await;
                        }
                        Ok(r) => this.refused(&id, &method, r).await,
                        Err(Failed::Unreachable(why)) => {
                            this.end(format!("cannot reach the server: {why}"));
                        }
                        Err(Failed::Other(why)) => {
                            let message = format!("the HTTP request for {method} failed: {why}");
                            this.fail(&id, super::code::INTERNAL_ERROR, &message).await;
                        }
                    }
                });
            }
            _ => {
                let what = message.method().unwrap_or("a response").to_owned();
                let text = message.text().to_owned();
                // In order: `notifications/initialized` before what follows it.
                this.post_message_to(&to, &what, text).await;
            }
        }
    }
    shared.end("closed by the proxy".to_owned());
}

/// Reads the event stream: the first `endpoint` event is sent to `endpoint`, `message` events
/// go to the peer. The connection ends with the stream.
async fn read(shared: Arc<Shared>, mut body: Incoming, endpoint: oneshot::Sender<Uri>) {
    use http_body_util::BodyExt;
    let mut parser = sse::EventParser::new(MAX_MESSAGE_BYTES);
    let mut endpoint = Some(endpoint);
    let mut events = Vec::new();
    let reason = loop {
        let chunk = match body.frame().await {
            None => break "the server closed its event stream".to_owned(),
            Some(Err(e)) => break format!("the event stream broke: {}", describe(&e)),
            Some(Ok(frame)) => match frame.into_data() {
                Ok(data) => data,
                Err(_) => continue,
            },
        };
        parser.feed(&chunk, &mut events);
        for event in events.drain(..) {
            let frame = match event {
                sse::SseEvent::Named { name, data } if name == "endpoint" => {
                    let Some(tx) = endpoint.take() else { continue };
                    match resolve(&shared.uri, &data) {
                        Some(uri) => {
                            let _ = tx.send(uri);
                        }
                        None => {
                            return shared.end(
                                "the server's endpoint is not a URL on its own origin".to_owned(),
                            );
                        }
                    }
                    continue;
                }
                sse::SseEvent::Named { .. } => continue,
                sse::SseEvent::Message(text) => text_frame(text.as_bytes(), None),
                sse::SseEvent::TooLong { size, head } => Err(Bad::TooLong {
                    size,
                    id: head_id(&head),
                }),
            };
            if !shared.deliver(frame).await {
                return;
            }
        }
    };
    shared.end(reason);
}

/// The endpoint an `endpoint` event names (absolute, or relative to the stream's URL), if it
/// is on the stream's origin.
fn resolve(base: &Uri, endpoint: &str) -> Option<Uri> {
    let endpoint = endpoint.trim();
    let uri: Uri = if endpoint.starts_with("http://") || endpoint.starts_with("https://") {
        endpoint.parse().ok()?
    } else {
        let path = if endpoint.starts_with('/') {
            endpoint.to_owned()
        } else {
            let dir = base.path();
            format!("{}{endpoint}", &dir[..dir.rfind('/').map_or(0, |i| i + 1)])
        };
        Uri::builder()
            .scheme(base.scheme()?.clone())
            .authority(base.authority()?.clone())
            .path_and_query(path)
            .build()
            .ok()?
    };
    let same = uri.scheme() == base.scheme()
        && uri.host().map(str::to_ascii_lowercase) == base.host().map(str::to_ascii_lowercase)
        && uri.port_u16() == base.port_u16();
    if !same {
        return None;
    }
    // On the stream's own authority: credentials an absolute endpoint names never reach
    // hyper, whose pool prints authorities (the stream's went into an Authorization header).
    Uri::builder()
        .scheme(base.scheme()?.clone())
        .authority(base.authority()?.clone())
        .path_and_query(uri.path_and_query().map_or("/", |p| p.as_str()))
        .build()
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoints_resolve_on_the_streams_origin_only() {
        let base: Uri = "http://127.0.0.1:3001/sse".parse().unwrap();
        let ok = |e: &str| resolve(&base, e).map(|u| u.to_string());
        assert_eq!(
            ok("/message?sessionId=abc").as_deref(),
            Some("http://127.0.0.1:3001/message?sessionId=abc")
        );
        assert_eq!(
            ok("messages?x=1").as_deref(),
            Some("http://127.0.0.1:3001/messages?x=1")
        );
        assert_eq!(
            ok("http://127.0.0.1:3001/m").as_deref(),
            Some("http://127.0.0.1:3001/m")
        );
        assert_eq!(
            ok("http://u:secret@127.0.0.1:3001/m").as_deref(),
            Some("http://127.0.0.1:3001/m")
        );
        assert_eq!(ok("http://evil.example/m"), None);
        assert_eq!(ok("https://127.0.0.1:3001/m"), None);
        assert_eq!(ok("http://127.0.0.1:3002/m"), None);
    }
}
