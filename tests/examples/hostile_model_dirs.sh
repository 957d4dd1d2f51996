#!/usr/bin/env bash
# tests/examples/hostile_model_dirs.sh ATENCION_GPT ATENCION_BERT WORK_DIR GPT2_FIXTURE BERT_FIXTURE
# — published model directories as a user's download could leave them (issue 29): `--gpt2 DIR`
# and `--bert DIR` with a FIFO for a file, a tokenizer one entry short, integer tensors where
# weights belong, a config.json asking for what the model would not compute. Each is refused in
# one line on stderr, naming the file and what is wrong, with a non-zero exit and in seconds
# (a FIFO read would block forever: every run is bounded).
set -uo pipefail
gpt=${1:?usage: hostile_model_dirs.sh ATENCION_GPT ATENCION_BERT WORK_DIR GPT2_FIXTURE BERT_FIXTURE}
bert=$2
work=$3
gpt2_fixture=$4
bert_fixture=$5
rewrite="$(dirname "$0")/rewrite_safetensors.py"
rm -rf "$work" && mkdir -p "$work"
failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

# refused EXPECTED COMMAND...: exit != 0 within 60 s, one line on stderr containing EXPECTED.
refused() {
  local expected=$1 status=0
  shift
  timeout 60 "$@" > "$work/out" 2> "$work/err" || status=$?
  if (( status == 124 )); then fail "hung: $*"; return; fi
  if (( status == 0 )) || [[ $(wc -l < "$work/err") != 1 ]] ||
     ! grep -qF -- "$expected" "$work/err"; then
    fail "$* (exit $status; wanted one line with: $expected)"
    sed 's/^/  stderr: /' "$work/err" | head -5
  else
    echo "ok: refused: $(cat "$work/err")"
  fi
}
# fresh NAME FIXTURE: a copy of FIXTURE to damage, as $dir.
fresh() { dir="$work/$1"; rm -rf "$dir"; cp -r "$2" "$dir"; }
# set_json FILE KEY VALUE: config.json with KEY set to the JSON VALUE.
set_json() {
  python3 -c 'import json, sys; c = json.load(open(sys.argv[1])); c[sys.argv[2]] = json.loads(sys.argv[3]); json.dump(c, open(sys.argv[1], "w"))' "$@"
}
# The commands, each run on a directory: gpt2_sample DIR "Hello", bert_fill DIR "a [MASK] dog.".
gpt2_sample=("$gpt" sample --max-new-tokens 2 --seed 1 --gpt2)
bert_fill=("$bert" fill-mask --bert)

# The fixtures load as they are.
"${gpt2_sample[@]}" "$gpt2_fixture" Hello > /dev/null || fail "--gpt2 $gpt2_fixture does not load"
"${bert_fill[@]}" "$bert_fixture" "a [MASK] dog." > /dev/null || fail "--bert $bert_fixture does not load"

# 1. A FIFO for any file of the directory: refused by name, never opened for reading.
for file in model.safetensors config.json encoder.json vocab.bpe; do
  fresh "gpt2-fifo" "$gpt2_fixture"
  rm "$dir/$file" && mkfifo "$dir/$file"
  refused "$dir/$file is a FIFO, not a regular file" "${gpt2_sample[@]}" "$dir" Hello
done
for file in model.safetensors vocab.txt config.json; do
  fresh "bert-fifo" "$bert_fixture"
  rm "$dir/$file" && mkfifo "$dir/$file"
  refused "$dir/$file is a FIFO, not a regular file" "${bert_fill[@]}" "$dir" "a [MASK] dog."
done

# 2. A tokenizer one entry short of the model's vocabulary (the last id gone).
fresh "gpt2-short-vocabulary" "$gpt2_fixture"
python3 -c 'import json, sys; v = json.load(open(sys.argv[1])); last = max(v, key=v.get); del v[last]; json.dump(v, open(sys.argv[1], "w"))' "$dir/encoder.json"
refused "encoder.json: 2256 tokens, but the model's wte.weight has 2257 rows" "${gpt2_sample[@]}" "$dir" Hello

# 3. Integer tensors where float weights belong.
fresh "gpt2-integer-weights" "$gpt2_fixture"
python3 "$rewrite" "$dir/model.safetensors" transformer.h.1.mlp.c_fc.weight
refused "model.safetensors: tensor 'transformer.h.1.mlp.c_fc.weight' is I64, not floating-point weights" \
  "${gpt2_sample[@]}" "$dir" Hello
fresh "bert-integer-weights" "$bert_fixture"
python3 "$rewrite" "$dir/model.safetensors" bert.encoder.layer.1.output.dense.weight
refused "model.safetensors: tensor 'bert.encoder.layer.1.output.dense.weight' is I64, not floating-point weights" \
  "${bert_fill[@]}" "$dir" "a [MASK] dog."

# 4. A config.json asking for what the model would not compute as written.
for setting in 'activation_function "relu"' 'layer_norm_epsilon 5' 'scale_attn_weights false' \
               'scale_attn_by_inverse_layer_idx true' 'n_inner 12'; do
  read -r key value <<< "$setting"
  fresh "gpt2-config" "$gpt2_fixture"
  set_json "$dir/config.json" "$key" "$value"
  refused "config.json: '$key' is $value, not" "${gpt2_sample[@]}" "$dir" Hello
done
for setting in 'hidden_act "relu"' 'position_embedding_type "relative_key"' 'num_hidden_layers 3' \
               'intermediate_size 4096'; do
  read -r key value <<< "$setting"
  fresh "bert-config" "$bert_fixture"
  set_json "$dir/config.json" "$key" "$value"
  refused "config.json: '$key' is $value, not" "${bert_fill[@]}" "$dir" "a [MASK] dog."
done

if (( failures > 0 )); then
  echo "$failures case(s) failed"
  exit 1
fi
echo "every hostile model directory refused in one line"
