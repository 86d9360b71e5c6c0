//! The line reader: lines of a bounded length, a long one skipped unread, a bad one
//! reported alone, a byte-order mark at the start dropped.

use std::fmt;
use std::io::{self, BufRead, BufReader, Read};

/// The default longest line, newline excluded: far above any command, script or config
/// line, far below anything that could hurt.
pub const MAX_LINE: usize = 64 * 1024;

/// The UTF-8 byte-order mark, dropped at the start of an input.
pub(crate) const BOM: &[u8] = b"\xEF\xBB\xBF";

/// Why one line could not be used. The reader goes on with the next line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LineError {
    /// The line had `len` bytes (newline excluded), more than `limit`; it was skipped.
    TooLong { len: u64, limit: usize },
    /// The line is not UTF-8; `valid_up_to` bytes were.
    NotUtf8 { valid_up_to: usize },
}

impl fmt::Display for LineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LineError::TooLong { len, limit } => {
                write!(f, "line too long ({len} bytes; the limit is {limit})")
            }
            LineError::NotUtf8 { valid_up_to } => {
                write!(f, "invalid UTF-8 after {valid_up_to} bytes")
            }
        }
    }
}

impl std::error::Error for LineError {}

/// Reads lines of at most `limit` bytes, holding at most `limit` bytes (plus its read
/// buffer) however long a line is.
#[derive(Debug)]
pub struct LineReader<R> {
    inner: BufReader<R>,
    buf: Vec<u8>,
    limit: usize,
    /// Line number of the line last returned (1-based).
    number: u64,
    at_start: bool,
    /// The input ended: a terminal's Ctrl-D is its end, though the terminal would give more
    /// after it (else Ctrl-D after a half-typed line sends the line and ends nothing).
    ended: bool,
}

/// The read buffer: large reads, so that a fast producer is met with few system calls.
const READ_BUFFER: usize = 64 * 1024;

impl<R: Read> LineReader<R> {
    /// A reader with the default limit, [`MAX_LINE`].
    pub fn new(inner: R) -> Self {
        Self::with_limit(inner, MAX_LINE)
    }

    pub fn with_limit(inner: R, limit: usize) -> Self {
        LineReader {
            inner: BufReader::with_capacity(READ_BUFFER, inner),
            buf: Vec::with_capacity(limit.min(256)),
            limit,
            number: 0,
            at_start: true,
            ended: false,
        }
    }

    /// The number of the line last returned, counting from 1.
    pub fn line_number(&self) -> u64 {
        self.number
    }

    /// Whether everything read so far has been returned: no more input is waiting in the
    /// buffer, so a caller that batches its answers must flush them now, before it blocks.
    pub fn is_drained(&self) -> bool {
        self.inner.buffer().is_empty()
    }

    /// The next line without its `\n` (and `\r\n`), an error for a line that cannot be
    /// used, or `None` at the end of the input. An I/O error is returned as such.
    pub fn next_line(&mut self) -> io::Result<Option<Result<&str, LineError>>> {
        self.buf.clear();
        if self.ended {
            return Ok(None);
        }
        let mut len: u64 = 0;
        let mut saw_any = false;
        // The first line may carry a BOM beyond the limit: it is dropped below.
        let room = self.limit as u64 + if self.at_start { BOM.len() as u64 } else { 0 };
        loop {
            let chunk = match self.inner.fill_buf() {
                Ok(c) => c,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if chunk.is_empty() {
                self.ended = true;
                if !saw_any {
                    return Ok(None);
                }
                break;
            }
            saw_any = true;
            let (part, done) = match chunk.iter().position(|&b| b == b'\n') {
                Some(i) => (&chunk[..i], Some(i + 1)),
                None => (chunk, None),
            };
            len += part.len() as u64;
            if len <= room {
                self.buf.extend_from_slice(part);
            }
            let used = done.unwrap_or(chunk.len());
            self.inner.consume(used);
            if done.is_some() {
                break;
            }
        }
        self.number += 1;
        if self.at_start {
            self.at_start = false;
            if self.buf.starts_with(BOM) {
                self.buf.drain(..BOM.len());
                len -= BOM.len() as u64;
            }
        }
        if len > self.limit as u64 {
            self.buf.clear();
            return Ok(Some(Err(LineError::TooLong {
                len,
                limit: self.limit,
            })));
        }
        if self.buf.last() == Some(&b'\r') {
            self.buf.pop();
        }
        Ok(Some(std::str::from_utf8(&self.buf).map_err(|e| {
            LineError::NotUtf8 {
                valid_up_to: e.valid_up_to(),
            }
        })))
    }

    /// The reader underneath.
    pub fn get_ref(&self) -> &R {
        self.inner.get_ref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(input: &[u8], limit: usize) -> Vec<Result<String, LineError>> {
        let mut r = LineReader::with_limit(input, limit);
        let mut out = Vec::new();
        while let Some(l) = r.next_line().unwrap() {
            out.push(l.map(str::to_owned));
        }
        out
    }

    /// A terminal: a half-typed line, Ctrl-D (a read of nothing), then more typed.
    struct Terminal(Vec<&'static [u8]>);

    impl Read for Terminal {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            if self.0.is_empty() {
                return Ok(0);
            }
            let part = self.0.remove(0);
            buf[..part.len()].copy_from_slice(part);
            Ok(part.len())
        }
    }

    #[test]
    fn the_input_ends_at_its_first_end_though_a_terminal_gives_more() {
        let mut r = LineReader::new(Terminal(vec![b"e2e4\n", b"Bg5", b"", b"my men\n"]));
        assert_eq!(r.next_line().unwrap().unwrap().unwrap(), "e2e4");
        assert_eq!(r.next_line().unwrap().unwrap().unwrap(), "Bg5");
        assert!(r.next_line().unwrap().is_none());
        assert!(r.next_line().unwrap().is_none());
    }

    #[test]
    fn plain_lines_crlf_and_last_line_without_newline() {
        assert_eq!(
            lines(b"a\r\nbc\n\nlast", 10),
            [
                Ok("a".into()),
                Ok("bc".into()),
                Ok("".into()),
                Ok("last".into())
            ]
        );
        assert!(lines(b"", 10).is_empty());
    }

    #[test]
    fn a_long_line_is_one_error_and_the_next_line_reads() {
        let mut input = vec![b'e'; 100];
        input.extend_from_slice(b"\nok\n");
        assert_eq!(
            lines(&input, 10),
            [
                Err(LineError::TooLong {
                    len: 100,
                    limit: 10
                }),
                Ok("ok".into())
            ]
        );
        // Exactly the limit is fine.
        assert_eq!(lines(b"0123456789\n", 10), [Ok("0123456789".into())]);
    }

    #[test]
    fn a_bad_byte_spoils_one_line_only() {
        assert_eq!(
            lines(b"\xff\n{\"a\":1}\n", 100),
            [
                Err(LineError::NotUtf8 { valid_up_to: 0 }),
                Ok("{\"a\":1}".into())
            ]
        );
    }

    #[test]
    fn a_leading_bom_is_skipped_once() {
        assert_eq!(
            lines(b"\xEF\xBB\xBFa\n\xEF\xBB\xBFb\n", 100),
            [Ok("a".into()), Ok("\u{feff}b".into())]
        );
        // A first line of exactly the limit after its BOM is read whole.
        let mut at_limit = b"\xEF\xBB\xBF".to_vec();
        at_limit.extend_from_slice(&[b'x'; 100]);
        at_limit.push(b'\n');
        assert_eq!(lines(&at_limit, 100), [Ok("x".repeat(100))]);
        assert_eq!(
            lines(format!("{}\n", "x".repeat(101)).as_bytes(), 100),
            [Err(LineError::TooLong {
                len: 101,
                limit: 100
            })]
        );
    }

    #[test]
    fn a_huge_line_holds_no_more_than_the_limit() {
        // 20 MB of one line through a reader that never grows past the limit.
        struct Endless(u64);
        impl Read for Endless {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                if self.0 == 0 {
                    return Ok(0);
                }
                let n = (buf.len() as u64).min(self.0) as usize;
                buf[..n].fill(b'x');
                self.0 -= n as u64;
                if self.0 == 0 {
                    buf[n - 1] = b'\n';
                }
                Ok(n)
            }
        }
        let mut r = LineReader::with_limit(Endless(20_000_000), 1000);
        let first = r.next_line().unwrap().unwrap();
        assert_eq!(
            first,
            Err(LineError::TooLong {
                len: 19_999_999,
                limit: 1000
            })
        );
        assert!(r.buf.capacity() <= 1000 + READ_BUFFER);
        assert!(r.next_line().unwrap().is_none());
        assert_eq!(r.line_number(), 1);
    }

    #[test]
    fn drained_tells_when_no_input_waits() {
        let mut r = LineReader::new(&b"a\nb\n"[..]);
        assert!(r.is_drained());
        r.next_line().unwrap();
        assert!(!r.is_drained());
        r.next_line().unwrap();
        assert!(r.is_drained());
    }
}
