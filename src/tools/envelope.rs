//! The envelope a model sends to a tool: `{"cmd": VERB, "args": {…}}`.
//!
//! Every tool reads it the same way and answers a malformed one the same way:
//! what was expected, with the tool's example calls.

use std::fmt;

use serde_json::{Map, Value};

/// A tool's example calls, written one per line, indented.
#[derive(Clone, Copy)]
pub(crate) struct Examples(pub(crate) &'static [&'static str]);

impl fmt::Display for Examples {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (idx, example) in self.0.iter().enumerate() {
            let sep = if idx == 0 { "" } else { "\n" };
            write!(f, "{sep}  {example}")?;
        }
        Ok(())
    }
}

/// Read an envelope into its verb and arguments. The error is the message for
/// the model; `verbs` lists the tool's verbs for it ("get, keys, …").
pub(crate) fn read(
    envelope: &str,
    verbs: &str,
    examples: Examples,
) -> Result<(String, Map<String, Value>), String> {
    let value: Value = serde_json::from_str(envelope).map_err(|error| {
        format!(
            "the call is not valid JSON ({error}); send {{\"cmd\": VERB, \"args\": {{…}}}}, e.g.\n{examples}"
        )
    })?;
    let Value::Object(envelope) = value else {
        return Err(format!(
            "the call must be a JSON object {{\"cmd\": VERB, \"args\": {{…}}}}, e.g.\n{examples}"
        ));
    };
    let Some(Value::String(cmd)) = envelope.get("cmd") else {
        return Err(format!(
            "the call needs \"cmd\": one of {verbs}; e.g.\n{examples}"
        ));
    };
    let args = match envelope.get("args") {
        Some(Value::Object(args)) => args.clone(),
        None | Some(Value::Null) => Map::new(),
        Some(_) => return Err(format!("\"args\" must be an object; e.g.\n{examples}")),
    };
    if let Some(key) = envelope.keys().find(|k| *k != "cmd" && *k != "args") {
        return Err(format!(
            "unknown field `{key}` in the call: it has \"cmd\" and \"args\" only; e.g.\n{examples}"
        ));
    }
    Ok((cmd.clone(), args))
}
