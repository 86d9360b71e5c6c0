//! The committed drawings are exactly what the source draws, and the pins they show are
//! the ones the board program's example configurations use.

use std::path::Path;

use hardware_drawings::pins::{MATRIX_COLS, MATRIX_ROWS, SHIFT_CLK, SHIFT_DATA, SHIFT_LOAD};

const REGENERATE: &str = "regenerate them with `cargo run -p hardware-drawings` and commit \
                          hardware/drawings/out/";

#[test]
fn committed_svgs_equal_the_generated_ones() {
    let out = hardware_drawings::out_dir();
    let drawings = hardware_drawings::drawings();
    for d in &drawings {
        let path = out.join(d.file);
        let committed = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}; {REGENERATE}", path.display()));
        assert!(
            committed == d.svg,
            "{} differs from what the source draws; {REGENERATE}",
            path.display()
        );
    }
    // No stale drawing that the source no longer makes.
    let mut stale = Vec::new();
    for entry in std::fs::read_dir(&out).expect("out/ exists") {
        let name = entry.expect("readable out/").file_name();
        let name = name.to_string_lossy().into_owned();
        if name.ends_with(".svg") && !drawings.iter().any(|d| d.file == name) {
            stale.push(name);
        }
    }
    assert!(
        stale.is_empty(),
        "stale drawings in out/: {stale:?}; remove them"
    );
}

#[test]
fn drawings_are_plain_svg_on_white() {
    let allowed = ["svg", "rect", "line", "circle", "text", "path"];
    for d in hardware_drawings::drawings() {
        assert!(d
            .svg
            .starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
        assert!(
            d.svg.contains("fill=\"#ffffff\""),
            "{}: white background",
            d.file
        );
        for tag in d.svg.split('<').skip(1) {
            let name: String = tag
                .trim_start_matches('/')
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric())
                .collect();
            assert!(allowed.contains(&name.as_str()), "{}: <{name}>", d.file);
        }
        for text in d.svg.lines().filter(|l| l.starts_with("<text")) {
            assert!(
                text.contains("font-family=\"sans-serif\""),
                "{}: {text}",
                d.file
            );
        }
    }
}

/// The numbers after `key =` on its line of a TOML file (a list or a single number).
fn numbers(toml: &str, key: &str) -> Vec<u8> {
    let value = toml
        .lines()
        .filter(|l| l.trim_start().starts_with(&format!("{key} ")))
        .find_map(|l| l.split_once('='))
        .map(|(_, v)| v.split('#').next().unwrap_or(""))
        .unwrap_or_else(|| panic!("no `{key} = ...` line"));
    value
        .split(|c: char| !c.is_ascii_digit())
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().unwrap_or_else(|e| panic!("{key}: {s}: {e}")))
        .collect()
}

#[test]
fn pins_match_the_example_configurations() {
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../firmware/board/examples");
    let matrix = std::fs::read_to_string(examples.join("board-matrix.toml")).expect("matrix");
    assert_eq!(numbers(&matrix, "rows"), MATRIX_ROWS);
    assert_eq!(numbers(&matrix, "cols"), MATRIX_COLS);
    let chain = std::fs::read_to_string(examples.join("board-74hc165.toml")).expect("chain");
    assert_eq!(numbers(&chain, "load"), [SHIFT_LOAD]);
    assert_eq!(numbers(&chain, "clk"), [SHIFT_CLK]);
    assert_eq!(numbers(&chain, "data"), [SHIFT_DATA]);
}
