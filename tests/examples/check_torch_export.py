#!/usr/bin/python3
"""tests/examples/check_torch_export.py RUN_DIR LOGITS.safetensors TRANSLATOR.pt SENTENCES.txt
ATENCION_MAX_LENGTH_3.txt — run by
tests/examples/export_torch.sh: the torch model of tools/export_torch.py against atencion on
the same checkpoint.

For each sentence tests/tools/translator_logits wrote (source ids, bos + atencion's greedy
output, atencion's logits for that input, its translation):
  - torch's logits for the same ids agree with atencion's to 1e-5 · max(1, max |logit|) (both
    run in float32; the sums are ordered differently);
  - torch's greedy decoding gives the same ids and the same text;
the file written by `export_torch.py save` loads back into a TorchTranslator with the same
logits bit for bit; and with max_length 3, torch cuts the translations of SENTENCES.txt where
`atencion-translate translate --max-length 3` did.
"""

import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
from export_torch import (TorchTranslator, greedy, load_translator,  # noqa: E402
                          read_safetensors, translate)

RELATIVE_TOLERANCE = 1e-5


def main():
    run_dir, logits_path, saved_path, sentences_path, max_length_3_path = sys.argv[1:6]
    torch.set_num_threads(1)
    model, source_tokenizer, target_tokenizer, config = load_translator(run_dir)
    reference, metadata = read_safetensors(logits_path)
    saved = torch.load(saved_path)
    reloaded = TorchTranslator(saved["config"])
    reloaded.load_state_dict(saved["state_dict"])
    reloaded.eval()
    count = sum(1 for name in reference if name.startswith("logits."))
    assert count > 0, "no sentences in " + logits_path
    failures = []
    worst = 0.0
    for i in range(count):
        source = reference[f"source.{i}"]
        target = reference[f"target.{i}"]
        expected = reference[f"logits.{i}"]
        with torch.no_grad():
            logits = model.logits(source[None], target[None])[0]
            again = reloaded.logits(source[None], target[None])[0]
        difference = float((logits - expected).abs().max())
        scale = max(1.0, float(expected.abs().max()))
        worst = max(worst, difference / scale)
        if difference > RELATIVE_TOLERANCE * scale:
            failures.append(f"sentence {i}: logits differ by {difference:.3g} (max |logit| "
                            f"{scale:.3g})")
        if not torch.equal(logits, again):
            failures.append(f"sentence {i}: the saved .pt model gives other logits")
        ids = greedy(model, source.tolist(), min(64, config["max_len"] - 1))
        if ids != target[1:].tolist():
            failures.append(f"sentence {i}: torch decodes {ids}, atencion {target[1:].tolist()}")
        text = target_tokenizer.decode(ids)
        if text != metadata[f"translation.{i}"]:
            failures.append(f"sentence {i}: torch says {text!r}, atencion "
                            f"{metadata[f'translation.{i}']!r}")
    with open(sentences_path) as file:
        sentences = file.read().splitlines()
    with open(max_length_3_path) as file:
        expected_short = file.read().splitlines()
    short = translate(model, source_tokenizer, target_tokenizer, sentences, max_length=3)
    if short != expected_short:
        failures.append(f"max_length 3: torch says {short}, atencion {expected_short}")
    print(f"{count} sentences: largest logit difference {worst:.3g} of max(1, max |logit|) "
          f"(tolerance {RELATIVE_TOLERANCE})")
    if failures:
        print("\n".join(failures))
        sys.exit(1)


if __name__ == "__main__":
    main()
