//! Copying the write-ahead log back into the journal file, on a thread of its own.
//!
//! SQLite does it by itself inside the commit that makes the log pass 1,000 pages: that
//! commit then writes back about 4 MiB and syncs the file, and every event waiting behind
//! it waits that long. The journal's writers leave it to this thread instead, once a
//! second, in the mode that never waits for a reader or a writer (`PASSIVE`).

use std::path::Path;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::thread::JoinHandle;
use std::time::Duration;

use rusqlite::{Connection, OpenFlags};

/// How often the log is copied back: about a second of events stays in it.
const EVERY: Duration = Duration::from_secs(1);

/// Runs while its journal is open; stopped (and its last copy done) when dropped.
#[derive(Debug)]
pub(super) struct Checkpointer {
    stop: Option<mpsc::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl Checkpointer {
    /// Starts copying `path`'s log back; `None` if it cannot (a connection or a thread
    /// refused), and the writers then keep SQLite's own copying.
    pub(super) fn start(path: &Path) -> Option<Checkpointer> {
        let conn = Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .ok()?;
        let (stop, stopped) = mpsc::channel::<()>();
        let thread = std::thread::Builder::new()
            .name("journal-checkpoint".to_owned())
            .spawn(move || loop {
                let last = match stopped.recv_timeout(EVERY) {
                    Err(RecvTimeoutError::Timeout) => false,
                    Ok(()) | Err(RecvTimeoutError::Disconnected) => true,
                };
                // A copy that fails (a full disk) leaves the log as it is: nothing is lost,
                // the writers say the disk's trouble at their next commit, and the next
                // copy tries again.
                let _ = conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(()));
                if last {
                    return;
                }
            })
            .ok()?;
        Some(Checkpointer {
            stop: Some(stop),
            thread: Some(thread),
        })
    }

    /// The writers' setting: SQLite's own copying off when this thread does it.
    pub(super) fn autocheckpoint(running: bool) -> i64 {
        if running {
            0
        } else {
            1000
        }
    }
}

impl Drop for Checkpointer {
    fn drop(&mut self) {
        drop(self.stop.take());
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use std::time::Instant;

    use super::super::{InboxRow, Journal};

    /// The log is copied back while the journal is open, by this thread alone: no writer's
    /// commit does it (SQLite's threshold is off on both writers).
    #[test]
    fn the_log_is_copied_back_beside_the_writers_not_by_them() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("j.sqlite");
        let journal = Journal::open(&path).unwrap();
        let mut inbox = journal.inbox().unwrap();
        let setting = |conn: &rusqlite::Connection| -> i64 {
            conn.pragma_query_value(None, "wal_autocheckpoint", |r| r.get(0))
                .unwrap()
        };
        assert_eq!(setting(&journal.conn), 0);
        assert_eq!(setting(&inbox.conn), 0);
        let before = std::fs::metadata(&path).unwrap().len();
        // About 2 MiB: under SQLite's own threshold, so only this thread copies it back.
        for batch in 0..8u64 {
            let rows: Vec<InboxRow> = (0..256u64)
                .map(|i| (7, 1, batch * 256 + i, 0, vec![0x5a; 1024]))
                .collect();
            inbox.store(&rows).unwrap();
        }
        let wal = path.with_file_name("j.sqlite-wal");
        assert!(std::fs::metadata(&wal).unwrap().len() > 2_000_000);
        let until = Instant::now() + std::time::Duration::from_secs(10);
        while std::fs::metadata(&path).unwrap().len() < before + 2_000_000 {
            assert!(
                Instant::now() < until,
                "the journal file did not grow: the log was not copied back"
            );
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
    }
}
