//! The shape of the code, checked: a newcomer finds one job per file and short functions,
//! front ends that are thin programs over one library, and hall subscribers that read typed
//! events instead of parsing strings back.
//!
//! Production code is every `.rs` file under console/, firmware/ and hardware/ outside
//! `tests/`, `benches/` and `examples/`, up to its first `#[cfg(test)]`. The SVG drawings
//! (hardware/drawings) are pictures written as code and are left out of the function rule.

#![allow(clippy::expect_used)]

use std::path::{Path, PathBuf};

/// The most lines a production file may have before its tests.
const MAX_FILE_LINES: usize = 700;
/// The most lines a function may have.
const MAX_FN_LINES: usize = 120;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the workspace")
        .to_path_buf()
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let path = e.path();
        let name = e.file_name().to_string_lossy().into_owned();
        if path.is_dir() {
            if !matches!(
                name.as_str(),
                "tests" | "benches" | "examples" | "target" | "out"
            ) {
                rust_files(&path, out);
            }
        } else if name.ends_with(".rs") && name != "tests.rs" && !name.ends_with("_tests.rs") {
            out.push(path);
        }
    }
}

/// Every production file, relative to the workspace, with its lines before its tests.
fn production() -> Vec<(String, Vec<String>)> {
    let root = root();
    let mut files = Vec::new();
    for top in ["console", "firmware", "hardware"] {
        rust_files(&root.join(top), &mut files);
    }
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).expect("readable source");
            let lines: Vec<String> = text
                .lines()
                .take_while(|l| !l.trim_start().starts_with("#[cfg(test)]"))
                .map(str::to_owned)
                .collect();
            let rel = p
                .strip_prefix(&root)
                .unwrap_or(&p)
                .to_string_lossy()
                .into_owned();
            (rel, lines)
        })
        .collect()
}

/// A line without its string and character literals and its comment, for counting braces.
fn code_of(line: &str) -> String {
    let mut out = String::new();
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' => {
                while let Some(d) = chars.next() {
                    match d {
                        '\\' => {
                            chars.next();
                        }
                        '"' => break,
                        _ => {}
                    }
                }
            }
            '\'' => {
                // A char literal ('{', '\n') or a lifetime ('a): skip only a literal.
                let rest: String = chars.clone().take(3).collect();
                if rest.starts_with('\\') {
                    for d in chars.by_ref() {
                        if d == '\'' {
                            break;
                        }
                    }
                } else if rest.chars().nth(1) == Some('\'') {
                    chars.next();
                    chars.next();
                }
            }
            '/' if chars.peek() == Some(&'/') => break,
            _ => out.push(c),
        }
    }
    out
}

/// The name of the function a line starts, if it starts one.
fn fn_name(line: &str) -> Option<&str> {
    let mut words = line.trim_start();
    for prefix in [
        "pub(crate) ",
        "pub(super) ",
        "pub ",
        "const ",
        "async ",
        "unsafe ",
    ] {
        words = words.strip_prefix(prefix).unwrap_or(words);
    }
    let rest = words.strip_prefix("fn ")?;
    let end = rest.find(|c: char| !(c.is_alphanumeric() || c == '_'))?;
    Some(&rest[..end])
}

/// (lines, name, first line) of every function with a body.
fn functions(lines: &[String]) -> Vec<(usize, String, usize)> {
    let mut found = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let Some(name) = fn_name(line) else { continue };
        let mut depth = 0i64;
        let mut opened = false;
        for (j, l) in lines.iter().enumerate().skip(i) {
            let code = code_of(l);
            if !opened && code.trim_end().ends_with(';') {
                break; // a declaration without a body
            }
            depth += code.matches('{').count() as i64 - code.matches('}').count() as i64;
            opened |= code.contains('{');
            if opened && depth <= 0 {
                found.push((j - i + 1, name.to_owned(), i + 1));
                break;
            }
        }
    }
    found
}

#[test]
fn every_production_file_is_under_700_lines() {
    let long: Vec<String> = production()
        .into_iter()
        .filter(|(_, lines)| lines.len() >= MAX_FILE_LINES)
        .map(|(path, lines)| format!("{path}: {} lines", lines.len()))
        .collect();
    assert!(long.is_empty(), "split by job:\n{}", long.join("\n"));
}

#[test]
fn no_function_is_over_120_lines_outside_the_drawings() {
    let mut long = Vec::new();
    for (path, lines) in production() {
        if path.starts_with("hardware/drawings") {
            continue;
        }
        for (n, name, at) in functions(&lines) {
            if n > MAX_FN_LINES {
                long.push(format!("{path}:{at} {name}: {n} lines"));
            }
        }
    }
    assert!(long.is_empty(), "split into steps:\n{}", long.join("\n"));
}

#[test]
fn the_function_measure_counts_bodies_not_strings() {
    let lines: Vec<String> = [
        "pub fn a() {",
        "    let s = \"}}}\";",
        "    let c = '{';",
        "    // }",
        "}",
        "fn b();",
        "fn d(x: [u8; 2])",
        "    -> u8 {",
        "    x[0]",
        "}",
        "fn c<'a>(x: &'a str) -> &'a str { x }",
    ]
    .iter()
    .map(|s| (*s).to_owned())
    .collect();
    let f = functions(&lines);
    assert_eq!(
        f,
        vec![
            (5, "a".to_owned(), 1),
            (4, "d".to_owned(), 7),
            (1, "c".to_owned(), 11)
        ],
        "{f:?}"
    );
}

#[test]
fn no_program_imports_another_programs_subcommands() {
    let mut found = Vec::new();
    for (path, lines) in production() {
        let arbiter = path.starts_with("console/console");
        for (i, l) in lines.iter().enumerate() {
            let code = code_of(l);
            // The window program is over the front-end library, never the CLI's modules.
            if arbiter && code.contains("kriegspiel::") {
                found.push(format!("{path}:{}: {}", i + 1, l.trim()));
            }
            // A subcommand module never imports another.
            if path.ends_with("_cmd.rs") || path.contains("_cmd/") {
                if let Some(pos) = code.find("crate::") {
                    let after = &code[pos + "crate::".len()..];
                    if after
                        .split("::")
                        .next()
                        .is_some_and(|m| m.ends_with("_cmd"))
                    {
                        found.push(format!("{path}:{}: {}", i + 1, l.trim()));
                    }
                }
            }
        }
    }
    assert!(found.is_empty(), "{}", found.join("\n"));
}

#[test]
fn no_hall_subscriber_parses_a_fen_or_reads_text_back_from_json() {
    let subscribers = [
        "console/window/src",
        "console/speech/src",
        "console/frontend/src",
    ];
    let mut found = Vec::new();
    for (path, lines) in production() {
        if !subscribers.iter().any(|s| path.starts_with(s)) {
            continue;
        }
        for (i, l) in lines.iter().enumerate() {
            let code = code_of(l);
            // `["text"]` with its quotes is gone from `code_of`'s copy: look at the line.
            if code.contains("parse::<Fen>") || l.contains("[\"text\"]") {
                found.push(format!("{path}:{}: {}", i + 1, l.trim()));
            }
        }
    }
    assert!(found.is_empty(), "{}", found.join("\n"));
}
