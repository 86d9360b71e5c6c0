//! The read-back answers' second ear (Moonshine), as `kriegspiel hear --reply` and a player's
//! voice terminal open it.

/// The read-back answers' second ear, unless `off`; without its model a line on stderr says so,
/// and answers are PocketSphinx's alone.
pub fn second_ear(program: &str, off: bool) -> Option<kriegspiel_voice::AnswerEar> {
    if off {
        return None;
    }
    use kriegspiel_voice::AnswerEar;
    AnswerEar::open(&AnswerEar::default_dir())
        .map_err(|e| eprintln!("{program}: {e}; answers are heard by PocketSphinx alone"))
        .ok()
}
