//! `cite verify DRAFT`: check a draft's citations, Sources block, coverage and evidence
//! against the ledger.

use std::path::PathBuf;

use cite_core::draft::{Advice, VerifyOptions};
use cite_core::render;
use cite_ledger::app::{Input, Reading, report};

use super::{CliError, Env};

/// Shown under `cite verify --help`: the markers are the one thing a writer must know
/// that no flag names.
pub const AFTER_HELP: &str = "\
Markers declare where a sentence's claim comes from; put them right after the sentence's
punctuation, no space before, each in its own brackets (`…liquid water.[1][2]`):
  [N]             a source the ledger handed out (`cite add` and `cite ingest` print ids)
  [tool:NAME]     checked by running a tool, e.g. [tool:python]
  [policy]        a statement of policy, not a factual claim
  [unverified]    from model knowledge, not sourced (say so in the summary if many)
Coverage (--min-coverage) is the share of prose sentences with any of them.

A citation glued to a word (`carmakers[7].`) is still a citation — the reader sees it — so it
is checked and counted, with a warning to write `carmakers.[7]`.

Fails (exit 1) on ids that are not in the ledger, a missing or stale Sources block (fix:
`cite render --replace-in DRAFT`), coverage below --min-coverage, and with --evidence a
cited source without a quote (`cite quote ID --text … --from PAGE`). --strict also fails on
every warning about the draft (each printed as a FAIL line too); ledger sources the draft
does not cite are information, not warnings. Exit 2: no such draft. DRAFT `-` is stdin.

--support reads each cited sentence for its figures (9%, 9 percent, nine percent, 2.5 billion,
$5bn, 1,000, 85–90°F), dates (2024-03-15, March 15, 2024, 15.03.2024, March 2024, a year) and
\"quoted phrases\", and fails each one none of the pages it cites has, naming what the page
has instead. The pages are the stored page texts (`cite add URL --snapshot PAGE`, `cite quote
… --from PAGE`, `cite ingest`) and quotes of the cited ids. Names no cited page uses are
warnings, and so are sentences whose sources have no page text (not checked). It checks
words, not meaning: a negation, or a figure the page has in another sense, passes.

Table rows that cite are checked too (coverage does not count them); the figures of a
sentence that also names a tool (`…[1][tool:python]`) are the tool's: counted, not checked.
A finding about a sentence names it after its line: `(line 13) in sentence 4: \"…\"`, and
`--json` gives its `sentences` (index from 0, text). A document made by `cite convert --to
pandoc` is checked as its draft: its `[@sourceN]` citations and the bibliography its front
matter names need no Sources block.";

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The draft to check (`-` reads it from stdin)
    draft: PathBuf,
    /// Treat warnings as failures
    #[arg(long)]
    strict: bool,
    /// Required share of prose sentences with declared provenance, e.g. 0.5
    #[arg(long, value_name = "F")]
    min_coverage: Option<f64>,
    /// Require every cited source to carry at least one verbatim quote
    #[arg(long)]
    evidence: bool,
    /// Check that every figure, date and quoted phrase of a cited sentence is on a page
    /// it cites (its stored page text or quotes); names on none are warnings
    #[arg(long)]
    support: bool,
    /// Read this epoch instead of the current one
    #[arg(long, value_name = "N")]
    epoch: Option<u64>,
    /// Print the whole report as one JSON object
    #[arg(long)]
    json: bool,
}

pub fn run(env: &mut Env<'_>, args: &Args) -> Result<(), CliError> {
    cite_ledger::app::check_min_coverage("--min-coverage", args.min_coverage)?;
    let text = Input::arg(&args.draft).read(Reading::Draft)?;
    let view = env.ledger.view(args.epoch)?;
    let opts = VerifyOptions {
        strict: args.strict,
        min_coverage: args.min_coverage,
        evidence: args.evidence,
        support: args.support,
        draft: Some(args.draft.clone()),
        ledger: Some(env.ledger.location().to_string()),
        advice: Advice::Shell,
    };
    let verified = report::verify(&view, &text, &opts)?;
    if args.json {
        serde_json::to_writer_pretty(&mut *env.out, &verified).map_err(std::io::Error::from)?;
        writeln!(env.out)?;
    } else {
        let mut flushed = false;
        for line in render::verify::lines(&verified) {
            if line.failure {
                // Stdout so far first, so a terminal shows the lines in order.
                if !flushed {
                    env.out.flush()?;
                    flushed = true;
                }
                eprintln!("{}", line.text);
            } else {
                writeln!(env.out, "{}", line.text)?;
            }
        }
    }
    if verified.passed() {
        Ok(())
    } else {
        // The verdict is printed above.
        Err(CliError::reported())
    }
}
