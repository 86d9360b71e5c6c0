//! `kriegspiel-board dgt-emulate`: a DGT e-board emulated faithfully enough to test the
//! console's DGT driver against (see docs/DGT.md). Our own code, written from the
//! protocol's description; nothing is shared with the driver, so that a misreading in one
//! is not silently mirrored in the other.

pub mod cli;
pub mod model;
pub mod run;
pub mod script;

/// Reads a firmware version `MAJOR.MINOR` (`1.02`, `3.10`).
pub fn parse_version(s: &str) -> Result<(u8, u8), String> {
    let bad = || format!("'{s}' is not a firmware version like 1.02 or 3.10");
    let (major, minor) = s.split_once('.').ok_or_else(bad)?;
    let major: u8 = major.parse().map_err(|_| bad())?;
    let minor: u8 = minor.parse().map_err(|_| bad())?;
    if major > 127 || minor > 127 {
        return Err(bad());
    }
    Ok((major, minor))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions() {
        assert_eq!(parse_version("1.02"), Ok((1, 2)));
        assert_eq!(parse_version("3.10"), Ok((3, 10)));
        assert!(parse_version("3").is_err());
        assert!(parse_version("3.200").is_err());
    }
}
