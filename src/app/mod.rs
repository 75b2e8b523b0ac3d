//! The application layer, below both front ends (`cli` and `mcp`) and above the ledger,
//! the draft analysis and the renderers: what a command or a tool call does between its
//! arguments and its output, written once.
//!
//! - [`failure`]: the one failure type — its kind (usage, failed, internal, a verdict
//!   already printed, a broken pipe), the problem and the hints as separate fields — and
//!   how each front end shows it (an exit code for the CLI, `isError` for MCP).
//! - [`report`]: the Sources block and the `verify` report gathered from a ledger view.
//! - [`check_min_coverage`]: the one rule for a coverage threshold.

pub mod failure;
pub mod report;

pub use failure::{Failure, Kind};

/// Refuses a coverage threshold that is not a share between 0 and 1; `name` is how the
/// caller spells it (`--min-coverage`, `min_coverage`).
pub fn check_min_coverage(name: &str, value: Option<f64>) -> Result<(), Failure> {
    match value {
        Some(f) if !(0.0..=1.0).contains(&f) => Err(Failure::usage(format!(
            "{name} {f} is not a share between 0 and 1 (e.g. 0.6)"
        ))),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_threshold_outside_0_to_1_is_a_usage_failure() {
        assert_eq!(check_min_coverage("min_coverage", Some(0.6)), Ok(()));
        assert_eq!(check_min_coverage("min_coverage", None), Ok(()));
        let f = check_min_coverage("--min-coverage", Some(1.5)).unwrap_err();
        assert_eq!(f.kind, Kind::Usage);
        assert_eq!(
            f.to_string(),
            "error: --min-coverage 1.5 is not a share between 0 and 1 (e.g. 0.6)"
        );
    }
}
