//! kriegspiel-referee
