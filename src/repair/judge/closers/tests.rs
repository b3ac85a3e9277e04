use super::*;
use crate::repair::shape::Element;

fn planned(frames: &[Frame], after: &str) -> Option<RunPlan> {
    let run = Run {
        frames,
        after: after.as_bytes(),
        eof: true,
        style: Faults::NONE,
        hints: None,
        doubled: &[],
    };
    plan(&run, |_| None).expect("the input ended")
}

use Frame::{Array as A, Object as O};
use RunOp::{Close, Drop, Insert};

#[test]
fn swapped_closers_before_a_sibling() {
    // `}}]}` for `}]}}`, then the next element of the outer array.
    let p = planned(&[A, O, O, A, O], r#"}}]}, {"type": "b"}]"#).unwrap();
    assert_eq!(
        p.ops.as_slice(),
        [
            Close(How::Same),
            Close(How::Reordered),
            Close(How::Reordered),
            Close(How::Same)
        ]
    );
    assert!(!p.doubt);
}

#[test]
fn a_closer_too_many_before_the_next_member() {
    let p = planned(&[O, A, O], r#"}]}, "recovery_time": []}"#).unwrap();
    assert_eq!(p.ops.as_slice(), [Close(How::Same), Close(How::Same), Drop]);
    let p = planned(&[O], r#"}, "b": 1}"#).unwrap();
    assert_eq!(p.ops.as_slice(), [Drop]);
}

#[test]
fn a_closer_short() {
    // `]` for `}]`, then the next member of the outer object.
    let p = planned(&[O, A, O], r#"], "b": 1}"#).unwrap();
    assert_eq!(p.ops.as_slice(), [Insert, Close(How::Same)]);
}

#[test]
fn valid_runs_are_plain() {
    assert!(planned(&[O, A, O], "}]}").unwrap().is_plain());
    assert!(planned(&[O, A, O], r#"}], "b": 1}"#).unwrap().is_plain());
    assert!(planned(&[O], "}  ").unwrap().is_plain());
    // Text after the top-level value stays text after it.
    assert!(planned(&[O], "} and that is all").unwrap().is_plain());
    assert!(planned(&[O], r#"} {"b": 1}"#).unwrap().is_plain());
}

#[test]
fn the_shape_breaks_a_tie() {
    // `]` where `}]` was meant: the inner array's elements are
    // objects, the outer one's arrays, and an array follows.
    let frames = [O, A, A, O];
    let run = Run {
        frames: &frames,
        after: br#"], [{"a": 2}]]}"#,
        eof: true,
        style: Faults::NONE,
        hints: None,
        doubled: &[],
    };
    let shapes = |n: usize| match n {
        1 => Some(Shape::Array(vec![Element::Object(vec![
            b"a".as_slice().into(),
        ])])),
        2 => Some(Shape::Array(vec![Element::Array(1)])),
        _ => None,
    };
    let p = plan(&run, shapes).unwrap().unwrap();
    assert_eq!(p.ops.as_slice(), [Insert, Close(How::Same)]);
    assert!(!p.doubt);
    // Without shapes, the closers the document writes later decide.
    let p = planned(&frames, r#"], [{"a": 2}]]}"#).unwrap();
    assert_eq!(p.ops.as_slice(), [Insert, Close(How::Same)]);
    assert!(!p.doubt);
    // Where neither they nor the shapes tell (the window ends in a long
    // string), the choice is a doubt.
    let long = format!(r#"], ["{}"#, "x".repeat(LOOKAHEAD));
    assert!(planned(&frames, &long).unwrap().doubt);
}

#[test]
fn waits_for_what_follows() {
    let run = Run {
        frames: &[O, A],
        after: b"]}",
        eof: false,
        style: Faults::NONE,
        hints: None,
        doubled: &[],
    };
    assert_eq!(plan_run(&run, |_| None), Planned::Need);
}
