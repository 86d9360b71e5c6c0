use super::*;

#[test]
fn sha256_and_hmac_meet_their_standards() {
    let cases: [(&[u8], &str); 3] = [
        (
            b"",
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        ),
        (
            b"abc",
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
        ),
        (
            b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
        ),
    ];
    for (data, digest) in cases {
        assert_eq!(hex(&sha256(data)), digest);
    }
    assert_eq!(
        hex(&sha256(&vec![b'a'; 1_000_000])),
        "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"
    );
    // RFC 4231, test cases 1, 2 and 6 (a key longer than a block).
    assert_eq!(
        hex(&hmac_sha256(&[0x0b; 20], b"Hi There")),
        "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"
    );
    assert_eq!(
        hex(&hmac_sha256(b"Jefe", b"what do ya want for nothing?")),
        "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
    );
    assert_eq!(
        hex(&hmac_sha256(
            &[0xaa; 131],
            b"Test Using Larger Than Block-Size Key - Hash Key First"
        )),
        "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
    );
    // Every padding length, against Python's hashlib and hmac (the digests of all,
    // hashed in turn).
    let mut all = Vec::new();
    for n in 0..200usize {
        let data: Vec<u8> = (0..n).map(|i| ((i * 7 + n) % 256) as u8).collect();
        let key: Vec<u8> = (0..(n % 100) as u8).collect();
        all.extend_from_slice(&sha256(&data));
        all.extend_from_slice(&hmac_sha256(&key, &data));
    }
    assert_eq!(
        hex(&sha256(&all)),
        "d79535954db15ff536057ba3d294c36a4d211ef036a8720ec3d437826ea6eae8"
    );
    assert_eq!(base32(b"foobar"), "mzxw6ytboi");
}

fn round_file(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

#[test]
fn passwords_are_stable_and_differ_per_user_and_per_round() {
    let dir = tempfile::tempdir().unwrap();
    let a = round_file(dir.path(), "a.toml", "");
    let b = round_file(dir.path(), "b.toml", "");
    let first = RoundSecret::of_round(&a).unwrap();
    assert_eq!(first.path(), dir.path().join("a.toml.secret"));
    let mode = std::fs::metadata(first.path())
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600);
    let again = RoundSecret::of_round(&a).unwrap();
    let other = RoundSecret::of_round(&b).unwrap();
    let p = first.password("seat-1-white");
    assert_eq!(p.len(), PASSWORD_CHARS);
    assert!(p
        .chars()
        .all(|c| c.is_ascii_lowercase() || ('2'..='7').contains(&c)));
    assert_eq!(again.password("seat-1-white"), p);
    assert_eq!(again.round_id(), first.round_id());
    assert_eq!(first.round_id().len(), 8);
    assert_ne!(first.password("seat-1-black"), p);
    assert_ne!(other.password("seat-1-white"), p);
    assert_ne!(other.round_id(), first.round_id());
    assert!(first.accepts("seat-1-white", &p));
    assert!(!first.accepts("seat-1-black", &p));
    assert!(!other.accepts("seat-1-white", &p));
    assert!(!format!("{first:?}").contains(&hex(&first.key)));
    // A known secret gives known passwords, on every machine.
    let known = round_file(
        dir.path(),
        "k.toml.secret",
        &format!("{}\n", "ab".repeat(32)),
    );
    std::fs::set_permissions(&known, std::fs::Permissions::from_mode(0o600)).unwrap();
    let known = RoundSecret::read(&known).unwrap();
    let mac = hmac_sha256(&[0xab; 32], b"board-7");
    assert_eq!(known.password("board-7"), base32(&mac)[..PASSWORD_CHARS]);
    assert_eq!(known.round_id(), hex(&sha256(&[0xab; 32])[..4]));
}

#[test]
fn a_secret_others_may_read_or_a_broken_one_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let round = round_file(dir.path(), "round.toml", "");
    let secret = RoundSecret::of_round(&round).unwrap();
    std::fs::set_permissions(secret.path(), std::fs::Permissions::from_mode(0o640)).unwrap();
    let e = RoundSecret::of_round(&round).unwrap_err();
    assert!(
        e.contains("round.toml.secret") && e.contains("mode 640"),
        "{e}"
    );
    assert!(e.contains("chmod 600"), "{e}");
    std::fs::write(secret.path(), "not hex\n").unwrap();
    std::fs::set_permissions(secret.path(), std::fs::Permissions::from_mode(0o600)).unwrap();
    let e = RoundSecret::of_round(&round).unwrap_err();
    assert!(e.contains("not a round secret"), "{e}");
    std::fs::remove_file(secret.path()).unwrap();
    std::fs::create_dir(secret.path()).unwrap();
    let e = RoundSecret::of_round(&round).unwrap_err();
    assert!(e.contains("must be a file"), "{e}");
}

const ROUND: &str = r#"
[[table]]
name = "Board 1"
white = "board:7"
black = "board:8"
white_player = "Ann"
[[table]]
name = "2"
white = "board:9"
"#;

#[test]
fn a_round_has_its_boards_its_seats_its_consoles_and_the_arbiter() {
    let dir = tempfile::tempdir().unwrap();
    let round = round_file(dir.path(), "round.toml", ROUND);
    let members = RoundMembers::read(&round).unwrap();
    let users: Vec<String> = members.principals().iter().map(|p| p.to_string()).collect();
    assert_eq!(
        users,
        [
            "board-7",
            "board-8",
            "board-9",
            "seat-1-white",
            "seat-1-black",
            "seat-2-white",
            "seat-2-black",
            "console-main",
            "arbiter",
            "onlooker"
        ]
    );
    assert_eq!(members.tables[0].players.white.as_deref(), Some("Ann"));
    assert_eq!(members.tables[1].boards.black, None);
    // Consoles named by the tables (read without the round's other checks).
    let named = round_file(
        dir.path(),
        "east.toml",
        "[[table]]\nname = \"1\"\nconsole = \"east\"\n[[table]]\nname = \"2\"\nconsole = \"east\"\n[[table]]\nname = \"3\"\nconsole = \"main\"\n",
    );
    assert_eq!(round_consoles(&named).unwrap(), ["east"]);
    let m = RoundMembers::new(&[], &round_consoles(&named).unwrap());
    assert_eq!(m.consoles, ["main", "east"]);
    let bad = round_file(
        dir.path(),
        "bad.toml",
        "[[table]]\nconsole = \"East Wing\"\n",
    );
    let e = round_consoles(&bad).unwrap_err();
    assert!(e.contains("bad.toml: table 1: console:"), "{e}");
}

#[test]
fn the_acl_names_only_each_users_own_topics() {
    let dir = tempfile::tempdir().unwrap();
    let round = round_file(dir.path(), "round.toml", ROUND);
    let acl = RoundMembers::read(&round).unwrap().acl("0123abcd");
    assert!(!acl.contains("pattern"), "{acl}");
    assert!(acl.starts_with("# Kriegspiel round 0123abcd"));
    let blocks: Vec<&str> = acl.split("\nuser ").skip(1).collect();
    assert_eq!(blocks.len(), 10);
    let block = |user: &str| -> Vec<&str> {
        let b = blocks
            .iter()
            .find(|b| b.lines().next() == Some(user))
            .unwrap();
        b.lines().skip(1).filter(|l| !l.is_empty()).collect()
    };
    assert_eq!(block("onlooker"), ["topic read kriegspiel/table/+/public"]);
    assert_eq!(
        block("board-8"),
        [
            "topic write kriegspiel/board/8/events",
            "topic write kriegspiel/board/8/status",
            "topic read kriegspiel/board/8/ack",
            "topic read kriegspiel/board/8/cmd"
        ]
    );
    assert_eq!(
        block("seat-2-black"),
        [
            "topic read kriegspiel/table/2/public",
            "topic read kriegspiel/table/2/black/private",
            "topic write kriegspiel/table/2/black/input"
        ]
    );
    assert_eq!(block("arbiter"), ["topic readwrite kriegspiel/#"]);
    assert_eq!(block("console-main"), ["topic readwrite kriegspiel/#"]);
    // Only consoles and the arbiter have a wildcard.
    for b in &blocks {
        let user = b.lines().next().unwrap();
        if b.contains('#') {
            assert!(user == "arbiter" || user.starts_with("console-"), "{b}");
        }
    }
}

#[test]
fn a_seat_file_reads_back_and_keeps_its_password_out_of_debug() {
    let dir = tempfile::tempdir().unwrap();
    let round = round_file(dir.path(), "round.toml", ROUND);
    let secret = RoundSecret::of_round(&round).unwrap();
    let place = SeatPlace::Table {
        no: 1,
        color: Color::Black,
    };
    let seat = SeatFile::new(&secret, "mqtt://10.0.0.2:1883", place);
    assert_eq!(seat.username, "seat-1-black");
    assert!(secret.accepts("seat-1-black", &seat.password));
    let text = seat.text("Kriegspiel seat: table 1, Black.\nKeep it.");
    assert!(text.starts_with("# Kriegspiel seat: table 1, Black.Keep it.\nround = "));
    assert!(text.contains("color = \"black\"\n"), "{text}");
    assert_eq!(SeatFile::parse(&text, "s").unwrap(), seat);
    assert!(!format!("{seat:?}").contains(&seat.password));
    let board = SeatFile::new(&secret, "mqtts://hall:8883", SeatPlace::Board(7));
    assert_eq!(board.username, "board-7");
    assert!(board.text("b").contains("\nboard = 7\n"));
    assert_eq!(SeatFile::parse(&board.text("b"), "b").unwrap(), board);
    let e = SeatFile::parse(&text.replace("black", "blue"), "x.seat").unwrap_err();
    assert!(e.starts_with("x.seat: color:"), "{e}");
    let e = SeatFile::parse(&format!("{text}board = 3\n"), "x.seat").unwrap_err();
    assert!(e.starts_with("x.seat: table and color, or board"), "{e}");
    let e = SeatFile::parse("round = 1", "x.seat").unwrap_err();
    assert!(e.starts_with("x.seat: not a seat file"), "{e}");
    let onlooker = SeatFile::new(
        &secret,
        "mqtt://10.0.0.2:1883",
        SeatPlace::Onlooker { tables: 8 },
    );
    assert_eq!(onlooker.username, "onlooker");
    assert!(onlooker
        .text("o")
        .ends_with("\nonlooker = true\ntables = 8\n"));
    assert_eq!(SeatFile::parse(&onlooker.text("o"), "o").unwrap(), onlooker);
    // Without the round's number of tables an onlooker could wait for a table that is not.
    let e = SeatFile::parse(&onlooker.text("o").replace("tables = 8\n", ""), "o.seat").unwrap_err();
    assert!(
        e.starts_with("o.seat: an onlookers' seat file says how many tables"),
        "{e}"
    );
    let e = SeatFile::parse(&format!("{text}tables = 3\n"), "x.seat").unwrap_err();
    assert!(
        e.starts_with("x.seat: tables = N belongs to the onlookers'"),
        "{e}"
    );
    // An onlookers' file names no seat: one that does is refused, not taken as either.
    let e = SeatFile::parse(&format!("{text}onlooker = true\n"), "x.seat").unwrap_err();
    assert!(e.starts_with("x.seat: onlooker = true stands alone"), "{e}");
}

/// `broker-config --out FILE`: a file given for the folder is named as one.
#[test]
fn a_file_given_for_a_private_folder_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("f");
    std::fs::write(&file, "x").unwrap();
    assert_eq!(
        private_dir(&file),
        Err(format!("{} is a file, not a folder", file.display()))
    );
    assert!(private_dir(&dir.path().join("new")).is_ok());
}

/// A file or folder of another user's: one made here and given away (as root), else one of
/// root's (as anyone else).
fn anothers(dir: &Path, name: &str, folder: bool) -> PathBuf {
    let ours = std::fs::metadata("/proc/self").unwrap();
    if std::os::unix::fs::MetadataExt::uid(&ours) != 0 {
        return PathBuf::from(if folder { "/" } else { "/etc/hostname" });
    }
    let path = dir.join(name);
    if folder {
        std::fs::create_dir(&path).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o700)).unwrap();
    } else {
        std::fs::write(&path, format!("{}\n", "00".repeat(SECRET_BYTES))).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
    }
    std::os::unix::fs::chown(&path, Some(65534), Some(65534)).unwrap();
    path
}

/// Secrets go only where nobody else can plant a name, and come only from the user's own
/// files (attack review): a secret another user planted would make every password his.
#[test]
fn a_folder_others_may_write_or_a_secret_of_anothers_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let shared = dir.path().join("shared");
    std::fs::create_dir(&shared).unwrap();
    std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o1777)).unwrap();
    let e = private_dir(&shared).unwrap_err();
    assert!(e.contains("(mode 1777): give a folder of your own"), "{e}");
    let theirs = anothers(dir.path(), "theirs", true);
    let e = private_dir(&theirs).unwrap_err();
    assert!(
        e.ends_with("is another user's folder: give a folder of your own"),
        "{e}"
    );
    let planted = anothers(dir.path(), "round.toml.secret", false);
    let e = RoundSecret::read(&planted).unwrap_err();
    assert!(
        e.contains("the round's secret belongs to another user"),
        "{e}"
    );
}

/// A seat or broker file is written whole and renamed into place: a link planted at its
/// name is replaced, and the file it named is left as it was.
#[test]
fn a_link_planted_at_a_secrets_name_is_replaced_not_followed() {
    let dir = tempfile::tempdir().unwrap();
    let victim = dir.path().join("victim");
    std::fs::write(&victim, "mine").unwrap();
    let seat = dir.path().join("table-1-white.seat");
    std::os::unix::fs::symlink(&victim, &seat).unwrap();
    write_file(&seat, "password = \"x\"\n", 0o600).unwrap();
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "mine");
    assert_eq!(
        std::fs::read_to_string(&seat).unwrap(),
        "password = \"x\"\n"
    );
    let mode = std::fs::symlink_metadata(&seat)
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600);
    write_file(&seat, "certificate", 0o644).unwrap();
    let mode = std::fs::metadata(&seat).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o644);
}
