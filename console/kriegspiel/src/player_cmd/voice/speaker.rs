//! The terminal's own speech (`--speak`): espeak-ng through aplay, one line at a time, never
//! while he is being listened to.

use std::collections::VecDeque;
use std::io::Write;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use kriegspiel_voice::wav;

use super::{ms_since, SpeakTo, MAX_SPEECH_MS, PROGRAM};

/// The speaking half: one line at a time, never while he is being listened to.
#[derive(Debug, Default)]
struct SpeechState {
    queue: VecDeque<String>,
    speaking: bool,
    listening: bool,
    closed: bool,
}

pub(super) struct Speaker {
    state: Arc<(Mutex<SpeechState>, Condvar)>,
}

impl Speaker {
    pub(super) fn start(to: SpeakTo, muted_until: Arc<AtomicU64>, t0: Instant) -> Speaker {
        let speaker = Speaker {
            state: Arc::new((Mutex::new(SpeechState::default()), Condvar::new())),
        };
        let state = speaker.state.clone();
        std::thread::spawn(move || {
            let (lock, cv) = &*state;
            let mut warned = false;
            loop {
                let text = {
                    let Ok(mut st) = lock.lock() else {
                        return;
                    };
                    while !st.closed && (st.listening || st.queue.is_empty()) {
                        st = match cv.wait(st) {
                            Ok(st) => st,
                            Err(_) => return,
                        };
                    }
                    if st.closed {
                        return;
                    }
                    let Some(text) = st.queue.pop_front() else {
                        continue;
                    };
                    st.speaking = true;
                    text
                };
                if let Err(e) = speak(&to, &text, &muted_until, t0) {
                    if !warned {
                        eprintln!("{PROGRAM}: cannot speak: {e}");
                        warned = true;
                    }
                }
                if let Ok(mut st) = lock.lock() {
                    st.speaking = false;
                }
                cv.notify_all();
            }
        });
        speaker
    }

    pub(super) fn say(&self, text: &str) {
        let (lock, cv) = &*self.state;
        if let Ok(mut st) = lock.lock() {
            st.queue.push_back(text.to_owned());
        }
        cv.notify_all();
    }

    /// Holds the speech and waits until the line being spoken is finished: until its player
    /// has returned and its length has passed (`muted_until`; a device that does not play in
    /// real time returns at once).
    pub(super) fn hold(&self, muted_until: &AtomicU64, t0: Instant) {
        let (lock, cv) = &*self.state;
        {
            let Ok(mut st) = lock.lock() else {
                return;
            };
            st.listening = true;
            while st.speaking {
                st = match cv.wait(st) {
                    Ok(st) => st,
                    Err(_) => return,
                };
            }
        }
        let left = muted_until
            .load(Ordering::Relaxed)
            .saturating_sub(ms_since(t0));
        std::thread::sleep(Duration::from_millis(left.min(MAX_SPEECH_MS)));
    }

    pub(super) fn release(&self) {
        let (lock, cv) = &*self.state;
        if let Ok(mut st) = lock.lock() {
            st.listening = false;
        }
        cv.notify_all();
    }
}

impl Drop for Speaker {
    fn drop(&mut self) {
        let (lock, cv) = &*self.state;
        if let Ok(mut st) = lock.lock() {
            st.closed = true;
        }
        cv.notify_all();
    }
}

/// Says `text` now and returns when it has been played (the enrolment's prompts).
pub(crate) fn say_once(to: &SpeakTo, text: &str) -> Result<(), String> {
    speak(to, text, &AtomicU64::new(0), Instant::now())
}

/// Synthesises `text` (espeak-ng), marks the channel muted for its length, plays it (aplay).
fn speak(to: &SpeakTo, text: &str, muted_until: &AtomicU64, t0: Instant) -> Result<(), String> {
    let out = Command::new("espeak-ng")
        .args(["-v", &to.voice, "--stdout"])
        .arg(text)
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .map_err(|e| format!("espeak-ng: {e}"))?;
    if !out.status.success() {
        return Err(format!("espeak-ng failed on voice {}", to.voice));
    }
    let (fmt, data) = wav::parse_wav(&out.stdout).map_err(|e| format!("espeak-ng: {e}"))?;
    let bytes_per_ms =
        (u64::from(fmt.rate) * u64::from(fmt.channels) * u64::from(fmt.bits / 8) / 1000).max(1);
    let length = data.len() as u64 / bytes_per_ms;
    muted_until.fetch_max(ms_since(t0) + length + 100, Ordering::Relaxed);
    let mut aplay = Command::new("aplay")
        .args(["-q", "-D", &to.device, "-"])
        .stdin(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("aplay (install alsa-utils): {e}"))?;
    if let Some(mut stdin) = aplay.stdin.take() {
        let _ = stdin.write_all(&out.stdout);
    }
    let status = aplay.wait().map_err(|e| format!("aplay: {e}"))?;
    if !status.success() {
        return Err(format!("aplay could not play on {}", to.device));
    }
    Ok(())
}
