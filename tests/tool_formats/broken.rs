//! Broken calls in every format: the calls of the quoted-code and
//! real-calls generators (code with unescaped quotes, truth known), written
//! in each wire format and streamed in random chunks, whole and cut off,
//! scored against the truth beside the same calls through the client
//! adapters (`normalize_tool_args_with`, which `stream_corruptions` shows
//! the adapters give whatever the chunking).
//!
//! How each format writes a call's arguments decides what can break:
//! - JSON formats carry the generator's broken JSON as it is, so they must
//!   give what the adapters give;
//! - parameter formats (Qwen3-Coder, GLM, MiniMax, DSML, …) write a
//!   string's text raw, with no quote to escape: the truth's values go in
//!   as the chat templates write them (text as is, the rest as JSON);
//! - Python formats write strings in single quotes with the inner single
//!   quotes left unescaped (the same mistake in Python's syntax);
//! - Gemma writes strings between its marker.
//!
//! The bar is the adapters': no call comes back complete, and closed, with
//! arguments other than the truth unless a doubt says so (where the
//! adapters give the truth), at least their rate of right calls in every
//! format, and cut calls that keep the text read.

use std::fmt::Write as _;

use argmend::{CallParser, Event, Format, ToolMap, ToolOptions};
use serde_json::{Value, json};

use crate::rng::Rng;

/// One call in a format: the model text, or `None` for a format this test
/// does not write (no call layout the generators' calls fit).
pub(super) fn write(format: &str, tool: &str, raw: &str, truth: &Value) -> Option<String> {
    let json = |name_key: &str, args_key: &str| {
        format!("{{\"{name_key}\": \"{tool}\", \"{args_key}\": {raw}}}")
    };
    let call = json("name", "arguments");
    let text = match format {
        "hermes" => format!("<tool_call>\n{call}\n</tool_call>"),
        "longcat" => format!("<longcat_tool_call>{call}</longcat_tool_call>"),
        "qwen25_coder" => format!("<tools>\n{call}\n</tools>"),
        "mistral_v3" => format!("[TOOL_CALLS][{call}]"),
        "mistral_v11" => format!("[TOOL_CALLS]{tool}[ARGS]{raw}"),
        "granite" => format!("<|tool_call|>[{call}]"),
        "granite_20b_fc" => format!("<function_call> {call}"),
        "phi4_mini" => format!("functools[{call}]"),
        "xlam" => format!("[{call}]"),
        "llama3_json" => json("name", "parameters"),
        "internlm2" => format!(
            "<|action_start|><|plugin|>{}<|action_end|>",
            json("name", "parameters")
        ),
        "jamba" => format!("<tool_calls>[{call}]</tool_calls>"),
        "gigachat3" => format!("<|message_sep|>\n\nfunction call<|role_sep|>\n{call}"),
        "gigachat31" => format!("<|function_call|>{call}"),
        "cohere_command3" => format!(
            "<|START_ACTION|>[{{\"tool_call_id\": \"0\", \"tool_name\": \"{tool}\", \"parameters\": {raw}}}]<|END_ACTION|>"
        ),
        "apertus" => format!("<|tools_prefix|>[{{\"{tool}\": {raw}}}]<|tools_suffix|>"),
        "kimi_k2" => format!(
            "<|tool_calls_section_begin|><|tool_call_begin|>functions.{tool}:0<|tool_call_argument_begin|>{raw}<|tool_call_end|><|tool_calls_section_end|>"
        ),
        "gpt_oss" => format!(
            "<|start|>assistant<|channel|>commentary to=functions.{tool} <|constrain|>json<|message|>{raw}<|call|>"
        ),
        "deepseek_v3" => format!(
            "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>{tool}\n```json\n{raw}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>"
        ),
        "qwen3_coder" => format!(
            "<tool_call>\n<function={tool}>\n{}</function>\n</tool_call>",
            params(truth, |k, v| format!(
                "<parameter={k}>\n{v}\n</parameter>\n"
            ))
        ),
        "seed_oss" => format!(
            "<seed:tool_call>\n<function={tool}>\n{}</function>\n</seed:tool_call>",
            params(truth, |k, v| format!(
                "<parameter={k}>\n{v}\n</parameter>\n"
            ))
        ),
        "minimax_m2" => format!(
            "<minimax:tool_call>\n<invoke name=\"{tool}\">\n{}</invoke>\n</minimax:tool_call>",
            params(truth, |k, v| format!(
                "<parameter name=\"{k}\">{v}</parameter>\n"
            ))
        ),
        "dots" => format!(
            "<dots_function_call><invoke name=\"{tool}\">{}</invoke></dots_function_call>",
            params(truth, |k, v| format!(
                "<parameter name=\"{k}\">{v}</parameter>"
            ))
        ),
        "deepseek_v32" | "deepseek_v4" => {
            let block = if format == "deepseek_v32" {
                "function_calls"
            } else {
                "tool_calls"
            };
            format!(
                "<｜DSML｜{block}>\n<｜DSML｜invoke name=\"{tool}\">\n{}</｜DSML｜invoke>\n</｜DSML｜{block}>",
                params_typed(truth, |k, v, string| format!(
                    "<｜DSML｜parameter name=\"{k}\" string=\"{string}\">{v}</｜DSML｜parameter>\n"
                ))
            )
        }
        "step3" => format!(
            "<｜tool_calls_begin｜><｜tool_call_begin｜><steptml:invoke name=\"{tool}\">{}</steptml:invoke><｜tool_call_end｜><｜tool_calls_end｜>",
            params(truth, |k, v| format!(
                "<steptml:parameter name=\"{k}\">{v}</steptml:parameter>"
            ))
        ),
        "glm45" => format!(
            "<tool_call>{tool}\n{}</tool_call>",
            params(truth, |k, v| format!(
                "<arg_key>{k}</arg_key>\n<arg_value>{v}</arg_value>\n"
            ))
        ),
        "hy_v4" => format!(
            "<tool_calls:opensource><tool_call:opensource>{tool}{}</tool_call:opensource></tool_calls:opensource>",
            params(truth, |k, v| format!(
                "<arg_key:opensource>{k}</arg_key:opensource><arg_value:opensource>{v}</arg_value:opensource>"
            ))
        ),
        "gemma4" => format!(
            "<|tool_call>call:{tool}{}<tool_call|>",
            gemma(truth, "<|\"|>")
        ),
        "functiongemma" => format!(
            "<start_function_call>call:{tool}{}<end_function_call>",
            gemma(truth, "<escape>")
        ),
        "pythonic" => format!("[{tool}({})]", python(truth)),
        "llama4_pythonic" => format!("<|python_start|>[{tool}({})]<|python_end|>", python(truth)),
        "olmo3" => format!("<function_calls>{tool}({})</function_calls>", python(truth)),
        "lfm2" => format!(
            "<|tool_call_start|>[{tool}({})]<|tool_call_end|>",
            python(truth)
        ),
        "granite_pythonic" => format!("{tool}({})", python(truth)),
        _ => return None,
    };
    Some(format!("Let me do that.\n{text}"))
}

/// The truth's members as parameters: text as it is, anything else as JSON
/// (what the chat templates write).
fn params(truth: &Value, param: impl Fn(&str, &str) -> String) -> String {
    params_typed(truth, |k, v, _| param(k, v))
}

fn params_typed(truth: &Value, param: impl Fn(&str, &str, bool) -> String) -> String {
    let mut out = String::new();
    for (key, value) in truth.as_object().into_iter().flatten() {
        match value {
            Value::String(text) => out.push_str(&param(key, text, true)),
            other => out.push_str(&param(key, &other.to_string(), false)),
        }
    }
    out
}

/// The truth as Gemma's argument object.
fn gemma(value: &Value, quote: &str) -> String {
    match value {
        Value::String(text) => format!("{quote}{text}{quote}"),
        Value::Object(members) => {
            let members: Vec<String> = members
                .iter()
                .map(|(key, value)| format!("{key}:{}", gemma(value, quote)))
                .collect();
            format!("{{{}}}", members.join(","))
        }
        Value::Array(items) => {
            let items: Vec<String> = items.iter().map(|item| gemma(item, quote)).collect();
            format!("[{}]", items.join(","))
        }
        other => other.to_string(),
    }
}

/// The truth as Python keyword arguments, strings in single quotes with
/// their backslashes and line breaks escaped and their single quotes not:
/// the model's mistake, in Python.
fn python(truth: &Value) -> String {
    let mut out = String::new();
    for (n, (key, value)) in truth.as_object().into_iter().flatten().enumerate() {
        if n > 0 {
            out.push_str(", ");
        }
        let _ = write!(out, "{key}=");
        match value {
            Value::String(text) => {
                out.push('\'');
                for c in text.chars() {
                    match c {
                        '\\' => out.push_str("\\\\"),
                        '\n' => out.push_str("\\n"),
                        '\t' => out.push_str("\\t"),
                        '\r' => out.push_str("\\r"),
                        c => out.push(c),
                    }
                }
                out.push('\'');
            }
            Value::Bool(true) => out.push_str("True"),
            Value::Bool(false) => out.push_str("False"),
            Value::Null => out.push_str("None"),
            other => out.push_str(&other.to_string()),
        }
    }
    out
}

/// What the parser made of one call.
struct Got {
    args: Option<Value>,
    doubted: bool,
    complete: bool,
    closed: bool,
}

fn parse(format: Format, tools: &Value, text: &str, rng: &mut Rng) -> Option<Got> {
    let options = ToolOptions::default().tools(ToolMap::from_openai_tools(tools));
    let mut parser = CallParser::with_format(format, options);
    let mut events = Vec::new();
    let mut rest = text.as_bytes();
    while !rest.is_empty() {
        let n = (1 + rng.below(24)).min(rest.len());
        events.extend(parser.feed(&rest[..n]));
        rest = &rest[n..];
    }
    events.extend(parser.finish());
    events.into_iter().find_map(|event| match event {
        Event::CallReady {
            args,
            doubts,
            complete,
            closed,
            ..
        } => Some(Got {
            args: serde_json::from_str(&args).ok(),
            doubted: !doubts.is_empty(),
            complete,
            closed,
        }),
        Event::Error { .. } => Some(Got {
            args: None,
            doubted: false,
            complete: false,
            closed: false,
        }),
        _ => None,
    })
}

/// Whether a cut call kept the text read: every string a prefix of its
/// truth, every other value equal, no key the truth lacks.
fn keeps_text(got: &Value, truth: &Value) -> bool {
    let (Some(got), Some(truth)) = (got.as_object(), truth.as_object()) else {
        return false;
    };
    got.iter()
        .all(|(key, value)| match (value, truth.get(key)) {
            // A value the cut came before: nothing read, as the engine writes it.
            (Value::Null, Some(_)) => true,
            (Value::String(got), Some(Value::String(truth))) => truth.starts_with(got.as_str()),
            // A number cut short keeps the digits it has.
            (Value::Number(got), Some(Value::Number(truth))) => {
                truth.to_string().starts_with(&got.to_string())
            }
            (got, Some(truth)) => got == truth,
            (_, None) => false,
        })
}

/// Right, wrong with a doubt, wrong and complete without one; cut calls,
/// those that kept their text, cut calls reported complete and closed.
#[derive(Default, Clone, Copy)]
struct Tally {
    whole: usize,
    right: usize,
    doubted: usize,
    silent: usize,
    cut: usize,
    kept: usize,
    cut_complete: usize,
}

#[test]
fn generated_broken_calls_in_every_format() {
    let quoted = crate::quoted_code::cases();
    let real = crate::real_calls::cases();
    let cases: Vec<_> = (quoted.iter().step_by(4))
        .chain(real.iter().step_by(10))
        .collect();
    // The adapters' answers on the same calls.
    let mut adapters = Tally::default();
    let mut adapters_right = Vec::new();
    for (tool, raw, truth, schema) in &cases {
        let options = ToolOptions::default().schema(schema.clone());
        let normalized = argmend::normalize_tool_args_with(tool, raw, &options);
        adapters.whole += 1;
        adapters_right.push(normalized.to_value().as_ref() == Some(truth));
        match (
            normalized.to_value().as_ref() == Some(truth),
            normalized.doubts().is_empty(),
        ) {
            (true, _) => adapters.right += 1,
            (false, false) => adapters.doubted += 1,
            (false, true) => adapters.silent += 1,
        }
    }
    let mut rng = Rng::new(44);
    let mut silent = Vec::new();
    let mut rows = Vec::new();
    for format in Format::all() {
        let mut tally = Tally::default();
        for (n, (tool, raw, truth, schema)) in cases.iter().enumerate() {
            let Some(text) = write(format.name(), tool, raw, truth) else {
                continue;
            };
            let tools =
                json!([{"type": "function", "function": {"name": tool, "parameters": schema}}]);
            let whole = parse(format, &tools, &text, &mut rng).unwrap_or_else(|| {
                panic!("{format}: no call in {text}");
            });
            tally.whole += 1;
            let right = whole.args.as_ref() == Some(truth);
            if !right && std::env::var("ARGMEND_SHOW_WRONG").is_ok_and(|name| name == format.name())
            {
                std::fs::write(format!("/tmp/wrong-{n}.txt"), &text).unwrap();
                println!("wrong {n}: got {:?}", whole.args);
            }
            match (right, whole.doubted) {
                (true, _) => tally.right += 1,
                (false, true) => tally.doubted += 1,
                (false, false) => {
                    tally.silent += 1;
                    if whole.complete && whole.closed && adapters_right[n] {
                        silent.push(format!(
                            "{format}: {text}\n  got  {:?}\n  want {truth}",
                            whole.args
                        ));
                    }
                }
            }
            if n % 4 != 0 {
                continue;
            }
            // Cut off somewhere in the second half of the text.
            let mut cut = text.len() / 2 + rng.below(text.len() / 2 - 1);
            while !text.is_char_boundary(cut) {
                cut -= 1;
            }
            let Some(got) = parse(format, &tools, &text[..cut], &mut rng) else {
                continue;
            };
            tally.cut += 1;
            // A cut right after a closer (`…}` and nothing more) looks like
            // a finished call to anyone without the stream's stop reason.
            let looks_finished = text[..cut].trim_end().ends_with(['}', ']', ')']);
            if got.complete && got.closed {
                tally.cut_complete += 1;
                if got.args.as_ref() != Some(truth)
                    && !got.doubted
                    && adapters_right[n]
                    && !looks_finished
                {
                    silent.push(format!(
                        "{format}, cut: {}\n  got  {:?}\n  want {truth}",
                        &text[..cut],
                        got.args
                    ));
                }
            }
            if got
                .args
                .as_ref()
                .is_some_and(|args| keeps_text(args, truth))
            {
                tally.kept += 1;
            } else if std::env::var_os("ARGMEND_SHOW_CUTS").is_some() {
                println!(
                    "{format} cut: {:?}\n  got {:?}",
                    &text[text.len().saturating_sub(300).min(cut)..cut],
                    got.args
                );
            }
        }
        if tally.whole > 0 {
            rows.push((format, tally));
        }
    }
    let rate = |part: usize, whole: usize| 100.0 * part as f64 / whole.max(1) as f64;
    println!(
        "adapters: {} calls, {:.1}% right, {} wrong with a doubt, {} wrong without one",
        adapters.whole,
        rate(adapters.right, adapters.whole),
        adapters.doubted,
        adapters.silent
    );
    println!(
        "{:<18} {:>6} {:>7} {:>8} {:>7} {:>5} {:>7}",
        "format", "calls", "right%", "doubted", "silent", "cut", "kept%"
    );
    for (format, tally) in &rows {
        println!(
            "{:<18} {:>6} {:>7.1} {:>8} {:>7} {:>5} {:>7.1}",
            format.name(),
            tally.whole,
            rate(tally.right, tally.whole),
            tally.doubted,
            tally.silent,
            tally.cut,
            rate(tally.kept, tally.cut)
        );
    }
    assert!(silent.is_empty(), "{}", silent.join("\n"));
    for (format, tally) in &rows {
        // At least the adapters' accuracy on the same calls.
        assert!(
            tally.right * adapters.whole >= adapters.right * tally.whole,
            "{format}: {:.1}% right, the adapters {:.1}%",
            rate(tally.right, tally.whole),
            rate(adapters.right, adapters.whole)
        );
        assert!(
            tally.kept * 100 >= tally.cut * 99,
            "{format}: {:.1}% of cut calls kept their text",
            rate(tally.kept, tally.cut)
        );
    }
}
