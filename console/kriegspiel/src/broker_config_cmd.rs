//! `kriegspiel broker-config --config round.toml --out DIR [--tls [--host NAME]]`: the
//! round's own mosquitto, in one folder: a configuration that keeps every message, the
//! password file of the round's users, their ACL, and with `--tls` the round's CA and the
//! broker's certificate. The passwords come from the round's secret
//! ([`kriegspiel_frontend::credentials`]), as the seat files' do.

use std::fmt::Write as _;
use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};

use kriegspiel_frontend::credentials::{private_dir, write_file, RoundMembers, RoundSecret};
use kriegspiel_frontend::read_round_broker;
use kriegspiel_net::{BrokerUrl, Principal, MAX_PACKET};

const PROGRAM: &str = "kriegspiel broker-config";

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The round file (see docs/HALL.md); its secret, FILE.secret, is made if missing.
    #[arg(long, value_name = "FILE")]
    config: PathBuf,
    /// The folder to write the broker's files into (made if missing).
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// Listen with TLS (port 8883) and make the round's CA and the broker's certificate.
    #[arg(long)]
    tls: bool,
    /// The broker's name or address in its certificate (default: the host of the round
    /// file's [broker] url, else this machine's name); localhost and 127.0.0.1 are in it too.
    #[arg(long, requires = "tls", value_name = "NAME")]
    host: Option<String>,
}

/// Why the command stopped: the round or the command line (exit 2), or the machine (1).
enum Failure {
    Usage(String),
    Machine(String),
}

pub fn run(args: Args) -> ExitCode {
    match write_all(&args) {
        Ok(report) => {
            print!("{report}");
            ExitCode::SUCCESS
        }
        Err(Failure::Usage(e)) => {
            eprintln!("{PROGRAM}: {e}");
            ExitCode::from(2)
        }
        Err(Failure::Machine(e)) => {
            eprintln!("{PROGRAM}: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Writes the folder's files and returns what to tell the user.
fn write_all(args: &Args) -> Result<String, Failure> {
    let round = &args.config;
    let members = RoundMembers::read(round).map_err(Failure::Usage)?;
    let url = read_round_broker(round)
        .map_err(Failure::Usage)?
        .map(|b| b.url);
    let port = listener_port(round, url.as_ref(), args.tls).map_err(Failure::Usage)?;
    let bind = url.as_ref().and_then(loopback_bind);
    let hosts = if args.tls {
        certificate_hosts(args.host.as_deref(), url.as_ref()).map_err(Failure::Usage)?
    } else {
        Vec::new()
    };
    let secret = RoundSecret::of_round(round).map_err(Failure::Usage)?;
    let dir = private_dir(&args.out).map_err(Failure::Machine)?;
    let Some(dir_text) = dir.to_str().filter(|d| !d.contains(['\n', '\r'])) else {
        return Err(Failure::Usage(format!(
            "--out {}: mosquitto's configuration needs a folder whose path is one line of text",
            dir.display()
        )));
    };
    let round_id = secret.round_id();
    write_file(&dir.join("acl"), &members.acl(&round_id), 0o644).map_err(Failure::Machine)?;
    write_passwords(&dir, &secret, &members).map_err(Failure::Machine)?;
    let mut written = vec!["mosquitto.conf", "passwd", "acl"];
    if args.tls {
        make_certificates(&dir, &round_id, &hosts).map_err(Failure::Machine)?;
        written.extend(["ca.crt", "ca.key", "server.crt", "server.key"]);
    }
    let listener = Listener {
        port,
        bind,
        tls: args.tls,
    };
    let conf = configuration(dir_text, &round_id, round, &listener);
    write_file(&dir.join("mosquitto.conf"), &conf, 0o644).map_err(Failure::Machine)?;
    Ok(report(args, &members, &round_id, &dir, &written, &listener))
}

/// The listener's port: the round file's [broker] url's, else MQTT's (1883, 8883 with TLS).
/// The url and `--tls` must agree, or the boards would knock on the wrong door.
fn listener_port(round: &Path, url: Option<&BrokerUrl>, tls: bool) -> Result<u16, String> {
    let name = round.display();
    match url {
        None => Ok(if tls { 8883 } else { 1883 }),
        Some(u) if u.tls == tls => Ok(u.port),
        Some(u) if u.tls => Err(format!(
            "{name}: [broker] url: {u} is TLS: add --tls to make the broker's certificate"
        )),
        Some(u) => Err(format!(
            "{name}: [broker] url: {u} is not TLS, but --tls was given: write \
             mqtts://{}:8883 in the round file, or leave out --tls",
            u.host
        )),
    }
}

/// Where the broker listens: a round whose url names this machine's loopback is reached
/// from this machine alone, so its broker listens there alone and no one else in the room
/// (or on the club's wifi) can knock on it.
struct Listener {
    port: u16,
    /// The loopback address to listen on; `None` is every interface.
    bind: Option<String>,
    tls: bool,
}

/// The address to bind when the url's host is this machine's loopback: the url's own
/// (Debian names the machine 127.0.1.1, which a listener on 127.0.0.1 does not answer).
fn loopback_bind(url: &BrokerUrl) -> Option<String> {
    let host = url.host.trim_start_matches('[').trim_end_matches(']');
    if host.eq_ignore_ascii_case("localhost") {
        // mosquitto resolves it itself: 127.0.0.1 (and ::1 where the machine has it).
        return Some("localhost".to_owned());
    }
    host.parse::<IpAddr>()
        .ok()
        .filter(IpAddr::is_loopback)
        .map(|a| a.to_string())
}

/// The names and addresses the broker's certificate holds: `--host` (else the round's
/// broker's host, else this machine's name), the broker's host, this machine's name,
/// localhost and 127.0.0.1.
fn certificate_hosts(host: Option<&str>, url: Option<&BrokerUrl>) -> Result<Vec<String>, String> {
    if let Some(h) = host {
        if !is_host(h) {
            return Err(format!(
                "--host: '{}' is not a host name or an address (e.g. hall.local, 192.168.1.10)",
                bounded_lines::excerpt(h)
            ));
        }
    }
    if let Some(u) = url.filter(|u| !is_host(&u.host)) {
        return Err(format!(
            "the round file's [broker] url names the host '{}', which a certificate cannot name (letters, digits, - and . only): give its address or another name, or --host",
            bounded_lines::excerpt(&u.host)
        ));
    }
    let machine = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|h| h.trim().to_owned())
        .ok()
        .filter(|h| is_host(h));
    let mut hosts: Vec<String> = Vec::new();
    let candidates = [
        host.map(str::to_owned),
        url.map(|u| u.host.clone()),
        machine,
        Some("localhost".to_owned()),
        Some("127.0.0.1".to_owned()),
    ];
    for h in candidates.into_iter().flatten() {
        if is_host(&h) && !hosts.contains(&h) {
            hosts.push(h);
        }
    }
    Ok(hosts)
}

/// An IP address, or a DNS name of letters, digits, `-` and `.`.
fn is_host(h: &str) -> bool {
    h.parse::<IpAddr>().is_ok()
        || (!h.is_empty()
            && h.len() <= 253
            && !h.starts_with(['-', '.'])
            && h.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '.'))
}

/// The password file: every user's password, hashed by `mosquitto_passwd -U` (never on a
/// command line, where `ps` would show it), in a file of its own until it is whole.
fn write_passwords(dir: &Path, secret: &RoundSecret, members: &RoundMembers) -> Result<(), String> {
    let mut plain = String::new();
    for p in members.principals() {
        let user = p.to_string();
        let _ = writeln!(plain, "{user}:{}", secret.password(&user));
    }
    // Named for this run: two runs at once on one folder each hash their own.
    let new = dir.join(format!("passwd.{}.new", std::process::id()));
    let result = write_file(&new, &plain, 0o600).and_then(|()| {
        let out = Command::new("mosquitto_passwd")
            .arg("-U")
            .arg(&new)
            .stdin(Stdio::null())
            .output()
            .map_err(|e| match e.kind() {
                std::io::ErrorKind::NotFound => "mosquitto_passwd was not found: install \
                    mosquitto (`sudo apt-get install mosquitto`)"
                    .to_owned(),
                _ => format!("cannot run mosquitto_passwd: {e}"),
            })?;
        if !out.status.success() {
            return Err(format!(
                "mosquitto_passwd -U {} failed ({}): {}",
                new.display(),
                out.status,
                bounded_lines::excerpt(String::from_utf8_lossy(&out.stderr).trim())
            ));
        }
        let passwd = dir.join("passwd");
        std::fs::rename(&new, &passwd).map_err(|e| format!("{}: {e}", passwd.display()))
    });
    let _ = std::fs::remove_file(&new);
    result
}

/// The round's CA (kept when the folder already has one, so that boards that trust it go
/// on trusting it) and the broker's certificate for `hosts`, with Debian's openssl.
fn make_certificates(dir: &Path, round_id: &str, hosts: &[String]) -> Result<(), String> {
    let names: Vec<String> = hosts
        .iter()
        .map(|h| match h.parse::<IpAddr>() {
            Ok(_) => format!("IP:{h}"),
            Err(_) => format!("DNS:{h}"),
        })
        .collect();
    let cnf = dir.join(format!("tls.{}.cnf", std::process::id()));
    write_file(
        &cnf,
        &format!(
            "[req]\ndistinguished_name = dn\nprompt = no\n[dn]\n\
             [ca_ext]\nbasicConstraints = critical,CA:TRUE\n\
             keyUsage = critical,keyCertSign,cRLSign\nsubjectKeyIdentifier = hash\n\
             [server_ext]\nbasicConstraints = critical,CA:FALSE\n\
             keyUsage = critical,digitalSignature,keyEncipherment\n\
             extendedKeyUsage = serverAuth\nsubjectAltName = {}\n\
             subjectKeyIdentifier = hash\nauthorityKeyIdentifier = keyid\n",
            names.join(",")
        ),
        0o600,
    )?;
    let result = certificates(dir, &cnf, round_id, hosts);
    let _ = std::fs::remove_file(&cnf);
    let _ = std::fs::remove_file(dir.join(csr_name()));
    result
}

/// The broker's certificate request, named for this run as its configuration is.
fn csr_name() -> String {
    format!("server.{}.csr", std::process::id())
}

fn certificates(dir: &Path, cnf: &Path, round_id: &str, hosts: &[String]) -> Result<(), String> {
    let file = |name: &str| dir.join(name).to_string_lossy().into_owned();
    let cnf = cnf.to_string_lossy().into_owned();
    let new_key = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1"];
    let keep_ca = dir.join("ca.crt").is_file() && dir.join("ca.key").is_file();
    if !keep_ca {
        // Made private before openssl writes into it.
        write_file(&dir.join("ca.key"), "", 0o600)?;
        let subject = format!("/CN=Kriegspiel round {round_id} CA");
        openssl(&[
            &["req", "-x509", "-config", &cnf, "-extensions", "ca_ext"],
            &new_key[..],
            &["-nodes", "-days", "365", "-subj", &subject],
            &["-keyout", &file("ca.key"), "-out", &file("ca.crt")],
        ])?;
    }
    write_file(&dir.join("server.key"), "", 0o600)?;
    let subject = format!("/CN={}", hosts.first().map_or("localhost", String::as_str));
    openssl(&[
        &["req", "-new", "-config", &cnf],
        &new_key[..],
        &["-nodes", "-subj", &subject],
        &["-keyout", &file("server.key"), "-out", &file(&csr_name())],
    ])?;
    let serial = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    openssl(&[
        &["x509", "-req", "-in", &file(&csr_name())],
        &["-CA", &file("ca.crt"), "-CAkey", &file("ca.key")],
        &["-set_serial", &format!("0x{serial:x}"), "-days", "365"],
        &["-extfile", &cnf, "-extensions", "server_ext"],
        &["-out", &file("server.crt")],
    ])?;
    for (name, mode) in [
        ("ca.key", 0o600),
        ("server.key", 0o600),
        ("ca.crt", 0o644),
        ("server.crt", 0o644),
    ] {
        let path = dir.join(name);
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode))
            .map_err(|e| format!("{}: {e}", path.display()))?;
    }
    Ok(())
}

/// Runs openssl with the arguments, in groups; its error output says why it failed.
fn openssl(groups: &[&[&str]]) -> Result<(), String> {
    let args: Vec<&str> = groups.iter().flat_map(|g| g.iter().copied()).collect();
    let out = Command::new("openssl")
        .args(&args)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => {
                "openssl was not found: install it (`sudo apt-get install openssl`)".to_owned()
            }
            _ => format!("cannot run openssl: {e}"),
        })?;
    if out.status.success() {
        return Ok(());
    }
    Err(format!(
        "openssl {} failed ({}): {}",
        args.first().copied().unwrap_or_default(),
        out.status,
        bounded_lines::excerpt(String::from_utf8_lossy(&out.stderr).trim())
    ))
}

/// mosquitto's configuration: every message kept (on disk each second, queues that do not
/// overflow in an evening, sessions kept a day), only the round's users, each to its topics.
fn configuration(dir: &str, round_id: &str, round: &Path, l: &Listener) -> String {
    let port = l.port;
    let bind = l.bind.as_ref().map(|b| format!(" {b}")).unwrap_or_default();
    let listener = if l.tls {
        format!(
            "listener {port}{bind}\ncafile {dir}/ca.crt\ncertfile {dir}/server.crt\n\
             keyfile {dir}/server.key\nrequire_certificate false\n"
        )
    } else {
        format!("listener {port}{bind}\n")
    };
    format!(
        "# Kriegspiel round {round_id}: the broker of its boards, seats and consoles.\n\
         # Written by `kriegspiel broker-config --config {round}`. Start it with\n\
         #   sudo chown -R mosquitto: {dir}\n\
         #   sudo mosquitto -c {dir}/mosquitto.conf\n\
         \n\
         # Nothing is dropped: kept on disk each second, for clients away up to a day.\n\
         persistence true\n\
         persistence_location {dir}/\n\
         autosave_interval 1\n\
         persistent_client_expiration 1d\n\
         max_queued_messages 100000\n\
         max_queued_bytes 0\n\
         max_inflight_messages 20\n\
         max_packet_size {MAX_PACKET}\n\
         set_tcp_nodelay true\n\
         \n\
         # Its log in a file: saving to disk each second is a line each second.\n\
         log_dest file {dir}/mosquitto.log\n\
         \n\
         # Only the round's users, each to its own topics.\n\
         allow_anonymous false\n\
         password_file {dir}/passwd\n\
         acl_file {dir}/acl\n\
         \n\
         {listener}",
        round = round.display().to_string().replace(['\n', '\r'], " "),
    )
}

/// What was written, the three lines that start the broker, and where the seat files come
/// from.
fn report(
    args: &Args,
    members: &RoundMembers,
    round_id: &str,
    dir: &Path,
    written: &[&str],
    listener: &Listener,
) -> String {
    let users = members.principals();
    let count = |f: fn(&Principal<'_>) -> bool| users.iter().filter(|p| f(p)).count();
    let boards = count(|p| matches!(p, Principal::Board(_)));
    let seats = count(|p| matches!(p, Principal::Seat { .. }));
    let consoles = count(|p| matches!(p, Principal::Console(_)));
    let d = dir.display();
    let mut text = format!(
        "Round {round_id}: the broker's files for {} users ({}, {}, {}, the arbiter, the \
         onlookers) are in \
         {d}: {}.\n",
        users.len(),
        plural(boards, "board"),
        plural(seats, "seat"),
        plural(consoles, "console"),
        written.join(", ")
    );
    text.push_str(
        "Start the broker with these three lines (Debian's own mosquitto service would hold \
         the port):\n",
    );
    let _ = writeln!(text, "  sudo systemctl stop mosquitto");
    let _ = writeln!(text, "  sudo chown -R mosquitto: {d}");
    let _ = writeln!(text, "  sudo mosquitto -c {d}/mosquitto.conf");
    let port = listener.port;
    let _ = match &listener.bind {
        Some(b) => writeln!(
            text,
            "It listens on {b} port {port} only, as the round file's [broker] url says: boards \
             and players on other machines cannot reach it (write this machine's address in \
             the url, and run this again, for them)."
        ),
        None => writeln!(
            text,
            "It listens on port {port} of every network interface of this machine; only the \
             round's users get in."
        ),
    };
    let _ = writeln!(
        text,
        "It says nothing on the terminal while it runs; its log is {d}/mosquitto.log (tail -f it to watch)."
    );
    if let Some(blocked) = closed_ancestor(dir) {
        let _ = writeln!(
            text,
            "Warning: the mosquitto user cannot enter {}: move the folder where it can, \
             e.g. /srv/kriegspiel-broker.",
            blocked.display()
        );
    }
    if args.tls {
        let _ = writeln!(
            text,
            "Consoles and boards trust {d}/ca.crt (ca_file in the round file's [broker]; a \
             copy on each board); ca.key stays here."
        );
    }
    let _ = writeln!(
        text,
        "The seat files of the players and the boards: kriegspiel seats --config {} --out SEATS",
        args.config.display()
    );
    text
}

fn plural(n: usize, what: &str) -> String {
    if n == 1 {
        format!("1 {what}")
    } else {
        format!("{n} {what}s")
    }
}

/// The first folder above `dir` that others may not enter (the mosquitto user among them).
fn closed_ancestor(dir: &Path) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    dir.ancestors().skip(1).find_map(|a| {
        let mode = std::fs::metadata(a).ok()?.permissions().mode();
        (mode & 0o001 == 0).then(|| a.to_owned())
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn hosts_are_names_or_addresses() {
        for good in ["hall.local", "192.168.1.10", "::1", "vm", "a-b.c"] {
            assert!(is_host(good), "{good}");
        }
        for bad in ["", "-x", "a b", "a/b", "x\ny", "h:1883", "CN=x"] {
            assert!(!is_host(bad), "{bad}");
        }
        let url: BrokerUrl = "mqtts://hall.local:8884".parse().unwrap();
        let hosts = certificate_hosts(Some("10.0.0.2"), Some(&url)).unwrap();
        assert_eq!(&hosts[..2], ["10.0.0.2", "hall.local"]);
        assert!(hosts.contains(&"localhost".to_owned()));
        assert!(hosts.contains(&"127.0.0.1".to_owned()));
        assert!(certificate_hosts(Some("a b"), None)
            .unwrap_err()
            .starts_with("--host:"));
        // A url host no certificate can name is said, not left out of it.
        let underscored: BrokerUrl = "mqtts://hall_local:8884".parse().unwrap();
        assert!(certificate_hosts(None, Some(&underscored))
            .unwrap_err()
            .contains("names the host 'hall_local', which a certificate cannot name"));
        let round = Path::new("r.toml");
        assert_eq!(listener_port(round, Some(&url), true), Ok(8884));
        assert_eq!(listener_port(round, None, false), Ok(1883));
        assert!(listener_port(round, Some(&url), false)
            .unwrap_err()
            .contains("add --tls"));
    }

    #[test]
    fn a_round_on_loopback_gets_a_broker_that_listens_on_loopback_alone() {
        let bind = |u: &str| loopback_bind(&u.parse::<BrokerUrl>().unwrap());
        assert_eq!(bind("mqtt://127.0.0.1:1883").as_deref(), Some("127.0.0.1"));
        assert_eq!(bind("mqtt://127.0.1.1:1883").as_deref(), Some("127.0.1.1"));
        assert_eq!(bind("mqtt://LOCALHOST:1884").as_deref(), Some("localhost"));
        assert_eq!(bind("mqtt://[::1]:1883").as_deref(), Some("::1"));
        assert_eq!(bind("mqtt://hall.local:1883"), None);
        assert_eq!(bind("mqtt://192.168.1.10:1883"), None);
        let conf = |bind: Option<&str>, tls| {
            let l = Listener {
                port: 1884,
                bind: bind.map(str::to_owned),
                tls,
            };
            configuration("/srv/b", "r1", Path::new("r.toml"), &l)
        };
        assert!(conf(Some("127.0.0.1"), false)
            .lines()
            .any(|l| l == "listener 1884 127.0.0.1"));
        assert!(conf(Some("localhost"), true)
            .lines()
            .any(|l| l == "listener 1884 localhost"));
        assert!(conf(None, false).lines().any(|l| l == "listener 1884"));
    }
}
