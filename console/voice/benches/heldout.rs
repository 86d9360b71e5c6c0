//! Commands, "confirm" and "cancel" on a held-out set, clean and in room noise (issue 21;
//! docs/VOICE.md, Commands and answers): `cargo bench -p kriegspiel-voice --bench heldout`.
//!
//! Every utterance is synthesised at run time (flite, festival), changed by sox (pitch ±250
//! cents, tempo ±12 %) and resampled to 16 kHz; the room noise is made here too: sox's pink
//! noise (`sox -R`, the same every run) plus espeak-ng voices saying other sentences (6 dB
//! under the pink noise), the whole noise scaled to 20 or 15 dB under the speech's power
//! (its active 20 ms frames). Each utterance is heard twice where both matter: as in a free
//! turn (`Recognizer::hear`) and while a read-back waits for "confirm" (`Recognizer::hear_reply`).
//!
//! `-- tuning` runs the tuning set instead (the tuning voices, unshifted and shifted by at
//! most 150 cents and 6 %, the tuning chatter and positions) and prints every score: the
//! thresholds are chosen on it. The held-out set (the default) never is. `-- dump` prints
//! every utterance of the set run; `HELDOUT_EXPORT=DIR` writes every clip as a WAV file with
//! an index instead of hearing them (for other engines: docs/VOICE.md, seventh round).
//!
//! To compare decoder settings: `HELDOUT_CACHE=DIR` keeps the synthesised speech there between
//! runs, `HELDOUT_PS_OPTIONS="-remove_silence no ..."` adds PocketSphinx options,
//! `HELDOUT_JUNK=WEIGHT` lets a garbage model compete in the answer and commands grammars,
//! `HELDOUT_SINGLE=1` hears everything with one decoder (no second decoder for what is not a
//! try), `HELDOUT_MODEL=DIR` takes the en-us model from DIR (`DIR/en-us/` and
//! `DIR/en-us-phone.lm.bin`, as in PocketSphinx's own model folder) instead of the default, and
//! `HELDOUT_THREADS=N` decodes on N threads (default 2). `HELDOUT_LETTERS=1` adds 6 tries
//! per voice said with letter names in a free turn, and reports tries in a free turn.
//!
//! Per-player enrolment (issue 21, fourth round): `HELDOUT_ENROL=none|clean|room` hears each
//! voice at each noise level with its own recogniser (fresh, so no noise estimate carries over
//! from another voice); with `clean` that recogniser has the voice's MLLR transform computed
//! from its 20 enrolment phrases ([`kriegspiel_voice::enrol::PHRASES`], said by the same voice,
//! clean), with `room` from the same phrases in the same room at the same level as the test,
//! with a number (`20`) from the phrases at that level for every level; `none` is the
//! comparison without a transform. `HELDOUT_ENROL_NOISE=pink` enrols in pink noise only (no
//! babble: another room than the test's), `HELDOUT_ENROL_EFFECTS="pitch 60 tempo 1.05"`
//! changes the voice of the enrolment only (sox effects after the voice's own).
//!
//! The room adaptation (issue 21, sixth round): the default run hears as a player without an
//! enrolment does, with [`kriegspiel_voice::recognizer::ROOM_TRANSFORM`]; `HELDOUT_ROOM=plain`
//! hears with the plain model, `HELDOUT_ROOM=FILE` with the transform in FILE (one that
//! `HELDOUT_HOUSE_OUT` kept). `HELDOUT_ENROL=house` computes that transform afresh (one for
//! every voice, from the tuning voices' enrolment phrases at every level; `HELDOUT_HOUSE=wide`
//! adds seven more shifted tuning voices, `HELDOUT_HOUSE=more` the tuning set's own utterances
//! but its chatter, `HELDOUT_HOUSE_OUT=FILE` keeps it) and hears each
//! held-out voice and level with its own recogniser, as `none` does without it.
//!
//! The read-back answers' second ear (issue 21, seventh round): every run hears with
//! Moonshine ([`kriegspiel_voice::AnswerEar`], from its default folder) unless
//! `HELDOUT_EAR=off`; `HELDOUT_EAR_LIMITS="MARGIN DOUBT"` sets its limits (`"-1000 1000"`: it
//! takes whatever PocketSphinx's forced answer agrees with, and the dump's `ear` column lets
//! any limits be tried afterwards), `HELDOUT_DECIDE=1` keeps the committed thresholds with
//! `-- tuning` (the limits were chosen so), and `HELDOUT_EXPORT=DIR` writes the clips for
//! `console/voice/tools/moonshine/answers.py`. The same ear chooses among a free turn's tries
//! (eighth round): `HELDOUT_TRY_MARGIN=LEAD` sets the lead it needs over PocketSphinx's try
//! (`-1000`: its choice whenever it differs; the dump's `try_ear` and `ps` columns let any
//! lead be tried afterwards). It takes a try PocketSphinx rejected within its rescue limits
//! (ninth round): `HELDOUT_RESCUE="MARGIN DOUBT"` sets them (`"-1000 1000"`: whenever the
//! wide grammar allows; the dump's `try_ear` lets any be tried afterwards).
//!
//! Commands of a free turn (tenth round): `HELDOUT_COMMAND_EAR="MARGIN DOUBT"` sets the ear's
//! limits for them (`"1000 0"`: never; the dump's `ear` column lets any be tried afterwards).
//! The dump's `weighed` column gives each try the ear weighed with PocketSphinx's N-best path
//! score and the ear's log-probability (`uci:sphinx:ear`).
//!
//! An answer PocketSphinx took is dropped when the ear's doubt is over a veto (eleventh
//! round): `HELDOUT_ANSWER_VETO=DOUBT` sets it (`1000`: never; the dump's `ear` column, now
//! kept for every short utterance of a read-back, lets any be tried afterwards); a free
//! turn's "confirm" or "cancel" likewise (fifteenth round): `HELDOUT_COMMAND_VETO=DOUBT`;
//! `HELDOUT_OTHER_WORD=DOUBT` sets the doubt over which the ear writes out a read-back's
//! answer PocketSphinx took (`1000`: never). `HELDOUT_WRITTEN=DOUBT` sets the doubt up to
//! which an answer Moonshine writes itself, or writes as nothing, is taken (seventeenth
//! round; `0`: never). `HELDOUT_YES="MARGIN DOUBT"` sets how sure the ear must be of a
//! "yes" PocketSphinx took (twenty-second round; `"-1000 1000"`: always).
//!
//! `HELDOUT_VOICES="V1;V2"` says the held-out set with other voices (`espeak:en-us+m3`,
//! `flite:kal|pitch 100`: engine, voice, sox effects; twelfth round).
//!
//! `HELDOUT_FLOOR=0` hears each utterance without the noise floor the recogniser adds
//! (fourteenth round; a number sets its amplitude).
//!
//! `HELDOUT_WARM=off` hears each utterance without letting PocketSphinx's front end hear it
//! first (ninth round).
//!
//! Faint commands (issue 21, fifth round): `HELDOUT_UNSURE=FLOOR` sets the floor under which a
//! command is rejected rather than read back; the floor was chosen with `-- tuning` and
//! `HELDOUT_ENROL=none` (per-voice recognisers at the committed thresholds, so the summary
//! lines are decisions) at several floors.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

#[path = "../tests/support/room.rs"]
mod room;

use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use kriegspiel_referee::Try;
use kriegspiel_voice::{
    wav, AnswerEar, FileNames, Heard, Model, Recognition, Recognizer, Sureness, TurnGrammar,
};
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, Color};

/// Held out: voices, shifts, positions and sentences no threshold was chosen on.
const HELD_OUT_VOICES: [&str; 8] = [
    "flite:kal|pitch 250 tempo 1.12",
    "flite:slt|pitch -250 tempo 0.88",
    "flite:awb|pitch 250 tempo 0.88",
    "flite:rms|pitch 250 tempo 1.12",
    "flite:kal16|pitch -250 tempo 1.12",
    "festival:ked_diphone|pitch 250",
    "festival:kal_diphone|pitch -250 tempo 0.88",
    "festival:cmu_us_slt_arctic_hts|pitch -250 tempo 1.12",
];
const HELD_OUT_POSITIONS: [(&str, Color); 4] = [
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
    ("2r3k1/5ppp/8/8/8/8/1q3PPP/6K1 b - - 0 1", Color::Black),
];
const HELD_OUT_CHATTER: [&str; 24] = [
    "can I have some water",
    "the light is too bright",
    "shall we take a break",
    "I forgot my glasses",
    "how long is the game",
    "wait a moment",
    "is anyone there",
    "what did you say",
    "never mind",
    "I will be right back",
    "eighty seven",
    "thirty three",
    "nineteen",
    "carpet",
    "lemon",
    "airport",
    "blanket",
    "sandwich",
    "purple",
    "volcano",
    "confused",
    "concert",
    "castle",
    "yellow",
];

/// Tuning: the closed loop's tuning voices, plain and mildly shifted.
const TUNING_VOICES: [&str; 11] = [
    "flite:slt",
    "flite:rms",
    "flite:awb",
    "flite:kal16",
    "festival:kal_diphone",
    "festival:ked_diphone",
    "festival:cmu_us_slt_arctic_hts",
    "flite:slt|pitch 150",
    "flite:awb|tempo 0.94",
    "flite:rms|pitch -150 tempo 1.06",
    "festival:ked_diphone|pitch -150",
];
const TUNING_POSITIONS: [(&str, Color); 3] = [
    (
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
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
];
const TUNING_CHATTER: [&str; 24] = [
    "the weather is nice today",
    "what time is it",
    "hello how are you",
    "that was a great game",
    "where is the bathroom",
    "nice move",
    "is it my turn",
    "good luck",
    "excuse me",
    "please be quiet",
    "seventeen",
    "forty two",
    "one hundred",
    "sixty",
    "banana",
    "computer",
    "table",
    "window",
    "pencil",
    "happy",
    "conference",
    "counsel",
    "fine",
    "yesterday",
];
/// The background talkers (espeak-ng), never a target voice.
const BABBLE: [(&str, &str); 3] = [
    ("en-us", "the committee will meet again on thursday to discuss the budget for next year and the new building"),
    ("en-gb-x-rp", "she said that the train was late again so they walked along the river until the rain stopped"),
    ("en", "several people were standing near the door talking about the results of the last round"),
];

/// Noise levels: None is clean, Some(snr) in dB.
const LEVELS: [Option<f64>; 3] = [None, Some(20.0), Some(15.0)];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// A command said in a free turn (the full grammar).
    Command,
    /// "confirm", "cancel", "yes", "no" said while a read-back waits.
    Answer,
    /// A new try said while a read-back waits (it replaces the pending one).
    TryInReadBack,
    /// Chatter, heard both ways: never a try, never a "confirm".
    Chatter,
    /// A try said with letter names in a free turn (`HELDOUT_LETTERS=1`).
    LetterTry,
}

#[derive(Debug, Clone)]
struct Clip {
    kind: Kind,
    voice: &'static str,
    text: String,
    position: usize,
    /// The expected id (try UCI, command id, "rejected").
    expect: String,
    level: Option<f64>,
    samples: Vec<i16>,
}

struct Set {
    voices: &'static [&'static str],
    positions: &'static [(&'static str, Color)],
    chatter: &'static [&'static str],
    seed: u64,
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

fn chess(fen: &str) -> Chess {
    fen.parse::<Fen>()
        .unwrap()
        .into_position(CastlingMode::Standard)
        .unwrap()
}

/// The tries the ear weighed: `uci:sphinx:ear` each (`-` for no score), comma-separated.
fn weighed(r: &Recognition) -> String {
    let or_dash = |x: Option<String>| x.unwrap_or_else(|| "-".into());
    r.alternatives
        .iter()
        .map(|w| {
            format!(
                "{}:{}:{}",
                w.candidate.to_uci(),
                or_dash(w.sphinx.map(|s| s.to_string())),
                or_dash(w.moonshine.map(|m| m.to_string()))
            )
        })
        .collect::<Vec<_>>()
        .join(",")
}

fn id(h: Heard) -> String {
    h.id()
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
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(text.as_bytes()).unwrap();
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

/// `text` said by `voice` ("engine:name|sox effects"), as 16 kHz mono samples.
fn synthesise(voice: &str, text: &str, dir: &Path, name: &str) -> Vec<i16> {
    let raw = dir.join(format!("{name}.raw.wav"));
    let out = dir.join(format!("{name}.wav"));
    let (voice, effects) = voice.split_once('|').unwrap_or((voice, ""));
    let (engine, v) = voice.split_once(':').unwrap();
    match engine {
        "flite" => run(
            Command::new("flite")
                .args(["-voice", v, "-t", text, "-o"])
                .arg(&raw),
            None,
        ),
        "festival" => run(
            Command::new("text2wave")
                .args(["-eval", &format!("(voice_{v})"), "-o"])
                .arg(&raw)
                .current_dir(dir),
            Some(text),
        ),
        "espeak" => run(
            Command::new("espeak-ng")
                .args(["-v", v, "-w"])
                .arg(&raw)
                .arg(text),
            None,
        ),
        _ => panic!("unknown voice {voice}"),
    }
    run(
        Command::new("sox")
            .arg("-R")
            .arg(&raw)
            .args(["-r", "16000", "-c", "1", "-b", "16", "-e", "signed-integer"])
            .arg(&out)
            .args(effects.split_whitespace()),
        None,
    );
    let samples = wav::read_wav(&out).unwrap();
    std::fs::remove_file(&raw).unwrap();
    std::fs::remove_file(&out).unwrap();
    samples
}

/// The room: pink noise from sox and the babble of other voices 6 dB under it.
struct Room {
    pink: Vec<f64>,
    babble: Vec<f64>,
}

impl Room {
    fn new(dir: &Path) -> Room {
        let pink = room::pink(dir, 30);
        let mut babble = Vec::new();
        for (i, (v, text)) in BABBLE.iter().enumerate() {
            let s = synthesise(&format!("espeak:{v}"), text, dir, &format!("babble{i}"));
            babble.extend(s.iter().map(|s| f64::from(*s)));
        }
        let gain = (room::power(&pink) / room::power(&babble) / 10f64.powf(0.6)).sqrt();
        for b in &mut babble {
            *b *= gain;
        }
        Room { pink, babble }
    }

    /// `speech` with 300 ms of room before and after, the room `snr` dB under the speech.
    fn mix(&self, speech: &[i16], snr: f64, offset: usize) -> Vec<i16> {
        self.mix_with(speech, snr, offset, 1.0)
    }

    /// The same with the babble scaled by `babble` (0: pink noise only).
    fn mix_with(&self, speech: &[i16], snr: f64, offset: usize, babble: f64) -> Vec<i16> {
        room::mix(speech, snr, |i| {
            self.pink[(offset * 7919 + i) % self.pink.len()]
                + babble * self.babble[(offset * 15_401 + i) % self.babble.len()]
        })
    }
}

/// What each voice says: the 12 commands, answers, tries and chatter.
fn texts(set: &Set, vi: usize, rng: &mut Rng) -> Vec<(Kind, String, usize, String)> {
    let mut out = Vec::new();
    for c in kriegspiel_voice::Command::ALL {
        out.push((
            Kind::Command,
            c.words().to_owned(),
            vi % set.positions.len(),
            c.id(),
        ));
    }
    for (w, id) in [
        ("confirm", "confirm"),
        ("cancel", "cancel"),
        ("yes", "confirm"),
        ("no", "cancel"),
    ] {
        out.push((Kind::Answer, w.to_owned(), 0, id.to_owned()));
    }
    for k in 0..3 {
        let p = (vi + k) % set.positions.len();
        let (fen, color) = set.positions[p];
        let g = TurnGrammar::new(&chess(fen), color);
        let tries: Vec<Try> = g.tries().collect();
        let t = tries[rng.next(tries.len())];
        let names = [FileNames::Nato, FileNames::Anna][rng.next(2)];
        out.push((Kind::TryInReadBack, g.say(t, names, k == 0), p, t.to_uci()));
    }
    for k in 0..6 {
        let text = set.chatter[(vi * 6 + k) % set.chatter.len()];
        out.push((
            Kind::Chatter,
            text.to_owned(),
            k % set.positions.len(),
            "rejected".into(),
        ));
    }
    out
}

/// The speech of job `i`, from `HELDOUT_CACHE` (a directory) when it holds it, else made
/// by `make` and kept there: the synthesis is the same every run (sox `-R`), and it takes
/// most of the bench's time when decoder settings are compared. The name holds the voice and
/// the words: with `HELDOUT_VOICES` the same job index is another voice's speech (before, such
/// runs heard the held-out voices' speech from the cache; docs/VOICE.md, fourteenth round).
fn cached(
    set: &Set,
    i: usize,
    voice: &str,
    text: &str,
    make: impl FnOnce() -> Vec<i16>,
) -> Vec<i16> {
    // FNV-1a: a stable name across runs and builds (std's hasher is seeded per process).
    let said = voice.bytes().chain([0]).chain(text.bytes());
    let hash = said.fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    cached_named(&format!("{}-{i}-{hash:016x}", set.seed), make)
}

fn cached_named(name: &str, make: impl FnOnce() -> Vec<i16>) -> Vec<i16> {
    let Some(dir) = std::env::var_os("HELDOUT_CACHE") else {
        return make();
    };
    let path = Path::new(&dir).join(format!("{name}.raw"));
    if let Ok(bytes) = std::fs::read(&path) {
        return bytes
            .chunks_exact(2)
            .map(|b| i16::from_le_bytes([b[0], b[1]]))
            .collect();
    }
    let speech = make();
    std::fs::create_dir_all(&dir).unwrap();
    let bytes: Vec<u8> = speech.iter().flat_map(|s| s.to_le_bytes()).collect();
    std::fs::write(&path, bytes).unwrap();
    speech
}

fn clips(set: &Set, dir: &Path, room: &Room) -> Vec<Clip> {
    let mut rng = Rng(set.seed);
    let mut jobs = Vec::new();
    for (vi, voice) in set.voices.iter().enumerate() {
        for (kind, text, position, expect) in texts(set, vi, &mut rng) {
            jobs.push((*voice, kind, text, position, expect));
        }
    }
    let mut jobs: Vec<_> = jobs.into_iter().enumerate().collect();
    if std::env::var_os("HELDOUT_LETTERS").is_some() {
        // After the others (their cache names stay), with their own random tries.
        let mut rng = Rng(set.seed + 1000);
        let mut i = jobs.len() + 1000;
        for voice in set.voices {
            for k in 0..6 {
                let p = rng.next(set.positions.len());
                let (fen, color) = set.positions[p];
                let g = TurnGrammar::new(&chess(fen), color);
                let tries: Vec<Try> = g.tries().collect();
                let t = tries[rng.next(tries.len())];
                let text = g.say(t, FileNames::Letters, k % 2 == 0);
                jobs.push((i, (*voice, Kind::LetterTry, text, p, t.to_uci())));
                i += 1;
            }
        }
    }
    let queue = Mutex::new(jobs);
    let out = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| loop {
                let Some((i, (voice, kind, text, position, expect))) = queue.lock().unwrap().pop()
                else {
                    break;
                };
                let speech = cached(set, i, voice, &text, || {
                    synthesise(voice, &text, dir, &format!("u{i}"))
                });
                for (li, level) in LEVELS.iter().enumerate() {
                    let samples = match level {
                        None => speech.clone(),
                        Some(snr) => room.mix(&speech, *snr, i * 3 + li),
                    };
                    out.lock().unwrap().push(Clip {
                        kind,
                        voice,
                        text: text.clone(),
                        position,
                        expect: expect.clone(),
                        level: *level,
                        samples,
                    });
                }
            });
        }
    });
    let mut v = out.into_inner().unwrap();
    v.sort_by(|a, b| {
        (a.voice, &a.text, a.kind as u8, a.level.map(|l| l as i32)).cmp(&(
            b.voice,
            &b.text,
            b.kind as u8,
            b.level.map(|l| l as i32),
        ))
    });
    v
}

struct Heard2 {
    clip: Clip,
    /// As in a free turn.
    free: Recognition,
    /// PocketSphinx's own hearing in a free turn, before the ear chose among its tries.
    free_ps: String,
    /// While a read-back waits.
    reply: Recognition,
}

/// `HELDOUT_UNSURE=FLOOR`: the floor under which a command is rejected rather than read back
/// (`Recognizer::set_unsure_threshold`; a large number reads none back); `HELDOUT_WARM=off`:
/// each utterance heard without the front end's hearing it first (`Recognizer::set_warm`);
/// `HELDOUT_FLOOR=AMPLITUDE`: the noise floor added to every utterance (`0`: none, as before
/// the fourteenth round; `Recognizer::set_noise_floor`).
fn configure(r: &mut Recognizer) {
    if std::env::var("HELDOUT_WARM").as_deref() == Ok("off") {
        r.set_warm(false);
    }
    if let Some(amplitude) = std::env::var("HELDOUT_FLOOR")
        .ok()
        .and_then(|f| f.parse().ok())
    {
        r.set_noise_floor(amplitude);
    }
    if let Some(floor) = std::env::var("HELDOUT_UNSURE")
        .ok()
        .and_then(|f| f.parse().ok())
    {
        r.set_unsure_threshold(floor);
    }
}

/// Extra PocketSphinx options from `HELDOUT_PS_OPTIONS` ("-remove_silence no -beam 1e-60"):
/// to compare decoder settings on both sets.
fn decoder_options() -> Vec<(String, String)> {
    let text = std::env::var("HELDOUT_PS_OPTIONS").unwrap_or_default();
    let words: Vec<&str> = text.split_whitespace().collect();
    words
        .chunks(2)
        .map(|kv| {
            (
                kv[0].to_owned(),
                kv.get(1).copied().unwrap_or("").to_owned(),
            )
        })
        .collect()
}

/// The decoding threads: `HELDOUT_THREADS` (default 2, one per core; 1 times each utterance
/// without a second decoder competing for the other core).
fn threads() -> usize {
    std::env::var("HELDOUT_THREADS")
        .ok()
        .and_then(|n| n.parse().ok())
        .filter(|&n| n > 0)
        .unwrap_or(2)
}

/// The en-us model: `HELDOUT_MODEL=DIR` (PocketSphinx's model folder) or the default.
fn model() -> Model {
    match std::env::var_os("HELDOUT_MODEL") {
        Some(dir) => {
            let dir = Path::new(&dir);
            Model {
                acoustic: dir.join("en-us"),
                phone_lm: dir.join("en-us-phone.lm.bin"),
            }
        }
        None => Model::default(),
    }
}

/// A voice's transform at a level (None: clean), from its enrolment.
type Transform = (&'static str, Option<f64>, std::path::PathBuf);
/// A voice's clips at one level.
type Group = (&'static str, Option<f64>, Vec<Clip>);

/// `HELDOUT_ENROL`: how each voice enrols (None: no per-voice recognisers).
#[derive(Debug, Clone, Copy, PartialEq)]
enum Enrol {
    None,
    /// One enrolment per voice, clean (None) or at this SNR, for every level.
    Fixed(Option<f64>),
    /// One enrolment per voice and level, at that level.
    Room,
    /// One transform for everyone, from the tuning voices' enrolment phrases at every level
    /// (never the set's own voices): a model adapted to the room, not to a player.
    House,
}

fn enrol_mode() -> Option<Enrol> {
    match std::env::var("HELDOUT_ENROL").ok()?.as_str() {
        "none" => Some(Enrol::None),
        "clean" => Some(Enrol::Fixed(None)),
        "room" => Some(Enrol::Room),
        "house" => Some(Enrol::House),
        other => match other.parse::<f64>() {
            Ok(snr) => Some(Enrol::Fixed(Some(snr))),
            Err(_) => panic!("HELDOUT_ENROL={other}: none, clean, room, house or an SNR in dB"),
        },
    }
}

/// The transforms of every voice (and level, for `room`): (voice, level) -> file.
fn enrolments(set: &Set, dir: &Path, room: &Room, mode: Enrol) -> Vec<Transform> {
    use kriegspiel_voice::enrol::{enrol, Tools, PHRASES};
    if mode == Enrol::None {
        return Vec::new();
    }
    if mode == Enrol::House {
        return vec![("", None, house(dir, room))];
    }
    let levels: Vec<(usize, Option<f64>)> = match mode {
        Enrol::Fixed(level) => vec![(LEVELS.len(), level)],
        _ => LEVELS.iter().copied().enumerate().collect(),
    };
    let jobs: Vec<(usize, &'static str)> = set.voices.iter().copied().enumerate().collect();
    let results = Mutex::new(Vec::new());
    let queue = Mutex::new(jobs);
    std::thread::scope(|s| {
        for _ in 0..threads() {
            s.spawn(|| loop {
                let Some((vi, voice)) = queue.lock().unwrap().pop() else {
                    break;
                };
                let speech: Vec<Vec<i16>> = PHRASES
                    .iter()
                    .enumerate()
                    .map(|(k, text)| {
                        // HELDOUT_ENROL_EFFECTS: more sox effects for the enrolment only
                        // (the player's voice on another day).
                        let extra = std::env::var("HELDOUT_ENROL_EFFECTS").unwrap_or_default();
                        let name = if extra.is_empty() {
                            format!("{}-enrol-{vi}-{k}", set.seed)
                        } else {
                            format!("{}-enrol-{vi}-{k}-{}", set.seed, extra.replace(' ', "_"))
                        };
                        let voice = if extra.is_empty() {
                            voice.to_owned()
                        } else if voice.contains('|') {
                            format!("{voice} {extra}")
                        } else {
                            format!("{voice}|{extra}")
                        };
                        cached_named(&name, || {
                            synthesise(&voice, text, dir, &format!("e{vi}-{k}"))
                        })
                    })
                    .collect();
                for (li, level) in &levels {
                    let mut phrases = Vec::new();
                    for (k, s) in speech.iter().enumerate() {
                        let samples = match level {
                            None => s.clone(),
                            // HELDOUT_ENROL_NOISE=pink: another room (no babble).
                            Some(snr) => room.mix_with(
                                s,
                                *snr,
                                50_000 + vi * 100 + k * 3 + li,
                                if std::env::var("HELDOUT_ENROL_NOISE").as_deref() == Ok("pink") {
                                    0.0
                                } else {
                                    1.0
                                },
                            ),
                        };
                        let path = dir.join(format!("enrol-{vi}-{li}-{k}.wav"));
                        std::fs::write(&path, wav::wav_bytes(&samples)).unwrap();
                        phrases.push((path, PHRASES[k].to_owned()));
                    }
                    let out = dir.join(format!("mllr-{vi}-{li}"));
                    let t = Instant::now();
                    let e = enrol(&model(), &Tools::default(), &phrases, &out)
                        .unwrap_or_else(|e| panic!("{voice} {}: {e}", level_name(*level)));
                    println!(
                        "enrolled {voice:52} {:>5}: {}/{} phrases aligned, {} frames, {:.1} s",
                        level_name(*level),
                        e.aligned,
                        e.phrases,
                        e.frames,
                        t.elapsed().as_secs_f64()
                    );
                    results.lock().unwrap().push((voice, *level, out));
                }
            });
        }
    });
    results.into_inner().unwrap()
}

/// More voices for the house transform (`HELDOUT_HOUSE=wide`): tuning voices shifted further,
/// each the other way in pitch from its held-out shift, so no held-out voice is among them.
const HOUSE_MORE_VOICES: [&str; 7] = [
    "flite:slt|pitch 200 tempo 1.1",
    "flite:awb|pitch -200 tempo 1.1",
    "flite:rms|pitch -200 tempo 0.9",
    "flite:kal16|pitch 200 tempo 0.9",
    "festival:ked_diphone|pitch -200 tempo 1.1",
    "festival:kal_diphone|pitch 200 tempo 1.1",
    "festival:cmu_us_slt_arctic_hts|pitch 200 tempo 0.9",
];

/// The house transform's voices: the tuning voices, and with `HELDOUT_HOUSE=wide` more.
fn house_voices() -> Vec<(String, &'static str)> {
    let mut voices: Vec<(String, &'static str)> = TUNING_VOICES
        .iter()
        .enumerate()
        .map(|(vi, v)| (format!("7-enrol-{vi}"), *v))
        .collect();
    if std::env::var("HELDOUT_HOUSE").as_deref() == Ok("wide") {
        voices.extend(
            HOUSE_MORE_VOICES
                .iter()
                .enumerate()
                .map(|(vi, v)| (format!("house-more-{vi}"), *v)),
        );
    }
    voices
}

/// The tuning voices' enrolment phrases at every level, one transform from them all.
fn house(dir: &Path, room: &Room) -> std::path::PathBuf {
    use kriegspiel_voice::enrol::{enrol, Tools, PHRASES};
    let voices = house_voices();
    let queue = Mutex::new(
        (0..voices.len())
            .flat_map(|vi| (0..PHRASES.len()).map(move |k| (vi, k)))
            .collect::<Vec<_>>(),
    );
    let spoken = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..threads() {
            s.spawn(|| loop {
                let Some((vi, k)) = queue.lock().unwrap().pop() else {
                    break;
                };
                let (name, voice) = &voices[vi];
                let speech = cached_named(&format!("{name}-{k}"), || {
                    synthesise(voice, PHRASES[k], dir, &format!("h{vi}-{k}"))
                });
                spoken.lock().unwrap().push((vi, k, speech));
            });
        }
    });
    let mut spoken = spoken.into_inner().unwrap();
    spoken.sort_by_key(|(vi, k, _)| (*vi, *k));
    let mut phrases = Vec::new();
    for (vi, k, speech) in spoken {
        for (li, level) in LEVELS.iter().enumerate() {
            let samples = match level {
                None => speech.clone(),
                Some(snr) => room.mix_with(&speech, *snr, 70_000 + vi * 100 + k * 3 + li, 1.0),
            };
            let path = dir.join(format!("house-{vi}-{li}-{k}.wav"));
            std::fs::write(&path, wav::wav_bytes(&samples)).unwrap();
            phrases.push((path, PHRASES[k].to_owned()));
        }
    }
    if std::env::var("HELDOUT_HOUSE").as_deref() == Ok("more") {
        // The tuning set's own utterances too (not its chatter), with their words.
        for (i, clip) in clips(&tuning_set(), dir, room)
            .into_iter()
            .filter(|c| c.kind != Kind::Chatter)
            .enumerate()
        {
            let path = dir.join(format!("house-utt-{i}.wav"));
            std::fs::write(&path, wav::wav_bytes(&clip.samples)).unwrap();
            phrases.push((path, clip.text));
        }
    }
    let out = dir.join("mllr-house");
    let t = Instant::now();
    let e = enrol(&model(), &Tools::default(), &phrases, &out).unwrap();
    println!(
        "house transform: {}/{} phrases aligned, {} frames, {:.1} s",
        e.aligned,
        e.phrases,
        e.frames,
        t.elapsed().as_secs_f64()
    );
    if let Ok(keep) = std::env::var("HELDOUT_HOUSE_OUT") {
        std::fs::copy(&out, keep).unwrap();
    }
    out
}

/// The transform `voice` at `level` is heard with.
fn transform_for(
    transforms: &[Transform],
    mode: Enrol,
    voice: &str,
    level: Option<f64>,
) -> Option<std::path::PathBuf> {
    transforms
        .iter()
        .find(|(v, l, _)| {
            mode == Enrol::House || *v == voice && (matches!(mode, Enrol::Fixed(_)) || *l == level)
        })
        .map(|(_, _, p)| p.clone())
}

/// The room adaptation, as players without an enrolment get it (`HELDOUT_ROOM=plain`: none),
/// written to a file in `dir` for PocketSphinx.
fn room_transform(dir: &Path) -> Option<String> {
    match std::env::var("HELDOUT_ROOM").as_deref() {
        Ok("plain") => return None,
        Ok(file) if !file.is_empty() => return Some(file.to_owned()),
        _ => {}
    }
    let path = dir.join("room.mllr");
    std::fs::write(&path, kriegspiel_voice::recognizer::ROOM_TRANSFORM).unwrap();
    Some(path.to_str().unwrap().to_owned())
}

fn hear_all(
    set: &Set,
    clips: Vec<Clip>,
    tuning: bool,
    transforms: &[Transform],
    dir: &Path,
) -> Vec<Heard2> {
    if let Some(mode) = enrol_mode() {
        return hear_per_voice(set, clips, mode, transforms);
    }
    let room = room_transform(dir);
    let room_transform = room.as_deref();
    // Each thread's clips are fixed, in a fixed order: PocketSphinx's noise estimate carries
    // over from one utterance to the next, so a shared queue made runs differ.
    let mut shares: Vec<Vec<Clip>> = (0..threads()).map(|_| Vec::new()).collect();
    let n = shares.len();
    for (i, clip) in clips.into_iter().enumerate() {
        shares[i % n].push(clip);
    }
    let out = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for mut share in shares {
            let out = &out;
            s.spawn(move || {
                let options = decoder_options();
                let mut options: Vec<(&str, &str)> = options
                    .iter()
                    .map(|(k, v)| (k.as_str(), v.as_str()))
                    .collect();
                if let Some(room) = room_transform {
                    options.push(("-mllr", room));
                }
                let single = std::env::var_os("HELDOUT_SINGLE").is_some();
                let mut r = Recognizer::with_options(&model(), &options, !single).unwrap();
                if let Some(w) = std::env::var("HELDOUT_JUNK")
                    .ok()
                    .and_then(|w| w.parse::<f64>().ok())
                {
                    r.set_junk_weight(Some(w)).unwrap();
                }
                if tuning && std::env::var_os("HELDOUT_DECIDE").is_none() {
                    // Every score is printed: nothing is cut short by a threshold.
                    r.set_command_threshold(i32::MIN);
                    r.set_answer_threshold(i32::MIN);
                }
                configure(&mut r);
                if let Some(ear) = ear() {
                    r.set_ear(ear);
                }
                while let Some(clip) = share.pop() {
                    let heard = hear_clip(&mut r, set, clip);
                    out.lock().unwrap().push(heard);
                }
            });
        }
    });
    out.into_inner().unwrap()
}

/// The second ear (Moonshine, from its default folder), unless `HELDOUT_EAR=off`;
/// `HELDOUT_EAR_LIMITS="MARGIN DOUBT"` sets its limits for answers, `HELDOUT_COMMAND_EAR` for
/// a free turn's commands, `HELDOUT_RESCUE` for a try PocketSphinx rejected, and
/// `HELDOUT_TRY_MARGIN` the lead it needs to replace PocketSphinx's try.
fn ear() -> Option<AnswerEar> {
    if std::env::var("HELDOUT_EAR").as_deref() == Ok("off") {
        return None;
    }
    let ear = AnswerEar::open(&AnswerEar::default_dir())
        .unwrap_or_else(|e| panic!("{e} (or HELDOUT_EAR=off)"));
    let ear = match std::env::var("HELDOUT_TRY_MARGIN") {
        Ok(lead) => ear.with_try_margin(lead.parse().unwrap()),
        Err(_) => ear,
    };
    let ear = match margin_and_doubt("HELDOUT_COMMAND_EAR") {
        Some((margin, doubt)) => ear.with_command_limits(Sureness { margin, doubt }),
        None => ear,
    };
    let ear = match margin_and_doubt("HELDOUT_RESCUE") {
        Some((margin, doubt)) => ear.with_rescue(Sureness { margin, doubt }),
        None => ear,
    };
    let ear = match std::env::var("HELDOUT_ANSWER_VETO") {
        Ok(doubt) => ear.with_answer_veto(doubt.parse().unwrap()),
        Err(_) => ear,
    };
    let ear = match std::env::var("HELDOUT_COMMAND_VETO") {
        Ok(doubt) => ear.with_command_veto(doubt.parse().unwrap()),
        Err(_) => ear,
    };
    let ear = match std::env::var("HELDOUT_OTHER_WORD") {
        Ok(doubt) => ear.with_other_word_doubt(doubt.parse().unwrap()),
        Err(_) => ear,
    };
    let ear = match margin_and_doubt("HELDOUT_YES") {
        Some((margin, doubt)) => ear.with_yes(Sureness { margin, doubt }),
        None => ear,
    };
    let ear = match std::env::var("HELDOUT_WRITTEN") {
        Ok(doubt) => ear.with_written_doubt(doubt.parse().unwrap()),
        Err(_) => ear,
    };
    Some(match margin_and_doubt("HELDOUT_EAR_LIMITS") {
        Some((margin, doubt)) => ear.with_limits(margin, doubt),
        None => ear,
    })
}

/// The environment variable `var`'s "MARGIN DOUBT", when it is set.
fn margin_and_doubt(var: &str) -> Option<(f32, f32)> {
    let text = std::env::var(var).ok()?;
    let l: Vec<f32> = text
        .split_whitespace()
        .map(|x| {
            x.parse()
                .unwrap_or_else(|e| panic!("{var}=\"{text}\": {e}"))
        })
        .collect();
    match l.as_slice() {
        [margin, doubt] => Some((*margin, *doubt)),
        _ => panic!("{var}=\"{text}\": two numbers, MARGIN DOUBT"),
    }
}

/// A clip heard in its position, in a free turn and while a read-back waits.
fn hear_clip(r: &mut Recognizer, set: &Set, clip: Clip) -> Heard2 {
    let (fen, color) = set.positions[clip.position];
    r.set_turn(&chess(fen), color).unwrap();
    let free = r.hear(&clip.samples).unwrap();
    let free_ps = match (free.heard, r.grammar()) {
        (Heard::Try(_), Some(g)) => id(g.interpret(&free.words)),
        (other, _) => id(other),
    };
    let reply = r.hear_reply(&clip.samples).unwrap();
    Heard2 {
        clip,
        free,
        free_ps,
        reply,
    }
}

/// Each (voice, level) heard by its own recogniser, with that voice's transform if any.
fn hear_per_voice(
    set: &Set,
    clips: Vec<Clip>,
    mode: Enrol,
    transforms: &[Transform],
) -> Vec<Heard2> {
    let mut groups: Vec<Group> = Vec::new();
    for clip in clips {
        match groups
            .iter_mut()
            .find(|(v, l, _)| *v == clip.voice && *l == clip.level)
        {
            Some(g) => g.2.push(clip),
            None => groups.push((clip.voice, clip.level, vec![clip])),
        }
    }
    let n = threads();
    let mut shares: Vec<Vec<Group>> = (0..n).map(|_| Vec::new()).collect();
    for (i, g) in groups.into_iter().enumerate() {
        shares[i % n].push(g);
    }
    let out = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for share in shares {
            let out = &out;
            s.spawn(move || {
                let options = decoder_options();
                for (voice, level, mut clips) in share {
                    let mut options: Vec<(&str, &str)> = options
                        .iter()
                        .map(|(k, v)| (k.as_str(), v.as_str()))
                        .collect();
                    let transform = transform_for(transforms, mode, voice, level);
                    let t = transform.as_ref().map(|p| p.to_str().unwrap().to_owned());
                    if let Some(t) = &t {
                        options.push(("-mllr", t.as_str()));
                    }
                    let mut r = Recognizer::with_options(&model(), &options, true).unwrap();
                    configure(&mut r);
                    while let Some(clip) = clips.pop() {
                        let heard = hear_clip(&mut r, set, clip);
                        out.lock().unwrap().push(heard);
                    }
                }
            });
        }
    });
    out.into_inner().unwrap()
}

fn level_name(l: Option<f64>) -> String {
    l.map_or("clean".into(), |snr| format!("{snr:.0} dB"))
}

fn is_try(id: &str) -> bool {
    id.len() >= 4 && id.as_bytes()[1].is_ascii_digit()
}

/// One row of figures for the heard utterances `hs`.
fn row(hs: &[&Heard2]) -> String {
    let count = |k: Kind, f: &dyn Fn(&Heard2) -> bool| {
        let sel: Vec<_> = hs.iter().filter(|h| h.clip.kind == k).collect();
        (sel.iter().filter(|h| f(h)).count(), sel.len())
    };
    let cmd = count(Kind::Command, &|h| id(h.free.heard) == h.clip.expect);
    // Commands read back ([`Heard::Unsure`]): carried out on his "confirm".
    let cmd_read_back = count(Kind::Command, &|h| {
        id(h.free.heard) == format!("{}?", h.clip.expect)
    });
    let cmd_read_back_wrong = count(Kind::Command, &|h| {
        matches!(h.free.heard, Heard::Unsure(_))
            && id(h.free.heard) != format!("{}?", h.clip.expect)
    });
    let chatter_read_back = count(Kind::Chatter, &|h| {
        matches!(h.free.heard, Heard::Unsure(_)) || matches!(h.reply.heard, Heard::Unsure(_))
    });
    let confirm_cancel_free = count(Kind::Command, &|h| {
        !matches!(h.clip.expect.as_str(), "confirm" | "cancel") || id(h.free.heard) == h.clip.expect
    });
    let cc = hs
        .iter()
        .filter(|h| {
            h.clip.kind == Kind::Command && matches!(h.clip.expect.as_str(), "confirm" | "cancel")
        })
        .count();
    let ans = count(Kind::Answer, &|h| id(h.reply.heard) == h.clip.expect);
    let ans_cc: Vec<_> = hs
        .iter()
        .filter(|h| {
            h.clip.kind == Kind::Answer && matches!(h.clip.text.as_str(), "confirm" | "cancel")
        })
        .collect();
    let ans_cc_ok = ans_cc
        .iter()
        .filter(|h| id(h.reply.heard) == h.clip.expect)
        .count();
    let tries = count(Kind::TryInReadBack, &|h| id(h.reply.heard) == h.clip.expect);
    // Tries in a free turn: the NATO/Anna ones said as in a read-back, and with letters.
    let tries_free = count(Kind::TryInReadBack, &|h| id(h.free.heard) == h.clip.expect);
    let letters = count(Kind::LetterTry, &|h| id(h.free.heard) == h.clip.expect);
    let letters_wrong = count(Kind::LetterTry, &|h| {
        id(h.free.heard) != h.clip.expect && id(h.free.heard) != "rejected"
    });
    let tries_confirm = count(Kind::TryInReadBack, &|h| id(h.reply.heard) == "confirm");
    let chatter_bad = count(Kind::Chatter, &|h| {
        is_try(&id(h.free.heard))
            || is_try(&id(h.reply.heard))
            || id(h.reply.heard) == "confirm"
            || id(h.free.heard) == "confirm"
    });
    // Another command said while a read-back waits, taken for "confirm": it would play the
    // try read back.
    let command_confirm = count(Kind::Command, &|h| {
        h.clip.expect != "confirm" && id(h.reply.heard) == "confirm"
    });
    // Chatter taken for another command (either way): not counted above, but "any" asks
    // the referee and "cancel" drops the try read back.
    let chatter_cancel = count(Kind::Chatter, &|h| {
        id(h.free.heard) == "cancel" || id(h.reply.heard) == "cancel"
    });
    let chatter_other = count(Kind::Chatter, &|h| {
        [id(h.free.heard), id(h.reply.heard)]
            .iter()
            .any(|i| !is_try(i) && !matches!(i.as_str(), "rejected" | "confirm" | "cancel"))
    });
    let letters = if letters.1 == 0 {
        String::new()
    } else {
        format!(
            "  tries in a free turn: NATO/Anna {}/{}, letters {}/{} ({} heard as something else)",
            tries_free.0, tries_free.1, letters.0, letters.1, letters_wrong.0
        )
    };
    format!(
        "commands {:>3}/{:<3} (read back: {:>2} right, {} another) confirm+cancel: free {:>2}/{:<2} read-back {:>2}/{:<2} (+yes/no {:>2}/{:<2}; other commands as confirm {})  tries in read-back {:>2}/{:<2} (as confirm {})  chatter as try/confirm {}/{} (as cancel {}, as another command {}, read back {}){letters}",
        cmd.0,
        cmd.1,
        cmd_read_back.0,
        cmd_read_back_wrong.0,
        cc - (confirm_cancel_free.1 - confirm_cancel_free.0),
        cc,
        ans_cc_ok,
        ans_cc.len(),
        ans.0,
        ans.1,
        command_confirm.0,
        tries.0,
        tries.1,
        tries_confirm.0,
        chatter_bad.0,
        chatter_bad.1,
        chatter_cancel.0,
        chatter_other.0,
        chatter_read_back.0
    )
}

fn percentile(times: &mut [Duration], p: usize) -> f64 {
    times.sort();
    times
        .get((times.len() * p / 100).min(times.len().saturating_sub(1)))
        .map_or(0.0, |d| d.as_secs_f64() * 1e3)
}

/// `HELDOUT_VOICES="espeak:en-us+m3;flite:kal|pitch 100"`: the held-out set said by these
/// voices instead (the positions, chatter and noise unchanged), to probe voices of another
/// kind than the tuning set's.
fn other_voices() -> Option<&'static [&'static str]> {
    let list = std::env::var("HELDOUT_VOICES").ok()?;
    let voices: Vec<&'static str> = list
        .split(';')
        .map(str::trim)
        .filter(|v| !v.is_empty())
        .map(|v| &*Box::leak(v.to_owned().into_boxed_str()))
        .collect();
    Some(Box::leak(voices.into_boxed_slice()))
}

fn tuning_set() -> Set {
    Set {
        voices: &TUNING_VOICES,
        positions: &TUNING_POSITIONS,
        chatter: &TUNING_CHATTER,
        seed: 7,
    }
}

/// `HELDOUT_EXPORT=DIR`: every clip as a 16 kHz WAV file in DIR, and `DIR/index.tsv` (file,
/// kind, voice, level, text, expected, position's FEN and colour), for another engine to hear.
fn export(set: &Set, clips: &[Clip], out: &Path) {
    std::fs::create_dir_all(out).unwrap();
    let mut index = String::new();
    for (i, c) in clips.iter().enumerate() {
        let name = format!("{i:05}.wav");
        std::fs::write(out.join(&name), wav::wav_bytes(&c.samples)).unwrap();
        let (fen, color) = set.positions[c.position];
        index.push_str(&format!(
            "{name}\t{:?}\t{}\t{}\t{}\t{}\t{fen}\t{color}\n",
            c.kind,
            c.voice,
            level_name(c.level),
            c.text,
            c.expect
        ));
    }
    std::fs::write(out.join("index.tsv"), index).unwrap();
    println!("{} clips written to {}", clips.len(), out.display());
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let tuning = args.iter().any(|a| a == "tuning");
    let dump = tuning || args.iter().any(|a| a == "dump");
    let set = if tuning {
        tuning_set()
    } else {
        Set {
            voices: other_voices().unwrap_or(&HELD_OUT_VOICES),
            positions: &HELD_OUT_POSITIONS,
            chatter: &HELD_OUT_CHATTER,
            seed: 2026,
        }
    };
    let start = Instant::now();
    let dir = tempfile::tempdir().unwrap();
    let room = Room::new(dir.path());
    let clips = clips(&set, dir.path(), &room);
    if let Some(out) = std::env::var_os("HELDOUT_EXPORT") {
        export(&set, &clips, Path::new(&out));
        return;
    }
    let transforms =
        enrol_mode().map_or(Vec::new(), |mode| enrolments(&set, dir.path(), &room, mode));
    let made = start.elapsed();
    let heard = hear_all(&set, clips, tuning, &transforms, dir.path());
    println!(
        "model {}{}, decoder options: {:?}, junk weight {:?}, one decoder only: {}, enrolment: {:?}",
        model().acoustic.display(),
        match (enrol_mode(), std::env::var("HELDOUT_ROOM").as_deref()) {
            (None, Ok("plain")) => " (plain)".to_owned(),
            (None, Ok(file)) if !file.is_empty() => format!(" with the room adaptation in {file}"),
            (None, _) => " with the room adaptation".to_owned(),
            _ => String::new(),
        },
        decoder_options(),
        std::env::var("HELDOUT_JUNK").ok(),
        std::env::var_os("HELDOUT_SINGLE").is_some(),
        enrol_mode()
    );
    println!(
        "== {} set: {} voices, {} clips ({} made in {:.0} s, heard in {:.0} s)",
        if tuning { "tuning" } else { "held-out" },
        set.voices.len(),
        heard.len(),
        heard.len(),
        made.as_secs_f64(),
        (start.elapsed() - made).as_secs_f64()
    );
    if dump {
        for h in &heard {
            for (how, r) in [("free", &h.free), ("reply", &h.reply)] {
                println!(
                    "{:?}\t{how}\t{}\t{}\t'{}'\texpect {}\tgot {}\t'{}'\tratio {}\tspan {}\tanswer {:?}\twide '{}' {:?}\tear {:?}\tps {}\ttry_ear {:?}\tweighed {}\tms {}",
                    h.clip.kind,
                    h.clip.voice,
                    level_name(h.clip.level),
                    h.clip.text,
                    h.clip.expect,
                    id(r.heard),
                    r.words,
                    r.ratio,
                    r.span_ratio,
                    r.answer_ratio,
                    r.wide_words,
                    r.wide_margin,
                    r.ear.map(|e| (e.best, e.margin, e.doubt, e.agrees, e.answer.is_some(), e.other)),
                    if how == "free" { h.free_ps.as_str() } else { "" },
                    r.try_ear
                        .as_ref()
                        .map(|e| (e.best, e.lead, e.margin, e.taken, e.doubt, e.rescued)),
                    weighed(r),
                    r.took.as_millis()
                );
            }
        }
    }
    for level in LEVELS {
        println!("-- {}", level_name(level));
        for v in set.voices {
            let hs: Vec<&Heard2> = heard
                .iter()
                .filter(|h| h.clip.voice == *v && h.clip.level == level)
                .collect();
            println!("  {v:52} {}", row(&hs));
        }
        let hs: Vec<&Heard2> = heard.iter().filter(|h| h.clip.level == level).collect();
        println!("  {:52} {}", "all voices", row(&hs));
    }
    let hs: Vec<&Heard2> = heard.iter().collect();
    println!("all levels, all voices: {}", row(&hs));
    let mut free: Vec<Duration> = heard.iter().map(|h| h.free.took).collect();
    let mut reply: Vec<Duration> = heard
        .iter()
        .filter(|h| matches!(h.clip.kind, Kind::Answer))
        .map(|h| h.reply.took)
        .collect();
    let mut reply_all: Vec<Duration> = heard.iter().map(|h| h.reply.took).collect();
    println!(
        "decoding per utterance ({} decoding threads on 2 cores): free turn p50 {:.0} ms p95 {:.0} ms; read-back, answers p50 {:.0} ms p95 {:.0} ms; read-back, everything p50 {:.0} ms p95 {:.0} ms",
        threads(),
        percentile(&mut free, 50),
        percentile(&mut free, 95),
        percentile(&mut reply, 50),
        percentile(&mut reply, 95),
        percentile(&mut reply_all, 50),
        percentile(&mut reply_all, 95),
    );
}
