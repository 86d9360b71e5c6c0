//! Per-player enrolment (issue 21): a few phrases said by the player at the table adapt the
//! en-us acoustic model to his voice and his room by MLLR (a linear transform of the model's
//! Gaussian means), computed by SphinxTrain's tools (Debian `sphinxtrain`: `bw` counts how the
//! phrases' audio falls on the model's states, `mllr_solve` fits the transform; `sphinx_fe`
//! from `sphinxbase-utils` computes the features; `pocketsphinx_mdef_convert` from
//! `pocketsphinx` writes the model definition as text). The transform file is given to the
//! recogniser ([`crate::Recognizer::adapted`], PocketSphinx's `-mllr`).
//!
//! The Debian model ships its mixture weights only in PocketSphinx's compressed `sendump`;
//! `bw` needs SphinxTrain's `mixture_weights` file, which [`mixture_weights`] writes from it.

use std::fmt;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::recognizer::Model;
use crate::wav;
use crate::words::PRONUNCIATIONS;

/// The phrases a player says to enrol: every word of the vocabulary's commands, file names,
/// ranks and men, in other combinations than he says them in play.
pub const PHRASES: [&str; 20] = [
    "confirm cancel confirm",
    "cancel confirm cancel",
    "any rebuffs repeat",
    "my men offer draw resign",
    "queen rook bishop knight",
    "alfa bravo charlie delta",
    "echo foxtrot golf hotel",
    "anna bella cesar david",
    "eva felix gustav hector",
    "one two three four",
    "five six seven eight",
    "a b c d",
    "e f g h",
    "pawn echo two to echo four",
    "king hotel eight to alfa one",
    "bishop charlie one takes hotel six",
    "castle kingside castle queenside",
    "yes no yes no",
    "repeat any confirm",
    "cancel resign rebuffs",
];

/// Where SphinxTrain's and PocketSphinx's tools are (Debian's paths by default).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tools {
    /// SphinxTrain's Baum-Welch counter (`sphinxtrain`).
    pub bw: PathBuf,
    /// SphinxTrain's MLLR solver (`sphinxtrain`).
    pub mllr_solve: PathBuf,
    /// The feature extractor (`sphinxbase-utils`).
    pub sphinx_fe: PathBuf,
    /// The model definition converter (`pocketsphinx`).
    pub mdef_convert: PathBuf,
}

impl Default for Tools {
    fn default() -> Tools {
        Tools {
            bw: "/usr/lib/sphinxtrain/bw".into(),
            mllr_solve: "/usr/lib/sphinxtrain/mllr_solve".into(),
            sphinx_fe: "/usr/bin/sphinx_fe".into(),
            mdef_convert: "/usr/bin/pocketsphinx_mdef_convert".into(),
        }
    }
}

impl Tools {
    /// Whether every tool is installed: the first missing, with its package.
    pub fn check(&self) -> Result<(), EnrolError> {
        match self.each().into_iter().find(|(path, _)| !path.exists()) {
            Some((path, package)) => Err(EnrolError::MissingTool {
                path: path.to_owned(),
                package,
            }),
            None => Ok(()),
        }
    }

    /// Each tool with the Debian package that installs it.
    fn each(&self) -> [(&Path, &'static str); 4] {
        [
            (&self.bw, "sphinxtrain"),
            (&self.mllr_solve, "sphinxtrain"),
            (&self.sphinx_fe, "sphinxbase-utils"),
            (&self.mdef_convert, "pocketsphinx"),
        ]
    }
}

/// Why a transform could not be computed.
#[derive(Debug)]
pub enum EnrolError {
    /// A tool is not installed: its path and the Debian package that has it.
    MissingTool {
        path: PathBuf,
        package: &'static str,
    },
    /// A model file is missing or unreadable.
    Model(String),
    /// No phrases were given.
    NoPhrases,
    /// A phrase has a word the recogniser does not know.
    UnknownWord {
        phrase: String,
        word: String,
    },
    /// An enrolment recording could not be read.
    Wav {
        path: PathBuf,
        error: wav::WavError,
    },
    /// A tool ran and failed: its name and the last lines it wrote.
    Tool {
        name: String,
        output: String,
    },
    Io(std::io::Error),
}

impl fmt::Display for EnrolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EnrolError::MissingTool { path, package } => write!(
                f,
                "{} is missing: install the Debian package {package}",
                path.display()
            ),
            EnrolError::Model(m) => write!(f, "{m}"),
            EnrolError::NoPhrases => write!(f, "no enrolment phrases"),
            EnrolError::UnknownWord { phrase, word } => {
                write!(
                    f,
                    "the phrase '{phrase}' has a word the recogniser does not know: '{word}'"
                )
            }
            EnrolError::Wav { path, error } => write!(f, "{}: {error}", path.display()),
            EnrolError::Tool { name, output } => write!(f, "{name} failed: {output}"),
            EnrolError::Io(e) => write!(f, "enrolment: {e}"),
        }
    }
}

impl std::error::Error for EnrolError {}

impl From<std::io::Error> for EnrolError {
    fn from(e: std::io::Error) -> EnrolError {
        EnrolError::Io(e)
    }
}

/// What an enrolment used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Enrolment {
    /// Phrases given.
    pub phrases: usize,
    /// Phrases `bw` aligned with their text (the others were left out of the transform).
    pub aligned: usize,
    /// Their 10 ms frames.
    pub frames: usize,
}

/// Computes the MLLR transform of `model` for the speaker of `phrases` (16-bit mono WAV files
/// at 16 kHz, each with the words said, from the recogniser's vocabulary) and writes it to
/// `out`, a file for [`crate::Recognizer::adapted`].
pub fn enrol(
    model: &Model,
    tools: &Tools,
    phrases: &[(PathBuf, String)],
    out: &Path,
) -> Result<Enrolment, EnrolError> {
    tools.check()?;
    if phrases.is_empty() {
        return Err(EnrolError::NoPhrases);
    }
    let hmm = &model.acoustic;
    check_model(hmm)?;
    let params = FeatParams::read(&hmm.join("feat.params"))?;
    let dir = tempfile::Builder::new()
        .prefix("kriegspiel-enrol-")
        .tempdir()?;
    let work = dir.path();
    let adapt = model_for_bw(hmm, tools, work)?;
    write_phrases(phrases, work)?;
    features(hmm, tools, work)?;
    let accum = work.join("accum");
    std::fs::create_dir(&accum)?;
    let log = count(&params, tools, &adapt, work, &accum)?;
    let (aligned, frames) = aligned(&log);
    if aligned == 0 {
        return Err(EnrolError::Tool {
            name: "bw".into(),
            output: "no phrase could be aligned with its words".into(),
        });
    }
    let matrix = work.join("mllr_matrix");
    run(
        "mllr_solve",
        Command::new(&tools.mllr_solve)
            .arg("-meanfn")
            .arg(adapt.join("means"))
            .arg("-varfn")
            .arg(adapt.join("variances"))
            .arg("-outmllrfn")
            .arg(&matrix)
            .arg("-accumdir")
            .arg(&accum),
    )?;
    // A player's own: readable by him alone, whatever mode the tool gave it.
    std::fs::copy(&matrix, out)?;
    std::fs::set_permissions(out, std::os::unix::fs::PermissionsExt::from_mode(0o600))?;
    Ok(Enrolment {
        phrases: phrases.len(),
        aligned,
        frames,
    })
}

/// Every file of the acoustic model the enrolment reads.
fn check_model(hmm: &Path) -> Result<(), EnrolError> {
    for f in [
        "mdef",
        "means",
        "variances",
        "transition_matrices",
        "sendump",
        "noisedict",
    ] {
        if !hmm.join(f).exists() {
            return Err(EnrolError::Model(format!(
                "the en-us acoustic model has no {f} ({}): install the Debian package pocketsphinx-en-us",
                hmm.join(f).display()
            )));
        }
    }
    Ok(())
}

/// The model as bw reads it, in `work/hmm`: its files, the mixture weights and a text mdef.
fn model_for_bw(hmm: &Path, tools: &Tools, work: &Path) -> Result<PathBuf, EnrolError> {
    let adapt = work.join("hmm");
    std::fs::create_dir(&adapt)?;
    for f in ["means", "variances", "transition_matrices", "noisedict"] {
        std::fs::copy(hmm.join(f), adapt.join(f))?;
    }
    let sendump = std::fs::read(hmm.join("sendump"))?;
    std::fs::write(adapt.join("mixture_weights"), mixture_weights(&sendump)?)?;
    run(
        "pocketsphinx_mdef_convert",
        Command::new(&tools.mdef_convert)
            .arg("-text")
            .arg(hmm.join("mdef"))
            .arg(adapt.join("mdef")),
    )?;
    Ok(adapt)
}

/// The phrases in `work`: each recording checked and rewritten, its transcript, the
/// dictionary.
fn write_phrases(phrases: &[(PathBuf, String)], work: &Path) -> Result<(), EnrolError> {
    let known = |w: &str| PRONUNCIATIONS.iter().any(|(p, _)| *p == w);
    let mut fileids = String::new();
    let mut transcripts = String::new();
    for (i, (path, text)) in phrases.iter().enumerate() {
        let words: Vec<String> = text.split_whitespace().map(str::to_lowercase).collect();
        if let Some(word) = words.iter().find(|w| !known(w)) {
            return Err(EnrolError::UnknownWord {
                phrase: text.clone(),
                word: word.clone(),
            });
        }
        if words.is_empty() {
            return Err(EnrolError::UnknownWord {
                phrase: text.clone(),
                word: String::new(),
            });
        }
        let samples = wav::read_wav(path).map_err(|error| EnrolError::Wav {
            path: path.clone(),
            error,
        })?;
        // Adapted to what the recogniser will hear: a quiet microphone's phrases raised.
        let samples = crate::level::raise_quiet(&samples).samples;
        let id = format!("p{i:03}");
        std::fs::write(work.join(format!("{id}.wav")), wav::wav_bytes(&samples))?;
        fileids.push_str(&format!("{id}\n"));
        transcripts.push_str(&format!("<s> {} </s> ({id})\n", words.join(" ")));
    }
    std::fs::write(work.join("fileids"), fileids)?;
    std::fs::write(work.join("transcription"), transcripts)?;
    std::fs::write(work.join("dict"), crate::words::dictionary())?;
    Ok(())
}

/// The phrases' features, with the model's own front end.
fn features(hmm: &Path, tools: &Tools, work: &Path) -> Result<(), EnrolError> {
    run(
        "sphinx_fe",
        Command::new(&tools.sphinx_fe)
            .arg("-argfile")
            .arg(hmm.join("feat.params"))
            .args(["-samprate", "16000", "-c"])
            .arg(work.join("fileids"))
            .arg("-di")
            .arg(work)
            .arg("-do")
            .arg(work)
            .args(["-ei", "wav", "-eo", "mfc", "-mswav", "yes"]),
    )
    .map(drop)
}

/// bw's counts of how the phrases fall on the model's states, in `accum`; its log.
fn count(
    params: &FeatParams,
    tools: &Tools,
    adapt: &Path,
    work: &Path,
    accum: &Path,
) -> Result<String, EnrolError> {
    run(
        "bw",
        Command::new(&tools.bw)
            .arg("-hmmdir")
            .arg(adapt)
            .arg("-moddeffn")
            .arg(adapt.join("mdef"))
            .args(["-ts2cbfn", &params.ts2cb])
            .args(["-feat", &params.feat])
            .args(["-svspec", &params.svspec])
            .args(["-cmn", &params.cmn])
            .args(["-agc", &params.agc])
            .args(["-varnorm", &params.varnorm])
            .arg("-dictfn")
            .arg(work.join("dict"))
            .arg("-fdictfn")
            .arg(adapt.join("noisedict"))
            .arg("-ctlfn")
            .arg(work.join("fileids"))
            .arg("-lsnfn")
            .arg(work.join("transcription"))
            .arg("-cepdir")
            .arg(work)
            .arg("-accumdir")
            .arg(accum),
    )
}

/// Runs a tool; its output (stdout and stderr, where SphinxTrain logs) when it succeeds.
fn run(name: &str, cmd: &mut Command) -> Result<String, EnrolError> {
    let out = cmd.output().map_err(|e| EnrolError::Tool {
        name: name.into(),
        output: e.to_string(),
    })?;
    let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
    text.push_str(&String::from_utf8_lossy(&out.stderr));
    if out.status.success() {
        Ok(text)
    } else {
        let lines: Vec<&str> = text
            .lines()
            .filter(|l| l.contains("ERROR") || l.contains("FATAL"))
            .collect();
        let tail = if lines.is_empty() {
            text.lines().rev().take(3).collect::<Vec<_>>().join(" / ")
        } else {
            lines.join(" / ")
        };
        Err(EnrolError::Tool {
            name: name.into(),
            output: tail,
        })
    }
}

/// From bw's log: the utterances it counted (`utt>` lines) and their frames, without those it
/// could not align with their words (an `ERROR: ... <id> ignored` line, on its stderr).
fn aligned(log: &str) -> (usize, usize) {
    let ignored: Vec<&str> = log
        .lines()
        .filter(|l| l.starts_with("ERROR") && l.trim_end().ends_with(" ignored"))
        .filter_map(|l| l.split_whitespace().rev().nth(1))
        .collect();
    let mut n = 0;
    let mut frames = 0;
    for line in log.lines() {
        // utt> <n> <id> <frames> ...
        let fields: Vec<&str> = line.split_whitespace().collect();
        if fields.first() != Some(&"utt>") || fields.get(2).is_some_and(|id| ignored.contains(id)) {
            continue;
        }
        if let Some(f) = fields.get(3).and_then(|f| f.parse::<usize>().ok()) {
            n += 1;
            frames += f;
        }
    }
    (n, frames)
}

/// The model's feature settings bw must use (its `feat.params`).
struct FeatParams {
    feat: String,
    svspec: String,
    cmn: String,
    agc: String,
    varnorm: String,
    ts2cb: String,
}

impl FeatParams {
    fn read(path: &Path) -> Result<FeatParams, EnrolError> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| EnrolError::Model(format!("cannot read {}: {e}", path.display())))?;
        let get = |key: &str, default: &str| {
            text.lines()
                .filter_map(|l| l.split_once(char::is_whitespace))
                .find(|(k, _)| *k == key)
                .map_or(default.to_owned(), |(_, v)| v.trim().to_owned())
        };
        let ts2cb = match get("-model", "cont").as_str() {
            "ptm" => ".ptm.",
            "semi" => ".semi.",
            _ => ".cont.",
        };
        Ok(FeatParams {
            feat: get("-feat", "1s_c_d_dd"),
            svspec: get("-svspec", ""),
            cmn: get("-cmn", "current"),
            agc: get("-agc", "none"),
            varnorm: get("-varnorm", "no"),
            ts2cb: ts2cb.to_owned(),
        })
        .and_then(|p| {
            if p.svspec.is_empty() && ts2cb == ".ptm." {
                Err(EnrolError::Model(format!(
                    "{} has no -svspec for its PTM model",
                    path.display()
                )))
            } else {
                Ok(p)
            }
        })
    }
}

/// SphinxTrain's `mixture_weights` file (float32, senone × stream × Gaussian) from
/// PocketSphinx's `sendump` (one byte per weight: −log base 1.0001, shifted right by 10 bits,
/// stream × Gaussian × senone), as SphinxTrain's `sendump.py` converts it.
pub fn mixture_weights(sendump: &[u8]) -> Result<Vec<u8>, EnrolError> {
    let bad = |what: &str| EnrolError::Model(format!("the model's sendump: {what}"));
    let mut at = 0usize;
    let int = |at: &mut usize| -> Result<usize, EnrolError> {
        let b = sendump
            .get(*at..*at + 4)
            .ok_or_else(|| bad("it ends early"))?;
        *at += 4;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
    };
    let mut shift = 10u32;
    let mut streams = 1usize;
    // The title, then header strings up to an empty one.
    let mut first = true;
    loop {
        let n = int(&mut at)?;
        if n == 0 {
            if first {
                return Err(bad("no title"));
            }
            break;
        }
        let s = sendump
            .get(at..at + n)
            .ok_or_else(|| bad("a header ends early"))?;
        at += n;
        let s = String::from_utf8_lossy(s);
        let s = s.trim_end_matches('\0');
        let value = |key: &str| {
            s.strip_prefix(key)
                .and_then(|v| v.trim().parse::<usize>().ok())
        };
        if let Some(v) = value("mixw_shift") {
            shift = u32::try_from(v).map_err(|_| bad("mixw_shift"))?;
        }
        if let Some(v) = value("feature_count") {
            streams = v;
        }
        if value("cluster_count").is_some_and(|c| c != 0) {
            return Err(bad("clustered weights are not supported"));
        }
        first = false;
    }
    let gaussians = int(&mut at)?;
    let senones = int(&mut at)?;
    let data = &sendump[at..];
    let count = streams * gaussians * senones;
    if data.len() != count || count == 0 {
        return Err(bad(&format!(
            "{} weights for {streams} streams × {gaussians} Gaussians × {senones} senones",
            data.len()
        )));
    }
    let table: Vec<f32> = (0..256u32)
        .map(|b| 1.0001f64.powf(-f64::from(b << shift)) as f32)
        .collect();
    let mut out = b"s3\nversion 1.0\n".to_vec();
    while !(out.len() + 7).is_multiple_of(4) {
        out.push(b' ');
    }
    out.extend_from_slice(b"endhdr\n");
    out.extend_from_slice(&0x1122_3344u32.to_le_bytes());
    for d in [senones, streams, gaussians, count] {
        let d = u32::try_from(d).map_err(|_| bad("too large"))?;
        out.extend_from_slice(&d.to_le_bytes());
    }
    out.reserve(count * 4);
    for s in 0..senones {
        for f in 0..streams {
            for g in 0..gaussians {
                let b = data[(f * gaussians + g) * senones + s];
                out.extend_from_slice(&table[usize::from(b)].to_le_bytes());
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_models_sendump_becomes_mixture_weights_that_sum_to_one() {
        let model = Model::default();
        let sendump = std::fs::read(model.acoustic.join("sendump")).unwrap();
        let out = mixture_weights(&sendump).unwrap();
        let end = out.windows(7).position(|w| w == b"endhdr\n").unwrap() + 7;
        assert_eq!(end % 4, 0, "the data starts on a 4-byte boundary");
        let word = |i: usize| {
            let b = &out[end + 4 * i..end + 4 * i + 4];
            u32::from_le_bytes([b[0], b[1], b[2], b[3]])
        };
        assert_eq!(word(0), 0x1122_3344);
        let (senones, streams, gaussians) = (word(1) as usize, word(2) as usize, word(3) as usize);
        assert_eq!((senones, streams, gaussians), (5126, 3, 128));
        assert_eq!(word(4) as usize, senones * streams * gaussians);
        assert_eq!(out.len(), end + 20 + 4 * senones * streams * gaussians);
        // Every senone's weights, in every stream, are a distribution (up to the byte's
        // quantisation).
        for s in 0..senones {
            for f in 0..streams {
                let sum: f64 = (0..gaussians)
                    .map(|g| f64::from(f32::from_bits(word(5 + (s * streams + f) * gaussians + g))))
                    .sum();
                assert!((0.9..1.1).contains(&sum), "senone {s} stream {f}: {sum}");
            }
        }
    }

    #[test]
    fn a_broken_sendump_is_an_error() {
        assert!(mixture_weights(b"").is_err());
        let model = Model::default();
        let sendump = std::fs::read(model.acoustic.join("sendump")).unwrap();
        let e = mixture_weights(&sendump[..sendump.len() - 1]).unwrap_err();
        assert!(e.to_string().contains("sendump"), "{e}");
    }

    #[test]
    fn a_missing_tool_names_its_package() {
        let tools = Tools {
            bw: "/nonexistent/bw".into(),
            ..Tools::default()
        };
        let e = enrol(
            &Model::default(),
            &tools,
            &[],
            Path::new("/nonexistent/out"),
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "/nonexistent/bw is missing: install the Debian package sphinxtrain"
        );
    }

    #[test]
    fn phrases_must_be_in_the_vocabulary() {
        let dir = tempfile::tempdir().unwrap();
        let wav = dir.path().join("p.wav");
        std::fs::write(&wav, wav::wav_bytes(&[0; 16000])).unwrap();
        let e = enrol(
            &Model::default(),
            &Tools::default(),
            &[(wav, "confirm the banana".into())],
            &dir.path().join("out"),
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "the phrase 'confirm the banana' has a word the recogniser does not know: 'the'"
        );
        assert!(matches!(
            enrol(
                &Model::default(),
                &Tools::default(),
                &[],
                &dir.path().join("out")
            ),
            Err(EnrolError::NoPhrases)
        ));
    }

    #[test]
    fn every_phrase_is_in_the_vocabulary() {
        for p in PHRASES {
            for w in p.split_whitespace() {
                assert!(PRONUNCIATIONS.iter().any(|(k, _)| *k == w), "{p}: {w}");
            }
        }
    }
}
