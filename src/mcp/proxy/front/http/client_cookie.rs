//! Which stateless 2026-07-28 POSTs come from one client: a cookie of the proxy's.
//!
//! The revision has no session, and nothing in a request names its client uniquely
//! (`clientInfo` is the same for every copy of a host). A connection does not either: a
//! balancer or reverse proxy that keeps connections to the proxy alive sends many clients'
//! requests over one. So every answer to a stateless request served without the cookie
//! (refusals aside) sets one ([`COOKIE`], 128 random bits, `HttpOnly`, `SameSite=Strict`;
//! unless [`HttpOptions::client_cookie`](super::HttpOptions::client_cookie) is off), and a
//! client that keeps
//! cookies (the Python SDK's httpx client does) sends it back with each request after.
//!
//! What it is for: a server behind a 2025-11-25 connection names no request when it asks a
//! question, so a call that may be asked waits until no *other client's* request to that
//! server was answered within the last moments (a server may still ask about one after
//! answering it: `transport::peer`'s `Behalf::alone`). POSTs with the same cookie are one
//! client, whose sequential calls start at once. A client without the cookie is a new client
//! with each POST, as before: safe, and slower when it declares what a server may ask.
//!
//! A client can send any value of the cookie's form, its own too: a value stands for one
//! client, and only one who knows another's value could pass as that one; the proxy mints
//! values nobody can guess and never shows one client another's. What shares a cookie jar
//! is one client: a backend that serves several users through one HTTP client must give
//! each a jar of its own, or turn the cookie off (`--http-no-client-cookie`). Within one
//! client, a server's question asked just after one of its calls was answered may go to
//! its next call; its log messages still reach only the request they came for.

use hyper::header::{self, HeaderMap, HeaderValue};

use crate::mcp::proxy::transport::peer::ClientId;

/// The cookie's name.
pub(super) const COOKIE: &str = "toon_client";

/// The client the request's cookie names, if it carries one of the proxy's form (32 hex
/// digits); a request may carry several `Cookie` headers (RFC 6265 §5.4 says one, HTTP/2
/// splits them).
pub(super) fn client_of(headers: &HeaderMap) -> Option<ClientId> {
    let value = headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|h| h.to_str().ok())
        .flat_map(|h| h.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(name, _)| *name == COOKIE)
        .map(|(_, value)| value.trim_matches('"'))?;
    let ours = value.len() == 32 && value.bytes().all(|b| b.is_ascii_hexdigit());
    ours.then(|| ClientId::named(&value.to_ascii_lowercase()))
}

/// A new client's cookie, for the MCP endpoint at `path`, and the client it names; `None`
/// when the system's random source fails (the POST is then served as a new client's).
pub(super) fn mint(path: &str) -> Option<(HeaderValue, ClientId)> {
    // The same 128 random bits as 32 hex digits as a session id is.
    let value = super::session_id(None).ok()?;
    // A path that cannot be a cookie's attribute as it is gets the cookie for the whole host.
    let path = if path.bytes().all(|b| b.is_ascii_graphic() && b != b';') {
        path
    } else {
        "/"
    };
    let cookie = format!("{COOKIE}={value}; Path={path}; HttpOnly; SameSite=Strict");
    let header = HeaderValue::from_str(&cookie).ok()?;
    Some((header, ClientId::named(&value)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(cookies: &[&str]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for c in cookies {
            h.append(header::COOKIE, HeaderValue::from_str(c).unwrap());
        }
        h
    }

    #[test]
    fn a_minted_cookie_sent_back_names_the_same_client_and_no_other() {
        let (set, client) = mint("/mcp").unwrap();
        let set = set.to_str().unwrap();
        let (pair, attributes) = set.split_once("; ").unwrap();
        assert_eq!(attributes, "Path=/mcp; HttpOnly; SameSite=Strict");
        let back = headers(&[&format!("theme=dark; {pair}; other=1")]);
        assert_eq!(client_of(&back), Some(client));
        assert_eq!(client_of(&headers(&["a=1", pair])), Some(client), "split");
        let upper = pair.to_ascii_uppercase().replace("TOON_CLIENT", COOKIE);
        assert_eq!(client_of(&headers(&[&upper])), Some(client), "hex case");
        let (_, another) = mint("/mcp").unwrap();
        assert_ne!(another, client);
        assert_ne!(ClientId::new(), client);
    }

    #[test]
    fn no_cookie_or_one_not_of_the_proxy_s_form_names_no_client() {
        for cookies in [
            &[][..],
            &["toon_client="],
            &["toon_client=0123"],
            &["toon_client=0123456789abcdef0123456789abcdeg"],
            &["toon_client=0123456789abcdef0123456789abcdef0"],
            &["Toon_Client=0123456789abcdef0123456789abcdef"],
            &["xtoon_client=0123456789abcdef0123456789abcdef"],
            &["no pair at all"],
        ] {
            assert_eq!(client_of(&headers(cookies)), None, "{cookies:?}");
        }
        let mut bytes = HeaderMap::new();
        bytes.insert(
            header::COOKIE,
            HeaderValue::from_bytes(b"\xfftoon").unwrap(),
        );
        assert_eq!(client_of(&bytes), None);
    }

    #[test]
    fn a_path_that_cannot_be_an_attribute_gets_the_host_wide_cookie() {
        for path in ["/mcp\n", "/a;Domain=evil.example", "/caf\u{e9}"] {
            let (set, _) = mint(path).unwrap();
            let set = set.to_str().unwrap();
            assert!(
                set.ends_with("; Path=/; HttpOnly; SameSite=Strict"),
                "{set}"
            );
        }
    }
}
