//! Where a ledger is: a file, or a PostgreSQL database.

use std::path::PathBuf;

use crate::StoreError;
use crate::pg;

/// Where a ledger is: a redb file, or a PostgreSQL database.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Location {
    File(PathBuf),
    Postgres(pg::Target),
}

impl Location {
    /// `postgres://…` or `postgresql://…` names a PostgreSQL database; anything else is a
    /// file path.
    pub fn parse(text: &std::ffi::OsStr) -> Result<Location, StoreError> {
        match text.to_str() {
            Some(s) if pg::Target::is_url(s) => Ok(Location::Postgres(pg::Target::parse(s)?)),
            _ => Ok(Location::File(PathBuf::from(text))),
        }
    }

    /// This location, with a PostgreSQL password missing from its URL looked for where
    /// libpq looks (the front end reads the environment into `env`).
    pub fn with_pg_env(self, env: pg::PgEnv) -> Location {
        match self {
            Location::Postgres(t) => Location::Postgres(t.with_env(env)),
            file => file,
        }
    }

    /// The file path, for a ledger file.
    pub fn file(&self) -> Option<&std::path::Path> {
        match self {
            Location::File(p) => Some(p),
            Location::Postgres(_) => None,
        }
    }
}

impl std::fmt::Display for Location {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Location::File(p) => write!(f, "{}", p.display()),
            Location::Postgres(t) => write!(f, "{t}"),
        }
    }
}

impl From<PathBuf> for Location {
    fn from(p: PathBuf) -> Location {
        Location::File(p)
    }
}

impl From<&std::path::Path> for Location {
    fn from(p: &std::path::Path) -> Location {
        Location::File(p.to_path_buf())
    }
}

impl From<&Location> for Location {
    fn from(l: &Location) -> Location {
        l.clone()
    }
}

impl From<&PathBuf> for Location {
    fn from(p: &PathBuf) -> Location {
        Location::File(p.clone())
    }
}
