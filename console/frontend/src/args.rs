//! The table options of the command line (`GameArgs`) and the speech options of the command
//! line and of a round file's tables (`SpeechArgs`), the same in every program that plays.

use std::path::PathBuf;

use bounded_lines::excerpt;
use kriegspiel_hall::TableSetup;
use kriegspiel_speech::{AudioKey, AudioOptions, PublicTo};
use serde::Deserialize;

/// The game options every command that plays takes.
#[derive(Debug, Clone, clap::Args)]
pub struct GameArgs {
    /// Rule set: cincinnati, wild16, traditional, rand, berkeley, berkeley-any, russian.
    #[arg(long)]
    pub rules: Option<String>,
    /// Language of the announcements: en, fr, ru.
    #[arg(long)]
    pub lang: Option<String>,
    /// A rule-set option as KEY=VALUE (ladder, strict, rand-try-squares, notation); repeatable.
    #[arg(long = "option", value_name = "KEY=VALUE")]
    pub options: Vec<String>,
    /// How long a board must stay still before a try is complete (100 to 1500 ms).
    #[arg(long, value_parser = ms_in(&kriegspiel_table::SETTLE_RANGE))]
    pub settle_ms: Option<u32>,
    /// How long a board may stay out of sync before its player is guided (100 to 600000 ms).
    #[arg(long, value_parser = ms_in(&kriegspiel_table::GUIDE_RANGE))]
    pub guide_ms: Option<u32>,
    /// Touch-move: strict, warn or off.
    #[arg(long)]
    pub touch_move: Option<String>,
    /// Start position (russian: the two set-ups); default the standard one.
    #[arg(long)]
    pub fen: Option<String>,
    /// Time control MINUTES+SECONDS (e.g. 25+10), or none.
    #[arg(long)]
    pub clock: Option<String>,
    /// When the clocks start: arbiter (his `start` command or the window's button; the
    /// default), boards (when both boards are connected and in sync), at-once.
    #[arg(long, value_name = "WHEN")]
    pub clock_start: Option<String>,
}

impl GameArgs {
    /// The set-up with these options laid over `base`.
    pub fn apply(&self, mut setup: TableSetup) -> Result<TableSetup, String> {
        if let Some(r) = &self.rules {
            setup.rules.clone_from(r);
        }
        if let Some(l) = &self.lang {
            setup.lang.clone_from(l);
        }
        for pair in &self.options {
            let (k, v) = pair
                .split_once('=')
                .ok_or_else(|| format!("bad option '{}': expected KEY=VALUE", excerpt(pair)))?;
            setup.options.insert(k.to_owned(), v.to_owned());
        }
        if let Some(ms) = self.settle_ms {
            setup.settle_ms = ms;
        }
        if let Some(ms) = self.guide_ms {
            setup.guide_ms = ms;
        }
        if let Some(t) = &self.touch_move {
            setup.touch_move.clone_from(t);
        }
        if let Some(f) = &self.fen {
            setup.fen = Some(f.clone());
        }
        if let Some(c) = &self.clock {
            setup.time_control.clone_from(c);
        }
        if let Some(c) = &self.clock_start {
            setup.clock_start.clone_from(c);
        }
        // Refuse a bad set-up now, naming the option.
        setup.config().map_err(|e| {
            let option = match e.field {
                "time_control" => "--clock".to_owned(),
                "options" => "--option".to_owned(),
                f => format!("--{}", f.replace('_', "-")),
            };
            format!("{option}: {}", e.message)
        })?;
        Ok(setup)
    }
}

/// The audio options of every command that speaks, and of each `[[table]]` of a round file
/// (the same names, `--white-audio` there is `white_audio` here): one struct read by clap
/// from the command line and by serde from the round file, turned into
/// [`AudioOptions`] by one function and checked by one ([`AudioOptions::check`], then
/// [`kriegspiel_speech::setup::build`] opens each device).
#[derive(Debug, Clone, Default, clap::Args, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SpeechArgs {
    /// Do not speak at all.
    #[arg(long)]
    pub no_speech: bool,
    /// Record each public announcement, as spoken, into DIR/0001.wav, DIR/0002.wav, ...
    /// (with DIR/transcript.tsv) instead of playing it. Needs espeak-ng.
    #[arg(long, value_name = "DIR", conflicts_with = "no_speech")]
    pub speech_wav: Option<PathBuf>,
    /// The room speaker's device: an ALSA PCM name, or pulse:SINK (default: speech-dispatcher,
    /// else espeak-ng on the default output).
    #[arg(long, value_name = "DEVICE")]
    pub public_audio: Option<String>,
    /// White's headset (ALSA PCM, or pulse:SINK): his private messages, and public
    /// announcements with --public-to headsets|both.
    #[arg(long, value_name = "DEVICE")]
    pub white_audio: Option<String>,
    /// Black's headset (ALSA PCM, or pulse:SINK).
    #[arg(long, value_name = "DEVICE")]
    pub black_audio: Option<String>,
    /// Where public announcements go: room, headsets or both.
    #[arg(long, value_name = "WHERE", default_value = "room")]
    #[serde(deserialize_with = "public_to")]
    pub public_to: PublicTo,
    /// The voice (a speech-dispatcher voice name, or an espeak-ng voice); default: one of
    /// the table's language.
    #[arg(long)]
    pub voice: Option<String>,
    /// Speech rate in words per minute (80 to 450; normal 175).
    #[arg(long)]
    pub rate: Option<u32>,
    /// Volume in per cent of normal (0 to 200).
    #[arg(long)]
    pub volume: Option<u32>,
    /// Append one line per utterance sent to an output (public, white, black; a tab; the
    /// words) to FILE.
    #[arg(long, value_name = "FILE")]
    pub speech_log: Option<PathBuf>,
    /// Never use speech-dispatcher: the room speaker is the espeak-ng program.
    #[arg(long)]
    pub no_speech_dispatcher: bool,
}

/// `public_to` in a round file: the words of `--public-to`.
fn public_to<'de, D: serde::Deserializer<'de>>(d: D) -> Result<PublicTo, D::Error> {
    let text = String::deserialize(d)?;
    text.parse().map_err(serde::de::Error::custom)
}

impl SpeechArgs {
    /// The audio options these settings ask for (checked by [`AudioOptions::check`]).
    pub fn options(&self) -> AudioOptions {
        AudioOptions {
            off: self.no_speech,
            wav: self.speech_wav.clone(),
            public_device: self.public_audio.clone(),
            white_device: self.white_audio.clone(),
            black_device: self.black_audio.clone(),
            public_to: self.public_to,
            voice: kriegspiel_speech::speaker::VoiceSettings {
                voice: self.voice.clone(),
                rate: self.rate,
                volume: self.volume,
            },
            log: self.speech_log.clone(),
            no_dispatcher: self.no_speech_dispatcher,
        }
    }

    /// Reads the audio keys ([`AudioKey`]) out of one `[[table]]` of a round file, leaving
    /// the others; an error names the key (`white_audio: ...`).
    pub fn from_round_table(table: &mut toml::Table) -> Result<SpeechArgs, String> {
        let mut audio = toml::Table::new();
        for key in AudioKey::ALL {
            if let Some(v) = table.remove(key.key()) {
                // One key at a time, so that a bad value is named by its key.
                let mut one = toml::Table::new();
                one.insert(key.key().to_owned(), v.clone());
                SpeechArgs::deserialize(toml::Value::Table(one))
                    .map_err(|e| format!("{}: {}", key.key(), e.message().replace('\n', " ")))?;
                audio.insert(key.key().to_owned(), v);
            }
        }
        let args = SpeechArgs::deserialize(toml::Value::Table(audio))
            .map_err(|e| e.message().replace('\n', " "))?;
        args.options().check().map_err(|e| e.in_round_file())?;
        Ok(args)
    }
}

/// Where the networked boards (`board:N`) meet this console: the same options in every
/// program that plays; a round file's `[broker]` gives the same.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct BrokerArgs {
    /// MQTT broker of the networked boards: mqtt://HOST:PORT, or mqtts://HOST:PORT with
    /// --ca-file (see docs/NETWORK.md). Overrides the round file's [broker] url.
    #[arg(long, value_name = "URL")]
    pub broker: Option<kriegspiel_net::BrokerUrl>,
    /// This console's user name on the broker.
    #[arg(long, requires = "broker")]
    pub username: Option<String>,
    /// File holding this console's broker password.
    #[arg(long, requires = "username", value_name = "FILE")]
    pub password_file: Option<PathBuf>,
    /// The round's CA certificate, for mqtts://.
    #[arg(long, requires = "broker", value_name = "FILE")]
    pub ca_file: Option<PathBuf>,
    /// This console's name among the round's consoles: with a round file it runs only the
    /// tables whose `console` is NAME (`main`: those that name none).
    #[arg(long, value_name = "NAME", default_value = "main")]
    pub console: String,
}

impl BrokerArgs {
    /// The hall's broker: the command line's, else the round file's, else none. A round
    /// file's `[broker]` without a user name makes this console `console-NAME`, with the
    /// password `kriegspiel broker-config` gave it, from the round's secret (when the
    /// secret is beside the round file).
    pub fn network(
        &self,
        from_round: Option<kriegspiel_net::Broker>,
        round: Option<&std::path::Path>,
    ) -> Option<OnBroker> {
        let secret = round
            .map(crate::credentials::secret_path)
            .filter(|s| s.exists())
            .and_then(|s| crate::credentials::RoundSecret::read(&s).ok());
        let broker = match &self.broker {
            Some(url) => Some(kriegspiel_net::Broker {
                url: url.clone(),
                username: self.username.clone(),
                password_file: self.password_file.clone(),
                password: None,
                ca_file: self.ca_file.clone(),
            }),
            None => from_round.map(|mut b| {
                if let (None, None, Some(secret)) = (&b.username, &b.password_file, &secret) {
                    let user = format!("console-{}", self.console);
                    b.password = Some(kriegspiel_net::Password(secret.password(&user)));
                    b.username = Some(user);
                }
                b
            }),
        }?;
        Some(OnBroker {
            hall: kriegspiel_hall::NetworkSpec {
                broker,
                console: self.console.clone(),
            },
            round_secret: secret.map(std::sync::Arc::new),
        })
    }
}

/// A console on a broker: its hall's (the networked boards) and its players' seats.
#[derive(Debug, Clone)]
pub struct OnBroker {
    pub hall: kriegspiel_hall::NetworkSpec,
    /// The round's secret, when the console runs a round that has one: a player's seat file
    /// then proves his seat, on the broker and on the local socket alike.
    pub round_secret: Option<std::sync::Arc<crate::credentials::RoundSecret>>,
}

/// Why these tables cannot run on this broker setting: one has a networked board and
/// `network` is none, or the broker's password or CA file cannot be used (a console would
/// otherwise run a table whose boards never connect). Said before any game is begun in the
/// journal.
pub fn broker_unusable<'a>(
    network: Option<&OnBroker>,
    mut specs: impl Iterator<Item = &'a kriegspiel_hall::TableSpec>,
) -> Option<String> {
    if let Some(on) = network {
        if let Err(e) = on.hall.broker.options(&on.hall.console) {
            return Some(format!("the broker: {e}"));
        }
        return None;
    }
    let table = specs.find(|s| s.has_networked_board())?.name.clone();
    Some(kriegspiel_hall::HallError::NoBroker { table }.to_string())
}

/// A number of milliseconds in the table's own range, refused on the command line with that
/// range (a value past u32 was refused as "not in 0..=4294967295").
fn ms_in(range: &std::ops::RangeInclusive<u32>) -> clap::builder::RangedI64ValueParser<u32> {
    clap::value_parser!(u32).range(i64::from(*range.start())..=i64::from(*range.end()))
}
