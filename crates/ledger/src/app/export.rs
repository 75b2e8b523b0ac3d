//! What `export` does between its arguments and its output: which sources it takes, what
//! it refuses, and the writing itself. The CLI calls these, and an MCP `export` tool
//! would call the same, so both select, refuse and write alike.
//!
//! A selection is [`report::selection`]'s, the one `render` uses: the ids a draft cites,
//! narrowed by an id list, or the id list alone; an id the ledger lacks is a failure
//! naming it, never dropped. `jsonl` takes no selection and no epoch: it is the whole
//! log, whose hash chain runs through every record of every epoch, so no part of it
//! could be checked on its own.

use std::collections::BTreeSet;
use std::io::Write;

use super::{Failure, report};
use crate::{SourceEntry, View};
use cite_core::draft::Advice;
use cite_core::interop::{self, Format};

/// What `export` says when a selection takes no source.
pub const NOTHING_TO_EXPORT: &str = "no sources to export";

/// Refuses to narrow [`Format::Jsonl`]: `narrowing` is how the caller spells the first
/// parameter given that would (`--epoch`, `--only`, `--cited-in`).
pub fn check_whole_log(format: Format, narrowing: Option<&str>) -> Result<(), Failure> {
    match (format, narrowing) {
        (Format::Jsonl, Some(name)) => Err(whole_log_only(name)),
        _ => Ok(()),
    }
}

/// The usage failure of narrowing `jsonl` with `name`.
fn whole_log_only(name: &str) -> Failure {
    Failure::usage(format!(
        "{name} does not apply to --format jsonl, which exports the whole log (its hash chain runs through every record of every epoch)"
    ))
    .hint("export a selection as csl-json, biblatex, ris or hermes-json")
}

/// The id ranges an export takes (`None`: every source), checked as
/// [`report::selection`] checks them; a selection that takes no source (a draft that
/// cites none) is a failure, so that nothing is written.
pub fn selection(
    view: &View,
    only: Option<&report::Only>,
    cited: Option<&BTreeSet<u64>>,
    advice: Advice,
    ledger: &str,
) -> Result<Option<Vec<(u64, u64)>>, Failure> {
    let picked = report::selection(view, only, cited, advice, ledger)?;
    if picked.as_ref().is_some_and(Vec::is_empty) {
        return Err(Failure::failed(NOTHING_TO_EXPORT));
    }
    Ok(picked)
}

/// Writes `format` of `view` to `out`: the sources of `picked` (a [`selection`]; every
/// source of the epoch when `None`), streamed, or for [`Format::Jsonl`] the whole log.
/// Returns how many sources, or records of the log, were written.
pub fn write(
    view: &View,
    format: Format,
    picked: Option<&[(u64, u64)]>,
    out: &mut dyn Write,
) -> Result<u64, Failure> {
    match (format, picked) {
        (Format::Jsonl, None) => {
            interop::jsonl::write(out, view.chain()?.map(|r| r.map_err(Failure::from)))
        }
        (Format::Jsonl, Some(_)) => Err(whole_log_only("a selection")),
        (f, None) => interop::write_sources(
            f,
            out,
            view.source_entries()?.map(|r| r.map_err(Failure::from)),
        ),
        (f, Some(ranges)) => interop::write_sources(f, out, entries_in(view, ranges)),
    }
}

/// The sources of `ranges`, in order, streamed range by range.
fn entries_in<'v>(
    view: &'v View,
    ranges: &'v [(u64, u64)],
) -> impl Iterator<Item = Result<SourceEntry, Failure>> + 'v {
    ranges.iter().flat_map(move |&(lo, hi)| {
        let range: Box<dyn Iterator<Item = Result<SourceEntry, Failure>> + 'v> =
            match view.source_entries_between(lo, hi) {
                Ok(entries) => Box::new(entries.map(|r| r.map_err(Failure::from))),
                Err(e) => Box::new(std::iter::once(Err(e.into()))),
            };
        range
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::Kind;

    #[test]
    fn jsonl_refuses_to_be_narrowed_and_the_rest_do_not() {
        let f = check_whole_log(Format::Jsonl, Some("--only")).unwrap_err();
        assert_eq!(f.kind, Kind::Usage);
        assert_eq!(
            f.to_string(),
            "error: --only does not apply to --format jsonl, which exports the whole log (its hash chain runs through every record of every epoch) — export a selection as csl-json, biblatex, ris or hermes-json"
        );
        assert_eq!(check_whole_log(Format::Jsonl, None), Ok(()));
        for f in [
            Format::HermesJson,
            Format::CslJson,
            Format::Biblatex,
            Format::Ris,
        ] {
            assert_eq!(check_whole_log(f, Some("--only")), Ok(()));
        }
    }
}
