//! Every answer the proxy gives of its own, as one type: each kind has its
//! HTTP status, its OpenAI error `type` and a stable `code`, so a client can
//! tell a limit of argmend's from an upstream that failed without reading
//! the message. Before the answer's head went out it is an error response;
//! after, an error event in the stream (which the SDKs raise).

use std::fmt;
use std::time::Duration;

use bytes::Bytes;
use hyper::header::{self, HeaderValue};
use hyper::{Response, StatusCode};

use super::body::Body;

/// Why the proxy answers instead of the upstream, or stops a stream.
#[derive(Debug)]
pub(super) enum ProxyError {
    /// The client's request body is over `--max-request-bytes`.
    RequestTooLarge { limit: usize },
    /// The request body could not be read (the client broke off).
    RequestUnreadable { detail: String },
    /// The client paused longer than this while sending the body.
    RequestTimeout { after: Duration },
    /// No connection to the upstream (refused, no route, connect timeout).
    UpstreamUnreachable { upstream: String, detail: String },
    /// The upstream sent nothing for `--upstream-timeout`.
    UpstreamTimeout { after: Duration },
    /// The upstream's answer broke off before it was whole.
    UpstreamBrokeOff { detail: String },
    /// An answer to be mended, or one event of a stream, over the cap.
    AnswerTooLarge { limit: usize },
    /// One call's arguments over `--max-call-bytes`.
    CallTooLarge { limit: usize },
    /// Mending failed inside the proxy (a worker thread was lost).
    Internal { detail: String },
}

impl ProxyError {
    /// The HTTP status of the error response.
    pub(super) fn status(&self) -> StatusCode {
        match self {
            ProxyError::RequestTooLarge { .. } => StatusCode::PAYLOAD_TOO_LARGE,
            ProxyError::RequestUnreadable { .. } => StatusCode::BAD_REQUEST,
            ProxyError::RequestTimeout { .. } => StatusCode::REQUEST_TIMEOUT,
            ProxyError::UpstreamTimeout { .. } => StatusCode::GATEWAY_TIMEOUT,
            ProxyError::UpstreamUnreachable { .. }
            | ProxyError::UpstreamBrokeOff { .. }
            | ProxyError::AnswerTooLarge { .. }
            | ProxyError::CallTooLarge { .. } => StatusCode::BAD_GATEWAY,
            ProxyError::Internal { .. } => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    /// The OpenAI error `type`: what kind of failure, as the SDKs expose it.
    pub(super) fn kind(&self) -> &'static str {
        match self {
            ProxyError::RequestTooLarge { .. }
            | ProxyError::RequestUnreadable { .. }
            | ProxyError::RequestTimeout { .. } => "invalid_request_error",
            ProxyError::UpstreamUnreachable { .. } => "upstream_unreachable",
            ProxyError::UpstreamTimeout { .. } | ProxyError::UpstreamBrokeOff { .. } => {
                "upstream_error"
            }
            ProxyError::AnswerTooLarge { .. } | ProxyError::CallTooLarge { .. } => "argmend_limit",
            ProxyError::Internal { .. } => "argmend_error",
        }
    }

    /// The stable `code`: which error exactly.
    pub(super) fn code(&self) -> &'static str {
        match self {
            ProxyError::RequestTooLarge { .. } => "request_too_large",
            ProxyError::RequestUnreadable { .. } => "request_unreadable",
            ProxyError::RequestTimeout { .. } => "request_timeout",
            ProxyError::UpstreamUnreachable { .. } => "upstream_unreachable",
            ProxyError::UpstreamTimeout { .. } => "upstream_timeout",
            ProxyError::UpstreamBrokeOff { .. } => "upstream_broke_off",
            ProxyError::AnswerTooLarge { .. } => "answer_too_large",
            ProxyError::CallTooLarge { .. } => "call_too_large",
            ProxyError::Internal { .. } => "internal",
        }
    }

    /// `{"error": {"message", "type", "code"}}`, the shape of an OpenAI error.
    fn json(&self) -> serde_json::Value {
        serde_json::json!({"error": {
            "message": format!("argmend proxy: {self}"),
            "type": self.kind(),
            "code": self.code(),
        }})
    }

    /// The error as the proxy's answer, before anything else was sent.
    pub(super) fn response(&self) -> Response<Body> {
        let mut response = Response::new(Body::whole(self.json().to_string()));
        *response.status_mut() = self.status();
        response.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
        response
    }

    /// The error as the last event of a stream already under way.
    pub(super) fn event(&self) -> Bytes {
        let mut out = b"data: ".to_vec();
        // Writing a Value to a Vec cannot fail.
        let _ = serde_json::to_writer(&mut out, &self.json());
        out.extend_from_slice(b"\n\n");
        Bytes::from(out)
    }
}

impl fmt::Display for ProxyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProxyError::RequestTooLarge { limit } => {
                write!(f, "the request is over {limit} bytes (--max-request-bytes)")
            }
            ProxyError::RequestUnreadable { detail } => {
                write!(f, "cannot read the request: {detail}")
            }
            ProxyError::RequestTimeout { after } => write!(
                f,
                "the request's body paused for more than {} s",
                after.as_secs()
            ),
            ProxyError::UpstreamUnreachable { upstream, detail } => {
                write!(f, "cannot reach the upstream {upstream}: {detail}")
            }
            ProxyError::UpstreamTimeout { after } => write!(
                f,
                "the upstream sent nothing for {} s (--upstream-timeout)",
                after.as_secs()
            ),
            ProxyError::UpstreamBrokeOff { detail } => {
                write!(f, "the upstream's answer broke off: {detail}")
            }
            ProxyError::AnswerTooLarge { limit } => write!(
                f,
                "the upstream's answer (or one event of its stream) is over {limit} bytes"
            ),
            ProxyError::CallTooLarge { limit } => write!(
                f,
                "a tool call's arguments are over {limit} bytes (--max-call-bytes)"
            ),
            ProxyError::Internal { detail } => write!(f, "mending the answer failed: {detail}"),
        }
    }
}

impl std::error::Error for ProxyError {}

/// An error and its causes, `a: b: c` (reqwest's own text says only "error
/// sending request").
pub(super) fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_has_its_status_type_and_code() {
        let cases = [
            (
                ProxyError::RequestTooLarge { limit: 10 },
                413,
                "invalid_request_error",
                "request_too_large",
            ),
            (
                ProxyError::UpstreamTimeout {
                    after: Duration::from_secs(3),
                },
                504,
                "upstream_error",
                "upstream_timeout",
            ),
            (
                ProxyError::CallTooLarge { limit: 10 },
                502,
                "argmend_limit",
                "call_too_large",
            ),
        ];
        for (error, status, kind, code) in cases {
            assert_eq!(error.status().as_u16(), status);
            let event = String::from_utf8(error.event().to_vec()).unwrap();
            let body: serde_json::Value =
                serde_json::from_str(event.strip_prefix("data: ").unwrap().trim_end()).unwrap();
            assert_eq!(body["error"]["type"], kind);
            assert_eq!(body["error"]["code"], code);
            assert!(
                body["error"]["message"]
                    .as_str()
                    .unwrap()
                    .starts_with("argmend proxy: ")
            );
        }
    }
}
