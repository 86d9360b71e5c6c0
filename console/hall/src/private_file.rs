//! Files written for their user alone (a game's PGN, a player's voice enrolment): whole or
//! not at all, readable by their owner only, and never through a link someone else planted
//! (a file beside others' in a shared folder is replaced by name, not written through).

use std::fmt;
use std::io::Write as _;
use std::os::unix::fs::FileTypeExt as _;
use std::path::{Path, PathBuf};

/// What to do when the file is there already.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Existing {
    Refuse,
    Replace,
}

/// Why a private file was not written; nothing was, then.
#[derive(Debug)]
pub enum WriteError {
    /// The file is there and [`Existing::Refuse`] was asked.
    Exists(PathBuf),
    IsAFolder(PathBuf),
    /// The folder to write into is not there.
    NoFolder(PathBuf),
    /// A block device: no export goes to a disk.
    IsADevice(PathBuf),
    /// The file is one the program reads (the journal being exported, a recording).
    IsTheSource {
        path: PathBuf,
        source: PathBuf,
    },
    Io {
        path: PathBuf,
        error: std::io::Error,
    },
}

impl fmt::Display for WriteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WriteError::Exists(p) => write!(f, "{} already exists", p.display()),
            WriteError::IsAFolder(p) => write!(f, "{} is a folder: give a file", p.display()),
            WriteError::NoFolder(p) => write!(
                f,
                "the folder {} does not exist: make it first, or give a file in another",
                p.display()
            ),
            WriteError::IsADevice(p) => write!(f, "{} is a disk device: give a file", p.display()),
            WriteError::IsTheSource { path, source } if path == source => {
                write!(f, "{} is the file being read: give another", path.display())
            }
            WriteError::IsTheSource { path, source } => write!(
                f,
                "{} is {} (the file being read) under another name: give another",
                path.display(),
                source.display()
            ),
            WriteError::Io { path, error } => write!(f, "cannot write {}: {error}", path.display()),
        }
    }
}

impl std::error::Error for WriteError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            WriteError::Io { error, .. } => Some(error),
            _ => None,
        }
    }
}

/// Whether this program's user owns the file (`/proc/self` belongs to the program's user).
pub fn owned_by_us(meta: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt as _;
    std::fs::metadata("/proc/self").is_ok_and(|me| me.uid() == meta.uid())
}

/// Whether two paths name the same file (device and inode; links followed).
pub fn same_file(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt as _;
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(a), Ok(b)) => (a.dev(), a.ino()) == (b.dev(), b.ino()),
        _ => false,
    }
}

/// Writes `bytes` to `path`, mode 0600, never onto one of `sources` (the files being read).
///
/// A new or regular file is written beside it under a temporary name and renamed into
/// place: a reader never sees half of it, a failure leaves the old one, and a link at
/// `path` is replaced, never followed. A character device or a pipe (`/dev/stdout`) is
/// written into, not replaced.
pub fn write_private(
    path: &Path,
    bytes: &[u8],
    existing: Existing,
    sources: &[&Path],
) -> Result<(), WriteError> {
    write_with_mode(path, bytes, existing, sources, 0o600)
}

/// [`write_private`] with another mode (a certificate others may read).
pub fn write_with_mode(
    path: &Path,
    bytes: &[u8],
    existing: Existing,
    sources: &[&Path],
    mode: u32,
) -> Result<(), WriteError> {
    use std::os::unix::fs::PermissionsExt as _;
    let io = |error| WriteError::Io {
        path: path.to_owned(),
        error,
    };
    if let Some(source) = sources.iter().find(|s| same_file(path, s)) {
        return Err(WriteError::IsTheSource {
            path: path.to_owned(),
            source: source.to_path_buf(),
        });
    }
    let there = std::fs::symlink_metadata(path).is_ok();
    match std::fs::metadata(path) {
        Ok(m) if m.is_dir() => return Err(WriteError::IsAFolder(path.to_owned())),
        _ if there && existing == Existing::Refuse => {
            return Err(WriteError::Exists(path.to_owned()))
        }
        Ok(m) if m.file_type().is_block_device() => {
            return Err(WriteError::IsADevice(path.to_owned()))
        }
        Ok(m) if !m.is_file() => return write_into(path, bytes).map_err(io),
        _ => {}
    }
    let folder = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or_else(|| Path::new("."));
    if !folder.is_dir() {
        return Err(WriteError::NoFolder(folder.to_owned()));
    }
    // tempfile makes its files 0600, with a name nobody can guess beforehand; the mode
    // asked is set before the file has its name. Its error names that file, which the
    // user never asked for: only the kind is said.
    let mut part = tempfile::Builder::new()
        .prefix(".kriegspiel-")
        .suffix(".part")
        .tempfile_in(folder)
        .map_err(|e| io(std::io::Error::from(e.kind())))?;
    part.write_all(bytes)
        .and_then(|()| {
            part.as_file()
                .set_permissions(std::fs::Permissions::from_mode(mode))
        })
        .and_then(|()| part.as_file().sync_all())
        .map_err(io)?;
    match existing {
        Existing::Replace => part.persist(path).map(drop),
        Existing::Refuse => part.persist_noclobber(path).map(drop),
    }
    .map_err(|e| match e.error.kind() {
        std::io::ErrorKind::AlreadyExists => WriteError::Exists(path.to_owned()),
        _ => io(e.error),
    })
}

/// Writes into a character device or a pipe. Opened without waiting: a pipe nobody reads
/// is said at once (the window would freeze on it), then written as any file is.
fn write_into(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use rustix::fs::OFlags;
    use std::os::unix::fs::OpenOptionsExt as _;
    let no_wait = i32::try_from(OFlags::NONBLOCK.bits()).unwrap_or(0);
    let mut into = std::fs::OpenOptions::new()
        .write(true)
        .custom_flags(no_wait)
        .open(path)
        .map_err(|e| match e.raw_os_error() {
            Some(code) if code == rustix::io::Errno::NXIO.raw_os_error() => {
                std::io::Error::other("it is a pipe nobody reads")
            }
            _ => e,
        })?;
    let flags = rustix::fs::fcntl_getfl(&into)?;
    rustix::fs::fcntl_setfl(&into, flags - OFlags::NONBLOCK)?;
    into.write_all(bytes)?;
    into.flush()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use std::os::unix::fs::PermissionsExt as _;

    use super::*;

    fn mode(p: &Path) -> u32 {
        std::fs::metadata(p).unwrap().permissions().mode() & 0o777
    }

    #[test]
    fn a_file_is_written_whole_and_private_and_a_link_is_replaced_not_followed() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("game.pgn");
        // An old export others could read: replaced by a private one.
        std::fs::write(&out, "old").unwrap();
        std::fs::set_permissions(&out, std::fs::Permissions::from_mode(0o644)).unwrap();
        write_private(&out, b"1. e4", Existing::Replace, &[]).unwrap();
        assert_eq!(std::fs::read(&out).unwrap(), b"1. e4");
        assert_eq!(mode(&out), 0o600);
        // A link planted at the name: the file it names is left alone.
        let victim = dir.path().join("victim");
        std::fs::write(&victim, "mine").unwrap();
        let planted = dir.path().join("planted.pgn");
        std::os::unix::fs::symlink(&victim, &planted).unwrap();
        write_private(&planted, b"1. d4", Existing::Replace, &[]).unwrap();
        assert_eq!(std::fs::read(&victim).unwrap(), b"mine");
        assert!(!std::fs::symlink_metadata(&planted).unwrap().is_symlink());
        assert_eq!(std::fs::read(&planted).unwrap(), b"1. d4");
        // Nothing left beside them.
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 3);
    }

    #[test]
    fn what_may_not_be_written_is_refused_and_left_as_it_was() {
        let dir = tempfile::tempdir().unwrap();
        let journal = dir.path().join("j.sqlite");
        std::fs::write(&journal, "journal").unwrap();
        let again = dir.path().join("again.sqlite");
        std::fs::hard_link(&journal, &again).unwrap();
        let e = write_private(&again, b"x", Existing::Replace, &[&journal]).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!(
                "{} is {} (the file being read) under another name: give another",
                again.display(),
                journal.display()
            )
        );
        let e = write_private(&journal, b"x", Existing::Replace, &[&journal]).unwrap_err();
        assert!(
            e.to_string()
                .ends_with("is the file being read: give another"),
            "{e}"
        );
        let e = write_private(&journal, b"x", Existing::Refuse, &[]).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!("{} already exists", journal.display())
        );
        let e = write_private(dir.path(), b"x", Existing::Replace, &[]).unwrap_err();
        assert!(e.to_string().ends_with("is a folder: give a file"), "{e}");
        assert_eq!(std::fs::read(&journal).unwrap(), b"journal");
        // A pipe nobody reads is said at once, not waited on.
        let fifo = dir.path().join("fifo.pgn");
        assert!(std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success());
        let e = write_private(&fifo, b"x", Existing::Replace, &[]).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!("cannot write {}: it is a pipe nobody reads", fifo.display())
        );
        std::fs::remove_file(&fifo).unwrap();
        // A character device is written into, never replaced.
        write_private(Path::new("/dev/null"), b"x", Existing::Replace, &[]).unwrap();
        let null = std::fs::metadata("/dev/null").unwrap();
        assert!(null.file_type().is_char_device());
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2);
    }
}
