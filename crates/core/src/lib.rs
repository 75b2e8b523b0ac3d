//! cite's pure core: everything that is text in, text out, with no store.
//!
//! - [`draft`]: what a draft cites, which sentences declare provenance, and whether what
//!   it shows the reader as sources agrees with the ledger (the `verify` rules);
//! - [`evidence`]: whether a quote is on a page, and where;
//! - [`support`]: whether the pages a sentence cites have its figures, dates, quoted
//!   phrases and names (`verify --support`);
//! - [`url`]: URL canonicalization, the one rule for "the same page";
//! - [`model`]: the values the ledger hands out (sources, quotes, log entries);
//! - [`render`]: those values as the lines the commands print, and the Sources block;
//! - [`interop`]: the export formats (CSL-JSON, BibLaTeX, RIS, `sources.py`, the log);
//! - [`tex`], [`text`]: escaping for TeX, word counts, quoting for messages.
//!
//! The ledger comes into [`draft`] as a trait ([`draft::LedgerFacts`]) and into the
//! renderers as [`model`] values, so this crate depends on neither the store nor the
//! ledger: the compiler keeps draft analysis away from the store.

pub mod draft;
pub mod evidence;
pub mod interop;
pub mod model;
pub mod render;
pub mod support;
pub mod tex;
pub mod text;
pub mod url;
