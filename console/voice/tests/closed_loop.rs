//! Closed loop: tries and commands synthesised by several voices (flite, festival; espeak-ng
//! reported separately), resampled to 16 kHz with sox, recognised through the per-turn
//! grammar; and speech that is neither (chatter, numbers, other words, tries not possible on
//! the player's own board), which must be rejected. Prints the figures (run with
//! `--nocapture`); `VOICE_DUMP=1` prints every utterance.
//!
//! The recogniser's thresholds were chosen while looking at the scores of the first set
//! (the 12 tuning positions, the 7 flite and festival voices, the chatter below), so its
//! figures are optimistic. The held-out set (`held_out_positions_and_voices_are_recognised`)
//! uses 8 other positions, other sentences, other seeds and voices that were not used for
//! tuning (flite's 8 kHz kal, and flite/festival voices with pitch and tempo changed by sox).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use kriegspiel_referee::Try;
use kriegspiel_voice::{wav, FileNames, Heard, Model, Recognizer, TurnGrammar};
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, Color, Role, Square};

const VOICES: [&str; 7] = [
    "flite:slt",
    "flite:rms",
    "flite:awb",
    "flite:kal16",
    "festival:kal_diphone",
    "festival:ked_diphone",
    "festival:cmu_us_slt_arctic_hts",
];
const ESPEAK: [&str; 2] = ["espeak:en-us", "espeak:en"];

/// Voices of the held-out set: never used for tuning. After `|`, sox effects.
const HELD_OUT_VOICES: [&str; 6] = [
    "flite:kal",
    "flite:slt|pitch 300 tempo 0.9",
    "flite:awb|tempo 1.15",
    "flite:rms|pitch -200",
    "festival:ked_diphone|pitch -150 tempo 1.1",
    "festival:cmu_us_slt_arctic_hts|pitch 200",
];

/// The positions the thresholds were tuned on are `POSITIONS[TUNING]`; the rest are held out.
const TUNING: std::ops::Range<usize> = 0..12;
const HELD_OUT: std::ops::Range<usize> = 12..20;

const POSITIONS: [(&str, Color); 20] = [
    (
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        Color::White,
    ),
    (
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
        Color::Black,
    ),
    (
        "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4",
        Color::White,
    ),
    (
        "r1bqk2r/pppp1ppp/2n2n2/2b1p3/2B1P3/5N2/PPPP1PPP/RNBQK2R b KQkq - 5 4",
        Color::Black,
    ),
    (
        "r3k2r/pP3ppp/8/8/8/8/P4PPP/R3K2R w KQkq - 0 1",
        Color::White,
    ),
    ("8/8/4k3/8/2N5/8/3K4/8 w - - 0 1", Color::White),
    ("6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1", Color::White),
    (
        "r2q1rk1/ppp2ppp/2np1n2/2b1p1B1/2B1P1b1/2NP1N2/PPP2PPP/R2Q1RK1 w - - 0 1",
        Color::White,
    ),
    (
        "r2q1rk1/ppp2ppp/2np1n2/2b1p1B1/2B1P1b1/2NP1N2/PPP2PPP/R2Q1RK1 b - - 0 1",
        Color::Black,
    ),
    ("4k3/1P6/8/8/8/8/6p1/4K3 b - - 0 1", Color::Black),
    (
        "2kr3r/ppp2ppp/2n5/3q4/3P4/2P2N2/P4PPP/R2QR1K1 w - - 0 1",
        Color::White,
    ),
    (
        "r3k2r/ppp2ppp/2n5/3q4/3P4/2P2N2/P4PPP/R2QR1K1 b kq - 0 1",
        Color::Black,
    ),
    // Held out.
    (
        "rnbqkb1r/pppp1ppp/5n2/4p3/2B1P3/8/PPPP1PPP/RNBQK1NR w KQkq - 2 3",
        Color::White,
    ),
    (
        "r1bqkbnr/pppp1ppp/2n5/1B2p3/4P3/5N2/PPPP1PPP/RNBQK2R b KQkq - 3 3",
        Color::Black,
    ),
    (
        "r4rk1/pp3ppp/2n1b3/3p4/3P4/2PB1N2/P4PPP/R4RK1 w - - 0 1",
        Color::White,
    ),
    ("8/5pk1/6p1/8/3R4/6P1/5PK1/8 w - - 0 1", Color::White),
    ("8/2P5/8/8/8/8/k7/4K3 w - - 0 1", Color::White),
    (
        "r3kbnr/ppp2ppp/2n5/3qp3/8/8/PPPP1PPP/RNBQKB1R b KQkq - 0 1",
        Color::Black,
    ),
    ("2r3k1/5ppp/8/8/8/8/1q3PPP/6K1 b - - 0 1", Color::Black),
    (
        "rnbqk2r/pppp1ppp/5n2/2b1p3/4P3/3P1N2/PPP2PPP/RNBQKB1R w KQkq - 0 1",
        Color::White,
    ),
];

/// Speech that is not a try, for the held-out set (none of it is in the tuning set).
const HELD_OUT_CHATTER: [&str; 30] = [
    "can I have some water",
    "the light is too bright",
    "my back hurts a little",
    "shall we take a break",
    "I forgot my glasses",
    "how long is the game",
    "that sounded strange",
    "wait a moment",
    "is anyone there",
    "the train leaves at six",
    "I like this tournament",
    "turn up the volume",
    "what did you say",
    "I will be right back",
    "never mind",
    "eighty seven",
    "two hundred and four",
    "thirty three",
    "nineteen",
    "seventy",
    "carpet",
    "lemon",
    "airport",
    "blanket",
    "dinosaur",
    "sandwich",
    "library",
    "purple",
    "volcano",
    "shoelace",
];

const CHATTER: [&str; 22] = [
    "the weather is nice today",
    "I think I will go home now",
    "what time is it",
    "hello how are you",
    "could you pass the salt please",
    "that was a great game",
    "let me think about this",
    "where is the bathroom",
    "I need a cup of coffee",
    "the clock is running",
    "nice move",
    "is it my turn",
    "good luck",
    "this is taking forever",
    "I am hungry",
    "open the window please",
    "my phone is ringing",
    "see you tomorrow",
    "thank you very much",
    "excuse me",
    "who is winning",
    "please be quiet",
];
const NUMBERS: [&str; 10] = [
    "seventeen",
    "forty two",
    "one hundred",
    "three thousand",
    "twenty five",
    "ninety nine",
    "sixty",
    "eleven",
    "thirteen",
    "fifty",
];
const WORDS: [&str; 20] = [
    "banana",
    "elephant",
    "computer",
    "table",
    "yellow",
    "mountain",
    "telephone",
    "chicken",
    "guitar",
    "umbrella",
    "hospital",
    "window",
    "pencil",
    "orange",
    "tomorrow",
    "happy",
    "bicycle",
    "garden",
    "doctor",
    "music",
];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Group {
    Phonetic,
    Letters,
    Command,
    NotATry,
}

#[derive(Debug, Clone)]
struct Utterance {
    text: String,
    voice: &'static str,
    position: usize,
    group: Group,
    /// The expected result: a try's UCI, a command id, or "rejected".
    expect: String,
}

struct Rng(u64);
impl Rng {
    fn next(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) as usize) % n
    }
}

fn chess(i: usize) -> Chess {
    POSITIONS[i]
        .0
        .parse::<Fen>()
        .unwrap()
        .into_position(CastlingMode::Standard)
        .unwrap()
}

fn grammar(i: usize) -> TurnGrammar {
    TurnGrammar::new(&chess(i), POSITIONS[i].1)
}

fn id(h: Heard) -> String {
    h.id()
}

/// A try in one of the spoken forms; the short forms when the grammar has them.
fn say_try(g: &TurnGrammar, t: Try, names: FileNames, rng: &mut Rng) -> String {
    let man = g.man(t).unwrap();
    let square = |s: Square| {
        format!(
            "{} {}",
            names.word(s.file()),
            ["one", "two", "three", "four", "five", "six", "seven", "eight"][usize::from(s.rank())]
        )
    };
    match rng.next(6) {
        0 if g.castle(true) == Some(t) => "castle kingside".into(),
        0 if g.castle(false) == Some(t) => "castle queenside".into(),
        1 if g.takes(man, t.to) == Some(t) => format!(
            "{} takes {}",
            kriegspiel_voice::words::role_word(man),
            square(t.to)
        ),
        n => g.say(t, names, n % 2 == 0),
    }
}

fn utterances(
    tries_phonetic: usize,
    tries_letters: usize,
    voices: &[&'static str],
    seed: u64,
    positions: std::ops::Range<usize>,
) -> Vec<Utterance> {
    let mut rng = Rng(seed);
    let mut out = Vec::new();
    for k in 0..tries_phonetic + tries_letters {
        let position = positions.start + rng.next(positions.len());
        let g = grammar(position);
        let tries: Vec<Try> = g.tries().collect();
        // Castling tries more often than their share, so the short form is heard.
        let mut t = match g.castle(true).or(g.castle(false)) {
            Some(c) if rng.next(5) == 0 => c,
            _ => tries[rng.next(tries.len())],
        };
        let last = if POSITIONS[position].1 == Color::White {
            shakmaty::Rank::Eighth
        } else {
            shakmaty::Rank::First
        };
        if g.man(t) == Some(Role::Pawn) && t.to.rank() == last && rng.next(2) == 0 {
            t.promotion = Some([Role::Queen, Role::Rook, Role::Bishop, Role::Knight][rng.next(4)]);
        }
        let (group, names) = if k < tries_phonetic {
            (
                Group::Phonetic,
                if rng.next(2) == 0 {
                    FileNames::Nato
                } else {
                    FileNames::Anna
                },
            )
        } else {
            (Group::Letters, FileNames::Letters)
        };
        out.push(Utterance {
            text: say_try(&g, t, names, &mut rng),
            voice: voices[k % voices.len()],
            position,
            group,
            expect: t.to_uci(),
        });
    }
    out
}

fn commands(voices: &[&'static str], positions: std::ops::Range<usize>) -> Vec<Utterance> {
    kriegspiel_voice::Command::ALL
        .iter()
        .enumerate()
        .flat_map(|(i, c)| {
            let positions = positions.clone();
            (0..2).map(move |j| Utterance {
                text: c.words().to_string(),
                voice: voices[(i * 2 + j) % voices.len()],
                position: positions.start + (i + j) % positions.len(),
                group: Group::Command,
                expect: c.id(),
            })
        })
        .collect()
}

fn not_tries(voices: &[&'static str], wrong_squares: usize) -> Vec<Utterance> {
    let chatter: Vec<&str> = CHATTER
        .iter()
        .chain(NUMBERS.iter())
        .chain(WORDS.iter())
        .copied()
        .collect();
    not_tries_in(voices, &chatter, wrong_squares, 77, TUNING)
}

fn not_tries_in(
    voices: &[&'static str],
    chatter: &[&str],
    wrong_squares: usize,
    seed: u64,
    positions: std::ops::Range<usize>,
) -> Vec<Utterance> {
    let mut rng = Rng(seed);
    let mut texts: Vec<String> = chatter.iter().map(|s| s.to_string()).collect();
    while texts.len() < chatter.len() + wrong_squares {
        let position = positions.start + rng.next(positions.len());
        let g = grammar(position);
        let from = Square::new(rng.next(64) as u32);
        let to = Square::new(rng.next(64) as u32);
        if from == to || g.tries().any(|t| t.from == from && t.to == to) {
            continue;
        }
        let names = if rng.next(2) == 0 {
            FileNames::Nato
        } else {
            FileNames::Anna
        };
        texts.push(format!(
            "{}#{}",
            position,
            g.say(Try::new(from, to), names, false)
        ));
    }
    texts
        .into_iter()
        .enumerate()
        .map(|(i, text)| {
            let (position, text) = match text.split_once('#') {
                Some((p, t)) => (p.parse().unwrap(), t.to_string()),
                None => (positions.start + i % positions.len(), text),
            };
            Utterance {
                text,
                voice: voices[i % voices.len()],
                position,
                group: Group::NotATry,
                expect: "rejected".into(),
            }
        })
        .collect()
}

fn run(cmd: &mut Command, input: Option<&str>) {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    if let Some(text) = input {
        use std::io::Write;
        child
            .stdin
            .take()
            .unwrap()
            .write_all(text.as_bytes())
            .unwrap();
    } else {
        drop(child.stdin.take());
    }
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{cmd:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Synthesises `text` with `voice` into a 16 kHz mono 16-bit WAV at `out`.
fn synthesise(voice: &str, text: &str, dir: &Path, out: &Path) {
    let raw = out.with_extension("raw.wav");
    let (voice, effects) = voice.split_once('|').unwrap_or((voice, ""));
    let (engine, name) = voice.split_once(':').unwrap();
    match engine {
        "flite" => run(
            Command::new("flite")
                .args(["-voice", name, "-t", text, "-o"])
                .arg(&raw),
            None,
        ),
        "festival" => run(
            Command::new("text2wave")
                .args(["-eval", &format!("(voice_{name})"), "-o"])
                .arg(&raw)
                .current_dir(dir),
            Some(text),
        ),
        "espeak" => run(
            Command::new("espeak-ng")
                .args(["-v", name, "-w"])
                .arg(&raw)
                .arg(text),
            None,
        ),
        _ => panic!("unknown voice {voice}"),
    }
    run(
        Command::new("sox")
            .arg(&raw)
            .args(["-r", "16000", "-c", "1", "-b", "16", "-e", "signed-integer"])
            .arg(out)
            .args(effects.split_whitespace()),
        None,
    );
    std::fs::remove_file(&raw).unwrap();
}

struct Outcome {
    u: Utterance,
    got: String,
    words: String,
    wide: String,
    margin: Option<i32>,
    ratio: i32,
    took: Duration,
    audio: Duration,
}

/// Synthesises and recognises every utterance on two threads.
fn recognise_all(all: Vec<Utterance>) -> Vec<Outcome> {
    let dir = tempfile::tempdir().unwrap();
    let queue = Mutex::new(all.into_iter().enumerate().collect::<Vec<_>>());
    let results = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| {
                let mut r = Recognizer::new(&Model::default()).unwrap();
                loop {
                    let Some((i, u)) = queue.lock().unwrap().pop() else {
                        break;
                    };
                    let path: PathBuf = dir.path().join(format!("u{i}.wav"));
                    synthesise(u.voice, &u.text, dir.path(), &path);
                    let samples = wav::read_wav(&path).unwrap();
                    r.set_turn(&chess(u.position), POSITIONS[u.position].1)
                        .unwrap();
                    let rec = r.hear(&samples).unwrap();
                    std::fs::remove_file(&path).unwrap();
                    results.lock().unwrap().push(Outcome {
                        got: id(rec.heard),
                        words: rec.words,
                        wide: rec.wide_words,
                        margin: rec.wide_margin,
                        ratio: rec.ratio,
                        took: rec.took,
                        audio: Duration::from_millis(samples.len() as u64 / 16),
                        u,
                    });
                }
            });
        }
    });
    results.into_inner().unwrap()
}

/// Heard as said: a command read back first ([`Heard::Unsure`], "any?") counts, as a try
/// does (every try is read back).
fn right(o: &Outcome) -> bool {
    o.got == o.u.expect || o.got.strip_suffix('?') == Some(o.u.expect.as_str())
}

/// Of the utterances that are no try nor command: ((neither taken nor read back, of how
/// many), read back). A faint command read back ("any?") is not acted on, but the player
/// hears it: counted apart, with a bar of its own.
fn non_tries_heard(outcomes: &[Outcome]) -> ((usize, usize), usize) {
    let sel: Vec<&Outcome> = outcomes
        .iter()
        .filter(|o| o.u.group == Group::NotATry)
        .collect();
    let read_back = sel.iter().filter(|o| o.got.ends_with('?')).count();
    let rejected = sel.iter().filter(|o| o.got == "rejected").count();
    println!("non-tries read back as a faint command: {read_back}");
    ((rejected + read_back, sel.len()), read_back)
}

/// Of the utterances `f` selects: (heard as said at once, how many).
fn rate(outcomes: &[Outcome], f: impl Fn(&Outcome) -> bool) -> (usize, usize) {
    let sel: Vec<&Outcome> = outcomes.iter().filter(|o| f(o)).collect();
    (
        sel.iter().filter(|o| o.got == o.u.expect).count(),
        sel.len(),
    )
}

/// Prints how many commands were read back first, and right (not counted by [`rate`]).
fn commands_read_back(outcomes: &[Outcome]) {
    let n = outcomes
        .iter()
        .filter(|o| o.u.group == Group::Command && o.got != o.u.expect && right(o))
        .count();
    println!("commands read back first, and right: {n}");
}

fn pct((ok, n): (usize, usize)) -> f64 {
    if n == 0 {
        100.0
    } else {
        100.0 * ok as f64 / n as f64
    }
}

fn report(title: &str, outcomes: &[Outcome], voices: &[&str]) {
    println!("== {title}");
    if std::env::var_os("VOICE_DUMP").is_some() {
        for o in outcomes {
            let mark = if right(o) { "ok " } else { "BAD" };
            println!(
                "{mark} {:>6} {:32} {:?} '{}' -> {} '{}' wide '{}' {:?}",
                o.ratio, o.u.voice, o.u.group, o.u.text, o.got, o.words, o.wide, o.margin
            );
        }
    }
    for v in voices {
        let line: Vec<String> = [
            Group::Phonetic,
            Group::Letters,
            Group::Command,
            Group::NotATry,
        ]
        .iter()
        .map(|g| {
            let (ok, n) = rate(outcomes, |o| o.u.voice == *v && o.u.group == *g);
            format!("{g:?} {ok}/{n}")
        })
        .collect();
        println!("{v:32} {}", line.join("  "));
    }
    for g in [
        Group::Phonetic,
        Group::Letters,
        Group::Command,
        Group::NotATry,
    ] {
        let r = rate(outcomes, |o| o.u.group == g);
        println!("{g:?}: {}/{} = {:.1} %", r.0, r.1, pct(r));
    }
    let mut times: Vec<Duration> = outcomes.iter().map(|o| o.took).collect();
    times.sort();
    let audio: Duration = outcomes.iter().map(|o| o.audio).sum();
    let total: Duration = times.iter().sum();
    if !times.is_empty() {
        println!(
            "decode per utterance: median {:?}, p95 {:?}, max {:?}; real-time factor {:.3}",
            times[times.len() / 2],
            times[times.len() * 95 / 100],
            times[times.len() - 1],
            total.as_secs_f64() / audio.as_secs_f64().max(1e-9)
        );
    }
}

#[test]
fn synthetic_speech_is_recognised_and_chatter_rejected() {
    let start = Instant::now();
    let mut all = utterances(170, 100, &VOICES, 11, TUNING);
    all.extend(commands(&VOICES, TUNING));
    all.extend(not_tries(&VOICES, 30));
    let outcomes = recognise_all(all);
    report("flite and festival voices", &outcomes, &VOICES);
    let phonetic = rate(&outcomes, |o| o.u.group == Group::Phonetic);
    let letters = rate(&outcomes, |o| o.u.group == Group::Letters);
    let commands = rate(&outcomes, |o| o.u.group == Group::Command);
    commands_read_back(&outcomes);
    let (rejected, read_back) = non_tries_heard(&outcomes);
    assert!(phonetic.1 + letters.1 >= 200 && rejected.1 >= 70);
    // No speech that is not a try became one... is a VoiceChannel property (tests/channel.rs);
    // here: how often a non-try was heard as a try at all.
    let became_try = outcomes
        .iter()
        .filter(|o| {
            o.u.group == Group::NotATry && o.got.len() >= 4 && o.got.as_bytes()[1].is_ascii_digit()
        })
        .count();
    println!(
        "non-tries heard as a try: {became_try}; elapsed {:?}",
        start.elapsed()
    );
    let rss = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    if let Some(l) = rss.lines().find(|l| l.starts_with("VmHWM")) {
        println!(
            "peak memory of the test process (two recognisers): {}",
            l.trim()
        );
    }
    assert!(pct(phonetic) >= 95.0, "phonetic file names: {phonetic:?}");
    // 91 of 100 heard right on digital silence, 89 with the noise floor every utterance now
    // gets (the thresholds were chosen on flite's exact zeros; espeak-ng gains far more:
    // docs/VOICE.md, fourteenth round).
    assert!(pct(letters) >= 87.0, "letters: {letters:?}");
    // Single short words ("rook", "any", "repeat") score close to the phone loop: reported.
    assert!(pct(commands) >= 80.0, "commands: {commands:?}");
    assert!(pct(rejected) >= 95.0, "rejected or read back: {rejected:?}");
    // Read back, not acted on, but he hears "resign?": 2 of 82 when the read-back came in.
    assert!(read_back <= 4, "non-tries read back: {read_back}");
}

#[test]
fn espeak_voices_are_reported() {
    let mut all = utterances(30, 20, &ESPEAK, 23, TUNING);
    all.extend(not_tries(&ESPEAK, 8).into_iter().step_by(2));
    let outcomes = recognise_all(all);
    report(
        "espeak-ng voices (recognise poorly; reported, not required)",
        &outcomes,
        &ESPEAK,
    );
    // espeak-ng speech is never required to be recognised; rejection still has to hold mostly.
    let (rejected, _read_back) = non_tries_heard(&outcomes);
    assert!(pct(rejected) >= 80.0, "rejected or read back: {rejected:?}");
}

/// The held-out set: positions, sentences, seeds and voices the thresholds never saw. Its
/// figures are lower than the tuning set's (docs/VOICE.md); the bars below sit a few points
/// under the figures measured when the set was made (94.2 % phonetic, 68.3 % letters, 54.2 %
/// commands, 98.3 % rejected): they guard against a regression, and they were not used to
/// choose a threshold. Most misses are rejections ("say it again"), not other tries.
#[test]
fn held_out_positions_and_voices_are_recognised() {
    let mut all = utterances(120, 60, &HELD_OUT_VOICES, 101, HELD_OUT);
    all.extend(commands(&HELD_OUT_VOICES, HELD_OUT));
    all.extend(not_tries_in(
        &HELD_OUT_VOICES,
        &HELD_OUT_CHATTER,
        30,
        303,
        HELD_OUT,
    ));
    let outcomes = recognise_all(all);
    report(
        "held out: 8 other positions, other sentences, untuned voices",
        &outcomes,
        &HELD_OUT_VOICES,
    );
    let phonetic = rate(&outcomes, |o| o.u.group == Group::Phonetic);
    let letters = rate(&outcomes, |o| o.u.group == Group::Letters);
    let commands = rate(&outcomes, |o| o.u.group == Group::Command);
    commands_read_back(&outcomes);
    let (rejected, read_back) = non_tries_heard(&outcomes);
    assert!(phonetic.1 + letters.1 >= 180 && rejected.1 >= 60);
    let wrong_try = outcomes
        .iter()
        .filter(|o| !right(o) && o.got != "rejected")
        .count();
    println!("misheard as something else (not rejected): {wrong_try}");
    assert!(pct(phonetic) >= 90.0, "phonetic file names: {phonetic:?}");
    assert!(pct(letters) >= 60.0, "letters: {letters:?}");
    assert!(pct(commands) >= 45.0, "commands: {commands:?}");
    assert!(pct(rejected) >= 95.0, "rejected or read back: {rejected:?}");
    assert!(wrong_try <= 12, "misheard: {wrong_try}");
    // 1 of 60 when the read-back of faint commands came in.
    assert!(read_back <= 3, "non-tries read back: {read_back}");
}
