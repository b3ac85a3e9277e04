//! The dev and held-out snippet pool, programming languages: Python, Go,
//! JavaScript/TypeScript, shell, Rust and C (every third snippet of each
//! list is held out).
//!
//! A leading newline is not part of a snippet (see `snippet_text`); Go is
//! written with spaces here and indented with tabs.

pub(super) const PYTHON: &[&str] = &[
    r##"print("hello, world")"##,
    r##"
user = {"name": "Ada", "age": 36, "tags": ["admin", "dev"]}
print(user["name"])
"##,
    r##"
def greet(name: str) -> str:
    return f"Hello, {name}! You have {len(name)} letters."
"##,
    r##"
msg = "say \"hi\" to the \"team\""
print(msg)
"##,
    r##"
import re

EMAIL = re.compile(r"^[\w.+-]+@[\w-]+\.[\w.]+$")
DATE = re.compile("\\d{4}-\\d{2}-\\d{2}")
"##,
    r##"
path = "C:\\Users\\dev\\data.csv"
raw = r"C:\temp\new"
"##,
    r##"
class Config:
    """Settings read from "config.toml"."""

    def __init__(self, path: str = "config.toml") -> None:
        self.path = path
        self.values: dict[str, str] = {}

    def get(self, key: str, default: str = "") -> str:
        return self.values.get(key, default)
"##,
    r##"
import argparse

parser = argparse.ArgumentParser(description="Sync files")
parser.add_argument("--src", "-s", required=True, help="source directory")
parser.add_argument("--dry-run", action="store_true", help="print, don't copy")
args = parser.parse_args()
"##,
    r##"
import json


def handler(event, context):
    body = json.loads(event.get("body") or "{}")
    return {"statusCode": 200, "body": json.dumps({"ok": True, "echo": body})}
"##,
    r##"GREETINGS = {"fr": "Bonjour, ça va ?", "ja": "こんにちは", "de": "Grüß Gott"}
"##,
    r##"
def fib(n):
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b
    return a
"##,
    r##"total = sum(x * x for x in range(10))"##,
    r##"name = "world""##,
    r##"
"""Utilities for the command line."""

import sys
"##,
    r##"
if value == "" or value is None:
    value = ""
parts = ",".join(["", "a", ""])
"##,
    r##"
import pytest


@pytest.mark.parametrize("raw, expected", [
    ("1,2", [1, 2]),
    ("", []),
    (" 3 ", [3]),
])
def test_parse(raw, expected):
    assert parse(raw) == expected
"##,
    r##"logger.info("user %s logged in from \"%s\"", user.id, ip)"##,
    r##"
from flask import Flask, jsonify, request

app = Flask(__name__)


@app.route("/api/items/<int:item_id>", methods=["GET", "DELETE"])
def item(item_id):
    if request.method == "DELETE":
        return "", 204
    return jsonify({"id": item_id, "name": f"item-{item_id}"})
"##,
    r##"subprocess.run(["git", "commit", "-m", "fix: handle \"null\""], check=True)"##,
    r##"
def render(rows):
    lines = []
    for row in rows:
        lines.append(f'{row["name"]:<20} {row["score"]:>5}')
    return "\n".join(lines) + "\n"
"##,
    r##"
import csv
import sys
from pathlib import Path


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: csv2md FILE.csv", file=sys.stderr)
        return 2
    path = Path(argv[1])
    with path.open(newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f, delimiter=";")
        rows = list(reader)
    if not rows:
        print(f"{path}: no rows")
        return 1
    headers = list(rows[0].keys())
    print("| " + " | ".join(headers) + " |")
    print("|" + "---|" * len(headers))
    for row in rows:
        cells = [row[h].replace("|", "\\|") for h in headers]
        print("| " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
"##,
];

pub(super) const GO: &[&str] = &[
    r##"fmt.Println("hello, world")"##,
    r##"
package main

import (
    "fmt"
    "os"
)

func main() {
    if len(os.Args) < 2 {
        fmt.Fprintln(os.Stderr, "usage: greet NAME")
        os.Exit(1)
    }
    fmt.Printf("Hello, %s!\n", os.Args[1])
}
"##,
    r##"
type User struct {
    ID    int    `json:"id"`
    Name  string `json:"name"`
    Email string `json:"email,omitempty"`
}
"##,
    r##"headers := map[string]string{"Content-Type": "application/json", "Accept": "*/*"}"##,
    r##"
if err != nil {
    return fmt.Errorf("open %q: %w", path, err)
}
return errors.New("unexpected \"EOF\" in header")
"##,
    r##"
func handleHealth(w http.ResponseWriter, r *http.Request) {
    w.Header().Set("Content-Type", "application/json")
    w.WriteHeader(http.StatusOK)
    _, _ = w.Write([]byte(`{"status": "ok"}`))
}
"##,
    r##"
func TestParse(t *testing.T) {
    tests := []struct {
        name string
        in   string
        want int
    }{
        {"empty", "", 0},
        {"one", "1", 1},
        {"spaces", " 42 ", 42},
    }
    for _, tt := range tests {
        t.Run(tt.name, func(t *testing.T) {
            if got := Parse(tt.in); got != tt.want {
                t.Errorf("Parse(%q) = %d, want %d", tt.in, got, tt.want)
            }
        })
    }
}
"##,
    r##"var semver = regexp.MustCompile("^v(\\d+)\\.(\\d+)\\.(\\d+)$")"##,
    r##"
func Max(a, b int) int {
    if a > b {
        return a
    }
    return b
}
"##,
    r##"
for i := 0; i < n; i++ {
    sum += i
}
"##,
    r##"const defaultDir = "C:\\ProgramData\\myapp""##,
    r##"
greeting := "Grüße, 世界"
fmt.Println(strings.ToUpper(greeting))
"##,
    r##"
payload, err := json.Marshal(map[string]any{
    "name":  "widget",
    "price": 9.99,
    "tags":  []string{"new", "sale"},
})
if err != nil {
    log.Fatalf("marshal: %v", err)
}
"##,
    r##"row := db.QueryRowContext(ctx, "SELECT \"name\" FROM users WHERE id = $1", id)"##,
    r##"
var (
    addr    = flag.String("addr", ":8080", "listen address")
    verbose = flag.Bool("v", false, "verbose logging")
)
"##,
    r##"names := []string{"alice", "bob", "carol"}"##,
    r##"import "github.com/stretchr/testify/require""##,
    r##"
"fmt"
    "os""##,
    r##"
switch strings.ToLower(mode) {
case "json", "ndjson":
    return formatJSON
case "":
    return formatText
default:
    return nil
}
"##,
];

pub(super) const JAVASCRIPT: &[&str] = &[
    r##"console.log("hello, world");"##,
    r##"const user = { "name": "Ada", "roles": ["admin", "dev"], active: true };"##,
    r##"
const res = await fetch("/api/items", {
  method: "POST",
  headers: { "Content-Type": "application/json" },
  body: JSON.stringify({ name: "widget", qty: 2 }),
});
if (!res.ok) throw new Error(`HTTP ${res.status}`);
"##,
    r##"
import React, { useState } from "react";
import "./App.css";
"##,
    r##"
export function Button({ label, onClick }: Props) {
  return (
    <button className="btn btn-primary" type="button" onClick={onClick}>
      {label}
    </button>
  );
}
"##,
    r##"
const msg = "He said \"no\"";
const quoted = /"([^"\\]|\\.)*"/g;
"##,
    r##"
module.exports = {
  env: { node: true, es2022: true },
  extends: ["eslint:recommended", "prettier"],
  rules: { "no-unused-vars": "warn", quotes: ["error", "double"] },
};
"##,
    r##"
type Status = "idle" | "loading" | "done";

interface Task {
  id: string;
  status: "todo" | "doing" | "done";
}
"##,
    r##"
app.get("/health", (req, res) => {
  res.set("Cache-Control", "no-store");
  res.json({ status: "ok", uptime: process.uptime() });
});
"##,
    r##"const sum = (xs) => xs.reduce((a, b) => a + b, 0);"##,
    r##"
function debounce(fn, ms) {
  let t;
  return (...args) => {
    clearTimeout(t);
    t = setTimeout(() => fn(...args), ms);
  };
}
"##,
    r##"
describe("slugify", () => {
  it("lowercases and joins words", () => {
    expect(slugify("Hello World")).toBe("hello-world");
  });
  it("handles empty input", () => {
    expect(slugify("")).toBe("");
  });
});
"##,
    r##"const labels = { en: "Save", fr: "Enregistrer", ja: "保存", emoji: "💾" };"##,
    r##"const dir = "C:\\Users\\dev\\AppData";"##,
    r##"const cfg = JSON.parse('{"port": 8080, "host": "localhost"}');"##,
    r##"import { z } from "zod""##,
    r##"document.querySelector("#app").innerHTML = "<p class=\"note\">Loading…</p>";"##,
    r##"const isoDate = new RegExp("^\\d{4}-\\d{2}-\\d{2}$");"##,
    r##"
"use strict";

const fs = require("fs");
const path = require("path");
"##,
    r##"
export default defineConfig({
  plugins: [react()],
  server: {
    port: 5173,
    proxy: {
      "/api": { target: "http://localhost:8080", changeOrigin: true },
    },
  },
  resolve: { alias: { "@": "/src" } },
});
"##,
];

pub(super) const SHELL: &[&str] = &[
    r##"echo "hello, world""##,
    r##"grep -rn "TODO" src/ --include="*.rs" | head -20"##,
    r##"git commit -am "fix: escape quotes in \"content\"""##,
    r##"
#!/usr/bin/env bash
set -euo pipefail

APP="myapp"
REGION="${REGION:-us-east-1}"

echo "Deploying $APP to $REGION..."
docker build -t "$APP:latest" .
docker push "$REGION.registry.example.com/$APP:latest"
"##,
    r##"
for f in "$@"; do
  if [ -f "$f" ]; then
    wc -l "$f"
  fi
done
"##,
    r##"curl -s -X POST http://localhost:8080/api/items -H "Content-Type: application/json" -d '{"name": "widget", "qty": 3}'"##,
    r##"curl -d "{\"name\": \"widget\"}" http://localhost:8080/items"##,
    r##"cargo test --release -- --nocapture"##,
    r##"ls -la /tmp && cd /work && make build"##,
    r##"find . -name "*.py" -exec sed -i 's/print "\(.*\)"/print("\1")/' {} +"##,
    r##"jq -r '.items[] | select(.status == "open") | .id' issues.json"##,
    r##"awk -F',' '{ print $1 ": " $3 }' data.csv"##,
    r##"
if [ -z "${API_KEY:-}" ]; then
  echo "error: API_KEY is not set" >&2
  exit 1
fi
"##,
    r##"python3 -c "import sys, json; print(json.load(sys.stdin)[\"version\"])" < package.json"##,
    r##"echo "Größe: 42 — café ☕" > out.txt"##,
    r##"ls "/mnt/c/Program Files/App" && echo "C:\\Program Files\\App""##,
    r##"
log() {
  printf '%s [%s] %s\n' "$(date +%H:%M:%S)" "$1" "$2"
}
log INFO "starting build"
log WARN "cache is empty"
"##,
    r##"export PGPASSWORD="" && psql -h localhost -U postgres -c "SELECT 1""##,
    r##"docker run --rm -e "TZ=UTC" -v "$(pwd):/app" -w /app node:20 npm test"##,
    r##""$HOME/bin/tool" --config "$HOME/.config/tool.toml""##,
    r##"
#!/bin/sh
# Waits for the database, runs migrations, then starts the server.
set -e

host="${DB_HOST:-localhost}"
port="${DB_PORT:-5432}"
tries=0

until nc -z "$host" "$port"; do
  tries=$((tries + 1))
  if [ "$tries" -ge 30 ]; then
    echo "database at $host:$port never came up" >&2
    exit 1
  fi
  echo "waiting for \"$host:$port\" ($tries)..."
  sleep 1
done

./manage.py migrate --noinput
exec gunicorn app.wsgi --bind "0.0.0.0:${PORT:-8000}" --workers "${WORKERS:-2}"
"##,
];

pub(super) const RUST: &[&str] = &[
    r##"println!("hello, world");"##,
    r##"
fn main() {
    let name = std::env::args().nth(1).unwrap_or_else(|| "world".to_string());
    println!("Hello, {name}!");
}
"##,
    r##"
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Config {
    #[serde(default = "default_port")]
    port: u16,
    host: String,
}
"##,
    r##"let body = json!({"name": "widget", "tags": ["a", "b"], "qty": 3});"##,
    r##"
let re = Regex::new(r"^\d{4}-\d{2}-\d{2}$").unwrap();
let s = r#"{"a": 1}"#;
"##,
    r##"
let msg = "she said \"hi\"";
assert_eq!(msg.len(), 15);
"##,
    r##"
fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 { a } else { gcd(b, a % b) }
}
"##,
    r##"let total: u32 = items.iter().map(|i| i.qty).sum();"##,
    r##"
#[test]
fn parses_empty() {
    assert_eq!(parse(""), Ok(vec![]));
    assert!(parse("\"").is_err());
}
"##,
    r##"
match cmd.as_str() {
    "build" | "b" => build()?,
    "test" => test(&args)?,
    "" => return Err(anyhow!("missing command")),
    other => bail!("unknown command: {other:?}"),
}
"##,
    r##"let path = Path::new("C:\\Users\\dev\\config.toml");"##,
    r##"const GREETING: &str = "Grüß dich, 世界 👋";"##,
    r##"
#[derive(Parser)]
#[command(name = "demo", about = "Does a \"demo\" thing")]
struct Args {
    #[arg(short, long, default_value = "out.txt")]
    output: PathBuf,
}
"##,
    r##"
eprintln!("error: {:?}", e);
std::process::exit(1);
"##,
    r##"
let mut m = HashMap::new();
m.insert("a", 1);
m.insert("b", 2);
"##,
    r##"use crate::config::Config; // see "config.rs""##,
    r##"
#[cfg(feature = "serde")]
impl Serialize for Id {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.0)
    }
}
"##,
    r##"
static SCHEMA: &str = include_str!("../schema.json");
const EMPTY: &str = "";
"##,
    r##"
use std::fs;
use std::path::Path;

/// Reads `name = "value"` lines; `#` starts a comment.
pub fn read_pairs(path: &Path) -> std::io::Result<Vec<(String, String)>> {
    let text = fs::read_to_string(path)?;
    let mut pairs = Vec::new();
    for line in text.lines() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let Some((key, value)) = line.split_once('=') else {
            eprintln!("skipping {line:?}: no \"=\"");
            continue;
        };
        let value = value.trim().trim_matches('"');
        pairs.push((key.trim().to_owned(), value.replace("\\n", "\n")));
    }
    Ok(pairs)
}
"##,
];

pub(super) const C: &[&str] = &[
    r##"printf("hello, world\n");"##,
    r##"
#include <stdio.h>
#include "util.h"

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s FILE\n", argv[0]);
        return 1;
    }
    printf("reading \"%s\"\n", argv[1]);
    return 0;
}
"##,
    r##"
int add(int a, int b) {
    return a + b;
}
"##,
    r##"for (size_t i = 0; i < n; i++) sum += xs[i];"##,
    r##"
#ifndef UTIL_H
#define UTIL_H

#define VERSION "1.2.0"
#define PATH_SEP '\\'

int parse(const char *s);

#endif
"##,
    r##"static const char *names[] = {"alice", "bob", "", NULL};"##,
    r##"FILE *f = fopen("C:\\temp\\log.txt", "a");"##,
    r##"
if (strcmp(cmd, "start") == 0) {
    start();
} else if (strcmp(cmd, "stop") == 0) {
    stop();
} else {
    fprintf(stderr, "unknown command \"%s\"\n", cmd);
}
"##,
    r##"const char *body = "{\"name\": \"widget\", \"qty\": 2}";"##,
    r##"
struct option opts[] = {
    {"help", no_argument, 0, 'h'},
    {"output", required_argument, 0, 'o'},
    {0, 0, 0, 0}
};
"##,
    r##"const char *greeting = "Grüße, 世界";"##,
    r##"snprintf(buf, sizeof buf, "%s/%s.json", dir, name);"##,
    r##"#define LOG(fmt, ...) fprintf(stderr, "[%s:%d] " fmt "\n", __FILE__, __LINE__, __VA_ARGS__)"##,
    r##"
assert(strlen("") == 0);
assert(strcmp("a", "b") < 0);
"##,
    r##"#include "config.h""##,
    r##"
"  -h  show this help\n"
"  -o  write to FILE\n""##,
    r##"
switch (c) {
case '"':
    return QUOTE;
case '\\':
    return BACKSLASH;
default:
    return OTHER;
}
"##,
    r##"
const char *home = getenv("HOME");
if (home == NULL || *home == '\0') home = "/tmp";
"##,
];
