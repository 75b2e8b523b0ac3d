//! `cite list`: the sources of an epoch, all of them or a page at a time.

use serde_json::json;

use cite_core::render;
use cite_core::text::shell_word;
use cite_ledger::{ListRequest, check_route};

use super::{CliError, Env};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Print the sources as JSON
    #[arg(long)]
    json: bool,
    /// Read this epoch instead of the current one
    #[arg(long, value_name = "N")]
    epoch: Option<u64>,
    /// Count sources per route (--via) instead of listing them
    #[arg(long, conflicts_with_all = ["query", "via", "limit", "cursor"])]
    by_via: bool,
    /// Only sources whose URL or title contains TEXT (ignoring case)
    #[arg(long, value_name = "TEXT")]
    query: Option<String>,
    /// Only sources registered with this route (see `add --via`)
    #[arg(long, value_name = "ROUTE")]
    via: Option<String>,
    /// Show at most N sources, and the command for the next page
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    limit: Option<u64>,
    /// Start after this cursor (printed with the previous page)
    #[arg(long, value_name = "CURSOR")]
    cursor: Option<String>,
}

pub fn run(env: &mut Env<'_>, args: &Args) -> Result<(), CliError> {
    let req = ListRequest {
        query: args.query.clone(),
        via: args.via.as_deref().map(check_route).transpose()?,
        after: match &args.cursor {
            Some(c) => ListRequest::after_cursor(c)
                .map_err(|e| CliError::usage(format!("--cursor: {e}")))?,
            None => 0,
        },
        limit: args.limit,
    };
    let view = env.ledger.view(args.epoch)?;
    if args.by_via {
        let counts = view.by_via()?;
        if args.json {
            render::json_array(env.out, counts.iter().map(Ok::<_, CliError>))?;
        } else {
            for c in &counts {
                writeln!(env.out, "{}", render::route_line(c))?;
            }
        }
        return Ok(());
    }
    if req.is_paged() {
        let page = view.list(&req)?;
        let next = page.next.map(|after| next_call(args, after));
        if args.json {
            let mut answer = json!({"sources": page.sources, "matched": page.matched});
            if let (Some(after), Some(call)) = (page.next, &next) {
                answer["next_cursor"] = json!(after.to_string());
                answer["next_command"] = json!(call);
            }
            let text = serde_json::to_string_pretty(&answer).map_err(std::io::Error::other)?;
            writeln!(env.out, "{text}")?;
        } else {
            for s in &page.sources {
                writeln!(env.out, "{}", render::list_line(s))?;
            }
            writeln!(env.out, "{}", render::page_line(&page, next.as_deref()))?;
        }
        return Ok(());
    }
    // Without a filter, a limit or a cursor, `list` prints what sources.py prints.
    if args.json {
        return render::json_array(env.out, view.sources()?.map(|r| r.map_err(CliError::from)));
    }
    let mut any = false;
    for s in view.sources()? {
        any = true;
        writeln!(env.out, "{}", render::list_line(&s?))?;
    }
    if !any {
        writeln!(env.out, "ledger is empty: {}", env.ledger.location())?;
    }
    Ok(())
}

/// The command line for the page after `after`: this one's flags, with the new cursor.
fn next_call(args: &Args, after: u64) -> String {
    let mut call = vec!["cite".to_string(), "list".to_string()];
    if let Some(e) = args.epoch {
        call.extend(["--epoch".into(), e.to_string()]);
    }
    if let Some(q) = &args.query {
        call.extend(["--query".into(), shell_word(q).into_owned()]);
    }
    if let Some(v) = &args.via {
        call.extend(["--via".into(), shell_word(v).into_owned()]);
    }
    if let Some(l) = args.limit {
        call.extend(["--limit".into(), l.to_string()]);
    }
    call.extend(["--cursor".into(), after.to_string()]);
    if args.json {
        call.push("--json".into());
    }
    call.join(" ")
}
