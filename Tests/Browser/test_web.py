#!/usr/bin/env python3
"""The web app in a real browser (docs/web.md, "Tests").

Debian's Chromium, driven by Playwright for Python, against the built `griptrackd --replay CAPTURE --web
127.0.0.1:PORT` with its socket and database in a temporary directory: pair through `griptrack web pair`, watch the
live number follow the samples (read from the DOM), see an effort appear with its float32-exact peak (the capture's
expected JSON), start and stop a recording, open its history page, compare /api/recordings with `griptrack list
--json`, open an imported Tindeq test's page (the app's figures beside griptrack's), check that every page fits the
viewport from a 360 px phone to a 1920 px TV with a four-digit force, measure the phase words' and band colours'
contrast, audit the pages with axe-core, run a training protocol against a second replay (phase and rep advancing,
the force coloured against the band, the set's summary), see stale figures greyed with their reason and a run
paused against a third (its replay ends, griptrackd stops and starts again), and find a revoked session refused.

Usage: Tests/Browser/test_web.py [--bin DIR] [--screenshots DIR]
Prints "browser: N passed, N failed" and exits non-zero when a check failed.
"""
import argparse
import json
import os
import re
import shutil
import sys
import tempfile
import time
import traceback

from playwright.sync_api import sync_playwright

from replay_daemon import ROOT, Daemon, expected_peaks, free_port, wait_for

# The sizes a board's screen comes in (issue 44): phones, a tablet both ways, a TV.
SIZES = [(360, 740), (390, 844), (430, 932), (768, 1024), (820, 1180), (1024, 768), (1180, 820), (1920, 1080)]

# The page's width against the viewport's, and the elements that stick out of it (clipped or not), with the live
# page showing a four-digit force (SAMPLES handed to the page as the stream would, measured in the same task, so the
# replay's next line cannot replace it first).
MEASURE = """(fourDigits) => {
    if (fourDigits) live.samples({ t: [(training.lastT ?? 0) + 0.001], kg: [8888.8] });
    const width = innerWidth, wide = [];
    for (const element of document.querySelectorAll("body *")) {
        const box = element.getBoundingClientRect();
        if (!box.width || !box.height || (box.right <= width + 0.5 && box.left >= -0.5)) continue;
        const name = element.tagName.toLowerCase() + (element.id ? "#" + element.id : "") +
            (typeof element.className === "string" && element.className ? "." + element.className.trim().split(/ +/).join(".") : "");
        wide.push(`${name} ${Math.round(box.left)}..${Math.round(box.right)}`);
    }
    return { scrollWidth: document.documentElement.scrollWidth, innerWidth: width, wide: wide.slice(0, 6),
             force: fourDigits ? document.getElementById("force").textContent : null };
}"""


def sibling(browser, page, **options):
    """A new page with the same session as `page` (a context of its own with its cookies)."""
    return browser.new_context(storage_state=page.context.storage_state(), **options).new_page()


def widths(target, four_digits=False, sizes=SIZES):
    """{(w, h): MEASURE's answer} at each size, the page re-laid out in place (as a tablet turning)."""
    found = {}
    for width, height in sizes:
        target.set_viewport_size({"width": width, "height": height})
        target.wait_for_timeout(50)
        found[(width, height)] = target.evaluate(MEASURE, four_digits)
    return found


def assert_fits(name, found):
    wide = {size: answer for size, answer in found.items()
            if answer["scrollWidth"] > answer["innerWidth"] or answer["wide"]}
    assert not wide, f"{name} is wider than the viewport: " + "; ".join(
        f"{w}x{h}: {a['scrollWidth']} px in {a['innerWidth']} ({', '.join(a['wide'])})" for (w, h), a in wide.items())


# The colour of each phase word and of the force below, in and above the band, with the background it is seen on
# (the nearest ancestor's that is not transparent), as the page's own CSS sets them.
COLOURS = """() => {
    const background = (element) => {
        for (let at = element; at; at = at.parentElement) {
            const colour = getComputedStyle(at).backgroundColor;
            if (colour !== "rgba(0, 0, 0, 0)" && colour !== "transparent") return colour;
        }
        return getComputedStyle(document.body).backgroundColor;
    };
    const run = document.getElementById("run"), phase = document.getElementById("phase");
    const force = document.getElementById("force"), cue = document.getElementById("band-cue");
    const hidden = run.hidden, saved = [phase.dataset.phase, force.dataset.band, cue.dataset.band, cue.textContent];
    run.hidden = false;
    const found = {};
    for (const name of ["countdown", "hang", "rest", "done", "paused"]) {
        phase.dataset.phase = name;
        found[`phase ${name}`] = [getComputedStyle(phase).color, background(phase)];
    }
    for (const where of ["below", "in", "above"]) {
        force.dataset.band = where;
        cue.dataset.band = where;
        cue.textContent = where;
        found[`force ${where}`] = [getComputedStyle(force).color, background(force)];
        found[`cue ${where}`] = [getComputedStyle(cue).color, background(cue)];
    }
    [phase.dataset.phase, force.dataset.band, cue.dataset.band, cue.textContent] = saved;
    run.hidden = hidden;
    return found;
}"""


def contrast(first, second):
    """WCAG 2 contrast ratio of two CSS rgb()/rgba() colours (opaque ones: the page's text and panels are)."""
    def luminance(css):
        red, green, blue = [int(float(part)) / 255 for part in re.findall(r"[\d.]+", css)[:3]]
        linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in (red, green, blue)]
        return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]
    light, dark = sorted([luminance(first), luminance(second)], reverse=True)
    return (light + 0.05) / (dark + 0.05)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", default=os.path.join(ROOT, ".build", "debug"))
    parser.add_argument("--screenshots", default=None,
                        help="save live.png, live-390.png, live-820.png, live-1920.png, training-390.png, stale-390.png, "
                             "recording.png, imported.png and the rest here")
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
    state = {}

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

            def unpaired_page_says_so():
                # Nothing the page asks for is missing (the browser's own /favicon.ico was, before the page named
                # its icon).
                missing = []
                page.on("response", lambda response: missing.append(response.url) if response.status == 404 else None)
                page.goto(daemon.url + "/")
                wait_for(lambda: page.locator("#notice").is_visible(), 10, "the not-paired notice")
                assert "griptrack web pair" in page.locator("#notice").text_content()
                assert not missing, f"not found: {missing}"
                assert page.locator("link[rel=icon]").count() == 1, "the page names no icon"

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
                    # A phone, a tablet upright, a TV (docs/web.md, "Screens").
                    for width, height in [(390, 844), (820, 1180), (1920, 1080)]:
                        page.set_viewport_size({"width": width, "height": height})
                        page.wait_for_timeout(400)
                        page.screenshot(path=os.path.join(shots, f"live-{width}.png"))
                    page.set_viewport_size({"width": 1100, "height": 900})

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
                reader = state["reader"] = browser.new_page(viewport={"width": 1100, "height": 900})
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
                bundle = state["bundle"] = library.import_export(os.path.join(ROOT, "Tests", "GripImportTests", "Fixtures", "repeaters.zip"))
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

            def layouts_fit():
                # Every page at every size: the live page (record role: its controls and the training panel) with a
                # four-digit force and an effort of four-digit figures, the history, a recording's page, and an
                # imported test's with the app's figures and reps beside griptrack's.
                screen = sibling(browser, page)
                screen.goto(daemon.url + "/")
                wait_for(lambda: not screen.locator("#run-start").is_disabled(), 10, "the default protocol's plan")
                screen.evaluate("""() => live.effort({ class: "EFFORT", event: "end", start: 1, end: 8, duration: 7,
                    peak_kg: 8888.8, mean_kg: 8888.8, rfd_kg_s: 88888, impulse_kg_s: 88888 })""")
                found = widths(screen, four_digits=True)
                assert all(answer["force"] == "8888.8" for answer in found.values()), found
                failures = []
                def fits(name, answers):
                    try:
                        assert_fits(name, answers)
                    except AssertionError as error:
                        failures.append(str(error))
                    for (width, height), answer in answers.items():
                        print(f"       {name} at {width}x{height}: {answer['scrollWidth']} px")
                fits("the live page", found)
                if arguments.screenshots:
                    screen.set_viewport_size({"width": 390, "height": 844})
                    screen.screenshot(path=os.path.join(shots, "four-digits-390.png"), full_page=True)
                screen.goto(daemon.url + "/history")
                wait_for(lambda: screen.locator(f'#recordings tr[data-id="{state["id"]}"]').count() == 1, 10, "the list")
                fits("the history", widths(screen))
                if arguments.screenshots:
                    screen.set_viewport_size({"width": 390, "height": 844})
                    screen.screenshot(path=os.path.join(shots, "history-390.png"), full_page=True)
                screen.goto(f"{daemon.url}/history?id={state['id']}")
                wait_for(lambda: screen.locator("#effort-rows tr").count() > 0, 10, "the recording's efforts")
                fits("a recording's page", widths(screen))
                if arguments.screenshots:
                    screen.set_viewport_size({"width": 390, "height": 844})
                    screen.screenshot(path=os.path.join(shots, "recording-390.png"), full_page=True)
                reader = state["reader"]
                reader.goto(f"{library.url}/history?id={state['bundle']}")
                wait_for(lambda: reader.locator("#imported-reps").is_visible(), 10, "the app's reps")
                fits("an imported test's page", widths(reader))
                screen.close()
                assert not failures, "\n".join(failures)

            def feedback_colours():
                # The phase words and the force's colours against the band, on the run panel's and the readout's
                # background, in both colour schemes: 3:1 at least (large text, WCAG 1.4.3).
                screen = sibling(browser, page)
                screen.goto(daemon.url + "/")
                wait_for(lambda: screen.locator("#training").is_visible(), 10, "the training panel")
                measured = {}
                for scheme in ("dark", "light"):
                    screen.emulate_media(color_scheme=scheme)
                    pairs = screen.evaluate(COLOURS)
                    for name, (colour, background) in pairs.items():
                        measured[(scheme, name)] = (contrast(colour, background), colour, background)
                for (scheme, name), (ratio, colour, background) in sorted(measured.items()):
                    print(f"       {scheme} {name}: {colour} on {background} {ratio:.2f}:1")
                low = {key: value for key, value in measured.items() if value[0] < 3}
                assert not low, low
                for scheme in ("dark", "light"):
                    band = {measured[(scheme, f"force {where}")][1] for where in ("below", "in", "above")}
                    assert len(band) == 3, (scheme, band)
                screen.close()

            def accessibility_audit():
                # axe-core (axe-playwright-python bundles it) on the live page, the history and a recording's page,
                # in both colour schemes: no serious or critical violation.
                from axe_playwright_python.sync_playwright import Axe
                axe = Axe()
                screen = sibling(browser, page)
                found, audits = [], []
                for path, ready in [
                    ("/", lambda: not screen.locator("#run-start").is_disabled()),
                    ("/history", lambda: screen.locator("#recordings tr").count() > 0),
                    (f"/history?id={state['id']}", lambda: screen.locator("#effort-rows tr").count() > 0),
                ]:
                    screen.goto(daemon.url + path)
                    wait_for(ready, 10, f"{path} to be filled")
                    # Both colour schemes as a tablet shows them, and a phone's cards.
                    for scheme, width, height in [("dark", 1100, 900), ("light", 1100, 900), ("dark", 390, 844)]:
                        screen.emulate_media(color_scheme=scheme)
                        screen.set_viewport_size({"width": width, "height": height})
                        started = time.monotonic()
                        results = axe.run(screen).response
                        audits.append(time.monotonic() - started)
                        for violation in results["violations"]:
                            print(f"       axe {path} {scheme} {width} px: {violation['id']} ({violation['impact']}), "
                                  f"{len(violation['nodes'])} nodes")
                            if violation["impact"] in ("serious", "critical"):
                                found.append((path, scheme, width, violation["id"],
                                              [node["target"] for node in violation["nodes"]][:5],
                                              violation["nodes"][0].get("failureSummary")))
                screen.close()
                print(f"       axe: {len(audits)} audits, {sum(audits):.1f} s")
                assert not found, found

            def recordings_api_is_list_json():
                page.goto(daemon.url + "/history")
                # A recording the replay is making starts or grows between the two reads: the two must agree on one
                # state of the daemon, so a pair that differs while one holds a recording under way is read again (a
                # few times at most).
                for attempt in range(5):
                    served = page.evaluate("async () => await (await fetch('/api/recordings')).text()")
                    printed = daemon.griptrack("list", "--json")
                    if served == printed or '"state" : "recording"' not in served + printed:
                        break
                assert served == printed, (served, printed)
                listed = json.loads(served)
                # By its id: the replay goes on, so an automatic recording may have started after it.
                ours = [recording for recording in listed["recordings"] if str(recording["id"]) == state["id"]]
                assert len(ours) == 1 and ours[0]["hand"] == "left", listed
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
                    // What the live chart writes (its axes), and the force with its band at every change.
                    window.drawn = new Set();
                    const fill = CanvasRenderingContext2D.prototype.fillText;
                    CanvasRenderingContext2D.prototype.fillText = function (text, ...rest) {
                        window.drawn.add(String(text));
                        return fill.call(this, text, ...rest);
                    };
                    window.bands = [];
                    addEventListener("DOMContentLoaded", () => {
                        const force = document.getElementById("force"), cue = document.getElementById("band-cue");
                        new MutationObserver(() => window.bands.push([Number(force.dataset.kg), force.dataset.band,
                            document.getElementById("phase").dataset.phase, cue.textContent, getComputedStyle(force).color]))
                            .observe(force, { attributes: true, attributeFilter: ["data-kg", "data-band"] });
                    });
                """)
                # The run is set up and started before the replay starts (its first watcher is this page's event
                # stream, held back until then): a Start that came after the capture's first pull had begun would
                # make the page count from the second pull while `griptrack show` counts from the recording's first
                # (docs/web.md, "Training"), and how quickly a loaded machine gets here decided that.
                coach.route("**/api/events*", lambda route: route.abort())
                coach.goto(url)
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
                wait_for(lambda: coach.locator("#run-banner").is_visible(), 5, "the run waiting for samples")
                assert coach.locator("#run-banner").text_content().startswith("Waiting for the device's samples: daemon unreachable"), \
                    coach.locator("#run-banner").text_content()
                coach.unroute("**/api/events*")
                wait_for(lambda: coach.locator("#link").get_attribute("data-state") == "live", 10, "the live stream")
                wait_for(lambda: phase.get_attribute("data-phase") == "countdown", 10, "the countdown")
                wait_for(lambda: (coach.locator("#outcome").text_content() or "").startswith("Recording #"), 10,
                         "the run's recording to start")
                assert "protocol repeaters 3x 7:3 @80%" in coach.locator("#outcome").text_content()
                seen = []
                def advance():
                    now = (phase.get_attribute("data-phase"), rep.get_attribute("data-rep"))
                    if not seen or seen[-1] != now:
                        seen.append(now)
                        if arguments.screenshots and now == ("hang", "2"):
                            # The run on a phone, one second into the second hang (docs/web.md, "Screens").
                            coach.wait_for_timeout(250)
                            coach.set_viewport_size({"width": 390, "height": 844})
                            coach.wait_for_timeout(150)
                            coach.screenshot(path=os.path.join(shots, "training-390.png"))
                            coach.set_viewport_size({"width": 1100, "height": 1200})
                    return now[0] == "done"
                wait_for(advance, 40, "the run to reach DONE")
                # The force was coloured against the band (18.75-21.25 kg) in every hang and in none of the rest, with
                # a word and an arrow; the capture's fading pulls are above, in and (rising, falling) below it.
                bands = coach.evaluate("() => window.bands")
                low, high = 25 * 0.75, 25 * 0.85
                colours = {}
                for kg, where, at, cue, colour in bands:
                    expected = ("below" if kg < low else "above" if kg > high else "in") if at == "hang" else ""
                    if at in ("hang", "rest", "countdown", "done"):
                        assert where == expected, (kg, where, at, bands[-20:])
                        assert cue == {"below": "▲ below band", "in": "● in band", "above": "▼ above band", "": ""}[where], cue
                    colours.setdefault(where, set()).add(colour)
                assert {"below", "in", "above"} <= set(colours), sorted(colours)
                assert all(len(colours[where]) == 1 for where in ("below", "in", "above")), colours
                assert len({next(iter(colours[where])) for where in ("below", "in", "above")}) == 3, colours
                # The chart says kg and the time before now.
                drawn = coach.evaluate("() => [...window.drawn]")
                assert {"now", "\u221210 s", "\u221220 s", "\u221230 s", "20 kg"} <= set(drawn), drawn
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
                # The run panel sits right above its Start and End buttons, on a phone and on a tablet, and the page
                # still fits with the run on.
                for width, height in [(390, 844), (820, 1180), (1180, 820)]:
                    viewer.set_viewport_size({"width": width, "height": height})
                    run, start = viewer.locator("#run").bounding_box(), viewer.locator("#run-start").bounding_box()
                    gap = start["y"] - (run["y"] + run["height"])
                    assert 0 <= gap <= 120, (width, height, run, start)
                    assert viewer.locator("#run-stop").is_visible() and viewer.locator("#protocol-choice").is_hidden()
                assert_fits("the live page during a run", widths(viewer, sizes=[(390, 844), (820, 1180)]))
                viewer.set_viewport_size({"width": 1100, "height": 900})
                time.sleep(1)
                recorder = viewer.evaluate("async () => (await (await fetch('/api/status')).json()).recorder")
                assert not recorder.get("explicit"), recorder
                labels = [r.get("label") for r in json.loads(trainer.griptrack("list", "--json"))["recordings"]]
                assert "protocol repeaters 6x 7:3 @80%" not in labels, labels
                viewer.close()

            def stale_states():
                # A replay of its own at 10x, so that it ends a few seconds after the page starts watching; then
                # the daemon is stopped, and started again on the same database and port.
                wall_directory = tempfile.mkdtemp(prefix="griptrack-browser-stale-")
                port = free_port()
                wall_daemon = state["wall_daemon"] = Daemon(arguments.bin, wall_directory, port, speed=10)
                state["wall_directory"] = wall_directory
                output = wall_daemon.cli("pair", "--role", "watch", "--name", "wall", "--no-qr")
                wall = browser.new_page(viewport={"width": 390, "height": 844})
                wall.goto(next(line for line in output.splitlines() if line.startswith("http://")))
                wait_for(lambda: wall.locator("#link").get_attribute("data-state") == "live", 10, "the live stream")
                # Every reason the page gives, with when it gave it and when the last sample came.
                wall.evaluate("""() => {
                    window.reasons = [];
                    const line = document.getElementById("stale");
                    new MutationObserver(() => window.reasons.push({ reason: line.dataset.reason,
                        at: performance.now(), last: live.lastSampleAt })).observe(line, { attributes: true, attributeFilter: ["data-reason"] });
                }""")
                wait_for(lambda: not wall.locator("#run-start").is_disabled(), 10, "the default protocol's plan")
                wall.click("#run-start")
                wait_for(lambda: wall.locator("#phase").get_attribute("data-phase") in ("countdown", "hang", "rest"), 5, "the run")
                assert wall.locator("#stale").is_hidden() and wall.locator("#run-banner").is_hidden()
                # The replay ends: samples stop, STATUS says "ended".
                wait_for(lambda: wall.locator("#stale").get_attribute("data-reason") == "replay ended", 40, "the replay's end")
                reasons = wall.evaluate("() => window.reasons")
                first, named = reasons[0], next(r for r in reasons if r["reason"] == "replay ended")
                assert (first["at"] - first["last"]) / 1000 <= 3, reasons
                assert (named["at"] - named["last"]) / 1000 <= 3.5, reasons
                print(f"       stale: {first['reason']!r} {(first['at'] - first['last']) / 1000:.2f} s after the last sample, "
                      f"{named['reason']!r} after {(named['at'] - named['last']) / 1000:.2f} s")
                assert wall.locator("#link").get_attribute("data-state") == "stale", wall.locator("#link").text_content()
                assert wall.locator("#link").text_content() == "replay ended"
                assert wall.locator(".readout").get_attribute("data-stale") == "replay ended"
                assert wall.locator(".chart").get_attribute("data-stale") == "replay ended"
                colours = wall.evaluate("""() => [getComputedStyle(document.getElementById("force")).color,
                    getComputedStyle(document.querySelector(".figure .caption")).color]""")
                assert colours[0] == colours[1], colours
                text = wall.locator("#stale").text_content()
                assert re.fullmatch(r"replay ended — last sample \d+ s ago", text), text
                wait_for(lambda: wall.locator("#stale").text_content() != text, 3, "the age to go on")
                # The run paused where it stood, with a banner.
                assert wall.locator("#phase").get_attribute("data-phase") == "paused"
                banner = wall.locator("#run-banner").text_content()
                assert wall.locator("#run-banner").is_visible() and banner.startswith("Run paused at "), banner
                assert "replay ended — last sample" in banner, banner
                paused = wall.evaluate("() => training.run.paused.elapsed")
                assert_fits("the stale page with its paused run", widths(wall, sizes=[(390, 844)]))
                if arguments.screenshots:
                    wall.screenshot(path=os.path.join(shots, "stale-390.png"))
                # The daemon goes.
                stopped = time.monotonic()
                wall_daemon.stop()
                wait_for(lambda: wall.locator("#stale").get_attribute("data-reason") == "daemon unreachable", 5,
                         "the daemon's absence")
                print(f"       stale: 'daemon unreachable' {time.monotonic() - stopped:.2f} s after griptrackd was told to stop")
                assert wall.locator("#link").get_attribute("data-state") == "lost"
                assert "connected" not in wall.locator("#device").text_content(), wall.locator("#device").text_content()
                assert wall.locator("#phase").get_attribute("data-phase") == "paused"
                # It comes back (same database, so the same session): the page reconnects by itself and the run goes
                # on from where it paused, on the new replay's clock.
                wall_daemon = state["wall_daemon"] = Daemon(arguments.bin, wall_directory, port, speed=2)
                wait_for(lambda: wall.locator("#link").get_attribute("data-state") == "live", 15, "the stream to return")
                wait_for(lambda: wall.locator("#phase").get_attribute("data-phase") not in ("paused", ""), 5, "the run to go on")
                assert wall.locator("#stale").is_hidden() and wall.locator("#run-banner").is_hidden()
                epoch = wall.evaluate("() => training.run.epochs[training.run.epochs.length - 1]")
                assert abs(epoch["from"] - epoch["startT"] - paused) < 1e-6, (epoch, paused)
                wall.click("#run-stop")
                wait_for(lambda: wall.locator("#phase").get_attribute("data-phase") == "ended", 5, "the run to end")
                # Samples stop with the stream open and the link up (the page's stream closed under it, so that no
                # line comes): stale after 2 s, "no samples".
                wall.evaluate("() => { window.reasons = []; live.source.close(); }")
                wait_for(lambda: wall.locator("#stale").get_attribute("data-reason") == "no samples", 4, "no samples")
                silent = wall.evaluate("() => window.reasons")[0]
                assert 2 <= (silent["at"] - silent["last"]) / 1000 <= 3, silent
                assert wall.locator("#link").get_attribute("data-state") == "stale"
                assert re.fullmatch(r"no samples — last sample \d+ s ago", wall.locator("#stale").text_content())
                print(f"       stale: 'no samples' {(silent['at'] - silent['last']) / 1000:.2f} s after the last sample")
                wall.evaluate("() => live.connect()")
                wait_for(lambda: wall.locator("#link").get_attribute("data-state") == "live", 5, "the stream again")
                assert wall.locator("#stale").is_hidden() and wall.locator(".readout").get_attribute("data-stale") is None
                wall.close()

            def free_plan_warning():
                # The library's daemon holds the imports above; more imports make 4 of 5 stored: the live page and
                # the history show the daemon's one sentence (FreeTierPolicy.warning), as `griptrack list` prints it.
                reader = state["reader"]
                for name in ("rfd.csv", "endurance.csv", "critical-force.csv"):
                    if json.loads(library.griptrack("pro", "status", "--json"))["stored_recordings"] >= 4:
                        break
                    library.import_export(os.path.join(ROOT, "Tests", "GripImportTests", "Fixtures", name))
                plan = json.loads(library.griptrack("pro", "status", "--json"))
                assert plan["stored_recordings"] == 4, plan
                reader.goto(library.url + "/")
                wait_for(lambda: reader.locator("#plan-warning").is_visible(), 10, "the free plan's warning")
                text = reader.locator("#plan-warning").text_content()
                assert text.startswith("One free recording left (4 of 5 stored): the next fills the free plan"), text
                assert text in library.griptrack("list"), "the CLI says the same sentence"
                reader.goto(library.url + "/history")
                wait_for(lambda: text in (reader.locator("#hidden-note").text_content() or ""), 10, "the history's note")

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
                ("every page fits the viewport from a 360 px phone to a 1920 px TV, with a four-digit force", layouts_fit),
                ("phase words and the force's band colours are 3:1 or more in both colour schemes", feedback_colours),
                ("axe-core finds no serious or critical violation on the live page, the history and a recording's page",
                 accessibility_audit),
                ("a protocol run: bad notation refused, phases, reps and cues advance, the set's summary", protocol_run),
                ("the watch role runs a protocol view-only", watch_runs_view_only),
                ("stale figures are greyed with the reason and the last sample's age; a run pauses and goes on",
                 stale_states),
                ("at 4 of 5 the live page and the history warn in the CLI's words", free_plan_warning),
                ("a revoked session is refused", revoked_session_refused),
            ]:
                check(name, body)
            browser.close()
    finally:
        daemon.stop()
        trainer.stop()
        library.stop()
        if "wall_daemon" in state:
            state["wall_daemon"].stop()
            shutil.rmtree(state["wall_directory"], ignore_errors=True)
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
