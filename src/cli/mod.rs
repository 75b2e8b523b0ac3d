//! The command line: argument parsing, the ledger path rules, output and exit codes.
//!
//! The only module that touches the terminal or the environment (beside `app`, which
//! reads `$CITE_ACTOR` for the context of a call, and stdin for `-`, on the front ends'
//! behalf). Each subcommand lives in
//! its own file with its clap `Args` struct and a `run` function that turns raw arguments
//! into a checked request, calls one ledger operation and prints the result.

mod add;
mod audit;
mod completions;
mod convert;
mod copy;
mod export;
mod hook;
mod import;
mod ingest;
mod list;
mod log;
mod mcp;
mod quote;
mod rebuild;
mod render;
mod report;
mod reset;
mod retitle;
mod retract;
mod show;
mod terminal;
mod verify;

use std::ffi::OsString;
use std::io::{self, Write};
use std::panic::{self, AssertUnwindSafe};
use std::path::PathBuf;
use std::time::Duration;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

/// The CLI's name for the application's failure type: it prints it on stderr and exits
/// with the code of its kind.
pub use cite_ledger::app::Failure as CliError;
use cite_ledger::app::{self, Input, Kind, Reading};

use cite_ledger::{Context, Ledger};
use cite_ledger::{Location, PgEnv};

/// A citation ledger: stable numbered ids for every source, checked quotes, generated
/// Sources blocks, and drafts verified before delivery.
#[derive(Parser, Debug)]
#[command(name = "cite", version, about, max_term_width = 100)]
pub struct Cli {
    /// Ledger: a file, or a postgres:// URL (default: $CITE_LEDGER, else
    /// $HERMES_CITATION_LEDGER, else $XDG_DATA_HOME/cite/ledger.redb)
    #[arg(long, global = true, value_name = "PATH|URL")]
    ledger: Option<PathBuf>,

    /// Longest wait, in seconds, for another process holding the ledger [default: 30; 2
    /// for `hook`]
    #[arg(long, global = true, value_name = "SECS", value_parser = parse_wait)]
    wait: Option<Duration>,

    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Start a fresh numbering (earlier epochs stay readable)
    Reset(reset::Args),
    /// Register source URLs and print their ids
    Add(add::Args),
    /// Register every URL found in JSON tool output
    Ingest(ingest::Args),
    /// Show the sources of the ledger
    List(list::Args),
    /// Show the event log: how, when and by whom each change was made
    Log(log::Args),
    /// Show one source and its history
    Show(show::Args),
    /// Attach a verbatim quote, checked against the fetched page text
    Quote(quote::Args),
    /// Retract a quote (it stays in the log and in `show`, and counts for nothing)
    Retract(retract::Args),
    /// Correct a source's title (the log keeps the old one)
    Retitle(retitle::Args),
    /// Render the Sources block (or rewrite it in a draft)
    Render(render::Args),
    /// Check a draft's citations against the ledger
    #[command(after_help = verify::AFTER_HELP)]
    Verify(verify::Args),
    /// Recompute every table from the event log (exclusive maintenance)
    Rebuild(rebuild::Args),
    /// Check the hash chain, replay the log, re-check every quote and snapshot
    Audit(audit::Args),
    /// Import a sources.py JSON ledger into the current epoch, ids preserved
    Import(import::Args),
    /// Export the ledger: jsonl, hermes-json, csl-json, biblatex or ris
    Export(export::Args),
    /// Convert a draft to a pandoc document with a CSL-JSON bibliography
    Convert(convert::Args),
    /// Write a self-contained HTML report of a draft: sentences marked, citations linked
    /// to source cards with their quotes in page context
    Report(report::Args),
    /// Copy a ledger to a new file or an empty PostgreSQL database, then audit the copy
    #[command(after_help = copy::AFTER_HELP)]
    Copy(copy::Args),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell)
    Completions(completions::Args),
    /// Serve the ledger to agents as MCP tools over stdin/stdout, or HTTP with --http
    #[command(after_help = mcp::AFTER_HELP)]
    Mcp(mcp::Args),
    /// Register the sources of an agent's tool call (run by the agent as a hook)
    #[command(after_help = hook::AFTER_HELP)]
    Hook(hook::Args),
}

/// How long a writer waits for the ledger unless `--wait` says otherwise.
const DEFAULT_WAIT: Duration = Duration::from_secs(30);

/// The same for `hook`: the agent waits for its hooks after every tool call, so a busy
/// ledger costs a registration (reported on stderr), not a stalled agent.
const HOOK_WAIT: Duration = Duration::from_secs(2);

fn parse_wait(s: &str) -> Result<Duration, String> {
    let secs: f64 = s
        .parse()
        .map_err(|_| format!("{s:?} is not a number of seconds"))?;
    if !(0.0..=86_400.0).contains(&secs) {
        return Err("give between 0 and 86400 seconds".into());
    }
    Ok(Duration::from_secs_f64(secs))
}

/// Where the ledger lives: `--ledger`, else `$CITE_LEDGER`, else
/// `$HERMES_CITATION_LEDGER` (the skill's variable, so that subagents sharing a ledger
/// as the skill says keep sharing it), else the XDG data folder.
/// A `postgres://` or `postgresql://` URL in either names a PostgreSQL database.
fn ledger_location(flag: Option<PathBuf>) -> Result<Location, CliError> {
    if let Some(p) = flag {
        return parse_location(p.as_os_str());
    }
    let env = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty());
    if let Some(p) = env("CITE_LEDGER").or_else(|| env("HERMES_CITATION_LEDGER")) {
        return parse_location(&p);
    }
    let data = env("XDG_DATA_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| env("HOME").map(|h| PathBuf::from(h).join(".local/share")));
    match data {
        Some(d) => Ok(Location::File(d.join("cite").join("ledger.redb"))),
        None => Err(CliError::usage(
            "no ledger path: pass --ledger PATH or set CITE_LEDGER",
        )),
    }
}

/// A file path or a PostgreSQL URL, with a password the URL leaves out looked for where
/// libpq looks: `$PGPASSWORD`, else `$PGPASSFILE` or `~/.pgpass`, so that none need be in
/// argv where `ps` shows it.
pub fn parse_location(text: &std::ffi::OsStr) -> Result<Location, CliError> {
    let var = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty());
    let env = PgEnv {
        password: var("PGPASSWORD").map(|p| p.to_string_lossy().into_owned()),
        passfile: var("PGPASSFILE").map(PathBuf::from),
        home: var("HOME").map(PathBuf::from),
    };
    Location::parse(text)
        .map(|l| l.with_pg_env(env))
        .map_err(|e| CliError::usage(e.to_string()))
}

/// What a subcommand needs: the ledger, who is acting, and where output goes.
pub struct Env<'a> {
    pub ledger: Ledger,
    pub ctx: Context,
    pub out: &'a mut dyn Write,
}

/// The command line as clap sees it: [`Cli`], with the global flags that mean nothing
/// to `completions` hidden from its help (they are still accepted there, as anywhere).
/// Public for what is generated from it outside the binary: the man pages.
pub fn command() -> clap::Command {
    let cmd = Cli::command();
    // clap copies a global flag into each subcommand when the command is built, unless
    // the subcommand has one of that name already: a hidden copy there keeps it out of
    // the help and still hands its value up. (Editing the flag after the build breaks
    // clap's index of flags.)
    let hidden: Vec<clap::Arg> = cmd
        .get_arguments()
        .filter(|a| a.is_global_set())
        .map(|a| a.clone().hide(true))
        .collect();
    cmd.mut_subcommand("completions", |c| c.args(hidden))
}

/// The subcommand `args` name, for when clap could not parse them: the first argument
/// that is neither a flag nor the value of a global flag given as its own argument.
fn subcommand_of(args: &[OsString]) -> Option<&str> {
    let cmd = command();
    let takes_value: Vec<String> = cmd
        .get_arguments()
        .filter(|a| a.is_global_set() && a.get_action().takes_values())
        .filter_map(|a| a.get_long().map(|l| format!("--{l}")))
        .collect();
    let mut rest = args.iter().skip(1).map(|a| a.to_str());
    while let Some(arg) = rest.next() {
        match arg? {
            flag if takes_value.iter().any(|t| t == flag) => {
                rest.next();
            }
            flag if flag.starts_with('-') => {}
            name => return Some(name),
        }
    }
    None
}

/// Parses `args`, runs the command, and returns the process exit code.
pub fn run(args: Vec<OsString>) -> i32 {
    let parsed = command()
        .try_get_matches_from(&args)
        .and_then(|m| Cli::from_arg_matches(&m));
    let cli = match parsed {
        Ok(cli) => cli,
        // A hook that is misconfigured must not fail the agent's tool call either.
        Err(e) if e.use_stderr() && subcommand_of(&args) == Some("hook") => {
            let rendered = e.to_string();
            let first = rendered.lines().next().unwrap_or_default();
            eprintln!("cite hook: {}", first.trim_start_matches("error: "));
            return 0;
        }
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() { 2 } else { 0 };
        }
    };
    // Locked per flush, not for the whole command: `cite mcp` writes stdout from other
    // threads, and a lock held here would block them forever.
    let mut out = terminal::Defused::new(io::BufWriter::new(io::stdout()));
    let ledger = cli.ledger.clone();
    let hook = matches!(cli.command, Command::Hook(_));
    // redb may panic on a file altered behind its back; the user gets one clear line.
    let result = panic::catch_unwind(AssertUnwindSafe(|| dispatch(cli, &args, &mut out)))
        .unwrap_or_else(|payload| Err(CliError::panicked(ledger.as_deref(), payload.as_ref())))
        .and_then(|()| out.flush().map_err(CliError::from));
    match result {
        Ok(()) => 0,
        Err(e) if e.kind == Kind::BrokenPipe => 0,
        // A hook that fails must not fail the agent's tool call: one line, exit 0.
        Err(e) if hook => {
            let line = e.text().replace('\n', " — ");
            eprintln!("cite hook: {line}");
            0
        }
        Err(e) => {
            let _ = out.flush();
            // Commands that print their own verdict (verify, audit) have nothing to add.
            if !e.kind.is_silent() {
                eprintln!("{e}");
            }
            e.exit_code()
        }
    }
}

fn dispatch(cli: Cli, args: &[OsString], out: &mut dyn Write) -> Result<(), CliError> {
    let location = ledger_location(cli.ledger)?;
    let wait = cli.wait.unwrap_or(match cli.command {
        Command::Hook(_) => HOOK_WAIT,
        _ => DEFAULT_WAIT,
    });
    let mut env = Env {
        ledger: Ledger::new(location, wait),
        ctx: app::context(args.iter().map(|a| a.to_string_lossy())),
        out,
    };
    match cli.command {
        Command::Reset(a) => reset::run(&mut env, &a),
        Command::Add(a) => add::run(&mut env, &a),
        Command::Ingest(a) => ingest::run(&mut env, &a),
        Command::List(a) => list::run(&mut env, &a),
        Command::Log(a) => log::run(&mut env, &a),
        Command::Show(a) => show::run(&mut env, &a),
        Command::Quote(a) => quote::run(&mut env, &a),
        Command::Retract(a) => retract::run(&mut env, &a),
        Command::Retitle(a) => retitle::run(&mut env, &a),
        Command::Render(a) => render::run(&mut env, &a),
        Command::Verify(a) => verify::run(&mut env, &a),
        Command::Rebuild(a) => rebuild::run(&mut env, &a),
        Command::Audit(a) => audit::run(&mut env, &a),
        Command::Copy(a) => copy::run(&mut env, &a),
        Command::Import(a) => import::run(&mut env, &a),
        Command::Export(a) => export::run(&mut env, &a),
        Command::Convert(a) => convert::run(&mut env, &a),
        Command::Report(a) => report::run(&mut env, &a),
        Command::Completions(a) => completions::run(&mut env, &a),
        Command::Mcp(a) => mcp::run(&mut env, &a),
        Command::Hook(a) => hook::run(&mut env, &a),
    }
}

/// Writes `note` (a line for the user beside a command's output) to stderr, after what
/// the command wrote to stdout so far, so the two appear in order on one terminal.
fn note(env: &mut Env<'_>, note: Option<String>) -> Result<(), CliError> {
    if let Some(note) = note {
        env.out.flush()?;
        let mut err = io::stderr().lock();
        // A closed stderr loses the note, not the command's result.
        let _ = writeln!(err, "{note}");
    }
    Ok(())
}

/// Long imports and ingests report progress above this many items.
const PROGRESS_ABOVE: u64 = 10_000;

/// A progress reporter for `label`: `\rLABEL: done/total NOUN` on stderr, only when
/// stderr is a terminal and `expected` is large; otherwise it does nothing.
pub(crate) fn progress(
    label: &'static str,
    noun: &'static str,
    expected: u64,
) -> impl FnMut(u64, u64) {
    use std::io::IsTerminal;
    let show = expected > PROGRESS_ABOVE && io::stderr().is_terminal();
    move |done: u64, total: u64| {
        if show && total > PROGRESS_ABOVE && (done.is_multiple_of(1000) || done == total) {
            let mut err = io::stderr().lock();
            let _ = write!(err, "\r{label}: {done}/{total} {noun}");
            if done == total {
                let _ = writeln!(err);
            }
        }
    }
}

/// Reads a named file, or stdin for `-`, as UTF-8 text.
pub(crate) fn read_input(name: &std::path::Path) -> Result<String, CliError> {
    Input::arg(name).read(Reading::Text)
}
