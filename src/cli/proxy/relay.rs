//! Answers relayed from the upstream: passed on as they are, streamed as
//! mended server-sent events, or mended whole.

use bytes::Bytes;
use std::time::Duration;

use hyper::Response;
use serde_json::Value;
use tokio::sync::mpsc;

use super::body::Body;
use super::error::{ProxyError, error_chain};
use super::mend::{Mender, TooLarge};
use super::sse::{Event, Events};
use super::upstream::response_from;

/// The most bytes of one server-sent event, and of a whole answer the
/// proxy mends: past either, the answer is refused rather than held.
pub(super) const MAX_EVENT: usize = 16 << 20;

/// Read the next piece of the upstream's body, unless the client has gone
/// first (then `None`: dropping the response closes the upstream's stream).
async fn next_piece(
    upstream: &mut reqwest::Response,
    sender: &mpsc::Sender<Bytes>,
) -> Option<reqwest::Result<Option<Bytes>>> {
    tokio::select! {
        biased;
        () = sender.closed() => None,
        piece = upstream.chunk() => Some(piece),
    }
}

/// The upstream's answer as it is, streamed.
pub(super) fn pass(mut upstream: reqwest::Response) -> Response<Body> {
    let (sender, body) = Body::channel();
    let response = response_from(&upstream, body, true);
    tokio::spawn(async move {
        while let Some(Ok(Some(piece))) = next_piece(&mut upstream, &sender).await {
            if sender.send(piece).await.is_err() {
                return;
            }
        }
    });
    response
}

/// A streamed completion: each event as it arrives, mended.
pub(super) fn stream(mut upstream: reqwest::Response, mut mender: Mender) -> Response<Body> {
    let (sender, body) = Body::channel();
    let response = response_from(&upstream, body, false);
    tokio::spawn(async move {
        let mut events = Events::new(MAX_EVENT);
        let mut ready = Vec::new();
        let mut done = false;
        loop {
            let piece = match next_piece(&mut upstream, &sender).await {
                None => return,
                Some(Ok(Some(piece))) => piece,
                // The upstream ended, or broke off: what is open ends below.
                Some(Ok(None) | Err(_)) => break,
            };
            if events.push(&piece, &mut ready).is_err() {
                let error = ProxyError::AnswerTooLarge { limit: MAX_EVENT };
                let _ = sender.send(error.event()).await;
                return;
            }
            for event in ready.drain(..) {
                match mend_event(event, &mut mender, &mut done) {
                    Ok(pieces) => {
                        for piece in pieces {
                            if sender.send(piece).await.is_err() {
                                return;
                            }
                        }
                    }
                    Err(TooLarge { limit }) => {
                        let error = ProxyError::CallTooLarge { limit };
                        let _ = sender.send(error.event()).await;
                        return;
                    }
                }
            }
        }
        let mut pieces = Vec::new();
        if let Some(event) = events.finish() {
            // A call over the cap in the last, unfinished event: it is dropped.
            if let Ok(mended) = mend_event(event, &mut mender, &mut done) {
                pieces.extend(mended);
            }
        }
        if !done && let Some(last) = mender.finish() {
            pieces.push(data_event(&last));
        }
        for piece in pieces {
            if sender.send(piece).await.is_err() {
                return;
            }
        }
    });
    response
}

/// One event: passed on as it came, or mended; `[DONE]` ends every call
/// still open first.
fn mend_event(event: Event, mender: &mut Mender, done: &mut bool) -> Result<Vec<Bytes>, TooLarge> {
    let Some(data) = &event.data else {
        return Ok(vec![Bytes::from(event.raw)]);
    };
    if data.trim() == "[DONE]" {
        *done = true;
        let mut pieces = Vec::new();
        if let Some(last) = mender.finish() {
            pieces.push(data_event(&last));
        }
        pieces.push(Bytes::from(event.raw));
        return Ok(pieces);
    }
    let Ok(mut chunk) = serde_json::from_str::<Value>(data) else {
        return Ok(vec![Bytes::from(event.raw)]);
    };
    if mender.chunk(&mut chunk)? {
        Ok(vec![data_event(&chunk)])
    } else {
        Ok(vec![Bytes::from(event.raw)])
    }
}

/// `data: {…}` and the blank line.
fn data_event(value: &Value) -> Bytes {
    let mut out = b"data: ".to_vec();
    // Writing a Value to a Vec cannot fail.
    let _ = serde_json::to_writer(&mut out, value);
    out.extend_from_slice(b"\n\n");
    Bytes::from(out)
}

/// A completion that was not streamed: read whole (bounded), mended, sent.
/// `timeout` is `--upstream-timeout`, for the message when it strikes.
pub(super) async fn whole(
    mut upstream: reqwest::Response,
    mut mender: Mender,
    timeout: Duration,
) -> Response<Body> {
    let mut bytes = Vec::new();
    loop {
        match upstream.chunk().await {
            Ok(Some(piece)) => {
                bytes.extend_from_slice(&piece);
                if bytes.len() > MAX_EVENT {
                    return ProxyError::AnswerTooLarge { limit: MAX_EVENT }.response();
                }
            }
            Ok(None) => break,
            Err(error) => return upstream_failure(&error, timeout).response(),
        }
    }
    // A big answer takes milliseconds to mend: off the runtime's thread, so
    // the streams it serves meanwhile are not held up.
    let mended = tokio::task::spawn_blocking(move || {
        let mended = match serde_json::from_slice::<Value>(&bytes) {
            Ok(mut completion) => match mender.completion(&mut completion) {
                Ok(()) => Ok(Some(completion.to_string())),
                Err(too_large) => Err(too_large),
            },
            Err(_) => Ok(None),
        };
        (mended, bytes)
    })
    .await;
    match mended {
        Ok((Ok(Some(text)), _)) => response_from(&upstream, Body::whole(text), false),
        Ok((Ok(None), bytes)) => response_from(&upstream, Body::whole(bytes), false),
        Ok((Err(TooLarge { limit }), _)) => ProxyError::CallTooLarge { limit }.response(),
        Err(error) => ProxyError::Internal {
            detail: error.to_string(),
        }
        .response(),
    }
}

/// What a failed read of the upstream's answer was: `--upstream-timeout`
/// striking, or the connection breaking off.
pub(super) fn upstream_failure(error: &reqwest::Error, timeout: Duration) -> ProxyError {
    if error.is_timeout() {
        ProxyError::UpstreamTimeout { after: timeout }
    } else {
        ProxyError::UpstreamBrokeOff {
            detail: error_chain(error),
        }
    }
}
