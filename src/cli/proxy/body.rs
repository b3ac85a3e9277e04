//! The body of every answer the proxy gives: whole, or pieces from the task
//! that reads the upstream.
//!
//! When the client goes away, hyper drops the body, and with it the
//! receiver: the task sees its sender closed and drops the upstream
//! response, which closes that connection too.

use std::convert::Infallible;
use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;
use hyper::body::{Frame, SizeHint};
use tokio::sync::mpsc;

/// How many pieces may wait between the task and the client: a client that
/// reads slowly holds the upstream back instead of the proxy's memory.
pub(super) const PIECES_IN_FLIGHT: usize = 16;

/// A response body.
pub(super) enum Body {
    /// All of it at once (`None` once sent).
    Whole(Option<Bytes>),
    /// Pieces as the task sends them; the end when it drops its sender.
    Pieces(mpsc::Receiver<Bytes>),
}

impl Body {
    pub(super) fn whole(bytes: impl Into<Bytes>) -> Self {
        Body::Whole(Some(bytes.into()))
    }

    /// A body fed by the returned sender.
    pub(super) fn channel() -> (mpsc::Sender<Bytes>, Self) {
        let (sender, receiver) = mpsc::channel(PIECES_IN_FLIGHT);
        (sender, Body::Pieces(receiver))
    }
}

impl hyper::body::Body for Body {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        match self.get_mut() {
            Body::Whole(bytes) => Poll::Ready(bytes.take().map(|b| Ok(Frame::data(b)))),
            Body::Pieces(receiver) => receiver
                .poll_recv(cx)
                .map(|piece| piece.map(|b| Ok(Frame::data(b)))),
        }
    }

    fn is_end_stream(&self) -> bool {
        matches!(self, Body::Whole(None))
    }

    fn size_hint(&self) -> SizeHint {
        match self {
            Body::Whole(Some(bytes)) => SizeHint::with_exact(bytes.len() as u64),
            Body::Whole(None) => SizeHint::with_exact(0),
            Body::Pieces(_) => SizeHint::default(),
        }
    }
}
