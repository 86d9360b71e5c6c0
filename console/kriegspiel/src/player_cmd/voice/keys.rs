//! Every voice step on one key as well, for the moments the voice fails: Space confirms a
//! read-back, Escape cancels it; Enter stays push-to-talk, so "confirm" and "cancel" can
//! still be said.
//!
//! The terminal stays line by line (his screen reader reads it as such). Escape is made a
//! second end-of-line character of his terminal, and Space a third one while a read-back
//! waits, so that the one key reaches the program at once, with no Enter after it; a line
//! typed meanwhile arrives in pieces ending in a space, which the terminal joins again.

use std::collections::VecDeque;
use std::io::{ErrorKind, Read};

use rustix::termios::{tcgetattr, tcsetattr, OptionalActions, SpecialCodeIndex, Termios};

/// The Escape key's character.
pub const ESCAPE: char = '\u{1b}';

/// The voice terminal's own keys, said after the console's help.
pub const VOICE_HELP: &str = "Voice: Enter, speak, Enter. Say a try as knight golf one to foxtrot three (files as letters, or as NATO or Anna names), castle kingside or queenside, a question as typed, my men, repeat, offer draw, resign, or queen, rook, bishop or knight for your next promotion. After a read-back, Space confirms and Escape cancels, or say confirm or cancel.";

/// Said after a read-back.
pub const HINT: &str = "Space confirms, Escape cancels.";
/// How many read-backs are followed by the hint: enough to learn it, not a chore after.
pub const HINTS: u8 = 3;

/// What a line of his keys means.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Keyed {
    /// Escape: cancel what waits.
    Cancel,
    /// Space alone while a read-back waits: confirm it.
    Confirm,
    /// The first words of a line, cut at a space while a read-back waits: kept for the
    /// rest of the line.
    Part,
    /// A whole line (empty: Enter, push-to-talk).
    Line(String),
}

/// The keys of his terminal, read as lines.
#[derive(Debug, Default)]
pub struct Keys {
    /// The terminal as it was (none when his keys do not come from a terminal).
    saved: Option<Termios>,
    space_ends_line: bool,
    /// The first words of a line cut at a space.
    part: String,
}

impl Keys {
    /// Escape ends a line at once from now on, while this lives.
    pub fn on_terminal() -> Keys {
        let stdin = std::io::stdin();
        let Ok(saved) = tcgetattr(&stdin) else {
            return Keys::default();
        };
        // Ctrl-C from now on puts it back: heard before it is changed.
        super::super::stop::restore_at_signal(saved.clone());
        let mut escape = saved.clone();
        escape.special_codes[SpecialCodeIndex::VEOL] = ESCAPE as u8;
        match tcsetattr(&stdin, OptionalActions::Now, &escape) {
            Ok(()) => Keys {
                saved: Some(saved),
                space_ends_line: false,
                part: String::new(),
            },
            Err(_) => Keys::default(),
        }
    }

    /// Space ends a line at once while a read-back waits, and only then.
    pub fn waiting(&mut self, read_back: bool) {
        if read_back == self.space_ends_line {
            return;
        }
        let Some(saved) = &self.saved else { return };
        let stdin = std::io::stdin();
        let Ok(mut now) = tcgetattr(&stdin) else {
            return;
        };
        now.special_codes[SpecialCodeIndex::VEOL2] = if read_back {
            b' '
        } else {
            saved.special_codes[SpecialCodeIndex::VEOL2]
        };
        if tcsetattr(&stdin, OptionalActions::Now, &now).is_ok() {
            self.space_ends_line = read_back;
        }
    }

    /// What one line of keys means, `read_back`: whether a read-back waits.
    pub fn line(&mut self, line: &str, read_back: bool) -> Keyed {
        if line.contains(ESCAPE) {
            self.part.clear();
            return Keyed::Cancel;
        }
        if read_back && self.part.is_empty() && !line.is_empty() && line.trim().is_empty() {
            return Keyed::Confirm;
        }
        // Cut at a space by the terminal (never a line from elsewhere, which ends as sent).
        if self.space_ends_line
            && line.ends_with(' ')
            && !(line.trim().is_empty() && self.part.is_empty())
        {
            self.part.push_str(line);
            if self.part.len() > MAX_PART {
                self.part.clear();
            }
            return Keyed::Part;
        }
        let whole = std::mem::take(&mut self.part) + line;
        Keyed::Line(whole)
    }
}

/// The longest line of keys; a longer one is dropped whole.
const MAX_PART: usize = 1024;

impl Keys {
    /// Whether his keys come from a terminal this changed.
    pub fn on_a_terminal(&self) -> bool {
        self.saved.is_some()
    }
}

/// One line of his keys.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeyLine {
    Line(String),
    /// Longer than [`MAX_PART`]: dropped whole, and said.
    TooLong,
}

/// His keys, a line at a time. A line ends at a newline; from his terminal, also wherever a
/// read ends (the terminal hands over a line at a time, and Escape or Space end one too).
#[derive(Debug)]
pub struct KeyLines<R> {
    input: R,
    terminal: bool,
    line: Vec<u8>,
    overlong: bool,
    ready: VecDeque<KeyLine>,
}

impl<R: Read> KeyLines<R> {
    pub fn new(input: R, terminal: bool) -> KeyLines<R> {
        KeyLines {
            input,
            terminal,
            line: Vec::new(),
            overlong: false,
            ready: VecDeque::new(),
        }
    }

    /// The next line; `None` at the end of his keys (or when they cannot be read).
    pub fn next_line(&mut self) -> Option<KeyLine> {
        let mut buf = [0u8; 1024];
        loop {
            if let Some(line) = self.ready.pop_front() {
                return Some(line);
            }
            let n = match self.input.read(&mut buf) {
                Ok(0) => return None,
                Ok(n) => n,
                Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                Err(_) => return None,
            };
            for &b in &buf[..n] {
                if b == b'\n' {
                    self.end_line();
                } else if self.line.len() < MAX_PART {
                    self.line.push(b);
                } else {
                    self.overlong = true;
                }
            }
            // A read that filled the buffer is a line longer than it: it goes on.
            if self.terminal && !self.line.is_empty() && n < buf.len() {
                self.end_line();
            }
        }
    }

    fn end_line(&mut self) {
        let line = String::from_utf8_lossy(&self.line).into_owned();
        self.line.clear();
        let line = if std::mem::take(&mut self.overlong) {
            KeyLine::TooLong
        } else {
            KeyLine::Line(line)
        };
        if self.ready.len() < MAX_PART {
            self.ready.push_back(line);
        }
    }
}

impl Drop for Keys {
    fn drop(&mut self) {
        if let Some(saved) = &self.saved {
            let _ = tcsetattr(std::io::stdin(), OptionalActions::Now, saved);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_cancels_and_space_alone_confirms_only_a_read_back() {
        let mut k = Keys::default();
        assert_eq!(k.line("\u{1b}", false), Keyed::Cancel);
        assert_eq!(k.line("e2e\u{1b}", true), Keyed::Cancel);
        assert_eq!(k.line(" ", true), Keyed::Confirm);
        assert_eq!(k.line(" ", false), Keyed::Line(" ".into()));
        assert_eq!(k.line("", true), Keyed::Line(String::new()));
    }

    #[test]
    fn lines_end_at_newlines_and_on_a_terminal_where_a_read_ends() {
        let line = |l: &str| Some(KeyLine::Line(l.to_owned()));
        let mut piped = KeyLines::new(&b"e2e4\n\x1b\nany \n"[..], false);
        assert_eq!(piped.next_line(), line("e2e4"));
        assert_eq!(piped.next_line(), line("\u{1b}"));
        assert_eq!(piped.next_line(), line("any "));
        assert_eq!(piped.next_line(), None);
        // A terminal's read ends with the key that ended the line.
        let mut tty = KeyLines::new(&b"offer \x1b"[..], true);
        assert_eq!(tty.next_line(), line("offer \u{1b}"));
        let mut long = vec![b'a'; 3000];
        long.extend_from_slice(b"\nmy men\n");
        let mut flood = KeyLines::new(&long[..], false);
        assert_eq!(
            flood.next_line(),
            Some(KeyLine::TooLong),
            "dropped, and said"
        );
        assert_eq!(flood.next_line(), line("my men"), "the next line is kept");
        // From a terminal, read in pieces as long as the buffer: one line, too long.
        let pasted = [b'a'; 3000];
        let mut tty = KeyLines::new(Pieces(pasted.chunks(1024).collect()), true);
        assert_eq!(tty.next_line(), Some(KeyLine::TooLong));
    }

    /// A terminal's reads, each piece one read.
    struct Pieces<'a>(std::collections::VecDeque<&'a [u8]>);

    impl Read for Pieces<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let Some(piece) = self.0.pop_front() else {
                return Ok(0);
            };
            buf[..piece.len()].copy_from_slice(piece);
            Ok(piece.len())
        }
    }

    #[test]
    fn a_line_cut_at_its_spaces_is_joined_again() {
        let mut k = Keys {
            saved: None,
            space_ends_line: true,
            part: String::new(),
        };
        assert_eq!(k.line("offer ", true), Keyed::Part);
        // A space after the cut is part of the line, not a confirmation.
        assert_eq!(k.line(" ", true), Keyed::Part);
        assert_eq!(k.line("draw", true), Keyed::Line("offer  draw".into()));
        assert_eq!(k.line("promote ", true), Keyed::Part);
        assert_eq!(k.line("\u{1b}", true), Keyed::Cancel);
        assert_eq!(k.line("e2e4", true), Keyed::Line("e2e4".into()));
        // Without the terminal's cut, a trailing space is the line's own.
        let mut piped = Keys::default();
        assert_eq!(piped.line("any ", true), Keyed::Line("any ".into()));
    }
}
