//! The terminal's own speech (`--speak`): espeak-ng through aplay, one line at a time, never
//! while he is being listened to.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

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

/// Synthesises `text`, marks the channel muted for its length, plays it.
fn speak(to: &SpeakTo, text: &str, muted_until: &AtomicU64, t0: Instant) -> Result<(), String> {
    crate::headset::say(to, text, |length| {
        muted_until.fetch_max(ms_since(t0) + length + 100, Ordering::Relaxed);
    })
}
