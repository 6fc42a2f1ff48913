#!/usr/bin/env bash
# Issue 62, item 1: the gradient noise scale B_simple of every board workload, NAdamW at its
# defaults, measured at every eval from 4 shards of the batch (pacer run --noise-scale 4);
# tools/analysis/noise_scale_table.py OUT tabulates it.  Usage: noise_scales.sh [PACER] [OUT]
set -u
P=${1:-build/pacer}
OUT=${2:-runs/noise_scales}
mkdir -p "$OUT"
for w in synthetic_regression fmnist_mlp fmnist_recon fmnist_resnet fortunes_lm; do
  rm -rf "$OUT/$w"
  $P run -w $w -a nadamw --seed 1 --noise-scale 4 --ignore-targets --threads 1 --clock cpu -q --out "$OUT/$w" > "$OUT/$w.log" 2>&1
  echo "$w rc=$?"
done
