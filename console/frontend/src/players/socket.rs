//! The players' socket: bound private to this user, its file removed when the console
//! closes (and only if it is still ours), and the listener that accepts terminals.

use std::io::Write;
use std::os::unix::net::UnixListener;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use super::limits::MAX_CONNECTIONS;
use super::session::{serve, Shared};

/// The socket file this console made, known by its inode so that a file someone else has
/// put at the path since is left alone.
#[derive(Debug)]
pub(super) struct SocketFile {
    pub(super) path: PathBuf,
    pub(super) id: Option<(u64, u64)>,
}

pub(super) fn file_id(path: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    std::fs::symlink_metadata(path)
        .ok()
        .map(|m| (m.dev(), m.ino()))
}

impl SocketFile {
    pub(super) fn remove(&self) {
        if self.id.is_some() && file_id(&self.path) == self.id {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

impl Drop for SocketFile {
    fn drop(&mut self) {
        self.remove();
    }
}

/// The socket beside a journal: `journal.sqlite` → `journal.players.sock`.
pub fn default_socket(journal: &Path) -> PathBuf {
    journal.with_extension("players.sock")
}

/// Binds a socket at `path` that only this user may connect to (mode 0600, whatever the
/// umask): it is made in a private folder, restricted, then moved into place.
pub(super) fn bind_private(path: &Path) -> Result<UnixListener, String> {
    use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
    let parent = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let private = parent.join(format!(".{name}.{}.tmp", std::process::id()));
    let _ = std::fs::remove_dir_all(&private);
    std::fs::DirBuilder::new()
        .mode(0o700)
        .create(&private)
        .map_err(|e| format!("cannot open the players' socket {}: {e}", path.display()))?;
    let inside = private.join("s");
    let bound = UnixListener::bind(&inside)
        .and_then(|l| {
            std::fs::set_permissions(&inside, std::fs::Permissions::from_mode(0o600))?;
            std::fs::rename(&inside, path)?;
            Ok(l)
        })
        .map_err(|e| format!("cannot open the players' socket {}: {e}", path.display()));
    let _ = std::fs::remove_dir_all(&private);
    bound
}

/// Accepts terminals until the process ends; each on a thread of its own, at most
/// [`MAX_CONNECTIONS`] at once. An error (no file descriptors left) backs off instead of
/// spinning.
pub(super) fn accept(listener: &UnixListener, shared: &Arc<Shared>) {
    let mut backoff = Duration::from_millis(10);
    loop {
        match listener.accept() {
            Ok((mut stream, _)) => {
                backoff = Duration::from_millis(10);
                let open = shared.connections.fetch_add(1, Ordering::AcqRel) + 1;
                let guard = Connection(shared.clone());
                if open > MAX_CONNECTIONS {
                    let _ = stream.set_write_timeout(Some(Duration::from_millis(100)));
                    let _ = writeln!(
                        stream,
                        "error: {MAX_CONNECTIONS} terminals are connected to this console already"
                    );
                    drop(guard);
                    continue;
                }
                let shared = shared.clone();
                let spawned =
                    std::thread::Builder::new()
                        .name("player".to_owned())
                        .spawn(move || {
                            let _guard = guard;
                            serve(stream, &shared);
                        });
                if spawned.is_err() {
                    std::thread::sleep(backoff);
                }
            }
            Err(_) => {
                std::thread::sleep(backoff);
                backoff = (backoff * 2).min(Duration::from_secs(1));
            }
        }
    }
}

/// Counts an open connection until it is dropped.
pub(super) struct Connection(pub(super) Arc<Shared>);

impl Drop for Connection {
    fn drop(&mut self) {
        self.0.connections.fetch_sub(1, Ordering::AcqRel);
    }
}
