//! What the structure generator draws its truths from: keys and strings of
//! the kind tool arguments and structured answers hold. Nothing here is
//! hard to read on its own (no quotes, no backslashes): the damage is in the
//! structure around the values, so the values stay plain.

/// Keys of objects: tool parameters and the fields of structured answers.
pub(super) const KEYS: &[&str] = &[
    "path",
    "content",
    "query",
    "title",
    "rating",
    "notes",
    "tags",
    "start",
    "end",
    "type",
    "name",
    "id",
    "status",
    "score",
    "reason",
    "summary",
    "items",
    "rows",
    "headers",
    "label",
    "date",
    "city",
    "count",
    "unit",
    "level",
    "url",
    "comment",
    "priority",
    "owner",
    "email",
    "file_path",
    "old_string",
    "new_string",
    "max_results",
    "startTime",
    "endTime",
    "userId",
    "description",
    "category",
    "language",
    "answer",
    "steps",
    "options",
    "value",
    "source",
    "confidence",
    "timestamp",
    "created_at",
    "is_valid",
    "retry_count",
    "region",
    "mode",
];

/// String values: prose with commas, apostrophes and colons, paths, times,
/// addresses, identifiers, text in other scripts.
pub(super) const STRINGS: &[&str] = &[
    "Sent a message to the team, waiting on a reply.",
    "You showed grace under pressure.",
    "L'année où j'ai vécu selon la Bible",
    "src/main.rs",
    "docs/setup.md",
    "00:23",
    "2025-12-12 12:00:00",
    "https://example.com/a/b?x=1&y=2",
    "not_started",
    "PERSON_IMAGE",
    "high",
    "Partially resolved",
    "The agent escalated the issue for further investigation.",
    "代码结构清晰，使用了现有的工具类",
    "广东省广州市白云区",
    "星期三",
    "ok",
    "Check the logs: the job failed at step 3.",
    "read the config, then restart the service",
    "user@example.com",
    "N/A",
    "a.json",
    "weekly report",
    "Tokyo",
    "São Paulo",
    "x",
    "It's fine; no action needed.",
    "Summary of the call: extensions and splits",
    "chest, neck, and back",
    "3-4 weeks from the first treatment",
    "main",
    "feature/login-form",
    "Hello, world!",
    "The essay uses technical vocabulary well",
    "draft",
    "approved",
    "42 Wallaby Way, Sydney",
    "Q3 revenue grew by 12%",
];

/// Numbers as written.
pub(super) const NUMBERS: &[&str] = &[
    "0",
    "1",
    "3",
    "4",
    "13",
    "30",
    "42",
    "100",
    "2025",
    "0.85",
    "3.5",
    "-1",
    "-12.75",
    "1e3",
    "9827318951",
];

/// Lines of prose a model writes inside the braces, before a key or
/// between members.
pub(super) const PROSE_LINES: &[&str] = &[
    "Here is the JSON you asked for:",
    "Sure, here are the arguments",
    "Note: the values below are estimates.",
    "I have filled in every field.",
    "The remaining fields follow",
    "Let me list the results",
];

/// Refusals and apologies a model writes instead of the arguments.
pub(super) const REFUSALS: &[&str] = &[
    "Sorry, I can't help with that.",
    "I'm sorry, but I cannot comply with this request.",
    "I cannot provide that information.",
    "Unfortunately, I am unable to access the file system.",
    "As an AI language model, I don't have access to real-time data.",
    "I apologize, but I need more information to complete this task.",
    "That request goes against my guidelines, so I won't do it.",
    "Could you clarify what you mean by that?",
];

/// Strings with underscores and asterisks, which a model writing Markdown
/// escapes (`hello\_world.sh`).
pub(super) const MARKDOWN_STRINGS: &[&str] = &[
    "hello_world.sh",
    "expert_name",
    "my_module/test_utils.py",
    "**Important**: run the migration first",
    "use snake_case for the field names",
    "the *quick* fix",
    "MAX_RETRY_COUNT",
    "__init__.py",
];

/// JSON texts a string value may hold (the arguments of a nested call,
/// a saved document), compact.
pub(super) const EMBEDDED_JSON: &[&str] = &[
    r#"{"timelines":[{"id":"T0","label":"the first step"}]}"#,
    r#"{"q":"weather in Tokyo","limit":5}"#,
    r#"[{"name":"a","value":1},{"name":"b","value":2}]"#,
    r#"{"status":"ok","items":["x","y"]}"#,
];
