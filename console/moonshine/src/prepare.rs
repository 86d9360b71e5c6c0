//! The model's files, prepared once for speed.
//!
//! As shipped (ORT format, int8 weights), the decoder turns every weight back into floats and
//! transposes its 32,768-token output layer at *every* run: about 80 ms of the 120 ms a
//! one-word utterance cost, whatever the phrases (docs/PERFORMANCE.md, twelfth round). ONNX
//! Runtime folds such constant work away only when it loads an ONNX file, not an ORT-format
//! one. So each file is converted once, by the runtime itself, to ONNX with those parts folded
//! (`*.prepared.onnx` beside it), and that file is what a recogniser opens: the same model
//! and the same scores (to 1e-5), a decoder run of one phrase 120 → 37 ms.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use ort::session::builder::GraphOptimizationLevel;
use ort::session::Session;

use crate::MoonshineError;

/// What marks a prepared file, after the model file's stem and length.
const SUFFIX: &str = "prepared.onnx";

/// The prepared file of `model` (`decoder_model_merged.ort`): named for its length as well,
/// so a different model put in the same folder is prepared anew.
pub(crate) fn prepared_name(model: &Path) -> Option<String> {
    let stem = model.file_stem()?.to_str()?;
    let len = fs::metadata(model).ok()?.len();
    Some(format!("{stem}.{len}.{SUFFIX}"))
}

/// `model` prepared beside it, else (a folder he cannot write) in a temporary folder, returned
/// with it (the file lasts as long as the folder); None when neither can be done.
pub(crate) fn prepared(model: &Path) -> Option<(PathBuf, Option<tempfile::TempDir>)> {
    if let Some(done) = model.parent().and_then(|dir| prepare(model, dir).ok()) {
        return Some((done, None));
    }
    let scratch = tempfile::tempdir().ok()?;
    let done = prepare(model, scratch.path()).ok()?;
    Some((done, Some(scratch)))
}

/// `model` prepared in `into`: the prepared file, made now unless it is there already.
///
/// Each step writes a file of its own (named for this process) and the last is renamed into
/// place, so two recognisers preparing at once (two players, two terminals) each finish with
/// a whole file and never read half of the other's.
pub(crate) fn prepare(model: &Path, into: &Path) -> Result<PathBuf, MoonshineError> {
    let name = prepared_name(model).ok_or_else(|| MoonshineError::Missing(model.to_owned()))?;
    let done = into.join(&name);
    if done.is_file() {
        return Ok(done);
    }
    static STEP: AtomicUsize = AtomicUsize::new(0);
    let scratch = |what: &str| {
        let n = STEP.fetch_add(1, Ordering::Relaxed);
        into.join(format!(".{name}.{}.{n}.{what}", std::process::id()))
    };
    let plain = scratch("plain");
    let folded = scratch("folded");
    let made = (|| {
        // The ORT-format file as ONNX, unchanged...
        drop(
            Session::builder()?
                .with_optimization_level(GraphOptimizationLevel::Disable)?
                .with_optimized_model_path(&plain)?
                .commit_from_file(model)?,
        );
        let bytes = fs::read(&plain).map_err(|e| io_error(&plain, &e))?;
        let named = name_subgraphs(&bytes).ok_or_else(|| {
            MoonshineError::Runtime(format!("{} is not an ONNX model", plain.display()))
        })?;
        fs::write(&plain, named).map_err(|e| io_error(&plain, &e))?;
        // ...then with its constant parts folded (level 2: nothing tied to this machine's
        // processor, which level 3 adds when the file is opened).
        drop(
            Session::builder()?
                .with_optimization_level(GraphOptimizationLevel::Level2)?
                .with_optimized_model_path(&folded)?
                .commit_from_file(&plain)?,
        );
        fs::rename(&folded, &done).map_err(|e| io_error(&done, &e))
    })();
    let _ = fs::remove_file(&plain);
    let _ = fs::remove_file(&folded);
    made.map(|()| done)
}

fn io_error(path: &Path, e: &std::io::Error) -> MoonshineError {
    MoonshineError::Runtime(format!("cannot write {}: {e}", path.display()))
}

/// Which ONNX message a stretch of bytes is, for [`name_subgraphs`].
#[derive(Clone, Copy, PartialEq, Eq)]
enum Message {
    Model,
    Graph,
    Node,
    Attribute,
}

/// The ONNX model `model` (protobuf) with a name given to every subgraph that has none.
///
/// ONNX Runtime writes the branches of the decoder's `If` without a name and then refuses to
/// open its own file ("Field 'name' of 'graph' is required to be non-empty"). Only the path to
/// subgraphs is read (model → graph → node → attribute → graph); every other field is copied
/// byte for byte. None when the bytes are no protobuf.
pub(crate) fn name_subgraphs(model: &[u8]) -> Option<Vec<u8>> {
    let mut named = 0;
    rewrite(model, Message::Model, &mut named)
}

fn rewrite(bytes: &[u8], kind: Message, named: &mut usize) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(bytes.len() + 16);
    let mut at = 0;
    let mut has_name = false;
    while at < bytes.len() {
        let start = at;
        let key = varint(bytes, &mut at)?;
        let (field, wire) = (key >> 3, key & 7);
        match wire {
            0 => {
                varint(bytes, &mut at)?;
            }
            1 => at = at.checked_add(8)?,
            5 => at = at.checked_add(4)?,
            2 => {
                let len = usize::try_from(varint(bytes, &mut at)?).ok()?;
                let body = bytes.get(at..at.checked_add(len)?)?;
                let inner = match (kind, field) {
                    (Message::Model, 7) | (Message::Attribute, 6 | 11) => Some(Message::Graph),
                    (Message::Graph, 1) => Some(Message::Node),
                    (Message::Node, 5) => Some(Message::Attribute),
                    _ => None,
                };
                if kind == Message::Graph && field == 2 {
                    // A later field of the same number wins: an empty name is replaced below.
                    has_name = !body.is_empty();
                }
                if let Some(inner) = inner {
                    let body = rewrite(body, inner, named)?;
                    put_varint(&mut out, key);
                    put_varint(&mut out, body.len() as u64);
                    out.extend_from_slice(&body);
                    at += len;
                    continue;
                }
                at += len;
            }
            _ => return None,
        }
        out.extend_from_slice(bytes.get(start..at)?);
    }
    // The model's own graph has a name; a subgraph is a graph reached through an attribute.
    if kind == Message::Graph && !has_name {
        *named += 1;
        let name = format!("subgraph_{named}");
        put_varint(&mut out, 2 << 3 | 2);
        put_varint(&mut out, name.len() as u64);
        out.extend_from_slice(name.as_bytes());
    }
    Some(out)
}

fn varint(bytes: &[u8], at: &mut usize) -> Option<u64> {
    let mut value = 0u64;
    for shift in (0..64).step_by(7) {
        let b = *bytes.get(*at)?;
        *at += 1;
        value |= u64::from(b & 0x7f) << shift;
        if b & 0x80 == 0 {
            return Some(value);
        }
    }
    None
}

fn put_varint(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push((value as u8) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn field(out: &mut Vec<u8>, number: u64, body: &[u8]) {
        put_varint(out, number << 3 | 2);
        put_varint(out, body.len() as u64);
        out.extend_from_slice(body);
    }

    /// A model whose graph's one node has an attribute holding `branch`.
    fn model_with(branch: &[u8]) -> Vec<u8> {
        let mut attribute = Vec::new();
        field(&mut attribute, 1, b"then_branch");
        field(&mut attribute, 6, branch);
        let mut node = Vec::new();
        field(&mut node, 4, b"If");
        field(&mut node, 5, &attribute);
        let mut graph = Vec::new();
        field(&mut graph, 1, &node);
        field(&mut graph, 2, b"main");
        let mut model = vec![8, 7]; // ir_version 7
        field(&mut model, 7, &graph);
        model
    }

    #[test]
    fn an_unnamed_subgraph_is_named_and_nothing_else_moves() {
        // A branch with a node of its own (a long one: lengths of two bytes) and no name.
        let mut inner_node = Vec::new();
        field(&mut inner_node, 4, &[b'x'; 200]);
        let mut branch = Vec::new();
        field(&mut branch, 1, &inner_node);
        let before = model_with(&branch);
        let after = name_subgraphs(&before).unwrap();
        let mut named = branch.clone();
        field(&mut named, 2, b"subgraph_1");
        assert_eq!(after, model_with(&named));
        // Named already: unchanged, byte for byte.
        assert_eq!(name_subgraphs(&after).unwrap(), after);
        // An empty name is replaced.
        let mut empty = branch.clone();
        field(&mut empty, 2, b"");
        let fixed = name_subgraphs(&model_with(&empty)).unwrap();
        let mut expect = empty.clone();
        field(&mut expect, 2, b"subgraph_1");
        assert_eq!(fixed, model_with(&expect));
    }

    #[test]
    fn bytes_that_are_no_protobuf_are_refused() {
        let model = model_with(&[]);
        // Cut short inside the graph; a length past the end; a group (wire type 3).
        assert!(name_subgraphs(&model[..model.len() - 3]).is_none());
        assert!(name_subgraphs(&[0x3a, 0x7f, 1, 2]).is_none());
        assert!(name_subgraphs(&[0x0b]).is_none());
        assert!(name_subgraphs(&[0x80; 12]).is_none());
        assert_eq!(name_subgraphs(&[]).unwrap(), Vec::<u8>::new());
    }
}
