//! The dev and held-out snippet pool, markup, queries, data and text: HTML,
//! SQL, JSON, YAML, TOML and English prose (every third snippet of each
//! list is held out).
//!
//! A leading newline is not part of a snippet (see `snippet_text`); Go is
//! written with spaces here and indented with tabs.

pub(super) const HTML: &[&str] = &[
    r##"<a href="https://example.com" target="_blank" rel="noopener">Example</a>"##,
    r##"
<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Dashboard</title>
  <link rel="stylesheet" href="/static/style.css">
</head>
<body>
  <div id="app"></div>
  <script src="/static/app.js" defer></script>
</body>
</html>
"##,
    r##"
<form action="/login" method="post">
  <label for="email">Email</label>
  <input type="email" id="email" name="email" placeholder="you@example.com" required>
  <input type="password" name="password" autocomplete="current-password">
  <button type="submit" class="btn">Sign in</button>
</form>
"##,
    r##"<img src="logo.png" alt="" width="120" height="40">"##,
    r##"
<script type="application/ld+json">
{"@context": "https://schema.org", "@type": "Organization", "name": "Acme"}
</script>
"##,
    r##"
<table class="data">
  <thead>
    <tr><th scope="col">Name</th><th scope="col">Role</th></tr>
  </thead>
  <tbody>
    <tr><td>Ada</td><td>Engineer</td></tr>
  </tbody>
</table>
"##,
    r##"<p>Hello, <strong>world</strong>!</p>"##,
    r##"
<ul>
  <li>One</li>
  <li>Two</li>
</ul>
"##,
    r##"<div data-config='{"theme": "dark", "dense": true}' data-id="42"></div>"##,
    r##"<button onclick="alert('Saved')" title="Save &quot;draft&quot;">Save</button>"##,
    r##"
{% extends "base.html" %}
{% block content %}
  <h1>{{ title }}</h1>
  {% for item in items %}
    <a href="{{ url_for("item", id=item.id) }}">{{ item.name }}</a>
  {% endfor %}
{% endblock %}
"##,
    r##"<p lang="ja" class="greeting">こんにちは、世界 — ようこそ</p>"##,
    r##"<div style="color: #333; background: url('bg.png')">…</div>"##,
    r##"
<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24">
  <path d="M12 2L2 7l10 5 10-5-10-5z" fill="none" stroke="currentColor"/>
</svg>
"##,
    r##"class="btn btn-primary""##,
    r##"
<select name="size" id="size">
  <option value="">Choose…</option>
  <option value="s">Small</option>
  <option value="m" selected>Medium</option>
</select>
"##,
    r##"
<video controls width="640" poster="poster.jpg">
  <source src="movie.webm" type="video/webm">
  Your browser does not support "video".
</video>
"##,
    r##"
<script>
  document.addEventListener("DOMContentLoaded", () => {
    const el = document.getElementById("greeting");
    el.textContent = "Hello, " + (localStorage.getItem("name") || "guest") + "!";
  });
</script>
"##,
    r##"<input pattern="\d{3}-\d{4}" title="Format: 555-1234" value="">"##,
];

pub(super) const SQL: &[&str] = &[
    r##"SELECT "id", "name" FROM "users" WHERE "email" = 'ada@example.com';"##,
    r##"
CREATE TABLE "orders" (
    "id" BIGSERIAL PRIMARY KEY,
    "user_id" BIGINT NOT NULL REFERENCES "users" ("id"),
    "total_cents" INTEGER NOT NULL DEFAULT 0,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "created_at" TIMESTAMPTZ NOT NULL DEFAULT now()
);
"##,
    r##"SELECT count(*) FROM orders WHERE status = 'paid';"##,
    r##"
UPDATE accounts
SET balance = balance - 100
WHERE id = 42;
"##,
    r##"CREATE INDEX "idx_orders_user" ON "orders" ("user_id", "created_at" DESC);"##,
    r##"INSERT INTO events (payload) VALUES ('{"type": "signup", "plan": "pro"}');"##,
    r##"
SELECT u."name", COUNT(o."id") AS "order_count"
FROM "users" u
LEFT JOIN "orders" o ON o."user_id" = u."id"
GROUP BY u."name"
ORDER BY "order_count" DESC
LIMIT 10;
"##,
    r##"SELECT * FROM `posts` WHERE title LIKE "%rust%" AND author <> "";"##,
    r##"SELECT data->>'name' AS "Name" FROM "profiles" WHERE data @> '{"active": true}';"##,
    r##"ALTER TABLE "users" ADD COLUMN "display_name" TEXT NOT NULL DEFAULT '';"##,
    r##"
CREATE OR REPLACE FUNCTION "set_updated_at"() RETURNS trigger AS $$
BEGIN
    NEW."updated_at" := now();
    RETURN NEW;
END;
$$ LANGUAGE plpgsql;
"##,
    r##"INSERT INTO "cities" ("name", "country") VALUES ('München', 'DE'), ('São Paulo', 'BR');"##,
    r##"CREATE TABLE "weird ""name""" (x INTEGER);"##,
    r##"
WITH "recent" AS (
    SELECT * FROM "orders" WHERE "created_at" > now() - interval '7 days'
)
SELECT "status", count(*) FROM "recent" GROUP BY "status";
"##,
    r##"SELECT * FROM "logs" WHERE "message" ~ '^ERROR: \d+' AND "path" LIKE 'C:\\%';"##,
    r##"CREATE VIEW "active_users" AS SELECT * FROM "users" WHERE "deleted_at" IS NULL;"##,
    r##""email" TEXT NOT NULL UNIQUE,"##,
    r##"ORDER BY "created_at""##,
    r##"GRANT SELECT ON ALL TABLES IN SCHEMA "public" TO "readonly";"##,
];

pub(super) const JSON: &[&str] = &[
    r##"{"name": "argmend", "version": "0.1.0"}"##,
    r##"
{
  "name": "web",
  "private": true,
  "scripts": {
    "dev": "vite",
    "build": "tsc && vite build",
    "test": "vitest run"
  },
  "dependencies": {
    "react": "^18.3.1",
    "react-dom": "^18.3.1"
  }
}
"##,
    r##"
{
  "compilerOptions": {
    "target": "ES2022",
    "module": "ESNext",
    "strict": true,
    "paths": { "@/*": ["./src/*"] }
  },
  "include": ["src"]
}
"##,
    r##"[{"id": 1, "tags": []}, {"id": 2, "tags": ["a", "b"]}]"##,
    r##"{"message": "He said \"hi\"", "path": "C:\\temp\\x"}"##,
    r##"{"a": "", "b": {}, "c": [""], "d": null}"##,
    r##"{"greeting": "こんにちは", "city": "Zürich", "emoji": "🎉"}"##,
    r##"{"copyright": "\u00a9 2024 Acme", "nbsp": "a\u00a0b"}"##,
    r##"[1, 2, 3, 4.5, -6e3, true, false, null]"##,
    r##"
[
  [0, 1],
  [1, 0]
]
"##,
    r##"
{
  "editor.formatOnSave": true,
  "files.exclude": { "**/node_modules": true, "**/.git": true },
  "[python]": { "editor.defaultFormatter": "ms-python.black-formatter" }
}
"##,
    r##"
{
  "version": "0.2.0",
  "configurations": [
    {
      "type": "node",
      "request": "launch",
      "name": "Debug server",
      "program": "${workspaceFolder}/src/server.js",
      "args": ["--port", "8080"],
      "env": { "NODE_ENV": "development" }
    }
  ]
}
"##,
    r##"
{
  "openapi": "3.0.0",
  "info": { "title": "Items API", "version": "1.0.0" },
  "paths": {
    "/items/{id}": {
      "get": { "summary": "Get an item", "responses": { "200": { "description": "OK" } } }
    }
  }
}
"##,
    r##"{"pattern": "^[a-z]+\\d*$", "flags": "i"}"##,
    r##"
"dependencies": {
    "serde": "1.0",
    "serde_json": "1.0"
  }"##,
    r##"{"tool": "write_file", "arguments": "{\"path\": \"a.txt\", \"content\": \"\"}"}"##,
    r##"
{
  "en": { "save": "Save", "cancel": "Cancel" },
  "de": { "save": "Speichern", "cancel": "Abbrechen" }
}
"##,
    r##"{"extends": ["next/core-web-vitals"], "rules": {"quotes": ["error", "double"]}}"##,
];

pub(super) const YAML: &[&str] = &[
    r##"name: "CI""##,
    r##"
name: CI
on:
  push:
    branches: ["main"]
  pull_request:
jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - name: "Run tests"
        run: cargo test --all-features
"##,
    r##"
services:
  db:
    image: "postgres:16"
    environment:
      POSTGRES_PASSWORD: "secret"
      POSTGRES_DB: "app"
    ports:
      - "5432:5432"
"##,
    r##"
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels: {app: "web", tier: "frontend"}
spec:
  replicas: 2
  template:
    spec:
      containers:
        - name: web
          image: "nginx:1.27"
          args: ["--port", "8080"]
"##,
    r##"
retries: 3
timeout: 30s
hosts:
  - alpha
  - beta
"##,
    r##"enabled: true"##,
    r##"
message: "Say \"cheese\""
path: "C:\\data\\in"
"##,
    r##"
prefix: ""
suffix: ''
"##,
    r##"
title: "Café crème"
author: "山田太郎"
"##,
    r##"
      - name: Lint
        run: |
          echo "Linting..."
          npx eslint "src/**/*.ts" --max-warnings=0
"##,
    r##"
- name: Install packages
  apt:
    name: ["git", "curl", "jq"]
    state: present
  when: ansible_os_family == "Debian"
"##,
    r##"
responses:
  "404":
    description: "Returns \"Not Found\" when the item is missing"
  "200":
    description: OK
"##,
    r##"
    strategy:
      matrix:
        os: [ubuntu-latest, "windows-latest"]
        node: ["18", "20"]
"##,
    r##"
env:
  RUST_LOG: "info,argmend=debug"
  DATABASE_URL: "postgres://app:app@localhost/app"
"##,
    r##"image: "redis:7-alpine""##,
    r##"pattern: "^v\\d+\\.\\d+$""##,
    r##"
singleQuote: false
overrides:
  - files: "*.md"
    options:
      proseWrap: "always"
"##,
    r##"
repos:
  - repo: https://github.com/psf/black
    rev: "24.4.2"
    hooks:
      - id: black
        args: ["--line-length", "100"]
"##,
];

pub(super) const TOML: &[&str] = &[
    r##"name = "argmend""##,
    r##"
[package]
name = "demo"
version = "0.1.0"
edition = "2021"

[dependencies]
serde = { version = "1", features = ["derive"] }
serde_json = "1.0"
"##,
    r##"
[project]
name = "tool"
version = "0.3.1"
requires-python = ">=3.10"
dependencies = ["requests>=2.31", "click"]

[project.scripts]
tool = "tool.cli:main"
"##,
    r##"
[server]
port = 8080
workers = 4
debug = false
"##,
    r##"timeout_ms = 1500"##,
    r##"
greeting = "say \"hi\""
win_path = 'C:\Users\dev'
regex = "\\d+"
"##,
    r##"
prefix = ""
labels = ["", "x"]
"##,
    r##"
description = """
A tool that "repairs" JSON.
Second line."""
"##,
    r##"
author = "José Müller"
city = "東京"
"##,
    r##"database = { url = "postgres://localhost/app", pool = 5 }"##,
    r##"
[[bin]]
name = "cli"
path = "src/main.rs"

[[bin]]
name = "server"
path = "src/server.rs"
"##,
    r##"
edition = "2021"
max_width = 100
imports_granularity = "Crate"
"##,
    r##"
[build]
command = "npm run build"
publish = "dist"

[[redirects]]
from = "/api/*"
to = "/.netlify/functions/:splat"
status = 200
"##,
    r##"
"quoted key" = "value"
"a.b" = 1
"##,
    r##"
[tool.ruff]
line-length = 100
select = ["E", "F", "I"]
ignore = ["E501"]
"##,
    r##"
[features]
default = ["std"]
std = []
serde = ["dep:serde"]
"##,
    r##"version = "1.2.3""##,
    r##"
[target.'cfg(windows)'.dependencies]
winapi = { version = "0.3", features = ["winuser", "fileapi"] }
"##,
];

pub(super) const PROSE: &[&str] = &[
    r##"The "quick" fix is to restart the server."##,
    r##"
# argmend

Repairs the "almost JSON" that language models write.

## Usage

Run `argmend repair "{a: 1}"` and read the result.
"##,
    r##"
Fix "unexpected EOF" when the body is empty

The parser treated "" as a missing value. It now reads an empty
string as an empty body.
"##,
    r##"She said, "We ship on Friday," and then added, "unless the tests fail.""##,
    r##"Use the “Save as” dialog to pick a folder, then press “OK”."##,
    r##"
Meeting notes

- Agreed to move the release to next week.
- Alice owns the migration plan.
"##,
    r##"Remember to rotate the keys before Monday."##,
    r##"The API returns {"error": "not found"} when the item is missing."##,
    r##"Le mot "café" s'écrit avec un accent ; en japonais, c'est "カフェ"."##,
    r##"
## 0.2.0

- Added the "strict" mode.
- Fixed a crash on inputs ending in "\".
- Renamed `--out` to `--output`.
"##,
    r##"Copy the file to "C:\Program Files\Acme\" and restart."##,
    r##""Done is better than perfect." — a poster in the office"##,
    r##"The error message reads "permission denied""##,
    r##"
| Flag | Meaning |
|------|---------|
| `-q` | quiet, prints nothing but "ok" |
| `-v` | verbose |
"##,
    r##"To install, run "pip install argmend" and then type "argmend --help"."##,
    r##"Valid values are "low", "medium", and "high"."##,
    r##"He wrote: "the word 'null' is not "None"", which confused everyone."##,
    r##"Leave the field empty ("") to use the default."##,
    r##"Set "mode": "fast" in the config file, then restart."##,
    r##"
# Contributing

Thanks for helping! A few rules keep reviews quick:

1. Run "cargo fmt" and "cargo clippy" before you push.
2. Write commit messages in the imperative: "Add X", not "Added X".
3. One change per pull request; say "why" in the description.
4. New behaviour needs a test. For a bug, the test should fail first.

## Reporting a bug

Include the exact input, the output you got, and the output you
expected. If the input is large, attach it as a file named like
"issue-123-input.json".

## Code style

- Comments are full sentences.
- Names say what a thing is, not how it is used.
- Prefer "early return" to deep nesting.
"##,
];
