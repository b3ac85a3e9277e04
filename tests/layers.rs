//! Issue 30: the engine reads layer by layer from the bottom. No file of
//! `src/repair/` may import, directly or through others, a file that
//! imports it back: the imports between them form no cycle. A `use` of
//! `super::X` or `crate::repair::x::Y` (and a path written in the code, such
//! as `super::scalar::cut_number(…)`) counts as an import of the file that
//! defines the module it names; `mod x;` does not, nor do test modules.
//!
//! The test prints the layers it found (`cargo test layers -- --nocapture`),
//! each file beside the files it imports, from the bottom up.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The module path of a file under `src/`: `repair/judge/mod.rs` is
/// `["repair", "judge"]`.
fn module_of(rel: &Path) -> Vec<String> {
    let mut parts: Vec<String> = rel
        .iter()
        .map(|p| p.to_string_lossy().trim_end_matches(".rs").to_owned())
        .collect();
    if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    parts
}

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The source without its test module and without `pub(in …)`
/// visibilities (which name a module without importing it).
fn code(text: &str) -> String {
    let text = match text.find("#[cfg(test)]\nmod tests") {
        Some(k) => &text[..k],
        None => text,
    };
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(k) = rest.find("pub(in ") {
        out.push_str(&rest[..k]);
        rest = &rest[k..];
        rest = &rest[rest.find(')').map_or(rest.len(), |e| e + 1)..];
    }
    out.push_str(rest);
    out
}

/// Every path in `text` that starts at `crate`, `super` or `self`, as
/// segments, with `use` groups (`a::{b, c::{d}}`) spread out.
fn paths(text: &str) -> Vec<Vec<String>> {
    let mut found = Vec::new();
    // `use` items, whole, groups and all.
    let mut rest = text;
    while let Some(k) = rest.find("use ") {
        let before_ok = k == 0 || !rest.as_bytes()[k - 1].is_ascii_alphanumeric();
        rest = &rest[k + 4..];
        let Some(end) = rest.find(';') else { break };
        if before_ok {
            let item: String = rest[..end].chars().filter(|c| !c.is_whitespace()).collect();
            if ["crate::", "super::", "self::"]
                .iter()
                .any(|p| item.starts_with(p))
            {
                spread(&item, &mut found);
            }
        }
    }
    // Paths in code and doc links: `super::a::b`, `crate::repair::x::Y`.
    let bytes = text.as_bytes();
    for start in ["crate::", "super::", "self::"] {
        let mut from = 0;
        while let Some(k) = text[from..].find(start) {
            let at = from + k;
            from = at + start.len();
            if at > 0 && (bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'_') {
                continue;
            }
            let end = text[at..]
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == ':'))
                .map_or(text.len(), |e| at + e);
            let path: Vec<String> = text[at..end]
                .split("::")
                .filter(|s| !s.is_empty())
                .map(str::to_owned)
                .collect();
            found.push(path);
        }
    }
    found
}

/// `a::{b, c::{d, e}}` as `a::b`, `a::c::d`, `a::c::e`.
fn spread(item: &str, out: &mut Vec<Vec<String>>) {
    let item = item.split(" as ").next().unwrap_or(item);
    let Some(open) = item.find("::{") else {
        out.push(item.split("::").map(str::to_owned).collect());
        return;
    };
    let prefix = &item[..open];
    let inner = item[open + 3..]
        .strip_suffix('}')
        .unwrap_or(&item[open + 3..]);
    let (mut depth, mut last) = (0, 0);
    let mut parts = Vec::new();
    for (k, c) in inner.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&inner[last..k]);
                last = k + 1;
            }
            _ => {}
        }
    }
    parts.push(&inner[last..]);
    for part in parts.into_iter().filter(|p| !p.is_empty()) {
        if part == "self" {
            out.push(prefix.split("::").map(str::to_owned).collect());
        } else {
            spread(&format!("{prefix}::{part}"), out);
        }
    }
}

/// The file of the longest module prefix of `path` (seen from `module`).
fn resolve<'m>(
    module: &[String],
    path: &[String],
    modules: &'m BTreeMap<Vec<String>, String>,
) -> Option<&'m String> {
    let mut full: Vec<String> = match path.first().map(String::as_str) {
        Some("crate") => Vec::new(),
        Some("self") => module.to_vec(),
        Some("super") => {
            let ups = path.iter().take_while(|s| *s == "super").count();
            module[..module.len().checked_sub(ups)?].to_vec()
        }
        _ => return None,
    };
    let skip = match path.first().map(String::as_str) {
        Some("super") => path.iter().take_while(|s| *s == "super").count(),
        _ => 1,
    };
    full.extend(path[skip..].iter().cloned());
    (1..=full.len()).rev().find_map(|n| modules.get(&full[..n]))
}

/// Every file under `src/` by its module path, and the files each imports
/// (resolved against all of `src/`).
fn import_graph() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut found = Vec::new();
    files(&src, &mut found);
    let modules: BTreeMap<Vec<String>, String> = found
        .iter()
        .map(|f| {
            let rel = f.strip_prefix(&src).unwrap();
            let mut module = module_of(rel);
            // The crate roots are the crate, not modules named `lib`, `main`.
            if module == ["lib"] || module == ["main"] {
                module.clear();
            }
            (module, rel.to_string_lossy().into_owned())
        })
        .filter(|(module, _)| !module.is_empty())
        .collect();
    let mut imports: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (module, file) in &modules {
        let text = code(&std::fs::read_to_string(src.join(file)).unwrap());
        let to = imports.entry(file.clone()).or_default();
        for path in paths(&text) {
            if let Some(target) = resolve(module, &path, &modules)
                && target != file
            {
                to.insert(target.clone());
            }
        }
    }
    imports
}

/// Peel the layers of `graph` from the bottom: a node whose imports are all
/// placed is placed. Returns the layers, and what is left at the end (the
/// nodes on a cycle, each with those of its imports that are left too).
fn peel(graph: &BTreeMap<String, BTreeSet<String>>) -> (Vec<Vec<String>>, Vec<String>) {
    let mut placed: BTreeSet<String> = BTreeSet::new();
    let mut layers: Vec<Vec<String>> = Vec::new();
    loop {
        let layer: Vec<String> = graph
            .iter()
            .filter(|(f, to)| !placed.contains(*f) && to.iter().all(|t| placed.contains(t)))
            .map(|(f, _)| f.clone())
            .collect();
        if layer.is_empty() {
            break;
        }
        placed.extend(layer.iter().cloned());
        layers.push(layer);
    }
    let cycle: Vec<String> = graph
        .iter()
        .filter(|(f, _)| !placed.contains(*f))
        .map(|(f, to)| {
            let to: Vec<&str> = to
                .iter()
                .filter(|t| !placed.contains(*t))
                .map(String::as_str)
                .collect();
            format!("{f} -> {}", to.join(", "))
        })
        .collect();
    (layers, cycle)
}

/// The imports between the files under `dir` (`repair/`), and none to
/// files elsewhere.
fn files_under(dir: &str) -> BTreeMap<String, BTreeSet<String>> {
    import_graph()
        .into_iter()
        .filter(|(file, _)| file.starts_with(dir))
        .map(|(file, to)| {
            let to = to.into_iter().filter(|t| t.starts_with(dir)).collect();
            (file, to)
        })
        .collect()
}

/// Prints the layers and fails on a cycle.
fn assert_no_cycle(graph: &BTreeMap<String, BTreeSet<String>>, what: &str) {
    let (layers, cycle) = peel(graph);
    for (n, layer) in layers.iter().enumerate() {
        println!("{what}, layer {n}:");
        for file in layer {
            let to: Vec<&str> = graph[file].iter().map(String::as_str).collect();
            println!("  {file} <- {}", to.join(", "));
        }
    }
    assert!(
        cycle.is_empty(),
        "{what} that import each other (through the ones after each arrow):\n{}",
        cycle.join("\n")
    );
}

#[test]
fn the_files_of_repair_import_each_other_in_no_cycle() {
    let graph = files_under("repair/");
    assert!(graph.len() > 30, "the walk found {} files", graph.len());
    assert_no_cycle(&graph, "files of src/repair/");
}

/// Issue 44: each command of the binary is a module of its own, and what
/// they share sits below them, so no two files of `src/cli/` import each
/// other, directly or through others (`mod.rs` dispatches, and nothing
/// imports it back).
#[test]
fn the_files_of_cli_import_each_other_in_no_cycle() {
    let graph = files_under("cli/");
    assert!(graph.len() > 20, "the walk found {} files", graph.len());
    assert_no_cycle(&graph, "files of src/cli/");
}

/// Issue 44: at every folder of `src/`, its parts (each file, and each
/// subfolder taken whole) import each other in no cycle. The folder's own
/// `mod.rs` (or the crate root) is left out: it declares the parts and
/// re-exports their public faces, so the parts may use what it defines
/// without that being a cycle between parts. Within `repair/` and `cli/`
/// the tests above go further, down to single files.
#[test]
fn the_modules_of_src_import_each_other_in_no_cycle() {
    let graph = import_graph();
    // Every folder: the parent of a file's path, and each of its ancestors.
    let mut folders: BTreeSet<String> = BTreeSet::new();
    for file in graph.keys() {
        let mut path = Path::new(file).parent();
        while let Some(dir) = path {
            folders.insert(dir.to_string_lossy().into_owned());
            path = dir.parent();
        }
    }
    let mut n_checked = 0;
    for folder in &folders {
        let prefix = if folder.is_empty() {
            String::new()
        } else {
            format!("{folder}/")
        };
        let own_mod = format!("{prefix}mod.rs");
        // The part of `folder` a file belongs to: its first name below it.
        let part = |file: &str| -> Option<String> {
            let rest = file.strip_prefix(&prefix)?;
            if file == own_mod {
                return None;
            }
            Some(rest.split('/').next()?.trim_end_matches(".rs").to_owned())
        };
        let mut parts: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (file, to) in &graph {
            let Some(from) = part(file) else { continue };
            let entry = parts.entry(from.clone()).or_default();
            for target in to {
                if let Some(target) = part(target)
                    && target != from
                {
                    entry.insert(target);
                }
            }
        }
        n_checked += parts.len();
        let shown = if folder.is_empty() { "src" } else { folder };
        assert_no_cycle(&parts, &format!("parts of {shown}/"));
    }
    assert!(n_checked > 100, "the walk found {n_checked} parts");
}

/// The check reads the imports of a `use` group, nested and with `self`,
/// and of a path written in code.
#[test]
fn a_use_group_and_a_path_in_code_both_count() {
    let module = vec!["repair".to_owned(), "a".to_owned()];
    let text = "use super::{b::X, c::{self, Y}};\nfn f() { super::d::g(); }\n";
    let modules: BTreeMap<Vec<String>, String> = ["a", "b", "c", "d"]
        .iter()
        .map(|m| {
            (
                vec!["repair".to_owned(), (*m).to_owned()],
                format!("repair/{m}.rs"),
            )
        })
        .collect();
    let targets: BTreeSet<&String> = paths(text)
        .iter()
        .filter_map(|p| resolve(&module, p, &modules))
        .collect();
    let names: Vec<&str> = targets.iter().map(|s| s.as_str()).collect();
    assert_eq!(names, ["repair/b.rs", "repair/c.rs", "repair/d.rs"]);
}
