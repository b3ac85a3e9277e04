//! Answers relayed from the upstream: passed on as they are, streamed as
//! mended server-sent events, or mended whole.

use bytes::Bytes;
use hyper::{Response, StatusCode};
use serde_json::Value;
use tokio::sync::mpsc;

use super::body::Body;
use super::mend::{Mender, TooLarge};
use super::sse::{Event, Events};
use super::upstream::{error_response, response_from};

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
                let message =
                    format!("an event of the upstream's stream is over {MAX_EVENT} bytes");
                let _ = sender.send(error_event(&message)).await;
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
                        let message = format!(
                            "a tool call's arguments are over {limit} bytes (--max-call-bytes)"
                        );
                        let _ = sender.send(error_event(&message)).await;
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

/// An error event, as an OpenAI stream sends one; the SDKs raise it.
fn error_event(message: &str) -> Bytes {
    let message = format!("argmend proxy: {message}");
    data_event(
        &serde_json::json!({"error": {"message": message, "type": "argmend_limit", "code": null}}),
    )
}

/// A completion that was not streamed: read whole (bounded), mended, sent.
pub(super) async fn whole(mut upstream: reqwest::Response, mut mender: Mender) -> Response<Body> {
    let mut bytes = Vec::new();
    loop {
        match upstream.chunk().await {
            Ok(Some(piece)) => {
                bytes.extend_from_slice(&piece);
                if bytes.len() > MAX_EVENT {
                    let message =
                        format!("argmend proxy: the upstream's answer is over {MAX_EVENT} bytes");
                    return error_response(StatusCode::BAD_GATEWAY, "argmend_limit", &message);
                }
            }
            Ok(None) => break,
            Err(error) => {
                let message = format!("argmend proxy: the upstream's answer broke off: {error}");
                return error_response(StatusCode::BAD_GATEWAY, "upstream_error", &message);
            }
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
        Ok((Err(TooLarge { limit }), _)) => {
            let message = format!(
                "argmend proxy: a tool call's arguments are over {limit} bytes (--max-call-bytes)"
            );
            error_response(StatusCode::BAD_GATEWAY, "argmend_limit", &message)
        }
        Err(error) => {
            let message = format!("argmend proxy: mending the answer failed: {error}");
            error_response(StatusCode::INTERNAL_SERVER_ERROR, "argmend_error", &message)
        }
    }
}
