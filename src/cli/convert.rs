//! `cite convert DRAFT --to pandoc [-o OUT.md] [--bibliography FILE] [--epoch N]`: the
//! draft as a pandoc document — `[N]` markers as `[@sourceN]` citations, no Sources
//! block, the front matter naming the CSL-JSON of the cited sources and cite's citation
//! style, both written beside it — so that `pandoc OUT.md --citeproc` typesets it with
//! `[N]` citations and a reference list numbered by ledger id. What is converted is
//! [`draft::to_pandoc`]'s; the bibliography is `export --format csl-json --cited-in
//! DRAFT`, whose item ids are the `sourceN` keys; the style is [`csl::STYLE`], written
//! beside the bibliography as BIB.csl unless the draft's front matter names a style of
//! its own. There is no option to name another style: the draft's `csl:` does, and so
//! does pandoc's own `--csl FILE` when typesetting, which overrides the front matter.

use std::path::{Path, PathBuf};

use cite_core::draft::{self, Advice};
use cite_core::interop::{Format, csl};
use cite_ledger::app::export;

use super::{CliError, Env, note, read_input};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The draft to convert (`-` reads it from stdin)
    #[arg(value_name = "DRAFT")]
    draft: PathBuf,
    /// What to convert it to
    #[arg(long, value_enum)]
    to: Target,
    /// Write the document to this file (replaced atomically) instead of stdout
    #[arg(long, short = 'o', value_name = "FILE")]
    output: Option<PathBuf>,
    /// Write the CSL-JSON of the cited sources here (default: OUT with .json); cite's
    /// citation style goes beside it, with .csl
    #[arg(long, value_name = "FILE")]
    bibliography: Option<PathBuf>,
    /// Read this epoch instead of the current one
    #[arg(long, value_name = "N")]
    epoch: Option<u64>,
}

/// What `convert` writes.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum Target {
    /// Pandoc Markdown with [@sourceN] citations and a CSL-JSON bibliography
    Pandoc,
}

pub fn run(env: &mut Env<'_>, args: &Args) -> Result<(), CliError> {
    let Target::Pandoc = args.to;
    let output = args.output.as_deref().filter(|p| p.as_os_str() != "-");
    let bibliography = bibliography_path(output, args.bibliography.as_deref())?;
    let style = bibliography.with_extension("csl");
    refuse_clashes(env, &args.draft, output, &bibliography, &style)?;
    let text = read_input(&args.draft)?;
    let converted = draft::to_pandoc(
        &text,
        &yaml_name(output, &bibliography),
        &yaml_name(output, &style),
    )
    .map_err(|e| CliError::failed(e.to_string()))?;
    let view = env.ledger.view(args.epoch)?;
    // A draft that cites nothing gets an empty bibliography, not a refusal: pandoc reads
    // it, and the document is still worth typesetting.
    let picked = if converted.cited.is_empty() {
        Some(Vec::new())
    } else {
        export::selection(
            &view,
            None,
            Some(&converted.cited),
            Advice::Shell,
            &env.ledger.location().to_string(),
        )?
    };
    let sources = cite_ledger::rewrite::write_atomically(&bibliography, "write", |out| {
        export::write(&view, Format::CslJson, picked.as_deref(), out)
    })?;
    let style_note = match &converted.own_style {
        Some(own) => format!("style {own}, as the draft's front matter names it (csl:)"),
        None => {
            cite_ledger::rewrite::write_atomically(&style, "write", |out| {
                out.write_all(csl::STYLE.as_bytes()).map_err(CliError::from)
            })?;
            format!("style {} ([N] by ledger id)", style.display())
        }
    };
    let summary = format!(
        "{} citation(s) of {sources} source(s); bibliography {} (CSL-JSON); {style_note}",
        converted.written,
        bibliography.display()
    );
    match output {
        None => {
            env.out.write_all(converted.text.as_bytes())?;
            note(env, Some(format!("converted for pandoc: {summary}")))
        }
        Some(path) => {
            cite_ledger::rewrite::write_atomically(path, "write", |out| {
                out.write_all(converted.text.as_bytes())
                    .map_err(CliError::from)
            })?;
            writeln!(
                env.out,
                "converted {} to {} for pandoc: {summary}",
                args.draft.display(),
                path.display()
            )?;
            writeln!(
                env.out,
                "typeset it with: pandoc {} --citeproc -o report.docx",
                path.display()
            )?;
            Ok(())
        }
    }
}

/// Where the bibliography goes: `--bibliography`, else beside the document as OUT.json;
/// a document on stdout has no "beside".
fn bibliography_path(output: Option<&Path>, given: Option<&Path>) -> Result<PathBuf, CliError> {
    match (given, output) {
        (Some(b), _) if b.as_os_str() == "-" => Err(CliError::usage(
            "--bibliography - : the bibliography is a file the document names",
        )
        .hint("give a file path, e.g. --bibliography sources.json")),
        (Some(b), _) => Ok(b.to_path_buf()),
        (None, Some(out)) => Ok(out.with_extension("json")),
        (None, None) => Err(CliError::usage(
            "the document goes to stdout, so the bibliography needs --bibliography FILE",
        )
        .hint("or give -o OUT.md, and the bibliography goes beside it as OUT.json")),
    }
}

/// Refuses to write over the draft, the ledger, or one output with another.
fn refuse_clashes(
    env: &Env<'_>,
    draft: &Path,
    output: Option<&Path>,
    bibliography: &Path,
    style: &Path,
) -> Result<(), CliError> {
    if same_path(bibliography, style) {
        return Err(CliError::usage(format!(
            "--bibliography {} and the citation style written beside it are one file",
            bibliography.display()
        ))
        .hint("give the bibliography a .json name, e.g. --bibliography sources.json"));
    }
    let mut targets = vec![("--bibliography", bibliography), ("the style", style)];
    if let Some(out) = output {
        targets.push(("-o", out));
        for (what, path) in [("the bibliography", bibliography), ("the style", style)] {
            if same_path(out, path) {
                return Err(CliError::usage(format!(
                    "-o {} and {what} are one file",
                    out.display()
                ))
                .hint("give the document a .md name, or --bibliography another file"));
            }
        }
    }
    for (flag, path) in targets {
        refuse_draft_or_ledger(
            env,
            draft,
            flag,
            path,
            "convert",
            "write the document to another file, e.g. -o report.md",
            "choose another file",
        )?;
    }
    Ok(())
}

/// Refuses an output file `flag PATH` of `command` that is the draft or the ledger: a
/// command that reads a draft never writes over it, nor over the ledger it reads.
pub(super) fn refuse_draft_or_ledger(
    env: &Env<'_>,
    draft: &Path,
    flag: &str,
    path: &Path,
    command: &str,
    draft_hint: &str,
    ledger_hint: &str,
) -> Result<(), CliError> {
    if draft.as_os_str() != "-" && same_path(path, draft) {
        return Err(CliError::usage(format!(
            "{flag} {} is the draft itself: {command} never replaces the draft",
            path.display()
        ))
        .hint(draft_hint.to_string()));
    }
    if env
        .ledger
        .location()
        .file()
        .is_some_and(|l| same_path(path, l))
    {
        return Err(
            CliError::usage(format!("{flag} {} is the ledger itself", path.display()))
                .hint(ledger_hint.to_string()),
        );
    }
    Ok(())
}

/// Whether `a` and `b` name one file: the same existing file, or the same path.
fn same_path(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => std::path::absolute(a).ok() == std::path::absolute(b).ok(),
    }
}

/// The bibliography as the front matter names it. Pandoc finds it from where it runs:
/// beside the document, its file name (pandoc run in the document's folder, the two move
/// together); elsewhere, its absolute path; for a document on stdout, as given.
fn yaml_name(output: Option<&Path>, bibliography: &Path) -> String {
    let Some(out) = output else {
        return bibliography.to_string_lossy().into_owned();
    };
    let folder = |p: &Path| std::path::absolute(p).ok().map(|a| a.with_file_name(""));
    match bibliography.file_name() {
        Some(name) if folder(out) == folder(bibliography) => name.to_string_lossy().into_owned(),
        _ => std::path::absolute(bibliography)
            .unwrap_or_else(|_| bibliography.to_path_buf())
            .to_string_lossy()
            .into_owned(),
    }
}
