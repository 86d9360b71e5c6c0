//! kriegspiel-board-core
