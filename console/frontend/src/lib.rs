//! What the two console programs share, `kriegspiel` (its subcommands `table`, `hall`,
//! `demo`, `export`, `player`) and `kriegspiel-console` (the arbiter's window), so that a
//! setting means the same in both: reading round files ([`round`]), the table and speech
//! options of the command line ([`args`]), the journal's place ([`journal`]), commands on
//! standard input ([`keypad`]), the JSON event lines ([`lines`]) and the demo's readable
//! ones ([`readable`]), stopping on signals ([`signals`]), the players' channel
//! ([`players`]), the speaker subscribers ([`speakers`]), the demo's pace ([`demo`]), and
//! a hall run headless with all of them ([`headless`]), and a console's place in a round
//! on the broker ([`round_broker`]).

pub mod args;
pub mod credentials;
pub mod demo;
pub mod elsewhere;
pub mod headless;
pub mod journal;
pub mod keypad;
pub mod lines;
pub mod players;
pub mod readable;
pub mod round;
pub mod round_broker;
pub mod signals;
pub mod speakers;

pub use args::{BrokerArgs, GameArgs, SpeechArgs};
pub use demo::demo_timing;
pub use headless::play;
pub use journal::{journal_path, open_journal, Unnamed};
pub use keypad::{parse_command, spawn_keypad, Command};
pub use lines::{print_line, print_text, Lines};
pub use players::{default_socket, Players};
pub use readable::Readable;
pub use round::{read_round, read_round_broker, read_round_with_audio, tables_of, RoundEntry};
pub use signals::{stop_on_signals, wait_for_stop};
pub use speakers::{speaker, speaking, Probing};
