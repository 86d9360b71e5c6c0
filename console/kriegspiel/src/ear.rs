//! The read-back answers' second ear (Moonshine), as `kriegspiel hear --reply` and a player's
//! voice terminal open it.

/// The read-back answers' second ear, unless `off`; without its model a line on stderr says so,
/// and answers are PocketSphinx's alone.
pub fn second_ear(program: &str, off: bool) -> Option<kriegspiel_voice::AnswerEar> {
    let (ear, why) = kriegspiel_voice::AnswerEar::for_player(off);
    if let Some(e) = why {
        eprintln!("{program}: {e}; answers are heard by PocketSphinx alone");
    }
    ear
}
