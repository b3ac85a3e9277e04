//! The provisional overlay: the snapshot's tail laid over the value after
//! each fragment and taken off before the next, with an undo log.
//!
//! It lives apart from the walk itself because it is the one part that
//! writes to the value and then takes the write back: everything here either
//! records how to undo (routes from the root, so a record stays valid
//! whatever the overlay did to the frames) or replays those records.

use serde_json::Value;

use super::{At, Escape, Frame, Walker};

/// One step down from a container: a member by key, or the last element.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Step {
    Key(String),
    Last,
}

/// An undo record for the provisional overlay. Routes are absolute (from
/// the root), so records can be undone whatever the overlay did to the
/// frames in between.
#[derive(Debug, Clone)]
pub(super) enum Undo {
    /// The root slot held `old`.
    Root { old: Option<Value> },
    /// The container at `route` got a member `key` (an element, when `None`)
    /// that replaced `old`.
    Added {
        route: Vec<Step>,
        key: Option<String>,
        old: Option<Value>,
    },
    /// The string at `route` had `len` bytes.
    Truncate { route: Vec<Step>, len: usize },
}

/// The walker's position, saved while the overlay is walked.
#[derive(Debug, Clone)]
pub(super) struct Position {
    frames: Vec<Frame>,
    at: At,
    escape: Escape,
    high: Option<u32>,
    scratch: String,
}

impl Walker {
    /// Lay `text`, the snapshot's provisional tail, over the value.
    pub(crate) fn overlay(&mut self, text: &str) {
        self.take_overlay();
        if self.changes_nothing(text) {
            return;
        }
        let saved = self.position();
        let events = self.events.len();
        let delta = self.delta.len();
        self.recording = Some(Vec::new());
        self.walk(text);
        // A scalar cut by the end of the overlay text is still whole there.
        if self.at == At::Scalar {
            self.end_scalar();
        }
        let undo = self.recording.take().unwrap_or_default();
        self.events.truncate(events);
        self.delta.truncate(delta);
        self.overlay = Some((saved, undo));
    }

    /// Whether walking `text` would leave the value as it is: only
    /// whitespace, commas, and the closing quote of the string being written
    /// (the commonest tail by far: a long string between fragments).
    fn changes_nothing(&self, text: &str) -> bool {
        let mut in_string =
            self.at == At::Str && self.escape == Escape::None && self.high.is_none();
        for &b in text.as_bytes() {
            match b {
                b'"' if in_string => in_string = false,
                b' ' | b'\t' | b'\n' | b'\r' | b',' if !in_string => {}
                _ => return false,
            }
        }
        !in_string || text.is_empty()
    }

    /// Where the walker is, to be put back by [`Walker::take_overlay`].
    fn position(&self) -> Position {
        Position {
            frames: self.frames.clone(),
            at: self.at,
            escape: self.escape,
            high: self.high,
            scratch: self.scratch.clone(),
        }
    }

    /// Take the overlay off: undo its records, newest first, and put the
    /// walker back where the committed text left it.
    pub(super) fn take_overlay(&mut self) {
        let Some((saved, undo)) = self.overlay.take() else {
            return;
        };
        for record in undo.into_iter().rev() {
            match record {
                Undo::Root { old } => self.root = old,
                Undo::Added { route, key, old } => match (self.at_route(&route), key) {
                    (Some(Value::Object(map)), Some(key)) => {
                        match old {
                            Some(old) => map.insert(key, old),
                            None => map.remove(&key),
                        };
                    }
                    (Some(Value::Array(items)), None) => {
                        items.pop();
                    }
                    _ => {}
                },
                Undo::Truncate { route, len } => {
                    if let Some(Value::String(text)) = self.at_route(&route) {
                        text.truncate(len);
                    }
                }
            }
        }
        self.path_cache = None;
        self.frames = saved.frames;
        self.at = saved.at;
        self.escape = saved.escape;
        self.high = saved.high;
        self.scratch = saved.scratch;
    }

    /// The steps from the root through the first `depth` open containers.
    pub(super) fn route(&self, depth: usize) -> Vec<Step> {
        self.frames[..depth.min(self.frames.len())]
            .iter()
            .map(|frame| match frame {
                Frame::Object { key } => Step::Key(key.clone().unwrap_or_default()),
                Frame::Array { .. } => Step::Last,
            })
            .collect()
    }

    /// The value a recorded route leads to, if it is still there.
    fn at_route(&mut self, route: &[Step]) -> Option<&mut Value> {
        let mut node = self.root.as_mut()?;
        for step in route {
            node = match (node, step) {
                (Value::Object(map), Step::Key(key)) => map.get_mut(key)?,
                (Value::Array(items), Step::Last) => items.last_mut()?,
                _ => return None,
            };
        }
        Some(node)
    }
}
