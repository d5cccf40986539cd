//! The integration tests, one module per concern, in one test binary (a
//! binary per file costs a fat-LTO link each). Run one module with a
//! filter: `cargo test --release --test integration search::`.

mod common;

mod analyse;
mod analysis;
mod book;
mod eval;
mod gensfen;
mod hostile_gui;
mod match_options;
mod mate;
mod nnue;
mod packed;
mod perft;
mod search;
mod sfen;
mod standard_nnue;
mod usi;

/// With `autotests = false` a new file in `tests/` would be compiled by
/// nobody and its tests silently never run: every file here must be a
/// module above (or the fuzz binary's root).
#[test]
fn every_test_file_is_a_module_of_a_test_binary() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let root = std::fs::read_to_string(dir.join("integration.rs")).unwrap();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) != Some("rs") {
            continue;
        }
        let stem = path.file_stem().unwrap().to_str().unwrap();
        if stem == "integration" || stem == "fuzz" {
            continue;
        }
        assert!(
            root.lines().any(|l| l == format!("mod {stem};")),
            "tests/{stem}.rs is not declared in tests/integration.rs"
        );
    }
}
