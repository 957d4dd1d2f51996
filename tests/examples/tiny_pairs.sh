# tests/examples/tiny_pairs.sh — sourced by the translator's CTest scripts: writes 200 pairs
# from a 5 × 4 × 5 grammar ("El gato come pan." / "The cat eats bread.", and as questions)
# to the file $1, and names the settings of a tiny model that trains in a second or two.
write_tiny_pairs() {
  local out=$1
  : > "$out"
  local animals="gato:cat perro:dog niño:boy pájaro:bird caballo:horse"
  local verbs="come:eats:eat ve:sees:see quiere:wants:want tiene:has:have"
  local things="pan:bread agua:water fruta:fruit leche:milk carne:meat"
  local a v t
  for a in $animals; do
    for v in $verbs; do
      for t in $things; do
        IFS=: read -r a_es a_en <<< "$a"
        IFS=: read -r v_es v_en v_base <<< "$v"
        IFS=: read -r t_es t_en <<< "$t"
        printf 'El %s %s %s.\tThe %s %s %s.\n' \
          "$a_es" "$v_es" "$t_es" "$a_en" "$v_en" "$t_en" >> "$out"
        printf '¿El %s %s %s?\tDoes the %s %s %s?\n' \
          "$a_es" "$v_es" "$t_es" "$a_en" "$v_base" "$t_en" >> "$out"
      done
    done
  done
}

# fresh_work_dir DIR: DIR emptied (made anew) with the tiny pairs in DIR/pairs.tsv.
fresh_work_dir() {
  rm -rf "$1"
  mkdir -p "$1"
  write_tiny_pairs "$1/pairs.tsv"
}

# d_model 16, 1+1 layers, at most 100 pieces a language, ~8 sentences a batch.
TINY_MODEL=(--vocab 100 --d-model 16 --heads 2 --encoder-layers 1 --decoder-layers 1
            --d-ff 32 --max-tokens 64 --warmup 10)
