//! The lines `verify` prints: stats, evidence quotes, warnings, failures, the verdict.

use crate::draft::Verification;

/// One line of the report; `failure` lines go to stderr in the CLI, the rest to stdout.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    pub text: String,
    pub failure: bool,
}

/// The report as lines, in the order the CLI prints them: `info: stats: …`, the other
/// `info:` lines, `info: evidence [N]: "…"`, `warn: …`, `FAIL: …`, then `citations OK` or
/// `verification failed`. Made one at a time, so a report of many findings is not held
/// twice.
pub fn lines(v: &Verification) -> impl Iterator<Item = Line> + '_ {
    let out = |text: String| Line {
        text,
        failure: false,
    };
    let report = &v.report;
    let evidence = v.evidence.iter().flat_map(move |e| {
        e.quotes.iter().map(move |q| {
            // One line per quote, whatever line breaks the page had.
            let q = q.split_whitespace().collect::<Vec<_>>().join(" ");
            out(format!("info: evidence [{}]: \"{q}\"", e.id))
        })
    });
    let info = report.info.iter().map(move |i| out(format!("info: {i}")));
    let warnings = report
        .warnings
        .iter()
        .map(move |w| out(format!("warn: {w}")));
    let errors = report.errors.iter().map(|e| Line {
        text: format!("FAIL: {e}"),
        failure: true,
    });
    let verdict = if v.passed() {
        "citations OK"
    } else {
        "verification failed"
    };
    std::iter::once(out(format!("info: {}", report.stats)))
        .chain(info)
        .chain(evidence)
        .chain(warnings)
        .chain(errors)
        .chain(std::iter::once(out(verdict.to_string())))
}
