//! The writer of `beside_strings`: a truth tree written in a layout, with
//! the edits of a plan at some of its sites, and the truth built beside it.
//!
//! Every place where a family may put its fault is a site, numbered in
//! writing order. A run with an empty plan lists the sites; the planner
//! picks some and says what to write there; a second run writes the case.
//! The same run with `Form::Mended` writes every edit the right way, which
//! gives valid JSON of the same truth: the generator's own check.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

/// One node of the truth: keys and strings come from the pool.
#[derive(Debug, Clone)]
pub(super) enum Node {
    Str(&'static str),
    /// A number as written, e.g. `2.5`.
    Num(&'static str),
    Bool(bool),
    Null,
    Arr(Vec<Node>),
    Obj(Vec<(&'static str, Node)>),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Layout {
    /// `{"a":"b","c":1}`
    Compact,
    /// `{"a": "b", "c": 1}`
    Spaced,
    /// One member a line, indented by two spaces a level.
    Pretty,
}

impl Layout {
    pub(super) const ALL: [Layout; 3] = [Layout::Compact, Layout::Spaced, Layout::Pretty];

    pub(super) fn name(self) -> &'static str {
        match self {
            Layout::Compact => "compact",
            Layout::Spaced => "spaced",
            Layout::Pretty => "pretty",
        }
    }

    /// The text after an opening bracket, or after a comma, at `depth`.
    fn after_comma(self, depth: usize) -> String {
        match self {
            Layout::Compact => String::new(),
            Layout::Spaced => " ".to_owned(),
            Layout::Pretty => format!("\n{}", "  ".repeat(depth + 1)),
        }
    }

    fn after_open(self, depth: usize) -> String {
        match self {
            Layout::Pretty => self.after_comma(depth),
            _ => String::new(),
        }
    }

    fn before_close(self, depth: usize) -> String {
        match self {
            Layout::Pretty => format!("\n{}", "  ".repeat(depth)),
            _ => String::new(),
        }
    }

    fn colon(self) -> &'static str {
        match self {
            Layout::Compact => ":",
            _ => ": ",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Container {
    Object,
    Array,
}

impl Container {
    pub(super) fn name(self) -> &'static str {
        match self {
            Container::Object => "object",
            Container::Array => "array",
        }
    }
}

/// What kind of place a site is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum SiteKind {
    /// Right after an array's `[`.
    Lead,
    /// The comma after a member that is not the last.
    Gap,
    /// Right before a container's closing bracket.
    Trail,
    /// An object's key.
    Key,
    /// The colon after a key.
    Colon,
    /// A string value: an object member's value or an array element.
    Value,
}

/// One place a fault can go, and what is around it.
#[derive(Debug, Clone)]
pub(super) struct Site {
    pub(super) kind: SiteKind,
    pub(super) container: Container,
    /// Which container (numbered in writing order) the site is in.
    pub(super) container_id: usize,
    /// The member the site belongs to; for a gap, the member before it.
    pub(super) member: usize,
    pub(super) members: usize,
    /// The key of a key site; the string of a value site; for a trail, the
    /// last member's value when it is a string.
    pub(super) text: Option<&'static str>,
    /// Whether a string sits right beside the place (a separator between
    /// two objects in an array does not).
    pub(super) beside_string: bool,
}

/// How a string's body is written between unusual delimiters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Body {
    /// As in JSON: `"` and `\` escaped.
    Json,
    /// As in single-quoted JavaScript or Python: `'` escaped, `"` raw.
    Single,
}

/// How the parts of a concatenated string are joined.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Join {
    /// `"ab" + "cd"`
    Spaced,
    /// `"ab"+"cd"`
    Tight,
    /// `"ab" +⏎  "cd"`
    PlusThenNewline,
    /// `"ab"⏎  + "cd"`
    NewlineThenPlus,
}

/// A comment after a string value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Comment {
    /// `// note` or `# note` (with the marker), then a line break; after
    /// the value's comma, or after the value when it is the last.
    Line(&'static str, &'static str),
    /// `/* note */`, before the value's comma or after it.
    Block {
        note: &'static str,
        before_comma: bool,
    },
}

/// What a plan writes at a site instead of the correct text.
#[derive(Debug, Clone)]
pub(super) enum Edit {
    /// At a gap: this instead of the comma (`""` for none).
    Comma(&'static str),
    /// At a gap: `<!-- note -->` before the comma or after it.
    Html {
        note: &'static str,
        before_comma: bool,
    },
    /// At a lead or a trail: this many commas.
    Commas(usize),
    /// At a key or a string value: these delimiters.
    Quote {
        open: &'static str,
        close: &'static str,
        body: Body,
    },
    /// At a key: this key, without quotes (the truth key is this text).
    BareKey(&'static str),
    /// At a colon: this text instead (`" = "`, `"=>"`, `"："`).
    Colon(&'static str),
    /// At a string value: a comment after it.
    Comment(Comment),
    /// At a string value: the string cut before these char indices and the
    /// parts joined with `+`.
    Concat { cuts: Vec<usize>, join: Join },
    /// At a string value: the closing quote left out.
    NoEndQuote,
    /// At a string value: `"""…"""` with raw line breaks and quotes.
    Triple,
    /// At a string value: this identifier glued before its opening quote;
    /// the truth is the whole text as written, one string.
    Glued(&'static str),
}

/// The edits of one case, by site number.
#[derive(Debug, Clone, Default)]
pub(super) struct Plan {
    pub(super) edits: BTreeMap<usize, Edit>,
    /// Full-width brackets and braces (`fullwidth` everywhere).
    pub(super) fullwidth_brackets: bool,
}

/// Whether the plan's edits are written as the fault or the right way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Form {
    Broken,
    Mended,
}

/// What a run wrote: the text, the truth, and every site on the way.
pub(super) struct Written {
    pub(super) text: String,
    pub(super) truth: Value,
    pub(super) sites: Vec<Site>,
}

/// Write `node` in `layout` with the edits of `plan`.
pub(super) fn write(node: &Node, layout: Layout, plan: &Plan, form: Form) -> Written {
    let mut writer = Writer {
        layout,
        plan,
        form,
        out: String::new(),
        sites: Vec::new(),
        n_containers: 0,
        pending: None,
    };
    let truth = writer.node(node, 0);
    assert!(writer.pending.is_none(), "a comment was never written");
    Written {
        text: writer.out,
        truth,
        sites: writer.sites,
    }
}

/// Where a member sits, for the sites it records.
#[derive(Debug, Clone, Copy)]
struct Place {
    container: Container,
    container_id: usize,
    member: usize,
    members: usize,
    depth: usize,
}

struct Writer<'a> {
    layout: Layout,
    plan: &'a Plan,
    form: Form,
    out: String,
    sites: Vec<Site>,
    n_containers: usize,
    /// A comment to write after the value just written, before or after
    /// the comma that follows it (or before the closing bracket).
    pending: Option<Comment>,
}

impl<'a> Writer<'a> {
    /// Record a site; its edit, if the plan has one.
    fn site(
        &mut self,
        kind: SiteKind,
        place: Place,
        text: Option<&'static str>,
        beside_string: bool,
    ) -> Option<&'a Edit> {
        let idx = self.sites.len();
        self.sites.push(Site {
            kind,
            container: place.container,
            container_id: place.container_id,
            member: place.member,
            members: place.members,
            text,
            beside_string,
        });
        self.plan.edits.get(&idx)
    }

    fn broken(&self) -> bool {
        self.form == Form::Broken
    }

    fn node(&mut self, node: &Node, depth: usize) -> Value {
        match node {
            Node::Str(s) => {
                self.out.push_str(&json_string(s));
                Value::String((*s).to_owned())
            }
            Node::Num(n) => {
                self.out.push_str(n);
                serde_json::from_str(n).expect("a pool number is JSON")
            }
            Node::Bool(b) => {
                self.out.push_str(if *b { "true" } else { "false" });
                Value::Bool(*b)
            }
            Node::Null => {
                self.out.push_str("null");
                Value::Null
            }
            Node::Arr(items) => self.array(items, depth),
            Node::Obj(members) => self.object(members, depth),
        }
    }

    fn bracket(&mut self, ascii: char, wide: char) {
        if self.broken() && self.plan.fullwidth_brackets {
            self.out.push(wide);
        } else {
            self.out.push(ascii);
        }
    }

    fn array(&mut self, items: &[Node], depth: usize) -> Value {
        let container_id = self.new_container();
        let n = items.len();
        let place = |member| Place {
            container: Container::Array,
            container_id,
            member,
            members: n,
            depth,
        };
        let is_str = |i: usize| matches!(items.get(i), Some(Node::Str(_)));
        self.bracket('[', '［');
        let lead = self.site(SiteKind::Lead, place(0), None, is_str(0));
        if let (Some(Edit::Commas(k)), Form::Broken) = (lead, self.form) {
            self.out.push_str(&",".repeat(*k));
            if self.layout == Layout::Spaced {
                self.out.push(' ');
            }
        }
        self.out.push_str(&self.layout.after_open(depth));
        let mut values = Vec::with_capacity(n);
        for (i, item) in items.iter().enumerate() {
            if i > 0 {
                self.gap(place(i - 1), is_str(i - 1) || is_str(i));
            }
            values.push(self.member_value(item, place(i)));
        }
        let last = match items.last() {
            Some(Node::Str(s)) => Some(*s),
            _ => None,
        };
        self.close(place(n.saturating_sub(1)), last, (']', '］'));
        Value::Array(values)
    }

    fn object(&mut self, members: &[(&'static str, Node)], depth: usize) -> Value {
        let container_id = self.new_container();
        let n = members.len();
        let place = |member| Place {
            container: Container::Object,
            container_id,
            member,
            members: n,
            depth,
        };
        self.bracket('{', '｛');
        self.out.push_str(&self.layout.after_open(depth));
        let mut map = Map::new();
        for (i, (key, value)) in members.iter().enumerate() {
            if i > 0 {
                // The next key is a string beside the comma.
                self.gap(place(i - 1), true);
            }
            let key = self.key(key, place(i));
            self.colon(place(i));
            let value = self.member_value(value, place(i));
            let twice = map.insert(key.clone(), value);
            assert!(twice.is_none(), "the key {key:?} twice in one object");
        }
        let last = match members.last() {
            Some((_, Node::Str(s))) => Some(*s),
            _ => None,
        };
        self.close(place(n.saturating_sub(1)), last, ('}', '｝'));
        Value::Object(map)
    }

    fn new_container(&mut self) -> usize {
        self.n_containers += 1;
        self.n_containers - 1
    }

    /// The separator after the member of `place`, and a pending comment.
    fn gap(&mut self, place: Place, beside_string: bool) {
        let after = self.layout.after_comma(place.depth);
        let edit = self
            .site(SiteKind::Gap, place, None, beside_string)
            .cloned()
            .filter(|_| self.broken());
        let comment = self.pending.take();
        let text = match (edit, comment) {
            (None, None) => format!(",{after}"),
            (Some(Edit::Comma("")), None) if after.is_empty() => " ".to_owned(),
            (Some(Edit::Comma(comma)), None) => format!("{comma}{after}"),
            (Some(Edit::Html { note, before_comma }), None) => {
                if before_comma {
                    format!(" <!-- {note} -->,{after}")
                } else {
                    format!(",{after}<!-- {note} -->{after}")
                }
            }
            (None, Some(Comment::Line(marker, note))) => {
                format!(", {marker} {note}{}", line_end(&after))
            }
            (None, Some(Comment::Block { note, before_comma })) => {
                if before_comma {
                    format!(" /* {note} */,{after}")
                } else {
                    format!(", /* {note} */{after}")
                }
            }
            (edit, comment) => unreachable!("{edit:?} and {comment:?} at one gap"),
        };
        self.out.push_str(&text);
    }

    /// The end of a container: a trail site, a pending comment, the bracket.
    fn close(&mut self, place: Place, last: Option<&'static str>, brackets: (char, char)) {
        let before = self.layout.before_close(place.depth);
        let edit = self
            .site(SiteKind::Trail, place, last, last.is_some())
            .cloned()
            .filter(|_| self.broken());
        let text = match (edit, self.pending.take()) {
            (None, None) => before,
            (Some(Edit::Commas(k)), None) => format!("{}{before}", ",".repeat(k)),
            (None, Some(Comment::Line(marker, note))) => {
                format!(" {marker} {note}{}", line_end(&before))
            }
            (None, Some(Comment::Block { note, .. })) => format!(" /* {note} */{before}"),
            (edit, comment) => unreachable!("{edit:?} and {comment:?} at one trail"),
        };
        self.out.push_str(&text);
        self.bracket(brackets.0, brackets.1);
    }

    /// A key; returns the truth key.
    fn key(&mut self, key: &'static str, place: Place) -> String {
        let edit = self.site(SiteKind::Key, place, Some(key), true).cloned();
        match edit {
            None => {
                self.out.push_str(&json_string(key));
                key.to_owned()
            }
            Some(Edit::BareKey(bare)) => {
                if self.broken() {
                    self.out.push_str(bare);
                } else {
                    self.out.push_str(&json_string(bare));
                }
                bare.to_owned()
            }
            Some(Edit::Quote { open, close, body }) => {
                self.quoted(key, open, close, body);
                key.to_owned()
            }
            Some(edit) => unreachable!("{edit:?} at a key"),
        }
    }

    fn colon(&mut self, place: Place) {
        let text = match self.site(SiteKind::Colon, place, None, true) {
            Some(Edit::Colon(text)) if self.form == Form::Broken => *text,
            Some(Edit::Colon(_)) | None => self.layout.colon(),
            Some(edit) => unreachable!("{edit:?} at a colon"),
        };
        self.out.push_str(text);
    }

    /// A member's value: a string value is a site of its own.
    fn member_value(&mut self, node: &Node, place: Place) -> Value {
        let Node::Str(s) = *node else {
            return self.node(node, place.depth + 1);
        };
        let edit = self.site(SiteKind::Value, place, Some(s), true).cloned();
        let Some(edit) = edit else {
            return self.node(node, place.depth + 1);
        };
        if let Edit::Glued(ident) = edit {
            // The truth is the whole text as written: one string.
            let text = format!("{ident}\"{s}\"");
            if self.broken() {
                self.out.push_str(&text);
            } else {
                self.out.push_str(&json_string(&text));
            }
            return Value::String(text);
        }
        if !self.broken() {
            return self.node(node, place.depth + 1);
        }
        match edit {
            Edit::Quote { open, close, body } => self.quoted(s, open, close, body),
            Edit::Comment(comment) => {
                self.out.push_str(&json_string(s));
                self.pending = Some(comment);
            }
            Edit::Concat { cuts, join } => {
                let indent = match self.layout {
                    Layout::Pretty => "  ".repeat(place.depth + 2),
                    _ => "  ".to_owned(),
                };
                let joiner = match join {
                    Join::Spaced => " + ".to_owned(),
                    Join::Tight => "+".to_owned(),
                    Join::PlusThenNewline => format!(" +\n{indent}"),
                    Join::NewlineThenPlus => format!("\n{indent}+ "),
                };
                let chars: Vec<char> = s.chars().collect();
                let mut start = 0;
                for &cut in cuts.iter().chain(std::iter::once(&chars.len())) {
                    if start > 0 {
                        self.out.push_str(&joiner);
                    }
                    let part: String = chars[start..cut].iter().collect();
                    self.out.push_str(&json_string(&part));
                    start = cut;
                }
            }
            Edit::NoEndQuote => {
                let full = json_string(s);
                self.out.push_str(&full[..full.len() - 1]);
            }
            Edit::Triple => {
                self.out.push_str("\"\"\"");
                for c in s.chars() {
                    match c {
                        '\\' => self.out.push_str("\\\\"),
                        c => self.out.push(c),
                    }
                }
                self.out.push_str("\"\"\"");
            }
            edit => unreachable!("{edit:?} at a string value"),
        }
        Value::String(s.to_owned())
    }

    /// A string between the given delimiters (or as JSON when mended).
    fn quoted(&mut self, s: &str, open: &str, close: &str, body: Body) {
        if !self.broken() {
            self.out.push_str(&json_string(s));
            return;
        }
        self.out.push_str(open);
        match body {
            Body::Json => {
                let full = json_string(s);
                self.out.push_str(&full[1..full.len() - 1]);
            }
            Body::Single => {
                for c in s.chars() {
                    match c {
                        '\'' => self.out.push_str("\\'"),
                        '"' => self.out.push('"'),
                        c => {
                            let full = json_string(&c.to_string());
                            self.out.push_str(&full[1..full.len() - 1]);
                        }
                    }
                }
            }
        }
        self.out.push_str(close);
    }
}

/// `s` as a JSON string, quotes included.
pub(super) fn json_string(s: &str) -> String {
    serde_json::to_string(s).expect("a string serialises")
}

/// What ends a line comment: the layout's own line break, else one.
fn line_end(after: &str) -> String {
    if after.starts_with('\n') {
        after.to_owned()
    } else {
        "\n".to_owned()
    }
}
