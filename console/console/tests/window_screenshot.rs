//! The real window under a virtual display: `kriegspiel-console --demo` on its own Xvfb,
//! a screenshot of the overview and of a table view while the demo game is in progress,
//! each checked not to be blank. Xvfb and ImageMagick come from tests/system-packages.sh;
//! a missing tool is a failure, not a skip.
//!
//! The README's pictures are these screenshots:
//! `KRIEGSPIEL_UPDATE_DOCS=1 cargo test -p kriegspiel-console --test window_screenshot`
//! writes docs/window-overview.png and docs/window-table.png.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use common::{tool, xvfb, Killed};

/// Runs the window with `args`, waits `wait`, and takes a screenshot of the whole screen.
fn shot(display: &str, args: &[&str], wait: Duration, out: &Path) {
    let dir = tempfile::tempdir().unwrap();
    let journal = dir.path().join("journal.sqlite");
    // The pictures show no path of the machine they were made on: the window runs in a
    // home folder of its own (the PGN file it proposes reads "~/…").
    let home = dir.path().join("home").join("arbiter");
    std::fs::create_dir_all(&home).unwrap();
    let child = Command::new(env!("CARGO_BIN_EXE_kriegspiel-console"))
        .args(args)
        .args(["--journal", journal.to_str().unwrap(), "--no-speech"])
        .current_dir(&home)
        .env("HOME", &home)
        .env("DISPLAY", display)
        .env_remove("WAYLAND_DISPLAY")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut app = Killed(child);
    std::thread::sleep(wait);
    if let Ok(Some(status)) = app.0.try_wait() {
        let mut err = String::new();
        if let Some(mut e) = app.0.stderr.take() {
            use std::io::Read;
            let _ = e.read_to_string(&mut err);
        }
        panic!("the window ended early ({status}): {err}");
    }
    let status = tool("import")
        .args(["-display", display, "-window", "root"])
        .arg(out)
        .status()
        .unwrap();
    assert!(status.success(), "import failed");
    drop(app);
}

/// Unique colours in the image (a blank screen has one).
fn colours(png: &Path) -> u64 {
    let out = tool("identify")
        .args(["-format", "%k"])
        .arg(png)
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).trim().parse().unwrap()
}

#[test]
fn the_real_window_shows_a_demo_game_under_xvfb() {
    let (_x, display) = xvfb();
    let dir = tempfile::tempdir().unwrap();
    let overview = dir.path().join("overview.png");
    let table = dir.path().join("table.png");
    shot(
        &display,
        &["--demo", "cincinnati", "wild16", "rand", "russian"],
        Duration::from_secs(9),
        &overview,
    );
    shot(
        &display,
        &["--demo", "--open", "1"],
        Duration::from_secs(14),
        &table,
    );
    for p in [&overview, &table] {
        let n = colours(p);
        assert!(
            n > 50,
            "{}: {n} colours: the screen looks blank",
            p.display()
        );
    }
    if std::env::var_os("KRIEGSPIEL_UPDATE_DOCS").is_some() {
        let docs = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs");
        std::fs::copy(&overview, docs.join("window-overview.png")).unwrap();
        std::fs::copy(&table, docs.join("window-table.png")).unwrap();
    }
}

/// Started from the desktop, the arbiter has no terminal: a journal in use is said in a
/// window of its own, which stays until he closes it (here, until the test has seen it).
#[test]
fn a_journal_in_use_is_refused_in_a_window_of_its_own() {
    let (_x, display) = xvfb();
    let dir = tempfile::tempdir().unwrap();
    let journal = dir.path().join("j.sqlite");
    let lock_path = dir.path().join("j.sqlite.lock");
    let lock = std::fs::File::create(&lock_path).unwrap();
    lock.try_lock().unwrap();
    std::fs::write(&lock_path, "kriegspiel, pid 4321\n").unwrap();
    let child = Command::new(env!("CARGO_BIN_EXE_kriegspiel-console"))
        .args(["--journal", journal.to_str().unwrap(), "--no-speech"])
        .env("DISPLAY", &display)
        .env_remove("WAYLAND_DISPLAY")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut app = Killed(child);
    let shot = dir.path().join("refusal.png");
    let start = std::time::Instant::now();
    // The window is found by its title (import waits for a click while there is none),
    // and taken again until it is drawn (a window just mapped is still black).
    let drawn = |shot: &std::path::Path| {
        Command::new("timeout")
            .arg("5")
            .arg(tool("import").get_program())
            .args([
                "-display",
                &display,
                "-window",
                "Kriegspiel console: not started",
            ])
            .arg(shot)
            .stderr(Stdio::null())
            .status()
            .unwrap()
            .success()
            && colours(shot) > 2
    };
    while !drawn(&shot) {
        if let Ok(Some(status)) = app.0.try_wait() {
            panic!("the console ended ({status}) without showing its refusal");
        }
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "no refusal window drawn in 30 s"
        );
        std::thread::sleep(Duration::from_millis(300));
    }
    // Still there until he closes it; standard error said it too.
    assert!(app.0.try_wait().unwrap().is_none());
    let _ = app.0.kill();
    let mut err = String::new();
    if let Some(mut e) = app.0.stderr.take() {
        use std::io::Read;
        let _ = e.read_to_string(&mut err);
    }
    assert!(
        err.contains("is in use by another console (kriegspiel, pid 4321)"),
        "{err}"
    );
    assert!(!journal.exists());
}
