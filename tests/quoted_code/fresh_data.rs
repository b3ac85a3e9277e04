//! The fresh snippet pool, markup, queries, data and text: HTML, SQL, JSON,
//! YAML, TOML, English prose and Markdown.
//!
//! The fresh pool: written after the engine was tuned on the dev and held-out
//! lists, by someone who had not seen how it decides, and never tuned
//! against. Same conventions (a leading newline is not part of a snippet; Go
//! is indented with tabs when read). About one snippet in ten has no double
//! quote.

pub(super) const HTML_FRESH: &[&str] = &[
    r##"
<meta property="og:title" content="Release notes — v2.3">
<meta property="og:url" content="https://example.com/blog/release-2-3?utm_source=rss#top">
<meta name="description" content="What's new: faster &quot;sync&quot;, dark mode, and fixes.">
"##,
    r##"
<form method="post" action="/settings" class="stack">
  <fieldset>
    <legend>Notifications</legend>
    <label><input type="checkbox" name="notify_email" checked> Email</label>
"##,
    r##"
<script>
  window.__STATE__ = {"user": {"name": "Zoë"}, "flags": ["beta"], "description": "Say \"hi\""};
</script>
"##,
    r##"<button hx-post="/tasks/7/done" hx-vals='{"content": "done", "notify": true}' hx-target="#task-7">Mark done</button>"##,
    r##"
<nav>
  <ul>
    <li><a href=/docs>Docs</a></li>
    <li><a href=/blog>Blog</a></li>
  </ul>
</nav>
"##,
    r##"<div x-data="{ open: false }" @keydown.escape="open = false" :class="open ? 'is-open' : ''">"##,
    r##"<iframe src="https://www.youtube-nocookie.com/embed/abc123?start=42&amp;rel=0" title="Vidéo : présentation" allowfullscreen></iframe>"##,
    r##"
<template>
  <li v-for="item in items" :key="item.id" :class="{ done: item.done }">
    <input type="checkbox" v-model="item.done">
    {{ item.title }}
  </li>
</template>
"##,
    r##"<a class="nav-link" href="/pricing" aria-current="page""##,
    r##"
<!-- TODO: swap "Sign up" for the new copy, see https://example.com/brand#cta -->
<a class="cta" href="/signup?ref=hero">Sign up — it's free</a>
"##,
    r##"
<pre><code class="language-json">{
  "path": "src/app.ts",
  "content": "console.log(\"hi\")"
}</code></pre>
"##,
    r##"
<tr>
  <td style="text-align: right; font-variant-numeric: tabular-nums">1 234,50 €</td>
  <td><span class="badge" title="Status: &quot;paid&quot;">Bezahlt</span></td>
</tr>
"##,
    r##"<a href="file:///C:/Users/dev/report.pdf" download>C:\Users\dev\report.pdf</a>"##,
    r##"
"text/css" href="/css/print.css" media="print">
<link rel="preload" href="/fonts/Inter.woff2" as="font" type="font/woff2" crossorigin>
"##,
];

pub(super) const SQL_FRESH: &[&str] = &[
    r##"
SELECT "userId", "createdAt"::date AS "day", count(*) AS "n"
FROM "Event"
WHERE "type" = 'page_view'
GROUP BY 1, 2;
"##,
    r##"
INSERT INTO "tool_calls" ("name", "arguments")
VALUES ('write_file', '{"path": "notes.md", "content": "# Notes\n"}'::jsonb);
"##,
    r##"UPDATE `settings` SET `value` = "dark" WHERE `key` = "theme";"##,
    r##"
CREATE TABLE "files" (
    "id" uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    "file_path" text NOT NULL,
    "description" text,
"##,
    r##"
DELETE FROM sessions
WHERE expires_at < now() - interval '30 days';
"##,
    r##"
-- Ticket #812: "archived" rows must not show up in search.
CREATE INDEX IF NOT EXISTS idx_docs_live ON docs (title) WHERE archived = 0;
"##,
    r##"SELECT * FROM "users" WHERE "email" !~* '^[a-z0-9._%+-]+@[a-z0-9.-]+\.[a-z]{2,}$';"##,
    r##"INSERT INTO "produits" ("nom", "prix") VALUES ('Crème brûlée', 6.50), ('Bœuf bourguignon', 18.00);"##,
    r##"
  AND t."deleted_at" IS NULL
  AND t."owner_id" = u."id""##,
    r##"
"status" = ANY($1::text[])
  AND "priority" >= $2
ORDER BY "priority" DESC, "id"
"##,
    r##"
BULK INSERT [dbo].[Sales]
FROM 'C:\Data\Imports\sales_2024.csv'
WITH (FORMAT = 'CSV', FIELDQUOTE = '"', FIELDTERMINATOR = ';', FIRSTROW = 2);
"##,
    r##"COMMENT ON COLUMN "orders"."total" IS 'Sum in cents; "gross", not "net"';"##,
    r##"
    EXECUTE format('ALTER TABLE %I ADD COLUMN %I text', tbl, col);
    RAISE NOTICE 'added column "%" to "%"', col, tbl;
"##,
    r##"
SELECT json_build_object(
    'command', c."command",
    'description', c."description",
    'ran_at', to_char(c."ran_at", 'YYYY-MM-DD"T"HH24:MI:SS')
) AS "payload"
FROM "commands" c
"##,
];

pub(super) const JSON_FRESH: &[&str] = &[
    r##"
  "scripts": {
    "build": "tsc -p tsconfig.build.json",
    "lint": "eslint \"src/**/*.{ts,tsx}\" --max-warnings 0",
"##,
    r##"
{
  "id": "call_7f3a",
  "type": "function",
  "function": {
    "name": "str_replace_editor",
    "arguments": "{\"command\": \"view\", \"path\": \"/repo/README.md\"}"
  }
}
"##,
    r##"
    "file_path": "src/server/routes.ts",
    "description": "Add the /health route","##,
    r##"
{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "properties": {
    "path": { "type": "string", "description": "Absolute path, e.g. \"/tmp/out.txt\"" },
    "content": { "type": "string" }
  },
  "required": ["path", "content"],
  "additionalProperties": false
}
"##,
    r##"
{
  "version": "2.0.0",
  "tasks": [
    {
      "label": "build",
      "type": "shell",
      "command": "cargo build --release",
      "windows": { "command": "C:\\Users\\dev\\.cargo\\bin\\cargo.exe build --release" },
      "problemMatcher": ["$rustc"]
    }
  ]
}
"##,
    r##"[[1.5, -2], [0, 3.25e-4], [], [true, null]]"##,
    r##"
{
  "welcome": "Willkommen, {name}!",
  "files": "{count, plural, one {# Datei} other {# Dateien}}",
  "praise": "Sie sagte: \"Gut gemacht!\""
}
"##,
    r##"
{
  "cell_type": "code",
  "execution_count": 3,
  "metadata": {},
  "outputs": [],
  "source": [
    "import pandas as pd\n",
    "df = pd.read_csv(\"data/sales.csv\", sep=\";\")\n",
    "df.head()"
  ]
}
"##,
    r##"
"mcpServers": {
    "filesystem": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-filesystem", "C:\\Users\\dev\\Desktop"]
    },
"##,
    r##"{"type": "Feature", "geometry": {"type": "Point", "coordinates": [13.405, 52.52]}, "properties": {"name": "Berlin", "description": ""}}"##,
    r##"
  "name": "@acme/ui",
  "main": "dist/index.js",
  "types": "dist/index.d.ts""##,
    r##"{"rules": {"no-restricted-syntax": ["error", {"selector": "Literal[value=/^\\s*TODO/]", "message": "Write \"TODO(name)\" instead"}]}}"##,
    r##"
{
  "rewrites": [{ "source": "/api/(.*)", "destination": "https://api.example.com/$1" }],
  "headers": [
    {
      "source": "/(.*)",
      "headers": [{ "key": "Content-Security-Policy", "value": "default-src 'self'; img-src * data:" }]
    }
  ]
}
"##,
    r##"
[
  {"role": "system", "content": "You are a careful coding assistant."},
  {"role": "user", "content": "Fix this: print(\"hello\""},
  {"role": "assistant", "content": null, "tool_calls": []}
]
"##,
    r##"{"name": "Ørsted", "symbol": "Ω", "unit": "µs", "note": "≈ 3 × 10⁸ m/s"}"##,
];

pub(super) const YAML_FRESH: &[&str] = &[
    r##"
      - name: Comment on PR
        if: github.event_name == 'pull_request'
        uses: actions/github-script@v7
        with:
          script: |
            github.rest.issues.createComment({
              ...context.repo,
              issue_number: context.issue.number,
              body: "Preview: https://preview.example.com/pr-" + context.issue.number,
            })
"##,
    r##"
apiVersion: v1
kind: ConfigMap
metadata:
  name: app-config
data:
  settings.json: |
    {"logLevel": "info", "paths": {"uploads": "/data/uploads"}}
  FEATURE_FLAGS: "search,export"
"##,
    r##"
        requestBody:
          required: true
          content:
            application/json:
              schema:
                type: object
                required: [path, content]
                properties:
                  path: { type: string, example: "docs/intro.md" }
                  content: { type: string, description: "UTF-8 text; write \"\\n\" for a newline" }
"##,
    r##"
version: 2
updates:
  - package-ecosystem: cargo
    directory: /
    schedule:
      interval: weekly
    open-pull-requests-limit: 5
"##,
    r##"
- name: Render the nginx site
  template:
    src: "templates/site.conf.j2"
    dest: "/etc/nginx/sites-available/{{ domain }}.conf"
    mode: "0644"
  notify: "reload nginx"
"##,
    r##"
windows:
  install_dir: "C:\\Program Files\\Acme"
  shortcut: 'C:\Users\Public\Desktop\Acme.lnk'
  args: "--profile \"Default User\""
"##,
    r##"
    healthcheck:
      test: ["CMD-SHELL", "pg_isready -U \"$$POSTGRES_USER\" -d app"]
      interval: 10s
      retries: 5
"##,
    r##"
metadata:
  name: {{ include "chart.fullname" . }}
  annotations:
    checksum/config: {{ include (print $.Template.BasePath "/configmap.yaml") . | sha256sum }}
"##,
    r##"
greetings:
  de: "Grüß Gott"
  el: "Καλημέρα"
  hi: "नमस्ते"
"##,
    r##"      run: echo "sha=$(git rev-parse --short HEAD)" >> "$GITHUB_OUTPUT""##,
    r##"
"on":
  push:
    tags: ["v*"]
  workflow_dispatch: {}
"##,
    r##"
# Docs: https://docs.docker.com/compose/compose-file/#env_file
# NOTE: a value with "#" in it must be quoted, or YAML reads a comment
env_file: .env
environment:
  - "SLACK_CHANNEL=#deploys"
"##,
    r##"
- alert: HighErrorRate
  expr: sum(rate(http_requests_total{status=~"5.."}[5m])) / sum(rate(http_requests_total[5m])) > 0.05
  for: 10m
  annotations:
    summary: "Error rate is {{ $value | humanizePercentage }} on {{ $labels.instance }}"
"##,
    r##"
deploy:
  stage: deploy
  script:
    - 'curl -X POST -H "PRIVATE-TOKEN: $TOKEN" "$CI_API_V4_URL/projects/$CI_PROJECT_ID/trigger"'
    - echo "done"
  only: [main]
"##,
];

pub(super) const TOML_FRESH: &[&str] = &[
    r##"
[tool.pytest.ini_options]
addopts = "-ra -q --strict-markers"
testpaths = ["tests"]
filterwarnings = [
    "ignore:.*\"imp\" module.*:DeprecationWarning",
]
"##,
    r##"
[workspace]
members = ["crates/*"]
resolver = "2"

[workspace.package]
authors = ["Ana Lúcia <ana@example.com>"]
license = "MIT OR Apache-2.0"
"##,
    r##"
[profile.release]
lto = true
codegen-units = 1
panic = 'abort'
strip = true
"##,
    r##"
[paths]
data = 'C:\ProgramData\Acme\data'
logs = "C:\\ProgramData\\Acme\\logs"
"##,
    r##"
[templates]
write = '''
{"path": "{{ path }}", "content": "{{ content | escape }}"}
'''
"##,
    r##"
format = """
[┌─](bold green)$directory$git_branch
[└─>](bold green) """

[directory]
truncation_length = 3
style = "bold cyan"
"##,
    r##"
[[keyboard.bindings]]
key = "N"
mods = "Control|Shift"
action = "SpawnNewInstance"
"##,
    r##"
[[headers]]
  for = "/*"
  [headers.values]
    Content-Security-Policy = "default-src 'self'; script-src 'self' https://cdn.example.com"
    X-Frame-Options = "DENY"
"##,
    r##"tokio = { version = "1.38", features = ["macros", "rt-multi-thread","##,
    r##"
[tool.poetry.scripts]
serve = "app.cli:serve""##,
    r##"
"read_more" = "Weiterlesen →"
"posted_on" = "Veröffentlicht am {{ .Date }}"
"##,
    r##"
[commit]
pattern = '^(feat|fix|docs)(\(.+\))?: .{1,72}$'
message = "must look like \"type(scope): subject\""
"##,
    r##"
# Filter syntax: https://docs.rs/tracing-subscriber/latest/tracing_subscriber/filter/struct.EnvFilter.html#directives
log = "info,hyper=warn"  # "trace" is far too noisy
"##,
    r##"
[tool.taskipy.tasks]
lint = "ruff check . && mypy --strict src"
release = "git tag -a \"v$(python -c 'import app; print(app.__version__)')\" -m release"
"##,
    r##"
[mcp_servers.files]
command = "npx"
args = ["-y", "@modelcontextprotocol/server-filesystem", "/home/dev/projects"]
env = { "LOG_LEVEL" = "debug" }
"##,
];

pub(super) const PROSE_FRESH: &[&str] = &[
    r##"The reviewer wrote "LGTM" but the build was still red."##,
    r##"
Escape "\" in Windows paths before writing the config

Paths like C:\Users\dev were written as they were, so the reader saw "\U"
as an escape. We now double every backslash.
"##,
    r##"
Hi Sam,

Quick update: the "final" numbers are in the shared folder
(https://drive.example.com/q3-report). Let me know if "Q3 revenue" should
include refunds.

Thanks,
Priya
"##,
    r##"The deploy finished at 14:05 UTC; no errors were reported."##,
    r##"When asked about the delay, the vendor only said "soon""##,
    r##""Why does it say 'null'?" is the question we get most often."##,
    r##"Der Kunde schrieb: "Die Lieferung kam zu spät — bitte um Rückruf." Ticket #4821."##,
    r##"Send {"command": "restart", "description": "nightly"} to the control endpoint; the reply is "ok" or an error."##,
    r##"
1. Open https://console.example.com/settings#api and click "New key".
2. Name it "ci-bot" and choose "Read only".
3. Copy the key; it is shown only once.
"##,
    r##"
"Is the migration safe to re-run?" she asked.
"Yes," said Tom, "as long as you pass --resume."
"##,
    r##"The log line looks like "%s: %d bytes" and the second field is always zero."##,
    r##"Put the license file in "C:\ProgramData\Acme\license.key" (create the folder if it does not exist)."##,
    r##"Click “Export”, then choose "CSV (comma-separated)" from the list."##,
    r##"
Release notes draft

This release renames the "sync" command to "push" and adds a "pull"
command. Scripts that call "acme sync" keep working for now but print a
warning. The config key "remote_url" is now "remote"; the old key is read
if the new one is missing.
"##,
    r##"Lines starting with "//" are ignored, but "#" starts a heading."##,
];

pub(super) const MARKDOWN_FRESH: &[&str] = &[
    r##"
Create the env file:

```sh
cat > .env <<'EOF'
DATABASE_URL="postgres://app:secret@localhost:5432/app"
EOF
```
"##,
    r##"
## Installation

```bash
npm install --save @acme/sdk
```

Then create a client:

```ts
import { Client } from "@acme/sdk";
const client = new Client({ apiKey: process.env.ACME_KEY });
```
"##,
    r##"
| Option | Default | Description |
|--------|---------|-------------|
| `path` | `"."` | Root directory to scan |
| `exclude` | `["node_modules"]` | Globs to skip, e.g. `"**/*.min.js"` |
| `format` | `"text"` | `"text"` or `"json"` |
"##,
    r##"See the [migration guide](https://example.com/docs/migrate#v3 "Migrating to v3") and the [FAQ](./FAQ.md)."##,
    r##"
> **Warning**
> Running `make clean` deletes `./dist` and `./.cache`. Type "yes" when asked.
"##,
    r##"
## Changelog

### 1.4.0 - 2024-05-02

- Faster startup on large repositories.
- `--watch` now ignores `.git/`.
"##,
    r##"
Example request body:

```json
{
  "path": "docs/index.md",
  "content": "# Hello\n\nFirst \"draft\".",
  "description": "Create the docs index"
}
```
"##,
    r##"
On Windows the config lives in `%APPDATA%\acme\config.toml` (usually
`C:\Users\<you>\AppData\Roaming\acme\config.toml`). To set it:

```powershell
Set-Content -Path "$env:APPDATA\acme\config.toml" -Value 'theme = "dark"'
```
"##,
    r##"
<p align="center">
  <img src="docs/logo.svg" alt="Acme logo" width="160">
</p>

[![CI](https://github.com/acme/tool/actions/workflows/ci.yml/badge.svg)](https://github.com/acme/tool/actions)
"##,
    r##"Le fichier “config.yaml” doit contenir `version: 2` — voir « Démarrage » et la clé "name"."##,
    r##"Set `NODE_OPTIONS` to "--max-old-space-size=4096""##,
    r##"
"It works on my machine" is not a bug report. Please include:

1. the exact command you ran,
2. the full output, in a code block,
3. your OS and `node --version`.
"##,
    r##"
## Roadmap

- [x] Parse `"key": value` pairs
- [ ] Support `#` comments (see #142)
- [ ] Windows paths like `C:\temp\x`
"##,
    r##"
<details>
<summary>Why not use "strict" mode?</summary>

Strict mode rejects trailing commas[^1].

</details>

[^1]: See the [JSON5 spec](https://spec.json5.org/#arrays).
"##,
    r##"
1. Load the data:

   ```python
   df = pd.read_csv("data.csv", sep=";", encoding="utf-8")
   print(df["price"].mean())
   ```

2. Plot it with `df.plot(x="date", y="price")`.
"##,
    r##"
---
title: "Deploying with \"zero\" downtime"
date: 2024-03-18
tags: ["ops", "k8s"]
---

# Deploying with "zero" downtime
"##,
];
