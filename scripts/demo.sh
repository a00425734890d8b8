#!/usr/bin/env bash
# The main job on the bundled sample. Grown by each layer.
set -euo pipefail
: "${BEN10:?set BEN10 to the ben10 binary}"
"$BEN10" version
