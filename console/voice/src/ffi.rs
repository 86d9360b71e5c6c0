//! The few PocketSphinx 0.8+5prealpha (Debian `libpocketsphinx3`, `libsphinxbase3`) functions
//! the recogniser needs, declared by hand from `/usr/include/pocketsphinx/*.h` and
//! `/usr/include/x86_64-linux-gnu/sphinxbase/*.h`, and one owner type, [`Decoder`], that
//! keeps every pointer private. Nothing outside this module touches unsafe code.
//!
//! The published `pocketsphinx` crate is not used: its C signatures are those of a later
//! PocketSphinx and do not match the library Debian ships.
#![allow(unsafe_code)]

use std::ffi::{c_char, c_int, CStr, CString};
use std::fmt;
use std::ptr::NonNull;

#[repr(C)]
struct CmdLn {
    _private: [u8; 0],
}
#[repr(C)]
struct ArgT {
    _private: [u8; 0],
}
#[repr(C)]
struct PsDecoder {
    _private: [u8; 0],
}
#[repr(C)]
struct PsSeg {
    _private: [u8; 0],
}
#[repr(C)]
struct PsNbest {
    _private: [u8; 0],
}
/// sphinxbase's front end (`fe_t`): waveform to cepstra, with its noise estimate.
#[repr(C)]
struct Fe {
    _private: [u8; 0],
}
/// One cepstral coefficient (`mfcc_t`): a 32-bit float, or a 32-bit fixed-point number in a
/// fixed-point build. Only written by the library here, never read, so either fits.
type Mfcc = f32;

#[link(name = "pocketsphinx")]
extern "C" {
    fn ps_args() -> *const ArgT;
    fn ps_init(config: *mut CmdLn) -> *mut PsDecoder;
    fn ps_free(ps: *mut PsDecoder) -> c_int;
    fn ps_set_jsgf_string(ps: *mut PsDecoder, name: *const c_char, jsgf: *const c_char) -> c_int;
    fn ps_set_allphone_file(ps: *mut PsDecoder, name: *const c_char, path: *const c_char) -> c_int;
    fn ps_set_search(ps: *mut PsDecoder, name: *const c_char) -> c_int;
    fn ps_start_utt(ps: *mut PsDecoder) -> c_int;
    fn ps_get_fe(ps: *mut PsDecoder) -> *mut Fe;
    fn ps_process_raw(
        ps: *mut PsDecoder,
        data: *const i16,
        n_samples: usize,
        no_search: c_int,
        full_utt: c_int,
    ) -> c_int;
    fn ps_end_utt(ps: *mut PsDecoder) -> c_int;
    fn ps_get_hyp(ps: *mut PsDecoder, out_best_score: *mut i32) -> *const c_char;
    fn ps_get_n_frames(ps: *mut PsDecoder) -> c_int;
    fn ps_seg_iter(ps: *mut PsDecoder) -> *mut PsSeg;
    fn ps_seg_next(seg: *mut PsSeg) -> *mut PsSeg;
    fn ps_seg_word(seg: *mut PsSeg) -> *const c_char;
    fn ps_seg_prob(
        seg: *mut PsSeg,
        out_ascr: *mut i32,
        out_lscr: *mut i32,
        out_lback: *mut i32,
    ) -> i32;
    fn ps_seg_free(seg: *mut PsSeg);
    fn ps_seg_frames(seg: *mut PsSeg, out_sf: *mut c_int, out_ef: *mut c_int);
    fn ps_nbest(ps: *mut PsDecoder) -> *mut PsNbest;
    fn ps_nbest_next(nbest: *mut PsNbest) -> *mut PsNbest;
    fn ps_nbest_hyp(nbest: *mut PsNbest, out_score: *mut i32) -> *const c_char;
    fn ps_nbest_free(nbest: *mut PsNbest);
}

#[link(name = "sphinxbase")]
extern "C" {
    fn cmd_ln_parse_r(
        inout: *mut CmdLn,
        defn: *const ArgT,
        argc: i32,
        argv: *mut *mut c_char,
        strict: i32,
    ) -> *mut CmdLn;
    fn cmd_ln_free_r(cmdln: *mut CmdLn) -> c_int;
    fn err_set_logfp(stream: *mut std::ffi::c_void);
    fn fe_get_output_size(fe: *mut Fe) -> c_int;
    fn fe_start_utt(fe: *mut Fe) -> c_int;
    fn fe_process_frames(
        fe: *mut Fe,
        inout_spch: *mut *const i16,
        inout_nsamps: *mut usize,
        buf_cep: *mut *mut Mfcc,
        inout_nframes: *mut i32,
        out_frameidx: *mut i32,
    ) -> c_int;
    fn fe_end_utt(fe: *mut Fe, out_cepvector: *mut Mfcc, out_nframes: *mut i32) -> c_int;
}

/// Samples per 10 ms frame at 16 kHz: the front end's frame shift.
const FRAME_SHIFT: usize = 160;

/// PocketSphinx logs through one process-wide stream. Its `-logfn` option opens a new stream
/// and closes the old one on every decoder's creation, while other decoders on other threads
/// may be writing to it: the heap is corrupted. So logging is switched off once, before the
/// first decoder, and `-logfn` is refused.
fn silence_the_library_log() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        // SAFETY: a null stream disables logging (sphinxbase/err.h); it runs once, before any
        // decoder exists that could be logging, because every decoder is made after it.
        unsafe { err_set_logfp(std::ptr::null_mut()) }
    });
}

/// A failed PocketSphinx call, named by the function that failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FfiError(pub String);

impl fmt::Display for FfiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for FfiError {}

fn cstring(what: &str, s: &str) -> Result<CString, FfiError> {
    CString::new(s).map_err(|_| FfiError(format!("{what} contains a NUL byte")))
}

/// One segment of a hypothesis: the word (or filler such as `<sil>`) and its acoustic score.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Segment {
    pub word: String,
    pub acoustic: i32,
    /// First and last frame (inclusive).
    pub start: i32,
    pub end: i32,
}

impl Segment {
    /// Silence, noise and sentence markers (`<sil>`, `<s>`, `[NOISE]`, `++...++`, `(NULL)`).
    pub fn is_filler(&self) -> bool {
        self.word.is_empty() || self.word.starts_with(['<', '[', '+', '('])
    }
}

/// What one search made of one utterance.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hypothesis {
    /// The words, space-separated; empty when the search found no complete path.
    pub text: String,
    /// The path score (log base 1.0001, acoustic plus weighted language/grammar scores).
    pub score: i32,
    /// Frames (10 ms) processed.
    pub frames: i32,
    pub segments: Vec<Segment>,
}

/// An owned PocketSphinx decoder. Not `Sync`; `Send` because the library keeps no
/// thread-local state for a decoder (one decoder is used by one thread at a time).
#[derive(Debug)]
pub struct Decoder {
    ps: NonNull<PsDecoder>,
    /// The noise floor every search and the front end hear the samples over
    /// ([`crate::floor`]).
    floor: i16,
}

// SAFETY (Send): a ps_decoder_t is a plain heap structure with no thread affinity; the
// `&mut self` receivers below guarantee one caller at a time.
unsafe impl Send for Decoder {}

impl Decoder {
    /// A decoder from command-line style options (`-hmm DIR`, `-dict FILE`, ...).
    pub fn new(options: &[(&str, &str)]) -> Result<Decoder, FfiError> {
        if options.iter().any(|(k, _)| *k == "-logfn") {
            return Err(FfiError(
                "-logfn would close the log stream other decoders write to".into(),
            ));
        }
        silence_the_library_log();
        let mut owned = vec![cstring("program name", "kriegspiel")?];
        for (k, v) in options {
            owned.push(cstring("option name", k)?);
            owned.push(cstring("option value", v)?);
        }
        let mut argv: Vec<*mut c_char> = owned.iter().map(|s| s.as_ptr().cast_mut()).collect();
        let argc = i32::try_from(argv.len()).map_err(|_| FfiError("too many options".into()))?;
        // SAFETY: argv holds `argc` pointers to NUL-terminated strings that outlive the call
        // (`owned`); cmd_ln_parse_r copies what it keeps and does not write through argv.
        // ps_args() returns a static table.
        let config =
            unsafe { cmd_ln_parse_r(std::ptr::null_mut(), ps_args(), argc, argv.as_mut_ptr(), 1) };
        if config.is_null() {
            return Err(FfiError("PocketSphinx refused the decoder options".into()));
        }
        // SAFETY: config is a valid cmd_ln_t from cmd_ln_parse_r; ps_init retains it, so we
        // release our reference right after.
        let ps = unsafe { ps_init(config) };
        // SAFETY: config is valid and we own one reference to it.
        unsafe { cmd_ln_free_r(config) };
        NonNull::new(ps)
            .map(|ps| Decoder {
                ps,
                floor: crate::floor::DEFAULT_NOISE_FLOOR,
            })
            .ok_or_else(|| {
                FfiError("PocketSphinx could not load the acoustic model or dictionary".into())
            })
    }

    /// Lets the front end alone hear `samples`, as a search's own pass would (start, every
    /// frame, end of utterance), without any search: its noise estimate, which it carries
    /// from one utterance to the next, is then the one a search of this audio would leave,
    /// for the cost of the features (a few milliseconds, where a search scores every frame
    /// against the acoustic model).
    pub fn hear_room(&mut self, samples: &[i16]) -> Result<(), FfiError> {
        let samples = crate::floor::with_noise_floor(samples, self.floor);
        let samples: &[i16] = &samples;
        let ps = self.ps.as_ptr();
        // SAFETY: live decoder; the front end it returns lives as long as the decoder.
        let fe = unsafe { ps_get_fe(ps) };
        if fe.is_null() {
            return Err(FfiError("PocketSphinx has no front end".into()));
        }
        // SAFETY: live front end.
        let width = usize::try_from(unsafe { fe_get_output_size(fe) })
            .ok()
            .filter(|&w| w > 0)
            .ok_or_else(|| FfiError("the front end has no output size".into()))?;
        // Room for every frame the samples can make, and for the one the end flushes.
        let frames = samples.len() / FRAME_SHIFT + 2;
        let mut cepstra: Vec<Mfcc> = vec![0.0; (frames + 1) * width];
        let base = cepstra.as_mut_ptr();
        // SAFETY: each row starts inside `cepstra` (k < frames + 1 rows of `width`).
        let mut rows: Vec<*mut Mfcc> = (0..frames)
            .map(|k| unsafe { base.add(k * width) })
            .collect();
        let mut spch = samples.as_ptr();
        let mut left = samples.len();
        let mut nframes = i32::try_from(frames).map_err(|_| FfiError("audio too long".into()))?;
        let mut index = 0;
        // SAFETY: live front end; `spch`/`left` describe `samples`, which outlives the call;
        // `rows` holds `nframes` pointers to rows of `width` coefficients inside `cepstra`,
        // enough for every frame of `left` samples; the last row receives the flushed frame.
        let rc = unsafe {
            fe_start_utt(fe);
            let rc = fe_process_frames(
                fe,
                &mut spch,
                &mut left,
                rows.as_mut_ptr(),
                &mut nframes,
                &mut index,
            );
            let mut tail = 0;
            let end = fe_end_utt(fe, base.add(frames * width), &mut tail);
            rc.min(end)
        };
        if rc < 0 {
            return Err(FfiError("the front end could not read the audio".into()));
        }
        Ok(())
    }

    /// The peak amplitude of the noise floor the samples are heard over (0: none).
    pub fn set_noise_floor(&mut self, amplitude: i16) {
        self.floor = amplitude.max(0);
    }

    /// Adds (or replaces) a JSGF grammar search called `name`.
    pub fn set_jsgf(&mut self, name: &str, jsgf: &str) -> Result<(), FfiError> {
        let n = cstring("search name", name)?;
        let g = cstring("grammar", jsgf)?;
        // SAFETY: self.ps is a live decoder; both strings are NUL-terminated and outlive the
        // call; the library copies the grammar.
        let rc = unsafe { ps_set_jsgf_string(self.ps.as_ptr(), n.as_ptr(), g.as_ptr()) };
        if rc < 0 {
            return Err(FfiError("PocketSphinx refused the grammar".into()));
        }
        Ok(())
    }

    /// Adds a phone-loop search called `name` with the phonetic language model at `path`.
    pub fn set_allphone_file(&mut self, name: &str, path: &str) -> Result<(), FfiError> {
        let n = cstring("search name", name)?;
        let p = cstring("phone model path", path)?;
        // SAFETY: live decoder, NUL-terminated strings outliving the call.
        let rc = unsafe { ps_set_allphone_file(self.ps.as_ptr(), n.as_ptr(), p.as_ptr()) };
        if rc < 0 {
            return Err(FfiError(format!(
                "PocketSphinx could not load the phone model {path}"
            )));
        }
        Ok(())
    }

    /// Decodes one whole utterance (16 kHz mono samples) with the search called `search`.
    pub fn decode(&mut self, search: &str, samples: &[i16]) -> Result<Hypothesis, FfiError> {
        let samples = crate::floor::with_noise_floor(samples, self.floor);
        let samples: &[i16] = &samples;
        let n = cstring("search name", search)?;
        let ps = self.ps.as_ptr();
        // SAFETY: live decoder; the name is NUL-terminated and outlives the call.
        if unsafe { ps_set_search(ps, n.as_ptr()) } < 0 {
            return Err(FfiError(format!("no search called {search}")));
        }
        // SAFETY: live decoder, no utterance in progress (every path below ends it).
        if unsafe { ps_start_utt(ps) } < 0 {
            return Err(FfiError("ps_start_utt failed".into()));
        }
        // SAFETY: `samples` is a valid slice of `len` i16 values for the duration of the call.
        let processed = unsafe { ps_process_raw(ps, samples.as_ptr(), samples.len(), 0, 1) };
        // SAFETY: an utterance was started above.
        let ended = unsafe { ps_end_utt(ps) };
        if processed < 0 || ended < 0 {
            return Err(FfiError("PocketSphinx could not decode the audio".into()));
        }
        let mut score: i32 = 0;
        // SAFETY: live decoder after ps_end_utt; the returned string is owned by the decoder
        // and valid until the next decoder call, so it is copied at once.
        let hyp = unsafe { ps_get_hyp(ps, &mut score) };
        let text = if hyp.is_null() {
            String::new()
        } else {
            // SAFETY: non-null, NUL-terminated, owned by the decoder until its next call.
            unsafe { CStr::from_ptr(hyp) }
                .to_string_lossy()
                .into_owned()
        };
        // SAFETY: live decoder.
        let frames = unsafe { ps_get_n_frames(ps) };
        let mut segments = Vec::new();
        if !hyp.is_null() {
            // SAFETY: live decoder with a finished utterance; the iterator is walked to its
            // end (ps_seg_next frees it when it returns null) or freed explicitly.
            let mut seg = unsafe { ps_seg_iter(ps) };
            while !seg.is_null() {
                let (mut ascr, mut lscr, mut lback) = (0, 0, 0);
                let (mut start, mut end): (c_int, c_int) = (0, 0);
                // SAFETY: seg is a live iterator; the word string belongs to the decoder.
                let word = unsafe {
                    ps_seg_prob(seg, &mut ascr, &mut lscr, &mut lback);
                    ps_seg_frames(seg, &mut start, &mut end);
                    let w = ps_seg_word(seg);
                    if w.is_null() {
                        String::new()
                    } else {
                        CStr::from_ptr(w).to_string_lossy().into_owned()
                    }
                };
                segments.push(Segment {
                    word,
                    acoustic: ascr,
                    start,
                    end,
                });
                if segments.len() > 10_000 {
                    // SAFETY: seg is live and not used again.
                    unsafe { ps_seg_free(seg) };
                    break;
                }
                // SAFETY: seg is live; ps_seg_next frees it and returns the next or null.
                seg = unsafe { ps_seg_next(seg) };
            }
        }
        Ok(Hypothesis {
            text,
            score,
            frames,
            segments,
        })
    }
}

impl Decoder {
    /// The last utterance's best paths, as word strings in order of score, each once with its
    /// path score: at most `distinct` of them, from at most `paths` paths of the lattice (paths
    /// differing only in silences and fillers give one string). Empty when the search made no
    /// lattice.
    pub fn alternatives(&mut self, distinct: usize, paths: usize) -> Vec<(String, i32)> {
        let mut out: Vec<(String, i32)> = Vec::new();
        // SAFETY: live decoder after ps_end_utt (called by `decode`); the iterator is walked
        // with ps_nbest_next, which frees it when it returns null, or freed explicitly.
        let mut it = unsafe { ps_nbest(self.ps.as_ptr()) };
        let mut walked = 0;
        while !it.is_null() {
            // SAFETY: `it` is a live iterator.
            it = unsafe { ps_nbest_next(it) };
            if it.is_null() {
                break;
            }
            walked += 1;
            let mut score = 0;
            // SAFETY: live iterator; the string belongs to it and is copied at once.
            let hyp = unsafe { ps_nbest_hyp(it, &mut score) };
            if !hyp.is_null() {
                // SAFETY: non-null, NUL-terminated, valid until the iterator moves.
                let text = unsafe { CStr::from_ptr(hyp) }
                    .to_string_lossy()
                    .into_owned();
                if !text.is_empty() && !out.iter().any(|(t, _)| *t == text) {
                    out.push((text, score));
                }
            }
            if out.len() >= distinct || walked >= paths {
                // SAFETY: live iterator, not used again.
                unsafe { ps_nbest_free(it) };
                break;
            }
        }
        out
    }
}

impl Drop for Decoder {
    fn drop(&mut self) {
        // SAFETY: we own the only reference to this decoder and never use it again.
        unsafe { ps_free(self.ps.as_ptr()) };
    }
}
