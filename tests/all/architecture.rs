//! The map agrees with the house: `docs/architecture.md`'s module table states which
//! floors each top-level module may import from, and this test reads that table and every
//! source file, and fails when
//!
//! - a module imports (`crate::x…`, `crate::{x, …}`) from a module its row does not list —
//!   an import pointing up the layering, or a new dependency nobody wrote down;
//! - a row lists a dependency the module no longer has (the map overstates);
//! - a top-level module has no row, or a row names a module that does not exist;
//! - the documented dependencies form a cycle.
//!
//! Test code (`tests.rs`, `tests/` folders, a trailing `#[cfg(test)] mod tests { … }`) may reach
//! any floor — a lowering test runs a dispatch — and doc comments and `//` comments are
//! ignored: a link to another module is not a dependency.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The top-level modules `src/lib.rs` declares (public or crate-visible).
fn declared_modules() -> BTreeSet<String> {
    let lib = std::fs::read_to_string(root().join("src/lib.rs")).unwrap();
    lib.lines()
        .filter_map(|l| {
            let l = l.trim();
            l.strip_prefix("pub mod ")
                .or_else(|| l.strip_prefix("pub(crate) mod "))
        })
        .map(|l| l.trim_end_matches(';').trim().to_string())
        .collect()
}

/// The "depends on" column of `docs/architecture.md`'s module table: every module named
/// in back-quotes; "everything" stands for every other module.
fn documented(modules: &BTreeSet<String>) -> BTreeMap<String, BTreeSet<String>> {
    let doc = std::fs::read_to_string(root().join("docs/architecture.md")).unwrap();
    let mut table = BTreeMap::new();
    for line in doc.lines() {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        // `| `module` | owns | depends on |` splits into 5 cells, the outer two empty.
        if cells.len() != 5 || !cells[1].starts_with('`') {
            continue;
        }
        let name = cells[1].trim_matches('`').to_string();
        let deps: BTreeSet<String> = if cells[3].starts_with("everything") {
            modules.iter().filter(|m| **m != name).cloned().collect()
        } else {
            cells[3]
                .split('`')
                .skip(1)
                .step_by(2)
                .map(str::to_string)
                .collect()
        };
        let earlier = table.insert(name.clone(), deps);
        assert!(
            earlier.is_none(),
            "docs/architecture.md: `{name}` has two rows"
        );
    }
    table
}

/// Source files under `dir`, test code left out.
fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        if path.is_dir() {
            if name != "tests" {
                sources(&path, out);
            }
        } else if name.ends_with(".rs") && name != "tests.rs" {
            out.push(path);
        }
    }
}

/// The text of a source file without comments and without a trailing test module.
fn code_of(path: &Path) -> String {
    strip(&std::fs::read_to_string(path).unwrap())
}

/// Source text without `//` comments (doc comments included) and without a trailing
/// `#[cfg(test)] mod tests`.
fn strip(text: &str) -> String {
    let text = match text.find("#[cfg(test)]\nmod tests {") {
        Some(at) => &text[..at],
        None => text,
    };
    text.lines()
        .map(|l| match l.find("//") {
            Some(at) => &l[..at],
            None => l,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The top-level modules a piece of code names through `crate::`, with the first line
/// naming each. `crate::{a::b, c}` names `a` and `c`.
fn imports(code: &str, modules: &BTreeSet<String>) -> BTreeMap<String, usize> {
    let mut found = BTreeMap::new();
    for (at, _) in code.match_indices("crate::") {
        // A path like `dxlane_crate::` is not ours.
        let before = code[..at].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let line = code[..at].matches('\n').count() + 1;
        let rest = &code[at + "crate::".len()..];
        let mut names = Vec::new();
        if let Some(group) = rest.strip_prefix('{') {
            // Top-level items of the group: split at commas outside nested braces.
            let mut depth = 0usize;
            let mut start = 0usize;
            for (i, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => {
                        names.push(&group[start..i]);
                        break;
                    }
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        names.push(&group[start..i]);
                        start = i + 1;
                    }
                    _ => {}
                }
            }
        } else {
            names.push(rest);
        }
        for n in names {
            let n: String = n
                .trim()
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if modules.contains(&n) {
                found.entry(n).or_insert(line);
            }
        }
    }
    found
}

#[test]
fn imports_follow_the_documented_floors() {
    let modules = declared_modules();
    let table = documented(&modules);
    let mut problems = Vec::new();

    for m in &modules {
        if !table.contains_key(m) {
            problems.push(format!(
                "`{m}` has no row in docs/architecture.md's module table"
            ));
        }
    }
    for (m, deps) in &table {
        if !modules.contains(m) {
            problems.push(format!(
                "docs/architecture.md has a row for `{m}`, which src/lib.rs does not declare"
            ));
        }
        for d in deps {
            if !modules.contains(d) {
                problems.push(format!("`{m}`'s row names `{d}`, which is not a module"));
            }
        }
    }

    for m in &modules {
        let Some(allowed) = table.get(m) else {
            continue;
        };
        let mut files = Vec::new();
        let dir = root().join("src").join(m);
        if dir.is_dir() {
            sources(&dir, &mut files);
        }
        let single = root().join("src").join(format!("{m}.rs"));
        if single.is_file() {
            files.push(single);
        }
        let mut used: BTreeMap<String, String> = BTreeMap::new();
        for f in &files {
            for (dep, line) in imports(&code_of(f), &modules) {
                if dep == *m {
                    continue;
                }
                let at = format!("{}:{line}", f.strip_prefix(root()).unwrap_or(f).display());
                used.entry(dep).or_insert(at);
            }
        }
        for (dep, at) in &used {
            if !allowed.contains(dep) {
                problems.push(format!(
                    "{at}: `{m}` imports `{dep}`, which its row in docs/architecture.md does not list"
                ));
            }
        }
        // "everything" (the command line) is a ceiling, not a list to keep exact.
        let everything = allowed.len() + 1 == modules.len();
        if !everything {
            for dep in allowed {
                if !used.contains_key(dep) {
                    problems.push(format!(
                        "docs/architecture.md says `{m}` depends on `{dep}`; no code of `{m}` imports it"
                    ));
                }
            }
        }
    }

    // The documented floors are a partial order: no cycle.
    fn visit(
        m: &str,
        table: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
        problems: &mut Vec<String>,
    ) {
        if done.contains(m) {
            return;
        }
        if let Some(at) = path.iter().position(|p| p == m) {
            problems.push(format!(
                "documented dependencies form a cycle: {} → {m}",
                path[at..].join(" → ")
            ));
            return;
        }
        path.push(m.to_string());
        for d in table.get(m).into_iter().flatten() {
            visit(d, table, path, done, problems);
        }
        path.pop();
        done.insert(m.to_string());
    }
    let mut done = BTreeSet::new();
    for m in table.keys() {
        visit(m, &table, &mut Vec::new(), &mut done, &mut problems);
    }

    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_import_reader_sees_grouped_and_plain_paths() {
    let modules: BTreeSet<String> = ["exec", "ir", "pipeline"].map(String::from).into();
    let code =
        "use crate::{exec::{A, B}, ir};\nfn f() { crate::pipeline::draw(); }\nmy_crate::exec::x";
    let found = imports(code, &modules);
    assert_eq!(
        found.into_iter().collect::<Vec<_>>(),
        vec![
            ("exec".to_string(), 1),
            ("ir".to_string(), 1),
            ("pipeline".to_string(), 2)
        ]
    );
    let stripped = strip("use crate::ir; // crate::exec\n/// [`crate::pipeline`]\n");
    assert_eq!(
        imports(&stripped, &modules).into_keys().collect::<Vec<_>>(),
        vec!["ir".to_string()]
    );
}
