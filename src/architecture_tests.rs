//! docs/architecture.md stays the map: every folder and top-level file
//! under src/ is in its layer list, and no layer it lists is gone.

use std::collections::BTreeSet;
use std::path::Path;

/// `src/NAME/` and `src/NAME.rs` as the layer list names them.
fn in_src() -> BTreeSet<String> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    std::fs::read_dir(&src)
        .unwrap()
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().to_string();
            match e.path().is_dir() {
                true => Some(format!("src/{name}/")),
                // Tests of the crate itself are not a layer.
                false if name.ends_with("_tests.rs") || name == "lib.rs" => None,
                false => name.ends_with(".rs").then(|| format!("src/{name}")),
            }
        })
        .collect()
}

/// The paths the layer list (the first code block) of docs/architecture.md names.
fn in_the_map() -> BTreeSet<String> {
    let doc = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/architecture.md")).unwrap();
    let block = doc.split("```").nth(1).expect("the layer list in a code block");
    block
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|w| w.starts_with("src/"))
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
