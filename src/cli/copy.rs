//! `cite copy FROM TO`: copy a ledger between places and backends (a redb file, a
//! PostgreSQL database), then audit the copy.

use std::ffi::OsString;

use super::audit::{plural, report_verdict};
use super::{CliError, Env};
use cite_ledger::Ledger;
use cite_ledger::Location;

pub const AFTER_HELP: &str = "\
FROM and TO are each a ledger file path or a PostgreSQL URL
(postgres://USER[:PASSWORD]@HOST[:PORT]/DBNAME). TO must hold no record yet: a new
file, or an empty database. The log is copied byte for byte, so the hash chain and
`export --format jsonl` are the same in both; the tables are recomputed from it, and
the copy is audited. --ledger is not used.

Examples:
  cite copy ledger.redb postgres://cite@db.internal/research
  cite copy postgres://cite@db.internal/research backup.redb";

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The ledger to copy (a file path or a postgres:// URL)
    from: OsString,
    /// Where to copy it: a new file, or an empty PostgreSQL database
    to: OsString,
}

fn location(arg: &OsString) -> Result<Location, CliError> {
    super::parse_location(arg)
}

pub fn run(env: &mut Env<'_>, args: &Args) -> Result<(), CliError> {
    let wait = env.ledger.wait();
    let from = Ledger::new(location(&args.from)?, wait);
    let to = Ledger::new(location(&args.to)?, wait);
    if from.location() == to.location() {
        return Err(CliError::usage("FROM and TO are the same ledger").hint("name another TO"));
    }
    let copied = from.copy_to(&to)?;
    writeln!(
        env.out,
        "copied {} ({}, {}, {}, {}) from {} to {}",
        plural(copied.records, "record"),
        plural(copied.epochs, "epoch"),
        plural(copied.sources, "source"),
        plural(copied.quotes, "quote"),
        plural(copied.snapshots, "snapshot"),
        from.location(),
        to.location(),
    )?;
    report_verdict(env, &copied.audit, false)
}
