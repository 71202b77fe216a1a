#!/usr/bin/env python3
"""The live page in Firefox and in WebKit, beside test_web.py's Chromium (docs/web.md, "Tests"; issue 29).

Each engine gets a replay of its own (`griptrackd --replay captures/progressor-repeaters.btsnoop --web
127.0.0.1:PORT`, replay_daemon.Daemon) and is driven through a standard WebDriver protocol, with no internet and no
driver download:

- Firefox: Debian's firefox-esr, headless, through its built-in WebDriver BiDi server (`--remote-debugging-port`;
  Debian packages no geckodriver), spoken to directly over a WebSocket (websocket-client, which Selenium brings).
  A preload script collects errors before the page's own scripts run, and the browser's console (log.entryAdded) is
  read too.
- WebKit: Debian's WebKitGTK MiniBrowser through WebKitWebDriver (webkit2gtk-driver) with Selenium, on an Xvfb
  display of its own (the GTK 3 MiniBrowser has no headless mode). This WebKitWebDriver has no BiDi (no console
  events, no preload scripts), and MiniBrowser's --enable-write-console-messages-to-stdout printed nothing under
  automation, so the collector is added as soon as the page has loaded: an error thrown while its scripts load would
  be missed there, which the check that every script defined its global and the start-up's visible results stand
  in for.

For each: open the `griptrack web pair` URL (an HttpOnly SameSite=Strict session, the live stream opens), see the
live number follow the samples, see the first effort with its float32-exact peak, ask for the Screen Wake Lock as
the page does (granted, refused or absent: the page must carry on), start a protocol run with a real click (the
page's AudioContext beeps and speechSynthesis cues, where the engine has them) and see it reach HANG, stop it, and
find no JavaScript error in the console or the collector (and, by throwing one on purpose, that an error would be
seen). Firefox also loads the page with Screen Wake Lock, Web Audio and speech removed before its scripts run, and
the page must stream and run a protocol silently. The features each engine has are printed.

The browsers and Xvfb carry GRIPTRACK_TEST_SERVER in their environment, so scripts/test-watchdog stops any left
running.

Usage: Tests/Browser/test_engines.py [--bin DIR] [--engine firefox|webkit ...] [--screenshots DIR]
Prints "engines: N passed, N failed" and exits non-zero when a check failed or an engine could not be started.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import traceback

from replay_daemon import ROOT, Daemon, expected_peaks, free_port, wait_for

FIREFOX = "/usr/bin/firefox-esr"
WEBKIT_DRIVER = "/usr/bin/WebKitWebDriver"
MINIBROWSER = "/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser"
XVFB = "/usr/bin/Xvfb"

# Errors of the page's own: window.onerror and unhandled promise rejections, kept on window for the test to read.
COLLECTOR = """() => {
  if (window.engineErrors) return;
  window.engineErrors = [];
  window.addEventListener("error", (event) => window.engineErrors.push(`${event.message} (${event.filename}:${event.lineno})`));
  window.addEventListener("unhandledrejection", (event) => window.engineErrors.push(`unhandled rejection: ${event.reason}`));
}"""

# What the features look like in this engine (printed, not asserted: absence must degrade, not break).
FEATURES = """({
  wakeLock: "wakeLock" in navigator, EventSource: "EventSource" in window, ResizeObserver: "ResizeObserver" in window,
  AudioContext: "AudioContext" in window, speechSynthesis: "speechSynthesis" in window,
  userAgent: navigator.userAgent,
})"""


class Firefox:
    """Firefox ESR, headless, through its own WebDriver BiDi server."""
    name = "firefox"

    def __init__(self, directory):
        import websocket
        profile = os.path.join(directory, "firefox-profile")
        os.makedirs(profile)
        with open(os.path.join(profile, "user.js"), "w") as prefs:
            # Nothing from outside (this runs without internet): no update, telemetry, studies or captive-portal probe.
            for name, value in [("app.update.disabledForTesting", "true"), ("datareporting.policy.dataSubmissionEnabled", "false"),
                                ("toolkit.telemetry.reportingpolicy.firstRun", "false"), ("app.normandy.enabled", "false"),
                                ("network.captive-portal-service.enabled", "false"), ("network.connectivity-service.enabled", "false"),
                                ("browser.shell.checkDefaultBrowser", "false")]:
                prefs.write(f'user_pref("{name}", {value});\n')
        self.log = open(os.path.join(directory, "firefox.log"), "w+")
        self.process = subprocess.Popen(
            [FIREFOX, "--headless", "--no-remote", "--profile", profile, "--remote-debugging-port=0",
             "--width=1100", "--height=900", "about:blank"],
            stdout=self.log, stderr=subprocess.STDOUT,
            env={**os.environ, "MOZ_CRASHREPORTER_DISABLE": "1", "GRIPTRACK_TEST_SERVER": "firefox"})

        def listening():
            self.log.seek(0)
            for line in self.log.read().splitlines():
                if line.startswith("WebDriver BiDi listening on "):
                    return line.split(" on ", 1)[1].strip()
            if self.process.poll() is not None:
                raise AssertionError(f"firefox-esr exited {self.process.returncode} before its WebDriver BiDi server listened")
            return None
        try:
            address = wait_for(listening, 30, "Firefox's WebDriver BiDi server")
            # Firefox refuses a WebSocket handshake that names an Origin it was not told to allow.
            self.socket = websocket.create_connection(address + "/session", timeout=30, suppress_origin=True)
            self.sent = 0
            self.console = []
            session = self.command("session.new", {"capabilities": {"alwaysMatch": {"acceptInsecureCerts": False}}})
            self.version = f"{session['capabilities']['browserName']} {session['capabilities']['browserVersion']}"
            self.command("session.subscribe", {"events": ["log.entryAdded"]})
            self.context = self.command("browsingContext.getTree", {})["contexts"][0]["context"]
            self.command("script.addPreloadScript", {"functionDeclaration": COLLECTOR})
        except Exception:
            self.process.kill()
            raise

    def command(self, method, params):
        self.sent += 1
        self.socket.send(json.dumps({"id": self.sent, "method": method, "params": params}))
        while True:
            message = json.loads(self.socket.recv())
            if message.get("type") == "event":
                if message["method"] == "log.entryAdded" and message["params"]["level"] == "error":
                    self.console.append(message["params"].get("text"))
            elif message.get("id") == self.sent:
                if message.get("type") == "error":
                    raise AssertionError(f"{method}: {message['error']}: {message.get('message')}")
                return message["result"]

    def goto(self, url):
        self.command("browsingContext.navigate", {"context": self.context, "url": url, "wait": "complete"})

    def url(self):
        return self.js("location.href")

    def goto_with(self, url, function):
        """Navigates with `function` run in the page before its own scripts (a preload script for this load only)."""
        script = self.command("script.addPreloadScript", {"functionDeclaration": function})["script"]
        try:
            self.goto(url)
        finally:
            self.command("script.removePreloadScript", {"script": script})

    def js(self, expression):
        result = self.command("script.evaluate", {
            "expression": f"(async () => JSON.stringify(await ({expression})))()", "awaitPromise": True,
            "target": {"context": self.context}, "resultOwnership": "none"})
        if result["type"] == "exception":
            raise AssertionError(f"{expression}: {result['exceptionDetails']['text']}")
        value = result["result"].get("value")
        return None if value is None else json.loads(value)

    def click(self, selector):
        """A real pointer click (a user gesture, as the page's AudioContext wants), not element.click()."""
        # Into view first: BiDi's pointer moves to the element's centre but does not scroll to it.
        node = self.command("script.evaluate", {
            "expression": f"(() => {{ const e = document.querySelector({json.dumps(selector)}); e.scrollIntoView({{block: 'center'}}); return e; }})()",
            "awaitPromise": False,
            "target": {"context": self.context}, "resultOwnership": "root"})["result"]
        self.command("input.performActions", {"context": self.context, "actions": [{
            "type": "pointer", "id": "mouse", "actions": [
                {"type": "pointerMove", "x": 0, "y": 0, "origin": {"type": "element", "element": {"sharedId": node["sharedId"]}}},
                {"type": "pointerDown", "button": 0}, {"type": "pointerUp", "button": 0}]}]})

    def screenshot(self, path):
        import base64
        data = self.command("browsingContext.captureScreenshot", {"context": self.context})["data"]
        with open(path, "wb") as file:
            file.write(base64.b64decode(data))

    def session_cookie(self):
        cookies = self.command("storage.getCookies", {})["cookies"]
        found = [c for c in cookies if c["name"] == "griptrack_session"]
        return found and {"httpOnly": found[0]["httpOnly"], "sameSite": found[0]["sameSite"].lower()}

    def errors(self):
        """(the console's errors, the page's collector's), so far."""
        self.js("1")  # takes in the console's events so far
        return list(self.console), self.js("window.engineErrors") or []

    def stop(self):
        try:
            self.command("browser.close", {})
        except Exception:
            pass
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.process.kill()


class WebKit:
    """WebKitGTK's MiniBrowser through WebKitWebDriver (Selenium), on an Xvfb display of its own."""
    name = "webkit"

    def __init__(self, directory):
        from selenium import webdriver
        from selenium.webdriver.webkitgtk.options import Options
        from selenium.webdriver.webkitgtk.service import Service
        for path in (WEBKIT_DRIVER, MINIBROWSER, XVFB):
            if not os.path.exists(path):
                raise AssertionError(f"{path} is missing (scripts/setup installs webkit2gtk-driver and xvfb)")
        # Xvfb picks a free display and writes its number to the pipe (no fixed :99 to collide on).
        read, write = os.pipe()
        self.xvfb = subprocess.Popen([XVFB, "-displayfd", str(write), "-screen", "0", "1280x1024x24", "-nolisten", "tcp"],
                                     pass_fds=(write,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                     env={**os.environ, "GRIPTRACK_TEST_SERVER": "xvfb"})
        os.close(write)
        with os.fdopen(read) as pipe:
            display = pipe.readline().strip()
        if not display:
            raise AssertionError(f"Xvfb exited {self.xvfb.wait()} without a display")
        self.log_path = os.path.join(directory, "webkit.log")
        self.log = open(self.log_path, "w+")
        options = Options()
        options.binary_location = MINIBROWSER
        # WebKitWebDriver passes --automation itself only when given no arguments.
        options.add_argument("--automation")
        service = Service(executable_path=WEBKIT_DRIVER, port=free_port(), log_output=self.log,
                          env={**os.environ, "DISPLAY": f":{display}", "WEBKIT_DISABLE_COMPOSITING_MODE": "1",
                               "GRIPTRACK_TEST_SERVER": "webkit"})
        try:
            self.driver = webdriver.WebKitGTK(options=options, service=service)
        except Exception:
            self.xvfb.terminate()
            raise
        self.driver.set_window_rect(0, 0, 1100, 900)
        capabilities = self.driver.capabilities
        self.version = f"{capabilities.get('browserName')} {capabilities.get('browserVersion')}"

    def goto(self, url):
        self.driver.get(url)
        self.driver.execute_script(f"({COLLECTOR})()")

    def url(self):
        return self.driver.current_url

    def js(self, expression):
        value = self.driver.execute_script(f"return (async () => JSON.stringify(await ({expression})))()")
        return None if value is None else json.loads(value)

    def click(self, selector):
        from selenium.webdriver.common.by import By
        self.driver.find_element(By.CSS_SELECTOR, selector).click()

    def screenshot(self, path):
        self.driver.save_screenshot(path)

    def session_cookie(self):
        found = [c for c in self.driver.get_cookies() if c["name"] == "griptrack_session"]
        return found and {"httpOnly": found[0].get("httpOnly"), "sameSite": str(found[0].get("sameSite")).lower()}

    def errors(self):
        """(None: the console cannot be read here, the page's collector's errors so far)."""
        return None, self.js("window.engineErrors") or []

    def stop(self):
        try:
            self.driver.quit()
        except Exception:
            pass
        self.xvfb.terminate()
        try:
            self.xvfb.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.xvfb.kill()


ENGINES = {"firefox": Firefox, "webkit": WebKit}

# An engine without the optional APIs the page uses (as Safari before iPadOS 16.4 had no Screen Wake Lock).
WITHOUT_OPTIONAL_APIS = """() => {
  delete Navigator.prototype.wakeLock;
  for (const name of ["AudioContext", "webkitAudioContext", "speechSynthesis", "SpeechSynthesisUtterance"]) delete window[name];
}"""


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", default=os.path.join(ROOT, ".build", "debug"))
    parser.add_argument("--engine", action="append", choices=sorted(ENGINES), help="only these (default: all)")
    parser.add_argument("--screenshots", default=None, help="save live-ENGINE.png (after the first effort) here")
    arguments = parser.parse_args()
    peaks = expected_peaks()
    passed, failed = 0, 0

    for engine_name in arguments.engine or ["firefox", "webkit"]:
        directory = tempfile.mkdtemp(prefix=f"griptrack-engine-{engine_name}-")
        daemon = Daemon(arguments.bin, directory, free_port(), speed=4)
        browser = None
        started = time.monotonic()
        engine_failed = 0

        def check(name, body):
            nonlocal passed, failed, engine_failed
            try:
                body()
                passed += 1
                print(f"ok     {engine_name}: {name}", flush=True)
            except Exception:
                failed += 1
                engine_failed += 1
                print(f"FAILED {engine_name}: {name}", flush=True)
                traceback.print_exc()

        def start_browser():
            nonlocal browser
            browser = ENGINES[engine_name](directory)
            print(f"       {engine_name}: {browser.version}", flush=True)

        def pair():
            output = daemon.cli("pair", "--role", "record", "--name", f"{engine_name}-test", "--no-qr")
            url = next(line for line in output.splitlines() if line.startswith("http://"))
            assert url.startswith(daemon.url + "/pair?code="), url
            browser.goto(url)
            assert browser.url() == daemon.url + "/", browser.url()
            cookie = browser.session_cookie()
            assert cookie and cookie["httpOnly"] and cookie["sameSite"] == "strict", cookie
            wait_for(lambda: browser.js("document.getElementById('link').dataset.state") == "live", 10, "the live stream")
            print(f"       {engine_name}: {browser.js(FEATURES)}", flush=True)

        def live_number_follows_samples():
            seen = set()

            def enough():
                value = browser.js("document.getElementById('force').dataset.kg")
                if value:
                    seen.add(value)
                return len(seen) >= 20
            wait_for(enough, 30, "20 different forces in #force")
            for value in seen:
                float(value)

        def effort_with_exact_peak():
            peak = wait_for(lambda: browser.js(
                "(document.querySelector('#efforts tr.effort:last-child') || {dataset: {}}).dataset.peak"), 60, "an effort")
            assert float(peak) == peaks[0], (peak, peaks[0])
            assert peak == repr(peaks[0]), (peak, repr(peaks[0]))
            shown = browser.js("document.querySelector('#efforts tr.effort:last-child td:nth-child(2)').textContent")
            assert shown == f"{peaks[0]:.1f}", (shown, peaks[0])
            if arguments.screenshots:
                browser.screenshot(os.path.join(arguments.screenshots, f"live-{engine_name}.png"))

        def wake_lock_degrades():
            # As the page asks on the stream's open (live.keepAwake): with the lock granted, refused or absent the
            # call must settle without throwing, and the page keeps streaming.
            outcome = browser.js("live.keepAwake().then(() => live.wakeLock ? 'granted' : ('wakeLock' in navigator"
                                 " ? 'refused' : 'absent'), (error) => 'threw ' + error)")
            assert outcome in ("granted", "refused", "absent"), outcome
            if outcome == "refused":  # the page swallows the reason; ask once more to print it
                outcome += " (" + browser.js("navigator.wakeLock.request('screen').then((lock) => (lock.release(), 'granted"
                                             " now'), (error) => `${error.name}: ${error.message}`)") + ")"
            print(f"       {engine_name}: Screen Wake Lock {outcome}", flush=True)
            before = browser.js("document.getElementById('force').dataset.kg")
            wait_for(lambda: browser.js("document.getElementById('force').dataset.kg") != before, 10, "the stream to go on")

        def protocol_run_with_cues():
            wait_for(lambda: not browser.js("document.getElementById('run-start').disabled"), 10, "the default protocol's plan")
            assert browser.js("document.getElementById('cues').checked"), "cues are on by default"
            browser.click("#run-start")
            phase = "document.getElementById('phase').dataset.phase"
            wait_for(lambda: browser.js(phase) == "countdown", 10, "the countdown")
            wait_for(lambda: browser.js(phase) == "hang", 30, "the first HANG")
            audio = browser.js("training.audio ? training.audio.state : null")
            print(f"       {engine_name}: AudioContext {audio}", flush=True)
            browser.click("#run-stop")
            wait_for(lambda: browser.js("document.getElementById('outcome').dataset.savedId"), 15, "the recording to stop")

        def without_optional_apis():
            # Only where a script can run before the page's own (Firefox's BiDi preload script).
            browser.goto_with(daemon.url + "/", WITHOUT_OPTIONAL_APIS)
            features = browser.js(FEATURES)
            assert not any(features[name] for name in ("wakeLock", "AudioContext", "speechSynthesis")), features
            wait_for(lambda: browser.js("document.getElementById('link').dataset.state") == "live", 10, "the live stream")
            assert browser.js("live.keepAwake().then(() => 'settled', (error) => 'threw ' + error)") == "settled"
            before = browser.js("document.getElementById('force').dataset.kg")
            wait_for(lambda: browser.js("document.getElementById('force').dataset.kg") != before, 10, "the stream to go on")
            wait_for(lambda: not browser.js("document.getElementById('run-start').disabled"), 10, "the default protocol's plan")
            browser.click("#run-start")
            phase = "document.getElementById('phase').dataset.phase"
            wait_for(lambda: browser.js(phase) == "countdown", 10, "the countdown, silent")
            browser.click("#run-stop")
            wait_for(lambda: browser.js(phase) == "ended", 10, "the run to end")

        def no_errors():
            # A script that failed to parse or to run its top level leaves its global undefined.
            defined = browser.js("[typeof griptrack, typeof training, typeof live]")
            assert defined == ["object", "object", "object"], defined
            console, page = browser.errors()
            assert not console and not page, (console, page)

        def errors_would_be_seen():
            # The check above is only worth something if both of its sources see an error: throw one on purpose.
            browser.js("setTimeout(() => { throw new Error('engine test marker') }), new Promise((r) => setTimeout(r, 200))")
            found = {}

            def seen():
                console, page = browser.errors()
                found["console"], found["page"] = console, page
                return (console is None or any("engine test marker" in line for line in console)) and \
                    any("engine test marker" in line for line in page)
            try:
                wait_for(seen, 5, "the deliberate error in the console and the page's collector")
            except AssertionError as error:
                raise AssertionError(f"{error}: {found}")

        checks = [
            ("start the browser", start_browser),
            ("pairing sets an HttpOnly SameSite=Strict session and the live stream opens", pair),
            ("the live number follows the samples", live_number_follows_samples),
            ("an effort appears with its float32-exact peak", effort_with_exact_peak),
            ("the Screen Wake Lock granted, refused or absent leaves the page running", wake_lock_degrades),
            ("a protocol run started by a click reaches HANG with cues on, and stops", protocol_run_with_cues),
            ("without Screen Wake Lock, Web Audio and speech the page streams and runs a protocol, silent", without_optional_apis),
            ("no JavaScript error in the console or the page", no_errors),
            ("a deliberate error is seen by the console and the collector (the check above can fail)", errors_would_be_seen),
        ]
        try:
            for name, body in checks:
                if browser is None and body is not start_browser:
                    failed += 1
                    print(f"FAILED {engine_name}: {name} (not run: {engine_name} could not be started, see above)")
                    continue
                if body is without_optional_apis and not hasattr(browser, "goto_with"):
                    print(f"skip   {engine_name}: {name} (no script runs before the page's own here)")
                    continue
                check(name, body)
        finally:
            if browser is not None:
                browser.stop()
            daemon.stop()
            if engine_failed:
                for log in ("griptrackd.log", "firefox.log", "webkit.log"):
                    path = os.path.join(directory, log)
                    if os.path.exists(path):
                        print(f"--- {log}\n" + open(path).read()[-4000:])
            shutil.rmtree(directory, ignore_errors=True)
        print(f"       {engine_name}: {time.monotonic() - started:.1f} s", flush=True)

    print(f"engines: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
