//! kriegspiel-table
