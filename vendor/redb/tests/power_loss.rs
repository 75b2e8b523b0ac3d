//! Power loss, in each concurrency mode: whatever was written but not yet synced may or may
//! not reach the disk, in any combination. After such a loss the file must open, pass its
//! integrity check, and hold every commit that `commit()` acknowledged.
//!
//! The simulated disk keeps two images: what reads see (the page cache) and what is
//! durable (as of the last sync). A crash keeps the durable image plus a random subset of
//! the writes and length changes made since, applied in order. Opens, commits, aborted
//! writes and closes are interleaved at random, so the losses fall on every kind of write:
//! a commit's two phases, the recovery flag an open sets, and a close's shutdown header.

use redb::{
    BackendError, Builder, ConcurrencyMode, Database, ReadableDatabase, StorageBackend,
    TableDefinition,
};
use std::io;
use std::ops::Bound;
use std::sync::{Arc, Mutex};

const TABLE: TableDefinition<u64, u64> = TableDefinition::new("t");

/// One change since the last sync.
#[derive(Clone, Debug)]
enum Op {
    Write(u64, Vec<u8>),
    SetLen(u64),
}

#[derive(Debug, Default)]
struct Disk {
    cache: Vec<u8>,
    durable: Vec<u8>,
    pending: Vec<Op>,
    /// Writes, length changes and syncs left before the power fails; after that every
    /// one fails, as nothing reaches a disk without power.
    power: Option<u64>,
}

impl Disk {
    fn spend(&mut self) -> Result<(), io::Error> {
        match &mut self.power {
            Some(0) => Err(io::Error::other("power lost")),
            Some(left) => {
                *left -= 1;
                Ok(())
            }
            None => Ok(()),
        }
    }
}

fn apply(image: &mut Vec<u8>, op: &Op) {
    match op {
        Op::Write(offset, data) => {
            let end = *offset as usize + data.len();
            if image.len() < end {
                image.resize(end, 0);
            }
            image[*offset as usize..end].copy_from_slice(data);
        }
        Op::SetLen(len) => image.resize(*len as usize, 0),
    }
}

/// A backend over a shared simulated disk; one database at a time uses it, so the locks
/// redb asks for are always free.
#[derive(Debug)]
struct Simulated(Arc<Mutex<Disk>>);

impl StorageBackend for Simulated {
    fn len(&self) -> Result<u64, io::Error> {
        Ok(self.0.lock().unwrap().cache.len() as u64)
    }
    fn read(&self, offset: u64, out: &mut [u8]) -> Result<(), io::Error> {
        let disk = self.0.lock().unwrap();
        let end = offset as usize + out.len();
        if end > disk.cache.len() {
            return Err(io::Error::from(io::ErrorKind::UnexpectedEof));
        }
        out.copy_from_slice(&disk.cache[offset as usize..end]);
        Ok(())
    }
    fn set_len(&self, len: u64) -> Result<(), io::Error> {
        let mut disk = self.0.lock().unwrap();
        disk.spend()?;
        let op = Op::SetLen(len);
        apply(&mut disk.cache, &op);
        disk.pending.push(op);
        Ok(())
    }
    fn sync_data(&self) -> Result<(), io::Error> {
        let mut disk = self.0.lock().unwrap();
        disk.spend()?;
        disk.durable = disk.cache.clone();
        disk.pending.clear();
        Ok(())
    }
    fn write(&self, offset: u64, data: &[u8]) -> Result<(), io::Error> {
        let mut disk = self.0.lock().unwrap();
        disk.spend()?;
        let op = Op::Write(offset, data.to_vec());
        apply(&mut disk.cache, &op);
        disk.pending.push(op);
        Ok(())
    }
    fn try_lock_range(&self, _: Bound<u64>, _: Bound<u64>) -> Result<bool, BackendError> {
        Ok(true)
    }
    fn try_lock_shared_range(&self, _: Bound<u64>, _: Bound<u64>) -> Result<bool, BackendError> {
        Ok(true)
    }
    fn lock_range(&self, _: Bound<u64>, _: Bound<u64>) -> Result<(), BackendError> {
        Ok(())
    }
    fn lock_shared_range(&self, _: Bound<u64>, _: Bound<u64>) -> Result<(), BackendError> {
        Ok(())
    }
    fn unlock_range(&self, _: Bound<u64>, _: Bound<u64>) -> Result<(), BackendError> {
        Ok(())
    }
    fn query_lock_range(&self, _: Bound<u64>, _: Bound<u64>) -> Result<bool, BackendError> {
        Ok(false)
    }
}

/// xorshift64*: a fixed sequence per seed, so a failure names the seed that shows it.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

fn open(disk: &Arc<Mutex<Disk>>, mode: ConcurrencyMode) -> Database {
    let mut builder = Builder::new();
    builder.set_concurrency_mode(mode);
    builder
        .create_with_backend(Simulated(disk.clone()))
        .expect("open after a power loss")
}

/// What survives a power loss now: the durable image and a random subset of what came
/// after it, in order.
fn power_loss(disk: &Arc<Mutex<Disk>>, rng: &mut Rng) -> Arc<Mutex<Disk>> {
    let disk = disk.lock().unwrap();
    let mut image = disk.durable.clone();
    for op in &disk.pending {
        if rng.below(2) == 0 {
            apply(&mut image, op);
        }
    }
    Arc::new(Mutex::new(Disk {
        cache: image.clone(),
        durable: image,
        pending: Vec::new(),
        power: None,
    }))
}

fn check(db: &mut Database, acknowledged: &[u64], mode: ConcurrencyMode, seed: u64) {
    assert!(
        db.check_integrity().expect("integrity check"),
        "{mode:?}, seed {seed}: integrity check repaired damage"
    );
    if acknowledged.is_empty() {
        return;
    }
    let read = db.begin_read().unwrap();
    let table = read.open_table(TABLE).unwrap();
    for key in acknowledged {
        assert_eq!(
            table.get(key).unwrap().map(|v| v.value()),
            Some(*key),
            "{mode:?}, seed {seed}: acknowledged commit of {key} lost"
        );
    }
}

/// Random opens, commits, aborted writes and closes until the power fails (after a random
/// number of disk operations, so at any point inside any of them). Returns the keys whose
/// commit was acknowledged.
fn run_until_the_power_fails(
    disk: &Arc<Mutex<Disk>>,
    rng: &mut Rng,
    mode: ConcurrencyMode,
) -> Vec<u64> {
    let mut acknowledged: Vec<u64> = Vec::new();
    let mut next = 0u64;
    let mut db: Option<Database> = None;
    for _ in 0..rng.below(24) + 1 {
        if db.is_none() {
            let mut builder = Builder::new();
            builder.set_concurrency_mode(mode);
            match builder.create_with_backend(Simulated(disk.clone())) {
                Ok(handle) => db = Some(handle),
                Err(_) => break,
            }
        }
        let handle = db.as_ref().unwrap();
        let step: Result<(), ()> = match rng.below(5) {
            0..=2 => (|| {
                let write = handle.begin_write().map_err(drop)?;
                let mut keys = Vec::new();
                {
                    let mut table = write.open_table(TABLE).map_err(drop)?;
                    for _ in 0..rng.below(40) + 1 {
                        table.insert(next, next).map_err(drop)?;
                        keys.push(next);
                        next += 1;
                    }
                }
                write.commit().map_err(drop)?;
                acknowledged.extend(keys);
                Ok(())
            })(),
            3 => (|| {
                let write = handle.begin_write().map_err(drop)?;
                write
                    .open_table(TABLE)
                    .map_err(drop)?
                    .insert(u64::MAX, 0)
                    .map_err(drop)?;
                write.abort().map_err(drop)
            })(),
            _ => db.take().unwrap().close().map_err(drop),
        };
        if step.is_err() {
            break;
        }
    }
    // Whatever is still open dies with the power, closing nothing.
    if let Some(handle) = db.take() {
        std::mem::forget(handle);
    }
    acknowledged
}

#[test]
fn every_acknowledged_commit_survives_a_power_loss() {
    survives_power_losses(ConcurrencyMode::MultiWriter);
}

// The open's write of the recovery flag goes unsynced in every mode, not only multi-writer.
#[test]
fn every_acknowledged_commit_survives_a_power_loss_single_writer() {
    survives_power_losses(ConcurrencyMode::SingleWriter);
}

#[test]
fn every_acknowledged_commit_survives_a_power_loss_exclusive_writer() {
    survives_power_losses(ConcurrencyMode::ExclusiveWriter);
}

fn survives_power_losses(mode: ConcurrencyMode) {
    for seed in 1..=400u64 {
        let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
        // A new database, made durable: creating one is not what this checks.
        let disk = Arc::new(Mutex::new(Disk::default()));
        drop(open(&disk, mode));
        {
            let mut d = disk.lock().unwrap();
            d.durable = d.cache.clone();
            d.pending.clear();
            d.power = Some(rng.below(600));
        }
        let acknowledged = run_until_the_power_fails(&disk, &mut rng, mode);
        let after = power_loss(&disk, &mut rng);
        let mut reopened = open(&after, mode);
        check(&mut reopened, &acknowledged, mode, seed);
        // And the file takes writes again.
        let write = reopened.begin_write().unwrap();
        write
            .open_table(TABLE)
            .unwrap()
            .insert(u64::MAX - 1, 0)
            .unwrap();
        write.commit().unwrap();
    }
}
