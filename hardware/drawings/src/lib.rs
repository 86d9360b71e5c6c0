//! Wiring drawings for the player boards, written as SVG by hand-made primitives so that
//! they are reproducible from this source: `cargo run -p hardware-drawings` rewrites
//! `hardware/drawings/out/*.svg`, and a test fails when the committed files differ.

pub mod chain;
pub mod header;
pub mod matrix;
pub mod pins;
pub mod svg;

/// One drawing: its file name in `out/` and its SVG text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Drawing {
    pub file: &'static str,
    pub svg: String,
}

/// Every drawing, in a fixed order.
pub fn drawings() -> Vec<Drawing> {
    vec![
        Drawing {
            file: "reed-matrix.svg",
            svg: matrix::draw(),
        },
        Drawing {
            file: "shift-register-chain.svg",
            svg: chain::draw(),
        },
        Drawing {
            file: "pi-header.svg",
            svg: header::draw(),
        },
    ]
}

/// Where the committed drawings live: `hardware/drawings/out`.
pub fn out_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("out")
}
