//! The documentation as a front door: the README stays short, every relative link in the
//! README, ARCHITECTURE.md and docs/ points to a file that exists, and ARCHITECTURE.md
//! names every member of the workspace. Plain std: the files are read as text.

use std::fs;
use std::path::{Path, PathBuf};

/// The README's longest allowed length, in lines.
const README_MAX_LINES: usize = 180;

/// The repository's root: the parent of this crate's folder (`tests/`).
fn root() -> PathBuf {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    here.parent().unwrap_or(here).to_path_buf()
}

fn read(path: &Path) -> String {
    match fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) => panic!("cannot read {}: {e}", path.display()),
    }
}

/// The markdown files whose links are checked: README.md, ARCHITECTURE.md and every
/// `.md` file under docs/.
fn checked_files(root: &Path) -> Vec<PathBuf> {
    let mut files = vec![root.join("README.md"), root.join("ARCHITECTURE.md")];
    let mut folders = vec![root.join("docs")];
    while let Some(folder) = folders.pop() {
        let entries = match fs::read_dir(&folder) {
            Ok(entries) => entries,
            Err(e) => panic!("cannot list {}: {e}", folder.display()),
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                folders.push(path);
            } else if path.extension().is_some_and(|e| e == "md") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// Removes inline code spans (`...`) from a line, keeping what is outside them. A link
/// whose text is code (`[`x`](x)`) keeps its `[](x)`.
fn without_code_spans(line: &str) -> String {
    let mut out = String::new();
    let mut rest = line;
    while let Some(open) = rest.find('`') {
        out.push_str(&rest[..open]);
        let ticks = rest[open..].chars().take_while(|&c| c == '`').count();
        let fence = &rest[open..open + ticks];
        let after = &rest[open + ticks..];
        match after.find(fence) {
            Some(close) => rest = &after[close + ticks..],
            // An unclosed span: the backticks are literal.
            None => {
                out.push_str(fence);
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// The targets of the markdown links in `text`: inline links and images `[..](target)`
/// and reference definitions `[label]: target`, outside fenced code blocks and code spans.
fn link_targets(text: &str) -> Vec<(usize, String)> {
    let mut targets = Vec::new();
    let mut in_fence = false;
    for (i, raw) in text.lines().enumerate() {
        let number = i + 1;
        let trimmed = raw.trim_start();
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            in_fence = !in_fence;
            continue;
        }
        if in_fence {
            continue;
        }
        let line = without_code_spans(raw);
        // [label]: target
        let t = line.trim_start();
        if t.starts_with('[') && !t.starts_with("[^") {
            if let Some(end) = t.find("]:") {
                if !t[..end].contains(']') {
                    if let Some(target) = t[end + 2..].split_whitespace().next() {
                        targets.push((number, target.to_owned()));
                    }
                }
            }
        }
        // [text](target) and ![alt](target)
        let mut rest = line.as_str();
        while let Some(at) = rest.find("](") {
            let after = &rest[at + 2..];
            let Some(close) = after.find(')') else {
                break;
            };
            let inside = after[..close].trim();
            // `(path "title")`: the path is the first word.
            let target = inside.split_whitespace().next().unwrap_or("");
            let target = target.trim_start_matches('<').trim_end_matches('>');
            if !target.is_empty() {
                targets.push((number, target.to_owned()));
            }
            rest = &after[close + 1..];
        }
    }
    targets
}

/// Whether a link target is a relative path into the repository (not a web address, a mail
/// address or an anchor in the same page).
fn is_relative(target: &str) -> bool {
    let lower = target.to_ascii_lowercase();
    !(target.starts_with('#')
        || lower.starts_with("http://")
        || lower.starts_with("https://")
        || lower.starts_with("mailto:")
        || lower.contains("://"))
}

#[test]
fn the_readme_is_a_front_door_of_at_most_180_lines() {
    let readme = read(&root().join("README.md"));
    let lines = readme.lines().count();
    assert!(
        lines <= README_MAX_LINES,
        "README.md has {lines} lines, more than {README_MAX_LINES}: move the details into docs/ \
         and link them"
    );
}

#[test]
fn every_relative_link_points_to_a_file_that_exists() {
    let root = root();
    let files = checked_files(&root);
    assert!(
        files.iter().any(|f| f.starts_with(root.join("docs"))),
        "no markdown file found under {}",
        root.join("docs").display()
    );
    let mut broken = Vec::new();
    let mut checked = 0;
    for file in &files {
        let text = read(file);
        let folder = file.parent().unwrap_or(&root);
        for (line, target) in link_targets(&text) {
            if !is_relative(&target) {
                continue;
            }
            let path = target.split('#').next().unwrap_or("");
            let path = path.split('?').next().unwrap_or("");
            if path.is_empty() {
                continue;
            }
            checked += 1;
            let resolved = if let Some(from_root) = path.strip_prefix('/') {
                root.join(from_root)
            } else {
                folder.join(path)
            };
            if !resolved.exists() {
                let shown = file.strip_prefix(&root).unwrap_or(file);
                broken.push(format!("{}:{line}: {target}", shown.display()));
            }
        }
    }
    assert!(
        checked > 0,
        "no relative link found at all: is the parser broken?"
    );
    assert!(
        broken.is_empty(),
        "links to files that do not exist:\n  {}",
        broken.join("\n  ")
    );
}

/// The workspace members listed in the root Cargo.toml's `members = [ ... ]`.
fn workspace_members(manifest: &str) -> Vec<String> {
    let mut members = Vec::new();
    let mut inside = false;
    for raw in manifest.lines() {
        let line = raw.split('#').next().unwrap_or("").trim();
        if !inside {
            match line.strip_prefix("members") {
                Some(rest) if rest.trim_start().starts_with('=') => {
                    inside = true;
                    let rest = rest.trim_start().trim_start_matches('=');
                    members.extend(quoted(rest));
                    if rest.contains(']') {
                        break;
                    }
                }
                _ => {}
            }
            continue;
        }
        members.extend(quoted(line));
        if line.contains(']') {
            break;
        }
    }
    members
}

/// The double-quoted strings of a line.
fn quoted(line: &str) -> Vec<String> {
    line.split('"')
        .enumerate()
        .filter(|(i, _)| i % 2 == 1)
        .map(|(_, s)| s.to_owned())
        .collect()
}

/// The `name = "..."` of a member's `[package]` section.
fn package_name(manifest: &str) -> Option<String> {
    let mut in_package = false;
    for raw in manifest.lines() {
        let line = raw.split('#').next().unwrap_or("").trim();
        if line.starts_with('[') {
            in_package = line == "[package]";
            continue;
        }
        if in_package {
            if let Some(rest) = line.strip_prefix("name") {
                if rest.trim_start().starts_with('=') {
                    return quoted(rest).into_iter().next();
                }
            }
        }
    }
    None
}

#[test]
fn the_architecture_names_every_workspace_member() {
    let root = root();
    let members = workspace_members(&read(&root.join("Cargo.toml")));
    assert!(
        members.len() > 5,
        "found only {members:?} in the root Cargo.toml's members"
    );
    let architecture = read(&root.join("ARCHITECTURE.md"));
    let mut missing = Vec::new();
    for member in &members {
        let manifest = root.join(member).join("Cargo.toml");
        let Some(name) = package_name(&read(&manifest)) else {
            panic!("no [package] name in {}", manifest.display());
        };
        // Named as code, so that `kriegspiel` is not found inside `kriegspiel-hall`.
        if !architecture.contains(&format!("`{name}`")) {
            missing.push(format!("package `{name}` ({member})"));
        }
        if !architecture.contains(&format!("`{member}`")) {
            missing.push(format!("folder `{member}`"));
        }
    }
    assert!(
        missing.is_empty(),
        "ARCHITECTURE.md does not name these workspace members:\n  {}",
        missing.join("\n  ")
    );
}

#[test]
fn the_link_parser_finds_what_it_should() {
    let text = "See [`docs/A.md`](docs/A.md#part) and ![pic](b.png \"title\").\n\
                ```\n[not](a-link.md)\n```\n\
                Code `[x](y)` is not a link; [web](https://example.invalid/x).\n\
                [ref]: c/d.md\n";
    let targets: Vec<String> = link_targets(text).into_iter().map(|(_, t)| t).collect();
    assert_eq!(
        targets,
        [
            "docs/A.md#part",
            "b.png",
            "https://example.invalid/x",
            "c/d.md"
        ]
    );
    assert!(!is_relative("https://example.invalid/x"));
    assert!(!is_relative("#anchor"));
    assert!(is_relative("../hardware/README.md"));
    let manifest = "[workspace]\nmembers = [\n    \"a/b\", # note\n    \"c\",\n]\n";
    assert_eq!(workspace_members(manifest), ["a/b", "c"]);
    assert_eq!(
        package_name("[package]\nname = \"x-y\"\n[dependencies]\nname = \"z\"\n"),
        Some("x-y".to_owned())
    );
}
