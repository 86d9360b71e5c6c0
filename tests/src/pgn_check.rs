//! Reads exported PGN with an independent reader (`pgn-reader`) and replays its moves with
//! shakmaty: what chess software does when it opens our files.

use std::ops::ControlFlow;

use kriegspiel_referee::shakmaty::fen::Fen;
use kriegspiel_referee::shakmaty::{CastlingMode, Chess, EnPassantMode, Position};
use pgn_reader::{RawComment, RawTag, Reader, SanPlus, Visitor};

/// One game as read back.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReadGame {
    pub tags: Vec<(String, String)>,
    pub sans: Vec<String>,
    pub comments: Vec<String>,
    /// The result token (`1-0`, `0-1`, `1/2-1/2`, `*`).
    pub outcome: Option<String>,
    /// The position after replaying every move, as FEN.
    pub final_fen: String,
}

impl ReadGame {
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

struct Collect;

struct Movetext {
    game: ReadGame,
    pos: Chess,
    error: Option<String>,
}

impl Visitor for Collect {
    type Tags = Vec<(String, String)>;
    type Movetext = Movetext;
    type Output = Result<ReadGame, String>;

    fn begin_tags(&mut self) -> ControlFlow<Self::Output, Self::Tags> {
        ControlFlow::Continue(Vec::new())
    }

    fn tag(
        &mut self,
        tags: &mut Self::Tags,
        name: &[u8],
        value: RawTag<'_>,
    ) -> ControlFlow<Self::Output> {
        tags.push((
            String::from_utf8_lossy(name).into_owned(),
            value.decode_utf8_lossy().into_owned(),
        ));
        ControlFlow::Continue(())
    }

    fn begin_movetext(&mut self, tags: Self::Tags) -> ControlFlow<Self::Output, Self::Movetext> {
        let fen = tags
            .iter()
            .find(|(k, _)| k == "FEN")
            .map(|(_, v)| v.clone());
        let pos = match fen {
            None => Chess::default(),
            Some(f) => match f.parse::<Fen>().map_err(|e| e.to_string()).and_then(|f| {
                f.into_position(CastlingMode::Standard)
                    .map_err(|e| e.to_string())
            }) {
                Ok(p) => p,
                Err(e) => return ControlFlow::Break(Err(format!("bad FEN tag: {e}"))),
            },
        };
        ControlFlow::Continue(Movetext {
            game: ReadGame {
                tags,
                ..ReadGame::default()
            },
            pos,
            error: None,
        })
    }

    fn san(&mut self, m: &mut Self::Movetext, san_plus: SanPlus) -> ControlFlow<Self::Output> {
        match san_plus.san.to_move(&m.pos) {
            Ok(mv) => {
                m.pos.play_unchecked(mv);
                m.game.sans.push(san_plus.to_string());
            }
            Err(e) => {
                m.error.get_or_insert(format!(
                    "move {} ({san_plus}) is illegal: {e}",
                    m.game.sans.len() + 1
                ));
            }
        }
        ControlFlow::Continue(())
    }

    fn comment(
        &mut self,
        m: &mut Self::Movetext,
        comment: RawComment<'_>,
    ) -> ControlFlow<Self::Output> {
        m.game
            .comments
            .push(words(&String::from_utf8_lossy(comment.as_bytes())));
        ControlFlow::Continue(())
    }

    fn outcome(
        &mut self,
        m: &mut Self::Movetext,
        outcome: kriegspiel_referee::shakmaty::Outcome,
    ) -> ControlFlow<Self::Output> {
        m.game.outcome = Some(outcome.to_string());
        ControlFlow::Continue(())
    }

    fn end_game(&mut self, m: Self::Movetext) -> Self::Output {
        if let Some(e) = m.error {
            return Err(e);
        }
        let mut game = m.game;
        game.final_fen = Fen::from_position(&m.pos, EnPassantMode::Legal).to_string();
        Ok(game)
    }
}

/// Every game of a PGN text, or the first error (syntax or an illegal move).
pub fn read_all(pgn: &str) -> Result<Vec<ReadGame>, String> {
    let mut reader = Reader::new(pgn.as_bytes());
    let mut games = Vec::new();
    loop {
        match reader.read_game(&mut Collect) {
            Ok(Some(Ok(g))) => games.push(g),
            Ok(Some(Err(e))) => return Err(e),
            Ok(None) => return Ok(games),
            Err(e) => return Err(e.to_string()),
        }
    }
}

/// A comment as one line: PGN writers wrap long comments.
fn words(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}
