//! kriegspiel-boardlink
