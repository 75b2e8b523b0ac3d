//! The one integration-test binary. Each module covers one area; every test gets its own
//! temporary ledger through `util::Sandbox`.
//!
//! - `cli_register`: add, ingest, reset — output lines, JSON, errors, exit codes
//! - `cli_read`: list, log, show, epochs, ledger path rules, read-only behaviour
//! - `cli_quote`: quote — matching rules, evidence input, snapshots and selectors
//! - `page_words`: issue 20 — quotes as a reader sees an extracted page, and the page's
//!   own words stored for them
//! - `cli_render`: render — every style, `--only`, `--cited-in`, `--replace-in`, epochs
//! - `cli_verify`: verify — stats, errors and warnings in order, markers, JSON, odd input
//! - `convert`: issue 22 — `convert --to pandoc`, `verify` on `[@sourceN]`, the
//!   document typeset by pandoc `--citeproc` to docx and HTML
//! - `report`: issue 22 — `report DRAFT`: the HTML page's statuses, citation links,
//!   cards, escaping, policy and exit codes; the page in headless Chromium
//! - `import`: import of sources.py ledgers — ids, quotes, refusals, all-or-nothing
//! - `export`: every export format's shape, the jsonl chain, round trip, pandoc
//! - `bad_state`: foreign files, damaged stores, unreadable input
//! - `prop_url`: property tests of canonicalization and registration
//! - `golden`: byte fixtures of every released event shape
//! - `model`: random operation sequences against an in-memory model
//! - `compat`: a ledger written by format version 1 still reads; newer formats are refused
//! - `concurrency`: many real processes writing one ledger
//! - `lock`: bounded waits and the exclusive maintenance lock
//! - `mcp`: `cite mcp` spoken to over stdio, and shared with CLI writers
//! - `mcp_group`: the server's kept store and group commit, with CLI writers, rebuild and
//!   a ledger moved into place
//! - `mcp_http`: `cite mcp --http` over Streamable HTTP: the token, origins, same answers
//!   as stdio
//! - `crash`: writers killed with SIGKILL mid-write
//! - `audit`: audit on sound, rebuilt and damaged stores
//! - `audit_disk`: issue 24 — audit on a full disk (a tmpfs in a private mount namespace)
//! - `rebuild`: rebuilt stores answer as before; the exclusive lock
//! - `crash_loop`: a writer killed at random moments, many times
//! - `tex`: issue 12 — the BibTeX and BibLaTeX outputs typeset by lualatex + biber and
//!   pdflatex + bibtex, every title and URL found in the PDF
//! - `first_minutes`: issue 12 — help text, closed pipes, URL schemes, notes to a new user
//! - `hook`: issue 12 — `cite hook claude-code` fed recorded payloads of every shape
//! - `skill`: issue 12 — the skill file's format, and that its commands and flags exist
//! - `docs`: issue 24 — every command and flag the README and docs/ name exists, their
//!   links and anchors resolve, the README stays short, the man pages are current
//! - `hardening`: issue 8 — ids never repeat, hostile lock files, kills at creation,
//!   bounded waits behind stopped processes, fair maintenance, audits of damaged files
//! - `layers`: no module names one above it (ARCHITECTURE.md)
//! - `syncs`: how many fdatasyncs each command costs (strace)
//! - `backends`: issue 10 — one workflow of every command on a redb file and on
//!   PostgreSQL, the same transcript from both
//! - `reader`: issue 18 — every `[N]` a reader sees is rendered and checked, any heading's
//!   list of sources is a Sources section, no id dropped, `--strict` on research drafts,
//!   drafts on stdin, blocks through pandoc and cmark-gfm, MCP ids as strings and `export`
//! - `support`: issue 21 — `verify --support`: figures, dates, quoted phrases and names
//!   of cited sentences against the cited pages, and the labelled set's rates
//! - `claims`: the written labelled set of `verify --support` (tests/fixtures/claims),
//!   pages ingested from tool output and drafts as models write them, scored per split
//! - `corrections`: issue 20 — retracting a quote and correcting a title are events; the
//!   log, show, verify and the MCP tools see them
//! - `urls`: issue 19 — one page, one id: tracking parameters, http/https twins,
//!   look-alike notes, credentials never stored or shown, ledgers written before
//! - `tools`: issue 19 — `ingest` of what the tools agents use answer (Tavily, Exa,
//!   Firecrawl, Jina, search engines, answer engines, LangChain), the page text it keeps
//!   and the snippets it does not, through the CLI, MCP and the hook
//! - `postgres`: issue 10 — PostgreSQL only: concurrent and killed writers, `cite copy`
//!   between backends, refusals (unreachable server, wrong password, a foreign database)
//! - `pg_credentials`: issue 23 — PostgreSQL passwords from `$PGPASSWORD`, `$PGPASSFILE`
//!   and `~/.pgpass`, and no form of a URL that shows its password
//! - `pg_write`: issue 23 — PostgreSQL writes in one round trip ahead of the lock, reads
//!   ahead in batches (round trips counted on the wire), many writers, a bulk ingest
//! - `pg_network`: issue 23 — waits on the network bounded by `--wait` (a server that
//!   never answers the login, a connection gone silent, another session's table lock
//!   with its backend running or stopped, the hook's own wait)
//! - `pg_tls`: issue 23 — TLS to PostgreSQL with each `sslmode`, against a server with a
//!   certificate made for the test, and one without TLS
//! - `pg_team`: issue 23 — several ledgers in one database, one schema each, each its own
//!   writer lock; "ledger busy" names the holder; a transaction-mode pooler refused

#[path = "it/util.rs"]
mod util;

#[path = "it/audit.rs"]
mod audit;
#[path = "it/audit_disk.rs"]
mod audit_disk;
#[path = "it/backends.rs"]
mod backends;
#[path = "it/bad_state.rs"]
mod bad_state;
#[path = "it/claims.rs"]
mod claims;
#[path = "it/cli_quote.rs"]
mod cli_quote;
#[path = "it/cli_read.rs"]
mod cli_read;
#[path = "it/cli_register.rs"]
mod cli_register;
#[path = "it/cli_render.rs"]
mod cli_render;
#[path = "it/cli_verify.rs"]
mod cli_verify;
#[path = "it/compat.rs"]
mod compat;
#[path = "it/concurrency.rs"]
mod concurrency;
#[path = "it/convert.rs"]
mod convert;
#[path = "it/corrections.rs"]
mod corrections;
#[path = "it/crash.rs"]
mod crash;
#[path = "it/crash_loop.rs"]
mod crash_loop;
#[path = "it/docs.rs"]
mod docs;
#[path = "it/export.rs"]
mod export;
#[path = "it/first_minutes.rs"]
mod first_minutes;
#[path = "it/golden.rs"]
mod golden;
#[path = "it/hardening.rs"]
mod hardening;
#[path = "it/hook.rs"]
mod hook;
#[path = "it/import.rs"]
mod import;
#[path = "it/layers.rs"]
mod layers;
#[path = "it/lock.rs"]
mod lock;
#[path = "it/mcp.rs"]
mod mcp;
#[path = "it/mcp_group.rs"]
mod mcp_group;
#[path = "it/mcp_http.rs"]
mod mcp_http;
#[path = "it/model.rs"]
mod model;
#[path = "it/page_words.rs"]
mod page_words;
#[path = "it/pg_credentials.rs"]
mod pg_credentials;
#[path = "it/pg_network.rs"]
mod pg_network;
#[path = "it/pg_team.rs"]
mod pg_team;
#[path = "it/pg_tls.rs"]
mod pg_tls;
#[path = "it/pg_write.rs"]
mod pg_write;
#[path = "it/postgres.rs"]
mod postgres;
#[path = "it/prop_url.rs"]
mod prop_url;
#[path = "it/reader.rs"]
mod reader;
#[path = "it/rebuild.rs"]
mod rebuild;
#[path = "it/report.rs"]
mod report;
#[path = "it/skill.rs"]
mod skill;
#[path = "it/support.rs"]
mod support;
#[path = "it/syncs.rs"]
mod syncs;
#[path = "it/tex.rs"]
mod tex;
#[path = "it/tools.rs"]
mod tools;
#[path = "it/urls.rs"]
mod urls;
