//! rumqttc's errors in the words of a club room. Its own `Display` speaks of its state
//! machine ("Mqtt state: Io error: Os { code: 111, ... }"), which tells an arbiter nothing
//! about what to do.

use std::fmt;
use std::io;

use rumqttc::{ConnectReturnCode, ConnectionError, StateError};

/// Displays a broker connection's error plainly: what happened, not where in the client.
#[derive(Debug, Clone, Copy)]
pub struct Plainly<'a>(pub &'a ConnectionError);

impl fmt::Display for Plainly<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            // A broker going down mid-packet comes as the reader's failure.
            ConnectionError::Io(e)
            | ConnectionError::MqttState(StateError::Io(e))
            | ConnectionError::MqttState(StateError::Deserialization(
                rumqttc::mqttbytes::Error::Io(e),
            )) => f.write_str(&io_words(e)),
            ConnectionError::MqttState(StateError::ConnectionAborted) => f.write_str(CLOSED),
            ConnectionError::MqttState(StateError::AwaitPingResp)
            | ConnectionError::NetworkTimeout
            | ConnectionError::FlushTimeout => f.write_str("the broker stopped answering"),
            ConnectionError::MqttState(other) => {
                write!(f, "the broker's answer made no sense ({other})")
            }
            ConnectionError::Tls(e) => write!(f, "the secure connection failed: {e}"),
            ConnectionError::ConnectionRefused(code) => {
                write!(f, "the broker refused: {}", refusal(*code))
            }
            ConnectionError::NotConnAck(_) => {
                f.write_str("the broker answered the connection with something else")
            }
            ConnectionError::RequestsDone => f.write_str("the connection was closed here"),
        }
    }
}

/// Why a broker refused a connection, to follow "refused ...: ".
pub fn refusal(code: ConnectReturnCode) -> &'static str {
    match code {
        ConnectReturnCode::Success => "nothing (it accepted)",
        ConnectReturnCode::RefusedProtocolVersion => "it does not speak MQTT 3.1.1",
        ConnectReturnCode::BadClientId => "it does not take this client's name",
        ConnectReturnCode::ServiceUnavailable => "it is not available",
        ConnectReturnCode::BadUserNamePassword => "wrong user name or password",
        // mosquitto answers a wrong password so too.
        ConnectReturnCode::NotAuthorized => {
            "not authorised (a wrong user name or password, or a seat file of another round)"
        }
    }
}

/// A connection the broker's side ended. Whether mosquitto was stopped (SIGTERM), killed
/// (SIGKILL: the kernel closes its sockets just as cleanly) or restarted cannot be told
/// from here, so the words do not guess.
const CLOSED: &str = "the broker ended the connection (stopped, killed or restarted)";

/// The words for the kinds an arbiter can act on; the system's own message otherwise.
fn io_words(e: &io::Error) -> String {
    let what = match e.kind() {
        io::ErrorKind::ConnectionRefused => "nothing answers at the broker's address",
        // A reset: the broker's machine or the network between dropped it, or the broker
        // ended it with unread data in flight (killed while it sent).
        io::ErrorKind::ConnectionReset | io::ErrorKind::ConnectionAborted => {
            "the connection to the broker was cut (the broker stopped, or the network dropped it)"
        }
        io::ErrorKind::BrokenPipe | io::ErrorKind::UnexpectedEof => CLOSED,
        io::ErrorKind::TimedOut => "the broker did not answer in time",
        io::ErrorKind::HostUnreachable | io::ErrorKind::NetworkUnreachable => {
            "the broker's machine cannot be reached from here"
        }
        io::ErrorKind::NotFound => "the broker's host name is not known here",
        _ => return format!("the connection to the broker failed: {e}"),
    };
    what.to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn said(e: ConnectionError) -> String {
        Plainly(&e).to_string()
    }

    #[test]
    fn a_refused_connection_is_said_without_the_clients_inner_words() {
        let e = io::Error::from(io::ErrorKind::ConnectionRefused);
        let words = said(ConnectionError::MqttState(StateError::Io(e)));
        assert_eq!(words, "nothing answers at the broker's address");
        let e = io::Error::from_raw_os_error(111);
        assert_eq!(
            said(ConnectionError::Io(e)),
            "nothing answers at the broker's address"
        );
        // What has no plainer words keeps the system's, never the client's debug form.
        let e = io::Error::other("certificate expired");
        assert_eq!(
            said(ConnectionError::MqttState(StateError::Io(e))),
            "the connection to the broker failed: certificate expired"
        );
    }

    #[test]
    fn a_broker_that_went_away_is_said_so() {
        assert_eq!(
            said(ConnectionError::MqttState(StateError::ConnectionAborted)),
            CLOSED
        );
        assert_eq!(
            said(ConnectionError::MqttState(StateError::AwaitPingResp)),
            "the broker stopped answering"
        );
        assert_eq!(
            said(ConnectionError::Io(io::ErrorKind::ConnectionReset.into())),
            "the connection to the broker was cut (the broker stopped, or the network dropped it)"
        );
        // As rumqttc says a broker killed while it was sending.
        let reset = rumqttc::mqttbytes::Error::Io(io::ErrorKind::ConnectionReset.into());
        assert_eq!(
            said(ConnectionError::MqttState(StateError::Deserialization(
                reset
            ))),
            "the connection to the broker was cut (the broker stopped, or the network dropped it)"
        );
    }

    #[test]
    fn a_refusal_names_the_likely_cause() {
        assert!(said(ConnectionError::ConnectionRefused(
            ConnectReturnCode::NotAuthorized
        ))
        .contains("seat file of another round"));
        assert_eq!(
            said(ConnectionError::ConnectionRefused(
                ConnectReturnCode::BadUserNamePassword
            )),
            "the broker refused: wrong user name or password"
        );
    }
}
