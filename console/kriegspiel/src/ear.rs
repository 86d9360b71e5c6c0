//! The second ear (Moonshine: the read-back's answers, a free turn's commands, and tries), as
//! `kriegspiel hear` and a player's voice terminal open it.

/// The second ear, unless `off`; without its model a line on stderr says so, and answers,
/// commands and tries are PocketSphinx's alone.
pub fn second_ear(program: &str, off: bool) -> Option<kriegspiel_voice::AnswerEar> {
    if off {
        return None;
    }
    use kriegspiel_voice::AnswerEar;
    AnswerEar::open(&AnswerEar::default_dir())
        .map_err(|e| {
            eprintln!("{program}: {e}; answers, commands and tries are heard by PocketSphinx alone")
        })
        .ok()
}
