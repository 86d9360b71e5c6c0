//! One referee session: the running game, the command line's defaults, and the answer to
//! each command line (`new`, `try`, `ask`).

use bounded_lines::excerpt;
use serde_json::Value;

use super::command::{parse_command, Command, Field};
use super::{Answer, LineError};
use crate::announce::{Question, Try};
use crate::referee::{GameConfig, Referee};
use crate::rules::{Lang, OptionValue, Options, RuleSet};
use crate::wording::Wording;
use crate::Error;

/// The command line's choices, which `new` falls back to.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Defaults {
    pub rules: RuleSet,
    pub fen: Option<String>,
    pub lang: Lang,
    /// Raw `KEY=VALUE` options, checked against whichever rule set a game uses.
    pub options: Vec<(String, String)>,
}

impl Defaults {
    /// The options of the command line, checked for `rules`.
    pub fn options_for(&self, rules: RuleSet) -> Result<Options, Error> {
        let mut options = Options::default();
        for (k, v) in &self.options {
            options.set(rules, k, OptionValue::Text(v))?;
        }
        Ok(options)
    }

    /// The game the command line describes.
    pub fn config(&self) -> Result<GameConfig, Error> {
        Ok(GameConfig {
            rules: self.rules,
            options: self.options_for(self.rules)?,
            fen: self.fen.clone(),
        })
    }
}

/// One referee session: the running game and the command-line defaults.
#[derive(Debug, Clone)]
pub struct Session {
    defaults: Defaults,
    referee: Referee,
    wording: Wording,
}

impl Session {
    /// Starts the command line's game (an error here is a bad command line).
    pub fn new(defaults: Defaults) -> Result<Session, Error> {
        let config = defaults.config()?;
        let referee = Referee::new(&config)?;
        let wording = Wording::new(config.rules, config.options, defaults.lang);
        Ok(Session {
            defaults,
            referee,
            wording,
        })
    }

    pub fn referee(&self) -> &Referee {
        &self.referee
    }

    pub fn wording(&self) -> &Wording {
        &self.wording
    }

    /// Answers one line as the bounded reader delivered it: a line of text, or the reason it
    /// could not be used (too long: `line-too-long`; not UTF-8: `bad-json`).
    pub fn answer_input(&mut self, line: Result<&str, bounded_lines::LineError>) -> Answer {
        match line {
            Ok(text) => self.answer(text),
            Err(e) => Answer::Error(LineError::from_input(&e)),
        }
    }

    /// Answers one line of text (without its newline).
    pub fn answer(&mut self, line: &str) -> Answer {
        match self.dispatch(line) {
            Ok(a) => a,
            Err(e) => Answer::Error(e),
        }
    }

    /// Answers one input line (raw bytes, without its newline) as a JSON value.
    pub fn handle_line(&mut self, line: &[u8]) -> Value {
        let answer = match std::str::from_utf8(line) {
            Ok(text) => self.answer(text),
            Err(e) => Answer::Error(LineError::from_input(&bounded_lines::LineError::NotUtf8 {
                valid_up_to: e.valid_up_to(),
            })),
        };
        answer.to_value()
    }

    fn dispatch(&mut self, text: &str) -> Result<Answer, LineError> {
        if text.trim().is_empty() {
            return Err(LineError::new("bad-json", "empty line"));
        }
        let command = parse_command(text)?;
        let cmd = match &command.cmd {
            Some(Field::Str(s)) => s.as_ref(),
            Some(_) => return Err(LineError::new("unknown-command", "'cmd' must be a string")),
            None => return Err(LineError::new("unknown-command", "missing 'cmd'")),
        };
        match cmd {
            "new" => self.new_game(&command),
            "try" => {
                let t = match &command.mv {
                    Some(Field::Str(m)) => Try::from_uci(m)?,
                    Some(_) => return Err(LineError::new("bad-move", "'move' must be a string")),
                    None => return Err(LineError::new("bad-move", "missing 'move'")),
                };
                let verdict = self.referee.try_move(t)?;
                Ok(Answer::verdict(self.wording, &verdict))
            }
            "ask" => {
                let q: Question = match &command.what {
                    Some(Field::Str(what)) => what
                        .parse()
                        .map_err(|e| LineError::new("unknown-command", format!("{e}")))?,
                    _ => {
                        return Err(LineError::new(
                            "unknown-command",
                            "'ask' needs 'what': \"any\" or \"rebuffs\"",
                        ))
                    }
                };
                let reply = self.referee.ask(q)?;
                Ok(Answer::Reply {
                    wording: self.wording,
                    reply,
                    to_move: self.referee.turn(),
                })
            }
            other => Err(LineError::new(
                "unknown-command",
                format!("unknown command '{}' (new, try, ask)", excerpt(other)),
            )),
        }
    }

    /// `new`: checks in the protocol's precedence, and replaces the game only on success.
    fn new_game(&mut self, command: &Command<'_>) -> Result<Answer, LineError> {
        let rules = match &command.rules {
            None | Some(Field::Null) => self.defaults.rules,
            Some(Field::Str(s)) => s.parse::<RuleSet>()?,
            Some(Field::Other(other)) => return Err(Error::UnknownRules(other.to_string()).into()),
        };
        let options = match &command.options {
            None | Some(Field::Null) => self.defaults.options_for(rules)?,
            Some(Field::Other(Value::Object(map))) => {
                let mut options = Options::default();
                for (k, v) in map {
                    let value = match v {
                        Value::Bool(b) => OptionValue::Bool(*b),
                        Value::String(s) => OptionValue::Text(s),
                        other => {
                            return Err(Error::BadOption(format!(
                                "option '{}' has a value of the wrong type: {}",
                                excerpt(k),
                                excerpt(&other.to_string())
                            ))
                            .into())
                        }
                    };
                    options.set(rules, k, value)?;
                }
                options
            }
            Some(other) => {
                return Err(Error::BadOption(format!(
                    "'options' must be an object, not {}",
                    excerpt(&other.to_string())
                ))
                .into())
            }
        };
        let lang = match &command.lang {
            None | Some(Field::Null) => self.defaults.lang,
            Some(Field::Str(s)) => s.parse::<Lang>()?,
            Some(Field::Other(other)) => return Err(Error::BadLang(other.to_string()).into()),
        };
        let fen = match &command.fen {
            None | Some(Field::Null) => self.defaults.fen.clone(),
            Some(Field::Str(s)) => Some(s.clone().into_owned()),
            Some(Field::Other(other)) => {
                return Err(Error::BadFen(format!(
                    "'fen' must be a string, not {}",
                    excerpt(&other.to_string())
                ))
                .into())
            }
        };
        let referee = Referee::new(&GameConfig {
            rules,
            options,
            fen,
        })?;
        self.wording = Wording::new(rules, options, lang);
        self.referee = referee;
        Ok(Answer::Report {
            wording: self.wording,
            report: *self.referee.last_report(),
        })
    }
}
