//! `kriegspiel player --seat-file onlooker.seat --table N`: a spectator's terminal (a phone
//! on the room's network, the room's display). It prints what both players of table N
//! hear, one line each, as the console says it; it sends nothing. The broker lets the
//! onlookers' seat read the tables' public channels and nothing else, so nothing private
//! can reach it whatever it asks for.

use std::io::Write;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use kriegspiel_net::{Broker, Plainly, TableTopics, MAX_LINE};
use rumqttc::{Client, ConnectReturnCode, ConnectionError, Event, Packet, QoS};

use super::PROGRAM;

/// How long the first connection may take before the onlooker is told it does not answer.
const FIRST_CONNECT: Duration = Duration::from_secs(10);

/// Follows table `table`'s public channel until the terminal is closed or nobody reads it;
/// a broker that refuses the file or never answers is said, and ends it.
pub fn follow(broker: &Broker, table: usize) -> ExitCode {
    let mut options = match broker.options(&format!("kriegspiel-onlooker-{table}")) {
        Ok(o) => o,
        Err(e) => return fail(2, &e.to_string()),
    };
    options.set_clean_session(true);
    let (client, mut connection) = Client::new(options, 16);
    connection
        .eventloop
        .set_network_options(kriegspiel_net::network_options());
    let topic = TableTopics::new(table).public;
    let started = Instant::now();
    let mut following = false;
    let mut said_down = false;
    let mut out = std::io::stdout().lock();
    for event in connection.iter() {
        match event {
            Ok(Event::Incoming(Packet::ConnAck(_))) => {
                let _ = client.try_subscribe(&topic, QoS::AtLeastOnce);
            }
            Ok(Event::Incoming(Packet::SubAck(_))) => {
                if !std::mem::replace(&mut following, true) {
                    eprintln!(
                        "{PROGRAM}: following table {table}'s public announcements (what both players hear; nothing private reaches onlookers). Ctrl-C stops."
                    );
                }
                if std::mem::take(&mut said_down) && writeln!(out, "(the network is back)").is_err()
                {
                    return ExitCode::SUCCESS;
                }
            }
            Ok(Event::Incoming(Packet::Publish(p))) if p.topic == topic => {
                if writeln!(out, "{}", line(&p.payload))
                    .and_then(|()| out.flush())
                    .is_err()
                {
                    // Nobody reads any more.
                    return ExitCode::SUCCESS;
                }
            }
            Ok(_) => {}
            Err(ConnectionError::ConnectionRefused(
                ConnectReturnCode::BadUserNamePassword | ConnectReturnCode::NotAuthorized,
            )) => {
                return fail(
                    1,
                    "the broker refused this seat file (a seat file of another round, or the round's broker files were made again)",
                );
            }
            Err(e) => {
                if !following && started.elapsed() >= FIRST_CONNECT {
                    return fail(
                        1,
                        &format!(
                            "the broker at {} does not answer ({}); is it running, and is this the room's network?",
                            broker.url,
                            Plainly(&e)
                        ),
                    );
                }
                if following
                    && !std::mem::replace(&mut said_down, true)
                    && writeln!(out, "(the network is gone: {}; trying again)", Plainly(&e))
                        .is_err()
                {
                    return ExitCode::SUCCESS;
                }
                std::thread::sleep(Duration::from_millis(500));
            }
        }
    }
    ExitCode::SUCCESS
}

/// One announcement as a line: at most [`MAX_LINE`] bytes, no control characters (a
/// console's message cannot move the onlooker's cursor or ring his bell).
fn line(payload: &[u8]) -> String {
    let text = String::from_utf8_lossy(&payload[..payload.len().min(MAX_LINE)]);
    text.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

fn fail(code: u8, why: &str) -> ExitCode {
    eprintln!("{PROGRAM}: {why}");
    ExitCode::from(code)
}

#[cfg(test)]
mod tests {
    use super::line;

    #[test]
    fn an_announcement_is_one_plain_bounded_line() {
        assert_eq!(line(b"White has moved."), "White has moved.");
        assert_eq!(line(b"a\nb\x1b[2Jc\x07"), "a b [2Jc ");
        assert_eq!(line(&[b'x'; 5000]).len(), 1024);
        assert_eq!(line(&[0xff, b'a']), "\u{fffd}a");
    }
}
