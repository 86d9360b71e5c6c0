//! The players' terminals: a local socket that a hall's front end opens. Each connection is
//! one player's text channel: he reads what he may hear (public announcements, his own
//! private messages, the answers meant for him) in the table's language, and types his
//! tries and questions. Line-oriented plain text, for screen readers.
//!
//! A voice terminal (`kriegspiel player --voice`) says `voice` after its seat in the
//! handshake (`1 white voice`); it is then also sent `#own-board FEN` whenever the player's
//! own men change: his men alone and his castling rights (never the opponent's men), from
//! which it builds the grammar of his tries.

use std::collections::HashMap;
use std::io::Write;
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};

use bounded_lines::{excerpt, LineReader};
use kriegspiel_hall::{HallEvent, HallHandle, TableNo};
use kriegspiel_referee::shakmaty::fen::Fen;
use kriegspiel_referee::shakmaty::{Color, Role, Square};
use kriegspiel_referee::{Lang, Question, Try, Wording};
use kriegspiel_table::render::{self, Hearer};
use kriegspiel_table::{role_name, Input};
use kriegspiel_voice::grammar::own_board_fen;

/// The most players connected at once (two per table of the largest hall, and spares).
const MAX_SESSIONS: usize = 160;

/// A table as the players' channel knows it.
#[derive(Debug, Clone)]
struct TableState {
    wording: Wording,
    lang: Lang,
    /// The official position (from the hall's views): to read a player his own men.
    fen: Option<String>,
    /// The last words each player heard, for "repeat".
    last: [Option<String>; 2],
}

#[derive(Debug)]
struct Session {
    /// Tells this connection from another of the same seat.
    id: u64,
    table: TableNo,
    color: Color,
    tx: mpsc::Sender<String>,
    /// A voice terminal: it is sent his own board.
    voice: bool,
    /// The own board last sent to a voice terminal.
    own_board: Option<String>,
}

/// What starts a line that tells a voice terminal his own board (never an announcement).
pub const OWN_BOARD: &str = "#own-board ";

#[derive(Debug, Default)]
struct State {
    tables: HashMap<TableNo, TableState>,
    sessions: Vec<Session>,
}

/// The open players' socket; feed it every hall event with [`Players::observe`].
#[derive(Debug, Clone)]
pub struct Players {
    state: Arc<Mutex<State>>,
    /// Removes the socket file when the last handle goes (the listener does not hold one).
    _file: Arc<SocketFile>,
}

/// The socket file this console made, known by its inode so that a file someone else has
/// put at the path since is left alone.
#[derive(Debug)]
struct SocketFile {
    path: PathBuf,
    id: Option<(u64, u64)>,
}

fn file_id(path: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    std::fs::symlink_metadata(path)
        .ok()
        .map(|m| (m.dev(), m.ino()))
}

impl Drop for SocketFile {
    fn drop(&mut self) {
        if self.id.is_some() && file_id(&self.path) == self.id {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

fn index(c: Color) -> usize {
    match c {
        Color::White => 0,
        Color::Black => 1,
    }
}

/// The socket beside a journal: `journal.sqlite` → `journal.players.sock`.
pub fn default_socket(journal: &Path) -> PathBuf {
    journal.with_extension("players.sock")
}

impl Players {
    /// Opens the socket at `path` (a stale socket file left by a stopped console is
    /// replaced; one a running console still serves is refused).
    pub fn open(path: &Path, hall: HallHandle) -> Result<Players, String> {
        use std::os::unix::fs::FileTypeExt;
        if let Ok(meta) = std::fs::symlink_metadata(path) {
            // Only a socket is ever replaced: any other file at the path is someone's data.
            if !meta.file_type().is_socket() {
                return Err(format!(
                    "{} exists and is not a socket; give --player-socket another path",
                    path.display()
                ));
            }
            if UnixStream::connect(path).is_ok() {
                return Err(format!(
                    "{} is served by another running console",
                    path.display()
                ));
            }
            std::fs::remove_file(path)
                .map_err(|e| format!("cannot replace {}: {e}", path.display()))?;
        }
        let listener = UnixListener::bind(path)
            .map_err(|e| format!("cannot open the players' socket {}: {e}", path.display()))?;
        let players = Players {
            state: Arc::new(Mutex::new(State::default())),
            _file: Arc::new(SocketFile {
                path: path.to_path_buf(),
                id: file_id(path),
            }),
        };
        let state = players.state.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let (state, hall) = (state.clone(), hall.clone());
                std::thread::spawn(move || serve(stream, &state, &hall));
            }
        });
        Ok(players)
    }

    /// Passes one hall event to the players who may hear it.
    pub fn observe(&self, e: &HallEvent) {
        let Ok(mut state) = self.state.lock() else {
            return;
        };
        match e {
            HallEvent::Opened {
                table,
                wording,
                lang,
                ..
            } => {
                state.tables.insert(
                    *table,
                    TableState {
                        wording: *wording,
                        lang: *lang,
                        fen: None,
                        last: [None, None],
                    },
                );
            }
            HallEvent::View(view) => {
                if let Some(t) = state.tables.get_mut(&view.table) {
                    t.fen = Some(view.fen.clone());
                }
                for s in state
                    .sessions
                    .iter_mut()
                    .filter(|s| s.voice && s.table == view.table)
                {
                    let own = own_board_fen(&view.fen, s.color);
                    if own.is_some() && own != s.own_board {
                        if let Some(f) = &own {
                            let _ = s.tx.send(format!("{OWN_BOARD}{f}"));
                        }
                        s.own_board = own;
                    }
                }
            }
            HallEvent::Output { table, output, .. } => {
                let Some(t) = state.tables.get_mut(table) else {
                    return;
                };
                let Some(hearer) = render::hearer(output) else {
                    return;
                };
                let v = render::json(&t.wording, t.lang, output);
                let Some(text) = v["text"].as_str().filter(|s| !s.is_empty()) else {
                    return;
                };
                let hears = |c: Color| hearer == Hearer::Both || hearer == Hearer::Player(c);
                for c in Color::ALL.into_iter().filter(|c| hears(*c)) {
                    t.last[index(c)] = Some(text.to_owned());
                }
                let table = *table;
                // A player who hung up is forgotten here.
                state.sessions.retain(|s| {
                    s.table != table || !hears(s.color) || s.tx.send(text.to_owned()).is_ok()
                });
            }
            HallEvent::Link { .. }
            | HallEvent::Ended { .. }
            | HallEvent::Failed { .. }
            | HallEvent::OpenFailed { .. } => {}
        }
    }
}

/// What a player typed.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Typed {
    Input(Input),
    /// A try; `role`: the kind of man he named for it (`Ng1f3`), checked against his men.
    Try {
        tried: Try,
        role: Option<Role>,
    },
    Repeat,
    MyMen,
    Help,
}

/// Reads one typed line: a try (`g1f3`, `Ng1f3`, `e7e8n`, `O-O`, `O-O-O`) or a command.
fn typed(line: &str, color: Color) -> Option<Typed> {
    let lower = line.trim().to_lowercase();
    let words: Vec<&str> = lower.split_whitespace().collect();
    let input = |i| Some(Typed::Input(i));
    match words.as_slice() {
        ["any"] | ["any?"] => input(Input::Ask {
            color,
            question: Question::Any,
        }),
        ["rebuffs"] => input(Input::Ask {
            color,
            question: Question::Rebuffs,
        }),
        ["repeat"] => Some(Typed::Repeat),
        ["my", "men"] => Some(Typed::MyMen),
        ["help"] | ["?"] => Some(Typed::Help),
        ["resign"] => input(Input::Resign { color }),
        ["draw"] | ["offer", "draw"] => input(Input::Draw { color }),
        ["promote", piece] => {
            let role = match *piece {
                "q" | "queen" => Role::Queen,
                "r" | "rook" => Role::Rook,
                "b" | "bishop" => Role::Bishop,
                "n" | "knight" => Role::Knight,
                _ => return None,
            };
            input(Input::Promote { color, role })
        }
        [castle @ ("o-o" | "0-0" | "o-o-o" | "0-0-0")] => {
            let rank = if color == Color::White { '1' } else { '8' };
            let to = if castle.len() == 3 { 'g' } else { 'c' };
            let tried = Try::from_uci(&format!("e{rank}{to}{rank}")).ok()?;
            Some(Typed::Try {
                tried,
                role: Some(Role::King),
            })
        }
        [one] => {
            // A piece letter may lead (Ng1f3): the man he means on the origin square.
            let first = one.chars().next()?;
            let (role, uci) = match one.len() {
                4 => (None, *one),
                5 if one.as_bytes()[4].is_ascii_digit() => {
                    (Some(Role::from_char(first)?), &one[1..])
                }
                5 => (None, *one),
                6 => (Some(Role::from_char(first)?), &one[1..]),
                _ => return None,
            };
            let tried = Try::from_uci(uci).ok()?;
            Some(Typed::Try { tried, role })
        }
        _ => None,
    }
}

/// His men on the official position, for "my men" ("king e1, queen d1, ...").
fn my_men(fen: &str, color: Color, lang: Lang) -> Option<String> {
    let board = fen.parse::<Fen>().ok()?.into_setup().board;
    let mut men: Vec<(Role, Square)> = board
        .by_color(color)
        .into_iter()
        .filter_map(|sq| board.role_at(sq).map(|r| (r, sq)))
        .collect();
    // King first, pawns last, each kind in square order.
    men.sort_by_key(|(r, sq)| (std::cmp::Reverse(*r as u8), *sq));
    Some(
        men.iter()
            .map(|(r, sq)| format!("{} {sq}", role_name(*r, lang)))
            .collect::<Vec<_>>()
            .join(", "),
    )
}

/// The kind of man of `color` on `sq` in the official position.
fn man_on(fen: &str, color: Color, sq: Square) -> Option<Role> {
    let board = fen.parse::<Fen>().ok()?.into_setup().board;
    board
        .piece_at(sq)
        .filter(|p| p.color == color)
        .map(|p| p.role)
}

/// One player's connection: a handshake line `TABLE COLOR`, then his lines.
fn serve(stream: UnixStream, state: &Arc<Mutex<State>>, hall: &HallHandle) {
    let Ok(mut out) = stream.try_clone() else {
        return;
    };
    let mut lines = LineReader::with_limit(stream, 1024);
    let hello = match lines.next_line() {
        Ok(Some(Ok(l))) => l.to_owned(),
        _ => return,
    };
    let mut words = hello.split_whitespace();
    let (seat, voice) = match (words.next(), words.next(), words.next(), words.next()) {
        (Some(t), Some(c), v @ (None | Some("voice")), None) => (
            t.parse::<TableNo>().ok().zip(c.parse::<Color>().ok()),
            v.is_some(),
        ),
        _ => (None, false),
    };
    let (tx, rx) = mpsc::channel::<String>();
    static SESSIONS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let session_id = SESSIONS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let (lang, own_board) = {
        let Ok(mut st) = state.lock() else {
            return;
        };
        let known = seat.and_then(|(t, _)| st.tables.get(&t).map(|t| (t.lang, t.fen.clone())));
        match (seat, known) {
            (Some((table, color)), Some((lang, fen))) if st.sessions.len() < MAX_SESSIONS => {
                let own_board = fen.filter(|_| voice).and_then(|f| own_board_fen(&f, color));
                st.sessions.push(Session {
                    id: session_id,
                    table,
                    color,
                    tx: tx.clone(),
                    voice,
                    own_board: own_board.clone(),
                });
                (lang, own_board)
            }
            (Some((table, _)), None) => {
                let mut tables: Vec<TableNo> = st.tables.keys().copied().collect();
                tables.sort_unstable();
                let tables: Vec<String> = tables.iter().map(ToString::to_string).collect();
                let _ = writeln!(
                    out,
                    "error: this console has no table {table} (its tables: {})",
                    tables.join(", ")
                );
                return;
            }
            (Some(_), Some(_)) => {
                let _ = writeln!(out, "error: {MAX_SESSIONS} terminals are connected already");
                return;
            }
            (None, _) => {
                let _ = writeln!(
                    out,
                    "error: start with the table number and your colour, e.g. '1 white' (not '{}')",
                    excerpt(&hello)
                );
                return;
            }
        }
    };
    let Some((table, color)) = seat else {
        return;
    };
    // The writer: everything for this player, in order, until he hangs up.
    std::thread::spawn(move || {
        for line in rx {
            if writeln!(out, "{line}").and_then(|()| out.flush()).is_err() {
                return;
            }
        }
    });
    let _ = tx.send(say(lang, Said::Connected(table, color)));
    if let Some(f) = own_board {
        let _ = tx.send(format!("{OWN_BOARD}{f}"));
    }
    loop {
        let line = match lines.next_line() {
            Ok(Some(Ok(l))) => l.trim().to_owned(),
            Ok(Some(Err(e))) => {
                let _ = tx.send(format!("error: {e}"));
                continue;
            }
            Ok(None) | Err(_) => {
                // He hung up (or his keys ended): once the writer has sent every reply
                // still queued, the connection closes and his terminal ends.
                if let Ok(mut st) = state.lock() {
                    st.sessions.retain(|s| s.id != session_id);
                }
                return;
            }
        };
        if line.is_empty() {
            continue;
        }
        let table_state = state
            .lock()
            .ok()
            .and_then(|st| st.tables.get(&table).cloned());
        let fen = table_state
            .as_ref()
            .and_then(|t| t.fen.clone())
            .unwrap_or_default();
        let reply = match typed(&line, color) {
            None => Some(say(lang, Said::NotUnderstood(&excerpt(&line)))),
            Some(Typed::Help) => Some(say(lang, Said::Help)),
            Some(Typed::Repeat) => Some(
                table_state
                    .and_then(|t| t.last[index(color)].clone())
                    .unwrap_or_else(|| say(lang, Said::NothingYet)),
            ),
            Some(Typed::MyMen) => my_men(&fen, color, lang).map(|l| say(lang, Said::MyMen(&l))),
            Some(Typed::Try { tried, role }) => match role {
                Some(r) if man_on(&fen, color, tried.from) != Some(r) => {
                    Some(say(lang, Said::NoSuchMan(r, tried.from)))
                }
                _ => {
                    if hall.input(table, Input::Play { color, tried }).is_err() {
                        return;
                    }
                    None
                }
            },
            Some(Typed::Input(input)) => {
                if hall.input(table, input).is_err() {
                    return;
                }
                None
            }
        };
        if let Some(r) = reply {
            let _ = tx.send(r);
        }
    }
}

/// Words of the players' channel itself, in the table's language.
fn say(lang: Lang, what: Said<'_>) -> String {
    match (what, lang) {
        (Said::Connected(t, c), Lang::En) => {
            format!("Connected to table {t} as {c}. Type help for the commands.")
        }
        (Said::Connected(t, c), Lang::Fr) => format!(
            "Connecté à la table {t} ({}). Tapez help pour les commandes.",
            color_word(c, lang)
        ),
        (Said::Connected(t, c), Lang::Ru) => format!(
            "Подключено к столу {t} ({}). Команды: help.",
            color_word(c, lang)
        ),
        (Said::NotUnderstood(s), Lang::En) => {
            format!("Not understood: {s}. Type help for the commands.")
        }
        (Said::NotUnderstood(s), Lang::Fr) => format!("Commande inconnue : {s}. Tapez help."),
        (Said::NotUnderstood(s), Lang::Ru) => format!("Непонятно: {s}. Наберите help."),
        (Said::NoSuchMan(r, sq), Lang::En) => format!("You have no {} on {sq}.", role_name(r, lang)),
        (Said::NoSuchMan(r, sq), Lang::Fr) => {
            format!("Vous n'avez pas de {} en {sq}.", role_name(r, lang))
        }
        (Said::NoSuchMan(r, sq), Lang::Ru) => {
            format!("На поле {sq} нет вашей фигуры: {}.", role_name(r, lang))
        }
        (Said::MyMen(list), Lang::En) => format!("Your men: {list}."),
        (Said::MyMen(list), Lang::Fr) => format!("Vos pièces : {list}."),
        (Said::MyMen(list), Lang::Ru) => format!("Ваши фигуры: {list}."),
        (Said::NothingYet, Lang::En) => "Nothing has been said to you yet.".to_owned(),
        (Said::NothingYet, Lang::Fr) => "Rien ne vous a encore été annoncé.".to_owned(),
        (Said::NothingYet, Lang::Ru) => "Вам пока ничего не сообщалось.".to_owned(),
        (Said::Help, Lang::En) => "Commands: a try as g1f3, Ng1f3, e7e8n or O-O; any; rebuffs; promote q, r, b or n; repeat; my men; draw; resign; help.".to_owned(),
        (Said::Help, Lang::Fr) => "Commandes : un coup comme g1f3, Ng1f3, e7e8n ou O-O ; any ; rebuffs ; promote q, r, b ou n ; repeat ; my men ; draw ; resign ; help.".to_owned(),
        (Said::Help, Lang::Ru) => "Команды: ход как g1f3, Ng1f3, e7e8n или O-O; any; rebuffs; promote q, r, b или n; repeat; my men; draw; resign; help.".to_owned(),
    }
}

#[derive(Debug, Clone, Copy)]
enum Said<'a> {
    Connected(TableNo, Color),
    NotUnderstood(&'a str),
    NoSuchMan(Role, Square),
    MyMen(&'a str),
    NothingYet,
    Help,
}

fn color_word(c: Color, lang: Lang) -> &'static str {
    match (c, lang) {
        (Color::White, Lang::En) => "white",
        (Color::Black, Lang::En) => "black",
        (Color::White, Lang::Fr) => "blancs",
        (Color::Black, Lang::Fr) => "noirs",
        (Color::White, Lang::Ru) => "белые",
        (Color::Black, Lang::Ru) => "чёрные",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typed_lines() {
        let w = Color::White;
        let t = |s: &str| Try::from_uci(s).unwrap();
        assert_eq!(
            typed("g1f3", w),
            Some(Typed::Try {
                tried: t("g1f3"),
                role: None
            })
        );
        assert_eq!(
            typed(" Ng1f3 ", w),
            Some(Typed::Try {
                tried: t("g1f3"),
                role: Some(Role::Knight)
            })
        );
        assert_eq!(
            typed("e7e8n", w),
            Some(Typed::Try {
                tried: t("e7e8n"),
                role: None
            })
        );
        assert_eq!(
            typed("Pe7e8q", w),
            Some(Typed::Try {
                tried: t("e7e8q"),
                role: Some(Role::Pawn)
            })
        );
        assert_eq!(
            typed("O-O", Color::Black),
            Some(Typed::Try {
                tried: t("e8g8"),
                role: Some(Role::King)
            })
        );
        assert_eq!(
            typed("0-0-0", w),
            Some(Typed::Try {
                tried: t("e1c1"),
                role: Some(Role::King)
            })
        );
        assert_eq!(typed("My Men", w), Some(Typed::MyMen));
        assert_eq!(
            typed("promote knight", w),
            Some(Typed::Input(Input::Promote {
                color: w,
                role: Role::Knight
            }))
        );
        assert_eq!(
            typed("any", w),
            Some(Typed::Input(Input::Ask {
                color: w,
                question: Question::Any
            }))
        );
        for bad in [
            "",
            "g1",
            "xg1f3",
            "promote king",
            "e2e4 e7e5",
            "castle",
            "Xe2e4",
        ] {
            assert_eq!(typed(bad, w), None, "{bad}");
        }
    }

    #[test]
    fn my_men_lists_only_his_own() {
        let fen = "4k3/8/8/8/8/8/3P4/R3K2N w Q - 0 1";
        assert_eq!(
            my_men(fen, Color::White, Lang::En).unwrap(),
            "king e1, rook a1, knight h1, pawn d2"
        );
        assert_eq!(my_men(fen, Color::Black, Lang::Fr).unwrap(), "roi e8");
        assert_eq!(man_on(fen, Color::White, Square::H1), Some(Role::Knight));
        assert_eq!(man_on(fen, Color::Black, Square::H1), None);
    }
}
