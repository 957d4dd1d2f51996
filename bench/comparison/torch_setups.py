"""The PyTorch side of compare.py's cases: each setup(threads) builds the inputs and returns a
function doing one unit of the case's work (torch is imported in the worker process only)."""

import os
import sys

BENCH = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def torch_matmul_setup(batch, m, n, k, trans_a, trans_b):
    def setup(threads):
        import torch

        torch.set_num_threads(threads)
        generator = torch.Generator().manual_seed(42)
        shape_a = (k, m) if trans_a else (m, k)
        shape_b = (n, k) if trans_b else (k, n)
        if batch > 1:
            shape_a, shape_b = (batch,) + shape_a, (batch,) + shape_b
        a = torch.randn(shape_a, generator=generator)
        b = torch.randn(shape_b, generator=generator)
        # Transposes as views, like atencion's Trans::Yes: no copy is made.
        op_a = a.transpose(-2, -1) if trans_a else a
        op_b = b.transpose(-2, -1) if trans_b else b
        out = torch.empty((batch, m, n) if batch > 1 else (m, n))

        def run():
            torch.matmul(op_a, op_b, out=out)

        return run

    return setup


def torch_attention_setup(batch, tokens, d_model, heads, backward, causal=False):
    """torch.nn.MultiheadAttention self-attention (batch_first, no dropout; causal: a Bool
    attn_mask hiding the future, torch's True = hidden), forward with autograd recording as
    atencion does, and optionally backward from a fixed gradient."""
    def setup(threads):
        import torch

        torch.set_num_threads(threads)
        torch.manual_seed(42)
        attention = torch.nn.MultiheadAttention(d_model, heads, batch_first=True)
        x = torch.randn(batch, tokens, d_model, requires_grad=backward)
        grad_output = torch.randn(batch, tokens, d_model)
        mask = (torch.triu(torch.ones(tokens, tokens, dtype=torch.bool), diagonal=1)
                if causal else None)

        def run():
            y, _ = attention(x, x, x, attn_mask=mask, need_weights=False)
            if backward:
                y.backward(grad_output)
                attention.zero_grad()
                x.grad = None

        return run

    return setup


def torch_train_step_setup(d_model, d_ff, vocabulary, batch, tokens):
    """bench_train_step's train_step/* in PyTorch: embeddings·√d + sinusoidal positions,
    torch.nn.Transformer (d_model, 4 heads, 2 + 2 layers, d_ff, dropout 0.1, post-norm),
    Linear to the vocabulary's logits, label-smoothed cross-entropy, Adam."""
    def setup(threads):
        return torch_train_step(threads, d_model, d_ff, vocabulary, batch, tokens)
    return setup


def torch_train_step(threads, d_model, d_ff, vocabulary, batch, tokens):
    import math

    import torch

    torch.set_num_threads(threads)
    torch.manual_seed(42)
    source_embedding = torch.nn.Embedding(vocabulary, d_model)
    target_embedding = torch.nn.Embedding(vocabulary, d_model)
    transformer = torch.nn.Transformer(d_model, 4, 2, 2, d_ff, 0.1, batch_first=True)
    output_projection = torch.nn.Linear(d_model, vocabulary)
    modules = torch.nn.ModuleList([source_embedding, target_embedding, transformer,
                                   output_projection])
    optimizer = torch.optim.Adam(modules.parameters())
    position = torch.arange(tokens).unsqueeze(1)
    frequency = torch.exp(torch.arange(0, d_model, 2) * (-math.log(10000.0) / d_model))
    positional_encoding = torch.zeros(tokens, d_model)
    positional_encoding[:, 0::2] = torch.sin(position * frequency)
    positional_encoding[:, 1::2] = torch.cos(position * frequency)
    source = torch.randint(vocabulary, (batch, tokens))
    target_input = torch.randint(vocabulary, (batch, tokens))
    target_output = torch.randint(vocabulary, (batch, tokens))
    causal_mask = transformer.generate_square_subsequent_mask(tokens)
    scale = math.sqrt(d_model)

    def run():
        optimizer.zero_grad()
        hidden = transformer(source_embedding(source) * scale + positional_encoding,
                             target_embedding(target_input) * scale + positional_encoding,
                             tgt_mask=causal_mask)
        logits = output_projection(hidden)
        loss = torch.nn.functional.cross_entropy(logits.reshape(-1, vocabulary),
                                                 target_output.reshape(-1), label_smoothing=0.1)
        loss.backward()
        optimizer.step()

    return run


def torch_decode_setup(beam):
    """bench_decode's decode/greedy and decode/beam4 in PyTorch: the translator's default model
    as torch.nn.Transformer (tools/export_torch.py's TorchTranslator, random weights), 64 sources
    of 4 to 14 ids, decoded in one batch to 16 output pieces each (as in bench_decode, where
    random weights never end a sentence early). torch.nn.Transformer has no key/value cache:
    each step runs the whole prefix through the decoder, as PyTorch code written on it does."""
    def setup(threads):
        import torch

        sys.path.insert(0, os.path.join(BENCH, "..", "tools"))
        from export_torch import TorchTranslator

        torch.set_num_threads(threads)
        torch.manual_seed(42)
        vocabulary, sentences, steps, bos = 8000, 64, 16, 2
        config = {"src_vocab": vocabulary, "tgt_vocab": vocabulary, "d_model": 256, "heads": 4,
                  "encoder_layers": 2, "decoder_layers": 2, "d_ff": 1024, "max_len": 128,
                  "norm_first": False, "tie_target_embeddings": False, "padding_idx": 0}
        model = TorchTranslator(config).eval()
        lengths = torch.randint(4, 15, (sentences,))
        source = torch.randint(4, vocabulary, (sentences, int(lengths.max())))
        padding = torch.arange(source.shape[1]) >= lengths[:, None]  # torch's mask: True = pad
        source = source.masked_fill(padding, 0)

        @torch.no_grad()
        def run():
            memory = model.encode(source, padding)
            rows_memory, rows_padding = memory, padding
            if beam > 1:  # every source's hypotheses side by side: [sentences · beam, ...]
                rows_memory = memory.repeat_interleave(beam, dim=0)
                rows_padding = padding.repeat_interleave(beam, dim=0)
            prefix = torch.full((rows_memory.shape[0], 1), bos, dtype=torch.int64)
            scores = torch.zeros(sentences, beam)
            scores[:, 1:] = -float("inf")  # at first, one live hypothesis per source
            for _ in range(steps):
                logits = model.decode(prefix, rows_memory, rows_padding)[:, -1]
                log_probs = torch.log_softmax(logits, dim=-1)
                if beam == 1:
                    best = log_probs.argmax(dim=-1, keepdim=True)
                    prefix = torch.cat([prefix, best], dim=1)
                    continue
                total = (scores[:, :, None] + log_probs.view(sentences, beam, -1))
                scores, index = total.view(sentences, -1).topk(beam, dim=-1)
                parent = (index // vocabulary + torch.arange(sentences)[:, None] * beam).view(-1)
                prefix = torch.cat([prefix[parent], (index % vocabulary).view(-1, 1)], dim=1)

        return run

    return setup


def torch_gpt_decode_setup(dtype_name):
    """bench_gpt_decode's gpt_decode/* in PyTorch: a GPT of GPT-2 small's shape (vocabulary
    50,257, context 1,024, d 768, 12 heads, 12 layers; random weights, std 0.02, LayerNorms at 1
    and 0), greedy, 32 new tokens after a one-token prompt, one forward a token, with a key/value
    cache preallocated for the 32 positions, as nanoGPT's layers compute (F.linear on [out, in]
    weights, the logits from the tied token embedding). `dtype_name` "float32" or "bfloat16": the
    weights and the activations in that type."""
    def setup(threads):
        import math

        import torch
        import torch.nn.functional as F

        torch.set_num_threads(threads)
        dtype = getattr(torch, dtype_name)
        vocabulary, positions, d, heads, layers, steps = 50257, 1024, 768, 12, 12, 32
        head_dim = d // heads
        generator = torch.Generator().manual_seed(42)

        def normal(*shape):
            return (torch.randn(*shape, generator=generator) * 0.02).to(dtype)

        def ones(size):
            return torch.ones(size, dtype=dtype)

        def zeros(size):
            return torch.zeros(size, dtype=dtype)

        token_embedding, position_embedding = normal(vocabulary, d), normal(positions, d)
        blocks = [{"ln1": (ones(d), zeros(d)), "qkv": (normal(3 * d, d), zeros(3 * d)),
                   "out": (normal(d, d), zeros(d)), "ln2": (ones(d), zeros(d)),
                   "fc": (normal(4 * d, d), zeros(4 * d)), "proj": (normal(d, 4 * d), zeros(d))}
                  for _ in range(layers)]
        final_norm = (ones(d), zeros(d))
        keys = torch.zeros(layers, heads, steps, head_dim, dtype=dtype)
        values = torch.zeros_like(keys)

        def layer_norm(x, weights):
            return F.layer_norm(x, (d,), *weights)

        def attend(x, block, i, position):
            q, k, v = F.linear(layer_norm(x, block["ln1"]), *block["qkv"]).view(3, heads, 1,
                                                                               head_dim)
            keys[i, :, position:position + 1] = k
            values[i, :, position:position + 1] = v
            scores = q @ keys[i, :, :position + 1].transpose(-1, -2) / math.sqrt(head_dim)
            mixed = scores.softmax(-1) @ values[i, :, :position + 1]
            return F.linear(mixed.transpose(0, 1).reshape(1, d), *block["out"])

        @torch.no_grad()
        def run():
            token = 464
            for position in range(steps):
                x = (token_embedding[token] + position_embedding[position]).view(1, d)
                for i, block in enumerate(blocks):
                    x = x + attend(x, block, i, position)
                    hidden = F.gelu(F.linear(layer_norm(x, block["ln2"]), *block["fc"]),
                                    approximate="tanh")
                    x = x + F.linear(hidden, *block["proj"])
                logits = F.linear(layer_norm(x, final_norm), token_embedding)
                token = int(logits.argmax())

        return run

    return setup
