//! docs/architecture.md stays the map: every crate under crates/, every
//! folder and top-level file under src/ and under the src/ of a crate of
//! several layers, is in its layer list, and no layer it lists is gone;
//! and the integration tests start rumbench in one way only.

use std::collections::BTreeSet;
use std::path::Path;

/// `crates/NAME/`, and `SRC/NAME/` and `SRC/NAME.rs` for src/ and every
/// crate's src/, as the layer list names them.
fn in_src() -> BTreeSet<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut sources = vec!["src".to_string()];
    let mut out = BTreeSet::new();
    for krate in std::fs::read_dir(root.join("crates")).unwrap().flatten() {
        let name = krate.file_name().to_string_lossy().to_string();
        out.insert(format!("crates/{name}/"));
        // A crate of one layer (report) is its own line; a crate of several
        // (core: folders under its src/) names each of them too.
        let src = krate.path().join("src");
        if std::fs::read_dir(&src).unwrap().flatten().any(|e| e.path().is_dir()) {
            sources.push(format!("crates/{name}/src"));
        }
    }
    for src in sources {
        for e in std::fs::read_dir(root.join(&src)).unwrap().flatten() {
            let name = e.file_name().to_string_lossy().to_string();
            match e.path().is_dir() {
                true => out.insert(format!("{src}/{name}/")),
                // Tests of the crate itself are not a layer.
                false if name.ends_with("_tests.rs") || name == "lib.rs" || !name.ends_with(".rs") => continue,
                false => out.insert(format!("{src}/{name}")),
            };
        }
    }
    out
}

/// The paths the layer list (the first code block) of docs/architecture.md names.
fn in_the_map() -> BTreeSet<String> {
    let doc = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/architecture.md")).unwrap();
    let block = doc.split("```").nth(1).expect("the layer list in a code block");
    block
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|w| w.starts_with("src/") || w.starts_with("crates/"))
        .map(str::to_string)
        .collect()
}

#[test]
fn every_folder_under_src_is_in_docs_architecture_md_and_nothing_else() {
    let (src, map) = (in_src(), in_the_map());
    let missing: Vec<&String> = src.difference(&map).collect();
    let gone: Vec<&String> = map.difference(&src).collect();
    assert!(missing.is_empty(), "in src/ but not in docs/architecture.md's layer list: {missing:?}");
    assert!(gone.is_empty(), "in docs/architecture.md's layer list but not in src/: {gone:?}");
}

/// Where an engine's name is used in code outside its own folder under
/// src/engine/ (and the registry, src/engine/mod.rs), test modules and
/// comments left out: as a string ("rocksdb", "rocksdb.sync") or as a path
/// into its module (engine::rocksdb::, rocksdb_versions::). Per file and
/// engine, the number of such lines.
fn engine_names_outside_their_folders() -> std::collections::BTreeMap<(String, &'static str), usize> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    // The engines a build left out (a cargo feature) count too: the test
    // gives one answer with the features on or off.
    let engines: Vec<&'static str> = crate::engine::registry()
        .iter()
        .map(|e| e.name)
        .chain(crate::engine::left_out().iter().map(|e| e.name))
        .collect();
    let mut found = std::collections::BTreeMap::new();
    let mut files = Vec::new();
    let mut stack = vec![root.join("src"), root.join("crates")];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                files.push(p);
            }
        }
    }
    for path in files {
        let rel = path.strip_prefix(root).unwrap().to_string_lossy().to_string();
        if rel.ends_with("_tests.rs") || rel.contains("/fixtures") || rel == "src/engine/mod.rs" {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        // The code before the file's test module.
        let code = text.split("#[cfg(test)]\nmod ").next().unwrap_or_default();
        for name in &engines {
            if rel.starts_with(&format!("src/engine/{name}/")) || rel.starts_with(&format!("src/engine/{name}")) {
                continue;
            }
            let marks = [
                format!("\"{name}\""),
                format!("\"{name}."),
                format!("engine::{name}::"),
                format!("engine::{name}_"),
                format!("{name}_versions::"),
                format!("{name}_build::"),
            ];
            let lines = code
                .lines()
                .filter(|l| !l.trim_start().starts_with("//"))
                .filter(|l| marks.iter().any(|m| l.contains(m.as_str())))
                .count();
            if lines > 0 {
                found.insert((rel.clone(), *name), lines);
            }
        }
    }
    found
}

/// An engine is a folder: its name is not spread through the program. The
/// places that still name one are listed here, to be moved into the
/// engine's folder, never added to (an engine added since, fjall and redb
/// the first, appears in none).
#[test]
fn engine_names_stay_in_their_folders() {
    const STILL: &[(&str, &str, usize)] = &[
        // The report reads results, not the registry: what an option acts on
        // and how an engine's counters parse are still its tables (they move
        // into the results each engine writes).
        ("crates/report/src/compare_sides.rs", "null", 1),
        ("crates/report/src/exercised.rs", "leveldb", 2),
        ("crates/report/src/exercised.rs", "rocksdb", 2),
        ("crates/report/src/exercised.rs", "splinterdb", 1),
        ("crates/report/src/exercised.rs", "sqlite", 1),
        ("crates/report/src/exercised.rs", "wiredtiger", 2),
        ("crates/report/src/metrics.rs", "rocksdb", 2),
        // RocksDB's versions and builds: provisioning, one module of its own to come.
        ("src/commands/internal.rs", "rocksdb", 3),
        ("src/commands/mod.rs", "rocksdb", 1),
        ("src/commands/rocksdb_versions.rs", "rocksdb", 2),
        // `-e plugin:PATH`: the plugin's library given with its name.
        ("src/planner/mod.rs", "plugin", 5),
    ];
    let found = engine_names_outside_their_folders();
    let over: Vec<String> = found
        .iter()
        .filter(|((file, name), n)| !STILL.iter().any(|(f, e, most)| f == file && e == name && *n <= most))
        .map(|((file, name), n)| format!("(\"{file}\", \"{name}\", {n}),"))
        .collect();
    assert!(
        over.is_empty(),
        "engine names outside their folders (move them into the engine's folder):\n{}",
        over.join("\n")
    );
    let moved: Vec<&(&str, &str, usize)> =
        STILL.iter().filter(|(f, e, most)| found.get(&(f.to_string(), *e)).is_none_or(|n| n < most)).collect();
    assert!(moved.is_empty(), "fewer places name an engine than listed: lower or remove {moved:?}");
}

/// The integration tests start rumbench through tests/common's builder
/// (`common::cli::rumbench`, `cli::exe` for a shell), which gives every
/// command a history and a cache of its own: a test file that made the
/// command itself would record into the developer's history and read the
/// developer's cache, as tests/ibench.rs once did.
#[test]
fn only_tests_common_makes_the_rumbench_command() {
    const WAYS: &[&str] = &["cargo_bin(", "CARGO_BIN_EXE_rumbench"];
    let tests = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let common = tests.join("common");
    let (mut files, mut dirs) = (Vec::new(), vec![tests.clone()]);
    while let Some(dir) = dirs.pop() {
        for e in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = e.path();
            if path.is_dir() {
                if path != common {
                    dirs.push(path);
                }
            } else if path.extension().is_some_and(|x| x == "rs") {
                files.push(path);
            }
        }
    }
    assert!(files.iter().any(|f| f.ends_with("integration.rs")), "not the test files: {files:?}");
    let mut found = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        for (i, line) in text.lines().enumerate() {
            if WAYS.iter().any(|w| line.contains(w)) {
                found.push(format!("tests/{}:{}: {}", f.strip_prefix(&tests).unwrap().display(), i + 1, line.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "rumbench started without tests/common/cli.rs's rumbench() (which isolates the history and the cache):\n{}",
        found.join("\n")
    );
    // The builder makes it in a way this test looks for.
    let builder = std::fs::read_to_string(common.join("cli.rs")).unwrap();
    assert!(WAYS.iter().any(|w| builder.contains(w)), "tests/common/cli.rs makes no rumbench command");
}

/// The top-level modules a piece of code reaches by `crate::` paths:
/// `crate::engine::Claim`, and each item of `crate::{engine, runner::x}`.
fn crate_paths(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find("crate::") {
        rest = &rest[at + "crate::".len()..];
        let ident = |s: &str| -> String {
            s.trim_start().chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect()
        };
        if let Some(group) = rest.strip_prefix('{') {
            // The group's items at its own depth.
            let (mut depth, mut item) = (0, String::new());
            for c in group.chars() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        out.push(ident(&item));
                        item.clear();
                        continue;
                    }
                    _ => {}
                }
                if depth == 0 {
                    item.push(c);
                }
            }
            out.push(ident(&item));
        } else {
            out.push(ident(rest));
        }
    }
    out.retain(|m| !m.is_empty());
    out
}

/// `PREFIX` entries of docs/architecture.md's layer list, in its order, as
/// module names ("src/runner/" -> "runner", "src/cache.rs" -> "cache").
fn layers_under(prefix: &str) -> Vec<String> {
    in_the_map_in_order()
        .into_iter()
        .filter_map(|p| p.strip_prefix(prefix).map(str::to_string))
        .filter(|rest| rest.matches('/').count() <= 1 && (rest.ends_with('/') || rest.ends_with(".rs")))
        .map(|rest| rest.trim_end_matches('/').trim_end_matches(".rs").to_string())
        .collect()
}

fn in_the_map_in_order() -> Vec<String> {
    let doc = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/architecture.md")).unwrap();
    let block = doc.split("```").nth(1).expect("the layer list in a code block");
    block.lines().filter_map(|l| l.split_whitespace().next()).map(str::to_string).collect()
}

/// Every (importing module, imported module, file) of the sources under
/// `dir` whose top-level modules are `layers`, test modules and comments
/// left out.
fn imports(dir: &str, layers: &[String]) -> Vec<(String, String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = Vec::new();
    let mut stack = vec![root.join(dir)];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
                continue;
            }
            let rel = p.strip_prefix(root.join(dir)).unwrap().to_string_lossy().to_string();
            if !rel.ends_with(".rs") || rel.ends_with("_tests.rs") {
                continue;
            }
            let top = rel.split('/').next().unwrap().trim_end_matches(".rs").to_string();
            if !layers.contains(&top) {
                continue;
            }
            let text = std::fs::read_to_string(&p).unwrap();
            let code: String = text
                .split("#[cfg(test)]\nmod ")
                .next()
                .unwrap_or_default()
                .lines()
                .filter(|l| !l.trim_start().starts_with("//"))
                .collect::<Vec<_>>()
                .join("\n");
            for m in crate_paths(&code) {
                if m != top && layers.contains(&m) {
                    out.push((top.clone(), m, format!("{dir}/{rel}")));
                }
            }
        }
    }
    out
}

#[test]
fn crate_paths_are_read_singly_and_in_groups() {
    let code = "use crate::engine::{Claim, x};\nuse crate::{runner::a, driver, server::{b, c}};\nlet x = crate::cache::root();";
    assert_eq!(crate_paths(code), ["engine", "runner", "driver", "server", "cache"]);
}

/// docs/architecture.md's order is the direction of every import: a module
/// reaches only modules below it in the layer list, in the root package and
/// in core (report is one layer; the compiler keeps the crates' order).
#[test]
fn imports_go_down_the_layer_list() {
    let mut up = Vec::new();
    for (dir, prefix) in [("src", "src/"), ("crates/core/src", "crates/core/src/")] {
        let layers = layers_under(prefix);
        assert!(layers.len() >= 6, "{prefix}: the layer list names its modules: {layers:?}");
        let found = imports(dir, &layers);
        let at = |m: &str| layers.iter().position(|l| l == m).unwrap();
        // The reading finds imports where there are some (so that it can fail).
        assert!(found.iter().any(|(a, b, _)| at(a) < at(b)), "{dir}: no import read at all");
        for (from, to, file) in found {
            if at(&to) < at(&from) {
                up.push(format!("{file}: {from} imports {to}, which is above it"));
            }
        }
    }
    up.sort();
    up.dedup();
    assert!(up.is_empty(), "imports that go up docs/architecture.md's layer list:\n{}", up.join("\n"));
}
