//! `cite audit`: check the hash chain, replay the log against the stored tables, and
//! re-check every quote and snapshot.

use cite_ledger::AuditReport;

use super::{CliError, Env};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Print the whole report as one JSON object
    #[arg(long)]
    json: bool,
}

pub fn run(env: &mut Env<'_>, args: &Args) -> Result<(), CliError> {
    let report = env.ledger.audit()?;
    report_verdict(env, &report, args.json)
}

/// Prints an audit report (as JSON with `json`); fails, exit 1, when it found problems.
pub(super) fn report_verdict(
    env: &mut Env<'_>,
    report: &AuditReport,
    json: bool,
) -> Result<(), CliError> {
    let report = report.clone();
    if json {
        let text = serde_json::to_string_pretty(&report).map_err(std::io::Error::other)?;
        writeln!(env.out, "{text}")?;
    } else if report.ok {
        writeln!(env.out, "{}", summary(&report))?;
        for note in &report.notes {
            writeln!(env.out, "note: {note}")?;
        }
    } else {
        for note in &report.notes {
            writeln!(env.out, "note: {note}")?;
        }
        env.out.flush()?;
        for p in &report.problems {
            eprintln!("FAIL: {p}");
        }
        if report.problems_omitted > 0 {
            let n = report.problems_omitted;
            eprintln!("FAIL: … and {n} more {}", noun(n, "problem"));
        }
        writeln!(env.out, "audit failed")?;
    }
    if report.ok {
        Ok(())
    } else {
        // The verdict is printed above.
        Err(CliError::reported())
    }
}

/// `audit OK: …`: what was checked.
pub(super) fn summary(r: &AuditReport) -> String {
    let Some(head) = &r.head else {
        return "audit OK: 0 records; the ledger is empty".to_string();
    };
    let mut line = format!(
        "audit OK: {}, hash chain intact to head {}…; {}, {}, {} re-checked against {}",
        plural(r.records, "record"),
        &head[..head.len().min(12)],
        plural(r.epochs, "epoch"),
        plural(r.sources, "source"),
        plural(r.quotes_rechecked, "quote"),
        plural(r.snapshots, "snapshot"),
    );
    if r.quotes_without_snapshot > 0 {
        let n = r.quotes_without_snapshot;
        line.push_str(&format!(
            " ({n} imported {} {} no page text)",
            noun(n, "quote"),
            if n == 1 { "has" } else { "have" }
        ));
    }
    line
}

/// `1 word`, `N words`.
pub(super) fn plural(n: u64, word: &str) -> String {
    format!("{n} {}", noun(n, word))
}

fn noun(n: u64, word: &str) -> String {
    if n == 1 {
        word.to_string()
    } else {
        format!("{word}s")
    }
}
