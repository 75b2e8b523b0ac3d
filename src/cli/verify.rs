//! `cite verify DRAFT`: check a draft's citations, Sources block, coverage and evidence
//! against the ledger.

use std::collections::{BTreeSet, HashMap};
use std::path::PathBuf;

use crate::draft::{self, LedgerFacts, VerifyOptions};
use crate::ledger::url::canonicalize;

use super::{CliError, Env};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The draft to check
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
    /// Read this epoch instead of the current one
    #[arg(long, value_name = "N")]
    epoch: Option<u64>,
    /// Print the whole report as one JSON object
    #[arg(long)]
    json: bool,
}

/// What verification needs to know of the ledger, read up front for the ids the draft
/// mentions only: a small draft against a large ledger reads a few rows, not all.
struct Facts {
    /// URL and quote count of each id the draft cites or lists, when it is in the ledger.
    by_id: HashMap<u64, (String, u64)>,
    ranges: Vec<(u64, u64)>,
    quoted: u64,
}

impl LedgerFacts for Facts {
    fn url(&self, id: u64) -> Option<String> {
        self.by_id.get(&id).map(|(u, _)| u.clone())
    }
    fn has_quotes(&self, id: u64) -> bool {
        self.by_id.get(&id).is_some_and(|&(_, q)| q > 0)
    }
    fn id_ranges(&self) -> Vec<(u64, u64)> {
        self.ranges.clone()
    }
    fn quoted_count(&self) -> usize {
        self.quoted as usize
    }
}

pub fn run(env: &mut Env<'_>, args: &Args) -> Result<(), CliError> {
    if let Some(f) = args.min_coverage
        && !(0.0..=1.0).contains(&f)
    {
        return Err(CliError::usage(format!(
            "--min-coverage {f} is not a share between 0 and 1 (e.g. 0.6)"
        )));
    }
    let text = match std::fs::read(&args.draft) {
        Ok(bytes) => String::from_utf8(bytes).map_err(|_| {
            CliError::usage(format!(
                "cannot read {}: it is not UTF-8 text",
                args.draft.display()
            ))
        })?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound || args.draft.is_dir() => {
            return Err(CliError::usage(format!(
                "no such draft: {}",
                args.draft.display()
            )));
        }
        Err(e) => return Err(CliError::unreadable(&args.draft, &e)),
    };
    let view = env.ledger.view(args.epoch)?;
    let analysis = draft::analyze(&text);
    let mentioned: BTreeSet<u64> = analysis
        .citations
        .iter()
        .map(|c| c.id)
        .chain(
            analysis
                .block
                .iter()
                .flat_map(|b| b.entries.iter().map(|e| e.id)),
        )
        .collect();
    let mut by_id = HashMap::new();
    for id in mentioned {
        if let Some(brief) = view.brief(id)? {
            by_id.insert(id, brief);
        }
    }
    let facts = Facts {
        by_id,
        ranges: view.id_ranges()?,
        quoted: view.quoted_count()?,
    };
    let opts = VerifyOptions {
        strict: args.strict,
        min_coverage: args.min_coverage,
        evidence: args.evidence,
    };
    let normalize = |u: &str| canonicalize(u).unwrap_or_else(|_| u.to_string());
    let report = draft::verify_analysis(&analysis, &facts, &opts, &normalize);

    // For each cited source, its quotes: what `--evidence` names.
    let evidence: Vec<(u64, Vec<String>)> = if args.evidence {
        let mut out = Vec::new();
        for id in draft::cited_ids(&text) {
            if facts.has_quotes(id) {
                let quotes = view.source(id)?.quotes.into_iter().map(|q| q.text);
                out.push((id, quotes.collect()));
            }
        }
        out
    } else {
        Vec::new()
    };
    if args.json {
        let mut json = serde_json::to_value(&report).map_err(std::io::Error::other)?;
        if args.evidence {
            json["evidence"] = evidence
                .iter()
                .map(|(id, quotes)| serde_json::json!({ "id": id, "quotes": quotes }))
                .collect();
        }
        let json = serde_json::to_string_pretty(&json).map_err(std::io::Error::other)?;
        writeln!(env.out, "{json}")?;
    } else {
        writeln!(env.out, "info: {}", report.stats)?;
        for (id, quotes) in &evidence {
            for q in quotes {
                // One line per quote, whatever line breaks the page had.
                let q = q.split_whitespace().collect::<Vec<_>>().join(" ");
                writeln!(env.out, "info: evidence [{id}]: \"{q}\"")?;
            }
        }
        for w in &report.warnings {
            writeln!(env.out, "warn: {}", draft::located(w))?;
        }
        env.out.flush()?;
        for e in &report.errors {
            eprintln!("FAIL: {}", draft::located(e));
        }
        let verdict = if report.exit_code == 0 {
            "citations OK"
        } else {
            "verification failed"
        };
        writeln!(env.out, "{verdict}")?;
    }
    if report.exit_code == 0 {
        Ok(())
    } else {
        Err(CliError {
            code: report.exit_code,
            message: String::new(),
        })
    }
}
