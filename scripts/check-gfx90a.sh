#!/usr/bin/env bash
# The gfx90a part of scripts/check-device.sh (kept for old habits and links).
exec bash "$(dirname "$0")/check-device.sh" gfx90a "$@"
