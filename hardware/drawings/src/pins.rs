//! The pins the drawings show: the Raspberry Pi's 40-pin header and the pin maps of
//! `hardware/WIRING.md` (the same as `firmware/board/examples/*.toml`; a test compares them).

/// Diode matrix rows, rank 1 .. rank 8: BCM numbers (outputs, idle HIGH, strobed LOW).
pub const MATRIX_ROWS: [u8; 8] = [5, 6, 13, 19, 26, 16, 20, 21];
/// Diode matrix columns, file a .. file h: BCM numbers (inputs with pull-ups).
pub const MATRIX_COLS: [u8; 8] = [4, 17, 27, 22, 23, 24, 25, 12];
/// 74HC165 chain: LOAD (to every SH/LD), BCM number.
pub const SHIFT_LOAD: u8 = 25;
/// 74HC165 chain: CLK (to every CLK), BCM number.
pub const SHIFT_CLK: u8 = 11;
/// 74HC165 chain: DATA (from QH of the rank-8 chip), BCM number.
pub const SHIFT_DATA: u8 = 9;
/// The UART kept for the link to the console: TXD and RXD, BCM numbers.
pub const UART_TXD: u8 = 14;
pub const UART_RXD: u8 = 15;

/// What one pin of the 40-pin header carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HeaderPin {
    V3,
    V5,
    Gnd,
    Gpio(u8),
}

use HeaderPin::{Gnd, Gpio, V3, V5};

/// The 40-pin header, physical pin 1 first (the same on every Pi with 40 pins).
pub const HEADER: [HeaderPin; 40] = [
    V3,
    V5,
    Gpio(2),
    V5,
    Gpio(3),
    Gnd,
    Gpio(4),
    Gpio(14),
    Gnd,
    Gpio(15),
    Gpio(17),
    Gpio(18),
    Gpio(27),
    Gnd,
    Gpio(22),
    Gpio(23),
    V3,
    Gpio(24),
    Gpio(10),
    Gnd,
    Gpio(9),
    Gpio(25),
    Gpio(11),
    Gpio(8),
    Gnd,
    Gpio(7),
    Gpio(0),
    Gpio(1),
    Gpio(5),
    Gnd,
    Gpio(6),
    Gpio(12),
    Gpio(13),
    Gnd,
    Gpio(19),
    Gpio(16),
    Gpio(26),
    Gpio(20),
    Gnd,
    Gpio(21),
];

/// The physical header pin (1..=40) of a BCM GPIO, if it is on the header.
pub fn header_pin(bcm: u8) -> Option<u8> {
    HEADER
        .iter()
        .position(|p| *p == Gpio(bcm))
        .and_then(|i| u8::try_from(i + 1).ok())
}

/// "BCM 4 · pin 7" for a GPIO on the header.
pub fn bcm_and_pin(bcm: u8) -> String {
    match header_pin(bcm) {
        Some(pin) => format!("BCM {bcm} · pin {pin}"),
        None => format!("BCM {bcm}"),
    }
}

/// What a GPIO is reserved for on a Pi, when the board must leave it alone.
pub fn reserved(bcm: u8) -> Option<&'static str> {
    match bcm {
        0 | 1 => Some("HAT ID EEPROM"),
        2 | 3 => Some("I²C, 1.8 kΩ pull-up"),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_gpio_0_to_27_is_on_the_header_once() {
        for bcm in 0..=27 {
            let n = HEADER.iter().filter(|p| **p == Gpio(bcm)).count();
            assert_eq!(n, 1, "BCM {bcm}");
        }
        assert_eq!(header_pin(4), Some(7));
        assert_eq!(header_pin(21), Some(40));
        assert_eq!(header_pin(28), None);
    }

    #[test]
    fn header_pins_match_wiring_md() {
        // The "header pin" columns of hardware/WIRING.md.
        let rows = [29, 31, 33, 35, 37, 36, 38, 40];
        let cols = [7, 11, 13, 15, 16, 18, 22, 32];
        for i in 0..8 {
            assert_eq!(header_pin(MATRIX_ROWS[i]), Some(rows[i]), "row {}", i + 1);
            assert_eq!(header_pin(MATRIX_COLS[i]), Some(cols[i]), "column {i}");
        }
        assert_eq!(header_pin(SHIFT_LOAD), Some(22));
        assert_eq!(header_pin(SHIFT_CLK), Some(23));
        assert_eq!(header_pin(SHIFT_DATA), Some(21));
        assert_eq!(header_pin(UART_TXD), Some(8));
        assert_eq!(header_pin(UART_RXD), Some(10));
    }
}
