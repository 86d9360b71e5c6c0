//! Drawing (a): the 8×8 reed-switch matrix with one diode per switch.
//!
//! As `reed_matrix::ReedMatrix` drives it: row r is rank r+1 (an output, idle HIGH, driven
//! LOW while it is read), column c is file a+c (an input with a pull-up). Each square joins
//! its file's column to its rank's row through its reed switch and a diode whose cathode
//! (band) faces the row, so a closed switch pulls its column LOW only while its row is LOW.

use crate::pins::{bcm_and_pin, header_pin, MATRIX_COLS, MATRIX_ROWS};
use crate::svg::{stroke, Font, Svg};

const ROW: &str = "#c2410c";
const COL: &str = "#1d4ed8";
const PART: &str = "#333333";
const GLASS: &str = "#e8f1fb";
const TEXT: &str = "#222222";
const NOTE: &str = "#555555";
const CURRENT: &str = "#15803d";

/// Distance between neighbouring wires.
const CELL: f64 = 88.0;
/// x of the file-a column wire.
const X0: f64 = 250.0;
/// y of the top of rank 8's band.
const TOP: f64 = 214.0;
/// Where, in a band, the switch leaves its column wire and where the row wire runs.
const JOINT_DY: f64 = 14.0;
const ROW_DY: f64 = 76.0;
/// How far right of its column wire a square's switch and diode stand.
const PART_DX: f64 = 34.0;

const FILES: [char; 8] = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'];

fn column_x(file: usize) -> f64 {
    X0 + CELL * file as f64
}

/// Top of the band of `rank` (1..=8); rank 8 is drawn at the top.
fn band_top(rank: usize) -> f64 {
    TOP + CELL * (8 - rank) as f64
}

/// One square's reed switch and diode, from its column joint (x, y) down to its row wire
/// at y + 62·scale, drawn `scale` times the size used in the grid.
fn reed_and_diode(svg: &mut Svg, x: f64, y: f64, scale: f64) {
    let s = |d: f64| y + d * scale;
    let w = 1.6 * scale.sqrt();
    let lead = stroke(PART, w);
    svg.line(x, y, x, s(6.0), &lead);
    svg.rect(
        x - 6.0 * scale,
        s(6.0),
        12.0 * scale,
        24.0 * scale,
        &format!(
            r##"rx="{}" fill="{GLASS}" stroke="#7a8ca3" stroke-width="{}""##,
            crate::svg::num(6.0 * scale),
            crate::svg::num(w)
        ),
    );
    // The two blades: the upper one straight, the lower one bent away (open contact).
    svg.line(x, s(6.0), x, s(17.0), &lead);
    svg.line(x, s(30.0), x + 4.0 * scale, s(19.0), &lead);
    svg.line(x, s(30.0), x, s(36.0), &lead);
    // The diode: anode on top, cathode (the band) below, towards the row.
    svg.path(
        &format!(
            "M {} {} L {} {} L {} {} Z",
            crate::svg::num(x - 7.0 * scale),
            crate::svg::num(s(36.0)),
            crate::svg::num(x + 7.0 * scale),
            crate::svg::num(s(36.0)),
            crate::svg::num(x),
            crate::svg::num(s(48.0))
        ),
        &format!(r#"fill="{PART}""#),
    );
    svg.line(
        x - 7.0 * scale,
        s(48.0),
        x + 7.0 * scale,
        s(48.0),
        &stroke(PART, 2.4 * scale.sqrt()),
    );
    svg.line(x, s(48.0), x, s(ROW_DY - JOINT_DY), &lead);
}

/// The matrix drawing.
pub fn draw() -> String {
    let last_x = column_x(7) + PART_DX;
    let grid_bottom = band_top(1) + CELL;
    let width = last_x + 70.0;
    let height = grid_bottom + 272.0;
    let mut svg = Svg::new(width, height);

    svg.text(
        30.0,
        42.0,
        Font::new(24.0).bold(),
        "Diode matrix: one reed switch and one diode per square",
    );
    svg.lines(
        30.0,
        70.0,
        20.0,
        Font::new(15.0).color(NOTE),
        &[
            "Drawn as seen from above, White's side at the bottom. Wiring on the underside,",
            "you see it mirrored: the files run h … a from left to right.",
        ],
    );

    // Captions for the two kinds of wire.
    svg.lines(
        30.0,
        TOP - 66.0,
        17.0,
        Font::new(13.0).color(ROW),
        &[
            "8 row wires, one per rank:",
            "outputs, idle HIGH,",
            "driven LOW one at a time",
        ],
    );
    svg.text(
        X0 - 20.0,
        TOP - 100.0,
        Font::new(13.0).color(COL),
        "8 column wires, one per file: inputs with pull-up to 3.3 V (the Pi's internal ones); \
         LOW = magnet",
    );

    // Column wires with their labels; they hop over the row wires they cross.
    for (file, &bcm) in MATRIX_COLS.iter().enumerate() {
        let x = column_x(file);
        let pin = header_pin(bcm).unwrap_or(0);
        svg.text(
            x,
            TOP - 64.0,
            Font::new(15.0).bold().color(COL).middle(),
            &format!("file {}", FILES[file]),
        );
        svg.text(
            x,
            TOP - 46.0,
            Font::new(13.0).color(COL).middle(),
            &format!("BCM {bcm}"),
        );
        svg.text(
            x,
            TOP - 30.0,
            Font::new(13.0).color(COL).middle(),
            &format!("pin {pin}"),
        );
        let hops: Vec<(f64, f64)> = (2..=8).map(|r| (x, band_top(r) + ROW_DY)).collect();
        svg.wire(
            &[(x, TOP - 18.0), (x, band_top(1) + JOINT_DY)],
            &hops,
            &stroke(COL, 2.5),
        );
    }

    // Row wires with their labels.
    for (row, &bcm) in MATRIX_ROWS.iter().enumerate() {
        let rank = row + 1;
        let y = band_top(rank) + ROW_DY;
        svg.line(X0 - 56.0, y, last_x, y, &stroke(ROW, 2.5));
        svg.text(
            X0 - 64.0,
            y - 3.0,
            Font::new(15.0).bold().color(ROW).end(),
            &format!("rank {rank} · row {rank}"),
        );
        svg.text(
            X0 - 64.0,
            y + 14.0,
            Font::new(13.0).color(ROW).end(),
            &bcm_and_pin(bcm),
        );
    }

    // One switch and diode per square.
    for rank in 1..=8 {
        for (file, name) in FILES.iter().enumerate() {
            let xc = column_x(file);
            let xs = xc + PART_DX;
            let yj = band_top(rank) + JOINT_DY;
            svg.line(xc, yj, xs, yj, &stroke(PART, 1.6));
            reed_and_diode(&mut svg, xs, yj, 1.0);
            svg.joint(xc, yj, COL);
            svg.joint(xs, yj + ROW_DY - JOINT_DY, ROW);
            svg.text(
                xs + 11.0,
                yj + 31.0,
                Font::new(13.0).bold().color(TEXT),
                &format!("{name}{rank}"),
            );
        }
    }

    // The legend: one square enlarged, and how a scan reads it.
    let ly = grid_bottom + 36.0;
    svg.rect(
        20.0,
        ly - 20.0,
        width - 40.0,
        232.0,
        r##"fill="#fafafa" stroke="#cccccc" rx="8""##,
    );
    svg.text(
        40.0,
        ly + 6.0,
        Font::new(16.0).bold(),
        "Every square, e.g. e4",
    );
    let dx = 110.0;
    let dy = ly + 36.0;
    let s = 2.4;
    let part_x = dx + 60.0;
    svg.line(dx, dy - 14.0, dx, dy + 24.0, &stroke(COL, 3.0));
    svg.text(
        dx - 8.0,
        dy + 4.0,
        Font::new(13.0).color(COL).end(),
        "file e",
    );
    svg.line(dx, dy, part_x, dy, &stroke(PART, 2.0));
    svg.joint(dx, dy, COL);
    reed_and_diode(&mut svg, part_x, dy, s);
    let row_y = dy + (ROW_DY - JOINT_DY) * s;
    svg.line(dx - 30.0, row_y, part_x + 70.0, row_y, &stroke(ROW, 3.0));
    svg.joint(part_x, row_y, ROW);
    svg.text(
        part_x + 78.0,
        row_y + 5.0,
        Font::new(13.0).color(ROW),
        "rank 4",
    );
    // The way current flows while rank 4 is strobed LOW and the switch is closed.
    let ax = part_x - 34.0;
    svg.line(ax, dy + 28.0, ax, row_y - 22.0, &stroke(CURRENT, 2.0));
    svg.path(
        &format!(
            "M {} {} L {} {} L {} {} Z",
            crate::svg::num(ax - 6.0),
            crate::svg::num(row_y - 24.0),
            crate::svg::num(ax + 6.0),
            crate::svg::num(row_y - 24.0),
            crate::svg::num(ax),
            crate::svg::num(row_y - 12.0)
        ),
        &format!(r#"fill="{CURRENT}""#),
    );
    svg.lines(
        ax - 8.0,
        dy + 44.0,
        16.0,
        Font::new(12.0).color(CURRENT).end(),
        &[
            "current while",
            "rank 4 is LOW",
            "and the switch",
            "is closed",
        ],
    );
    let note = Font::new(13.0).color(TEXT);
    svg.text(
        part_x + 30.0,
        dy + 18.0 * s,
        note,
        "reed switch: closes under a magnet",
    );
    svg.text(
        part_x + 24.0,
        dy + 40.0 * s,
        note,
        "diode 1N4148: band (cathode)",
    );
    svg.text(
        part_x + 24.0,
        dy + 40.0 * s + 17.0,
        note,
        "towards the row wire",
    );

    let tx = 470.0;
    svg.text(
        tx,
        ly + 6.0,
        Font::new(16.0).bold(),
        "How the board program reads it",
    );
    svg.lines(
        tx,
        ly + 34.0,
        21.0,
        Font::new(14.0).color(TEXT),
        &[
            "1. All eight rows are HIGH while idle.",
            "2. One row is driven LOW; wait 10 µs.",
            "3. The eight columns are read: a LOW column",
            "    means a magnet on that rank and file.",
            "4. The row goes HIGH again; on to the next rank.",
            "Current can only flow column → diode → row,",
            "so men on three corners of a rectangle never",
            "make a ghost on the fourth corner.",
        ],
    );
    svg.finish()
}
