//! The text-to-speech programs the console runs (espeak-ng, else spd-say) and their
//! arguments.

use std::path::Path;

use kriegspiel_referee::Lang;

use super::settings::{dispatcher_rate, dispatcher_volume, VoiceSettings};

/// The espeak-ng voice of a language.
pub const fn espeak_voice(lang: Lang) -> &'static str {
    match lang {
        Lang::En => "en-gb",
        Lang::Fr => "fr",
        Lang::Ru => "ru",
    }
}

/// The text-to-speech programs the console knows, in order of preference.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Engine {
    EspeakNg,
    SpdSay,
}

impl Engine {
    pub const fn program(self) -> &'static str {
        match self {
            Engine::EspeakNg => "espeak-ng",
            Engine::SpdSay => "spd-say",
        }
    }

    /// The arguments that speak `text` with a voice of the table's language, into the WAV
    /// file `wav` when one is given (espeak-ng only).
    pub fn args(self, lang: Lang, text: &str, wav: Option<&Path>) -> Vec<String> {
        self.args_with(lang, &VoiceSettings::default(), text, wav.map(Out::File))
    }

    pub(super) fn args_with(
        self,
        lang: Lang,
        v: &VoiceSettings,
        text: &str,
        out: Option<Out>,
    ) -> Vec<String> {
        match self {
            Engine::EspeakNg => {
                let voice = v.voice.as_deref().unwrap_or(espeak_voice(lang));
                let mut args: Vec<String> = vec!["-v".into(), voice.into()];
                if let Some(rate) = v.rate {
                    args.extend(["-s".into(), rate.to_string()]);
                }
                if let Some(volume) = v.volume {
                    args.extend(["-a".into(), volume.to_string()]);
                }
                match out {
                    Some(Out::File(wav)) => {
                        args.push("-w".into());
                        args.push(wav.to_string_lossy().into_owned());
                    }
                    Some(Out::Stdout) => args.push("--stdout".into()),
                    None => {}
                }
                args.push("--".into());
                args.push(text.into());
                args
            }
            Engine::SpdSay => {
                let language = match lang {
                    Lang::En => "en",
                    Lang::Fr => "fr",
                    Lang::Ru => "ru",
                };
                // -w: wait until spoken, so utterances never overlap.
                let mut args: Vec<String> = vec!["-w".into(), "-l".into(), language.into()];
                if let Some(rate) = v.rate {
                    args.extend(["-r".into(), dispatcher_rate(rate).to_string()]);
                }
                if let Some(volume) = v.volume {
                    args.extend(["-i".into(), dispatcher_volume(volume).to_string()]);
                }
                args.extend(["--".into(), text.into()]);
                args
            }
        }
    }
}

/// Where espeak-ng puts its audio instead of the default output.
pub(super) enum Out<'a> {
    File(&'a Path),
    Stdout,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::speaker::Sink;

    #[test]
    fn voices_follow_the_language_and_the_settings() {
        assert_eq!(
            Engine::EspeakNg.args(Lang::Fr, "Non.", None),
            ["-v", "fr", "--", "Non."]
        );
        assert_eq!(Engine::EspeakNg.args(Lang::En, "x", None)[1], "en-gb");
        assert_eq!(Engine::EspeakNg.args(Lang::Ru, "x", None)[1], "ru");
        assert_eq!(
            Engine::EspeakNg.args(Lang::En, "x", Some(Path::new("/r/0001.wav"))),
            ["-v", "en-gb", "-w", "/r/0001.wav", "--", "x"]
        );
        assert_eq!(
            Engine::SpdSay.args(Lang::Ru, "x", None),
            ["-w", "-l", "ru", "--", "x"]
        );
        let v = VoiceSettings {
            voice: Some("en-us".into()),
            rate: Some(200),
            volume: Some(50),
        };
        assert_eq!(
            Engine::EspeakNg.args_with(Lang::En, &v, "x", Some(Out::Stdout)),
            ["-v", "en-us", "-s", "200", "-a", "50", "--stdout", "--", "x"]
        );
        assert_eq!(dispatcher_rate(175), 0);
        assert_eq!(dispatcher_rate(80), -100);
        assert_eq!(dispatcher_rate(450), 100);
        assert_eq!(dispatcher_volume(100), 100);
        assert_eq!(dispatcher_volume(0), -100);
        assert_eq!(Sink::parse("pulse:headset"), Sink::Pulse("headset".into()));
        assert_eq!(Sink::parse("alsa:white"), Sink::Alsa("white".into()));
        assert_eq!(Sink::parse("plughw:1,0"), Sink::Alsa("plughw:1,0".into()));
    }
}
