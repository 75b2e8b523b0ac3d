//! `cite ingest` of 100,000 URLs in one call into a fresh ledger (SPEC §5: under 2 s),
//! as a whole process: parsing, canonicalizing, one durable transaction, printing ids.

mod common;

use std::time::Duration;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};

use common::{cite, run_ok, write_ingest_file};

fn ingest(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("temp dir");
    let input = write_ingest_file(dir.path(), 100_000);
    let mut round = 0u64;

    let mut g = c.benchmark_group("ingest");
    g.sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(15));
    g.bench_function("100k into fresh ledger", |b| {
        b.iter_batched(
            || {
                round += 1;
                let ledger = dir.path().join(format!("fresh-{round}.redb"));
                let _ = std::fs::remove_file(dir.path().join(format!("fresh-{}.redb", round - 1)));
                ledger
            },
            |ledger| run_ok(cite(&ledger).arg("ingest").arg(&input)),
            BatchSize::PerIteration,
        )
    });
    g.finish();
}

criterion_group!(benches, ingest);
criterion_main!(benches);
