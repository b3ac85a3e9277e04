//! The upstream server: where a request goes, and which headers go with it
//! and come back.

use std::time::Duration;

use bytes::Bytes;
use hyper::header::{self, HeaderMap, HeaderName};
use hyper::{Method, Response};
use reqwest::Url;

use super::body::Body;

/// Headers of one hop only (RFC 9110 section 7.6.1), never passed on, and
/// those the proxy sets itself (`host`, `content-length`).
const HOP_BY_HOP: [&str; 10] = [
    "connection",
    "keep-alive",
    "proxy-connection",
    "proxy-authenticate",
    "proxy-authorization",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
    "host",
];

/// The upstream, and the client that reaches it.
pub(super) struct Upstream {
    /// The base URL its clients are given (`http://127.0.0.1:11434/v1`).
    base: Url,
    client: reqwest::Client,
    read_timeout: Duration,
}

impl Upstream {
    /// The upstream at `base`, or why it cannot be one.
    /// `connect_timeout` bounds the connection's setup; `read_timeout` the
    /// wait for each piece of an answer (its head included), so a stalled
    /// upstream cannot hold a client's connection and its memory forever;
    /// zero waits forever.
    pub(super) fn new(
        base: &str,
        connect_timeout: Duration,
        read_timeout: Duration,
    ) -> Result<Self, String> {
        let base = Url::parse(base).map_err(|error| format!("--upstream `{base}`: {error}"))?;
        if !matches!(base.scheme(), "http" | "https") {
            return Err(format!(
                "--upstream `{base}`: the URL must start with http:// or https://"
            ));
        }
        let mut client = reqwest::Client::builder().connect_timeout(connect_timeout);
        if !read_timeout.is_zero() {
            client = client.read_timeout(read_timeout);
        }
        let client = client
            // The proxy passes redirects on to its client, as it passes every answer.
            .redirect(reqwest::redirect::Policy::none())
            .tcp_nodelay(true)
            .build()
            .map_err(|error| format!("cannot start the HTTP client: {error}"))?;
        Ok(Upstream {
            base,
            client,
            read_timeout,
        })
    }

    /// `--upstream-timeout`, for messages.
    pub(super) fn read_timeout(&self) -> Duration {
        self.read_timeout
    }

    /// The base URL, for messages.
    pub(super) fn base(&self) -> &Url {
        &self.base
    }

    /// Where a request for `path_and_query` goes: a path under `/v1` takes
    /// the base URL's path instead of `/v1` (`/v1/models` →
    /// `http://host:11434/v1/models`, or `…/openai/v1/models` for a base
    /// that says so); any other path goes to the upstream's host as it is.
    pub(super) fn url_for(&self, path_and_query: &str) -> Url {
        let (path, query) = match path_and_query.split_once('?') {
            Some((path, query)) => (path, Some(query)),
            None => (path_and_query, None),
        };
        let base_path = self.base.path().trim_end_matches('/');
        let path = match path.strip_prefix("/v1") {
            Some(rest) if rest.is_empty() || rest.starts_with('/') => format!("{base_path}{rest}"),
            _ => path.to_owned(),
        };
        let mut url = self.base.clone();
        url.set_path(&path);
        url.set_query(query);
        url
    }

    /// Send a request on, with the client's headers but those of one hop
    /// (the client's `Authorization` goes to the upstream, and nowhere else).
    pub(super) async fn send(
        &self,
        method: Method,
        path_and_query: &str,
        headers: &HeaderMap,
        body: Bytes,
        identity: bool,
    ) -> reqwest::Result<reqwest::Response> {
        let mut forwarded = HeaderMap::with_capacity(headers.len());
        for (name, value) in headers {
            if is_hop_by_hop(name) || name == header::CONTENT_LENGTH {
                continue;
            }
            // A body the proxy mends must come as it is, not compressed.
            if identity && name == header::ACCEPT_ENCODING {
                continue;
            }
            forwarded.append(name.clone(), value.clone());
        }
        self.client
            .request(method, self.url_for(path_and_query))
            .headers(forwarded)
            .body(body)
            .send()
            .await
    }
}

fn is_hop_by_hop(name: &HeaderName) -> bool {
    HOP_BY_HOP.contains(&name.as_str())
}

/// The upstream's status and headers on a response with `body`; its
/// `content-length` too when the body is the upstream's own bytes.
pub(super) fn response_from(
    upstream: &reqwest::Response,
    body: Body,
    same_length: bool,
) -> Response<Body> {
    let mut response = Response::new(body);
    *response.status_mut() = upstream.status();
    let headers = response.headers_mut();
    for (name, value) in upstream.headers() {
        if is_hop_by_hop(name) || (!same_length && name == header::CONTENT_LENGTH) {
            continue;
        }
        headers.append(name.clone(), value.clone());
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn v1_paths_take_the_base_path() {
        let at = |base: &str, path: &str| {
            Upstream::new(base, Duration::from_secs(1), Duration::from_secs(1))
                .unwrap()
                .url_for(path)
                .to_string()
        };
        assert_eq!(
            at("http://127.0.0.1:11434/v1", "/v1/chat/completions"),
            "http://127.0.0.1:11434/v1/chat/completions"
        );
        assert_eq!(
            at("http://h/v1/", "/v1/models?x=1"),
            "http://h/v1/models?x=1"
        );
        assert_eq!(
            at("https://h/openai/v1", "/v1/models"),
            "https://h/openai/v1/models"
        );
        assert_eq!(at("http://h:8000", "/v1/models"), "http://h:8000/models");
        assert_eq!(at("http://h/v1", "/api/tags"), "http://h/api/tags");
        assert_eq!(at("http://h/v1", "/v10/x"), "http://h/v10/x");
    }
}
