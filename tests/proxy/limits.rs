//! The proxy's limits (docs/proxy.md's table), each met: a call over
//! `--max-call-bytes`, a request over `--max-request-bytes`, an upstream
//! silent past `--upstream-timeout`, a client that pauses past
//! `--client-timeout`, clients over `--max-connections`. Each refusal is a
//! typed error: an OpenAI-shaped body whose `code` says which limit.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::upstream::{Script, Upstream};
use super::{Proxy, all_cases, plain_tools, request_body, runtime};

/// A call past `--max-call-bytes` ends the stream with an error event the
/// SDKs raise, and a whole answer with a 502, instead of growing.
#[test]
fn a_call_over_the_cap_ends_the_stream_with_an_error() {
    let (scripts, _) = all_cases();
    let upstream = Upstream::start(scripts);
    let proxy = Proxy::start_with(
        &format!("http://127.0.0.1:{}/v1", upstream.port),
        &["--max-call-bytes", "1000"],
    );
    let client = reqwest::Client::new();
    runtime().block_on(async {
        let response = client
            .post(format!("{}/chat/completions", proxy.base_url()))
            .header("content-type", "application/json")
            .body(request_body("big", &plain_tools(&["count"]), true).to_string())
            .send()
            .await
            .unwrap();
        let text = response.text().await.unwrap();
        let last = text.trim_end().rsplit("\n\n").next().unwrap();
        let event: Value = serde_json::from_str(last.strip_prefix("data: ").unwrap()).unwrap();
        assert_eq!(event["error"]["type"], "argmend_limit", "{text}");
        assert_eq!(event["error"]["code"], "call_too_large", "{text}");
        assert!(!text.contains("[DONE]"));
        let response = client
            .post(format!("{}/chat/completions", proxy.base_url()))
            .header("content-type", "application/json")
            .body(request_body("big", &plain_tools(&["count"]), false).to_string())
            .send()
            .await
            .unwrap();
        assert_eq!(response.status().as_u16(), 502);
        let body: Value = serde_json::from_str(&response.text().await.unwrap()).unwrap();
        assert_eq!(body["error"]["code"], "call_too_large", "{body}");
    });
}

/// The proxy's own limits, each a typed error in the shape of an OpenAI
/// error (`type`, and a `code` that says which): a request over
/// `--max-request-bytes` is a 413; an upstream silent for
/// `--upstream-timeout` is a 504 before its answer began, and in a stream
/// that began, the stream ends with its open call marked cut.
#[test]
fn limits_are_typed_errors() {
    let chunk = |delta: Value| {
        json!({"id": "chatcmpl-stall", "object": "chat.completion.chunk", "created": 1, "model": "stall",
            "choices": [{"index": 0, "delta": delta, "finish_reason": null}]})
    };
    let stalls = vec![
        chunk(json!({"role": "assistant", "content": null})),
        chunk(
            json!({"tool_calls": [{"index": 0, "id": "call_s", "type": "function",
            "function": {"name": "read_file", "arguments": "{'path': 'a.js"}}]}),
        ),
    ];
    let upstream = Upstream::start(BTreeMap::from([(
        "stall".to_owned(),
        Script::Stalls(stalls),
    )]));
    let proxy = Proxy::start_with(
        &format!("http://127.0.0.1:{}/v1", upstream.port),
        &["--upstream-timeout", "1", "--max-request-bytes", "4096"],
    );
    let url = format!("{}/chat/completions", proxy.base_url());
    // A proxy without its timeout would hang this test: the client gives up first.
    let client = reqwest::Client::builder()
        .timeout(Duration::from_secs(20))
        .build()
        .unwrap();
    let tools = plain_tools(&["read_file"]);
    runtime().block_on(async {
        let error_of =
            |text: &str| -> Value { serde_json::from_str::<Value>(text).unwrap()["error"].clone() };
        // Over the request cap: the upstream never sees it.
        let mut big = request_body("stall", &tools, false);
        big["messages"][0]["content"] = json!("x".repeat(5000));
        let response = client
            .post(&url)
            .body(big.to_string())
            .send()
            .await
            .unwrap();
        assert_eq!(response.status().as_u16(), 413);
        let error = error_of(&response.text().await.unwrap());
        assert_eq!(error["type"], "invalid_request_error", "{error}");
        assert_eq!(error["code"], "request_too_large", "{error}");
        assert!(
            error["message"].as_str().unwrap().contains("4096"),
            "{error}"
        );
        assert!(upstream.seen.lock().unwrap().is_empty());

        // A whole answer that never comes: a 504 after about a second.
        let began = Instant::now();
        let body = request_body("stall", &tools, false).to_string();
        let response = client.post(&url).body(body).send().await.unwrap();
        let waited = began.elapsed();
        assert_eq!(response.status().as_u16(), 504);
        let error = error_of(&response.text().await.unwrap());
        assert_eq!(error["type"], "upstream_error", "{error}");
        assert_eq!(error["code"], "upstream_timeout", "{error}");
        assert!(
            waited >= Duration::from_millis(900) && waited < Duration::from_secs(10),
            "{waited:?}"
        );

        // A stream that stalls mid-call: it ends, the call closed and cut.
        let began = Instant::now();
        let body = request_body("stall", &tools, true).to_string();
        let response = client.post(&url).body(body).send().await.unwrap();
        assert_eq!(response.status().as_u16(), 200);
        let text = response.text().await.unwrap();
        assert!(
            began.elapsed() < Duration::from_secs(10),
            "{:?}",
            began.elapsed()
        );
        let mut arguments = String::new();
        let mut verdict = Value::Null;
        for event in text.split("\n\n").filter_map(|e| e.strip_prefix("data: ")) {
            let chunk: Value = serde_json::from_str(event).unwrap();
            for call in chunk["choices"][0]["delta"]["tool_calls"]
                .as_array()
                .into_iter()
                .flatten()
            {
                arguments += call["function"]["arguments"].as_str().unwrap_or("");
                if !call["argmend"].is_null() {
                    verdict = call["argmend"].clone();
                }
            }
        }
        assert_eq!(
            serde_json::from_str::<Value>(&arguments).unwrap(),
            json!({"path": "a.js"}),
            "{text}"
        );
        assert_eq!(verdict["complete"], false, "{text}");
        assert_eq!(verdict["cut"], "stream_ended", "{text}");
    });
}

/// A client that trickles its request is not held: past `--client-timeout`
/// a paused body is a 408 (typed as the other limits), and a head that
/// never ends has its connection closed; the upstream sees neither.
#[test]
fn a_client_that_pauses_is_let_go() {
    use std::io::{Read, Write};
    let upstream = Upstream::start(BTreeMap::new());
    let proxy = Proxy::start_with(
        &format!("http://127.0.0.1:{}/v1", upstream.port),
        &["--client-timeout", "1"],
    );
    let connect = || {
        let stream = std::net::TcpStream::connect(("127.0.0.1", proxy.port)).unwrap();
        // A proxy that holds on fails the test here instead of hanging it.
        stream
            .set_read_timeout(Some(Duration::from_secs(20)))
            .unwrap();
        stream
    };
    // Half a body, then nothing.
    let mut stream = connect();
    let began = Instant::now();
    stream
        .write_all(b"POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{\"model\": ")
        .unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    let waited = began.elapsed();
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(answer.contains("\"code\":\"request_timeout\""), "{answer}");
    assert!(
        waited >= Duration::from_millis(900) && waited < Duration::from_secs(10),
        "{waited:?}"
    );
    // Half a head, then nothing: the connection closes.
    let mut stream = connect();
    let began = Instant::now();
    stream
        .write_all(b"POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\n")
        .unwrap();
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer);
    let waited = began.elapsed();
    assert!(
        waited >= Duration::from_millis(900) && waited < Duration::from_secs(10),
        "{waited:?}"
    );
    assert!(upstream.seen.lock().unwrap().is_empty());
}

/// `--max-connections`: at the cap the next connection waits, untaken,
/// until one ends, so the number of buffers the proxy holds is bounded.
#[test]
fn connections_over_the_cap_wait_their_turn() {
    let upstream = Upstream::start(BTreeMap::new());
    let proxy = Proxy::start_with(
        &format!("http://127.0.0.1:{}/v1", upstream.port),
        &["--max-connections", "2"],
    );
    let models = format!("{}/models", proxy.base_url());
    // Two connections that say nothing hold both places.
    let idle: Vec<_> = (0..2)
        .map(|_| std::net::TcpStream::connect(("127.0.0.1", proxy.port)).unwrap())
        .collect();
    std::thread::sleep(Duration::from_millis(300));
    let client = |seconds| {
        reqwest::Client::builder()
            .timeout(Duration::from_secs(seconds))
            .build()
            .unwrap()
    };
    runtime().block_on(async {
        let waited = client(1).get(&models).send().await;
        assert!(
            waited.as_ref().is_err_and(reqwest::Error::is_timeout),
            "a third connection was served: {waited:?}"
        );
        drop(idle);
        let response = client(10).get(&models).send().await.unwrap();
        assert_eq!(response.status().as_u16(), 200);
    });
}
