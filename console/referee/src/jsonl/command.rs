//! Reading a command line: straight from the text into the few keys a command uses, strings
//! borrowed where they have no escapes. A key given twice, at any depth, is `bad-json`.

use std::borrow::Cow;
use std::fmt;

use bounded_lines::excerpt;
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

use super::LineError;

/// The value of one key a command reads.
#[derive(Debug)]
pub(super) enum Field<'a> {
    Str(Cow<'a, str>),
    Null,
    /// Anything else, kept for the error message (or, for `options`, the object).
    Other(Value),
}

impl fmt::Display for Field<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Field::Str(s) => write!(f, "{}", Value::String(s.as_ref().to_owned())),
            Field::Null => f.write_str("null"),
            Field::Other(v) => write!(f, "{v}"),
        }
    }
}

/// The keys of a command line; all others are read (for duplicates) and ignored.
#[derive(Debug, Default)]
pub(super) struct Command<'a> {
    pub(super) cmd: Option<Field<'a>>,
    pub(super) mv: Option<Field<'a>>,
    pub(super) what: Option<Field<'a>>,
    pub(super) rules: Option<Field<'a>>,
    pub(super) lang: Option<Field<'a>>,
    pub(super) fen: Option<Field<'a>>,
    pub(super) options: Option<Field<'a>>,
}

pub(super) fn parse_command(text: &str) -> Result<Command<'_>, LineError> {
    let mut de = serde_json::Deserializer::from_str(text);
    let parsed = de
        .deserialize_any(TopVisitor)
        .and_then(|p| de.end().map(|()| p))
        .map_err(|e| {
            let message = match e.classify() {
                // Our own rulings (a duplicate key) are not syntax errors.
                serde_json::error::Category::Data => e.to_string(),
                _ => format!("not JSON: {e}"),
            };
            LineError::new("bad-json", message)
        })?;
    parsed.ok_or_else(|| LineError::new("bad-json", "a command must be a JSON object"))
}

fn duplicate<E: de::Error>(key: &str) -> E {
    E::custom(format_args!("duplicate key '{}'", excerpt(key)))
}

/// Accepts any JSON value; only an object becomes a command (`None`: something else).
struct TopVisitor;

impl<'de> Visitor<'de> for TopVisitor {
    type Value = Option<Command<'de>>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Option<Command<'de>>, A::Error> {
        let mut c = Command::default();
        let mut others: Vec<Cow<'de, str>> = Vec::new();
        while let Some(key) = map.next_key_seed(KeySeed)? {
            let slot = match key.as_ref() {
                "cmd" => &mut c.cmd,
                "move" => &mut c.mv,
                "what" => &mut c.what,
                "rules" => &mut c.rules,
                "lang" => &mut c.lang,
                "fen" => &mut c.fen,
                "options" => &mut c.options,
                _ => {
                    if others.contains(&key) {
                        return Err(duplicate(&key));
                    }
                    map.next_value_seed(StrictValue)?;
                    others.push(key);
                    continue;
                }
            };
            if slot.is_some() {
                return Err(duplicate(&key));
            }
            *slot = Some(map.next_value_seed(FieldSeed)?);
        }
        Ok(Some(c))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Option<Command<'de>>, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(None)
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Option<Command<'de>>, E> {
        Ok(None)
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Option<Command<'de>>, E> {
        Ok(None)
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Option<Command<'de>>, E> {
        Ok(None)
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Option<Command<'de>>, E> {
        Ok(None)
    }

    fn visit_str<E: de::Error>(self, _: &str) -> Result<Option<Command<'de>>, E> {
        Ok(None)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Option<Command<'de>>, E> {
        Ok(None)
    }
}

/// An object key, borrowed from the line when it has no escapes.
struct KeySeed;

impl<'de> DeserializeSeed<'de> for KeySeed {
    type Value = Cow<'de, str>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Cow<'de, str>, D::Error> {
        d.deserialize_str(KeySeed)
    }
}

impl<'de> Visitor<'de> for KeySeed {
    type Value = Cow<'de, str>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string")
    }

    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Cow<'de, str>, E> {
        Ok(Cow::Borrowed(v))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Cow<'de, str>, E> {
        Ok(Cow::Owned(v.to_owned()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Cow<'de, str>, E> {
        Ok(Cow::Owned(v))
    }
}

/// The value of a key a command reads.
struct FieldSeed;

impl<'de> DeserializeSeed<'de> for FieldSeed {
    type Value = Field<'de>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Field<'de>, D::Error> {
        d.deserialize_any(FieldSeed)
    }
}

impl<'de> Visitor<'de> for FieldSeed {
    type Value = Field<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Field<'de>, E> {
        Ok(Field::Str(Cow::Borrowed(v)))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Field<'de>, E> {
        Ok(Field::Str(Cow::Owned(v.to_owned())))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Field<'de>, E> {
        Ok(Field::Str(Cow::Owned(v)))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Field<'de>, E> {
        Ok(Field::Null)
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Field<'de>, E> {
        Ok(Field::Other(Value::Bool(v)))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Field<'de>, E> {
        StrictValue.visit_i64(v).map(Field::Other)
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Field<'de>, E> {
        StrictValue.visit_u64(v).map(Field::Other)
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Field<'de>, E> {
        StrictValue.visit_f64(v).map(Field::Other)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Field<'de>, A::Error> {
        StrictValue.visit_seq(seq).map(Field::Other)
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Field<'de>, A::Error> {
        StrictValue.visit_map(map).map(Field::Other)
    }
}

/// Any JSON value, refusing a key given twice in any object.
struct StrictValue;

impl<'de> DeserializeSeed<'de> for StrictValue {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(StrictValue)
    }
}

impl<'de> Visitor<'de> for StrictValue {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        Ok(serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(v) = seq.next_element_seed(StrictValue)? {
            items.push(v);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(key) = map.next_key_seed(KeySeed)? {
            if out.contains_key(key.as_ref()) {
                return Err(duplicate(&key));
            }
            let value = map.next_value_seed(StrictValue)?;
            out.insert(key.into_owned(), value);
        }
        Ok(Value::Object(out))
    }
}
