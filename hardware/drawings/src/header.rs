//! Drawing (c): the Raspberry Pi's 40-pin header with the pins a board uses, once for the
//! diode matrix and once for the 74HC165 chain (the pin maps of `hardware/WIRING.md` and
//! `firmware/board/examples/*.toml`).

use crate::pins::{
    reserved, HeaderPin, HEADER, MATRIX_COLS, MATRIX_ROWS, SHIFT_CLK, SHIFT_DATA, SHIFT_LOAD,
    UART_RXD, UART_TXD,
};
use crate::svg::{Font, Svg};

/// A kind of use, with its colours (text and pin, label background).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Use {
    Row,
    Column,
    Chain,
    Link,
    Power,
    Ground,
    Free,
    Avoid,
}

impl Use {
    fn colors(self) -> (&'static str, &'static str) {
        match self {
            Use::Row => ("#c2410c", "#fde8d8"),
            Use::Column => ("#1d4ed8", "#dde8fd"),
            Use::Chain => ("#15803d", "#dcf3e2"),
            Use::Link => ("#7c3aed", "#ece4fc"),
            Use::Power => ("#c1121f", "#fde2e2"),
            Use::Ground => ("#222222", "#e4e4e4"),
            Use::Free => ("#8a8a8a", "#ffffff"),
            Use::Avoid => ("#8a8a8a", "#ffffff"),
        }
    }
}

const FILES: [char; 8] = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'];

/// Which variant a panel shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Variant {
    Matrix,
    Chain,
}

/// What physical pin `pin` (1..=40) is used for, and its label.
fn describe(variant: Variant, pin: usize) -> (Use, String) {
    match HEADER[pin - 1] {
        HeaderPin::V3 => match variant {
            Variant::Chain => (Use::Power, "3.3 V → all VCC (16)".to_owned()),
            Variant::Matrix => (Use::Power, "3.3 V (external pull-ups)".to_owned()),
        },
        HeaderPin::V5 => (Use::Avoid, "5 V: not for the board".to_owned()),
        HeaderPin::Gnd => (Use::Ground, "GND".to_owned()),
        HeaderPin::Gpio(bcm) => {
            let role = if bcm == UART_TXD {
                Some((Use::Link, "TXD → console RX".to_owned()))
            } else if bcm == UART_RXD {
                Some((Use::Link, "RXD ← console TX".to_owned()))
            } else {
                match variant {
                    Variant::Matrix => {
                        if let Some(r) = MATRIX_ROWS.iter().position(|&b| b == bcm) {
                            Some((Use::Row, format!("row {} (rank {})", r + 1, r + 1)))
                        } else {
                            MATRIX_COLS
                                .iter()
                                .position(|&b| b == bcm)
                                .map(|c| (Use::Column, format!("col {0} (file {0})", FILES[c])))
                        }
                    }
                    Variant::Chain => match bcm {
                        b if b == SHIFT_LOAD => Some((Use::Chain, "LOAD → all SH/LD".to_owned())),
                        b if b == SHIFT_CLK => Some((Use::Chain, "CLK → all CLK".to_owned())),
                        b if b == SHIFT_DATA => Some((Use::Chain, "DATA ← QH of U8".to_owned())),
                        _ => None,
                    },
                }
            };
            match (role, reserved(bcm)) {
                (Some((u, text)), _) => (u, format!("{text} · BCM {bcm}")),
                (None, Some(why)) => (Use::Avoid, format!("{why} · BCM {bcm}")),
                (None, None) => (Use::Free, format!("BCM {bcm}")),
            }
        }
    }
}

/// Right-side labels read outwards from the header: "BCM 23 · col e (file e)".
fn mirror(label: &str) -> String {
    match label.rsplit_once(" · ") {
        Some((role, bcm)) => format!("{bcm} · {role}"),
        None => label.to_owned(),
    }
}

const PITCH: f64 = 27.0;

fn panel(svg: &mut Svg, variant: Variant, x0: f64, y0: f64, w: f64, title: &str, file: &str) {
    svg.rect(
        x0,
        y0,
        w,
        20.0 * PITCH + 96.0,
        r##"fill="#fcfcfc" stroke="#cccccc" rx="8""##,
    );
    let cx = x0 + w / 2.0;
    svg.text(cx, y0 + 28.0, Font::new(18.0).bold().middle(), title);
    svg.text(
        cx,
        y0 + 48.0,
        Font::new(13.0).color("#555555").middle(),
        file,
    );
    let top = y0 + 76.0;
    // The header's plastic.
    svg.rect(
        cx - 30.0,
        top - 16.0,
        60.0,
        20.0 * PITCH + 5.0,
        r##"fill="#2b2b2b" rx="4""##,
    );
    for pin in 1..=40usize {
        let odd = pin % 2 == 1;
        let row = ((pin - 1) / 2) as f64;
        let x = if odd { cx - 14.0 } else { cx + 14.0 };
        let y = top + row * PITCH;
        let (u, label) = describe(variant, pin);
        let (fg, bg) = u.colors();
        let used = !matches!(u, Use::Free | Use::Avoid);
        let pin_fill = if used { fg } else { "#bdbdbd" };
        if pin == 1 {
            svg.rect(
                x - 10.0,
                y - 10.0,
                20.0,
                20.0,
                &format!(r##"fill="{pin_fill}" stroke="#ffffff" stroke-width="1.5""##),
            );
        } else {
            svg.circle(
                x,
                y,
                10.0,
                &format!(r##"fill="{pin_fill}" stroke="#ffffff" stroke-width="1.5""##),
            );
        }
        let num_color = if used { "#ffffff" } else { "#222222" };
        svg.text(
            x,
            y + 4.0,
            Font::new(10.5).bold().color(num_color).middle(),
            &pin.to_string(),
        );
        let text = if odd { label } else { mirror(&label) };
        let font = if used {
            Font::new(13.0).bold().color(fg)
        } else {
            Font::new(12.0).color(fg)
        };
        let tw = font.width(&text);
        let (bx, tx, font) = if odd {
            (cx - 40.0 - tw - 6.0, cx - 40.0, font.end())
        } else {
            (cx + 40.0 - 6.0, cx + 40.0, font)
        };
        if used {
            svg.rect(
                bx,
                y - 10.0,
                tw + 12.0,
                20.0,
                &format!(r##"fill="{bg}" stroke="{fg}" stroke-width="1" rx="4""##),
            );
        }
        svg.text(tx, y + 4.5, font, &text);
    }
}

/// The header drawing.
pub fn draw() -> String {
    let pw = 560.0;
    let width = 2.0 * pw + 60.0;
    let py = 120.0;
    let height = py + 20.0 * PITCH + 96.0 + 110.0;
    let mut svg = Svg::new(width, height);
    svg.text(
        30.0,
        42.0,
        Font::new(24.0).bold(),
        "Raspberry Pi 40-pin header: the pins a board uses",
    );
    svg.lines(
        30.0,
        70.0,
        20.0,
        Font::new(15.0).color("#555555"),
        &[
            "Seen from above, the Pi turned so that the header runs down its right-hand edge:",
            "pin 1 (square pad) at the top, odd pins on the inner row, even pins on the board's edge.",
        ],
    );
    panel(
        &mut svg,
        Variant::Matrix,
        20.0,
        py,
        pw,
        "Diode matrix",
        "firmware/board/examples/board-matrix.toml",
    );
    panel(
        &mut svg,
        Variant::Chain,
        40.0 + pw,
        py,
        pw,
        "74HC165 chain",
        "firmware/board/examples/board-74hc165.toml",
    );

    // Legend.
    let ly = py + 20.0 * PITCH + 96.0 + 34.0;
    let items = [
        (Use::Row, "row: output, idle HIGH"),
        (Use::Column, "column: input, pull-up"),
        (Use::Chain, "74HC165 signal"),
        (Use::Link, "UART link to the console"),
        (Use::Power, "3.3 V"),
        (Use::Ground, "GND (any)"),
        (Use::Free, "free"),
    ];
    let mut x = 30.0;
    for (u, text) in items {
        let (fg, _) = u.colors();
        let fill = if u == Use::Free { "#bdbdbd" } else { fg };
        svg.circle(x + 8.0, ly, 8.0, &format!(r#"fill="{fill}""#));
        let font = Font::new(13.0).color("#222222");
        svg.text(x + 22.0, ly + 4.5, font, text);
        x += 22.0 + font.width(text) + 26.0;
    }
    svg.lines(
        30.0,
        ly + 34.0,
        19.0,
        Font::new(13.0).color("#222222"),
        &[
            "Avoid BCM 2/3 (I²C: fixed 1.8 kΩ pull-ups) and BCM 0/1 (HAT EEPROM); BCM 14/15 stay the \
             console link (/dev/serial0).",
            "Any other free BCM pins work: the config file names them. A USB-gadget link (Pi Zero) \
             needs no UART pins.",
        ],
    );
    svg.finish()
}
