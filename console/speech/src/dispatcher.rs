//! The room speaker through speech-dispatcher (the `tts` crate's Linux backend).
//!
//! The connection lives on the speaker's own thread; `say` only queues. speech-dispatcher
//! queues utterances itself, so the thread hands each text over at once and never waits for
//! its end: a headless speech-dispatcher may never report one.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, SyncSender, TrySendError};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use kriegspiel_referee::Lang;
use tts::Tts;

use crate::speaker::{
    dispatcher_rate, dispatcher_volume, queue_full, Speaker, SpeechLog, VoiceSettings, QUEUE_LIMIT,
};

/// The language tags a voice of each language carries in speech-dispatcher's list.
pub const fn language_tag(lang: Lang) -> &'static str {
    match lang {
        Lang::En => "en-GB",
        Lang::Fr => "fr-FR",
        Lang::Ru => "ru",
    }
}

/// Speaks through speech-dispatcher.
#[derive(Debug)]
pub struct TtsSpeaker {
    queue: Option<SyncSender<String>>,
    dropped: u64,
    thread: Option<JoinHandle<()>>,
    done: Receiver<()>,
    /// The voice chosen, for the start-up message.
    pub voice: String,
}

impl TtsSpeaker {
    /// Connects to speech-dispatcher (`SPEECHD_ADDRESS`, else the user's own one) and
    /// chooses a voice of `lang` (or the one named), the rate and the volume.
    pub fn start(
        lang: Lang,
        settings: VoiceSettings,
        log: Option<SpeechLog>,
    ) -> Result<TtsSpeaker, String> {
        let (ready_tx, ready) = mpsc::channel::<Connecting<String>>();
        let (queue, texts) = mpsc::sync_channel::<String>(QUEUE_LIMIT);
        let (done_tx, done) = mpsc::channel();
        let thread = std::thread::spawn(move || {
            // One connection is set up at a time (the voice list, which takes seconds, is
            // fetched once and shared); after one hung, none is tried again.
            let Some(one) = connecting(&ready_tx) else {
                return;
            };
            let connected = connect(lang, &settings);
            drop(one);
            let mut tts = match connected {
                Ok((tts, voice)) => {
                    let _ = ready_tx.send(Connecting::Done(Ok(voice)));
                    tts
                }
                Err(e) => {
                    let _ = ready_tx.send(Connecting::Done(Err(e)));
                    return;
                }
            };
            // speech-dispatcher reports each utterance's end (or its cancellation). Between
            // two utterances nothing is speaking, so "is it speaking" would say done while
            // the queue still holds words, and a program exiting then loses them.
            let ended = Arc::new(AtomicU64::new(0));
            let counter = || -> Box<dyn FnMut(tts::UtteranceId)> {
                let ended = ended.clone();
                Box::new(move |_| {
                    ended.fetch_add(1, Ordering::SeqCst);
                })
            };
            let _ = tts.on_utterance_end(Some(counter()));
            let _ = tts.on_utterance_stop(Some(counter()));
            let mut queued = 0u64;
            for text in texts {
                if let Some(log) = &log {
                    log.write(&text);
                }
                match tts.speak(text, false) {
                    Ok(_) => queued += 1,
                    Err(e) => eprintln!("kriegspiel: speech-dispatcher: {e}"),
                }
            }
            // Every utterance handed over has ended; a headless speech-dispatcher may never
            // report an end, so the caller's `finish` limit decides.
            while ended.load(Ordering::SeqCst) < queued {
                std::thread::sleep(Duration::from_millis(50));
            }
            let _ = done_tx.send(());
        });
        let result = wait_connected(&ready);
        result.map(|voice| TtsSpeaker {
            queue: Some(queue),
            dropped: 0,
            thread: Some(thread),
            done,
            voice,
        })
    }
}

/// How long one connection may take (connect, list the voices, set them). Listing espeak-ng's
/// 13 000 voices takes about 2 s on an idle 2-core machine and over 5 s on a loaded one (the
/// old limit, hit in CI); a laptop's first start of speech-dispatcher also starts its module.
/// A false "not answering" leaves a blind player without speech for the evening, so the limit
/// is generous: a hung speech-dispatcher costs one wait at start, once for all the tables.
pub const CONNECT_LIMIT: Duration = Duration::from_secs(15);

fn hung_message() -> String {
    format!(
        "speech-dispatcher did not answer within {} s",
        CONNECT_LIMIT.as_secs()
    )
}

/// Whether speech-dispatcher answers (`SPEECHD_ADDRESS`, else the user's own one): one
/// connection that lists its voices (kept for every speaker's connection after it), waited
/// for at most [`CONNECT_LIMIT`]. Its number of voices, or why not. Asked once for all the
/// tables of a hall ([`crate::setup::probe`]), so that a speech-dispatcher that is absent
/// or hung costs the start one try, not one per table.
pub fn probe() -> Result<usize, String> {
    let (ready_tx, ready) = mpsc::channel::<Connecting<usize>>();
    std::thread::spawn(move || {
        let Some(one) = connecting(&ready_tx) else {
            return;
        };
        let listed = Tts::new(tts::Backends::SpeechDispatcher)
            .map_err(|e| format!("cannot reach speech-dispatcher: {e}"))
            .and_then(|tts| voices(&tts))
            .map(|v| v.len());
        drop(one);
        let _ = ready_tx.send(Connecting::Done(listed));
    });
    wait_connected(&ready)
}

/// Takes the turn to connect (one connection at a time) and says so on `ready`; `None`
/// (and the hung message sent) once a connection has hung.
fn connecting<T>(
    ready: &mpsc::Sender<Connecting<T>>,
) -> Option<std::sync::MutexGuard<'static, ()>> {
    let one = CONNECTING
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if HUNG.load(Ordering::SeqCst) {
        let _ = ready.send(Connecting::Done(Err(hung_message())));
        return None;
    }
    let _ = ready.send(Connecting::Started);
    Some(one)
}

/// The connection's outcome. Waiting for another connection is not this one's time; a
/// connection of its own gets [`CONNECT_LIMIT`], after which every connection still
/// waiting gives up at once.
fn wait_connected<T>(ready: &Receiver<Connecting<T>>) -> Result<T, String> {
    let mut deadline: Option<Instant> = None;
    loop {
        match ready.recv_timeout(Duration::from_millis(50)) {
            Ok(Connecting::Started) => deadline = Some(Instant::now() + CONNECT_LIMIT),
            Ok(Connecting::Done(r)) => break r,
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                break Err("speech-dispatcher's connection thread ended".to_owned())
            }
            Err(mpsc::RecvTimeoutError::Timeout) => match deadline {
                Some(d) if Instant::now() >= d => {
                    HUNG.store(true, Ordering::SeqCst);
                    break Err(hung_message());
                }
                None if HUNG.load(Ordering::SeqCst) => break Err(hung_message()),
                _ => {}
            },
        }
    }
}

enum Connecting<T> {
    /// This connection is being set up now.
    Started,
    Done(Result<T, String>),
}

/// Held while a connection is set up, so that the voice list is fetched once
/// ([`VOICES`]) and a hung speech-dispatcher holds one thread, not one per table.
static CONNECTING: std::sync::Mutex<()> = std::sync::Mutex::new(());
/// Set once a connection did not answer within [`CONNECT_LIMIT`].
static HUNG: AtomicBool = AtomicBool::new(false);
/// speech-dispatcher's voices, listed by the first connection (13 000 with espeak-ng's
/// variants: seconds).
static VOICES: std::sync::Mutex<Option<Vec<tts::Voice>>> = std::sync::Mutex::new(None);

/// speech-dispatcher's voices: listed by the first connection, kept for the others.
fn voices(tts: &Tts) -> Result<Vec<tts::Voice>, String> {
    let mut cached = VOICES
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    match cached.as_ref() {
        Some(v) => Ok(v.clone()),
        None => {
            let v = tts
                .voices()
                .map_err(|e| format!("speech-dispatcher lists no voices: {e}"))?;
            *cached = Some(v.clone());
            Ok(v)
        }
    }
}

fn connect(lang: Lang, settings: &VoiceSettings) -> Result<(Tts, String), String> {
    let mut tts = Tts::new(tts::Backends::SpeechDispatcher)
        .map_err(|e| format!("cannot reach speech-dispatcher: {e}"))?;
    let voices = voices(&tts)?;
    let tag = language_tag(lang);
    let chosen = match &settings.voice {
        Some(name) => voices
            .iter()
            .find(|v| v.name() == *name || v.id() == *name)
            .ok_or_else(|| format!("speech-dispatcher has no voice named '{name}'"))?,
        None => voices
            .iter()
            .find(|v| v.language().as_str().eq_ignore_ascii_case(tag))
            .or_else(|| {
                voices.iter().find(|v| {
                    v.language()
                        .primary_language()
                        .eq_ignore_ascii_case(&tag[..2])
                })
            })
            .ok_or_else(|| format!("speech-dispatcher has no voice for {tag}"))?,
    };
    tts.set_voice(chosen)
        .map_err(|e| format!("speech-dispatcher refused the voice {}: {e}", chosen.name()))?;
    if let Some(rate) = settings.rate {
        tts.set_rate(dispatcher_rate(rate) as f32)
            .map_err(|e| format!("speech-dispatcher refused the rate: {e}"))?;
    }
    if let Some(volume) = settings.volume {
        tts.set_volume(dispatcher_volume(volume) as f32)
            .map_err(|e| format!("speech-dispatcher refused the volume: {e}"))?;
    }
    Ok((tts, format!("{} ({})", chosen.name(), chosen.language())))
}

impl Speaker for TtsSpeaker {
    fn say(&mut self, text: &str) {
        if let Some(q) = &self.queue {
            // A hung speech-dispatcher holds only this speaker's thread; once its queue is
            // full, new words are dropped (and counted), never waited for.
            if let Err(TrySendError::Full(_)) = q.try_send(text.to_owned()) {
                self.dropped += 1;
                queue_full(&mut self.dropped);
            }
        }
    }

    fn close(&mut self) {
        self.queue = None;
    }

    fn finish(&mut self, limit: Duration) {
        self.queue = None;
        let deadline = Instant::now() + limit;
        if self
            .done
            .recv_timeout(deadline.saturating_duration_since(Instant::now()))
            .is_ok()
        {
            if let Some(t) = self.thread.take() {
                let _ = t.join();
            }
        }
    }
}

impl Drop for TtsSpeaker {
    fn drop(&mut self) {
        self.queue = None;
    }
}
