//! How a finding says what to do: as a shell command for the CLI, as a tool and its
//! arguments for an MCP client, which may have no shell at all (issue 18).

use std::path::Path;

use crate::text::shell_word;

/// Who reads the advice, and so which words it takes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Advice {
    /// A person or an agent at a shell: `cite render --replace-in DRAFT`.
    #[default]
    Shell,
    /// An MCP client: the tool to call and its arguments.
    Tools,
}

/// How the draft was given, for advice that names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DraftName<'a> {
    /// A file.
    File(&'a Path),
    /// Standard input (the CLI's `-`).
    Stdin,
    /// Text with no file: handed to a tool, or to the library (`DRAFT` in a command).
    Text,
}

impl<'a> DraftName<'a> {
    /// `path` as a draft's name: `-` is standard input, none is text.
    pub fn of(path: Option<&'a Path>) -> DraftName<'a> {
        match path {
            Some(p) if p.as_os_str() == "-" => DraftName::Stdin,
            Some(p) => DraftName::File(p),
            None => DraftName::Text,
        }
    }
}

impl Advice {
    /// What writes the draft's Sources block from the ledger, as a sentence that starts
    /// with a verb (`run …`, `call …`).
    pub fn render(self, draft: DraftName<'_>) -> String {
        match (self, draft) {
            (Advice::Shell, DraftName::Stdin) => "run `cite render --cited-in -` on the draft and end it with the block that prints, in place of any Sources block it has".to_string(),
            (Advice::Tools, DraftName::Text | DraftName::Stdin) => "call `render` with the draft text as draft and end the draft with the block it returns, in place of any Sources block it has".to_string(),
            (Advice::Tools, DraftName::File(_)) => format!("call {}", self.renderer(draft)),
            (Advice::Shell, _) => format!("run {}", self.renderer(draft)),
        }
    }

    /// What writes the draft's Sources block, as a noun: `` `cite render --replace-in
    /// DRAFT` ``, or the tool.
    pub fn renderer(self, draft: DraftName<'_>) -> String {
        match (self, draft) {
            (Advice::Shell, DraftName::File(p)) => format!(
                "`cite render --replace-in {}`",
                shell_word(&p.to_string_lossy())
            ),
            (Advice::Shell, DraftName::Text) => "`cite render --replace-in DRAFT`".to_string(),
            (Advice::Shell, DraftName::Stdin) => "`cite render --cited-in -`".to_string(),
            (Advice::Tools, DraftName::File(p)) => {
                format!("`render` with replace_in {:?}", p.to_string_lossy())
            }
            (Advice::Tools, _) => "the `render` tool".to_string(),
        }
    }

    /// How to get an id for a page the draft needs.
    pub fn register(self) -> &'static str {
        match self {
            Advice::Shell => "register each page with `cite add URL` and cite the id it prints",
            Advice::Tools => "register each page with the `add` tool and cite the id it returns",
        }
    }

    /// How to register one URL shown in the draft.
    pub fn register_url(self, url: &str) -> String {
        match self {
            Advice::Shell => format!(
                "register it with `cite add {}` and cite the id it prints instead",
                shell_word(url)
            ),
            Advice::Tools => format!(
                "register it with `add` (urls [{url:?}]) and cite the id it returns instead"
            ),
        }
    }

    /// How to attach a quote to each source named before it.
    pub fn quote(self) -> &'static str {
        match self {
            Advice::Shell => {
                "for each, `cite quote ID --text \"WORDS COPIED FROM THE PAGE\" --from PAGE`"
            }
            Advice::Tools => {
                "for each, call `quote` with its id, text (words copied from the page) and the page text as evidence (or its file as from)"
            }
        }
    }

    /// How to read the numbering of another epoch.
    pub fn epoch(self, epoch: u64) -> String {
        match self {
            Advice::Shell => format!("`--epoch {epoch}`"),
            Advice::Tools => format!("epoch {epoch}"),
        }
    }

    /// How to store the page text of the sources named before it, so that what the
    /// draft says can be checked against it (`verify --support`).
    pub fn store_page(self) -> &'static str {
        match self {
            Advice::Shell => {
                "store each page's text with `cite add URL --snapshot PAGE` (or quote it with `cite quote ID --text \"WORDS\" --from PAGE`)"
            }
            Advice::Tools => {
                "store each page's text with `add` (its URL, and the page text as snapshot), or quote it with `quote` and the page text as evidence"
            }
        }
    }

    /// Where a report's findings are all listed when the text lists only the first.
    pub fn every_one(self) -> &'static str {
        match self {
            Advice::Shell => "`--json` lists every one",
            Advice::Tools => "the structured result's `support` lists every one",
        }
    }

    /// Where the ids of the ledger are listed.
    pub fn list(self) -> &'static str {
        match self {
            Advice::Shell => "`cite list`",
            Advice::Tools => "the `list` tool",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shell_gets_commands_and_a_client_gets_tools() {
        let file = DraftName::File(Path::new("my draft.md"));
        assert_eq!(
            Advice::Shell.render(file),
            "run `cite render --replace-in 'my draft.md'`"
        );
        assert_eq!(
            Advice::Tools.render(file),
            "call `render` with replace_in \"my draft.md\""
        );
        assert_eq!(
            Advice::Shell.render(DraftName::Text),
            "run `cite render --replace-in DRAFT`"
        );
        assert!(
            Advice::Shell
                .render(DraftName::of(Some(Path::new("-"))))
                .contains("--cited-in -")
        );
        assert!(!Advice::Tools.render(DraftName::Text).contains("`cite "));
        for advice in [Advice::Tools] {
            for text in [
                advice.register().to_string(),
                advice.register_url("https://a.org/?q=1"),
                advice.quote().to_string(),
                advice.epoch(2),
                advice.list().to_string(),
            ] {
                assert!(!text.contains("`cite "), "{text}");
                assert!(!text.contains("--"), "{text}");
            }
        }
    }
}
