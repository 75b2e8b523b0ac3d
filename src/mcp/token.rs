//! The bearer token of `cite mcp --http`: checked when given, kept only as a hash, and
//! read again from its file when the file is replaced, so a rotated token takes effect
//! without a restart and the old one stops working.
//!
//! A token file must be the token's alone: a regular file (a FIFO would hang the
//! start, a device or folder is a mistake), owned by the user who runs the server, and
//! neither readable nor writable by its group or other users (either would let them
//! read the token, or set it). It is opened without waiting (`O_NONBLOCK`) and checked
//! on the open descriptor, so a file swapped in between is checked, not another.

use std::io::Read;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use hyper::header::{self, HeaderMap};
use rustix::fs::{Mode, OFlags};

/// The shortest token accepted: a client that can reach the port may guess freely, so
/// the token must be out of reach of guessing (`openssl rand -hex 32` gives 64).
pub const MIN_TOKEN_LEN: usize = 16;

/// The largest token file read: a token with its newline is far smaller, and a larger
/// file is not a token file.
const MAX_TOKEN_FILE: u64 = 4096;

/// The bearer token clients must present. Only its BLAKE3 hash is kept: comparing
/// hashes with [`blake3::Hash`]'s `==`, which is constant-time, makes the check take
/// the same time wherever a wrong token differs from the right one, and whatever its
/// length.
pub struct Token(blake3::Hash);

impl Token {
    /// Checks a secret: at least [`MIN_TOKEN_LEN`] characters, all visible ASCII (it
    /// travels in an HTTP header, and a space would split it). Errors are worded for
    /// the user.
    pub fn new(secret: &str) -> Result<Token, String> {
        if secret.is_empty() {
            return Err("the bearer token is empty".into());
        }
        if !secret.bytes().all(|b| b.is_ascii_graphic()) {
            return Err("the bearer token must be visible ASCII characters, without spaces".into());
        }
        if secret.len() < MIN_TOKEN_LEN {
            return Err(format!(
                "the bearer token is too short ({} characters): use at least {MIN_TOKEN_LEN}, e.g. from `openssl rand -hex 32`",
                secret.len()
            ));
        }
        Ok(Token(blake3::hash(secret.as_bytes())))
    }

    /// A token as a file or a variable holds it: a final newline (how editors and
    /// `echo` end a file) is not part of what a client sends. `from` says where it came
    /// from, for the message.
    pub fn from_text(text: &str, from: &str) -> Result<Token, String> {
        let secret = text.strip_suffix('\n').unwrap_or(text);
        let secret = secret.strip_suffix('\r').unwrap_or(secret);
        Token::new(secret).map_err(|why| format!("{why} ({from})"))
    }

    /// Whether `headers` carry this token as `Authorization: Bearer TOKEN`.
    fn check(&self, headers: &HeaderMap) -> Admission {
        let Some(value) = headers.get(header::AUTHORIZATION) else {
            return Admission::NoToken;
        };
        // RFC 9110 §11.1: the scheme name is case-insensitive.
        let presented = value
            .as_bytes()
            .split_at_checked(7)
            .filter(|(scheme, _)| scheme.eq_ignore_ascii_case(b"bearer "))
            .map(|(_, rest)| rest.trim_ascii());
        match presented {
            Some(t) if blake3::hash(t) == self.0 => Admission::Admitted,
            Some(_) => Admission::WrongToken,
            None => Admission::NoToken,
        }
    }
}

/// What the token check says about a request.
pub enum Admission {
    Admitted,
    NoToken,
    WrongToken,
    /// The token file cannot be used now (removed, or replaced by one that is refused):
    /// no request gets in until it is fixed.
    Unusable,
}

/// The token in force: fixed (from `$CITE_MCP_TOKEN`), or the one its file holds now.
pub enum Tokens {
    Fixed(Token),
    File(TokenFile),
}

impl Tokens {
    /// Checks `headers` against the token in force, reading a replaced token file first.
    /// `log` gets a line when the file's token changes or the file becomes unusable.
    pub fn check(&self, headers: &HeaderMap, log: &dyn Fn(String)) -> Admission {
        match self {
            Tokens::Fixed(token) => token.check(headers),
            Tokens::File(file) => file.check(headers, log),
        }
    }
}

/// A token file, and what it held when last read.
pub struct TokenFile {
    path: PathBuf,
    loaded: Mutex<Loaded>,
}

struct Loaded {
    /// The file read, as `stat` told it apart: `None` when it could not be read.
    stamp: Option<Stamp>,
    /// Its token, or why it cannot be used.
    token: Result<Token, String>,
}

/// What changes when a file is replaced (a new inode) or rewritten in place (its size,
/// its modification and change times, to the nanosecond).
#[derive(Clone, Copy, PartialEq, Eq)]
struct Stamp([i64; 7]);

impl Stamp {
    fn of(meta: &std::fs::Metadata) -> Stamp {
        // Bit patterns, not values: only equality matters.
        Stamp([
            meta.dev() as i64,
            meta.ino() as i64,
            meta.size() as i64,
            meta.mtime(),
            meta.mtime_nsec(),
            meta.ctime(),
            meta.ctime_nsec(),
        ])
    }
}

impl TokenFile {
    /// Reads the token file at start; an error is the reason to refuse to start.
    pub fn open(path: &Path) -> Result<TokenFile, String> {
        let (stamp, token) = read_token_file(path)?;
        Ok(TokenFile {
            path: path.to_path_buf(),
            loaded: Mutex::new(Loaded {
                stamp: Some(stamp),
                token: Ok(token),
            }),
        })
    }

    /// A `stat` per request finds a replaced file; only then is it read again. A file
    /// that cannot be used is checked again at every request, so a fix takes effect at
    /// once.
    fn check(&self, headers: &HeaderMap, log: &dyn Fn(String)) -> Admission {
        // A poisoned lock only means a panic elsewhere mid-check; what it holds is whole.
        let mut loaded = self.loaded.lock().unwrap_or_else(|e| e.into_inner());
        let now = std::fs::metadata(&self.path).ok().map(|m| Stamp::of(&m));
        if now.is_none() || now != loaded.stamp {
            self.reload(&mut loaded, log);
        }
        match &loaded.token {
            Ok(token) => token.check(headers),
            Err(_) => Admission::Unusable,
        }
    }

    fn reload(&self, loaded: &mut Loaded, log: &dyn Fn(String)) {
        let shown = self.path.display();
        match read_token_file(&self.path) {
            Ok((stamp, token)) => {
                let changed = match &loaded.token {
                    Ok(old) => old.0 != token.0,
                    Err(_) => true,
                };
                if changed {
                    log(format!(
                        "cite mcp: the token file {shown} changed: its token is in use from now on"
                    ));
                }
                *loaded = Loaded {
                    stamp: Some(stamp),
                    token: Ok(token),
                };
            }
            Err(why) => {
                if loaded.token.as_ref().err() != Some(&why) {
                    log(format!(
                        "cite mcp: {why} — every request is refused until the token file is fixed"
                    ));
                }
                *loaded = Loaded {
                    stamp: None,
                    token: Err(why),
                };
            }
        }
    }
}

/// Reads and checks a token file (see the module comment); returns its stamp and token.
fn read_token_file(path: &Path) -> Result<(Stamp, Token), String> {
    let shown = path.display();
    let unreadable = |e: &std::io::Error| cite_ledger::input::unreadable(path, e).to_string();
    // Looked at before it is opened: opening a device can act on it.
    let meta = std::fs::metadata(path).map_err(|e| unreadable(&e))?;
    check_token_file(path, &meta)?;
    let fd = rustix::fs::open(
        path,
        OFlags::RDONLY | OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::CLOEXEC,
        Mode::empty(),
    )
    .map_err(|e| unreadable(&e.into()))?;
    let file = std::fs::File::from(fd);
    // Checked again on what was opened: the path may name another file by now.
    let meta = file.metadata().map_err(|e| unreadable(&e))?;
    check_token_file(path, &meta)?;
    if meta.len() > MAX_TOKEN_FILE {
        return Err(format!(
            "the token file {shown} is larger than {MAX_TOKEN_FILE} bytes: it must hold the token alone"
        ));
    }
    let mut text = String::new();
    file.take(MAX_TOKEN_FILE)
        .read_to_string(&mut text)
        .map_err(|e| unreadable(&e))?;
    let token = Token::from_text(&text, &format!("in {shown}"))?;
    Ok((Stamp::of(&meta), token))
}

/// Refuses a token file that is not a regular file of this user's, closed to others.
fn check_token_file(path: &Path, meta: &std::fs::Metadata) -> Result<(), String> {
    let shown = path.display();
    if !meta.is_file() {
        return Err(format!(
            "the token file {shown} is not a regular file ({}): give a file holding the token alone",
            cite_ledger::file_kind(meta)
        ));
    }
    let me = rustix::process::geteuid().as_raw();
    if meta.uid() != me {
        return Err(format!(
            "the token file {shown} belongs to another user (uid {}): the user who runs cite mcp must own it",
            meta.uid()
        ));
    }
    let mode = meta.mode() & 0o777;
    let open_to = |read: u32, write: u32| {
        if mode & read != 0 {
            Some("readable")
        } else if mode & write != 0 {
            Some("writable")
        } else {
            None
        }
    };
    let problem = match (open_to(0o004, 0o002), open_to(0o040, 0o020)) {
        (Some(how), _) => format!("{how} by other users"),
        (None, Some(how)) => format!("{how} by its group"),
        (None, None) => return Ok(()),
    };
    Err(format!(
        "the token file {shown} is {problem} (mode {mode:03o}): run `chmod 600 {shown}`"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use hyper::header::HeaderValue;

    fn headers(authorization: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(
            header::AUTHORIZATION,
            HeaderValue::from_str(authorization).unwrap(),
        );
        h
    }

    const SECRET: &str = "0123456789abcdef0123";

    #[test]
    fn the_token_is_checked_whole_and_the_scheme_in_any_case() {
        let token = Token::new(SECRET).unwrap();
        let admitted = |a: &str| matches!(token.check(&headers(a)), Admission::Admitted);
        assert!(admitted(&format!("Bearer {SECRET}")));
        assert!(admitted(&format!("bearer {SECRET}")));
        assert!(admitted(&format!("BEARER  {SECRET} ")));
        assert!(!admitted(&format!("Bearer {SECRET}x")));
        assert!(!admitted(&format!("Bearer {}", &SECRET[1..])));
        assert!(!admitted(&format!("Basic {SECRET}")));
        assert!(!admitted(SECRET));
        assert!(!admitted("Bearer"));
        assert!(matches!(token.check(&HeaderMap::new()), Admission::NoToken));
        assert!(matches!(
            token.check(&headers("Bearer wrong-token-0000000000")),
            Admission::WrongToken
        ));
    }

    #[test]
    fn weak_tokens_are_refused() {
        assert_eq!(Token::new("").err().unwrap(), "the bearer token is empty");
        assert!(
            Token::new("short")
                .err()
                .unwrap()
                .contains("too short (5 characters)")
        );
        assert!(
            Token::new("0123456789 abcdef")
                .err()
                .unwrap()
                .contains("without spaces")
        );
        assert!(
            Token::new("0123456789abcdé0")
                .err()
                .unwrap()
                .contains("visible ASCII")
        );
        assert!(Token::new(&"x".repeat(MIN_TOKEN_LEN)).is_ok());
    }

    #[test]
    fn a_final_newline_is_not_part_of_the_token() {
        for text in [
            SECRET.to_string(),
            format!("{SECRET}\n"),
            format!("{SECRET}\r\n"),
        ] {
            let token = Token::from_text(&text, "in f").unwrap();
            assert_eq!(token.0, blake3::hash(SECRET.as_bytes()), "{text:?}");
        }
        assert_eq!(
            Token::from_text("\n", "in f").err().unwrap(),
            "the bearer token is empty (in f)"
        );
    }
}
