//! What operators and their tools read beside MCP: `/healthz` (200 while the process serves),
//! `/readyz` (200 once every configured server has started or been reported unavailable,
//! 503 before; a JSON body names each server's state), `/metrics` (the Prometheus text
//! format, [`metrics`]), and on the HTTP front `/status` (the status page, `status_page.rs`).
//! On the HTTP front, at paths other than the MCP endpoint's; for a stdio proxy, all but the
//! status page on their own listener ([`serve_metrics`], `toon mcp serve --metrics ADDR`):
//! the front without its MCP endpoint, so that its checks and connection limits are the
//! same code.
//!
//! Probes come without tokens: `/healthz` and `/readyz` answer without one (the `Origin` and
//! `Host` rules still apply), and say no more than each server's name and state. `/metrics`
//! needs the token as MCP does unless [`HttpOptions::metrics_public`](super::HttpOptions);
//! `/status` always does (it says why a server is unavailable).
//!
//! Over HTTP a session starts its own servers, so none may have started when a load balancer
//! first asks: the first `/readyz` then starts every server once, in a toolbox of its own
//! that is shut down once they have all settled (a warm-up: `npx`/`uvx` also fetch their
//! packages then), and answers 503 until it has.

use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::header::{self, HeaderValue};
use hyper::{Method, Response, StatusCode};
use tokio::net::TcpListener;

use super::{Body, HttpError, HttpFront, HttpOptions, ToolboxFactory, status};
use crate::mcp::proxy::front::serve::Mode;
use crate::mcp::proxy::log::PROXY;
use crate::mcp::proxy::sync::lock;
use crate::mcp::proxy::{metrics, status_page};

/// What a path beside the MCP endpoint is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Page {
    Health,
    Ready,
    Metrics,
    Status,
}

impl Page {
    pub(super) fn of(path: &str) -> Option<Page> {
        match path {
            "/healthz" => Some(Page::Health),
            "/readyz" => Some(Page::Ready),
            "/metrics" => Some(Page::Metrics),
            "/status" => Some(Page::Status),
            _ => None,
        }
    }
}

/// Whether the first `/readyz` started the warm-up (once a process).
static WARMING: AtomicBool = AtomicBool::new(false);

impl HttpFront {
    /// The page at the request's path, unless it is the MCP endpoint's; whether it is
    /// answered without the token.
    pub(super) fn page(&self, path: &str) -> Option<(Page, bool)> {
        if self.toolboxes.is_some() && path == self.options.path {
            return None;
        }
        let page = Page::of(path)?;
        // The status page says why servers are unavailable: the HTTP front's, where it always
        // needs the token; a stdio proxy's `--metrics` may have none.
        if page == Page::Status && self.toolboxes.is_none() {
            return None;
        }
        let open = match page {
            Page::Health | Page::Ready => true,
            Page::Metrics => self.options.metrics_public,
            Page::Status => false,
        };
        Some((page, open))
    }

    /// Answers a page (GET or HEAD).
    pub(super) fn answer_page(&self, page: Page, method: &Method) -> Response<Body> {
        let sessions = lock(&self.sessions).len();
        metrics::global().set_sessions(sessions);
        // A stdio proxy's servers start with its client; only the HTTP front warms up.
        if page == Page::Ready
            && let Some(toolboxes) = &self.toolboxes
        {
            warm_up(toolboxes);
        }
        answer(page, method, sessions)
    }
}

/// Over HTTP, when no toolbox has started yet: every server started once, then shut down.
fn warm_up(toolboxes: &ToolboxFactory) {
    if metrics::global().started_any() || WARMING.swap(true, Ordering::SeqCst) {
        return;
    }
    let toolbox = toolboxes();
    tracing::info!(target: PROXY, "toon: http: /readyz: starting every server once");
    tokio::spawn(async move {
        toolbox.client_connected("{}");
        toolbox.ready().await;
        toolbox.shutdown().await;
    });
}

/// A page's answer, wherever it is served.
fn answer(page: Page, method: &Method, sessions: usize) -> Response<Body> {
    if method != Method::GET && method != Method::HEAD {
        let mut response = status(StatusCode::METHOD_NOT_ALLOWED, "use GET");
        response
            .headers_mut()
            .insert(header::ALLOW, HeaderValue::from_static("GET, HEAD"));
        return response;
    }
    let metrics = metrics::global();
    let (code, kind, text) = match page {
        Page::Health => (
            StatusCode::OK,
            "text/plain; charset=utf-8",
            "ok\n".to_owned(),
        ),
        Page::Ready => {
            let readiness = metrics.readiness();
            let code = if readiness.ready {
                StatusCode::OK
            } else {
                StatusCode::SERVICE_UNAVAILABLE
            };
            (code, "application/json", readiness.json())
        }
        Page::Metrics => (StatusCode::OK, metrics::CONTENT_TYPE, metrics.encode()),
        Page::Status => {
            let page = status_page::render(&metrics.servers(), sessions);
            (StatusCode::OK, "text/html; charset=utf-8", page)
        }
    };
    let mut response = Response::new(Full::new(Bytes::from(text)).boxed_unsync());
    *response.status_mut() = code;
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(kind));
    if page == Page::Status {
        // No script, no asset from anywhere: a server name that slipped through escaping
        // still could not run or load anything.
        let policy = "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'";
        headers.insert(
            header::CONTENT_SECURITY_POLICY,
            HeaderValue::from_static(policy),
        );
    }
    response
}

/// Serves `/metrics`, `/healthz` and `/readyz` on `listener` until `shutdown` completes:
/// a stdio proxy's `--metrics ADDR`. The HTTP front's rules hold there as they do beside
/// MCP: `Host` and `Origin` (403), [`HttpOptions::token`] for `/metrics` unless
/// [`HttpOptions::metrics_public`], and the connection rooms and timeouts, so that idle
/// connections cannot take the process's file descriptors from its servers.
///
/// # Errors
/// [`HttpError::Options`] for options that cannot work (as [`serve_http`](super::serve_http)).
pub async fn serve_metrics(
    listener: TcpListener,
    options: HttpOptions,
    shutdown: impl Future<Output = ()>,
) -> Result<(), HttpError> {
    super::serve(listener, None, Mode::Passthrough, options, shutdown).await
}
