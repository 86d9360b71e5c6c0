//! The journal's files: its folder, the lock that keeps a second writer away (and names
//! the holder), and the owner-only mode of the journal and its `-wal` and `-shm`.

use std::fs::{File, OpenOptions};
use std::io::{Read as _, Seek as _, Write as _};
use std::os::unix::fs::{OpenOptionsExt as _, PermissionsExt as _};
use std::path::{Path, PathBuf};

use super::JournalError;
use crate::setup::MAX_NAME;

/// The most of a lock file read for the name of the program holding it.
const MAX_HOLDER: u64 = 256;

/// The folder a journal is in (`.` for a bare file name).
pub(super) fn folder_of(path: &Path) -> &Path {
    path.parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or_else(|| Path::new("."))
}

/// The lock file of the journal at `path` (a file no export may overwrite: the next
/// writer would be refused under a wrong name).
pub fn lock_file_of(path: &Path) -> PathBuf {
    lock_path(path)
}

/// `<journal>.lock`, beside the journal's real file: every name of one journal (a relative
/// path, a link) has the same lock.
fn lock_path(path: &Path) -> PathBuf {
    let real = std::fs::canonicalize(path).or_else(|_| {
        std::fs::canonicalize(folder_of(path))
            .map(|folder| folder.join(path.file_name().unwrap_or_default()))
    });
    let mut name = real.unwrap_or_else(|_| path.to_owned()).into_os_string();
    name.push(".lock");
    PathBuf::from(name)
}

/// Whether an I/O error means the file or its folder may not be written.
fn is_read_only(e: &std::io::Error) -> bool {
    matches!(
        e.kind(),
        std::io::ErrorKind::PermissionDenied | std::io::ErrorKind::ReadOnlyFilesystem
    )
}

/// What keeps a second writer away while a journal is written: its lock file, which names
/// the holder, and the kernel's lock on the journal file itself, which every name of the
/// file shares (a hard link is a second name no path can tell). Both go when the program
/// ends, however it ends.
#[derive(Debug)]
pub(super) struct WriterLock {
    _lock: File,
    /// The lock file, when this program made it: removed again if the journal is refused.
    made: Option<PathBuf>,
    journal: Option<File>,
}

impl WriterLock {
    /// Takes the kernel's lock on the journal's own file, or says that another console
    /// writes it under another name. A file that cannot be opened is left to SQLite, which
    /// says why.
    pub(super) fn hold_journal(&mut self, path: &Path) -> Result<(), JournalError> {
        let Ok(file) = File::open(path) else {
            return Ok(());
        };
        match file.try_lock() {
            Ok(()) => {
                self.journal = Some(file);
                Ok(())
            }
            Err(std::fs::TryLockError::WouldBlock) => Err(JournalError::InUse {
                path: path.to_owned(),
                holder: Some("under another name of the same file".to_owned()),
            }),
            Err(std::fs::TryLockError::Error(error)) => Err(JournalError::Lock {
                path: path.to_owned(),
                lock: path.to_owned(),
                error,
            }),
        }
    }

    /// Lets go of a journal that was refused: a lock file this program made is removed
    /// (while still held), so that a refusal leaves nothing beside the file it refused.
    pub(super) fn refused(self) {
        if let Some(made) = &self.made {
            let _ = std::fs::remove_file(made);
        }
    }
}

/// Takes the journal's lock file for this program, or says who holds it.
pub(super) fn take_lock(path: &Path) -> Result<WriterLock, JournalError> {
    let lock = lock_path(path);
    // Never through a link planted where the lock goes (a folder others may write): the
    // file it names would be written and made private (attack review).
    let no_follow = i32::try_from(rustix::fs::OFlags::NOFOLLOW.bits()).unwrap_or(0);
    let open = |new: bool| {
        OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .create_new(new)
            .truncate(false)
            .mode(0o600)
            .custom_flags(no_follow)
            .open(&lock)
    };
    let (opened, made) = match open(true) {
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => (open(false), None),
        opened => (opened, Some(lock.clone())),
    };
    let mut file = opened.map_err(|error| {
        if is_read_only(&error) {
            JournalError::ReadOnly {
                path: path.to_owned(),
                detail: format!(
                    "its lock file {} cannot be written: {error}",
                    lock.display()
                ),
            }
        } else if std::fs::symlink_metadata(&lock).is_ok_and(|m| m.file_type().is_symlink()) {
            JournalError::Lock {
                path: path.to_owned(),
                lock: lock.clone(),
                error: std::io::Error::other(
                    "it is a symbolic link, which no journal makes: remove it",
                ),
            }
        } else {
            JournalError::Lock {
                path: path.to_owned(),
                lock: lock.clone(),
                error,
            }
        }
    })?;
    make_private(&lock);
    match file.try_lock() {
        Ok(()) => {}
        Err(std::fs::TryLockError::WouldBlock) => {
            return Err(JournalError::InUse {
                path: path.to_owned(),
                holder: read_holder(&mut file),
            })
        }
        Err(std::fs::TryLockError::Error(error)) => {
            return Err(JournalError::Lock {
                path: path.to_owned(),
                lock,
                error,
            })
        }
    }
    // Who holds it, for the refusal of the next one; a lock file that cannot say it still
    // locks.
    let _ = write_holder(&mut file);
    Ok(WriterLock {
        _lock: file,
        made,
        journal: None,
    })
}

/// Writes "PROGRAM, pid PID" into the held lock file.
fn write_holder(file: &mut File) -> std::io::Result<()> {
    let program = std::env::args_os()
        .next()
        .and_then(|arg0| {
            Path::new(&arg0)
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
        })
        .map(|name| one_line(&name))
        .filter(|name| !name.is_empty())
        .unwrap_or_else(|| "a program".to_owned());
    file.set_len(0)?;
    file.rewind()?;
    writeln!(file, "{program}, pid {}", std::process::id())?;
    file.flush()
}

/// What the lock file held by another program says of it (bounded, one line).
fn read_holder(file: &mut File) -> Option<String> {
    file.rewind().ok()?;
    let mut bytes = Vec::new();
    file.take(MAX_HOLDER).read_to_end(&mut bytes).ok()?;
    let text = String::from_utf8_lossy(&bytes);
    let line = one_line(text.lines().next().unwrap_or_default());
    (!line.is_empty()).then_some(line)
}

/// A name for a message: no control characters, at most 100 characters.
fn one_line(text: &str) -> String {
    text.chars()
        .filter(|c| !c.is_control())
        .take(MAX_NAME)
        .collect::<String>()
        .trim()
        .to_owned()
}

/// Creates a new journal file readable and writable by its owner only (SQLite gives its
/// `-wal` and `-shm` files the same mode). Whether the file was there already.
pub(super) fn create_private(path: &Path) -> Result<bool, JournalError> {
    match OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
    {
        // An empty file is an empty SQLite database.
        Ok(_) => Ok(false),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(true),
        Err(e) if is_read_only(&e) => Err(JournalError::ReadOnly {
            path: path.to_owned(),
            detail: format!("it cannot be created in {}: {e}", folder_of(path).display()),
        }),
        // SQLite says what is wrong with it when it opens it.
        Err(_) => Ok(true),
    }
}

/// An existing journal of ours that others may read is made private, with its `-wal` and
/// `-shm`: once it is known to be a journal (a file that is not one is left as it was).
pub(super) fn make_journal_private(path: &Path) {
    for file in files_of(path) {
        make_private(&file);
    }
}

/// A journal's file and the two SQLite keeps beside it (`-wal`, `-shm`): what holds its
/// games, which nothing may write over.
pub fn files_of(journal: &Path) -> [PathBuf; 3] {
    ["", "-wal", "-shm"].map(|suffix| {
        let mut name = journal.as_os_str().to_owned();
        name.push(suffix);
        PathBuf::from(name)
    })
}

/// Takes the group's and the others' rights off a file of ours; a file that is not ours,
/// or that cannot be changed, is left as it is.
fn make_private(path: &Path) {
    let Ok(meta) = std::fs::metadata(path) else {
        return;
    };
    let mode = meta.permissions().mode();
    if !meta.is_file() || mode & 0o077 == 0 || !crate::private_file::owned_by_us(&meta) {
        return;
    }
    let _ = std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode & 0o7700));
}
