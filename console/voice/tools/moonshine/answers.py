"""Moonshine base-en alone hearing the read-back's answers (issue 21, docs/VOICE.md, seventh
round): what it can do without PocketSphinx, before the two were put together.

  answers.py score MODEL_DIR CLIPS_DIR > FEATURES.tsv   # CLIPS_DIR from HELDOUT_EXPORT
  answers.py rule FEATURES.tsv                          # every margin and doubt, summed
  answers.py rule FEATURES.tsv MARGIN DOUBT             # one rule, by level, and its misses

Each clip heard while a read-back waits (answers, commands, chatter, tries) is encoded once;
the decoder then scores "Confirm", "Yes", "Cancel" and "No" (each with trailing ".", ",", "!"
or nothing, the forms the model writes) by teacher forcing, as kriegspiel_voice::ear does. An
answer is taken when its score leads the next answer's by MARGIN and its doubt (the sum over
its tokens of how far each falls under the model's best token there) is at most DOUBT.
"""
import sys, time, wave

ANSWERS = ["confirm", "yes", "cancel", "no"]
FREE = False
MEANS = {"confirm": "confirm", "yes": "confirm", "cancel": "cancel", "no": "cancel"}


def read_pieces(path):
    """The tokenizer's pieces, by id: each a length (one byte, or two when the first has its
    high bit set) and its bytes."""
    data = open(path, "rb").read()
    out, i = [], 0
    while i < len(data):
        n = data[i]
        i += 1
        if n >= 128:
            n = (n & 127) | (data[i] << 7)
            i += 1
        out.append(data[i:i + n])
        i += n
    return out


def longest_first(ids, text):
    """SentencePiece's form of `text` cut into the longest pieces first, as
    kriegspiel_moonshine cuts it; None when a part is no piece."""
    b = ("\u2581" + text.replace(" ", "\u2581")).encode()
    cut, at = [], 0
    while at < len(b):
        end = next((e for e in range(len(b), at, -1) if b[at:e] in ids), None)
        if end is None:
            return None
        cut.append(b[at:end])
        at = end
    return cut


class Moonshine:
    def __init__(self, model):
        import numpy as np, onnxruntime as ort
        self.np = np
        options = ort.SessionOptions()
        options.intra_op_num_threads = 2
        self.encoder = ort.InferenceSession(f"{model}/encoder_model.ort", options)
        self.decoder = ort.InferenceSession(f"{model}/decoder_model_merged.ort", options)
        self.vocab = read_pieces(f"{model}/tokenizer.bin")
        self.ids = {piece: k for k, piece in enumerate(self.vocab)}

    def tokens(self, text):
        """The ids of `text`'s pieces, cut as kriegspiel_moonshine cuts them (right for the
        answers; not for every word: pieces.py)."""
        return [self.ids[piece] for piece in longest_first(self.ids, text)]

    def feed(self, ids, hidden):
        np = self.np
        feed = {"input_ids": ids, "encoder_hidden_states": np.repeat(hidden, len(ids), 0)}
        for x in self.decoder.get_inputs():
            if x.name.startswith("past_key_values"):
                frames = hidden.shape[1] if "encoder" in x.name else 0
                feed[x.name] = np.zeros((len(ids), 8, frames, 52), dtype=np.float32)
            elif x.name == "use_cache_branch":
                feed[x.name] = np.array([False])
        return feed

    def log_softmax(self, logits):
        np = self.np
        top = logits.max(-1, keepdims=True)
        return logits - top - np.log(np.exp(logits - top).sum(-1, keepdims=True))

    def encode(self, path):
        np = self.np
        w = wave.open(path)
        audio = np.frombuffer(w.readframes(w.getnframes()), dtype=np.int16)
        return self.encoder.run(None, {"input_values": audio.astype(np.float32)[None, :] / 32768})[0]

    def score(self, hidden, texts):
        np = self.np
        seqs = [[1] + self.tokens(t) + [2] for t in texts]
        ids = np.full((len(seqs), max(map(len, seqs))), 2, dtype=np.int64)
        for k, s in enumerate(seqs):
            ids[k, :len(s)] = s
        lp = self.log_softmax(self.decoder.run(["logits"], self.feed(ids, hidden))[0])
        scores = [float(sum(lp[k, t, s[t + 1]] for t in range(len(s) - 1))) for k, s in enumerate(seqs)]
        # Doubt: how far each token of the phrase falls under the token the model liked best.
        doubts = [float(sum(lp[k, t].max() - lp[k, t, s[t + 1]] for t in range(len(s) - 1))) for k, s in enumerate(seqs)]
        return scores, doubts

    def greedy(self, hidden, most=8):
        """The free decoding's log-probability and text (with the decoder's own cache)."""
        np = self.np
        names = [o.name for o in self.decoder.get_outputs()]
        feed = self.feed(np.array([[1]]), hidden)
        total, said = 0.0, []
        for step in range(most):
            out = dict(zip(names, self.decoder.run(names, feed)))
            lp = self.log_softmax(out["logits"][0, -1])
            k = int(lp.argmax())
            total += float(lp[k])
            if k == 2:
                break
            said.append(k)
            feed["input_ids"] = np.array([[k]])
            feed["use_cache_branch"] = np.array([True])
            for name in names[1:]:
                past = name.replace("present", "past_key_values")
                # The cross-attention's keys and values are computed once, on the first step.
                if step == 0 or "decoder" in name:
                    feed[past] = out[name]
        text = b"".join(self.vocab[i] for i in said).decode(errors="replace")
        return total, text.replace("\u2581", " ").strip()


def score(model, clips):
    np = __import__("numpy")
    m = Moonshine(model)
    for line in open(f"{clips}/index.tsv"):
        name, kind, voice, level, text, expect = line.rstrip("\n").split("\t")[:6]
        if kind not in ("Answer", "Command", "Chatter", "TryInReadBack"):
            continue
        start = time.time()
        hidden = m.encode(f"{clips}/{name}")
        forms = [w.capitalize() + p for w in ANSWERS for p in (".", "", ",", "!")]
        raw, doubts = m.score(hidden, forms)
        scores = [float(np.logaddexp.reduce(raw[4 * i:4 * i + 4])) for i in range(len(ANSWERS))]
        best = int(np.argmax(scores))
        runner = sorted(scores)[-2]
        form = 4 * best + int(np.argmax(raw[4 * best:4 * best + 4]))
        doubt = doubts[form]
        free, said = m.greedy(hidden) if FREE else (0.0, "")
        took = (time.time() - start) * 1000
        print("\t".join([kind, voice, level, text, expect, ANSWERS[best], f"{scores[best]:.2f}",
                         f"{scores[best] - runner:.2f}", f"{free:.2f}", said, f"{took:.0f}", f"{doubt:.2f}"]), flush=True)


def rows_of(path):
    for line in open(path):
        r = line.rstrip("\n").split("\t")
        if len(r) < 11:
            continue
        yield dict(kind=r[0], level=r[2], text=r[3], want=r[4] if r[4] in MEANS else None,
                   got=MEANS[r[5]], score=float(r[6]), margin=float(r[7]), free=float(r[8]), doubt=float(r[11]))


def taken(r, margin, gap):
    return r["margin"] >= margin and r["doubt"] <= gap


def tally(rows, margin, gap):
    t = dict(answers=0, right=0, wrong=0, others=0, as_confirm=0, as_cancel=0)
    for r in rows:
        ok = taken(r, margin, gap)
        if r["want"]:
            t["answers"] += 1
            t["right"] += ok and r["got"] == r["want"]
            t["wrong"] += ok and r["got"] != r["want"]
        else:
            t["others"] += 1
            t["as_" + r["got"]] += ok
    return t


def rule(path, margin=None, gap=None):
    rows = list(rows_of(path))
    if margin is None:
        for m in (0, 1, 2, 3, 4, 5, 6, 8):
            for g in (0.5, 1, 1.5, 2, 3, 4, 6, 8, 100):
                print(m, g, tally(rows, m, g))
        return
    for level in ("clean", "20 dB", "15 dB"):
        print(level, tally([r for r in rows if r["level"] == level], margin, gap))
    print("all", tally(rows, margin, gap))
    for r in rows:
        ok = taken(r, margin, gap)
        if (r["want"] and not (ok and r["got"] == r["want"])) or (not r["want"] and ok):
            print("  ", r["kind"], r["level"], repr(r["text"]), "->", r["got"] if ok else "rejected",
                  r["score"], r["margin"], r["doubt"])


if __name__ == "__main__":
    if sys.argv[1:2] == ["score"] and len(sys.argv) == 4:
        score(sys.argv[2], sys.argv[3])
    elif sys.argv[1:2] == ["rule"] and len(sys.argv) in (3, 5):
        rule(sys.argv[2], *(map(float, sys.argv[3:5]) if len(sys.argv) == 5 else ()))
    else:
        sys.exit(__doc__)
