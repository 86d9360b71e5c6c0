//! kriegspiel-tests
