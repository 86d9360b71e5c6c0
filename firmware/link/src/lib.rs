//! kriegspiel-link
