//! Issue 23, item 3: every wait on the network bounded by `--wait`. These need no
//! PostgreSQL server: the peer is a listener of the test's own.
//!
//! Bounds on time here only say that nothing hung: they are several times what the code
//! needs.

use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::util::{Outcome, cite_bin};

/// Past `--wait`, what a command may take and still count as having stopped in time:
/// process start, and a loaded machine.
const MARGIN: Duration = Duration::from_secs(5);

/// A server that accepts TCP and never says a word: the port, and the sockets it holds
/// open (dropped with the test).
fn mute_server() -> (u16, Arc<Mutex<Vec<TcpStream>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("address").port();
    let held = Arc::new(Mutex::new(Vec::new()));
    let keep = Arc::clone(&held);
    std::thread::spawn(move || {
        for s in listener.incoming().flatten() {
            keep.lock().expect("sockets").push(s);
        }
    });
    (port, held)
}

/// A server that accepts TCP and never answers the login is given up within `--wait`,
/// as one out of reach: exit 1, one line that says so, and no password shown. The
/// driver's connect timeout had covered only the TCP connect: `cite --wait 2 list`
/// waited without bound.
#[test]
fn a_server_that_never_answers_the_login_is_given_up_within_the_wait() {
    let (port, _held) = mute_server();
    let dir = tempfile::tempdir().unwrap();
    let ledger = format!("postgres://cite:s3cret@127.0.0.1:{port}/ledger");
    for args in [
        &["--wait", "2", "list"][..],
        &["--wait", "2", "add", "https://a.example"],
    ] {
        let started = Instant::now();
        let out = cite_bin()
            .current_dir(dir.path())
            .arg("--ledger")
            .arg(&ledger)
            .args(args)
            .timeout(Duration::from_secs(60))
            .output()
            .expect("run cite");
        let o = Outcome::from_output(out, started.elapsed());
        assert_eq!(o.code, 1, "{args:?}: {o:?}");
        let line = o.stderr.trim_end();
        assert!(
            line.starts_with("error: cannot reach the PostgreSQL server"),
            "{line}"
        );
        assert!(line.contains("no answer to the login within 2 s"), "{line}");
        assert!(!line.contains('\n') && !line.contains("s3cret"), "{line}");
        let bound = Duration::from_secs(2) + MARGIN;
        assert!(
            o.took < bound,
            "{args:?} took {:?}, more than {bound:?}",
            o.took
        );
    }
}
