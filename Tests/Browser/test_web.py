#!/usr/bin/env python3
"""The web app in a real browser (docs/web.md, "Tests").

Debian's Chromium, driven by Playwright for Python, against the built `griptrackd --replay CAPTURE --web
127.0.0.1:PORT` with its socket and database in a temporary directory: pair through `griptrack web pair`, watch the
live number follow the samples (read from the DOM), see an effort appear with its float32-exact peak (the capture's
expected JSON), start and stop a recording, open its history page, compare /api/recordings with `griptrack list
--json`, open an imported Tindeq test's page (the app's figures beside griptrack's), run a training protocol against
a second replay (phase and rep advancing, the set's summary), and find a revoked session refused.

Usage: Tests/Browser/test_web.py [--bin DIR] [--screenshots DIR]
Prints "browser: N passed, N failed" and exits non-zero when a check failed.
"""
import argparse
import json
import os
import shutil
import sys
import tempfile
import time
import traceback

from playwright.sync_api import sync_playwright

from replay_daemon import ROOT, Daemon, expected_peaks, free_port, wait_for

def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", default=os.path.join(ROOT, ".build", "debug"))
    parser.add_argument("--screenshots", default=None, help="save live.png, recording.png, imported.png and the rest here")
    arguments = parser.parse_args()
    peaks = expected_peaks()

    passed, failed = 0, 0
    directory = tempfile.mkdtemp(prefix="griptrack-browser-")
    daemon = Daemon(arguments.bin, directory, free_port())
    # The training run gets a replay of its own from the start (the first daemon's has ended by then), at 4× so the
    # capture's six 7:3 pulls take 15 s.
    training_directory = tempfile.mkdtemp(prefix="griptrack-browser-training-")
    trainer = Daemon(arguments.bin, training_directory, free_port(), speed=4)
    # Imported tests get a database of their own: their dates (the app's, March 2026) are older than the replay's
    # recordings, so in the first daemon's free plan, which shows the newest 5 and stores at most 5, whether they
    # were shown or even stored would depend on how many recordings the replay had made by then.
    library_directory = tempfile.mkdtemp(prefix="griptrack-browser-imports-")
    library = Daemon(arguments.bin, library_directory, free_port())
    shots = arguments.screenshots or directory

    def check(name, body):
        nonlocal passed, failed
        try:
            body()
            passed += 1
            print(f"ok     {name}")
        except Exception:
            failed += 1
            print(f"FAILED {name}")
            traceback.print_exc()

    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
            page = browser.new_page(viewport={"width": 1100, "height": 900})
            state = {}

            def unpaired_page_says_so():
                page.goto(daemon.url + "/")
                wait_for(lambda: page.locator("#notice").is_visible(), 10, "the not-paired notice")
                assert "griptrack web pair" in page.locator("#notice").text_content()

            def pair():
                output = daemon.cli("pair", "--role", "record", "--name", "browser-test", "--no-qr")
                url = next(line for line in output.splitlines() if line.startswith("http://"))
                assert url.startswith(daemon.url + "/pair?code="), url
                page.goto(url)
                assert page.url == daemon.url + "/", page.url
                cookies = [c for c in page.context.cookies() if c["name"] == "griptrack_session"]
                assert cookies and cookies[0]["httpOnly"] and cookies[0]["sameSite"] == "Strict", cookies
                wait_for(lambda: page.locator("#link").get_attribute("data-state") == "live", 10, "the live stream")

            def live_number_follows_samples():
                seen = set()
                def enough():
                    value = page.locator("#force").get_attribute("data-kg")
                    if value:
                        seen.add(value)
                    return len(seen) >= 20
                wait_for(enough, 30, "20 different forces in #force")
                for value in seen:
                    float(value)

            def effort_with_exact_peak():
                row = page.locator("#efforts tr.effort").last
                wait_for(lambda: page.locator("#efforts tr.effort").count() > 0, 60, "an effort")
                peak = row.get_attribute("data-peak")
                assert float(peak) == peaks[0], (peak, peaks[0])
                assert peak == repr(peaks[0]), (peak, repr(peaks[0]))
                if arguments.screenshots:
                    page.screenshot(path=os.path.join(shots, "live.png"))

            def start_and_stop_recording():
                page.select_option("#hand", "left")
                page.fill("#label", "browser test")
                page.click("#start")
                wait_for(lambda: (page.locator("#outcome").text_content() or "").startswith("Recording #"), 10,
                         "the recording to start")
                time.sleep(3)
                page.click("#stop")
                wait_for(lambda: page.locator("#outcome").get_attribute("data-saved-id"), 15, "the recording to stop")
                state["id"] = page.locator("#outcome").get_attribute("data-saved-id")
                daemon.griptrack("label", state["id"], "--athlete", "Ana", "--grip", "half crimp", "--edge-mm", "20",
                                 "--body-weight-kg", "61.5")

            def history_page():
                page.goto(daemon.url + "/history")
                row = page.locator(f'#recordings tr[data-id="{state["id"]}"]')
                wait_for(lambda: row.count() == 1, 10, "the recording in the list")
                assert "browser test" in row.text_content()
                setup = "left hand · half crimp · 20 mm · Ana · 61.5 kg body weight"
                assert row.locator("td.setup").text_content() == setup, row.locator("td.setup").text_content()
                page.click(f'#recordings tr[data-id="{state["id"]}"] a')
                wait_for(lambda: page.locator("#one").is_visible(), 10, "the recording's page")
                assert page.locator("#title").text_content() == f"Recording {state['id']}"
                assert page.locator("#setup").text_content() == setup, page.locator("#setup").text_content()
                assert page.locator("#imported").is_hidden(), "a recording griptrack measured has no app figures"
                wait_for(lambda: page.evaluate(
                    "() => { const c = document.getElementById('chart'); const d = c.getContext('2d')"
                    ".getImageData(0, 0, c.width, c.height).data; for (let i = 3; i < d.length; i += 4)"
                    " if (d[i]) return true; return false; }"), 10, "the chart to be drawn")
                if arguments.screenshots:
                    page.screenshot(path=os.path.join(shots, "recording.png"), full_page=True)

            def imported_test_page():
                output = library.cli("pair", "--role", "watch", "--name", "reader", "--no-qr")
                reader = browser.new_page(viewport={"width": 1100, "height": 900})
                reader.goto(next(line for line in output.splitlines() if line.startswith("http://")))
                # The Tindeq app's peak force export: its max as the file writes it, griptrack's from the same samples.
                fixture = os.path.join(ROOT, "Tests", "GripImportTests", "Fixtures", "peak-force.csv")
                imported = library.import_export(fixture)
                reader.goto(f"{library.url}/history?id={imported}")
                wait_for(lambda: reader.locator("#imported").is_visible(), 10, "the app's figures")
                assert reader.locator("#imported-title").text_content() == "Tindeq app vs griptrack"
                assert reader.locator("#imported-app").text_content() == "Tindeq app"
                test = reader.locator("#imported-test").text_content()
                assert test.startswith("peak force test · 2026-03-14 09:31:55 · tag “right half crimp”"), test
                row = reader.locator('#imported-rows tr[data-name="max"]')
                assert row.count() == 1, reader.locator("#imported-rows").text_content()
                assert row.locator("td.app").get_attribute("data-value") == "42.2697786", row.inner_html()
                assert row.locator("td.app").text_content() == "42.27", row.text_content()
                shown = json.loads(library.griptrack("show", str(imported), "--json"))["imported"]["figures"]
                griptrack_max = next(figure["griptrack"] for figure in shown if figure["name"] == "max")
                assert float(row.locator("td.griptrack").get_attribute("data-value")) == griptrack_max, \
                    (row.inner_html(), shown)
                assert row.locator("td.griptrack").text_content() == f"{griptrack_max:.2f}", row.text_content()
                assert row.locator("td:last-child").text_content() == "kg"
                assert reader.locator("#imported-reps").is_hidden(), "a peak force test has no reps"
                if arguments.screenshots:
                    reader.screenshot(path=os.path.join(shots, "imported.png"), full_page=True)
                # A repeaters bundle: the app's reps beside griptrack's efforts, rep by rep.
                bundle = library.import_export(os.path.join(ROOT, "Tests", "GripImportTests", "Fixtures", "repeaters.zip"))
                reader.goto(f"{library.url}/history?id={bundle}")
                wait_for(lambda: reader.locator("#imported-reps").is_visible(), 10, "the app's reps")
                reps = json.loads(library.griptrack("show", str(bundle), "--json"))["imported"]["reps"]
                rows = reader.locator("#imported-rep-rows tr")
                assert rows.count() == len(reps) > 0, (rows.count(), reps)
                first = [rows.nth(0).locator("td").nth(index).text_content() for index in range(8)]
                assert first[:2] == [str(reps[0]["set"]), str(reps[0]["rep"])], first
                assert first[3] == f"{reps[0]['mean_kg']:.2f}" and first[6] == f"{reps[0]['peak_kg']:.2f}", (first, reps[0])
                if arguments.screenshots:
                    reader.screenshot(path=os.path.join(shots, "imported-reps.png"), full_page=True)

            def recordings_api_is_list_json():
                page.goto(daemon.url + "/history")
                served = page.evaluate("async () => await (await fetch('/api/recordings')).text()")
                printed = daemon.griptrack("list", "--json")
                assert served == printed, (served, printed)
                listed = json.loads(served)
                assert str(listed["recordings"][0]["id"]) == state["id"], listed
                assert listed["recordings"][0]["hand"] == "left", listed
                assert listed["database"]["kind"] == "daemon", listed

            def protocol_run():
                output = trainer.cli("pair", "--role", "record", "--name", "trainer", "--no-qr")
                url = next(line for line in output.splitlines() if line.startswith("http://"))
                coach = browser.new_page(viewport={"width": 1100, "height": 1200})
                # Hear what the page says and count its beeps (headless Chromium has no voice; the page's calls are
                # what is checked).
                coach.add_init_script("""
                    window.spoken = [];
                    window.beeps = 0;
                    const voice = { speak: (utterance) => window.spoken.push(utterance.text), cancel() {} };
                    if (window.SpeechSynthesis) Object.assign(SpeechSynthesis.prototype, voice);
                    else Object.defineProperty(window, "speechSynthesis", { value: voice });
                    const start = OscillatorNode.prototype.start;
                    OscillatorNode.prototype.start = function (...rest) { window.beeps++; return start.apply(this, rest); };
                """)
                coach.goto(url)
                wait_for(lambda: coach.locator("#link").get_attribute("data-state") == "live", 10, "the live stream")
                wait_for(lambda: not coach.locator("#run-start").is_disabled(), 10, "the default protocol's plan")
                coach.select_option("#protocol-choice", "")
                coach.fill("#protocol-text", "repeaters 3x 7:x")
                coach.locator("#protocol-text").dispatch_event("change")
                wait_for(lambda: "column 14" in (coach.locator("#plan-text").text_content() or ""), 10,
                         "the engine's error for bad notation")
                assert coach.locator("#run-start").is_disabled()
                coach.fill("#protocol-text", "repeaters 3x 7:3 @80%")
                coach.locator("#protocol-text").dispatch_event("change")
                wait_for(lambda: not coach.locator("#run-start").is_disabled(), 10, "the typed protocol's plan")
                coach.fill("#max-kg", "25")
                wait_for(lambda: coach.locator("#band-text").text_content() == "band 18.8–21.3 kg", 5,
                         "the band in kg (75–85 % of 25 kg)")
                coach.click("#run-start")
                phase = coach.locator("#phase")
                rep = coach.locator("#rep-counter")
                wait_for(lambda: phase.get_attribute("data-phase") == "countdown", 10, "the countdown")
                wait_for(lambda: (coach.locator("#outcome").text_content() or "").startswith("Recording #"), 10,
                         "the run's recording to start")
                assert "protocol repeaters 3x 7:3 @80%" in coach.locator("#outcome").text_content()
                seen = []
                def advance():
                    now = (phase.get_attribute("data-phase"), rep.get_attribute("data-rep"))
                    if not seen or seen[-1] != now:
                        seen.append(now)
                    return now[0] == "done"
                wait_for(advance, 40, "the run to reach DONE")
                spoken = coach.evaluate("() => window.spoken")
                words = [word for word in spoken if word not in ("3", "2", "1")]
                assert words == ["get ready", "pull", "rest", "pull", "rest", "pull", "done"], spoken
                assert "1" in spoken and spoken.index("1") < spoken.index("pull"), spoken
                assert coach.evaluate("() => window.beeps") == 6, coach.evaluate("() => window.beeps")
                for step in [("hang", "1"), ("rest", "2"), ("hang", "2"), ("rest", "3"), ("hang", "3"), ("done", "")]:
                    assert step in seen, (step, seen)
                assert seen.index(("hang", "1")) < seen.index(("hang", "2")) < seen.index(("hang", "3")), seen
                summary = coach.locator('#summaries .summary[data-set="1"]')
                wait_for(lambda: summary.count() == 1 and summary.get_attribute("data-done") == "3", 40,
                         "the end-of-set summary with three reps done")
                assert summary.get_attribute("data-missed") == "0", summary.text_content()
                assert "3 done, 0 short, 0 missed of 3 reps" in summary.text_content(), summary.text_content()
                assert "mean of the rep means" in summary.text_content(), summary.text_content()
                # 75–85 % of 25 kg against the capture's pulls, which fade from about 22 kg to 20 kg: partly in band.
                in_band = float(summary.get_attribute("data-in-band"))
                assert 0 < in_band < 1, summary.text_content()
                assert f"{round(in_band * 100)} % of the hang time in band" in summary.text_content(), summary.text_content()
                if arguments.screenshots:
                    coach.screenshot(path=os.path.join(shots, "training.png"))
                coach.click("#run-stop")
                wait_for(lambda: coach.locator("#outcome").get_attribute("data-saved-id"), 15, "the recording to stop")
                saved = coach.locator("#outcome").get_attribute("data-saved-id")
                # The replay goes on after the run, so an automatic recording may already have started after it.
                listed = json.loads(trainer.griptrack("list", "--json"))
                run = [recording for recording in listed["recordings"] if str(recording["id"]) == saved]
                assert len(run) == 1, (saved, listed)
                assert run[0].get("label") == "protocol repeaters 3x 7:3 @80%", listed
                assert run[0].get("protocol") == "repeaters 3x 7:3 @80%", listed
                assert run[0].get("protocol_max_kg") == 25, listed
                # The page matched as `griptrack show` does on the stored recording with its stored protocol (one
                # rule, RepMatcher).
                shown = json.loads(trainer.griptrack("show", saved, "--json"))["protocol_match"]
                assert shown["done"] == 3 and shown["missed"] == 0, shown
                engine = sum(rep["in_band_percent"] for rep in shown["reps"]) / len(shown["reps"])
                assert abs(engine - in_band * 100) < 1, (engine, in_band, shown)
                coach.close()

            def watch_runs_view_only():
                output = trainer.cli("pair", "--role", "watch", "--name", "viewer", "--no-qr")
                url = next(line for line in output.splitlines() if line.startswith("http://"))
                viewer = browser.new_page(viewport={"width": 1100, "height": 900})
                viewer.goto(url)
                wait_for(lambda: viewer.locator("#training").is_visible(), 10, "the training screen")
                assert viewer.locator("#controls").is_hidden()
                assert viewer.locator("#run-mode").text_content().startswith("View only"), viewer.locator("#run-mode").text_content()
                wait_for(lambda: not viewer.locator("#run-start").is_disabled(), 10, "the default protocol's plan")
                assert viewer.locator("#plan-text").text_content().startswith("repeaters 6x 7:3 @80%"), \
                    viewer.locator("#plan-text").text_content()
                viewer.click("#run-start")
                wait_for(lambda: viewer.locator("#run").is_visible(), 5, "the run")
                time.sleep(1)
                recorder = viewer.evaluate("async () => (await (await fetch('/api/status')).json()).recorder")
                assert not recorder.get("explicit"), recorder
                labels = [r.get("label") for r in json.loads(trainer.griptrack("list", "--json"))["recordings"]]
                assert "protocol repeaters 6x 7:3 @80%" not in labels, labels
                viewer.close()

            def revoked_session_refused():
                daemon.cli("revoke", "browser-test")
                page.goto(daemon.url + "/")
                wait_for(lambda: page.locator("#notice").is_visible(), 10, "the not-paired notice")
                assert "revoked" in page.locator("#notice").text_content()
                status = page.evaluate("async () => (await fetch('/api/status')).status")
                assert status == 401, status

            for name, body in [
                ("an unpaired browser is told to pair", unpaired_page_says_so),
                ("pairing sets an HttpOnly SameSite=Strict session and the live stream opens", pair),
                ("the live number follows the samples", live_number_follows_samples),
                ("an effort appears with its float32-exact peak", effort_with_exact_peak),
                ("start and stop a recording", start_and_stop_recording),
                ("the recording's history page shows it, with who and how", history_page),
                ("/api/recordings is what griptrack list --json prints", recordings_api_is_list_json),
                ("an imported test's page shows the Tindeq app's figures beside griptrack's", imported_test_page),
                ("a protocol run: bad notation refused, phases, reps and cues advance, the set's summary", protocol_run),
                ("the watch role runs a protocol view-only", watch_runs_view_only),
                ("a revoked session is refused", revoked_session_refused),
            ]:
                check(name, body)
            browser.close()
    finally:
        daemon.stop()
        trainer.stop()
        library.stop()
        if failed:
            print(open(os.path.join(directory, "griptrackd.log")).read()[-4000:])
            print(open(os.path.join(training_directory, "griptrackd.log")).read()[-4000:])
        shutil.rmtree(directory, ignore_errors=True)
        shutil.rmtree(training_directory, ignore_errors=True)
        shutil.rmtree(library_directory, ignore_errors=True)
    print(f"browser: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
