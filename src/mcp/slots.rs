//! How many connections the HTTP server holds, so that sockets opened by someone
//! without the token can neither exhaust its file descriptors nor lock out a client
//! with the token.
//!
//! Two caps: all connections, and (smaller) the connections that have not yet sent a
//! request with the token. A new connection past the second cap closes the oldest such
//! connection: an attacker's idle sockets are the oldest, so a real client's fresh one
//! gets its turn, however many the attacker opens. (Refusing the new connection
//! instead would let the attacker's sockets keep it out.) When every slot is taken by
//! connections with the token, the server accepts no more until one closes; the kernel
//! queues the newcomers meanwhile. Idle connections of either kind are closed by the
//! header read timeout anyway; the caps bound what can pile up before it.
//!
//! A connection is counted as authenticated from its first request with the token, and
//! only unauthenticated ones are ever closed early, so no tool call is cut off.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use tokio::sync::Notify;

/// The connection caps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Caps {
    /// All connections held at once.
    pub total: usize,
    /// Connections held at once that have not sent the token yet.
    pub unauthenticated: usize,
}

/// Connections held at most, when the descriptor limit allows: far more than a team's
/// agents keep open (each keeps a few).
const MAX_CONNECTIONS: usize = 256;

/// Descriptors kept back for everything else the server opens (the ledger and its lock
/// files, the lead's socket, its peers, the token file).
const RESERVED_DESCRIPTORS: u64 = 64;

impl Caps {
    /// The caps for a process that may open `limit` descriptors (`None`: no limit):
    /// [`MAX_CONNECTIONS`] in all, or fewer so that the connections never take the
    /// descriptors the rest of the server needs; a quarter of them unauthenticated.
    pub fn for_limit(limit: Option<u64>) -> Caps {
        let room = limit.map_or(u64::MAX, |l| l.saturating_sub(RESERVED_DESCRIPTORS));
        let total = usize::try_from(room)
            .unwrap_or(usize::MAX)
            .clamp(4, MAX_CONNECTIONS);
        Caps {
            total,
            unauthenticated: total / 4,
        }
    }

    /// The caps for this process's limit on open files (its soft limit).
    pub fn for_this_process() -> Caps {
        let limit = rustix::process::getrlimit(rustix::process::Resource::Nofile);
        Caps::for_limit(limit.current)
    }
}

/// One connection as the slots see it.
pub struct Conn {
    pub peer: SocketAddr,
    authenticated: AtomicBool,
    /// Told when the connection is to be closed to make room.
    close: Notify,
}

impl Conn {
    /// Marks the connection as one of a client with the token: it is never closed to
    /// make room.
    pub fn authenticated(&self) {
        self.authenticated.store(true, Ordering::Relaxed);
    }

    fn is_authenticated(&self) -> bool {
        self.authenticated.load(Ordering::Relaxed)
    }

    /// Completes when the connection is to be closed to make room.
    pub async fn closed(&self) {
        self.close.notified().await;
    }
}

/// The connections held, oldest first.
pub struct Slots {
    caps: Caps,
    held: Mutex<Held>,
    /// Told when a slot frees.
    freed: Notify,
}

struct Held {
    next: u64,
    conns: BTreeMap<u64, Arc<Conn>>,
}

/// A held slot: dropping it (when the connection ends) frees it.
pub struct Slot {
    slots: Arc<Slots>,
    id: u64,
    pub conn: Arc<Conn>,
}

impl Drop for Slot {
    fn drop(&mut self) {
        let removed = self.slots.held().conns.remove(&self.id).is_some();
        if removed {
            // One permit is enough: only the accept loop waits.
            self.slots.freed.notify_one();
        }
    }
}

impl Slots {
    pub fn new(caps: Caps) -> Arc<Slots> {
        Arc::new(Slots {
            caps,
            held: Mutex::new(Held {
                next: 0,
                conns: BTreeMap::new(),
            }),
            freed: Notify::new(),
        })
    }

    fn held(&self) -> std::sync::MutexGuard<'_, Held> {
        // A poisoned lock only means a panic elsewhere mid-update of a map that is
        // whole after each call.
        self.held.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Waits until a connection may be accepted: a slot is free, or one is freed by
    /// closing the oldest unauthenticated connection. Returns the peers closed.
    pub async fn room(&self) -> Vec<SocketAddr> {
        loop {
            {
                let mut held = self.held();
                if held.conns.len() < self.caps.total {
                    return Vec::new();
                }
                if let Some(peer) = held.close_oldest_unauthenticated() {
                    return vec![peer];
                }
            }
            self.freed.notified().await;
        }
    }

    /// Holds a slot for a connection accepted from `peer`; when as many unauthenticated
    /// connections as the cap allows are held already, the oldest is closed. Returns the
    /// slot and the peers closed.
    pub fn hold(self: &Arc<Self>, peer: SocketAddr) -> (Slot, Vec<SocketAddr>) {
        let mut held = self.held();
        let mut closed = Vec::new();
        while held.unauthenticated() >= self.caps.unauthenticated {
            match held.close_oldest_unauthenticated() {
                Some(p) => closed.push(p),
                None => break,
            }
        }
        let id = held.next;
        held.next += 1;
        let conn = Arc::new(Conn {
            peer,
            authenticated: AtomicBool::new(false),
            close: Notify::new(),
        });
        held.conns.insert(id, conn.clone());
        drop(held);
        let slot = Slot {
            slots: self.clone(),
            id,
            conn,
        };
        (slot, closed)
    }
}

impl Held {
    fn unauthenticated(&self) -> usize {
        self.conns
            .values()
            .filter(|c| !c.is_authenticated())
            .count()
    }

    /// Takes the oldest unauthenticated connection out and tells it to close; its slot
    /// counts as free from now on.
    fn close_oldest_unauthenticated(&mut self) -> Option<SocketAddr> {
        let id = self
            .conns
            .iter()
            .find(|(_, c)| !c.is_authenticated())
            .map(|(&id, _)| id)?;
        let conn = self.conns.remove(&id)?;
        // A stored permit: the connection's task sees it at its next poll, even if it
        // is not waiting yet.
        conn.close.notify_one();
        Some(conn.peer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn peer(port: u16) -> SocketAddr {
        SocketAddr::from(([127, 0, 0, 1], port))
    }

    #[test]
    fn caps_leave_room_for_the_rest_of_the_server() {
        assert_eq!(
            Caps::for_limit(None),
            Caps {
                total: 256,
                unauthenticated: 64
            }
        );
        assert_eq!(Caps::for_limit(Some(1024)).total, 256);
        assert_eq!(Caps::for_limit(Some(200)).total, 136);
        assert_eq!(Caps::for_limit(Some(200)).unauthenticated, 34);
        assert_eq!(Caps::for_limit(Some(10)).total, 4);
        assert_eq!(Caps::for_limit(Some(10)).unauthenticated, 1);
    }

    #[test]
    fn the_oldest_unauthenticated_connection_makes_room() {
        let slots = Slots::new(Caps {
            total: 4,
            unauthenticated: 2,
        });
        let (a, closed) = slots.hold(peer(1));
        assert!(closed.is_empty());
        a.conn.authenticated();
        let (_b, _) = slots.hold(peer(2));
        let (_c, closed) = slots.hold(peer(3));
        assert!(closed.is_empty());
        // A third without the token: the oldest of them (b) goes, never a.
        let (_d, closed) = slots.hold(peer(4));
        assert_eq!(closed, [peer(2)]);
        assert_eq!(slots.held().conns.len(), 3);
    }

    #[test]
    fn a_full_server_waits_for_a_slot_or_closes_one_without_the_token() {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        runtime.block_on(async {
            let slots = Slots::new(Caps {
                total: 2,
                unauthenticated: 2,
            });
            let (a, _) = slots.hold(peer(1));
            let (b, _) = slots.hold(peer(2));
            a.conn.authenticated();
            // Full: b has no token, so it is closed to make room.
            assert_eq!(slots.room().await, [peer(2)]);
            b.conn.closed().await;
            drop(b);
            let (c, _) = slots.hold(peer(3));
            c.conn.authenticated();
            // Full of clients with the token: room only once one ends.
            let waiting = tokio::spawn({
                let slots = slots.clone();
                async move { slots.room().await }
            });
            tokio::task::yield_now().await;
            assert!(!waiting.is_finished());
            drop(a);
            assert!(waiting.await.unwrap().is_empty());
        });
    }
}
