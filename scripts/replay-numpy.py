#!/usr/bin/env python3
"""The peer in scripts/bench-replay: decode a Progressor capture (Linux-monitor btsnoop, as btmon writes it) with
numpy, and nothing else.

Vectorised the way a numpy user would write it: no loop over records. Every ACL-received record holding an ATT
Handle Value Notification whose value starts with the Progressor's weight code (0x01) is found by comparing shifted
views of the whole file at once (its record header says ACL_RX and the included length that fits the frame; its
L2CAP channel is ATT's), and all (float32 kg, uint32 µs) pairs are decoded with one frombuffer per frame length. No
segmentation, efforts or report: a floor for what decoding the same bytes costs. Python's and numpy's start-up are
left out (the clock starts after the imports); griptrack's whole process is measured beside it.

Prints JSON: samples, max_kg, seconds. Usage: scripts/replay-numpy.py CAPTURE
"""
import time

import json
import sys

import numpy as np

start = time.perf_counter()
raw = np.fromfile(sys.argv[1], dtype=np.uint8)
if raw[:8].tobytes() != b"btsnoop\0" or int.from_bytes(raw[12:16].tobytes(), "big") != 2001:
    sys.exit("not a Linux-monitor btsnoop capture")

# Candidate positions p of the ATT opcode: record header at p - 32 (24 bytes), ACL header at p - 8, L2CAP at p - 4.
p = np.flatnonzero(raw[48:-5] == 0x1B) + 48   # ATT Handle Value Notification
ok = (raw[p - 2] == 4) & (raw[p - 1] == 0) & (raw[p + 3] == 0x01)   # CID 0x0004 (ATT); weight frame
p = p[ok]
flags = raw[p - 24 + 3].astype(np.uint32) | (raw[p - 24 + 2].astype(np.uint32) << 8)
p = p[flags == 5]                        # monitor opcode ACL_RX (adapter index in the upper half)
included = (raw[p - 28].astype(np.int64) << 24 | raw[p - 27].astype(np.int64) << 16
            | raw[p - 26].astype(np.int64) << 8 | raw[p - 25].astype(np.int64))
length = raw[p + 4].astype(np.int64)
p = p[included == 8 + 3 + 2 + length]    # the record holds exactly this frame
length = raw[p + 4].astype(np.int64)
handles = raw[p + 1].astype(np.int64) | raw[p + 2].astype(np.int64) << 8
force = np.bincount(handles).argmax()    # the busiest notifying handle
p, length = p[handles == force], length[handles == force]

kilograms = []
for size in np.unique(length):
    at = p[length == size] + 5
    frames = raw[at[:, None] + np.arange(size)]          # one row per notification
    kilograms.append(frames.reshape(-1).view([("kg", "<f4"), ("us", "<u4")])["kg"])
kilograms = np.concatenate(kilograms)
elapsed = time.perf_counter() - start
print(json.dumps({"samples": int(len(kilograms)), "max_kg": float(kilograms.max()), "seconds": elapsed}))
