//! `argmend proxy`: an OpenAI-compatible HTTP proxy in front of any Chat
//! Completions server, which mends the tool calls of every answer.
//!
//! `POST …/chat/completions` is forwarded as it is, and its answer, streamed
//! or whole, is mended on the way back (`mend.rs`): the arguments of
//! `tool_calls` with the request's own `tools`, re-sent as append-only
//! pieces (`calls.rs`), and calls the model wrote into `content` lifted into
//! `tool_calls`. Everything else (`/v1/models`, any other path, any answer
//! that is not a success) passes through unchanged (`relay.rs`). The
//! upstream and its headers are `upstream.rs`; server-sent events are cut
//! out of the upstream's bytes by `sse.rs`; `body.rs` is the body hyper
//! sends, whose drop (the client gone) stops the upstream's stream.

mod body;
mod calls;
mod error;
mod mend;
mod relay;
mod sse;
mod upstream;

use std::convert::Infallible;
use std::io::{self, Write};
use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use argmend::{ToolMap, ToolOptions};
use bytes::Bytes;
use clap::Args;
use http_body_util::{BodyExt, LengthLimitError, Limited};
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Method, Request, Response};
use hyper_util::rt::{TokioIo, TokioTimer};
use serde_json::Value;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;

use self::body::Body;
use self::error::{ProxyError, error_chain};
use self::mend::{Mender, Plan};
use self::upstream::Upstream;
use crate::cli::shared::failure::{EXIT_ERROR, report};

/// Options of `argmend proxy`.
#[derive(Debug, Args)]
#[command(after_help = "\
Put argmend between any OpenAI client and the server it talks to:
  ollama serve                                   # or vLLM, SGLang, llama.cpp's server
  argmend proxy --upstream http://127.0.0.1:11434/v1
  export OPENAI_BASE_URL=http://127.0.0.1:8788/v1 # the client now talks to argmend
Or in front of vLLM, on another port:
  argmend proxy --upstream http://127.0.0.1:8000/v1 --listen 127.0.0.1:9000

POST /v1/chat/completions, streamed or not, comes back mended:
  - each tool call's arguments are repaired with its tool's schema from the
    request's `tools`, and re-sent as append-only pieces (a client that joins
    them gets the mended JSON);
  - a call the model wrote into `content` (Hermes/Qwen <tool_call>, Llama 3,
    Mistral [TOOL_CALLS], argmend's forms) moves into `tool_calls`, the text
    around it stays in `content`, and finish_reason `stop` becomes `tool_calls`;
  - every call carries argmend's verdict in an `argmend` field clients
    ignore: {\"verdict\", \"complete\", \"fixes\", \"doubt\"?, \"cut\"?}. A call cut
    off by `length` keeps finish_reason `length` and says \"cut\": \"length\".
Everything else (/v1/models, other paths, error answers) passes unchanged.
The Authorization header goes to the upstream only; no body is logged.
The proxy's own refusals are OpenAI errors whose `code` names the limit:
request_too_large (413), request_timeout (408), call_too_large and
answer_too_large (502, or an error event in a stream), upstream_unreachable
(502), upstream_timeout (504).

Exit codes:
  0  never in normal use: the proxy runs until it is stopped
  2  usage error, the address cannot be bound, or the upstream URL is bad")]
pub(crate) struct ProxyArgs {
    /// The Chat Completions server, as its clients are given it
    /// (`http://127.0.0.1:11434/v1` for Ollama, `http://127.0.0.1:8000/v1`
    /// for vLLM, `https://…/v1` for a hosted API).
    #[arg(long, value_name = "URL")]
    upstream: String,

    /// Where to listen. Loopback by default: anyone who reaches the address
    /// uses the upstream with the credentials they send.
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8788")]
    listen: SocketAddr,

    /// Leave calls written into `content` as text (mend `tool_calls` only).
    #[arg(long)]
    no_lift: bool,

    /// The most bytes of one call's arguments (of content, for a call read
    /// from the content); past it the stream ends with an error event.
    #[arg(long, value_name = "N", default_value_t = 16 << 20)]
    max_call_bytes: usize,

    /// The most bytes of a request the proxy reads (a long conversation
    /// with its tools is a few MB); past it the answer is a 413.
    #[arg(long, value_name = "N", default_value_t = 64 << 20)]
    max_request_bytes: usize,

    /// The most client connections served at once; more wait to be taken.
    /// With the limits above, this bounds the proxy's memory.
    #[arg(long, value_name = "N", default_value_t = 512, value_parser = clap::value_parser!(u64).range(1..=100_000))]
    max_connections: u64,

    /// Give up on a client that pauses S seconds while sending a request
    /// (its head: the connection is closed; its body: a 408).
    #[arg(long, value_name = "S", default_value_t = 30)]
    client_timeout: u64,

    /// Give up connecting to the upstream after S seconds.
    #[arg(long, value_name = "S", default_value_t = 10)]
    connect_timeout: u64,

    /// Give up on an upstream that sends nothing for S seconds: before its
    /// answer's head a 504, in a stream its open calls end cut. Long, as
    /// a model may think for minutes before a whole answer's first byte
    /// (the OpenAI SDKs wait 600 s). 0: wait forever.
    #[arg(long, value_name = "S", default_value_t = 600)]
    upstream_timeout: u64,
}

/// What every connection shares.
struct Shared {
    upstream: Upstream,
    lift: bool,
    max_call_bytes: usize,
    max_request_bytes: usize,
    client_timeout: Duration,
}

/// Run `argmend proxy` until the process is stopped.
pub(crate) fn main(args: &ProxyArgs) -> ExitCode {
    let upstream = match Upstream::new(
        &args.upstream,
        Duration::from_secs(args.connect_timeout),
        Duration::from_secs(args.upstream_timeout),
    ) {
        Ok(upstream) => upstream,
        Err(error) => {
            report(&error);
            return ExitCode::from(EXIT_ERROR);
        }
    };
    let shared = Arc::new(Shared {
        upstream,
        lift: !args.no_lift,
        max_call_bytes: args.max_call_bytes,
        max_request_bytes: args.max_request_bytes,
        client_timeout: Duration::from_secs(args.client_timeout),
    });
    // One thread: each event costs microseconds, and a stream's hops
    // (upstream socket, mending, client socket) then never wake another
    // thread. On 2 loaded cores what the proxy adds at p99 was steadier so
    // (0.24 and 0.25 ms in two runs; 0.22, 0.84 and 22 ms with a
    // multi-threaded runtime; docs/performance.md). Whole answers are
    // mended on the blocking pool (`relay::whole`).
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            report(&format!("cannot start the async runtime: {error}"));
            return ExitCode::from(EXIT_ERROR);
        }
    };
    match runtime.block_on(serve(
        args.listen,
        usize::try_from(args.max_connections).unwrap_or(100_000),
        shared,
    )) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            report(&error);
            ExitCode::from(EXIT_ERROR)
        }
    }
}

/// Accept connections and serve each on a task of its own.
async fn serve(
    listen: SocketAddr,
    max_connections: usize,
    shared: Arc<Shared>,
) -> Result<(), String> {
    let listener = TcpListener::bind(listen)
        .await
        .map_err(|error| format!("cannot listen on {listen}: {error}"))?;
    let local = listener
        .local_addr()
        .map_err(|error| format!("cannot listen on {listen}: {error}"))?;
    {
        let mut err = io::stderr().lock();
        let _ = writeln!(
            err,
            "argmend proxy: listening on http://{local}/v1, upstream {}",
            shared.upstream.base()
        );
        if !local.ip().is_loopback() {
            let _ = writeln!(
                err,
                "argmend proxy: {local} is not a loopback address: whoever reaches it can use the upstream"
            );
        }
    }
    // At the cap no connection is taken: the next waits in the kernel's
    // backlog until one ends (an idle one ends after `--client-timeout`).
    let connections = Arc::new(Semaphore::new(max_connections));
    loop {
        let Ok(permit) = Arc::clone(&connections).acquire_owned().await else {
            return Ok(()); // never: the semaphore is not closed
        };
        let (stream, _) = match listener.accept().await {
            Ok(accepted) => accepted,
            Err(error) => {
                // Out of descriptors, or a connection reset before it was
                // taken: the listener itself is fine. A pause keeps a
                // persistent error from spinning.
                report(&format!("proxy: accept: {error}"));
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        let shared = Arc::clone(&shared);
        let client_timeout = shared.client_timeout;
        tokio::spawn(async move {
            let _permit = permit;
            let service = service_fn(move |request| {
                let shared = Arc::clone(&shared);
                async move { Ok::<_, Infallible>(handle(&shared, request).await) }
            });
            // A connection that breaks is the client's business.
            // With a timer, hyper gives a client `--client-timeout` to send
            // a request's head, so a trickling connection is not kept forever.
            let _ = http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(client_timeout)
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
}

/// One request.
async fn handle(shared: &Shared, request: Request<Incoming>) -> Response<Body> {
    let (parts, body) = request.into_parts();
    let body = match read_request(body, shared.max_request_bytes, shared.client_timeout).await {
        Ok(body) => body,
        Err(error) => return error.response(),
    };
    let path_and_query = parts
        .uri
        .path_and_query()
        .map_or("/", |p| p.as_str())
        .to_owned();
    let is_chat = parts.method == Method::POST
        && parts
            .uri
            .path()
            .trim_end_matches('/')
            .ends_with("/chat/completions");
    let plan = if is_chat { plan(shared, &body) } else { None };
    let sent = shared
        .upstream
        .send(
            parts.method,
            &path_and_query,
            &parts.headers,
            body,
            plan.is_some(),
        )
        .await;
    let upstream = match sent {
        Ok(upstream) => upstream,
        Err(error) if error.is_timeout() && !error.is_connect() => {
            let after = shared.upstream.read_timeout();
            return ProxyError::UpstreamTimeout { after }.response();
        }
        Err(error) => {
            return ProxyError::UpstreamUnreachable {
                upstream: shared.upstream.base().to_string(),
                detail: error_chain(&error),
            }
            .response();
        }
    };
    let Some((plan, streamed)) = plan else {
        return relay::pass(upstream);
    };
    if !upstream.status().is_success() {
        return relay::pass(upstream);
    }
    let content_type = upstream
        .headers()
        .get(hyper::header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .unwrap_or("")
        .to_ascii_lowercase();
    let mender = Mender::new(plan);
    if content_type.starts_with("text/event-stream") {
        relay::stream(upstream, mender)
    } else if content_type.starts_with("application/json") && !streamed {
        relay::whole(upstream, mender, shared.upstream.read_timeout()).await
    } else {
        relay::pass(upstream)
    }
}

/// A request's body, whole: at most `limit` bytes, with no pause longer
/// than `pause` (`--client-timeout`), so a client that trickles its body
/// does not hold its connection and buffer forever.
async fn read_request(body: Incoming, limit: usize, pause: Duration) -> Result<Bytes, ProxyError> {
    let mut body = Limited::new(body, limit);
    let mut bytes = Vec::new();
    loop {
        let frame = match tokio::time::timeout(pause, body.frame()).await {
            Err(_) => return Err(ProxyError::RequestTimeout { after: pause }),
            Ok(None) => return Ok(Bytes::from(bytes)),
            Ok(Some(Ok(frame))) => frame,
            Ok(Some(Err(error))) if error.is::<LengthLimitError>() => {
                return Err(ProxyError::RequestTooLarge { limit });
            }
            Ok(Some(Err(error))) => {
                let detail = error_chain(&*error);
                return Err(ProxyError::RequestUnreadable { detail });
            }
        };
        if let Ok(data) = frame.into_data() {
            bytes.extend_from_slice(&data);
        }
    }
}

/// What to do with a chat completion's answer, from its request: `None`
/// when the request is not a JSON object (then nothing is touched), else
/// the plan and whether the answer streams.
fn plan(shared: &Shared, body: &Bytes) -> Option<(Plan, bool)> {
    let request: Value = serde_json::from_slice(body).ok()?;
    let request = request.as_object()?;
    let streamed = request.get("stream").and_then(Value::as_bool) == Some(true);
    let tools = request.get("tools").cloned().unwrap_or(Value::Null);
    let has_tools = tools.as_array().is_some_and(|tools| !tools.is_empty());
    let options = ToolOptions::default().tools(ToolMap::from_openai_tools(&tools));
    let plan = Plan {
        options,
        lift: shared.lift && has_tools,
        max_call_bytes: shared.max_call_bytes,
    };
    Some((plan, streamed))
}
