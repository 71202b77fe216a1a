#!/usr/bin/env python3
"""Writes the import fixtures: synthetic grip tests in the Tindeq app's CSV export layouts.

Written by the griptrack authors for griptrack's tests; no data here comes from a real export. The layouts are the
ones docs/import.md describes. Deterministic: running it again gives byte-identical files.

    cd Tests/GripImportTests/Fixtures && python3 make-fixtures.py
"""
import math
import os
import random
import zipfile

CRLF = "\r\n"


def ticks(start, seconds):
    """Progressor-like sample times: 11.414 ms apart, every 16th slot missing."""
    times = []
    k = 0
    while True:
        t = start + k * 0.011414
        if t > start + seconds:
            return times
        if k % 16 != 15:
            times.append(round(t, 6))
        k += 1


def pull(t, at, rise, hold, fall, level):
    """A pull starting at `at`: smooth rise to `level` in `rise` s, hold, release in `fall` s."""
    if t < at:
        return 0.0
    if t < at + rise:
        x = (t - at) / rise
        return level * (0.5 - 0.5 * math.cos(math.pi * x))
    if t < at + rise + hold:
        return level
    if t < at + rise + hold + fall:
        x = (t - at - rise - hold) / fall
        return level * (0.5 + 0.5 * math.cos(math.pi * x))
    return 0.0


def series(times, force, rng, rest=0.15, noise=0.12):
    return [(t, rest + force(t) + rng.uniform(-noise, noise)) for t in times]


def rows(samples):
    return ["time,weight"] + ["%s,%r" % (fmt_time(t), w) for t, w in samples]


def fmt_time(t):
    text = "%.6f" % t
    return text.rstrip("0").rstrip(".") if "." in text else text


def write(name, lines, newline=CRLF):
    with open(name, "w", newline="") as f:
        f.write(newline.join(lines) + newline)


def rfd2080(samples):
    fmax = max(w for _, w in samples)

    def crossing(level):
        for (t0, w0), (t1, w1) in zip(samples, samples[1:]):
            if w0 < level <= w1:
                return t0 + (level - w0) / (w1 - w0) * (t1 - t0)
        return None

    return 0.6 * fmax / (crossing(0.8 * fmax) - crossing(0.2 * fmax))


def main():
    rng = random.Random(8)

    # Peak / max force: one 3 s pull to about 42 kg. CRLF, as the app writes.
    peak = series(ticks(0.054285, 8), lambda t: pull(t, 1.5, 0.6, 3.0, 0.5, 42.0), rng)
    write("peak-force.csv", [
        "date,tag,comment,unit,type,max weight,body weight,moment arm length,force/BW,torque,torque/BW,%BW,"
        "norm force,norm force/BW,norm torque,norm torque/BW",
        "2026-14-03 09:31:55,right half crimp,,SI,single,%.7f,72.5,,,,,,,,," % max(w for _, w in peak),
        "",
    ] + rows(peak))

    # Endurance: a 20 s hold at about 25 kg (mvc 42), re-based to start at 0.0. LF line endings on purpose.
    endurance = series(ticks(0.0, 26), lambda t: pull(t, 2.0, 0.8, 20.0, 0.8, 25.0), rng)
    held = [w for t, w in endurance if 2.8 <= t <= 22.8]
    write("endurance.csv", [
        'date,tag,comment,unit,max,avg,duration,mvc,"Target Zone, lower(% of mvc)","Target Zone, upper (% of mvc)"',
        "2026-15-03 18:48:28,left open hand,after warm-up,SI,%.7f,%.7f,20,42.0,55.0,65.0"
        % (max(w for _, w in endurance), sum(held) / len(held)),
        "",
    ] + rows(endurance), newline="\n")

    # RFD: an explosive pull (20 to 80 % in about 0.1 s), held 1.2 s, released.
    rfd = series(ticks(0.054285, 5), lambda t: pull(t, 2.0, 0.15, 1.2, 0.3, 30.0), rng, noise=0.05)
    write("rfd.csv", [
        "date,tag,comment,unit,intervalTime (ms),IntervalThreshold,rfdInterval,rfd2080",
        "2026-16-03 19:31:30,rfd right,,SI,100,0.5000000,,%.7f" % rfd2080(rfd),
        "",
    ] + rows(rfd))

    # Critical force: 6 reps of 7 s on, 3 s off, fading from 40 to 27 kg; the app's medians and 3 kg crossings.
    levels = [40.0, 36.0, 32.0, 29.0, 27.5, 27.0]

    def cf_force(t):
        rep = int((t - 1.0) // 10)
        if t < 1.0 or rep >= len(levels):
            return 0.0
        return pull(t, 1.0 + rep * 10, 0.3, 6.4, 0.3, levels[rep])

    cf = series(ticks(0.054285, 62), cf_force, rng)
    medians = []
    for rep in range(len(levels)):
        inside = sorted(w for t, w in cf if 1.0 + rep * 10 + 0.5 <= t <= 1.0 + rep * 10 + 6.5)
        medians.append(inside[len(inside) // 2])
    crossings = []
    for (t0, w0), (t1, w1) in zip(cf, cf[1:]):
        if (w0 < 3.0 <= w1) or (w0 >= 3.0 > w1):
            crossings.append("%s,%.7f" % (fmt_time(t1), w1))
    write("critical-force.csv", [
        "date,tag,comment,unit,critical force,reps,Work time,Rest time",
        "2026-17-03 10:12:00,cf 20mm,,SI,%.7f,6,7,3" % (sum(medians[-4:]) / 4 * 0.7),
        "",
        "median values," + ",".join("%.7f" % m for m in medians),
        "",
        "threshold time,threshold weight",
    ] + crossings + [""] + rows(cf))

    # Repeaters: 2 sets of 3 reps, 7 s on, 3 s off, 30 s between sets; a folder and the same files as a zip.
    os.makedirs("repeaters", exist_ok=True)
    info = [
        "date,tag,comment,unit,reps,work dur.,pause btw. reps,sets,pause btw. sets,mvc,Work Level (% of mvc),"
        "Rest level (% of mvc)",
        "2026-18-03 19:51:33,7:3 repeaters 20mm,,SI,3,7,3,2,30,-,-,-",
    ]
    write("repeaters/info.csv", info)
    for number, top in [(1, 22.0), (2, 20.0)]:
        def force(t, top=top):
            rep = int((t - 0.5) // 10)
            if t < 0.5 or rep >= 3:
                return 0.0
            return pull(t, 0.5 + rep * 10, 0.3, 6.4, 0.3, top - rep)

        data = series(ticks(0.054405, 30), force, rng)
        avgs, peaks = [], []
        for rep in range(3):
            inside = [w for t, w in data if 0.5 + rep * 10 <= t <= 0.5 + rep * 10 + 7.0]
            avgs.append(sum(inside) / len(inside))
            peaks.append(max(inside))
        header = [",Avg," + ",".join("Rep %d" % (r + 1) for r in range(3)),
                  "Avg,%r," % (sum(avgs) / 3) + ",".join("%r" % a for a in avgs),
                  "Peak,%r," % max(peaks) + ",".join("%r" % p for p in peaks),
                  ","]
        write("repeaters/data_set_%d.csv" % number, header + rows(data))
    with zipfile.ZipFile("repeaters.zip", "w", zipfile.ZIP_DEFLATED) as archive:
        for name in ["info.csv", "data_set_1.csv", "data_set_2.csv"]:
            info_entry = zipfile.ZipInfo(name, date_time=(2026, 3, 18, 19, 51, 33))
            info_entry.compress_type = zipfile.ZIP_DEFLATED
            with open("repeaters/" + name, "rb") as f:
                archive.writestr(info_entry, f.read())


if __name__ == "__main__":
    main()
