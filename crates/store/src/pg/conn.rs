//! A connection to PostgreSQL whose every wait has a deadline (issue 23, item 3).
//!
//! The blocking `postgres` crate has no deadline for a statement: a backend stopped with
//! SIGSTOP (its kernel still acknowledges, so neither keepalives nor `tcp_user_timeout`
//! fire) or a connection gone silent held cite without bound. So cite drives
//! `tokio-postgres` on a runtime of its own, one per connection, and bounds every call —
//! the login included — with a timer. A call that runs out of time leaves the connection
//! in an unknown state: it is closed (the server sees the socket go and rolls back, which
//! frees the writer lock), and the error says to retry.
//!
//! The methods are the ones of `postgres::Client` that cite uses, with the same
//! signatures, so the tables' code does not care which it is given.

use std::fmt;
use std::future::Future;
use std::time::{Duration, Instant};

use postgres::error::{DbError, SqlState};
use postgres::types::{ToSql, Type};
use postgres::{Row, SimpleQueryMessage};
use tokio::runtime::Runtime;
use tokio_postgres::Config;
use tokio_postgres::tls::{MakeTlsConnect, TlsConnect};

use super::tls::Tls;

/// Past `--wait`, what a statement is given before the connection counts as silent: the
/// server's own timeouts (`lock_timeout`, `statement_timeout`) are set to `--wait`, so
/// their clearer errors arrive first.
const GRACE: Duration = Duration::from_millis(500);

/// Bytes of SQL a server is trusted to take in per second on top of the wait: a bulk
/// write (a copy, an import) sends megabytes in one batch.
const BYTES_PER_SECOND: u64 = 1 << 20;

/// What went wrong with a call: the driver's error, or no answer in time.
#[derive(Debug)]
pub enum PgError {
    Driver(tokio_postgres::Error),
    /// No answer within this long; the connection is closed.
    NoAnswer(Duration),
    /// This process could not start the connection's runtime.
    Local(std::io::Error),
}

impl PgError {
    pub fn code(&self) -> Option<&SqlState> {
        match self {
            PgError::Driver(e) => e.code(),
            PgError::NoAnswer(_) | PgError::Local(_) => None,
        }
    }

    pub fn as_db_error(&self) -> Option<&DbError> {
        match self {
            PgError::Driver(e) => e.as_db_error(),
            PgError::NoAnswer(_) | PgError::Local(_) => None,
        }
    }

    /// Whether the connection is gone: lost, or closed by cite for want of an answer.
    pub fn is_closed(&self) -> bool {
        match self {
            PgError::Driver(e) => e.is_closed(),
            PgError::NoAnswer(_) => true,
            PgError::Local(_) => false,
        }
    }

    /// The driver's error, if any.
    pub fn driver(&self) -> Option<&tokio_postgres::Error> {
        match self {
            PgError::Driver(e) => Some(e),
            PgError::NoAnswer(_) | PgError::Local(_) => None,
        }
    }
}

impl fmt::Display for PgError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PgError::Driver(e) => e.fmt(f),
            PgError::NoAnswer(d) => write!(
                f,
                "no answer from the server within {} s (a stopped server or a silent network); the connection was closed",
                d.as_secs_f64()
            ),
            PgError::Local(e) => write!(f, "cannot start a connection: {e}"),
        }
    }
}

impl std::error::Error for PgError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            PgError::Driver(e) => std::error::Error::source(e),
            PgError::NoAnswer(_) | PgError::Local(_) => None,
        }
    }
}

impl From<tokio_postgres::Error> for PgError {
    fn from(e: tokio_postgres::Error) -> PgError {
        PgError::Driver(e)
    }
}

/// One connection, its runtime and its deadline per call.
pub struct Client {
    /// `None` once a call ran out of time: the connection is gone.
    live: Option<Live>,
    /// The longest a call waits for its answer, before its size is counted.
    wait: Duration,
    /// Settings of cite's session, sent with the first call rather than in a round trip
    /// of their own (the driver pipelines them).
    prelude: Option<String>,
    /// Since when a read-only transaction has been left open, to be ended by a ROLLBACK
    /// sent ahead of the next call (see [`Client::end_later`]).
    open_read: Option<Instant>,
    /// A setting every statement of the session depends on (a ledger's `search_path`),
    /// sent with the first call rather than in a round trip of its own, so that it fails
    /// that call when it fails (see [`Client::setup`]); kept until a call carrying it
    /// succeeds.
    setup: Option<String>,
}

/// SQL sent ahead of a call on the same trip.
struct Ahead {
    sql: String,
    /// Whether its failure fails the call: the ROLLBACK of a read must have ended that
    /// transaction before the next statement runs; the session's settings only bound it.
    required: bool,
}

struct Live {
    client: tokio_postgres::Client,
    /// Declared after the client: dropping the runtime drops the connection task, and
    /// with it the socket.
    runtime: Runtime,
}

impl Client {
    /// Logs in with `config` over `tls`, within `wait` in all; `prelude` is SQL run
    /// before the first statement.
    pub fn connect(
        config: &Config,
        tls: Tls,
        wait: Duration,
        prelude: String,
    ) -> Result<Client, PgError> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_io()
            .enable_time()
            .build()
            .map_err(PgError::Local)?;
        let client = match tls {
            Tls::Off => runtime.block_on(login(config, tokio_postgres::NoTls, wait))?,
            Tls::On(make) => runtime.block_on(login(config, make, wait))?,
        };
        Ok(Client {
            live: Some(Live { client, runtime }),
            wait,
            prelude: Some(prelude),
            open_read: None,
            setup: None,
        })
    }

    /// Makes `sql` (one `SET`) precede every statement of this session, at no round trip
    /// of its own. A statement that must not run without it never does:
    ///
    /// - a simple-protocol call (every write, every transaction's begin) carries it in
    ///   its own text, `SET …; COMMIT; <call>`: a failing `SET` stops the rest, and the
    ///   `COMMIT` ends the implicit transaction it ran in, so that a later `ROLLBACK` of
    ///   the call's own transaction cannot undo it;
    /// - a typed call (a read) has it sent ahead on the same trip, and its answer is
    ///   dropped, the call failed, when the `SET` failed.
    pub fn setup(&mut self, sql: String) {
        self.setup = Some(sql);
    }

    /// How long a statement of `bytes` bytes is given.
    fn limit(&self, bytes: usize) -> Duration {
        self.wait.max(Duration::from_secs(1))
            + GRACE
            + Duration::from_secs(u64::try_from(bytes).unwrap_or(u64::MAX) / BYTES_PER_SECOND)
    }

    /// The connection, taken out for one call (given back by [`Client::settle`]), and
    /// what is to be sent ahead of it: the session's settings if they have not been sent
    /// yet, the ROLLBACK of a read left open, and for a typed call the session's setup.
    fn lend(&mut self, bytes: usize, typed: bool) -> Result<(Live, Duration, Vec<Ahead>), PgError> {
        let limit = self.limit(bytes);
        let live = self.live.take().ok_or(PgError::NoAnswer(limit))?;
        let mut ahead = Vec::new();
        match (self.prelude.take(), self.open_read.take()) {
            (Some(prelude), None) => ahead.push(Ahead {
                sql: prelude,
                required: false,
            }),
            (Some(prelude), Some(_)) => ahead.push(Ahead {
                sql: format!("ROLLBACK; {prelude}"),
                required: true,
            }),
            (None, Some(_)) => ahead.push(Ahead {
                sql: "ROLLBACK".into(),
                required: true,
            }),
            (None, None) => {}
        }
        if typed && let Some(setup) = &self.setup {
            ahead.push(Ahead {
                sql: setup.clone(),
                required: true,
            });
        }
        Ok((live, limit, ahead))
    }

    /// `query` as a simple-protocol call sends it: after the session's setup while that
    /// is pending (see [`Client::setup`]).
    fn with_setup<'q>(&self, query: &'q str) -> std::borrow::Cow<'q, str> {
        match &self.setup {
            Some(setup) => format!("{setup}; COMMIT; {query}").into(),
            None => query.into(),
        }
    }

    /// Whether the setup is in place after a call that carried it. A typed call that
    /// succeeded had it succeed ahead of it; one that failed sends it again. A simple
    /// call's text ran from the `SET` on, up to its first error: the `SET` did run when
    /// the error is one it cannot raise (the writer lock busy, a conflict to retry);
    /// after any other error no one can tell, so the connection is closed rather than
    /// sent its next statement in a session that may lack its `search_path`, or sit in a
    /// transaction the `SET` of a resend could not run in.
    fn settled_setup<T>(&mut self, answer: &Result<T, PgError>, typed: bool) {
        if self.setup.is_none() {
            return;
        }
        let ran_past_setup = |e: &PgError| {
            matches!(
                e.code(),
                Some(&SqlState::LOCK_NOT_AVAILABLE)
                    | Some(&SqlState::T_R_SERIALIZATION_FAILURE)
                    | Some(&SqlState::T_R_DEADLOCK_DETECTED)
            )
        };
        match answer {
            Ok(_) => self.setup = None,
            Err(_) if typed => {}
            Err(e) if ran_past_setup(e) => self.setup = None,
            Err(_) => self.live = None,
        }
    }

    /// Leaves the read-only transaction open on this connection, to be ended by a
    /// ROLLBACK sent ahead of its next call on the same trip rather than in a round trip
    /// of its own; a connection dropped instead is closed, and the server ends the
    /// transaction with it. A read-only transaction has nothing to undo.
    pub fn end_later(&mut self) {
        self.open_read = Some(Instant::now());
    }

    /// Whether a read was left open on this connection for longer than the wait: the
    /// server ends a session idle in a transaction after about twice the wait
    /// (`idle_in_transaction_session_timeout`), so such a connection is not reused (and
    /// its snapshot not held long).
    pub fn is_stale(&self) -> bool {
        self.open_read
            .is_some_and(|since| since.elapsed() >= self.wait.max(Duration::from_secs(1)))
    }

    /// The answer of a call; the connection kept unless the call ran out of time: then
    /// the answer may still come, to a request no one waits for, so the connection is
    /// closed rather than reused out of step (the server sees the socket go and rolls
    /// back, which frees the writer lock). A call in the `typed` (extended) protocol or
    /// not: what it tells of the session's setup differs ([`Client::settled_setup`]).
    fn settle<T>(
        &mut self,
        live: Live,
        limit: Duration,
        answer: Option<Result<T, tokio_postgres::Error>>,
        typed: bool,
    ) -> Result<T, PgError> {
        let answer = match answer {
            Some(answer) => {
                self.live = Some(live);
                answer.map_err(PgError::Driver)
            }
            None => {
                drop(live);
                Err(PgError::NoAnswer(limit))
            }
        };
        self.settled_setup(&answer, typed);
        answer
    }

    pub fn query_typed(
        &mut self,
        query: &str,
        params: &[(&(dyn ToSql + Sync), Type)],
    ) -> Result<Vec<Row>, PgError> {
        let (live, limit, ahead) = self.lend(query.len(), true)?;
        let answer = drive(&live, limit, ahead, live.client.query_typed(query, params));
        self.settle(live, limit, answer, true)
    }

    pub fn query(
        &mut self,
        query: &str,
        params: &[&(dyn ToSql + Sync)],
    ) -> Result<Vec<Row>, PgError> {
        let (live, limit, ahead) = self.lend(query.len(), true)?;
        let answer = drive(&live, limit, ahead, live.client.query(query, params));
        self.settle(live, limit, answer, true)
    }

    pub fn simple_query(&mut self, query: &str) -> Result<Vec<SimpleQueryMessage>, PgError> {
        let query = self.with_setup(query);
        let (live, limit, ahead) = self.lend(query.len(), false)?;
        let answer = drive(&live, limit, ahead, live.client.simple_query(&query));
        self.settle(live, limit, answer, false)
    }

    pub fn batch_execute(&mut self, query: &str) -> Result<(), PgError> {
        let query = self.with_setup(query);
        let (live, limit, ahead) = self.lend(query.len(), false)?;
        let answer = drive(&live, limit, ahead, live.client.batch_execute(&query));
        self.settle(live, limit, answer, false)
    }

    /// `first` (extended protocol, typed, no parameters) and `then` (simple protocol)
    /// sent together, in one round trip; each has its own answer: an error of `first`
    /// does not stop `then`, each being a message of its own.
    #[allow(clippy::type_complexity)]
    pub fn query_typed_then_simple(
        &mut self,
        first: &str,
        then: &str,
    ) -> Result<
        (
            Result<Vec<Row>, PgError>,
            Result<Vec<SimpleQueryMessage>, PgError>,
        ),
        PgError,
    > {
        let (live, limit, ahead) = self.lend(first.len() + then.len(), true)?;
        let both = async {
            let (a, b) = join(
                live.client.query_typed(first, &[]),
                live.client.simple_query(then),
            )
            .await;
            Ok::<_, tokio_postgres::Error>((a.map_err(PgError::Driver), b.map_err(PgError::Driver)))
        };
        let answer = drive(&live, limit, ahead, both);
        self.settle(live, limit, answer, true)
    }

    pub fn is_closed(&self) -> bool {
        self.live.as_ref().is_none_or(|l| l.client.is_closed())
    }
}

/// Runs `call` on the connection's runtime, what is `ahead` sent before it in order (at
/// most two); `None` when no answer came within `limit`.
fn drive<T>(
    live: &Live,
    limit: Duration,
    ahead: Vec<Ahead>,
    call: impl Future<Output = Result<T, tokio_postgres::Error>>,
) -> Option<Result<T, tokio_postgres::Error>> {
    // Sent first, on the same trip: the driver queues requests in the order they are
    // first polled. The failure of the session's settings leaves cite without those
    // server-side bounds, not without its statement; that of a required ROLLBACK or
    // setup fails the call, whose statement may then have run inside the old
    // transaction or without its `search_path` (a read: its answer is dropped).
    let sent = |a: &Ahead, r: Result<(), tokio_postgres::Error>| match r {
        Err(e) if a.required => Err(e),
        _ => Ok(()),
    };
    live.runtime.block_on(async {
        let mut ahead = ahead.into_iter();
        match (ahead.next(), ahead.next()) {
            (None, _) => tokio::time::timeout(limit, call).await.ok(),
            (Some(a), None) => {
                tokio::time::timeout(limit, join(live.client.batch_execute(&a.sql), call))
                    .await
                    .ok()
                    .map(|(first, answer)| sent(&a, first).and(answer))
            }
            (Some(a), Some(b)) => {
                let both = join(
                    live.client.batch_execute(&a.sql),
                    live.client.batch_execute(&b.sql),
                );
                tokio::time::timeout(limit, join(both, call))
                    .await
                    .ok()
                    .map(|((first, second), answer)| {
                        sent(&a, first).and(sent(&b, second)).and(answer)
                    })
            }
        }
    })
}

/// Runs two futures at once, polling the first first, and gives both answers.
async fn join<A, B>(a: A, b: B) -> (A::Output, B::Output)
where
    A: Future,
    B: Future,
{
    let mut a = std::pin::pin!(a);
    let mut b = std::pin::pin!(b);
    let mut ra = None;
    let mut rb = None;
    std::future::poll_fn(|cx| {
        if ra.is_none()
            && let std::task::Poll::Ready(v) = a.as_mut().poll(cx)
        {
            ra = Some(v);
        }
        if rb.is_none()
            && let std::task::Poll::Ready(v) = b.as_mut().poll(cx)
        {
            rb = Some(v);
        }
        match (&ra, &rb) {
            (Some(_), Some(_)) => match (ra.take(), rb.take()) {
                (Some(x), Some(y)) => std::task::Poll::Ready((x, y)),
                _ => std::task::Poll::Pending,
            },
            _ => std::task::Poll::Pending,
        }
    })
    .await
}

/// The login, within `wait`, its connection task spawned on the current runtime.
async fn login<T>(
    config: &Config,
    tls: T,
    wait: Duration,
) -> Result<tokio_postgres::Client, PgError>
where
    T: MakeTlsConnect<tokio_postgres::Socket> + 'static + Send,
    T::TlsConnect: Send,
    T::Stream: Send + 'static,
    <T::TlsConnect as TlsConnect<tokio_postgres::Socket>>::Future: Send,
{
    let limit = wait.max(Duration::from_secs(1));
    let (client, connection) = tokio::time::timeout(limit, config.connect(tls))
        .await
        .map_err(|_| PgError::NoAnswer(limit))??;
    // Its end (an error, the server gone) shows as the client's calls failing closed.
    tokio::spawn(async move {
        let _ = connection.await;
    });
    Ok(client)
}
