//! The redb tables of a ledger file, declared once (what each holds: `store/tables.rs`).

use redb::TableDefinition;

/// The `events` table.
pub const EVENTS: TableDefinition<u64, &[u8]> = TableDefinition::new("events");

/// The `meta` table.
pub const META: TableDefinition<&str, &[u8]> = TableDefinition::new("meta");

/// The `urls` table.
pub const URLS: TableDefinition<(u64, &str), u64> = TableDefinition::new("urls");

/// The `sources` table.
pub const SOURCES: TableDefinition<(u64, u64), &[u8]> = TableDefinition::new("sources");

/// The `history` table.
pub const HISTORY: TableDefinition<(u64, u64, u64), ()> = TableDefinition::new("history");

/// The `snapshots` table.
pub const SNAPSHOTS: TableDefinition<&[u8], &[u8]> = TableDefinition::new("snapshots");

/// The `quotes` table.
pub const QUOTES: TableDefinition<(u64, u64, u64), &[u8]> = TableDefinition::new("quotes");
