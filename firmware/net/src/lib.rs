//! Boards and consoles meeting at an MQTT broker.
//!
//! The broker routes, it does not store: mosquitto drops QoS 1 messages above its queue
//! limit and forgets what it held since its last save when killed, and rumqttc forgets its
//! pending publishes when the broker lost the session. So every board message travels in
//! an [`Envelope`] numbered `(epoch, seq)`; the board keeps it in its [`Outbox`] until the
//! console's cumulative [`Ack`] covers it and re-sends it on a timer; the console takes
//! envelopes [`InOrder`], never by arrival, and acknowledges only what its journal holds.
//! The link frames inside are the serial link's own, byte for byte. A player's seat travels
//! the same way in lines: numbered by the console, kept, asked for again ([`seat`]).

mod broker;
mod envelope;
mod order;
mod outbox;
mod plainly;
pub mod seat;
mod seat_lines;
mod topics;
mod transport;

pub use broker::unguessable;
pub use broker::{
    goodbye, network_options, retry_delay, Broker, BrokerError, BrokerUrl, Disconnect, Goodbye,
    GoodbyeSent, Password, MAX_PACKET,
};
pub use envelope::{Ack, Envelope, EnvelopeError, MAX_ENVELOPE};
pub use order::{Arrived, InOrder};
pub use outbox::{Outbox, OutboxFull};
pub use plainly::{refusal, Plainly};
pub use seat::{SeatWireError, SessionId, ToConsole, ToSeat, MAX_LINE};
pub use seat_lines::{
    Heard, HeardLines, SaidLines, TakenLines, TooManyUntaken, TypedLines, ASK_EVERY_MS, HELD_LINES,
    HERE_EVERY_MS, KEPT_LINES, RESEND_TYPED_MS, UNTAKEN_LINES,
};
pub use topics::{round, BoardTopics, Principal, Status, TableTopics, TopicKind};
pub use transport::{BoardTransport, TransportConfig, TransportError, TransportWriter};
