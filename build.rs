//! Embeds the git commit the engine is built from as `RYUO_GIT_COMMIT`
//! (recorded in the manifests of generated data): the full hash, with
//! `-dirty` when tracked files differ from it. Without git, or outside a
//! git checkout, it is the commit `cargo package` noted in
//! `.cargo_vcs_info.json` if there is one, else `unknown`: the crate builds
//! anywhere.

use std::path::Path;
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let commit = from_git()
        .or_else(from_package)
        .unwrap_or_else(|| "unknown".into());
    println!("cargo:rustc-env=RYUO_GIT_COMMIT={commit}");
}

/// Runs git in the package folder; `None` if it fails or says nothing.
fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    if !out.status.success() {
        return None;
    }
    let text = String::from_utf8(out.stdout).ok()?.trim().to_string();
    (!text.is_empty()).then_some(text)
}

/// The checked-out commit, when this package is itself a git checkout
/// (its own `.git`, a folder or a worktree's file: a crate unpacked
/// inside some other repository must not take that one's commit).
fn from_git() -> Option<String> {
    if !Path::new(".git").exists() {
        return None;
    }
    let commit = git(&["rev-parse", "HEAD"])?;
    // Build again when HEAD moves, the branch gets a commit, or the index
    // or a source file changes (for the dirty mark).
    for path in ["HEAD", "index", "packed-refs"] {
        if let Some(p) = git(&["rev-parse", "--git-path", path]) {
            println!("cargo:rerun-if-changed={p}");
        }
    }
    if let Some(branch) = git(&["symbolic-ref", "-q", "HEAD"]) {
        if let Some(p) = git(&["rev-parse", "--git-path", &branch]) {
            println!("cargo:rerun-if-changed={p}");
        }
    }
    println!("cargo:rerun-if-changed=src");
    let dirty = git(&["status", "--porcelain", "--untracked-files=no"]).is_some();
    Some(if dirty {
        format!("{commit}-dirty")
    } else {
        commit
    })
}

/// The commit `cargo package` recorded (`"sha1": "…"`).
fn from_package() -> Option<String> {
    println!("cargo:rerun-if-changed=.cargo_vcs_info.json");
    let text = std::fs::read_to_string(".cargo_vcs_info.json").ok()?;
    let after = text.split("\"sha1\"").nth(1)?;
    let sha = after.split('"').nth(1)?;
    let ok = !sha.is_empty() && sha.bytes().all(|b| b.is_ascii_hexdigit());
    ok.then(|| sha.to_string())
}
