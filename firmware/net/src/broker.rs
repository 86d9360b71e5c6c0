//! Where the broker is and how to prove who we are: the URL, a password read from a file
//! (never from the command line, where `ps` shows it), TLS with the round's own CA.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use rumqttc::{MqttOptions, TlsConfiguration, Transport};

/// The largest MQTT packet either side sends or takes: an envelope, a table's summary.
pub const MAX_PACKET: usize = 64 * 1024;
/// A password file is a line; anything longer is not one.
const MAX_PASSWORD_FILE: u64 = 4096;

/// 64 bits from the system's random source: what no other user of the broker can guess (a
/// client id's suffix, a player's session). Where the source cannot be read, the time and the
/// process: distinct still, though no longer secret.
pub fn unguessable() -> u64 {
    use std::io::Read;
    let mut bytes = [0u8; 8];
    let drawn = std::fs::File::open("/dev/urandom").and_then(|mut f| f.read_exact(&mut bytes));
    if drawn.is_err() {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let mixed = nanos ^ (u128::from(std::process::id()) << 64);
        bytes = (mixed as u64 ^ (mixed >> 64) as u64).to_le_bytes();
    }
    u64::from_le_bytes(bytes)
}

/// `mqtt://HOST[:PORT]` (1883) or `mqtts://HOST[:PORT]` (8883).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BrokerUrl {
    pub host: String,
    pub port: u16,
    pub tls: bool,
}

impl std::str::FromStr for BrokerUrl {
    type Err = BrokerError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad = |why: &str| BrokerError::Url {
            url: s.to_owned(),
            why: why.to_owned(),
        };
        let (tls, rest) = if let Some(rest) = s.strip_prefix("mqtts://") {
            (true, rest)
        } else if let Some(rest) = s.strip_prefix("mqtt://") {
            (false, rest)
        } else {
            return Err(bad("it must start with mqtt:// or mqtts://"));
        };
        let rest = rest.strip_suffix('/').unwrap_or(rest);
        let (host, port) = match rest.rsplit_once(':') {
            Some((host, port)) if !host.ends_with(']') || host.starts_with('[') => {
                let port = port
                    .parse::<u16>()
                    .ok()
                    .filter(|p| *p != 0)
                    .ok_or_else(|| bad("the port must be a number from 1 to 65535"))?;
                (host, port)
            }
            _ => (rest, if tls { 8883 } else { 1883 }),
        };
        let host = host.trim_start_matches('[').trim_end_matches(']');
        // A name or an address: letters, digits and `-._:%` (IPv6 and its zone) only, so
        // that it goes into a seat file or a certificate as it is.
        let host_char = |c: char| c.is_ascii_alphanumeric() || "-._:%".contains(c);
        if host.is_empty() || !host.chars().all(host_char) {
            return Err(bad(
                "expected mqtt://HOST:PORT, e.g. mqtt://192.168.1.10:1883",
            ));
        }
        Ok(BrokerUrl {
            host: host.to_owned(),
            port,
            tls,
        })
    }
}

impl std::fmt::Display for BrokerUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let scheme = if self.tls { "mqtts" } else { "mqtt" };
        if self.host.contains(':') {
            write!(f, "{scheme}://[{}]:{}", self.host, self.port)
        } else {
            write!(f, "{scheme}://{}:{}", self.host, self.port)
        }
    }
}

/// A password held in memory (made from the round's secret): never printed.
#[derive(Clone, PartialEq, Eq)]
pub struct Password(pub String);

impl std::fmt::Debug for Password {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Password(..)")
    }
}

/// A broker and this client's credentials.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Broker {
    pub url: BrokerUrl,
    pub username: Option<String>,
    pub password_file: Option<PathBuf>,
    /// The password itself, when it is not in a file (a console derives its own from the
    /// round's secret); it takes the place of `password_file`.
    pub password: Option<Password>,
    /// The CA that signed the broker's certificate (for `mqtts://`).
    pub ca_file: Option<PathBuf>,
}

/// Why the broker cannot be reached as asked.
#[derive(Debug)]
pub enum BrokerError {
    Url {
        url: String,
        why: String,
    },
    File {
        path: PathBuf,
        what: &'static str,
        why: String,
    },
    PasswordWithoutUser,
    TlsWithoutCa {
        url: BrokerUrl,
    },
    CaWithoutTls {
        url: BrokerUrl,
    },
}

impl std::fmt::Display for BrokerError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BrokerError::Url { url, why } => write!(f, "broker '{url}': {why}"),
            BrokerError::File { path, what, why } => {
                write!(f, "{what} {}: {why}", path.display())
            }
            BrokerError::PasswordWithoutUser => {
                write!(
                    f,
                    "a password file was given without a user name (--username)"
                )
            }
            BrokerError::TlsWithoutCa { url } => write!(
                f,
                "{url} is TLS: give the round's CA certificate (--ca-file, or ca_file in [broker])"
            ),
            BrokerError::CaWithoutTls { url } => write!(
                f,
                "a CA file was given but {url} is not TLS: use mqtts:// or leave out the CA"
            ),
        }
    }
}

impl std::error::Error for BrokerError {}

fn read_small(path: &Path, what: &'static str, limit: u64) -> Result<Vec<u8>, BrokerError> {
    use std::io::Read;
    let err = |why: String| BrokerError::File {
        path: path.to_owned(),
        what,
        why,
    };
    let file = std::fs::File::open(path).map_err(|e| err(e.to_string()))?;
    let mut bytes = Vec::new();
    file.take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| err(e.to_string()))?;
    if bytes.len() as u64 > limit {
        return Err(err(format!("longer than {limit} bytes: not a {what}")));
    }
    Ok(bytes)
}

impl Broker {
    /// A broker without credentials or TLS.
    pub fn plain(url: BrokerUrl) -> Broker {
        Broker {
            url,
            username: None,
            password_file: None,
            password: None,
            ca_file: None,
        }
    }

    /// Client options for a client named `name`, with the password and CA read now: a
    /// missing file is said at start, not as a silent retry loop later. The client id is
    /// `name` and an [`unguessable`] suffix: mosquitto hands a connected client's id to
    /// whoever connects with it, even under another login, closing the first connection,
    /// so an id a spectator can guess (a name and a process id) would let him knock the
    /// console or a board off the broker, again and again.
    pub fn options(&self, name: &str) -> Result<MqttOptions, BrokerError> {
        let client_id = format!("{name}-{:016x}", unguessable());
        let mut options = MqttOptions::new(client_id, self.url.host.clone(), self.url.port);
        options.set_keep_alive(Duration::from_secs(5));
        options.set_max_packet_size(MAX_PACKET, MAX_PACKET);
        match (&self.username, &self.password_file) {
            (Some(user), _) if self.password.is_some() => {
                let password = self.password.as_ref().map(|p| p.0.clone());
                options.set_credentials(user.clone(), password.unwrap_or_default());
            }
            (Some(user), Some(path)) => {
                let bytes = read_small(path, "password file", MAX_PASSWORD_FILE)?;
                let text = String::from_utf8(bytes).map_err(|_| BrokerError::File {
                    path: path.clone(),
                    what: "password file",
                    why: "it is not text".to_owned(),
                })?;
                options.set_credentials(user.clone(), password_in(&text));
            }
            (Some(user), None) => {
                options.set_credentials(user.clone(), String::new());
            }
            (None, Some(_)) => return Err(BrokerError::PasswordWithoutUser),
            (None, None) => {}
        }
        match (self.url.tls, &self.ca_file) {
            (true, Some(ca)) => {
                options.set_transport(Transport::tls_with_config(tls_config(ca)?));
            }
            (true, None) => {
                return Err(BrokerError::TlsWithoutCa {
                    url: self.url.clone(),
                })
            }
            (false, Some(_)) => {
                return Err(BrokerError::CaWithoutTls {
                    url: self.url.clone(),
                })
            }
            (false, None) => {}
        }
        Ok(options)
    }
}

/// Socket options of every client: no Nagle delay, or a frame waits up to 40 ms behind
/// the acknowledgement of the one before (measured: p99 43 ms without, 3-5 ms with).
pub fn network_options() -> rumqttc::NetworkOptions {
    let mut options = rumqttc::NetworkOptions::new();
    options.set_tcp_nodelay(true);
    options
}

/// How long to wait before trying an unreachable broker again: `every` on average, each
/// wait drawn anew between half and one and a half of it. Boards that lost the broker at the
/// same moment would otherwise come back in one burst at each try, overflow its listen
/// queue (mosquitto's holds 100 connections), and the refused wait a second for TCP to
/// send again.
pub fn retry_delay(every: Duration) -> Duration {
    use std::hash::BuildHasher;
    let draw = std::collections::hash_map::RandomState::new().hash_one(std::time::Instant::now());
    let span = u64::try_from(every.as_micros()).unwrap_or(u64::MAX).max(1);
    every / 2 + Duration::from_micros(draw % span)
}

/// A clean goodbye to the broker. A process that exits before the broker has read its
/// DISCONNECT has the broker publish its last will ("offline") over the "stopped" it just
/// said. Closing the socket with an unread acknowledgement in it sends a reset, which can
/// overtake the DISCONNECT: the client reads on until the broker closes its side.
pub fn goodbye() -> (GoodbyeSent, Goodbye) {
    let (tx, rx) = std::sync::mpsc::sync_channel(1);
    (
        GoodbyeSent {
            told: tx,
            written: false,
        },
        Goodbye(rx),
    )
}

/// Held by the thread that drives the client's event loop.
#[derive(Debug)]
pub struct GoodbyeSent {
    told: std::sync::mpsc::SyncSender<()>,
    written: bool,
}

impl GoodbyeSent {
    /// True once the broker has closed the connection after the DISCONNECT: the loop is
    /// to end there, or rumqttc would connect again.
    pub fn is_done(&mut self, event: &Result<rumqttc::Event, rumqttc::ConnectionError>) -> bool {
        match event {
            Ok(rumqttc::Event::Outgoing(rumqttc::Outgoing::Disconnect)) => {
                self.written = true;
                false
            }
            Err(_) if self.written => {
                let _ = self.told.try_send(());
                true
            }
            _ => false,
        }
    }
}

/// Held by whoever stops the client.
#[derive(Debug)]
pub struct Goodbye(std::sync::mpsc::Receiver<()>);

impl Goodbye {
    /// Asks to disconnect after everything queued before, and waits (bounded: a broker
    /// that is down gets the last will anyway) until the broker has taken it or the loop
    /// has ended.
    pub fn say(&self, client: &impl Disconnect, within: Duration) {
        if client.ask_to_disconnect() {
            let _ = self.0.recv_timeout(within);
        }
    }
}

/// A client, blocking or async, that can be asked to disconnect without waiting.
pub trait Disconnect {
    /// Queues the DISCONNECT; false when the client's loop is gone already.
    fn ask_to_disconnect(&self) -> bool;
}

impl Disconnect for rumqttc::Client {
    fn ask_to_disconnect(&self) -> bool {
        self.try_disconnect().is_ok()
    }
}

impl Disconnect for rumqttc::AsyncClient {
    fn ask_to_disconnect(&self) -> bool {
        self.try_disconnect().is_ok()
    }
}

/// The password a file holds: a seat file's `password = "..."`, else its first line.
fn password_in(text: &str) -> String {
    let seat = text.lines().find_map(|l| {
        let (key, value) = l.split_once('=')?;
        (key.trim() == "password").then(|| value.trim().trim_matches('"').to_owned())
    });
    seat.unwrap_or_else(|| text.lines().next().unwrap_or_default().trim().to_owned())
}

/// TLS trusting only the round's CA, with the ring provider (no system store, no C build).
fn tls_config(ca: &Path) -> Result<TlsConfiguration, BrokerError> {
    let err = |why: String| BrokerError::File {
        path: ca.to_owned(),
        what: "CA file",
        why,
    };
    let pem = read_small(ca, "CA file", 1024 * 1024)?;
    let mut roots = rustls::RootCertStore::empty();
    for cert in rustls_pemfile::certs(&mut pem.as_slice()) {
        let cert = cert.map_err(|e| err(e.to_string()))?;
        roots.add(cert).map_err(|e| err(e.to_string()))?;
    }
    if roots.is_empty() {
        return Err(err("no PEM certificate in it".to_owned()));
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| err(e.to_string()))?
        .with_root_certificates(roots)
        .with_no_client_auth();
    Ok(TlsConfiguration::Rustls(Arc::new(config)))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn retries_are_spread_around_their_mean() {
        let every = Duration::from_millis(250);
        let waits: Vec<Duration> = (0..200).map(|_| super::retry_delay(every)).collect();
        assert!(waits.iter().all(|w| *w >= every / 2 && *w < every * 3 / 2));
        let distinct: std::collections::BTreeSet<_> = waits.iter().collect();
        assert!(
            distinct.len() > 150,
            "{} distinct waits of 200",
            distinct.len()
        );
        let shortest = waits.iter().min().copied().unwrap_or_default();
        let longest = waits.iter().max().copied().unwrap_or_default();
        assert!(longest - shortest > every / 2, "{shortest:?}..{longest:?}");
    }

    #[test]
    fn urls_read_as_a_club_writes_them() {
        let u: BrokerUrl = "mqtt://192.168.1.10:1884".parse().unwrap();
        assert_eq!(
            (u.host.as_str(), u.port, u.tls),
            ("192.168.1.10", 1884, false)
        );
        let u: BrokerUrl = "mqtts://hall.local".parse().unwrap();
        assert_eq!((u.port, u.tls), (8883, true));
        assert_eq!(u.to_string(), "mqtts://hall.local:8883");
        let u: BrokerUrl = "mqtt://[::1]:1883/".parse().unwrap();
        assert_eq!((u.host.as_str(), u.port), ("::1", 1883));
        assert_eq!(u.to_string(), "mqtt://[::1]:1883");
        let u: BrokerUrl = "mqtt://hall_local".parse().unwrap();
        assert_eq!(u.host, "hall_local");
        for bad in [
            "http://x:1",
            "mqtt://",
            "mqtt://x:0",
            "mqtt://x:99999",
            "mqtt://u@x",
            "x:1883",
            // Nothing a seat file or a certificate could not carry as it is.
            "mqtt://a\"b:1883",
            "mqtt://a\tb",
            "mqtt://hall local",
        ] {
            let e = bad.parse::<BrokerUrl>().unwrap_err().to_string();
            assert!(e.starts_with(&format!("broker '{bad}': ")), "{e}");
        }
    }

    #[test]
    fn a_password_file_or_a_seat_file_gives_the_password() {
        assert_eq!(password_in("s3cret\n"), "s3cret");
        let seat = "# Kriegspiel seat\nround = \"ab\"\nusername = \"board-7\"\npassword = \"xyz\"\nboard = 7\n";
        assert_eq!(password_in(seat), "xyz");
        assert_eq!(password_in(""), "");
    }

    /// A client id another user of the broker could guess lets him take it over.
    #[test]
    fn each_client_id_is_its_name_and_a_suffix_nobody_can_guess() {
        let plain = Broker::plain("mqtt://h".parse().unwrap());
        let ids: Vec<String> = (0..2)
            .map(|_| {
                plain
                    .options("kriegspiel-console-main")
                    .unwrap()
                    .client_id()
            })
            .collect();
        for id in &ids {
            let suffix = id.strip_prefix("kriegspiel-console-main-").unwrap();
            assert_eq!(suffix.len(), 16, "{id}");
            assert!(suffix.chars().all(|c| c.is_ascii_hexdigit()), "{id}");
        }
        assert_ne!(ids[0], ids[1]);
    }

    #[test]
    fn missing_files_and_mismatches_are_said_at_once() {
        let plain = Broker::plain("mqtt://h".parse().unwrap());
        assert!(plain.options("c").is_ok());
        let b = Broker {
            username: Some("board-7".into()),
            password_file: Some("/nonexistent/pw".into()),
            ..plain.clone()
        };
        let e = b.options("c").unwrap_err().to_string();
        assert!(e.starts_with("password file /nonexistent/pw: "), "{e}");
        let b = Broker {
            password_file: Some("/x".into()),
            ..plain.clone()
        };
        assert!(matches!(
            b.options("c"),
            Err(BrokerError::PasswordWithoutUser)
        ));
        let tls = Broker::plain("mqtts://h".parse().unwrap());
        assert!(tls
            .options("c")
            .unwrap_err()
            .to_string()
            .contains("--ca-file"));
        let b = Broker {
            ca_file: Some("/x".into()),
            ..plain
        };
        assert!(matches!(
            b.options("c"),
            Err(BrokerError::CaWithoutTls { .. })
        ));
    }
}
