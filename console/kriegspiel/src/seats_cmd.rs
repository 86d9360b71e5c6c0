//! `kriegspiel seats --config round.toml --out DIR`: one seat file per player
//! (`table-{no}-{color}.seat`), per networked board (`board-{id}.seat`) and one for the
//! onlookers (`onlooker.seat`: every table's public announcements), each a few
//! lines of TOML with the round's broker, a user name and its password, and beside it the
//! same text as a QR code (`.svg`). The passwords come from the round's secret
//! ([`kriegspiel_frontend::credentials`]), as `broker-config`'s password file does.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use kriegspiel_frontend::credentials::{
    private_dir, write_file, RoundMembers, RoundSecret, SeatFile, SeatPlace, TableMembers,
};
use kriegspiel_frontend::read_round_broker;
use kriegspiel_referee::shakmaty::Color;

const PROGRAM: &str = "kriegspiel seats";
/// The QR codes' smallest side, in SVG pixels.
const QR_SIZE: u32 = 320;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The round file (see docs/HALL.md), with its [broker]; its secret, FILE.secret, is
    /// made if missing.
    #[arg(long, value_name = "FILE")]
    config: PathBuf,
    /// The folder to write the seat files into (made if missing).
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
}

pub fn run(args: Args) -> ExitCode {
    let (members, url, secret) = match read(&args.config) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("{PROGRAM}: {e}");
            return ExitCode::from(2);
        }
    };
    match write_seats(&args.out, &members, &url, &secret) {
        Ok(text) => {
            print!("{text}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("{PROGRAM}: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The round's members, its broker's URL and its secret; a round without `[broker]` has no
/// seat to hand out.
fn read(round: &Path) -> Result<(RoundMembers, String, RoundSecret), String> {
    let members = RoundMembers::read(round)?;
    let Some(broker) = read_round_broker(round)? else {
        return Err(format!(
            "{}: no [broker]: a seat file names the round's broker; add one, e.g. \
             [broker] with url = \"mqtt://192.168.1.10:1883\" (see docs/NETWORK.md)",
            round.display()
        ));
    };
    let secret = RoundSecret::of_round(round)?;
    Ok((members, broker.url.to_string(), secret))
}

/// One seat to write: its file's name (without extension), its header line and its file.
struct Seat {
    stem: String,
    header: String,
    file: SeatFile,
}

/// Every seat of the round: each table's two players, then each networked board.
fn seats(members: &RoundMembers, url: &str, secret: &RoundSecret) -> Vec<Seat> {
    let id = secret.round_id();
    let mut all = Vec::new();
    for t in &members.tables {
        for color in Color::ALL {
            let player = t
                .players
                .get(color)
                .as_ref()
                .map(|p| format!(" ({p})"))
                .unwrap_or_default();
            all.push(Seat {
                stem: format!("table-{}-{color}", t.no),
                header: format!(
                    "Kriegspiel seat: round {id}, {}, {}{player}. Keep it to yourself.",
                    table_label(t),
                    color_name(color)
                ),
                file: SeatFile::new(secret, url, SeatPlace::Table { no: t.no, color }),
            });
        }
    }
    for t in &members.tables {
        for color in Color::ALL {
            let Some(board) = *t.boards.get(color) else {
                continue;
            };
            all.push(Seat {
                stem: format!("board-{board}"),
                header: format!(
                    "Kriegspiel board: round {id}, board {board} ({}, {}). Keep it to \
                     yourself.",
                    table_label(t),
                    color_name(color)
                ),
                file: SeatFile::new(secret, url, SeatPlace::Board(board)),
            });
        }
    }
    all.push(Seat {
        stem: "onlooker".to_owned(),
        header: format!(
            "Kriegspiel onlookers: round {id}, every table's public announcements, nothing \
             private. kriegspiel player --seat-file onlooker.seat --table N"
        ),
        file: SeatFile::new(
            secret,
            url,
            SeatPlace::Onlooker {
                tables: members.tables.iter().map(|t| t.no).max().unwrap_or(0),
            },
        ),
    });
    all
}

fn table_label(t: &TableMembers) -> String {
    format!("table {} ('{}')", t.no, bounded_lines::excerpt(&t.name))
}

fn color_name(color: Color) -> &'static str {
    match color {
        Color::White => "White",
        Color::Black => "Black",
    }
}

/// Writes every seat file and its QR code (mode 0600: each holds a password) and returns
/// what to tell the user.
fn write_seats(
    out: &Path,
    members: &RoundMembers,
    url: &str,
    secret: &RoundSecret,
) -> Result<String, String> {
    let dir = private_dir(out)?;
    let all = seats(members, url, secret);
    let mut names = Vec::with_capacity(all.len());
    for seat in &all {
        let text = seat.file.text(&seat.header);
        let path = dir.join(format!("{}.seat", seat.stem));
        write_file(&path, &text, 0o600)?;
        let svg = qr_svg(&text).map_err(|e| format!("{}.svg: {e}", seat.stem))?;
        write_file(&dir.join(format!("{}.svg", seat.stem)), &svg, 0o600)?;
        names.push(seat.stem.clone());
    }
    let mut text = format!(
        "Round {}: {} seat files, each with its QR code (.svg), in {}:\n",
        secret.round_id(),
        all.len(),
        dir.display()
    );
    for line in names.chunks(4) {
        let _ = writeln!(text, "  {}", line.join(".seat, ") + ".seat");
    }
    let _ = writeln!(
        text,
        "Give each player his own file and each board its own: whoever holds one plays in \
         its place. onlooker.seat hears only what both players hear, at every table: it may \
         be shared with spectators. They are good for this round only, and the same when \
         made again from {}.",
        secret.path().display()
    );
    Ok(text)
}

/// `text` as a QR code, in SVG.
fn qr_svg(text: &str) -> Result<String, String> {
    let code = qrcode::QrCode::new(text.as_bytes())
        .map_err(|e| format!("the seat does not fit a QR code: {e}"))?;
    Ok(code
        .render::<qrcode::render::svg::Color<'_>>()
        .min_dimensions(QR_SIZE, QR_SIZE)
        .quiet_zone(true)
        .build())
}
