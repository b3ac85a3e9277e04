//! The tool table from a request's own tool list: the `tools` array a caller
//! already sends to OpenAI or Anthropic names every tool and its JSON Schema,
//! so each call can be repaired with its own tool's schema as its name
//! arrives, without the caller saying it twice.

use serde_json::Value;

use super::wrap::ToolMap;

impl ToolMap {
    /// The built-in table plus every function tool of an OpenAI request, with
    /// its `parameters` schema. Takes the `tools` array or the whole request
    /// (`{"tools": [...]}`), in the Chat Completions form
    /// (`{"type": "function", "function": {"name", "parameters"}}`) or the
    /// Responses form (`{"type": "function", "name", "parameters"}`); tools of
    /// other types (built-in tools, custom tools) have no JSON Schema and are
    /// left out.
    ///
    /// ```
    /// use argmend::ToolMap;
    /// use serde_json::json;
    /// let tools = json!([{"type": "function", "function": {"name": "write_file",
    ///     "parameters": {"type": "object", "properties": {"path": {"type": "string"}}}}}]);
    /// let map = ToolMap::from_openai_tools(&tools);
    /// assert_eq!(map.schema("write_file").unwrap()["properties"]["path"]["type"], "string");
    /// ```
    pub fn from_openai_tools(tools: &Value) -> ToolMap {
        let mut map = ToolMap::builtin();
        for tool in tool_list(tools) {
            // Chat nests the function; Responses puts its fields on the tool.
            let function = tool.get("function").unwrap_or(tool);
            let kind = tool.get("type").and_then(Value::as_str);
            if kind.is_some_and(|kind| kind != "function") {
                continue;
            }
            if let (Some(name), Some(schema)) = (
                function.get("name").and_then(Value::as_str),
                function
                    .get("parameters")
                    .filter(|schema| schema.is_object()),
            ) {
                map = map.with_schema(name, schema.clone());
            }
        }
        map
    }

    /// The same for the Responses API's tool list (the form without
    /// `function`); [`from_openai_tools`](Self::from_openai_tools) reads both.
    pub fn from_responses_tools(tools: &Value) -> ToolMap {
        ToolMap::from_openai_tools(tools)
    }

    /// The built-in table plus every tool of an Anthropic request with its
    /// `input_schema` (`[{"name", "description", "input_schema"}]`, or the
    /// whole request). Server tools (`web_search`, `code_execution`…) carry
    /// no schema and are left out.
    ///
    /// ```
    /// use argmend::ToolMap;
    /// use serde_json::json;
    /// let tools = json!([{"name": "get_weather", "input_schema": {"type": "object",
    ///     "properties": {"city": {"type": "string"}}, "required": ["city"]}}]);
    /// assert!(ToolMap::from_anthropic_tools(&tools).schema("get_weather").is_some());
    /// ```
    pub fn from_anthropic_tools(tools: &Value) -> ToolMap {
        let mut map = ToolMap::builtin();
        for tool in tool_list(tools) {
            if let (Some(name), Some(schema)) = (
                tool.get("name").and_then(Value::as_str),
                tool.get("input_schema").filter(|schema| schema.is_object()),
            ) {
                map = map.with_schema(name, schema.clone());
            }
        }
        map
    }
}

/// The tools of a `tools` array or of a request that has one.
fn tool_list(tools: &Value) -> &[Value] {
    let list = match tools.get("tools") {
        Some(inner) if tools.is_object() => inner,
        _ => tools,
    };
    list.as_array().map(Vec::as_slice).unwrap_or(&[])
}
