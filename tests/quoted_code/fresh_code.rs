//! The fresh snippet pool, programming languages: Python, Go,
//! JavaScript/TypeScript, shell, Rust, C and Java.
//!
//! The fresh pool: written after the engine was tuned on the dev and held-out
//! lists, by someone who had not seen how it decides, and never tuned
//! against. Same conventions (a leading newline is not part of a snippet; Go
//! is indented with tabs when read). About one snippet in ten has no double
//! quote.

pub(super) const PYTHON_FRESH: &[&str] = &[
    r##"
def to_tool_call(path, content):
    return {"name": "write_file", "arguments": {"path": path, "content": content}}
"##,
    r##"
    result = subprocess.run(
        ["bash", "-lc", cmd],
        capture_output=True,
        text=True,
        env={**os.environ, "LC_ALL": "C"},
"##,
    r##"
TOOL_SPEC = {
    "name": "run_command",
    "description": "Run a shell command and return its output",
    "parameters": {
        "type": "object",
        "properties": {
            "command": {"type": "string", "description": "The command to run"},
            "timeout": {"type": "integer", "minimum": 1},
        },
        "required": ["command"],
    },
}
"##,
    r##"log.warning("skipping %r: expected \"key=value\", got %d fields", line, len(parts))"##,
    r##"
ATTR = re.compile(r'(\w+)="([^"]*)"')
for name, value in ATTR.findall(tag):
    attrs[name] = value
"##,
    r##"
BASE = Path(r"C:\Users\marta\Documents\reports")
out = BASE / "2024" / "résumé.docx"
print(f"writing {out!s} ({out.stat().st_size} bytes)")
"##,
    r##"
def chunks(seq, size):
    for start in range(0, len(seq), size):
        yield seq[start:start + size]
"##,
    r##"
    def __repr__(self):
        return f"<Order #{self.id} total={self.total:.2f} status=\"{self.status}\">""##,
    r##"
def test_create_note(client):
    resp = client.post(
        "/api/notes",
        json={"title": "Groceries", "content": "milk, eggs, \"good\" bread"},
    )
    assert resp.status_code == 201
    assert resp.json()["content"].startswith("milk")
"##,
    r##"
try:
    args = json.loads(call["function"]["arguments"])
except json.JSONDecodeError as exc:
    raise ToolError(f"bad arguments for {call['function']['name']}: {exc}") from exc
file_path = args.get("file_path") or args["path"]
"##,
    r##"
"command": "pytest -x -q tests/",
    "description": "Run the unit tests",
    "timeout": 120,
}
"##,
    r##"
# Colours for the "status" column; see https://example.com/palette#warm
STATUS_COLOURS = {
    "ok": "#2e7d32",
    "warn": "#f9a825",  # amber, not "yellow"
    "fail": "#c62828",
}
"##,
    r##"
cur.execute(
    'SELECT "id", "file_path" FROM "documents" WHERE "owner" = %s AND "title" LIKE %s',
    (owner, f"%{term}%"),
)
"##,
    r##"
headers = {
    "Authorization": f"Bearer {token}",
    "User-Agent": "sync-bot/1.4 (+https://example.org/bot)","##,
    r##"
EXAMPLE = """
{"path": "notes/todo.md", "content": "- [ ] buy \\"oat\\" milk"}
"""
print(json.loads(EXAMPLE)["content"], end="")
"##,
];

pub(super) const GO_FRESH: &[&str] = &[
    r##"
var mimeTypes = map[string]string{
    ".css":  "text/css; charset=utf-8",
    ".js":   "text/javascript; charset=utf-8",
    ".json": "application/json","##,
    r##"
type WriteFileArgs struct {
    Path    string `json:"path"`
    Content string `json:"content"`
    Mode    uint32 `json:"mode,omitempty"`
}
"##,
    r##"log.Printf("tool %q failed: exit=%d stderr=\"%s\"", name, code, strings.TrimSpace(stderr))"##,
    r##"
    req, err := http.NewRequestWithContext(ctx, "POST", baseURL+"/v1/files", bytes.NewReader(body))
    if err != nil {
        return nil, fmt.Errorf("build request: %w", err)
    }
    req.Header.Set("Authorization", "Bearer "+token)
"##,
    r##"
const sample = `{"command": "ls -la", "description": "List files"}`

func TestDecode(t *testing.T) {
    var c Cmd
    if err := json.Unmarshal([]byte(sample), &c); err != nil {
        t.Fatal(err)
    }
    if c.Command != "ls -la" {
        t.Errorf("Command = %q, want %q", c.Command, "ls -la")
    }
}
"##,
    r##"
func (s *Stack[T]) Pop() (T, bool) {
    var zero T
    if len(s.items) == 0 {
        return zero, false
    }
    top := s.items[len(s.items)-1]
    s.items = s.items[:len(s.items)-1]
    return top, true
}
"##,
    r##"
var bashCandidates = []string{
    `C:\Program Files\Git\bin\bash.exe`,
    "C:\\msys64\\usr\\bin\\bash.exe",
    "/usr/bin/bash",
}
"##,
    r##"var kv = regexp.MustCompile(`(\w+)="((?:[^"\\]|\\.)*)"`)"##,
    r##"
const page = `<!doctype html>
<title>{{.Title}}</title>
<a href="{{.URL}}" class="{{if .Active}}active{{end}}">{{.Label}}</a>
`
"##,
    r##"
fmt.Printf("%-10s│%6.2f €\n", "Kaffee", 3.5)
fmt.Println("→ fertig ✓")
"##,
    r##"
    switch runtime.GOOS {
    case "windows":
        shell = "cmd.exe"
    default:
        shell = "/bin/sh""##,
    r##"
"encoding/json"
    "net/http"
    "time"
)
"##,
    r##"
    body := map[string]any{
        "file_path":  path,
        "old_string": old,
        "new_string": strings.ReplaceAll(old, "\t", "    "),
    }
"##,
    r##"
// See https://pkg.go.dev/net/http#Client for what "Timeout" covers.
client := &http.Client{Timeout: 15 * time.Second}
"##,
    r##"rows, err := db.QueryContext(ctx, `SELECT "id", "title" FROM "notes" WHERE "tags" @> $1`, pq.Array(tags))"##,
    r##"
var rootCmd = &cobra.Command{
    Use:   "sync [flags] SRC DST",
    Short: "Copy the files that changed",
    Args:  cobra.ExactArgs(2),
    RunE: func(cmd *cobra.Command, args []string) error {
        dry, _ := cmd.Flags().GetBool("dry-run")
        return run(args[0], args[1], dry)
"##,
];

pub(super) const JAVASCRIPT_FRESH: &[&str] = &[
    r##"
  const res = await fetch(url, {
    method: "PATCH",
    headers: {
      "Authorization": `Bearer ${token}`,
      "Content-Type": "application/merge-patch+json",
"##,
    r##"
const tools = [
  {
    type: "function",
    function: {
      name: "edit_file",
      description: "Replace one exact string in a file",
      parameters: {
        type: "object",
        properties: {
          file_path: { type: "string" },
          old_string: { type: "string" },
          new_string: { type: "string" },
        },
        required: ["file_path", "old_string", "new_string"],
      },
    },
  },
];
"##,
    r##"
        <a href={`/users/${user.id}`} className="link" aria-label="Open profile">
          {user.name}
        </a>
      </li>
    ))}
  </ul>
"##,
    r##"
const { data } = await axios.put(`/api/files/${encodeURIComponent(name)}`, {
  "path": filePath,
  "content": text,
}, { headers: { "X-Request-Id": crypto.randomUUID() } });
"##,
    r##"const attrRe = /(\w+)=(?:"([^"]*)"|'([^']*)')/g;"##,
    r##"const html = "<span title=\"" + escapeAttr(title) + "\">" + label + "</span>";"##,
    r##"export const clamp = (n, lo, hi) => Math.min(hi, Math.max(lo, n));"##,
    r##"console.error("%s: expected %d args, got %d (\"%s\")", cmd, want, got, argv.join(" "));"##,
    r##"
// Polyfill from https://developer.mozilla.org/en-US/docs/Web/API/URL#browser_compatibility
// Don't drop the "//" check: protocol-relative URLs break without it.
if (url.startsWith("//")) url = location.protocol + url;
"##,
    r##"
const logDir = process.platform === "win32"
  ? "C:\\ProgramData\\Acme\\logs"
  : "/var/log/acme";
"##,
    r##"
const PARSE_HINT =
  "Could not parse the tool call. Make sure \"arguments\" is valid JSON and every quote in \"content\" is escaped""##,
    r##"
"use client";

import { useEffect, useState } from "react";

export default function Clock() {
  const [now, setNow] = useState(() => new Date());
  useEffect(() => {
    const id = setInterval(() => setNow(new Date()), 1000);
    return () => clearInterval(id);
  }, []);
  return <time dateTime={now.toISOString()}>{now.toLocaleTimeString("de-DE")}</time>;
}
"##,
    r##"toast.success(`Gespeichert ✔ — ${count} Änderungen übernommen`, { icon: "💾" });"##,
    r##"
router.post("/commands", async (req, res) => {
  const { command, description = "" } = req.body;
  if (typeof command !== "string" || command.trim() === "") {
    return res.status(400).json({ error: "\"command\" must be a non-empty string" });
  }
"##,
    r##"
type RequestHeaders = {
  "content-type"?: string;
  "x-api-key": string;
};
"##,
    r##"const line = `${key}="${String(value).replace(/"/g, '\\"')}"`;"##,
];

pub(super) const SHELL_FRESH: &[&str] = &[
    r##"
kubectl apply -f - <<EOF
apiVersion: v1
kind: Secret
metadata:
  name: api-token
stringData:
  token: "${API_TOKEN}"
EOF
"##,
    r##"
git commit -F - <<'MSG'
fix(parser): accept "key": value pairs

Closes #214. Values like "C:\temp" are now read as they are.
MSG
"##,
    r##"
cat > /tmp/payload.json <<EOF
{"path": "$TARGET", "content": "$(base64 -w0 "$FILE")"}
EOF
curl -sf -X POST "$API/files" -H 'Content-Type: application/json' --data @/tmp/payload.json
"##,
    r##"ssh deploy@web1 "sudo -u app bash -c 'cd /srv/app && git pull && echo \"deployed \$(git rev-parse --short HEAD)\"'""##,
    r##"printf "%-20s %8s\n" "NAME" "SIZE"; du -sh -- */ | sort -h | awk '{ printf "%-20s %8s\n", $2, $1 }'"##,
    r##"sed -i.bak -E 's/"version": "[0-9]+\.[0-9]+\.[0-9]+"/"version": "'"$NEW_VERSION"'"/' package.json"##,
    r##"
set -eux
apt-get update
apt-get install -y --no-install-recommends build-essential pkg-config libssl-dev
rm -rf /var/lib/apt/lists/*
"##,
    r##""/c/Program Files/Git/bin/git.exe" -C "C:\\work\\repo" status --short"##,
    r##"
retry() {
  local n=0 max="${RETRIES:-5}"
  until "$@"; do
    n=$((n + 1))
    if (( n >= max )); then
      echo "retry: \"$*\" failed after $n attempts" >&2
      return 1
    fi
    sleep $(( 2 ** n ))
  done
}
"##,
    r##"git log --since="2 weeks ago" --pretty=format:'%h %an "%s"' -- src/ | head -n 30"##,
    r##"echo "✅ Build fertig in ${SECONDS}s — Artefakte unter ./dist""##,
    r##"
# Remove "*.orig" leftovers from merges (never inside .git/)
find . -path ./.git -prune -o -name "*.orig" -print0 | xargs -0 rm -f --
"##,
    r##"export PATH="$HOME/.cargo/bin:$PATH""##,
    r##"
python3 - "$@" <<'PY'
import json, sys
data = json.load(open(sys.argv[1]))
print(json.dumps({"count": len(data), "first": data[0] if data else None}))
PY
"##,
    r##"jq -n --arg path "$f" --arg content "$(cat "$f")" '{path: $path, content: $content}'"##,
    r##"
case "$1" in
  -h|--help)
    echo "usage: $(basename "$0") [--dry-run] TARGET"
    exit 0
    ;;
  --dry-run)
    DRY_RUN=1; shift
    ;;
"##,
    r##"docker compose exec -T db psql -U postgres -d app -c 'SELECT "id", "email" FROM "users" LIMIT 5;'"##,
];

pub(super) const RUST_FRESH: &[&str] = &[
    r##"
    let req = json!({
        "model": model,
        "max_tokens": 1024,
        "system": "Answer in \"plain\" English; cite the file path.",
"##,
    r##"
let call = json!({
    "name": "Write",
    "input": {"file_path": path.display().to_string(), "content": body},
});
"##,
    r##"return Err(format!("expected \"{}\" after key {:?}, found {:?}", ':', key, tok));"##,
    r##"
impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseError::Eof => write!(f, "unexpected end of input"),
            ParseError::Char(c, at) => write!(f, "unexpected {c:?} at byte {at}"),
"##,
    r##"const FIXTURE: &str = r#"{"command": "cat \"a b.txt\"", "timeout": 30}"#;"##,
    r##"
pub fn mean(xs: &[f64]) -> Option<f64> {
    if xs.is_empty() {
        return None;
    }
    Some(xs.iter().sum::<f64>() / xs.len() as f64)
}
"##,
    r##"
/// Mirrors the wire format, see <https://spec.example.org/v2#tool-use>.
#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Block {
    Text { text: String },
    ToolUse { id: String, name: String, input: serde_json::Value },
}
"##,
    r##"let cache = PathBuf::from(r"C:\Users\Zoë\AppData\Local\argmend\cache");"##,
    r##"static KV: LazyLock<Regex> = LazyLock::new(|| Regex::new(r#"(\w+)\s*=\s*"([^"]*)""#).unwrap());"##,
    r##"
    assert_eq!(
        render(&doc),
        "<p>a &quot;b&quot;</p>\n""##,
    r##"
"path" | "file_path" => args.path = Some(value.to_owned()),
        "content" => args.content = value.to_owned(),
        other => return Err(Error::UnknownField(other.into())),
    }
"##,
    r##"
let out = Command::new("sh")
    .arg("-c")
    .arg(format!("git log -1 --format='%H %s' -- \"{}\"", file.display()))
    .output()?;
"##,
    r##"tracing::info!(path = %p.display(), bytes = n, "wrote \"{}\"", name);"##,
    r##"
#[test]
fn width_of_wide_chars() {
    assert_eq!(display_width("日本語"), 6);
    assert_eq!(display_width("e\u{301}"), 1);
    assert_eq!(display_width("👩‍💻"), 2);
}
"##,
    r##"
    /// Files to skip, e.g. "target/**" or "*.lock"
    #[arg(long = "exclude", value_name = "GLOB")]
    excludes: Vec<String>,
"##,
    r##"
macro_rules! field {
    ($obj:expr, $key:literal) => {
        $obj.get($key).and_then(|v| v.as_str()).ok_or(concat!("missing \"", $key, "\""))?
    };
}
"##,
];

pub(super) const C_FRESH: &[&str] = &[
    r##"fprintf(stderr, "%s:%d: expected '%c' but found \"%.*s\"\n", file, line, want, (int)len, tok);"##,
    r##"
static const char *TOOL_CALL =
    "{\"name\": \"bash\", \"arguments\": {\"command\": \"ls -la /tmp\", "
    "\"description\": \"List temp files\"}}";
"##,
    r##"
int parse_header(const char *line, struct header *h) {
    const char *colon = strchr(line, ':');
    if (!colon) {
        return -1;
    }
    h->name = strndup(line, colon - line);
"##,
    r##"
#ifdef _WIN32
#define CONFIG_DIR "C:\\ProgramData\\acme"
#else
#define CONFIG_DIR "/etc/acme"
#endif
"##,
    r##"
static inline uint32_t rotl32(uint32_t x, int r) {
    return (x << r) | (x >> (32 - r));
}
"##,
    r##"
void json_escape(FILE *out, const char *s) {
    fputc('"', out);
    for (; *s; s++) {
        switch (*s) {
        case '"':  fputs("\\\"", out); break;
        case '\\': fputs("\\\\", out); break;
        case '\n': fputs("\\n", out); break;
        default:   fputc(*s, out);
        }
    }
    fputc('"', out);
}
"##,
    r##"
puts("Größe: 12 µm — Toleranz ±0,5");
wprintf(L"Привет, %ls!\n", name);
"##,
    r##"
/* RFC 8259, section 7: "All Unicode characters may be placed within the
 * quotation marks, except for the characters that MUST be escaped".
 * https://www.rfc-editor.org/rfc/rfc8259#section-7 */
"##,
    r##"
#define USAGE \
    "usage: tool [-v] [-o FILE] INPUT\n" \
    "  -o FILE  write output to FILE (default: \"-\")""##,
    r##"
"GET", "POST", "PUT", "DELETE",
    NULL
};
"##,
    r##"if (sscanf(buf, "%63[^=]=\"%255[^\"]\"", key, val) != 2) continue;"##,
    r##"
static const struct route routes[] = {
    { .method = "GET",  .path = "/api/files",     .handler = list_files },
    { .method = "POST", .path = "/api/files/:id", .handler = put_file },
"##,
    r##"
snprintf(cmd, sizeof cmd, "tar -czf \"%s.tar.gz\" -C \"%s\" .", name, dir);
if (system(cmd) != 0) perror("tar");
"##,
    r##"
while ((opt = getopt(argc, argv, "vo:")) != -1) {
    switch (opt) {
    case 'v': verbose = 1; break;
    case 'o': out_path = optarg; break;
    default:
        fprintf(stderr, "Usage: %s [-v] [-o file]\n", argv[0]);
        exit(EXIT_FAILURE);
    }
}
"##,
];

pub(super) const JAVA_FRESH: &[&str] = &[
    r##"
package com.example.files;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

public final class FileTool {
    public String write(Path path, String content) throws IOException {
        Files.writeString(path, content);
        return "{\"path\": \"" + path + "\", \"bytes\": " + content.length() + "}";
    }
}
"##,
    r##"throw new IllegalArgumentException(String.format("Unknown command \"%s\" (expected one of %s)", cmd, KNOWN));"##,
    r##"
String body = """
    {
      "command": "run_tests",
      "description": "Run the \\"unit\\" tests only",
      "timeout": 120
    }
    """;
"##,
    r##"
@RestController
@RequestMapping("/api/v1/files")
public class FileController {

    @GetMapping(value = "/{id}", produces = "application/json")
    public ResponseEntity<FileDto> get(@PathVariable("id") long id) {
"##,
    r##"
public static int binarySearch(int[] a, int key) {
    int lo = 0, hi = a.length - 1;
    while (lo <= hi) {
        int mid = (lo + hi) >>> 1;
        if (a[mid] < key) lo = mid + 1;
        else if (a[mid] > key) hi = mid - 1;
        else return mid;
    }
    return -(lo + 1);
}
"##,
    r##"private static final Pattern QUOTED = Pattern.compile("\"((?:[^\"\\\\]|\\\\.)*)\"");"##,
    r##"Path logs = Paths.get("C:\\Users\\dev\\AppData\\Local\\Temp", "app.log");"##,
    r##"
@Test
void stripsAccents() {
    assertEquals("Cafe", Slug.ascii("Café"));
    assertEquals("", Slug.ascii(""));
    assertThrows(NullPointerException.class, () -> Slug.ascii(null));
}
"##,
    r##"
Map<String, Object> args = Map.of(
    "file_path", target.toString(),
    "old_string", before,
    "new_string", after
);
String json = mapper.writeValueAsString(args);
"##,
    r##"
String sql = "SELECT \"id\", \"name\" FROM \"Customer\" "
    + "WHERE \"country\" = ? "
    + "ORDER BY \"name\"""##,
    r##"
"classpath:application.yml",
        "file:./config/application.yml"
    })
"##,
    r##"
// Retry policy per https://docs.aws.amazon.com/general/latest/gr/api-retries.html
logger.warn("Attempt {}/{} for \"{}\" failed: {}", attempt, max, key, e.getMessage());
"##,
    r##"
ProcessBuilder pb = new ProcessBuilder("bash", "-c", "find . -name '*.java' -newer \"" + marker + "\" | wc -l");
pb.redirectErrorStream(true);
Process p = pb.start();
"##,
    r##"
return switch (c) {
    case '"' -> "&quot;";
    case '&' -> "&amp;";
    case '<' -> "&lt;";
    case '>' -> "&gt;";
    default -> String.valueOf(c);
};
"##,
    r##"
public record ToolCall(
    @JsonProperty("name") String name,
    @JsonProperty("arguments") Map<String, String> arguments) {}
"##,
];
