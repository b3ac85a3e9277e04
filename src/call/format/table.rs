//! The formats, as data: one entry per wire format of tool calls that
//! open-weight models write (the list vLLM's tool parsers cover). The
//! machine reads only this; see `spec.rs` for what each field means.

use super::spec::{Args, Bare, Calls, Index, Named, Object, Params, Spec};
use super::value::{Kinds, Trim};

/// A JSON call object in a block: `{"name": …, "arguments": …}`.
const fn objects(
    name: &'static str,
    aliases: &'static [&'static str],
    shape: &'static str,
    open: &'static [&'static str],
    close: &'static [&'static str],
) -> Spec {
    Spec {
        name,
        aliases,
        shape,
        open,
        close,
        separators: &[],
        bare: Bare::No,
        quiet: &[],
        detect: &[],
        calls: Calls::Objects(Object::Fields),
    }
}

/// Python calls `name(key=value)` in a block.
const fn python(
    name: &'static str,
    shape: &'static str,
    open: &'static [&'static str],
    close: &'static [&'static str],
    bare: Bare,
) -> Spec {
    Spec {
        name,
        aliases: &[],
        shape,
        open,
        close,
        separators: &[],
        bare,
        quiet: &[],
        detect: &[],
        calls: Calls::Python,
    }
}

/// Qwen3-Coder's parameters: `<parameter=K>\nV\n</parameter>`, one line
/// break trimmed on each side, text unless the schema says otherwise.
const QWEN_PARAMS: Params = Params {
    open: "<parameter=",
    key_end: ">",
    key_tail: None,
    value_open: None,
    value_close: "</parameter>",
    trim: Trim::Newline,
    untyped: Kinds::STRING,
    string_attr: None,
};

/// `<function=N>…</function>`, the calls of Qwen3-Coder, Step-3.5 and Seed-OSS.
const QWEN_CALL: Named = Named {
    start: &["<function="],
    name_end: &[">"],
    name_prefix: &[],
    name_index: Index::No,
    name_tail: None,
    args: Args::Params(QWEN_PARAMS),
    end: &["</function>"],
    objects: None,
};

/// `<invoke name="N"><parameter name="K">V</parameter></invoke>`: MiniMax-M2, dots.
const INVOKE_CALL: Named = Named {
    start: &["<invoke name=\""],
    name_end: &["\""],
    name_prefix: &[],
    name_index: Index::No,
    name_tail: Some(">"),
    args: Args::Params(Params {
        open: "<parameter name=\"",
        key_end: "\"",
        key_tail: Some(">"),
        value_open: None,
        value_close: "</parameter>",
        trim: Trim::No,
        untyped: Kinds::STRING,
        string_attr: None,
    }),
    end: &["</invoke>"],
    objects: None,
};

/// DeepSeek's DSML: `<｜DSML｜invoke name="N">` and
/// `<｜DSML｜parameter name="K" string="true">V</｜DSML｜parameter>`.
const DSML_CALL: Named = Named {
    start: &["<｜DSML｜invoke name=\""],
    name_end: &["\""],
    name_prefix: &[],
    name_index: Index::No,
    name_tail: Some(">"),
    args: Args::Params(Params {
        open: "<｜DSML｜parameter name=\"",
        key_end: "\"",
        key_tail: Some(">"),
        value_open: None,
        value_close: "</｜DSML｜parameter>",
        trim: Trim::No,
        untyped: Kinds::ANY,
        string_attr: Some("string=\"true\""),
    }),
    end: &["</｜DSML｜invoke>"],
    objects: None,
};

/// GLM's `NAME<arg_key>K</arg_key><arg_value>V</arg_value>`; a value is
/// JSON when it reads as JSON (the template writes non-strings with `tojson`).
const fn glm_call(
    key_open: &'static str,
    key_close: &'static str,
    value_open: &'static str,
    value_close: &'static str,
    untyped: Kinds,
) -> Named {
    Named {
        start: &[],
        name_end: &["\n"],
        name_prefix: &[],
        name_index: Index::No,
        name_tail: None,
        args: Args::Params(Params {
            open: key_open,
            key_end: key_close,
            key_tail: None,
            value_open: Some(value_open),
            value_close,
            trim: Trim::No,
            untyped,
            string_attr: None,
        }),
        end: &[],
        objects: None,
    }
}

/// Every format, in the order `argmend call --help` lists them.
pub(crate) static FORMATS: &[Spec] = &[
    objects(
        "hermes",
        &["granite4", "ernie45", "qwen2", "qwen25", "nous"],
        "<tool_call>{\"name\": N, \"arguments\": {…}}</tool_call>",
        &["<tool_call>"],
        &["</tool_call>"],
    ),
    Spec {
        detect: &["<longcat_tool_call>"],
        ..objects(
            "longcat",
            &[],
            "<longcat_tool_call>{\"name\": N, \"arguments\": {…}}</longcat_tool_call>",
            &["<longcat_tool_call>"],
            &["</longcat_tool_call>"],
        )
    },
    objects(
        "qwen25_coder",
        &[],
        "<tools>{\"name\": N, \"arguments\": {…}}</tools>",
        &["<tools>", "<tool_call>"],
        &["</tools>", "</tool_call>"],
    ),
    objects(
        "mistral_v3",
        &["mistral"],
        "[TOOL_CALLS][{\"name\": N, \"arguments\": {…}}, …]",
        &["[TOOL_CALLS]"],
        &[],
    ),
    Spec {
        name: "mistral_v11",
        aliases: &["devstral", "magistral"],
        shape: "[TOOL_CALLS]N[ARGS]{…} or [TOOL_CALLS]N{…}, once per call",
        open: &["[TOOL_CALLS]"],
        close: &[],
        separators: &[],
        bare: Bare::No,
        quiet: &[],
        detect: &[],
        calls: Calls::Named(Named {
            start: &[],
            name_end: &[],
            name_prefix: &[],
            name_index: Index::No,
            name_tail: None,
            args: Args::Json {
                open: &["[ARGS]"],
                close: &[],
            },
            end: &[],
            objects: None,
        }),
    },
    Spec {
        detect: &["<|tool_call|>"],
        ..objects(
            "granite",
            &[],
            "<|tool_call|>[{\"name\": N, \"arguments\": {…}}, …]",
            &["<|tool_call|>", "<tool_call>"],
            &[],
        )
    },
    objects(
        "granite_20b_fc",
        &["granite-20b-fc"],
        "<function_call> {\"name\": N, \"arguments\": {…}}, once per call",
        &["<function_call>"],
        &[],
    ),
    objects(
        "phi4_mini",
        &["phi4_mini_json"],
        "functools[{\"name\": N, \"arguments\": {…}}, …]",
        &["functools"],
        &[],
    ),
    Spec {
        bare: Bare::Json,
        ..objects(
            "xlam",
            &[],
            "[{\"name\": N, \"arguments\": {…}}, …], bare, fenced, after [TOOL_CALLS] or in <tool_call>",
            &["[TOOL_CALLS]", "<tool_call>", "```json"],
            &["", "</tool_call>", "```"],
        )
    },
    Spec {
        bare: Bare::Json,
        separators: &[";"],
        ..objects(
            "llama3_json",
            &["llama3", "llama"],
            "{\"name\": N, \"parameters\": {…}}; …, bare or after <|python_tag|>",
            &["<|python_tag|>"],
            &["<|eom_id|>", "<|eot_id|>"],
        )
    },
    Spec {
        detect: &["<|action_start|><|plugin|>"],
        ..objects(
            "internlm2",
            &["internlm"],
            "<|action_start|><|plugin|>{\"name\": N, \"parameters\": {…}}<|action_end|>",
            &["<|action_start|><|plugin|>"],
            &["<|action_end|>"],
        )
    },
    Spec {
        quiet: &[("<think>", "</think>")],
        detect: &[],
        ..objects(
            "jamba",
            &["minimax_m1", "minimax", "hunyuan", "hunyuan_a13b"],
            "<tool_calls>[{\"name\": N, \"arguments\": {…}}, …]</tool_calls> (or one object per line)",
            &["<tool_calls>"],
            &["</tool_calls>"],
        )
    },
    Spec {
        detect: &["<|message_sep|>\n\nfunction call<|role_sep|>\n"],
        ..objects(
            "gigachat3",
            &[],
            "<|message_sep|>\\n\\nfunction call<|role_sep|>\\n{\"name\": N, \"arguments\": {…}}",
            &[
                "<|message_sep|>\n\nfunction call<|role_sep|>\n",
                "function call<|role_sep|>\n",
            ],
            &[],
        )
    },
    Spec {
        detect: &["<|function_call|>"],
        ..objects(
            "gigachat31",
            &[],
            "<|function_call|>{\"name\": N, \"arguments\": {…}}",
            &["<|function_call|>"],
            &[],
        )
    },
    Spec {
        detect: &["<|START_ACTION|>"],
        ..objects(
            "cohere_command3",
            &["cohere_command4", "cohere"],
            "<|START_ACTION|>[{\"tool_call_id\": …, \"tool_name\": N, \"parameters\": {…}}]<|END_ACTION|>",
            &["<|START_ACTION|>"],
            &["<|END_ACTION|>"],
        )
    },
    Spec {
        calls: Calls::Objects(Object::Keyed),
        detect: &["<|tools_prefix|>"],
        ..objects(
            "apertus",
            &[],
            "<|tools_prefix|>[{N: {…}}, …]<|tools_suffix|>",
            &["<|tools_prefix|>"],
            &["<|tools_suffix|>"],
        )
    },
    Spec {
        name: "kimi_k2",
        aliases: &["kimi"],
        shape: "<|tool_calls_section_begin|><|tool_call_begin|>functions.N:0<|tool_call_argument_begin|>{…}<|tool_call_end|>…<|tool_calls_section_end|>",
        open: &["<|tool_calls_section_begin|>"],
        close: &["<|tool_calls_section_end|>"],
        separators: &[],
        bare: Bare::No,
        quiet: &[],
        detect: &["<|tool_calls_section_begin|>"],
        calls: Calls::Named(Named {
            start: &["<|tool_call_begin|>"],
            name_end: &[" ", "\n"],
            name_prefix: &["functions."],
            name_index: Index::Colon,
            name_tail: None,
            args: Args::Json {
                open: &["<|tool_call_argument_begin|>"],
                close: &["<|tool_call_end|>"],
            },
            end: &[],
            objects: None,
        }),
    },
    Spec {
        name: "gpt_oss",
        aliases: &["harmony", "openai"],
        shape: "<|channel|>commentary to=functions.N <|constrain|>json<|message|>{…}<|call|>",
        open: &["to=functions."],
        close: &[],
        separators: &[],
        bare: Bare::No,
        quiet: &[],
        detect: &["<|channel|>", "<|start|>"],
        calls: Calls::Named(Named {
            start: &[],
            name_end: &[" "],
            name_prefix: &[],
            name_index: Index::No,
            name_tail: None,
            args: Args::Json {
                open: &["<|message|>"],
                close: &["<|call|>", "<|end|>"],
            },
            end: &[],
            objects: None,
        }),
    },
    Spec {
        name: "deepseek_v3",
        aliases: &["deepseek_v31", "deepseek_r1", "deepseek"],
        shape: "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>N\\n```json\\n{…}\\n```<｜tool▁call▁end｜>… (V3), or N<｜tool▁sep｜>{…} (V3.1)",
        open: &["<｜tool▁calls▁begin｜>"],
        close: &["<｜tool▁calls▁end｜>"],
        separators: &[],
        bare: Bare::No,
        quiet: &[],
        detect: &["<｜tool▁calls▁begin｜>"],
        calls: Calls::Named(Named {
            start: &["<｜tool▁call▁begin｜>"],
            name_end: &["<｜tool▁sep｜>", "\n"],
            name_prefix: &["function<｜tool▁sep｜>"],
            name_index: Index::No,
            name_tail: None,
            // V3 fences the JSON: the fence's lines are markers, so the
            // engine reads the JSON alone.
            args: Args::Json {
                open: &["```json\n", "```json", "```\n"],
                close: &[
                    "\n```<｜tool▁call▁end｜>",
                    "```<｜tool▁call▁end｜>",
                    "<｜tool▁call▁end｜>",
                ],
            },
            end: &[],
            objects: None,
        }),
    },
    Spec {
        name: "deepseek_v32",
        aliases: &["dsml"],
        shape: "<｜DSML｜function_calls><｜DSML｜invoke name=\"N\"><｜DSML｜parameter name=\"K\" string=\"true\">V</｜DSML｜parameter></｜DSML｜invoke></｜DSML｜function_calls>",
        open: &["<｜DSML｜function_calls>"],
        close: &["</｜DSML｜function_calls>"],
        separators: &[],
        bare: Bare::No,
        quiet: &[],
        detect: &["<｜DSML｜function_calls>"],
        calls: Calls::Named(DSML_CALL),
    },
    Spec {
        name: "deepseek_v4",
        aliases: &[],
        shape: "<｜DSML｜tool_calls><｜DSML｜invoke name=\"N\">…</｜DSML｜invoke></｜DSML｜tool_calls>",
        open: &["<｜DSML｜tool_calls>"],
        close: &["</｜DSML｜tool_calls>"],
        separators: &[],
        bare: Bare::No,
        quiet: &[],
        detect: &["<｜DSML｜tool_calls>"],
        calls: Calls::Named(DSML_CALL),
    },
    Spec {
        name: "qwen3_coder",
        aliases: &["qwen3_xml", "qwen3", "qwen35", "step3p5"],
        shape: "<tool_call><function=N><parameter=K>V</parameter></function></tool_call>",
        open: &["<tool_call>", "<function="],
        close: &["</tool_call>"],
        separators: &[],
        bare: Bare::No,
        quiet: &[],
        detect: &[],
        calls: Calls::Named(QWEN_CALL),
    },
    Spec {
        name: "seed_oss",
        aliases: &["seed"],
        shape: "<seed:tool_call><function=N><parameter=K>V</parameter></function></seed:tool_call>",
        open: &["<seed:tool_call>"],
        close: &["</seed:tool_call>"],
        separators: &[],
        bare: Bare::No,
        quiet: &[("<seed:think>", "</seed:think>")],
        detect: &["<seed:tool_call>"],
        calls: Calls::Named(QWEN_CALL),
    },
    Spec {
        name: "minimax_m2",
        aliases: &[],
        shape: "<minimax:tool_call><invoke name=\"N\"><parameter name=\"K\">V</parameter></invoke></minimax:tool_call>",
        open: &["<minimax:tool_call>"],
        close: &["</minimax:tool_call>"],
        separators: &[],
        bare: Bare::No,
        quiet: &[],
        detect: &["<minimax:tool_call>"],
        calls: Calls::Named(INVOKE_CALL),
    },
    Spec {
        name: "dots",
        aliases: &[],
        shape: "<dots_function_call><invoke name=\"N\"><parameter name=\"K\">V</parameter></invoke></dots_function_call>, or a JSON call object inside",
        open: &["<dots_function_call>"],
        close: &["</dots_function_call>"],
        separators: &[],
        bare: Bare::No,
        quiet: &[],
        detect: &["<dots_function_call>"],
        calls: Calls::Named(Named {
            objects: Some(Object::Fields),
            ..INVOKE_CALL
        }),
    },
    Spec {
        name: "step3",
        aliases: &[],
        shape: "<｜tool_calls_begin｜><｜tool_call_begin｜><steptml:invoke name=\"N\"><steptml:parameter name=\"K\">V</steptml:parameter></steptml:invoke><｜tool_call_end｜><｜tool_calls_end｜>",
        open: &["<｜tool_calls_begin｜>"],
        close: &["<｜tool_calls_end｜>"],
        separators: &[
            "<｜tool_call_begin｜>",
            "<｜tool_call_end｜>",
            "<｜tool_sep｜>",
        ],
        bare: Bare::No,
        quiet: &[],
        detect: &["<｜tool_calls_begin｜>"],
        calls: Calls::Named(Named {
            start: &["<steptml:invoke name=\""],
            name_end: &["\""],
            name_prefix: &[],
            name_index: Index::No,
            name_tail: Some(">"),
            args: Args::Params(Params {
                open: "<steptml:parameter name=\"",
                key_end: "\"",
                key_tail: Some(">"),
                value_open: None,
                value_close: "</steptml:parameter>",
                trim: Trim::No,
                untyped: Kinds::ANY,
                string_attr: None,
            }),
            end: &["</steptml:invoke>"],
            objects: None,
        }),
    },
    Spec {
        name: "glm45",
        aliases: &["glm47", "glm4_moe", "glm"],
        shape: "<tool_call>N\\n<arg_key>K</arg_key><arg_value>V</arg_value></tool_call>",
        open: &["<tool_call>"],
        close: &["</tool_call>"],
        separators: &[],
        bare: Bare::No,
        quiet: &[],
        detect: &[],
        calls: Calls::Named(glm_call(
            "<arg_key>",
            "</arg_key>",
            "<arg_value>",
            "</arg_value>",
            Kinds::ANY,
        )),
    },
    Spec {
        name: "hy_v4",
        aliases: &["hunyuan_v4"],
        shape: "<tool_calls:opensource><tool_call:opensource>N<arg_key:opensource>K</arg_key:opensource><arg_value:opensource>V</arg_value:opensource></tool_call:opensource></tool_calls:opensource>",
        open: &["<tool_calls:opensource>"],
        close: &["</tool_calls:opensource>"],
        separators: &[],
        bare: Bare::No,
        quiet: &[],
        detect: &["<tool_calls:opensource>"],
        calls: Calls::Named(Named {
            start: &["<tool_call:opensource>"],
            end: &["</tool_call:opensource>"],
            ..glm_call(
                "<arg_key:opensource>",
                "</arg_key:opensource>",
                "<arg_value:opensource>",
                "</arg_value:opensource>",
                Kinds::STRING,
            )
        }),
    },
    Spec {
        name: "gemma4",
        aliases: &["gemma"],
        shape: "<|tool_call>call:N{key:<|\"|>text<|\"|>,n:42}<tool_call|> (also call:N{…} alone)",
        open: &["<|tool_call>", "<channel|>", "<call>", "call:"],
        close: &["<tool_call|>", "</call>"],
        separators: &[],
        bare: Bare::No,
        quiet: &[],
        detect: &["<|tool_call>"],
        calls: Calls::Named(Named {
            start: &[],
            name_end: &[],
            name_prefix: &["call:", ":call:"],
            name_index: Index::No,
            name_tail: None,
            args: Args::Gemma {
                quote: "<|\"|>",
                quoted: Kinds::STRING,
            },
            end: &[],
            objects: None,
        }),
    },
    Spec {
        name: "functiongemma",
        aliases: &[],
        shape: "<start_function_call>call:N{key:<escape>V<escape>}<end_function_call>",
        open: &["<start_function_call>"],
        close: &["<end_function_call>"],
        separators: &[],
        bare: Bare::No,
        quiet: &[],
        detect: &["<start_function_call>"],
        calls: Calls::Named(Named {
            start: &[],
            name_end: &[],
            name_prefix: &["call:"],
            name_index: Index::No,
            name_tail: None,
            args: Args::Gemma {
                quote: "<escape>",
                quoted: Kinds::ANY,
            },
            end: &[],
            objects: None,
        }),
    },
    python("pythonic", "[N(key=value, …), …]", &["["], &[], Bare::No),
    Spec {
        detect: &["<|python_start|>"],
        ..python(
            "llama4_pythonic",
            "<|python_start|>[N(key=value), …]<|python_end|>, or the list alone",
            &["<|python_start|>", "["],
            &["<|python_end|>"],
            Bare::No,
        )
    },
    python(
        "olmo3",
        "<function_calls>N(key=value)\\nN(…)</function_calls>",
        &["<function_calls>"],
        &["</function_calls>"],
        Bare::No,
    ),
    Spec {
        detect: &["<|tool_call_start|>"],
        ..python(
            "lfm2",
            "<|tool_call_start|>[N(key=value), …]<|tool_call_end|>",
            &["<|tool_call_start|>"],
            &["<|tool_call_end|>"],
            Bare::No,
        )
    },
    python(
        "granite_pythonic",
        "N(key=value), one call per line",
        &[],
        &[],
        Bare::PythonLine,
    ),
];
