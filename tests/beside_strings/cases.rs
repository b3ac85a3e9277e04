//! The cases of `beside_strings`: a truth drawn from the pool, one family's
//! fault planned at one, several or every fitting site, written in a layout.

use serde_json::Value;

use super::families::{Family, plan};
use super::pool::{KEYS, NUMBERS, VALUES};
use super::write::{Container, Form, Layout, Node, Plan, Site, SiteKind, write};
use crate::rng::Rng;

/// Which part of the pool a case draws its keys and value strings from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Split {
    Dev,
    /// Every third key and value string.
    HeldOut,
}

impl Split {
    pub(super) fn name(self) -> &'static str {
        match self {
            Split::Dev => "dev",
            Split::HeldOut => "held-out",
        }
    }
}

/// The truth's shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Shape {
    /// `{"a": "x", "b": 1}`
    FlatObject,
    /// `["x", "y"]`
    Strings,
    /// `{"a": "x", "tags": ["y", "z"]}`
    ObjectWithArray,
    /// `[{"a": "x"}, {"b": "y"}]`
    ObjectsInArray,
}

impl Shape {
    pub(super) fn name(self) -> &'static str {
        match self {
            Shape::FlatObject => "flat object",
            Shape::Strings => "array of strings",
            Shape::ObjectWithArray => "array in an object",
            Shape::ObjectsInArray => "objects in an array",
        }
    }
}

/// How widely a case's fault is spread.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Scope {
    One,
    Several,
    /// Every site that fits.
    Every,
}

/// Where the fault sits among the members of its container.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Position {
    First,
    Middle,
    Last,
    /// The container has one member (or one gap).
    Only,
    /// At several sites.
    Several,
    /// At every site that fits.
    Every,
}

impl Position {
    pub(super) fn name(self) -> &'static str {
        match self {
            Position::First => "first",
            Position::Middle => "middle",
            Position::Last => "last",
            Position::Only => "only",
            Position::Several => "several",
            Position::Every => "every",
        }
    }

    /// A site's position: among the members for keys, colons and values,
    /// among the gaps for a gap.
    fn of(site: &Site) -> Position {
        let (index, count) = match site.kind {
            SiteKind::Lead => return Position::First,
            SiteKind::Trail => return Position::Last,
            SiteKind::Gap => (site.member, site.members - 1),
            _ => (site.member, site.members),
        };
        match (index, count) {
            (_, 1) => Position::Only,
            (0, _) => Position::First,
            (i, n) if i + 1 == n => Position::Last,
            _ => Position::Middle,
        }
    }
}

/// One generated case: the text the model wrote and what it meant.
pub(super) struct Case {
    pub(super) index: usize,
    pub(super) family: Family,
    pub(super) split: Split,
    pub(super) layout: Layout,
    pub(super) shape: Shape,
    /// The container the (first) fault sits in; the top level when the
    /// fault is everywhere.
    pub(super) container: Container,
    pub(super) position: Position,
    pub(super) raw: String,
    /// The same case with every edit written the right way: valid JSON.
    pub(super) mended: String,
    pub(super) truth: Value,
}

impl Case {
    pub(super) fn label(&self) -> String {
        format!(
            "case {} ({}, {}, {}, {}, {} in an {})",
            self.index,
            self.family.name(),
            self.split.name(),
            self.layout.name(),
            self.shape.name(),
            self.position.name(),
            self.container.name(),
        )
    }
}

/// The generated cases, and how many drafts were dropped because their
/// text parsed as JSON (of another value, or of the truth).
pub(super) struct Generated {
    pub(super) cases: Vec<Case>,
    pub(super) ambiguous: usize,
    pub(super) unbroken: usize,
}

/// `per_family` cases of each family; every third is held out.
pub(super) fn generate(per_family: usize, seed: u64) -> Generated {
    let pools = [Split::Dev, Split::HeldOut].map(Draw::new);
    let mut generated = Generated {
        cases: Vec::with_capacity(per_family * Family::ALL.len()),
        ambiguous: 0,
        unbroken: 0,
    };
    for family in Family::ALL {
        let mut rng = Rng::new(seed ^ (family as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15));
        for turn in 0..per_family {
            let split = if turn % 3 == 2 {
                Split::HeldOut
            } else {
                Split::Dev
            };
            let draw = &pools[split as usize];
            loop {
                let index = generated.cases.len();
                let Some(case) = draft(&mut rng, family, split, draw, index) else {
                    continue;
                };
                match serde_json::from_str::<Value>(&case.raw) {
                    Ok(value) if value == case.truth => generated.unbroken += 1,
                    Ok(_) => generated.ambiguous += 1,
                    Err(_) => {
                        generated.cases.push(case);
                        break;
                    }
                }
            }
        }
    }
    generated
}

/// One draft: a truth, a layout and a plan; `None` when the truth has no
/// site that fits the family.
fn draft(rng: &mut Rng, family: Family, split: Split, draw: &Draw, index: usize) -> Option<Case> {
    let shape = rng.weighted(family.shapes());
    let multiline = family == Family::TripleQuoted;
    let node = draw.shape(rng, shape, multiline);
    let layout = rng.weighted(&[
        (Layout::Compact, 30),
        (Layout::Spaced, 40),
        (Layout::Pretty, 30),
    ]);
    let sites = write(&node, layout, &Plan::default(), Form::Mended).sites;
    let mut fitting: Vec<usize> = (0..sites.len())
        .filter(|&i| family.fits(&sites[i]))
        .collect();
    if family == Family::TripleQuoted && rng.chance(75) {
        // Mostly a body that needs the triple quotes: a line break or a quote.
        let rich: Vec<usize> = fitting
            .iter()
            .copied()
            .filter(|&i| sites[i].text.is_some_and(|t| t.contains(['\n', '"'])))
            .collect();
        if !rich.is_empty() {
            fitting = rich;
        }
    }
    // Literal keys stand among normal ones.
    let enough = if family == Family::LiteralKeys { 2 } else { 1 };
    if fitting.len() < enough {
        return None;
    }
    // Literal keys leave at least one key as it is.
    let most = if family == Family::LiteralKeys {
        fitting.len() - 1
    } else {
        fitting.len()
    };
    let mut scope = rng.weighted(family.scopes());
    if most < 2 {
        scope = Scope::One;
    }
    let chosen: Vec<usize> = match scope {
        Scope::One => {
            // Over the run, the first, a middle and the last member alike.
            let wanted = *rng.pick(&[Position::First, Position::Middle, Position::Last]);
            let at: Vec<usize> = fitting
                .iter()
                .copied()
                .filter(|&i| Position::of(&sites[i]) == wanted)
                .collect();
            vec![*rng.pick(if at.is_empty() { &fitting } else { &at })]
        }
        Scope::Several => {
            let mut pool = fitting.clone();
            rng.shuffle(&mut pool);
            let n = 2 + rng.below(most.min(4) - 1);
            let mut chosen = pool[..n].to_vec();
            chosen.sort_unstable();
            chosen
        }
        Scope::Every => fitting.clone(),
    };
    let plan = plan(rng, family, layout, &sites, &chosen, scope);
    if plan.edits.is_empty() {
        return None;
    }
    let first = &sites[*plan.edits.keys().next().expect("a plan has an edit")];
    let (container, position) = match scope {
        Scope::One => (first.container, Position::of(first)),
        Scope::Several => (first.container, Position::Several),
        Scope::Every => (sites[0].container, Position::Every),
    };
    let raw = write(&node, layout, &plan, Form::Broken);
    let mended = write(&node, layout, &plan, Form::Mended);
    Some(Case {
        index,
        family,
        split,
        layout,
        shape,
        container,
        position,
        raw: raw.text,
        mended: mended.text,
        truth: raw.truth,
    })
}

/// The keys and value strings of one split.
pub(super) struct Draw {
    keys: Vec<&'static str>,
    values: Vec<&'static str>,
    multiline: Vec<&'static str>,
}

impl Draw {
    fn new(split: Split) -> Self {
        let mine = |i: usize| (i % 3 == 2) == (split == Split::HeldOut);
        let keys = (0..KEYS.len()).filter(|&i| mine(i)).map(|i| KEYS[i]);
        let values: Vec<&'static str> = (0..VALUES.len())
            .filter(|&i| mine(i))
            .map(|i| VALUES[i])
            .collect();
        let multiline = values
            .iter()
            .copied()
            .filter(|v| v.contains('\n'))
            .collect();
        Draw {
            keys: keys.collect(),
            values,
            multiline,
        }
    }

    fn string(&self, rng: &mut Rng, multiline: bool) -> Node {
        let list = if multiline && rng.chance(50) {
            &self.multiline
        } else {
            &self.values
        };
        let s = *rng.pick(list);
        Node::Str(s)
    }

    /// Mostly a string; else a number, a boolean or null.
    fn scalar(&self, rng: &mut Rng, multiline: bool) -> Node {
        match rng.below(100) {
            0..=71 => self.string(rng, multiline),
            72..=85 => {
                let n = *rng.pick(NUMBERS);
                Node::Num(n)
            }
            86..=93 => Node::Bool(rng.chance(50)),
            _ => Node::Null,
        }
    }

    /// `n` distinct keys.
    fn keys(&self, rng: &mut Rng, n: usize) -> Vec<&'static str> {
        let mut keys = self.keys.clone();
        rng.shuffle(&mut keys);
        keys.truncate(n);
        keys
    }

    fn object(&self, rng: &mut Rng, n: usize, multiline: bool) -> Node {
        let keys = self.keys(rng, n);
        Node::Obj(
            keys.into_iter()
                .map(|key| (key, self.scalar(rng, multiline)))
                .collect(),
        )
    }

    fn strings(&self, rng: &mut Rng, n: usize, multiline: bool) -> Node {
        Node::Arr((0..n).map(|_| self.string(rng, multiline)).collect())
    }

    fn shape(&self, rng: &mut Rng, shape: Shape, multiline: bool) -> Node {
        match shape {
            Shape::FlatObject => {
                let n = *rng.pick(&[1, 2, 2, 3, 3, 3, 4, 4, 5, 6]);
                self.object(rng, n, multiline)
            }
            Shape::Strings => {
                let n = *rng.pick(&[1, 2, 2, 3, 3, 4, 4, 5, 6]);
                self.strings(rng, n, multiline)
            }
            Shape::ObjectWithArray => {
                let n = 2 + rng.below(4);
                let Node::Obj(mut members) = self.object(rng, n, multiline) else {
                    unreachable!("an object")
                };
                let at = rng.below(n);
                let len = 1 + rng.below(4);
                members[at].1 = self.strings(rng, len, multiline);
                Node::Obj(members)
            }
            Shape::ObjectsInArray => {
                let n = 1 + rng.below(3);
                Node::Arr(
                    (0..n)
                        .map(|_| {
                            let len = 1 + rng.below(3);
                            self.object(rng, len, multiline)
                        })
                        .collect(),
                )
            }
        }
    }

    /// How many keys and value strings the split has.
    pub(super) fn sizes(split: Split) -> (usize, usize) {
        let draw = Draw::new(split);
        (draw.keys.len(), draw.values.len())
    }
}
