#!/usr/bin/python3
"""tools/export_torch.py — an atencion translator as a PyTorch model: load, save, translate.

Run it with Debian's Python, the one that sees python3-torch and python3-sentencepiece:

    /usr/bin/python3 tools/export_torch.py translate --model runs/spa-eng "¿Cuál es tu nombre?"
    /usr/bin/python3 tools/export_torch.py save --model runs/spa-eng --out translator.pt

`--model` is what atencion-translate takes: a run directory (its "latest" is followed, else its
newest step-N) or one checkpoint directory. The script reads config.json, model.safetensors and
source.model / target.model from it by name and ignores any other file.

The model is a torch.nn.Transformer (batch_first, dropout 0, ReLU, LayerNorm eps 1e-5, the
checkpoint's norm_first) plus what torch leaves to its user, computed as atencion does
(nn/transformer.h):
    src_embedding, tgt_embedding    torch.nn.Embedding, looked up and multiplied by √d_model
    positional_encoding             the sinusoidal table PE[pos, 2i] = sin(pos / 10000^(2i/d)),
                                    PE[pos, 2i+1] = cos(...), added (not a parameter)
    output_projection               torch.nn.Linear(d_model, target vocab), or the target
                                    embedding matrix when the checkpoint ties them
A post-norm atencion model has no final LayerNorm after its encoder and decoder stacks (the
paper's), where torch.nn.Transformer always makes one: those two are set to None.

Parameter names, ours -> torch (the inverse of nn/torch_state_dict.h):
    ...{self_attn,cross_attn}.{q,k,v}_proj.weight  -> ...in_proj_weight (rows Q, K, V stacked)
    ...{q,k,v}_proj.bias                            -> ...in_proj_bias
    ...cross_attn.                                  -> ...multihead_attn.
    ...feed_forward.linear1. / linear2.             -> ...linear1. / linear2.

Greedy decoding follows examples/base/decoding/ (search.cpp, encoder_decoder.cpp) and examples/translate/decode.cpp: the source is cut to
max_len − 1 pieces, the output to min(--max-length, max_len − 1); each step takes the most
probable next piece (the first one on ties) among all but pad and bos, and stops at eos.

Another script can `import export_torch` (with tools/ on sys.path) and call
load_translator(directory) -> (model, source SentencePiece, target SentencePiece, config), then
translate(...) or model.logits(source, target_input).
"""

import argparse
import json
import math
import os
import sys

import torch

PAD_ID, UNK_ID, BOS_ID, EOS_ID = 0, 1, 2, 3  # examples/base/data/tokenizer.h

# ---- reading a safetensors file (the layout of tensor/safetensors.h) -------------------------

SAFETENSORS_DTYPES = {"F64": torch.float64, "F32": torch.float32, "F16": torch.float16,
                      "BF16": torch.bfloat16, "I64": torch.int64, "I32": torch.int32,
                      "I16": torch.int16, "I8": torch.int8, "U8": torch.uint8, "BOOL": torch.bool}


def read_safetensors(path):
    """{name: tensor} and the "__metadata__" dict of a safetensors file."""
    with open(path, "rb") as file:
        raw = file.read()
    header_size = int.from_bytes(raw[:8], "little")
    header = json.loads(raw[8:8 + header_size])
    metadata = header.pop("__metadata__", {})
    data = bytearray(raw[8 + header_size:])
    tensors = {}
    for name, entry in header.items():
        begin, end = entry["data_offsets"]
        dtype = SAFETENSORS_DTYPES[entry["dtype"]]
        size = torch.empty((), dtype=dtype).element_size()
        values = torch.frombuffer(data, dtype=dtype, count=(end - begin) // size,
                                  offset=begin) if end > begin else torch.empty(0, dtype=dtype)
        tensors[name] = values.reshape(entry["shape"]).clone()
    return tensors, metadata


# ---- the model -------------------------------------------------------------------------------

def sinusoidal_table(max_len, d_model):
    """nn/positional_encoding.cpp's table, with the same float64 arithmetic (libm's pow, sin,
    cos), so the two agree bit for bit before rounding to the model's dtype."""
    table = [[0.0] * d_model for _ in range(max_len)]
    for position in range(max_len):
        for i in range(0, d_model, 2):
            angle = position / math.pow(10000.0, i / d_model)
            table[position][i] = math.sin(angle)
            if i + 1 < d_model:
                table[position][i + 1] = math.cos(angle)
    return torch.tensor(table, dtype=torch.float64)


class TorchTranslator(torch.nn.Transformer):
    """torch.nn.Transformer + embeddings (×√d_model) + positional encoding + output projection,
    built from the "model" section of an atencion config.json (nn::TransformerConfig)."""

    def __init__(self, config, dtype=torch.float32):
        super().__init__(config["d_model"], config["heads"], config["encoder_layers"],
                         config["decoder_layers"], config["d_ff"], dropout=0.0,
                         batch_first=True, norm_first=config["norm_first"], dtype=dtype)
        self.config = dict(config)
        if not config["norm_first"] and not config.get("final_norm", False):
            self.encoder.norm = None  # the paper's post-norm stack ends with its last layer
            self.decoder.norm = None
        padding_idx = config["padding_idx"] if config["padding_idx"] >= 0 else None
        self.src_embedding = torch.nn.Embedding(config["src_vocab"], config["d_model"],
                                                padding_idx=padding_idx, dtype=dtype)
        self.tgt_embedding = torch.nn.Embedding(config["tgt_vocab"], config["d_model"],
                                                padding_idx=padding_idx, dtype=dtype)
        self.output_projection = None
        if not config["tie_target_embeddings"]:
            self.output_projection = torch.nn.Linear(config["d_model"], config["tgt_vocab"],
                                                     dtype=dtype)
        self.register_buffer("positional_encoding",
                             sinusoidal_table(config["max_len"], config["d_model"]).to(dtype),
                             persistent=False)

    def embed(self, embedding, ids):
        """Embedding·√d_model + PE[0:T] (nn::Transformer::embed_source / embed_target)."""
        scaled = embedding(ids) * math.sqrt(self.d_model)
        return scaled + self.positional_encoding[: ids.shape[1]]

    def encode(self, source, source_padding=None):
        """source ids [B, S] -> memory [B, S, d_model]. Padding masks are torch's: True = pad."""
        return self.encoder(self.embed(self.src_embedding, source),
                            src_key_padding_mask=source_padding)

    def decode(self, target, memory, source_padding=None, target_padding=None):
        """target ids [B, T] (bos y1 ..), memory -> logits [B, T, target vocab]."""
        steps = target.shape[1]
        causal = torch.triu(torch.ones(steps, steps, dtype=torch.bool), diagonal=1)  # True = hide
        hidden = self.decoder(self.embed(self.tgt_embedding, target), memory, tgt_mask=causal,
                              tgt_key_padding_mask=target_padding,
                              memory_key_padding_mask=source_padding)
        if self.output_projection is None:  # tied: logits = h · Eᵀ
            return hidden @ self.tgt_embedding.weight.t()
        return self.output_projection(hidden)

    def logits(self, source, target, source_padding=None, target_padding=None):
        return self.decode(target, self.encode(source, source_padding), source_padding,
                           target_padding)


def torch_names(ours):
    """atencion's state dict (name -> tensor) under torch's names and layouts."""
    torch_state = {}
    for name, tensor in ours.items():
        projection = next((p for p in "qkv" for kind in ("weight", "bias")
                           if name.endswith(f"{p}_proj.{kind}")), None)
        if projection is None:
            torch_state[rename(name)] = tensor
        elif projection == "q":  # the three projections are written when q's turn comes
            kind = name.rsplit(".", 1)[1]
            prefix = name[: -len("q_proj." + kind)]
            blocks = [ours[f"{prefix}{p}_proj.{kind}"] for p in "qkv"]
            if kind == "bias" or all(block.shape == blocks[0].shape for block in blocks):
                torch_state[rename(prefix + "in_proj_" + kind)] = torch.cat(blocks)
            else:
                for p, block in zip("qkv", blocks):
                    torch_state[rename(f"{prefix}{p}_proj_{kind}")] = block
    return torch_state


def rename(name):
    return name.replace(".cross_attn.", ".multihead_attn.").replace(
        ".feed_forward.linear", ".linear")


# ---- a checkpoint directory ------------------------------------------------------------------

def resolve_checkpoint(path):
    """The checkpoint directory `path` stands for, as examples/base/checkpoints/checkpoint.h says."""
    if not os.path.isdir(path):
        raise SystemExit(f"export_torch: {path}: no such directory")
    if os.path.exists(os.path.join(path, "config.json")):
        return path
    latest = os.path.join(path, "latest")
    if os.path.exists(latest):
        with open(latest) as file:
            name = file.read().strip()
        if name and os.path.exists(os.path.join(path, name, "config.json")):
            return os.path.join(path, name)
    steps = sorted(entry for entry in os.listdir(path) if entry.startswith("step-")
                   and ".tmp-" not in entry
                   and os.path.exists(os.path.join(path, entry, "config.json")))
    if not steps:
        raise SystemExit(f"export_torch: {path}: not a checkpoint (no config.json, no 'latest')")
    return os.path.join(path, steps[-1])


def load_translator(path, dtype=torch.float32):
    """(model in eval mode, source SentencePieceProcessor, target one, config["model"])."""
    import sentencepiece

    directory = resolve_checkpoint(path)
    with open(os.path.join(directory, "config.json")) as file:
        config = json.load(file)["model"]
    ours, _ = read_safetensors(os.path.join(directory, "model.safetensors"))
    model = TorchTranslator(config, dtype=dtype)
    model.load_state_dict({k: v.to(dtype) for k, v in torch_names(ours).items()}, strict=True)
    model.eval()
    tokenizers = []
    for side in ("source", "target"):
        with open(os.path.join(directory, side + ".model"), "rb") as file:
            tokenizers.append(sentencepiece.SentencePieceProcessor(model_proto=file.read()))
    return model, tokenizers[0], tokenizers[1], config


# ---- greedy decoding -------------------------------------------------------------------------

@torch.no_grad()
def greedy(model, source_ids, max_length):
    """Output ids (no bos, no eos) for one source, as examples/base/decoding/search.cpp's greedy()."""
    source = torch.tensor([source_ids or [PAD_ID]], dtype=torch.int64)  # as pad_rows: >= 1
    memory = model.encode(source)
    prefix = [BOS_ID]
    for _ in range(max_length):
        logits = model.decode(torch.tensor([prefix], dtype=torch.int64), memory)[0, -1]
        log_probs = torch.log_softmax(logits, dim=-1)
        log_probs[PAD_ID] = -math.inf  # never output pad or bos
        log_probs[BOS_ID] = -math.inf
        best = int(torch.argmax(log_probs))  # the first maximum on ties
        if best == EOS_ID:
            break
        prefix.append(best)
    return prefix[1:]


def translate(model, source_tokenizer, target_tokenizer, sentences, max_length=64):
    """Sentences -> translations, with atencion-translate's length rules."""
    longest = model.config["max_len"] - 1
    bounded = min(max_length, longest)
    translations = []
    for sentence in sentences:
        source_ids = source_tokenizer.encode(sentence)[:longest]
        translations.append(target_tokenizer.decode(greedy(model, source_ids, bounded)))
    return translations


# ---- the command line ------------------------------------------------------------------------

def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    translate_command = commands.add_parser("translate", help="greedy translation in torch")
    translate_command.add_argument("--model", required=True)
    translate_command.add_argument("--max-length", type=int, default=64)
    translate_command.add_argument("sentences", nargs="*",
                                   help="Spanish sentences (default: one a line on stdin)")
    save_command = commands.add_parser(
        "save", help="torch.save the model's config, state_dict and SentencePiece models")
    save_command.add_argument("--model", required=True)
    save_command.add_argument("--out", required=True)
    arguments = parser.parse_args()

    torch.set_num_threads(1)
    model, source_tokenizer, target_tokenizer, config = load_translator(arguments.model)
    if arguments.command == "translate":
        lines = arguments.sentences or [line.rstrip("\r\n") for line in sys.stdin]
        for line in lines:
            blank = not line.strip(" \t")
            print("" if blank else translate(model, source_tokenizer, target_tokenizer, [line],
                                             arguments.max_length)[0], flush=True)
    else:
        # Loading it back: data = torch.load(path); model = TorchTranslator(data["config"]);
        # model.load_state_dict(data["state_dict"]); sentencepiece.SentencePieceProcessor(
        # model_proto=data["source_model"]) and the same for "target_model".
        temporary = f"{arguments.out}.tmp-{os.getpid()}"
        torch.save({"config": config, "state_dict": model.state_dict(),
                    "source_model": source_tokenizer.serialized_model_proto(),
                    "target_model": target_tokenizer.serialized_model_proto()}, temporary)
        os.replace(temporary, arguments.out)
        print(f"wrote {arguments.out}: torch.nn.Transformer "
              f"({sum(p.numel() for p in model.parameters())} parameters) and the two "
              "SentencePiece models", file=sys.stderr)


if __name__ == "__main__":
    main()
