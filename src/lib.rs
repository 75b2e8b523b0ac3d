//! `cite`: a citation ledger for grounded answers and reports.
//!
//! Every source URL is registered at retrieval time and handed a small integer id that
//! never changes; the writer cites `[3]`, and the ledger owns the URL. The ledger is an
//! embedded redb database holding an append-only, hash-chained event log and the tables
//! materialized from it, shared safely by several processes.
//!
//! Layers, with data flowing one way: [`cli`] (arguments, output, exit codes) and
//! [`mcp`] (the same operations as MCP tools, worded as the CLI words them) →
//! [`ledger`] (operations) → [`store`] (tables, events, locking). [`render`] formats
//! domain values as text and knows nothing of the store; [`interop`] does the same for
//! the formats `export` writes (CSL-JSON, BibLaTeX, RIS, `sources.py`, the log as JSONL).
//! [`hook`] reads the payloads agents hand their hooks (pure, like [`draft`]).

pub mod app;
pub mod cli;
pub mod draft;
pub mod evidence;
pub mod hook;
pub mod input;
pub mod interop;
pub mod ledger;
pub mod mcp;
pub mod render;
pub mod rewrite;
pub mod store;
pub mod tex;
pub mod text;

pub use ledger::{AddRequest, Context, Error, Ledger, Source};
