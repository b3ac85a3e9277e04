//! The envelope a model sends to a tool: `{"cmd": VERB, "args": {…}}`.
//!
//! Every tool reads it the same way and answers a malformed one the same way:
//! what was expected, with the tool's example calls.

use std::fmt;
use std::ops::RangeInclusive;

use serde_json::{Map, Value};

use crate::tools::Workspace;

/// One verb of a tool: what it does, the arguments it takes, and a valid
/// call. The same table checks a call's arguments, shows the examples in
/// error messages and writes the tool's input schema, so the three cannot
/// drift apart.
///
/// `H` is the tool's handler type: each verb carries the function that runs
/// it, so a tool's dispatch is a lookup in its table, with no arm that a
/// verb could lack.
pub(crate) struct Verb<H: 'static = ()> {
    pub(crate) name: &'static str,
    pub(crate) about: &'static str,
    pub(crate) args: &'static [&'static str],
    /// The arguments the verb cannot do without (besides one of `file` and
    /// `text`, for a verb that takes both).
    pub(crate) required: &'static [&'static str],
    pub(crate) example: &'static str,
    pub(crate) run: H,
}

/// One argument a tool's verbs take: its JSON type and what it means.
pub(crate) struct Param {
    pub(crate) name: &'static str,
    /// A JSON Schema type: `string`, `integer` or `boolean`.
    pub(crate) kind: &'static str,
    pub(crate) about: &'static str,
}

/// A tool's example calls (one per verb), written one per line, indented.
struct Examples<H: 'static>(&'static [Verb<H>]);

impl<H> Clone for Examples<H> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<H> Copy for Examples<H> {}

impl<H> fmt::Display for Examples<H> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (idx, verb) in self.0.iter().enumerate() {
            let sep = if idx == 0 { "" } else { "\n" };
            write!(f, "{sep}  {}", verb.example)?;
        }
        Ok(())
    }
}

/// The JSON Schema of a tool's envelope `{"cmd": VERB, "args": {…}}`: what
/// an MCP client or a model API shows the model. `args` lists every
/// argument any verb takes; each verb's own list is in the description of
/// `cmd`, and the examples are one valid call per verb.
pub(crate) fn input_schema<H>(about: &str, verbs: &[Verb<H>], params: &[Param]) -> Value {
    let mut cmd_about = String::from("The verb:");
    let mut rules = Vec::new();
    for verb in verbs {
        let either = verb.args.contains(&"file") && verb.args.contains(&"text");
        let mut needs: Vec<String> = verb
            .required
            .iter()
            .map(|name| (*name).to_owned())
            .collect();
        if either {
            needs.insert(0, "file or text".to_owned());
        }
        cmd_about.push_str(&format!(
            "\n- {}: {} (args: {}; required: {})",
            verb.name,
            verb.about,
            verb.args.join(", "),
            if needs.is_empty() {
                "none".to_owned()
            } else {
                needs.join(", ")
            }
        ));
        let mut then = serde_json::json!({"required": verb.required});
        if either {
            then["anyOf"] = serde_json::json!([{"required": ["file"]}, {"required": ["text"]}]);
        }
        rules.push(serde_json::json!({
            "if": {"properties": {"cmd": {"const": verb.name}}, "required": ["cmd"]},
            "then": {"properties": {"args": then}},
        }));
    }
    let mut properties = Map::new();
    for param in params {
        properties.insert(
            param.name.to_owned(),
            serde_json::json!({"type": param.kind, "description": param.about}),
        );
    }
    let examples: Vec<Value> = verbs
        .iter()
        .filter_map(|verb| serde_json::from_str(verb.example).ok())
        .collect();
    serde_json::json!({
        "type": "object",
        "description": about,
        "properties": {
            "cmd": {
                "type": "string",
                "enum": verbs.iter().map(|verb| verb.name).collect::<Vec<_>>(),
                "description": cmd_about,
            },
            "args": {
                "type": ["object", "string"],
                "description": "The verb's arguments (see `cmd` for which verb takes which): \
                    an object, or as a string a command line (`--file resp.json --path data`) \
                    or JSON, mended before use. May be left out when `cmd` holds the whole \
                    command line (`get --file resp.json --path data`).",
                "properties": properties,
                "additionalProperties": false,
            },
        },
        "required": ["cmd"],
        "additionalProperties": false,
        "allOf": rules,
        "examples": examples,
    })
}

/// The verb named `cmd` in a tool's table; the error is the message for the
/// model: the verbs there are, and one example call of each.
fn verb<H>(verbs: &'static [Verb<H>], cmd: &str) -> Result<&'static Verb<H>, ArgumentError> {
    verbs.iter().find(|verb| verb.name == cmd).ok_or_else(|| {
        let names: Vec<&str> = verbs.iter().map(|verb| verb.name).collect();
        let listed = match names.split_last() {
            Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
            _ => names.join(""),
        };
        ArgumentError(format!(
            "unknown verb {cmd:?}: the verbs are {listed}; e.g.\n{}",
            Examples(verbs)
        ))
    })
}

/// Read an envelope into its verb and arguments, for a tool with these
/// verbs. The error is the message for the model.
fn read<H>(
    envelope: &str,
    verbs: &'static [Verb<H>],
) -> Result<(String, Map<String, Value>), ArgumentError> {
    let value: Value = serde_json::from_str(envelope).map_err(|error| {
        ArgumentError(format!(
            "the call is not valid JSON ({error}); send {{\"cmd\": VERB, \"args\": {{…}}}}, e.g.\n{}",
            Examples(verbs)
        ))
    })?;
    from_value(&value, verbs)
}

/// [`read`] for an envelope already parsed (the runtime's normalized
/// arguments), so it is not written out as text to be parsed again.
fn from_value<H>(
    value: &Value,
    verbs: &'static [Verb<H>],
) -> Result<(String, Map<String, Value>), ArgumentError> {
    let examples = Examples(verbs);
    let problem = |message: String| Err(ArgumentError(message));
    let Value::Object(envelope) = value else {
        return problem(format!(
            "the call must be a JSON object {{\"cmd\": VERB, \"args\": {{…}}}}, e.g.\n{examples}"
        ));
    };
    let Some(Value::String(cmd)) = envelope.get("cmd") else {
        let names: Vec<&str> = verbs.iter().map(|verb| verb.name).collect();
        return problem(format!(
            "the call needs \"cmd\": one of {}; e.g.\n{examples}",
            names.join(", ")
        ));
    };
    let args = match envelope.get("args") {
        Some(Value::Object(args)) => args.clone(),
        None | Some(Value::Null) => Map::new(),
        Some(_) => return problem(format!("\"args\" must be an object; e.g.\n{examples}")),
    };
    if let Some(key) = envelope.keys().find(|k| *k != "cmd" && *k != "args") {
        return problem(format!(
            "unknown field `{key}` in the call: it has \"cmd\" and \"args\" only; e.g.\n{examples}"
        ));
    }
    Ok((cmd.clone(), args))
}

/// How a verb of a tool runs: its checked arguments in, the tool's answer
/// (or its own error) out.
pub(crate) type Handler<A, E> = fn(&Workspace, &Args<'_>) -> Result<A, E>;

/// A tool's verb table, read the three ways a call comes in. Every tool
/// takes a call the same way, so the reading, the lookup and the argument
/// check are written once here, and a tool's `call` and `dispatch` only name
/// its table.
pub(crate) struct Table<A: 'static, E: 'static>(pub(crate) &'static [Verb<Handler<A, E>>]);

impl<A, E: From<ArgumentError>> Table<A, E> {
    /// Run one call in the envelope form `{"cmd": VERB, "args": {…}}`.
    pub(crate) fn call(&self, workspace: &Workspace, envelope: &str) -> Result<A, E> {
        let (cmd, args) = read(envelope, self.0)?;
        self.dispatch(workspace, &cmd, &args)
    }

    /// [`Table::call`] on an envelope already parsed (the runtime's
    /// normalized arguments).
    pub(crate) fn call_value(&self, workspace: &Workspace, envelope: &Value) -> Result<A, E> {
        let (cmd, args) = from_value(envelope, self.0)?;
        self.dispatch(workspace, &cmd, &args)
    }

    /// Run the verb `cmd`: find it, check its arguments against the names it
    /// takes, and call its handler.
    pub(crate) fn dispatch(
        &self,
        workspace: &Workspace,
        cmd: &str,
        args: &Map<String, Value>,
    ) -> Result<A, E> {
        let verb = verb(self.0, cmd)?;
        let args = Args::of(verb, args)?;
        (verb.run)(workspace, &args)
    }
}

/// A tool's entry points: the public `input_schema`, `call` and `dispatch`,
/// `call_value` for the runtime, and its argument error from an
/// [`ArgumentError`]. They are the same in every tool but for the `Answer`
/// and `Error` their signatures name, so a macro writes them, in the tool's
/// module, over its `VERBS` and `PARAMS`: a new tool gets them right by
/// saying `entry_points!`. The tool gives the schema's description and the
/// docs of `input_schema` and `call`, whose examples are its own.
macro_rules! entry_points {
    (
        $(#[$schema_doc:meta])*
        fn input_schema($about:literal);
        $(#[$call_doc:meta])*
        fn call;
    ) => {
        $(#[$schema_doc])*
        pub fn input_schema() -> Value {
            envelope::input_schema($about, &VERBS, &PARAMS)
        }

        $(#[$call_doc])*
        pub fn call(workspace: &Workspace, envelope: &str) -> Result<Answer, Error> {
            Table(&VERBS).call(workspace, envelope)
        }

        /// [`call`] on an envelope already parsed (the runtime's normalized
        /// arguments).
        pub(crate) fn call_value(workspace: &Workspace, envelope: &Value) -> Result<Answer, Error> {
            Table(&VERBS).call_value(workspace, envelope)
        }

        /// Run one verb with its arguments (the envelope's `cmd` and `args`).
        pub fn dispatch(
            workspace: &Workspace,
            cmd: &str,
            args: &Map<String, Value>,
        ) -> Result<Answer, Error> {
            Table(&VERBS).dispatch(workspace, cmd, args)
        }

        impl From<ArgumentError> for Error {
            fn from(error: ArgumentError) -> Self {
                Error::argument(error.0)
            }
        }
    };
}
pub(crate) use entry_points;

/// A problem with a call's arguments, as the model reads it; each tool turns
/// it into its own argument error.
pub(crate) struct ArgumentError(pub(crate) String);

/// One verb's arguments, checked against the names it takes. Every problem
/// names the verb, says what it takes and shows the verb's example call.
pub(crate) struct Args<'a> {
    verb: &'a str,
    pub(crate) args: &'a Map<String, Value>,
    accepted: &'static [&'static str],
    example: &'static str,
}

impl<'a> Args<'a> {
    /// The arguments of `verb`, checked against the names it takes.
    pub(crate) fn of<H>(
        verb: &'a Verb<H>,
        args: &'a Map<String, Value>,
    ) -> Result<Self, ArgumentError> {
        Args::new(verb.name, args, verb.args, verb.example)
    }

    fn new(
        verb: &'a str,
        args: &'a Map<String, Value>,
        accepted: &'static [&'static str],
        example: &'static str,
    ) -> Result<Self, ArgumentError> {
        let this = Args {
            verb,
            args,
            accepted,
            example,
        };
        if let Some(key) = args.keys().find(|k| !accepted.contains(&k.as_str())) {
            // A command line's words beyond the verb's positional ones.
            if key == "positional" {
                let words = match &args[key] {
                    Value::Array(words) => words.iter().map(Value::to_string).collect(),
                    word => vec![word.to_string()],
                };
                return Err(this.invalid(&format!(
                    "{} more word{} than it takes ({}): give each argument once, as `--name value` when in doubt",
                    words.len(),
                    if words.len() == 1 { "" } else { "s" },
                    words.join(" ")
                )));
            }
            return Err(this.invalid(&format!("unknown argument `{key}`")));
        }
        Ok(this)
    }

    #[cold]
    pub(crate) fn invalid(&self, problem: &str) -> ArgumentError {
        ArgumentError(format!(
            "`{}`: {problem}; it takes {}; e.g.\n  {}",
            self.verb,
            self.accepted.join(", "),
            self.example
        ))
    }

    pub(crate) fn string(&self, name: &str) -> Result<&'a str, ArgumentError> {
        self.optional_string(name)?
            .ok_or_else(|| self.invalid(&format!("`{name}` is missing")))
    }

    /// A whole-number argument, `default` when absent or null. A number
    /// outside `accepted` (or not a whole number) is refused, naming `shown`
    /// as the range to give: a verb whose options check the upper end
    /// themselves, with a message of their own, accepts more than it shows.
    pub(crate) fn whole_number(
        &self,
        name: &str,
        default: usize,
        accepted: RangeInclusive<usize>,
        shown: RangeInclusive<usize>,
    ) -> Result<usize, ArgumentError> {
        let number = match self.args.get(name) {
            None | Some(Value::Null) => return Ok(default),
            Some(Value::Number(n)) => n.as_u64().and_then(|n| usize::try_from(n).ok()),
            Some(_) => None,
        };
        number.filter(|n| accepted.contains(n)).ok_or_else(|| {
            self.invalid(&format!(
                "`{name}` must be a whole number from {} to {}",
                shown.start(),
                shown.end()
            ))
        })
    }

    pub(crate) fn optional_string(&self, name: &str) -> Result<Option<&'a str>, ArgumentError> {
        match self.args.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(_) => Err(self.invalid(&format!("`{name}` must be a string"))),
        }
    }
}
