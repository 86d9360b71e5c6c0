//! Drawing (b): the 64 switches read through eight daisy-chained 74HC165s.
//!
//! As `reed_matrix::ShiftRegisterBoard` reads them: chip Un holds rank n, input A = file a
//! … input H = file h; QH of Un feeds SER of Un+1, QH of U8 is DATA, SER of U1 is tied to
//! GND. LOAD goes to every SH/LD and CLK to every CLK. A LOW pulse on LOAD latches the
//! inputs, then DATA shows h8 first and a1 last (63 clock pulses).

use crate::pins::{bcm_and_pin, SHIFT_CLK, SHIFT_DATA, SHIFT_LOAD};
use crate::svg::{num, stroke, Font, Svg};

const BODY: &str = "#333333";
const CHAIN: &str = "#7c3aed";
const LOAD: &str = "#b45309";
const CLK: &str = "#0e7490";
const POWER: &str = "#c1121f";
const TEXT: &str = "#222222";
const NOTE: &str = "#555555";
const GLASS: &str = "#e8f1fb";

/// Chip body width and height.
const BW: f64 = 130.0;
const BH: f64 = 236.0;
/// Length of a pin stub.
const STUB: f64 = 28.0;
/// The first chip's body corner, and the distances between chips.
const X0: f64 = 110.0;
const Y0: f64 = 160.0;
const PITCH: f64 = 265.0;
const ROW_PITCH: f64 = 390.0;

/// The left-side pins, top to bottom: name and DIP pin number.
const LEFT: [(&str, u8); 9] = [
    ("SER", 10),
    ("A", 11),
    ("B", 12),
    ("C", 13),
    ("D", 14),
    ("E", 3),
    ("F", 4),
    ("G", 5),
    ("H", 6),
];
const FILES: [char; 8] = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'];

/// Body corner of chip Un (n = 1..=8): U1..U4 on the first row, U5..U8 on the second.
fn chip_xy(n: usize) -> (f64, f64) {
    let i = n - 1;
    (X0 + PITCH * (i % 4) as f64, Y0 + ROW_PITCH * (i / 4) as f64)
}

/// y of left pin `i` (0 = SER, 1..=8 = A..H) of a chip whose body starts at `y`.
fn left_pin_y(y: f64, i: usize) -> f64 {
    y + 22.0 + 22.0 * i as f64
}

/// x of the bottom pins: SH/LD, CLK, CLK INH.
const SH_LD_DX: f64 = 30.0;
const CLK_DX: f64 = 68.0;
const INH_DX: f64 = 106.0;
/// The LOAD and CLK buses below each row of chips.
const LOAD_DY: f64 = BH + 34.0;
const CLK_DY: f64 = BH + 54.0;

/// A ground symbol hanging from (x, y).
fn ground(svg: &mut Svg, x: f64, y: f64) {
    let s = stroke(BODY, 1.6);
    svg.line(x - 8.0, y, x + 8.0, y, &s);
    svg.line(x - 5.0, y + 4.0, x + 5.0, y + 4.0, &s);
    svg.line(x - 2.0, y + 8.0, x + 2.0, y + 8.0, &s);
}

fn chip(svg: &mut Svg, n: usize) {
    let (x, y) = chip_xy(n);
    let lead = stroke(BODY, 1.6);
    let pin_font = Font::new(11.0).color(NOTE);
    let name_font = Font::new(12.0).color(TEXT);

    svg.rect(
        x,
        y,
        BW,
        BH,
        r##"fill="#fbfbf7" stroke="#333333" stroke-width="2" rx="4""##,
    );
    let cx = x + BW / 2.0 + 10.0;
    svg.text(
        cx,
        y + 98.0,
        Font::new(24.0).bold().middle(),
        &format!("U{n}"),
    );
    svg.text(cx, y + 120.0, Font::new(13.0).middle(), "74HC165");
    svg.text(
        cx,
        y + 140.0,
        Font::new(13.0).bold().color(TEXT).middle(),
        &format!("rank {n}"),
    );

    // Left: SER and the eight inputs, each labelled with its square.
    for (i, (name, pin)) in LEFT.iter().enumerate() {
        let py = left_pin_y(y, i);
        svg.line(x - STUB, py, x, py, &lead);
        svg.text(x + 7.0, py + 4.0, name_font, name);
        svg.text(x - 3.0, py - 3.0, pin_font.end(), &pin.to_string());
        if i > 0 {
            svg.text(
                x - STUB - 5.0,
                py + 5.0,
                Font::new(14.0).bold().color(TEXT).end(),
                &format!("{}{n}", FILES[i - 1]),
            );
        }
    }

    // Right: QH, level with H.
    let qy = left_pin_y(y, 8);
    svg.line(x + BW, qy, x + BW + 22.0, qy, &stroke(CHAIN, 2.2));
    svg.text(x + BW - 7.0, qy + 4.0, name_font.end(), "QH");
    svg.text(x + BW + 3.0, qy - 4.0, pin_font, "9");

    // Top: VCC and GND.
    for (dx, name, pin, label, color) in [
        (62.0, "VCC", "16", "3.3 V", POWER),
        (102.0, "GND", "8", "GND", BODY),
    ] {
        svg.line(x + dx, y - 14.0, x + dx, y, &stroke(color, 1.6));
        svg.text(x + dx, y + 14.0, Font::new(11.0).middle(), name);
        svg.text(x + dx + 3.0, y - 4.0, pin_font, pin);
        svg.text(
            x + dx,
            y - 18.0,
            Font::new(11.0).bold().color(color).middle(),
            label,
        );
    }

    // Bottom: SH/LD and CLK to the buses, CLK INH to ground.
    for (dx, name, pin) in [
        (SH_LD_DX, "SH/LD", "1"),
        (CLK_DX, "CLK", "2"),
        (INH_DX, "INH", "15"),
    ] {
        svg.text(x + dx, y + BH - 9.0, Font::new(11.0).middle(), name);
        svg.text(x + dx + 3.0, y + BH + 12.0, pin_font, pin);
    }
    svg.line(
        x + SH_LD_DX,
        y + BH,
        x + SH_LD_DX,
        y + LOAD_DY,
        &stroke(LOAD, 2.0),
    );
    svg.joint(x + SH_LD_DX, y + LOAD_DY, LOAD);
    svg.wire(
        &[(x + CLK_DX, y + BH), (x + CLK_DX, y + CLK_DY)],
        &[(x + CLK_DX, y + LOAD_DY)],
        &stroke(CLK, 2.0),
    );
    svg.joint(x + CLK_DX, y + CLK_DY, CLK);
    svg.line(x + INH_DX, y + BH, x + INH_DX, y + BH + 18.0, &lead);
    ground(svg, x + INH_DX, y + BH + 18.0);
}

/// The chain drawing.
pub fn draw() -> String {
    let right = chip_xy(4).0 + BW;
    // The two vertical bus wires on the right, down to the Pi.
    let clk_x = right + 56.0;
    let load_x = right + 96.0;
    let data_x = right + 22.0;
    let width = load_x + 40.0;
    let (_, y1) = chip_xy(5);
    let pi_y = y1 + CLK_DY + 56.0;
    let height = pi_y + 214.0;
    let mut svg = Svg::new(width, height);

    svg.text(
        30.0,
        42.0,
        Font::new(24.0).bold(),
        "Eight 74HC165 shift registers: one input per square",
    );
    svg.lines(
        30.0,
        70.0,
        20.0,
        Font::new(15.0).color(NOTE),
        &[
            "Chip Un holds rank n, inputs A … H = files a … h. Pin numbers are the DIP-16 pins.",
            "QH of each chip feeds SER of the next; QH of U8 is DATA. Three wires to the Pi.",
        ],
    );

    for n in 1..=8 {
        chip(&mut svg, n);
    }

    // The buses of each row, joined on the right.
    for first in [1, 5] {
        let (x, y) = chip_xy(first);
        svg.line(
            x + SH_LD_DX,
            y + LOAD_DY,
            load_x,
            y + LOAD_DY,
            &stroke(LOAD, 2.0),
        );
        svg.line(x + CLK_DX, y + CLK_DY, clk_x, y + CLK_DY, &stroke(CLK, 2.0));
    }
    let (_, y0) = chip_xy(1);
    svg.joint(load_x, y1 + LOAD_DY, LOAD);
    svg.joint(clk_x, y1 + CLK_DY, CLK);

    // The serial chain: QH of Un to SER of Un+1.
    for n in 1..8 {
        let (x, y) = chip_xy(n);
        let (nx, ny) = chip_xy(n + 1);
        let qy = left_pin_y(y, 8);
        let turn = x + BW + 22.0;
        let ser = (nx - STUB, left_pin_y(ny, 0));
        if n % 4 != 0 {
            svg.wire(&[(turn, qy), (turn, ser.1), ser], &[], &stroke(CHAIN, 2.2));
        } else {
            let channel = y + CLK_DY + 30.0;
            let back = X0 - STUB - 36.0;
            svg.wire(
                &[
                    (turn, qy),
                    (turn, channel),
                    (back, channel),
                    (back, ser.1),
                    ser,
                ],
                &[(turn, y + LOAD_DY), (turn, y + CLK_DY)],
                &stroke(CHAIN, 2.2),
            );
        }
    }
    // U1's SER is tied low: zeros follow a1 out of the chain.
    let (x1, _) = chip_xy(1);
    svg.text(
        x1 - STUB - 5.0,
        left_pin_y(y0, 0) + 5.0,
        Font::new(13.0).bold().color(BODY).end(),
        "GND",
    );

    // The Raspberry Pi end: DATA, CLK and LOAD come in from the right.
    let pi_x = chip_xy(7).0 + 40.0;
    let pi_w = data_x - 40.0 - pi_x;
    let entries = [
        (data_x, pi_y + 44.0, CHAIN, "DATA", SHIFT_DATA, "← QH of U8"),
        (clk_x, pi_y + 74.0, CLK, "CLK", SHIFT_CLK, "→ every CLK (2)"),
        (
            load_x,
            pi_y + 104.0,
            LOAD,
            "LOAD",
            SHIFT_LOAD,
            "→ every SH/LD (1)",
        ),
    ];
    svg.rect(
        pi_x,
        pi_y,
        pi_w,
        194.0,
        r##"fill="#f3faf3" stroke="#2f7d32" stroke-width="2" rx="8""##,
    );
    svg.text(
        pi_x + 16.0,
        pi_y + 24.0,
        Font::new(15.0).bold(),
        "Raspberry Pi 40-pin header",
    );
    for (wx, wy, color, name, bcm, note) in entries {
        let top = match name {
            "DATA" => left_pin_y(y1, 8),
            "CLK" => y0 + CLK_DY,
            _ => y0 + LOAD_DY,
        };
        let crossings: Vec<(f64, f64)> = match name {
            "DATA" => vec![(wx, y1 + LOAD_DY), (wx, y1 + CLK_DY)],
            "CLK" => vec![(wx, y1 + LOAD_DY)],
            _ => vec![],
        };
        svg.wire(
            &[(wx, top), (wx, wy), (pi_x + pi_w, wy)],
            &crossings,
            &stroke(color, 2.2),
        );
        svg.circle(
            pi_x + pi_w,
            wy,
            4.0,
            &format!(r##"fill="#ffffff" stroke="{color}" stroke-width="2""##),
        );
        svg.text(
            pi_x + pi_w - 12.0,
            wy + 5.0,
            Font::new(14.0).bold().color(color).end(),
            &format!("{name}: {}", bcm_and_pin(bcm)),
        );
        svg.text(pi_x + 16.0, wy + 5.0, Font::new(13.0).color(NOTE), note);
    }
    svg.lines(
        pi_x + 16.0,
        pi_y + 134.0,
        18.0,
        Font::new(13.0).color(TEXT),
        &[
            "3.3 V: pin 1 or 17; never 5 V (QH would",
            "drive 5 V into the Pi's input)",
            "GND: pin 6, 9, 14, 20, 25, 30, 34 or 39",
        ],
    );

    // How every input is wired, and how a read goes.
    let lx = 40.0;
    let ly = pi_y;
    svg.text(
        lx,
        ly + 24.0,
        Font::new(15.0).bold(),
        "Every input, e.g. e3",
    );
    let rail = ly + 44.0;
    let node = ly + 104.0;
    let rx = lx + 30.0;
    svg.line(lx, rail, lx + 70.0, rail, &stroke(POWER, 2.0));
    svg.text(
        lx + 76.0,
        rail + 4.0,
        Font::new(12.0).bold().color(POWER),
        "3.3 V",
    );
    // 10 kΩ pull-up as a zigzag.
    let mut d = format!(
        "M {} {} L {} {}",
        num(rx),
        num(rail),
        num(rx),
        num(rail + 10.0)
    );
    for k in 0..6 {
        let side = if k % 2 == 0 { 6.0 } else { -6.0 };
        d.push_str(&format!(
            " L {} {}",
            num(rx + side),
            num(rail + 14.0 + 7.0 * k as f64)
        ));
    }
    d.push_str(&format!(
        " L {} {} L {} {}",
        num(rx),
        num(rail + 56.0),
        num(rx),
        num(node)
    ));
    svg.path(&d, &stroke(BODY, 1.6));
    svg.text(rx + 12.0, rail + 34.0, Font::new(12.0).color(TEXT), "10 kΩ");
    svg.joint(rx, node, BODY);
    svg.line(rx, node, rx + 50.0, node, &stroke(BODY, 1.6));
    svg.text(
        rx + 56.0,
        node + 4.0,
        Font::new(12.0).color(TEXT),
        "U3 input E",
    );
    // The reed switch to ground.
    svg.line(rx, node, rx, node + 8.0, &stroke(BODY, 1.6));
    svg.rect(
        rx - 6.0,
        node + 8.0,
        12.0,
        24.0,
        &format!(r##"rx="6" fill="{GLASS}" stroke="#7a8ca3" stroke-width="1.6""##),
    );
    svg.line(rx, node + 8.0, rx, node + 19.0, &stroke(BODY, 1.6));
    svg.line(rx, node + 32.0, rx + 4.0, node + 21.0, &stroke(BODY, 1.6));
    svg.line(rx, node + 32.0, rx, node + 40.0, &stroke(BODY, 1.6));
    ground(&mut svg, rx, node + 40.0);
    svg.text(
        rx + 12.0,
        node + 26.0,
        Font::new(12.0).color(TEXT),
        "reed switch e3",
    );
    svg.lines(
        lx + 180.0,
        ly + 48.0,
        18.0,
        Font::new(13.0).color(TEXT),
        &[
            "Closed (magnet) = LOW.",
            "Pull-ups: one 9-pin",
            "10 kΩ network per chip.",
            "CLK INH (15) to GND.",
            "100 nF from VCC to",
            "GND at every chip.",
        ],
    );
    let tx = lx + 368.0;
    svg.text(tx, ly + 24.0, Font::new(15.0).bold(), "A read");
    svg.lines(
        tx,
        ly + 48.0,
        19.0,
        Font::new(13.0).color(TEXT),
        &[
            "1. LOAD pulses LOW: all 64 inputs",
            "    are latched at once.",
            "2. DATA shows U8's H: h8.",
            "3. Each CLK pulse shifts the next",
            "    bit out: g8 … a8, h7 … a1.",
            "64 bits, 63 clock pulses;",
            "no ghosting: one wire per switch.",
        ],
    );
    svg.finish()
}
