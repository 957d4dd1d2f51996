#!/usr/bin/env python3
"""tests/examples/serve/serve_maps.py BINARY MODEL — the maps of a batch equal each sentence's
own.

Starts `BINARY serve --model MODEL` on 127.0.0.1 (any free port), posts eight sentences with
"details" at once (from eight threads, so that they share batches: the translator answers a
batch's maps from the batch's decoding, examples/base/decoding/decoding_maps.h), then each one
alone, and checks that the answers carry the same translation, pieces, alternatives and maps
(each weight within float32's rounding, since a batch pads its sentences; docs/17-serving.md).
"""
import os
import sys
import threading

sys.path.insert(0, os.path.dirname(__file__))
from serve_process import Served, call  # noqa: E402

binary, model = sys.argv[1], sys.argv[2]
SENTENCES = ["hola .", "¿ cuál es tu nombre ?", "el gato come pan .", "yo tengo un perro",
             "ella lee un libro muy largo hoy", "no", "buenos días , señor .", "tu casa es grande"]
TOLERANCE = 1e-5


def close(x, y, where):
    if isinstance(x, list):
        if not isinstance(y, list) or len(x) != len(y):
            raise SystemExit(f"{where}: {len(x)} entries against {y!r:.80}")
        for i, (a, b) in enumerate(zip(x, y)):
            close(a, b, f"{where}[{i}]")
    elif isinstance(x, dict):
        if set(x) != set(y):
            raise SystemExit(f"{where}: fields {sorted(x)} against {sorted(y)}")
        for key in x:
            close(x[key], y[key], f"{where}.{key}")
    elif isinstance(x, float) or isinstance(y, float):
        if abs(x - y) > TOLERANCE:
            raise SystemExit(f"{where}: {x} in the batch, {y} alone")
    elif x != y:
        raise SystemExit(f"{where}: {x!r} in the batch, {y!r} alone")


def translate(port, sentence):
    status, answer = call(port, "POST", "/api/translate", {"text": sentence, "details": True})
    if status != 200:
        raise SystemExit(f"{sentence!r}: HTTP {status}: {answer!r:.200}")
    return answer


with Served(binary, model) as server:
    together = [None] * len(SENTENCES)
    start = threading.Barrier(len(SENTENCES))

    def post(i):
        start.wait()
        together[i] = translate(server.port, SENTENCES[i])
    threads = [threading.Thread(target=post, args=(i,)) for i in range(len(SENTENCES))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    maps = 0
    for sentence, batched in zip(SENTENCES, together):
        if batched is None:
            raise SystemExit(f"{sentence!r}: no answer")
        alone = translate(server.port, sentence)
        close(batched, alone, repr(sentence))
        maps += len(alone["sentence"]["maps"])
print(f"ok: {len(SENTENCES)} sentences posted at once got the answers they get alone "
      f"({maps} maps, weights within {TOLERANCE})")
