//! Who may use a round's broker, and with which password: the round's secret (a file beside
//! the round file), each user's password derived from it, the round's users (its boards,
//! its players' seats, its consoles and the arbiter), the broker's ACL, and the seat files
//! handed to players and boards. `kriegspiel broker-config` and `kriegspiel seats` write
//! them; a console or a player's program derives and checks them with the same code.
//!
//! A password is HMAC-SHA256(secret, user name), in base32, cut to [`PASSWORD_CHARS`]
//! characters: the same on every machine that holds the secret, and different for every
//! user and every round.

use std::fs::OpenOptions;
use std::io::{Read, Write};
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use kriegspiel_hall::private_file::{self, Existing};
use kriegspiel_hall::BoardSource;
use kriegspiel_net::{BoardTopics, Principal, TableTopics};
use kriegspiel_referee::shakmaty::{ByColor, Color};
use serde::Deserialize;

use crate::round::RoundEntry;

/// The secret's length in bytes (written as twice as many hexadecimal digits).
pub const SECRET_BYTES: usize = 32;
/// A password's length: 20 base32 characters, 100 bits.
pub const PASSWORD_CHARS: usize = 20;
/// The console every round has, whatever its tables say.
pub const MAIN_CONSOLE: &str = "main";
/// The longest console name (a round file's `console = "NAME"`).
const MAX_CONSOLE_NAME: usize = 32;
/// A seat file is a few lines; anything longer is not one.
const MAX_SEAT_FILE: u64 = 4096;

/// The round file's secret: `round.toml` has `round.toml.secret`.
pub fn secret_path(round: &Path) -> PathBuf {
    let mut name = round.as_os_str().to_owned();
    name.push(".secret");
    PathBuf::from(name)
}

/// A round's secret: 32 random bytes, from which every password of the round derives.
pub struct RoundSecret {
    key: [u8; SECRET_BYTES],
    path: PathBuf,
}

impl std::fmt::Debug for RoundSecret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RoundSecret")
            .field("path", &self.path)
            .field("round", &self.round_id())
            .finish_non_exhaustive()
    }
}

impl RoundSecret {
    /// The secret of the round file `round`: read from beside it, or made there (mode 0600)
    /// by whichever command runs first.
    pub fn of_round(round: &Path) -> Result<RoundSecret, String> {
        let path = secret_path(round);
        match std::fs::symlink_metadata(&path) {
            Ok(_) => RoundSecret::read(&path),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => RoundSecret::create(&path),
            Err(e) => Err(format!("{}: {e}", path.display())),
        }
    }

    /// Reads a secret file, refusing one that others may read.
    pub fn read(path: &Path) -> Result<RoundSecret, String> {
        let name = path.display();
        let meta = std::fs::metadata(path).map_err(|e| format!("{name}: {e}"))?;
        if !meta.is_file() {
            return Err(format!("{name}: the round's secret must be a file"));
        }
        // One planted by another user would make every password his to know.
        if !private_file::owned_by_us(&meta) {
            return Err(format!(
                "{name}: the round's secret belongs to another user: delete it if you did not put it there, then make the broker's files and the seat files again"
            ));
        }
        let mode = meta.permissions().mode() & 0o777;
        if mode & 0o077 != 0 {
            return Err(format!(
                "{name}: others may read the round's secret (mode {mode:03o}); make it yours \
                 alone with `chmod 600 {name}`, and if it was seen, delete it and make the \
                 broker's files and the seat files again"
            ));
        }
        let mut text = String::new();
        std::fs::File::open(path)
            .and_then(|f| f.take(256).read_to_string(&mut text))
            .map_err(|e| format!("{name}: {e}"))?;
        let key = parse_hex(text.trim()).ok_or_else(|| {
            format!(
                "{name}: not a round secret ({} hexadecimal digits); delete it to make a new \
                 one, then make the broker's files and the seat files again",
                SECRET_BYTES * 2
            )
        })?;
        Ok(RoundSecret {
            key,
            path: path.to_owned(),
        })
    }

    /// Makes the secret: written whole under another name, then linked to `path`, so that
    /// a reader never sees half of it and two commands at once agree on one secret.
    fn create(path: &Path) -> Result<RoundSecret, String> {
        let name = path.display();
        let mut key = [0u8; SECRET_BYTES];
        std::fs::File::open("/dev/urandom")
            .and_then(|mut f| f.read_exact(&mut key))
            .map_err(|e| format!("{name}: cannot draw a random secret from /dev/urandom: {e}"))?;
        let mut tmp = path.as_os_str().to_owned();
        tmp.push(format!(".{}.tmp", std::process::id()));
        let tmp = PathBuf::from(tmp);
        let written = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&tmp)
            .and_then(|mut f| {
                f.write_all(format!("{}\n", hex(&key)).as_bytes())?;
                f.sync_all()
            })
            .and_then(|()| std::fs::hard_link(&tmp, path));
        let _ = std::fs::remove_file(&tmp);
        match written {
            Ok(()) => Ok(RoundSecret {
                key,
                path: path.to_owned(),
            }),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => RoundSecret::read(path),
            Err(e) => Err(format!("{name}: cannot write the round's secret: {e}")),
        }
    }

    /// Where the secret is.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The round's name on seat files and in the broker's files: the first 8 hexadecimal
    /// digits of SHA-256(secret). It tells rounds apart and says nothing of the secret.
    pub fn round_id(&self) -> String {
        hex(&sha256(&self.key)[..4])
    }

    /// The password of broker user `user` in this round.
    pub fn password(&self, user: &str) -> String {
        let mac = hmac_sha256(&self.key, user.as_bytes());
        let mut text = base32(&mac);
        text.truncate(PASSWORD_CHARS);
        text
    }

    /// Whether `password` is `user`'s in this round.
    pub fn accepts(&self, user: &str, password: &str) -> bool {
        let expected = self.password(user);
        // Every byte compared, whatever the first difference.
        expected.len() == password.len()
            && expected
                .bytes()
                .zip(password.bytes())
                .fold(0u8, |acc, (a, b)| acc | (a ^ b))
                == 0
    }
}

/// One table's users: its networked boards and its two seats.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableMembers {
    /// The table's place in the round file, from 1.
    pub no: usize,
    pub name: String,
    /// Each colour's networked board (`white = "board:7"`), if it has one.
    pub boards: ByColor<Option<u32>>,
    /// Each colour's player's name, if the round file gives it.
    pub players: ByColor<Option<String>>,
}

/// Everyone who may use a round's broker.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RoundMembers {
    pub tables: Vec<TableMembers>,
    /// The round's consoles: `main` first, then those the tables name.
    pub consoles: Vec<String>,
}

impl RoundMembers {
    /// The members of a round whose tables are `entries` and whose consoles, besides
    /// `main`, are `consoles`.
    pub fn new(entries: &[RoundEntry], consoles: &[String]) -> RoundMembers {
        let tables = entries
            .iter()
            .enumerate()
            .map(|(i, e)| {
                let board = |s: &BoardSource| match s {
                    BoardSource::Network(id) => Some(*id),
                    _ => None,
                };
                TableMembers {
                    no: i + 1,
                    name: e.spec.name.clone(),
                    boards: ByColor {
                        white: board(&e.spec.white),
                        black: board(&e.spec.black),
                    },
                    players: ByColor {
                        white: e.spec.setup.white_player.clone(),
                        black: e.spec.setup.black_player.clone(),
                    },
                }
            })
            .collect();
        let mut all = vec![MAIN_CONSOLE.to_owned()];
        for c in consoles {
            if !all.contains(c) {
                all.push(c.clone());
            }
        }
        RoundMembers {
            tables,
            consoles: all,
        }
    }

    /// Reads the round file: its tables (checked as the hall checks them) and its consoles.
    pub fn read(round: &Path) -> Result<RoundMembers, String> {
        let entries = crate::round::read_round_with_audio(round)?;
        let consoles = round_consoles(round)?;
        Ok(RoundMembers::new(&entries, &consoles))
    }

    /// Every user of the round: the boards, the seats, the consoles, the arbiter.
    pub fn principals(&self) -> Vec<Principal<'_>> {
        let mut all = Vec::new();
        for t in &self.tables {
            for color in Color::ALL {
                if let Some(id) = t.boards.get(color) {
                    all.push(Principal::Board(*id));
                }
            }
        }
        for t in &self.tables {
            for color in Color::ALL {
                all.push(Principal::Seat { table: t.no, color });
            }
        }
        all.extend(self.consoles.iter().map(|c| Principal::Console(c)));
        all.push(Principal::Arbiter);
        all.push(Principal::Onlooker);
        all
    }

    /// The broker's ACL file (mosquitto's `acl_file`): one `user` block each, naming only
    /// that user's own topics; no `pattern` lines.
    pub fn acl(&self, round_id: &str) -> String {
        let mut text = format!(
            "# Kriegspiel round {round_id}: what each user may read and write.\n\
             # Written by `kriegspiel broker-config`; made again with the round.\n"
        );
        for p in self.principals() {
            text.push('\n');
            text.push_str(&format!("user {p}\n"));
            for (access, topic) in acl_topics(&p) {
                text.push_str(&format!("topic {access} {topic}\n"));
            }
        }
        text
    }
}

/// What `p` may do, topic by topic: a board writes its events and status and reads its
/// acknowledgements and commands; a seat reads its table's public channel and its own
/// private one and writes its own input; an onlooker reads every table's public channel;
/// consoles and the arbiter read and write it all.
pub fn acl_topics(p: &Principal<'_>) -> Vec<(&'static str, String)> {
    match *p {
        Principal::Board(id) => {
            let t = BoardTopics::new(id);
            vec![
                ("write", t.events),
                ("write", t.status),
                ("read", t.ack),
                ("read", t.cmd),
            ]
        }
        Principal::Seat { table, color } => {
            let t = TableTopics::new(table);
            vec![
                ("read", t.public),
                ("read", t.private.get(color).clone()),
                ("write", t.input.get(color).clone()),
            ]
        }
        Principal::Onlooker => vec![("read", kriegspiel_net::round::PUBLIC.to_owned())],
        Principal::Console(_) | Principal::Arbiter => {
            vec![("readwrite", "kriegspiel/#".to_owned())]
        }
    }
}

/// The consoles a round file's tables name (`console = "east"`), besides `main`, each once.
/// A name is a whole level of a user name: lower-case letters, digits and `-`.
pub fn round_consoles(round: &Path) -> Result<Vec<String>, String> {
    let name = round.display();
    let text = bounded_lines::read_text(round, bounded_lines::MAX_FILE)
        .map_err(|e| format!("{name}: {e}"))?;
    let file: toml::Table = toml::from_str(&text).map_err(|e| {
        format!(
            "{name}: {}",
            bounded_lines::excerpt(&e.message().replace('\n', " "))
        )
    })?;
    let tables = match file.get("table") {
        Some(toml::Value::Array(tables)) => tables.as_slice(),
        _ => &[],
    };
    let mut consoles: Vec<String> = Vec::new();
    for (i, t) in tables.iter().enumerate() {
        let Some(value) = t.get("console") else {
            continue;
        };
        let console = match value {
            toml::Value::String(s) => s,
            other => {
                return Err(format!(
                    "{name}: table {}: console: expected text, found {}",
                    i + 1,
                    other.type_str()
                ))
            }
        };
        check_console_name(console)
            .map_err(|e| format!("{name}: table {}: console: {e}", i + 1))?;
        if console != MAIN_CONSOLE && !consoles.contains(console) {
            consoles.push(console.clone());
        }
    }
    Ok(consoles)
}

/// A console's name as a round file gives it (`console = "east"`): it is part of a broker
/// user name and of a client id.
pub fn check_console_name(console: &str) -> Result<(), String> {
    let good = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-';
    if console.is_empty() || console.len() > MAX_CONSOLE_NAME || !console.chars().all(good) {
        return Err(format!(
            "'{}' is not a console's name (up to {MAX_CONSOLE_NAME} lower-case letters, \
             digits and -, e.g. east)",
            bounded_lines::excerpt(console)
        ));
    }
    Ok(())
}

/// Where a seat file lets its holder in: one player's seat, one networked board, or the
/// onlookers' seat (every table's public announcements; `tables`: how many the round has,
/// so that an onlooker asking for another is told at once, not left waiting in silence).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SeatPlace {
    Table { no: usize, color: Color },
    Board(u32),
    Onlooker { tables: usize },
}

/// A seat file: what a player's program or a board needs to join the round's broker.
#[derive(Clone, PartialEq, Eq)]
pub struct SeatFile {
    /// The round's id ([`RoundSecret::round_id`]).
    pub round: String,
    /// The broker's URL, as the round file's `[broker]` gives it.
    pub broker: String,
    pub username: String,
    pub password: String,
    pub place: SeatPlace,
}

impl std::fmt::Debug for SeatFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SeatFile")
            .field("round", &self.round)
            .field("broker", &self.broker)
            .field("username", &self.username)
            .field("place", &self.place)
            .finish_non_exhaustive()
    }
}

/// A seat file as TOML, before it is checked.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SeatToml {
    round: String,
    broker: String,
    username: String,
    password: String,
    table: Option<usize>,
    color: Option<String>,
    board: Option<u32>,
    onlooker: Option<bool>,
    tables: Option<usize>,
}

impl SeatFile {
    /// The seat of `place` in the round of `secret`, on the broker at `broker`.
    pub fn new(secret: &RoundSecret, broker: &str, place: SeatPlace) -> SeatFile {
        let username = match place {
            SeatPlace::Table { no, color } => Principal::Seat { table: no, color },
            SeatPlace::Board(id) => Principal::Board(id),
            SeatPlace::Onlooker { .. } => Principal::Onlooker,
        }
        .to_string();
        SeatFile {
            round: secret.round_id(),
            password: secret.password(&username),
            username,
            broker: broker.to_owned(),
            place,
        }
    }

    /// The file's text: `header` as a comment line, then the TOML keys.
    pub fn text(&self, header: &str) -> String {
        let header: String = header.chars().filter(|c| !c.is_control()).collect();
        let place = match self.place {
            SeatPlace::Table { no, color } => format!("table = {no}\ncolor = \"{color}\"\n"),
            SeatPlace::Board(id) => format!("board = {id}\n"),
            SeatPlace::Onlooker { tables } => format!("onlooker = true\ntables = {tables}\n"),
        };
        format!(
            "# {header}\nround = \"{}\"\nbroker = \"{}\"\nusername = \"{}\"\npassword = \"{}\"\n{place}",
            self.round, self.broker, self.username, self.password
        )
    }

    /// Reads a seat file's text; `name` names it in errors.
    pub fn parse(text: &str, name: &str) -> Result<SeatFile, String> {
        let t: SeatToml = toml::from_str(text).map_err(|e| {
            format!(
                "{name}: not a seat file: {}",
                bounded_lines::excerpt(&e.message().replace('\n', " "))
            )
        })?;
        let place = match (t.table, t.color.as_deref(), t.board) {
            (None, None, None) if t.onlooker == Some(true) => match t.tables {
                Some(tables) if tables >= 1 => SeatPlace::Onlooker { tables },
                _ => {
                    return Err(format!(
                        "{name}: an onlookers' seat file says how many tables the round has \
                         (tables = 8); make it again with kriegspiel seats"
                    ))
                }
            },
            _ if t.tables.is_some() => {
                return Err(format!(
                    "{name}: tables = N belongs to the onlookers' seat file (onlooker = true)"
                ))
            }
            _ if t.onlooker.is_some() => {
                return Err(format!(
                    "{name}: onlooker = true stands alone: an onlookers' seat file names no table, colour or board"
                ))
            }
            (Some(no), Some(color), None) if no >= 1 => {
                let color = match color {
                    "white" => Color::White,
                    "black" => Color::Black,
                    other => {
                        return Err(format!(
                            "{name}: color: '{}' is neither white nor black",
                            bounded_lines::excerpt(other)
                        ))
                    }
                };
                SeatPlace::Table { no, color }
            }
            (None, None, Some(id)) => SeatPlace::Board(id),
            _ => {
                return Err(format!(
                    "{name}: table and color, or board: a seat file is a player's seat \
                     (table = 1, color = \"white\"), a board's (board = 7) or the onlookers' \
                     (onlooker = true)"
                ))
            }
        };
        Ok(SeatFile {
            round: t.round,
            broker: t.broker,
            username: t.username,
            password: t.password,
            place,
        })
    }

    /// Reads a seat file.
    pub fn read(path: &Path) -> Result<SeatFile, String> {
        let name = path.display().to_string();
        let text =
            bounded_lines::read_text(path, MAX_SEAT_FILE).map_err(|e| format!("{name}: {e}"))?;
        SeatFile::parse(&text, &name)
    }
}

/// Writes `text` to `path` with permissions `mode`: written whole beside it and renamed into
/// place, so that a link or a file of another user's at `path` is replaced, never written
/// through or left with its owner.
pub fn write_file(path: &Path, text: &str, mode: u32) -> Result<(), String> {
    private_file::write_with_mode(path, text.as_bytes(), Existing::Replace, &[], mode)
        .map_err(|e| e.to_string())
}

/// Makes the folder `dir` (mode 0700, with its parents) if it is missing, and returns its
/// absolute path.
pub fn private_dir(dir: &Path) -> Result<PathBuf, String> {
    use std::os::unix::fs::DirBuilderExt;
    let name = dir.display();
    if dir.exists() && !dir.is_dir() {
        return Err(format!("{name} is a file, not a folder"));
    }
    if !dir.is_dir() {
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)
            .map_err(|e| format!("{name}: cannot make the folder: {e}"))?;
    }
    // Secrets go only where nobody else can plant a name (a link, a file of his) first.
    let meta = std::fs::metadata(dir).map_err(|e| format!("{name}: {e}"))?;
    let mode = meta.permissions().mode() & 0o7777;
    if !private_file::owned_by_us(&meta) {
        return Err(format!(
            "{name} is another user's folder: give a folder of your own"
        ));
    }
    if mode & 0o022 != 0 {
        return Err(format!(
            "others may write in {name} (mode {mode:o}): give a folder of your own, or a new one (it is made for you alone)"
        ));
    }
    std::fs::canonicalize(dir).map_err(|e| format!("{name}: {e}"))
}

/// Lower-case hexadecimal.
fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn parse_hex(text: &str) -> Option<[u8; SECRET_BYTES]> {
    if text.len() != SECRET_BYTES * 2 || !text.is_ascii() {
        return None;
    }
    let mut key = [0u8; SECRET_BYTES];
    for (i, byte) in key.iter_mut().enumerate() {
        *byte = u8::from_str_radix(text.get(2 * i..2 * i + 2)?, 16).ok()?;
    }
    Some(key)
}

/// RFC 4648 base32 in lower case, without padding: letters and the digits 2 to 7, nothing
/// that needs quoting or reads as another character.
fn base32(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 32] = b"abcdefghijklmnopqrstuvwxyz234567";
    let mut out = String::new();
    let (mut buffer, mut bits) = (0u32, 0u32);
    for &b in bytes {
        buffer = (buffer << 8) | u32::from(b);
        bits += 8;
        while bits >= 5 {
            bits -= 5;
            out.push(char::from(ALPHABET[((buffer >> bits) & 31) as usize]));
        }
    }
    if bits > 0 {
        out.push(char::from(ALPHABET[((buffer << (5 - bits)) & 31) as usize]));
    }
    out
}

/// SHA-256's round constants (FIPS 180-4, 4.2.2).
const K: [u32; 64] = [
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
];

/// SHA-256 (FIPS 180-4). Here rather than from a crate because this library's dependencies
/// are not this module's to change; the tests hold it to the standard's and RFC 4231's
/// vectors, and to Python's hashlib over every padding length.
fn sha256(data: &[u8]) -> [u8; 32] {
    let mut h: [u32; 8] = [
        0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab,
        0x5be0cd19,
    ];
    let mut message = data.to_vec();
    let bits = (data.len() as u64).wrapping_mul(8);
    message.push(0x80);
    while message.len() % 64 != 56 {
        message.push(0);
    }
    message.extend_from_slice(&bits.to_be_bytes());
    for block in message.chunks_exact(64) {
        let mut w = [0u32; 64];
        for (word, bytes) in w.iter_mut().zip(block.chunks_exact(4)) {
            *word = u32::from_be_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
        }
        for i in 16..64 {
            let s0 = w[i - 15].rotate_right(7) ^ w[i - 15].rotate_right(18) ^ (w[i - 15] >> 3);
            let s1 = w[i - 2].rotate_right(17) ^ w[i - 2].rotate_right(19) ^ (w[i - 2] >> 10);
            w[i] = w[i - 16]
                .wrapping_add(s0)
                .wrapping_add(w[i - 7])
                .wrapping_add(s1);
        }
        let [mut a, mut b, mut c, mut d, mut e, mut f, mut g, mut hh] = h;
        for (k, wi) in K.iter().zip(w) {
            let s1 = e.rotate_right(6) ^ e.rotate_right(11) ^ e.rotate_right(25);
            let ch = (e & f) ^ (!e & g);
            let t1 = hh
                .wrapping_add(s1)
                .wrapping_add(ch)
                .wrapping_add(*k)
                .wrapping_add(wi);
            let s0 = a.rotate_right(2) ^ a.rotate_right(13) ^ a.rotate_right(22);
            let maj = (a & b) ^ (a & c) ^ (b & c);
            let t2 = s0.wrapping_add(maj);
            (hh, g, f, e) = (g, f, e, d.wrapping_add(t1));
            (d, c, b, a) = (c, b, a, t1.wrapping_add(t2));
        }
        for (x, y) in h.iter_mut().zip([a, b, c, d, e, f, g, hh]) {
            *x = x.wrapping_add(y);
        }
    }
    let mut out = [0u8; 32];
    for (bytes, word) in out.chunks_exact_mut(4).zip(h) {
        bytes.copy_from_slice(&word.to_be_bytes());
    }
    out
}

/// HMAC-SHA256 (RFC 2104).
fn hmac_sha256(key: &[u8], message: &[u8]) -> [u8; 32] {
    let mut block = [0u8; 64];
    if key.len() > block.len() {
        block[..32].copy_from_slice(&sha256(key));
    } else {
        block[..key.len()].copy_from_slice(key);
    }
    let mut inner: Vec<u8> = block.iter().map(|b| b ^ 0x36).collect();
    inner.extend_from_slice(message);
    let mut outer: Vec<u8> = block.iter().map(|b| b ^ 0x5c).collect();
    outer.extend_from_slice(&sha256(&inner));
    sha256(&outer)
}

#[cfg(test)]
mod tests;
