//! `cite report DRAFT [-o report.html]`: the draft and the chain behind it as one
//! self-contained HTML page for the person who checks it (issue 22) — every sentence
//! marked by what `verify` found, every citation a link to its source's card, the
//! quotes in their page's words. The page is [`cite_core::render::report`]'s, from what
//! [`cite_ledger::app::html`] gathers.
//!
//! The report is written, and the command exits 0, whatever `verify` finds: the page
//! shows the findings, and a failing draft is exactly what a reviewer wants to look at.
//! Its verdict is printed; `cite verify` is the gate.

use std::path::PathBuf;

use cite_core::draft::{Advice, VerifyOptions};
use cite_ledger::app::{Input, Reading, html};
use time::format_description::well_known::Rfc3339;

use super::convert::refuse_draft_or_ledger;
use super::{CliError, Env};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The draft to report on (`-` reads it from stdin)
    draft: PathBuf,
    /// Write the HTML to this file (replaced atomically) instead of stdout
    #[arg(long, short = 'o', value_name = "FILE")]
    output: Option<PathBuf>,
    /// Leave out the check of each cited sentence's figures, dates and quoted phrases
    /// against its pages (`verify --support`, done by default)
    #[arg(long)]
    no_support: bool,
    /// Judge the draft as `verify --strict` does: warnings fail it
    #[arg(long)]
    strict: bool,
    /// Judge it as `verify --min-coverage F` does
    #[arg(long, value_name = "F")]
    min_coverage: Option<f64>,
    /// Judge it as `verify --evidence` does: every cited source needs a quote
    #[arg(long)]
    evidence: bool,
    /// Read this epoch instead of the current one
    #[arg(long, value_name = "N")]
    epoch: Option<u64>,
}

pub fn run(env: &mut Env<'_>, args: &Args) -> Result<(), CliError> {
    cite_ledger::app::check_min_coverage("--min-coverage", args.min_coverage)?;
    let output = args.output.as_deref().filter(|p| p.as_os_str() != "-");
    if let Some(out) = output {
        let hint = "write the report to another file, e.g. -o report.html";
        refuse_draft_or_ledger(env, &args.draft, "-o", out, "report", hint, hint)?;
    }
    let text = Input::arg(&args.draft).read(Reading::Draft)?;
    let view = env.ledger.view(args.epoch)?;
    let ledger = env.ledger.location().to_string();
    let opts = VerifyOptions {
        strict: args.strict,
        min_coverage: args.min_coverage,
        evidence: args.evidence,
        support: !args.no_support,
        draft: Some(args.draft.clone()),
        ledger: Some(ledger.clone()),
        advice: Advice::Shell,
    };
    let name = args.draft.display().to_string();
    let command = verify_command(&name, args);
    let made = env
        .ctx
        .now
        .format(&Rfc3339)
        .unwrap_or_else(|_| env.ctx.now.to_string());
    let request = html::Request {
        name: &name,
        text: &text,
        opts,
        ledger: &ledger,
        made: &made,
        command: &command,
    };
    let (page, verified, verdict) = html::html(&view, &request)?;
    match output {
        None => {
            env.out.write_all(page.as_bytes())?;
            super::note(env, Some(format!("report of {name}: {verdict}")))
        }
        Some(path) => {
            cite_ledger::rewrite::write_atomically(path, "write", |out| {
                out.write_all(page.as_bytes()).map_err(CliError::from)
            })?;
            writeln!(
                env.out,
                "wrote {} ({} bytes): {verdict}; {}",
                path.display(),
                page.len(),
                verified.report.stats
            )?;
            Ok(())
        }
    }
}

/// The `verify` command whose verdict the report shows.
fn verify_command(name: &str, args: &Args) -> String {
    let mut cmd = format!("cite verify {name}");
    if !args.no_support {
        cmd.push_str(" --support");
    }
    if args.strict {
        cmd.push_str(" --strict");
    }
    if let Some(f) = args.min_coverage {
        cmd.push_str(&format!(" --min-coverage {f}"));
    }
    if args.evidence {
        cmd.push_str(" --evidence");
    }
    if let Some(e) = args.epoch {
        cmd.push_str(&format!(" --epoch {e}"));
    }
    cmd
}
