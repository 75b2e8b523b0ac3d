//! Standard output with terminal controls defused.
//!
//! Titles, quotes, URLs as given and command lines come from web pages and other
//! programs. Whatever the ledger holds (including what an earlier cite stored before
//! titles were cleaned at registration), a control character in it must not reach a
//! terminal, where ESC or the C1 CSI starts a sequence that can clear the screen, retitle
//! the window or forge output. Every byte the CLI prints goes through [`Defused`], which
//! turns each such character into U+FFFD. Tab, line feed and carriage return pass: the
//! output formats use them. JSON output never holds a raw control (serde escapes them),
//! so it passes unchanged.

use std::io::{self, Write};

const REPLACEMENT: &[u8] = "\u{fffd}".as_bytes();

/// A writer that replaces terminal controls (see [`cite_core::text::is_terminal_control`])
/// in the UTF-8 text written through it.
pub struct Defused<W: Write> {
    inner: W,
    /// The lead byte of a two-byte sequence whose second byte has not arrived yet.
    pending: Option<u8>,
}

impl<W: Write> Defused<W> {
    pub fn new(inner: W) -> Defused<W> {
        Defused {
            inner,
            pending: None,
        }
    }
}

impl<W: Write> Write for Defused<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let mut start = 0;
        let mut i = 0;
        if let Some(lead) = self.pending.take() {
            match buf.first() {
                // C1 controls are U+0080–U+009F: 0xC2 0x80 … 0xC2 0x9F.
                Some(0x80..=0x9f) => {
                    self.inner.write_all(REPLACEMENT)?;
                    start = 1;
                    i = 1;
                }
                Some(_) => self.inner.write_all(&[lead])?,
                None => {
                    self.pending = Some(lead);
                    return Ok(0);
                }
            }
        }
        while i < buf.len() {
            let b = buf[i];
            let control = match b {
                b'\t' | b'\n' | b'\r' => 0,
                0x00..=0x1f | 0x7f => 1,
                0xc2 => match buf.get(i + 1) {
                    Some(0x80..=0x9f) => 2,
                    Some(_) => 0,
                    None => {
                        self.inner.write_all(&buf[start..i])?;
                        self.pending = Some(b);
                        return Ok(buf.len());
                    }
                },
                _ => 0,
            };
            if control == 0 {
                i += 1;
                continue;
            }
            self.inner.write_all(&buf[start..i])?;
            self.inner.write_all(REPLACEMENT)?;
            i += control;
            start = i;
        }
        self.inner.write_all(&buf[start..])?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        if let Some(lead) = self.pending.take() {
            self.inner.write_all(&[lead])?;
        }
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn defuse(pieces: &[&[u8]]) -> String {
        let mut out = Defused::new(Vec::new());
        for p in pieces {
            out.write_all(p).unwrap();
        }
        out.flush().unwrap();
        String::from_utf8(out.inner).unwrap()
    }

    #[test]
    fn replaces_controls_and_keeps_text() {
        assert_eq!(
            defuse(&["a\u{1b}[2J\u{7}b\tc\r\nd\u{7f}é\u{9b}1m€".as_bytes()]),
            "a\u{fffd}[2J\u{fffd}b\tc\r\nd\u{fffd}é\u{fffd}1m€"
        );
        assert_eq!(defuse(&["plain text\n".as_bytes()]), "plain text\n");
    }

    #[test]
    fn a_c1_control_split_between_writes_is_caught() {
        let c1 = "\u{9b}".as_bytes();
        assert_eq!(defuse(&[b"x\xc2", &c1[1..], b"y"]), "x\u{fffd}y");
        let a0 = "\u{a0}".as_bytes();
        assert_eq!(defuse(&[b"x\xc2", &a0[1..]]), "x\u{a0}");
        assert_eq!(defuse(&[b"x\xc2", b"", &a0[1..]]), "x\u{a0}");
    }
}
