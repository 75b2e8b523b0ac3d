//! `cite`: a citation ledger for grounded answers and reports — the command.
//!
//! Every source URL is registered at retrieval time and handed a small integer id that
//! never changes; the writer cites `[3]`, and the ledger owns the URL. This crate holds
//! the front ends, with data flowing one way: [`cli`] (arguments, output, exit codes),
//! [`mcp`] (the same operations as MCP tools) and [`hook`] (the payloads agents hand
//! their hooks) → [`cite_ledger`] (operations and the application layer) →
//! [`cite_store`](../cite_store/index.html) (the log, tables, locking). Draft analysis,
//! quote matching, rendering and the export formats are [`cite_core`], which knows
//! nothing of the store. ARCHITECTURE.md maps the crates.

pub mod cli;
pub mod hook;
pub mod mcp;
