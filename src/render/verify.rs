//! The lines `verify` prints: stats, evidence quotes, warnings, failures, the verdict.

use crate::ledger::report::Verification;

/// One line of the report; `failure` lines go to stderr in the CLI, the rest to stdout.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    pub text: String,
    pub failure: bool,
}

/// The report as lines, in the order the CLI prints them: `info: stats: …`,
/// `info: evidence [N]: "…"`, `warn: …`, `FAIL: …`, then `citations OK` or
/// `verification failed`.
pub fn lines(v: &Verification) -> Vec<Line> {
    let out = |text: String| Line {
        text,
        failure: false,
    };
    let report = &v.report;
    let mut lines = vec![out(format!("info: {}", report.stats))];
    for e in &v.evidence {
        for q in &e.quotes {
            // One line per quote, whatever line breaks the page had.
            let q = q.split_whitespace().collect::<Vec<_>>().join(" ");
            lines.push(out(format!("info: evidence [{}]: \"{q}\"", e.id)));
        }
    }
    for w in &report.warnings {
        lines.push(out(format!("warn: {w}")));
    }
    for e in &report.errors {
        lines.push(Line {
            text: format!("FAIL: {e}"),
            failure: true,
        });
    }
    let verdict = if v.passed() {
        "citations OK"
    } else {
        "verification failed"
    };
    lines.push(out(verdict.to_string()));
    lines
}
