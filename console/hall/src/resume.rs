//! Opening a table: its set-up checked, its unfinished game replayed from the journal (what
//! was said last, what must be said again, where its clocks stood) or a new game begun.

use std::collections::HashMap;

use kriegspiel_referee::shakmaty::{ByColor, Color};
use kriegspiel_table::render;
use kriegspiel_table::{Input, Millis, Output, Table};

use crate::error::HallError;
use crate::heartbeat::{credible, wall_ms};
use crate::journal::{GameEvents, GameId, GameRecord, Journal, JournalEvent};
use crate::setup::SetupError;
use crate::spec::{BoardSource, Resume, TableNo, TableSpec, TimeMode};

/// A table ready to run: its table (replayed when resumed) and its journal place.
/// The longest console outage a networked table's time runs through.
const CATCH_UP_MS: u64 = 60_000;

impl Prepared {
    /// Whether the time the console was down runs on the table's clock: a networked
    /// table's boards kept what was played meanwhile, timed as played (within a minute; a
    /// longer outage starts the clock afresh).
    pub(crate) fn downtime_counts(&self) -> bool {
        self.spec.has_networked_board() && self.down_ms.is_some_and(|d| d <= CATCH_UP_MS)
    }
}

pub(crate) struct Prepared {
    pub(crate) no: TableNo,
    pub(crate) spec: TableSpec,
    pub(crate) game: GameId,
    pub(crate) table: Table,
    pub(crate) started: Vec<Output>,
    pub(crate) seq: i64,
    pub(crate) resumed: usize,
    /// When resumed: the settings asked that differ from the game's and were ignored.
    pub(crate) ignored: Vec<String>,
    /// A new game: the table's unfinished game it was begun beside, if any.
    pub(crate) set_aside: Option<GameId>,
    /// A new game begun because the table's last game is over: that game.
    pub(crate) follows: Option<GameId>,
    pub(crate) seats: ByColor<String>,
    /// When resumed: the outputs of the last input that had any for the players; the
    /// console may have died before they were said, so they are said again, marked.
    pub(crate) unsaid: Vec<Output>,
    /// When resumed: the last output each player was meant to hear.
    pub(crate) heard: ByColor<Option<Output>>,
    /// The table time its clock starts at: the later of its last event and its last
    /// heartbeat.
    pub(crate) resume_at: Millis,
    /// Wall-clock milliseconds the console was down (since the table's last event or
    /// heartbeat), when resumed.
    pub(crate) down_ms: Option<Millis>,
    /// The first scripted input not yet journaled.
    pub(crate) next_scripted: usize,
}

/// How many of `scripted` the journaled events already hold, in order.
pub(crate) fn scripted_done(scripted: &[(Millis, Input)], journaled: &[JournalEvent]) -> usize {
    let mut done = 0;
    for e in journaled {
        if scripted.get(done).is_some_and(|(_, i)| *i == e.event.input) {
            done += 1;
        }
    }
    done
}

/// Opens one table: checks its set-up, then resumes its unfinished game from the journal
/// or starts a new one.
pub(crate) fn prepare(
    journal: &mut Journal,
    no: TableNo,
    spec: TableSpec,
    mode: TimeMode,
) -> Result<Prepared, HallError> {
    let mut known = Known {
        games: journal.games()?,
        events: HashMap::new(),
        names: vec![spec.name.clone()],
    };
    prepare_among(journal, &mut known, no, spec, mode)
}

/// What a hall opening many tables reads once for all of them: the journal's games (every
/// row checked once, not once a table) and the events of each game they take up, read in
/// one pass (see `Journal::events_of`). They are all in memory together until each table
/// has replayed its own.
pub(crate) struct Known {
    games: Vec<GameRecord>,
    events: HashMap<GameId, GameEvents>,
    /// The names of the tables being opened: a game another of them takes up is theirs.
    names: Vec<String>,
}

impl Known {
    pub(crate) fn read(
        journal: &Journal,
        specs: &[(TableNo, TableSpec)],
    ) -> Result<Known, HallError> {
        let games = journal.games()?;
        let mut ids = Vec::new();
        for (_, spec) in specs {
            if let Ok(Some(g)) = game_to_resume(&games, &mut spec.clone()) {
                ids.push(g.id);
            }
        }
        let events = journal.events_of(&ids);
        let names = specs.iter().map(|(_, s)| s.name.clone()).collect();
        Ok(Known {
            games,
            events,
            names,
        })
    }

    /// The name the table of `spec` will go by: a game named by its number goes on under
    /// its own table's name.
    pub(crate) fn name_of(&self, spec: &TableSpec) -> String {
        let mut spec = spec.clone();
        let _ = game_to_resume(&self.games, &mut spec);
        spec.name
    }

    /// The latest game of each name not in `opened`, where it is unfinished.
    pub(crate) fn left_unfinished(
        &mut self,
        journal: &Journal,
        opened: &[String],
    ) -> Vec<(GameId, String)> {
        let mut latest: Vec<GameRecord> = Vec::new();
        for g in self.games.iter().rev() {
            if !opened.iter().any(|n| n.trim() == g.name.trim())
                && !latest.iter().any(|l| l.name == g.name)
            {
                latest.push(g.clone());
            }
        }
        latest.sort_by_key(|g| g.id);
        latest
            .into_iter()
            .filter(|g| unfinished(journal, self, g))
            .map(|g| (g.id, g.name))
            .collect()
    }

    /// The events of `game`: as read for all, or read now.
    fn events(&mut self, journal: &Journal, game: GameId) -> GameEvents {
        self.events
            .remove(&game)
            .unwrap_or_else(|| journal.events(game))
    }
}

/// [`prepare`] with what was read for many tables at once.
pub(crate) fn prepare_among(
    journal: &mut Journal,
    known: &mut Known,
    no: TableNo,
    mut spec: TableSpec,
    mode: TimeMode,
) -> Result<Prepared, HallError> {
    mark_boardless(&mut spec);
    if mode == TimeMode::Simulated
        && [&spec.white, &spec.black].iter().any(|s| {
            matches!(
                s,
                BoardSource::Serial(_) | BoardSource::Network(_) | BoardSource::Dgt(_)
            )
        })
    {
        return Err(HallError::SimulatedTimeNeedsSimulatedBoards { table: spec.name });
    }
    let config = spec.setup.config().map_err(|error| HallError::Setup {
        table: spec.name.clone(),
        error,
    })?;
    // The last game of this table: resumed if it is unfinished, with the settings it was
    // journaled with (what was asked differently now is said, and ignored).
    let mut follows = None;
    if let Some(g) = game_to_resume(&known.games, &mut spec)? {
        let read = known.events(journal, g.id);
        if let Some(p) = resume(journal, no, spec.clone(), &g, read)? {
            return Ok(p);
        }
        if let Resume::Game(id) = spec.resume {
            return Err(HallError::Resume {
                table: spec.name,
                error: format!("game {id} is over (`kriegspiel export --game {id}` writes it)"),
            });
        }
        follows = Some(g.id);
    }
    if spec.resume == Resume::Last {
        renamed(journal, known, no, &spec)?;
    }
    let set_aside = match spec.resume {
        Resume::New => known
            .games
            .iter()
            .rev()
            .find(|g| g.name == spec.name)
            .cloned()
            .filter(|g| unfinished(journal, known, g))
            .map(|g| g.id),
        Resume::Last | Resume::Game(_) => None,
    };
    let game = journal.new_game(&spec.name, &spec.setup, wall_ms())?;
    journal.table_number(game, no)?;
    let (table, started) = Table::new(config, 0).map_err(|e| HallError::Setup {
        table: spec.name.clone(),
        error: SetupError {
            field: "setup",
            message: e.to_string(),
        },
    })?;
    Ok(Prepared {
        ignored: Vec::new(),
        set_aside,
        follows,
        seats: journal.seat_codes(game)?,
        unsaid: Vec::new(),
        heard: ByColor::default(),
        next_scripted: 0,
        no,
        game,
        table,
        started,
        seq: 0,
        resumed: 0,
        resume_at: 0,
        down_ms: None,
        spec,
    })
}

/// A table renamed in the round file would begin a new game beside its unfinished one, whose
/// boards and players it has (club rehearsal: "Alfa" for "Alpha" left game 1 unfinished
/// without a word). Refused: the latest game begun at this number under a name no table of
/// this round has, if it is unfinished.
fn renamed(
    journal: &Journal,
    known: &mut Known,
    no: TableNo,
    spec: &TableSpec,
) -> Result<(), HallError> {
    let latest_of = |name: &str| known.games.iter().rev().find(|g| g.name == name);
    // Only what came after this name's own last game: a new game the arbiter began under
    // it (--new-game) settled the matter.
    let since = latest_of(&spec.name).map(|g| g.id);
    let Some(g) = known
        .games
        .iter()
        .rev()
        .take_while(|g| since.is_none_or(|own| g.id > own))
        .filter(|g| !known.names.contains(&g.name))
        .filter(|g| latest_of(&g.name).is_some_and(|l| l.id == g.id))
        .find(|g| journal.stored_table_number(g.id) == Some(no))
        .cloned()
    else {
        return Ok(());
    };
    if !unfinished(journal, known, &g) {
        return Ok(());
    }
    Err(HallError::Resume {
        table: spec.name.clone(),
        error: format!(
            "table {no}'s unfinished game {} is the table '{}', and the round file now names table {no} '{}': put the name back to take that game up, or start a new game with --new-game",
            g.id, g.name, spec.name
        ),
    })
}

/// The tables of `specs` that would take up an unfinished game of their name from
/// `journal` (those asked to resume their last game, not `--new-game` or a game by number):
/// the others would begin a new game. Read only; nothing is begun.
pub fn resuming(
    journal: &Journal,
    specs: &[(TableNo, TableSpec)],
) -> Result<Vec<TableNo>, HallError> {
    let mut known = Known::read(journal, specs)?;
    let mut found = Vec::new();
    for (no, spec) in specs {
        if spec.resume != Resume::Last {
            continue;
        }
        let latest = known
            .games
            .iter()
            .rev()
            .find(|g| g.name == spec.name)
            .cloned();
        if latest.is_some_and(|g| unfinished(journal, &mut known, &g)) {
            found.push(*no);
        }
    }
    Ok(found)
}

/// Whether a journaled game is not over (one whose set-up no longer makes a table counts as
/// over: it cannot be taken up).
fn unfinished(journal: &Journal, known: &mut Known, g: &GameRecord) -> bool {
    let read = known.events(journal, g.id);
    let Ok(config) = g.setup.config() else {
        return false;
    };
    let Ok((mut table, _)) = Table::new(config, 0) else {
        return false;
    };
    replay(&mut table, &read.events);
    !table.is_over()
}

/// A player with no board plays by keys or voice: the table keeps his board, so that it
/// follows every correction (else it would wait, out of sync, for a board never coming).
/// (A script that moves his men stands in for a board: tests and demos feed them.)
fn mark_boardless(spec: &mut TableSpec) {
    let scripted_board = |c: Color| {
        spec.scripted
            .iter()
            .any(|(_, i)| matches!(i, Input::Board { color, .. } if *color == c))
    };
    let boardless = |source: &BoardSource, c: Color| {
        matches!(source, BoardSource::Absent) && !scripted_board(c)
    };
    let (white, black) = (
        boardless(&spec.white, Color::White),
        boardless(&spec.black, Color::Black),
    );
    spec.setup.white_without_board |= white;
    spec.setup.black_without_board |= black;
}

/// The journal's game the table would take up: its last one, the one named, or none for a
/// new game. A game named goes on under its own table's name.
fn game_to_resume(
    games: &[GameRecord],
    spec: &mut TableSpec,
) -> Result<Option<GameRecord>, HallError> {
    Ok(match spec.resume {
        Resume::New => None,
        Resume::Last => games.iter().rev().find(|g| g.name == spec.name).cloned(),
        Resume::Game(id) => {
            let ids: Vec<String> = games.iter().map(|g| g.id.to_string()).collect();
            let g =
                games
                    .iter()
                    .find(|g| g.id == id)
                    .cloned()
                    .ok_or_else(|| HallError::Resume {
                        table: spec.name.clone(),
                        error: format!(
                            "the journal has no game {id} (its games: {})",
                            if ids.is_empty() {
                                "none".to_owned()
                            } else {
                                ids.join(", ")
                            }
                        ),
                    })?;
            spec.name.clone_from(&g.name);
            Some(g)
        }
    })
}

/// Replays game `g` and takes it up if it is unfinished (`None` when it is over).
fn resume(
    journal: &mut Journal,
    no: TableNo,
    spec: TableSpec,
    g: &GameRecord,
    read: GameEvents,
) -> Result<Option<Prepared>, HallError> {
    let config = g.setup.config().map_err(|error| HallError::Setup {
        table: spec.name.clone(),
        error,
    })?;
    if let Some(damage) = read.damage {
        return Err(HallError::Resume {
            table: spec.name,
            error: format!("{damage} (export what is readable with `kriegspiel export`, or start a new journal)"),
        });
    }
    let (mut table, started) = Table::new(config, 0).map_err(|e| HallError::Resume {
        table: spec.name.clone(),
        error: e.to_string(),
    })?;
    let (mut unsaid, heard) = replay(&mut table, &read.events);
    if journal.said_through(g.id) == i64::try_from(read.events.len()).ok() {
        // Stopped on purpose after all of it was said: nothing to say again.
        unsaid.clear();
    }
    if table.is_over() {
        return Ok(None);
    }
    // Taken up at the number it was begun at: seat files and commands name tables by it. A
    // game the arbiter names goes on wherever he puts it.
    let was = journal.table_number(g.id, no)?;
    if was != no && spec.resume == Resume::Last {
        return Err(HallError::Resume {
            table: spec.name,
            error: format!(
                "its game {} was begun as table {was}, and the round file now makes it table {no}: put the tables back in their order (players' seat files and commands name tables by number), or start this one afresh with --new-game",
                g.id
            ),
        });
    }
    let mut differences = spec.setup.differences(&g.setup);
    if let Resume::Game(_) = spec.resume {
        // Named by the arbiter: it goes on as it was, whatever was asked.
        let conflicts = std::mem::take(&mut differences.conflicts);
        differences.ignored.splice(0..0, conflicts);
    }
    if !differences.conflicts.is_empty() {
        return Err(HallError::Conflict {
            table: spec.name,
            game: g.id,
            conflicts: differences.conflicts,
        });
    }
    // Last heard of: its last event (or its start), or a later heartbeat (the thinking
    // time up to it was the console's, and counts on the clock).
    let last_event = read
        .events
        .last()
        .map_or((0, g.started_wall_ms), |e| (e.event.at, e.stamp.wall_ms));
    let now = wall_ms();
    let (resume_at, heard_wall) = journal
        .last_beat(g.id)
        .filter(|b| credible(b, last_event, now))
        .map_or(last_event, |b| (b.at, b.wall_ms));
    let down = now.saturating_sub(heard_wall).max(0);
    Ok(Some(Prepared {
        ignored: differences.ignored,
        set_aside: None,
        follows: None,
        seats: journal.seat_codes(g.id)?,
        unsaid,
        heard,
        next_scripted: scripted_done(&spec.scripted, &read.events),
        no,
        game: g.id,
        table,
        started,
        seq: i64::try_from(read.events.len()).unwrap_or(i64::MAX),
        resumed: read.events.len(),
        resume_at,
        down_ms: Some(u64::try_from(down).unwrap_or(0)),
        spec,
    }))
}

/// Applies the journaled events; gives the outputs of the last input that had any for the
/// players, and the last output each player was meant to hear.
fn replay(table: &mut Table, events: &[JournalEvent]) -> (Vec<Output>, ByColor<Option<Output>>) {
    let mut unsaid = Vec::new();
    let mut heard = ByColor::<Option<Output>>::default();
    for e in events {
        let audible: Vec<Output> = table
            .apply(e.event.clone())
            .into_iter()
            .filter(|o| render::hearer(o).is_some())
            .collect();
        if audible.is_empty() {
            continue;
        }
        for o in &audible {
            for c in Color::ALL {
                if render::hearer(o).is_some_and(|h| h.hears(c)) {
                    heard[c] = Some(o.clone());
                }
            }
        }
        unsaid = audible;
    }
    (unsaid, heard)
}
