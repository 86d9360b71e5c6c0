//! What keeps a journal safe before anything is written: it is private to its owner, one
//! program writes it at a time, it must be writable and its folder must exist, and rows too
//! long to be this program's are not read whole.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
use common::sql;

use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};

use kriegspiel_hall::{Journal, JournalError, Stamp, TableSetup};
use kriegspiel_table::{Event, Input};

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o7777
}

fn chmod(path: &Path, mode: u32) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

/// A journal with one game of `n` ticks.
fn written(path: &Path, n: i64) -> i64 {
    let mut j = Journal::open(path).unwrap();
    let game = j.new_game("table 1", &TableSetup::default(), 0).unwrap();
    for seq in 1..=n {
        let event = Event::new(seq as u64 * 100, Input::Tick);
        j.append(game, seq, &event, Stamp::default()).unwrap();
    }
    game
}

/// Whether this program may write a file its permissions say is read-only (root may).
fn writes_read_only_files(dir: &Path) -> bool {
    let probe = dir.join("probe");
    std::fs::write(&probe, "").unwrap();
    chmod(&probe, 0o444);
    let writes = std::fs::OpenOptions::new().write(true).open(&probe).is_ok();
    std::fs::remove_file(&probe).unwrap();
    writes
}

#[test]
fn a_new_journal_and_its_wal_are_readable_by_their_owner_only() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("j.sqlite");
    let mut j = Journal::open(&path).unwrap();
    j.new_game("t", &TableSetup::default(), 0).unwrap();
    assert_eq!(mode(&path), 0o600);
    assert_eq!(mode(&with_suffix(&path, "-wal")), 0o600);
    assert_eq!(mode(&with_suffix(&path, ".lock")), 0o600);
}

#[test]
fn an_existing_journal_others_may_read_is_made_private_when_opened_to_write() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("j.sqlite");
    let game = written(&path, 3);
    chmod(&path, 0o644);
    // Reading it changes nothing.
    drop(Journal::open_read_only(&path).unwrap());
    assert_eq!(mode(&path), 0o644);
    let j = Journal::open(&path).unwrap();
    assert_eq!(mode(&path), 0o600);
    assert_eq!(j.events(game).events.len(), 3);
}

#[test]
fn a_second_writer_is_refused_by_name_until_the_first_stops() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("j.sqlite");
    let game = written(&path, 3);
    let mut first = Journal::open(&path).unwrap();
    // The same file by another name is the same journal.
    let other_name = dir.path().join(".").join("j.sqlite");
    for second in [&path, &other_name] {
        let e = Journal::open(second).unwrap_err();
        assert!(matches!(e, JournalError::InUse { .. }), "{e:?}");
        let said = e.to_string();
        assert!(
            said.starts_with(&format!(
                "journal {} is in use by another console (",
                second.display()
            )),
            "{said}"
        );
        assert!(
            said.ends_with(&format!(
                ", pid {}); stop it first, or give --journal another file",
                std::process::id()
            )),
            "{said}"
        );
    }
    // Export reads beside the writer.
    let reader = Journal::open_read_only(&path).unwrap();
    assert_eq!(reader.events(game).events.len(), 3);
    first
        .append(game, 4, &Event::new(400, Input::Tick), Stamp::default())
        .unwrap();
    drop(first);
    let j = Journal::open(&path).unwrap();
    assert_eq!(j.events(game).events.len(), 4);
    drop(reader);
}

#[test]
fn a_hard_link_to_a_written_journal_is_the_same_journal() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("j.sqlite");
    let game = written(&path, 3);
    // A second name no path can tell from another file: its lock file is another one.
    let link = dir.path().join("again.sqlite");
    std::fs::hard_link(&path, &link).unwrap();
    let first = Journal::open(&path).unwrap();
    let e = Journal::open(&link).unwrap_err();
    assert!(matches!(e, JournalError::InUse { .. }), "{e:?}");
    assert_eq!(
        e.to_string(),
        format!(
            "journal {} is in use by another console (under another name of the same file); stop it first, or give --journal another file",
            link.display()
        )
    );
    // The refusal leaves no lock file of its own behind.
    assert!(!with_suffix(&link, ".lock").exists());
    drop(first);
    let j = Journal::open(&link).unwrap();
    assert_eq!(j.events(game).events.len(), 3);
}

#[test]
fn a_file_that_is_no_journal_is_left_as_it_was() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("notes.txt");
    std::fs::write(&path, "the pairings of round 3, not a journal\n").unwrap();
    chmod(&path, 0o644);
    let e = Journal::open(&path).unwrap_err();
    assert!(matches!(e, JournalError::NotAJournal { .. }), "{e:?}");
    assert_eq!(mode(&path), 0o644, "its mode was changed");
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        "the pairings of round 3, not a journal\n"
    );
    assert!(
        !with_suffix(&path, ".lock").exists(),
        "a lock file was left"
    );
    // A lock file that was there before is left there.
    std::fs::write(with_suffix(&path, ".lock"), "").unwrap();
    Journal::open(&path).unwrap_err();
    assert!(with_suffix(&path, ".lock").exists());
}

#[test]
fn a_device_given_for_the_journal_is_named_and_nothing_is_made_beside_it() {
    for device in ["/dev/null", "/dev/full"] {
        let e = Journal::open(Path::new(device)).unwrap_err();
        assert!(matches!(e, JournalError::NotAFile { .. }), "{e:?}");
        assert_eq!(
            e.to_string(),
            format!("journal {device} is not a file (a device, a pipe or a socket): give a file")
        );
        for beside in ["-journal", "-wal", ".lock"] {
            assert!(!Path::new(&format!("{device}{beside}")).exists());
        }
    }
}

#[test]
fn a_refused_writer_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("j.sqlite");
    // Another program holds the lock of a journal that does not exist yet.
    let lock = std::fs::File::create(with_suffix(&path, ".lock")).unwrap();
    lock.try_lock().unwrap();
    std::fs::write(with_suffix(&path, ".lock"), "kriegspiel, pid 1234\n").unwrap();
    let e = Journal::open(&path).unwrap_err().to_string();
    assert_eq!(
        e,
        format!(
            "journal {} is in use by another console (kriegspiel, pid 1234); stop it first, or give --journal another file",
            path.display()
        )
    );
    assert!(!path.exists());
    assert!(!with_suffix(&path, "-wal").exists());
    drop(lock);
    Journal::open(&path).unwrap();
}

#[test]
fn a_missing_folder_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("x").join("y");
    let path = folder.join("j.sqlite");
    let e = Journal::open(&path).unwrap_err().to_string();
    assert_eq!(
        e,
        format!(
            "the folder {} of the journal {} does not exist",
            folder.display(),
            path.display()
        )
    );
    assert!(!dir.path().join("x").exists());
}

/// A link planted where the lock goes (in a folder others may write) is not followed: the
/// file it names is neither written nor made private, and the journal is refused plainly.
#[test]
fn a_link_planted_as_the_lock_is_not_followed() {
    use std::os::unix::fs::PermissionsExt as _;
    let dir = tempfile::tempdir().unwrap();
    let victim = dir.path().join("victim.txt");
    std::fs::write(&victim, "keep me").unwrap();
    std::fs::set_permissions(&victim, std::fs::Permissions::from_mode(0o644)).unwrap();
    let path = dir.path().join("j.sqlite");
    std::os::unix::fs::symlink(&victim, dir.path().join("j.sqlite.lock")).unwrap();
    let e = Journal::open(&path).unwrap_err().to_string();
    assert!(
        e.contains("it is a symbolic link, which no journal makes: remove it"),
        "{e}"
    );
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep me");
    let mode = std::fs::metadata(&victim).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o644);
}

/// `--journal /tmp`: a folder given for the journal is named as one, with a file to give.
#[test]
fn a_folder_given_for_the_journal_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let e = Journal::open(dir.path()).unwrap_err().to_string();
    assert_eq!(
        e,
        format!(
            "journal {} is a folder; give a file in it ({})",
            dir.path().display(),
            dir.path().join("journal.sqlite").display()
        )
    );
    assert!(!dir.path().join("journal.sqlite").exists());
}

#[test]
fn a_journal_that_cannot_be_written_is_refused_at_open() {
    let dir = tempfile::tempdir().unwrap();
    if writes_read_only_files(dir.path()) {
        // Root writes files and folders whatever their permissions say: nothing here is
        // read-only for this program. The classification of SQLite's "read-only" error is
        // tested inside the crate (journal.rs), whoever runs the tests.
        return;
    }
    let path = dir.path().join("j.sqlite");
    let game = written(&path, 2);
    chmod(&path, 0o444);
    let e = Journal::open(&path).unwrap_err().to_string();
    assert!(
        e.starts_with(&format!("journal {} is read-only: ", path.display())),
        "{e}"
    );
    // Still exported.
    assert_eq!(
        Journal::open_read_only(&path)
            .unwrap()
            .events(game)
            .events
            .len(),
        2
    );
    // A new journal in a folder that cannot be written.
    let folder = dir.path().join("closed");
    std::fs::create_dir(&folder).unwrap();
    chmod(&folder, 0o555);
    let path = folder.join("j.sqlite");
    let e = Journal::open(&path).unwrap_err().to_string();
    assert!(
        e.starts_with(&format!("journal {} is read-only: ", path.display())),
        "{e}"
    );
    chmod(&folder, 0o755);
}

#[test]
fn an_overlong_event_row_is_damage_and_is_not_read() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("j.sqlite");
    let game = written(&path, 6);
    // 10 MB of text in the fourth event.
    sql(
        &path,
        "UPDATE events SET line = hex(zeroblob(5000000)) WHERE seq = 4",
    );
    let j = Journal::open_read_only(&path).unwrap();
    let read = j.events(game);
    assert_eq!(read.events.len(), 3);
    assert_eq!(
        read.damage.unwrap().to_string(),
        format!("journal damaged at game {game}, event 4: a row of 10000000 bytes, at most 4096")
    );
}

#[test]
fn an_overlong_game_row_is_refused_clearly() {
    for (column, says) in [
        ("name", "a name of 10000000 bytes, at most 400"),
        ("setup", "a set-up of 10000000 bytes, at most 65536"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("j.sqlite");
        let game = written(&path, 1);
        sql(
            &path,
            &format!("UPDATE games SET {column} = hex(zeroblob(5000000))"),
        );
        let e = Journal::open_read_only(&path).unwrap().games().unwrap_err();
        assert_eq!(
            e.to_string(),
            format!("journal damaged at game {game}, event 0: {says}")
        );
    }
}

#[test]
fn names_that_are_not_one_short_line_start_no_game() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("j.sqlite");
    let mut j = Journal::open(&path).unwrap();
    let e = j
        .new_game("table\n1", &TableSetup::default(), 0)
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "journal: game not started: name: a name is one line, without control characters (found a line break)"
    );
    let long = TableSetup {
        black_player: Some("x".repeat(101)),
        ..TableSetup::default()
    };
    let e = j.new_game("table 1", &long, 0).unwrap_err();
    assert_eq!(
        e.to_string(),
        "journal: game not started: black_player: a name of 101 characters; at most 100"
    );
    assert!(j.games().unwrap().is_empty());
    // A hundred characters of any script are kept.
    let fine = TableSetup {
        white_player: Some("Ж".repeat(100)),
        event: Some("🏰".repeat(100)),
        ..TableSetup::default()
    };
    j.new_game(&"🏰".repeat(100), &fine, 0).unwrap();
    assert_eq!(j.games().unwrap()[0].setup, fine);
}

/// The journal's file deleted (or replaced) under a running console: the next event is
/// refused, naming what happened, instead of going into a file nobody will find again.
#[test]
fn a_journal_deleted_while_written_refuses_the_next_event() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("j.sqlite");
    let mut j = Journal::open(&path).unwrap();
    let game = j.new_game("table 1", &TableSetup::default(), 0).unwrap();
    let e = Event::new(10, Input::Tick);
    j.append(game, 1, &e, Stamp::default()).unwrap();
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
    }
    let refused = j.append(game, 2, &e, Stamp::default()).unwrap_err();
    assert!(matches!(refused, JournalError::Gone { .. }), "{refused}");
    assert_eq!(
        refused.to_string(),
        format!(
            "journal {} was deleted or replaced while this console was writing it; the table stops, as nothing more could be kept",
            path.display()
        )
    );
}

#[test]
fn a_journal_made_for_a_refused_start_is_removed_and_any_other_kept() {
    let dir = tempfile::tempdir().unwrap();
    let files = |path: &Path| {
        ["", "-wal", "-shm", ".lock"]
            .iter()
            .filter(|s| with_suffix(path, s).exists())
            .count()
    };
    // Made by this start, no game in it: nothing is left.
    let new = dir.path().join("new.sqlite");
    Journal::open(&new).unwrap().close_refused();
    assert_eq!(files(&new), 0);
    // There before (even without a game): kept as it is.
    let old = dir.path().join("old.sqlite");
    drop(Journal::open(&old).unwrap());
    Journal::open(&old).unwrap().close_refused();
    assert!(old.exists());
    // Made by this start but holding a game: kept, with its game.
    let played = dir.path().join("played.sqlite");
    let mut j = Journal::open(&played).unwrap();
    j.new_game("t", &TableSetup::default(), 0).unwrap();
    j.close_refused();
    assert_eq!(Journal::open(&played).unwrap().games().unwrap().len(), 1);
}
