//! docs/architecture.md stays the map: every crate under crates/, every
//! folder and top-level file under src/ and under the src/ of a crate of
//! several layers, is in its layer list, and no layer it lists is gone.

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
