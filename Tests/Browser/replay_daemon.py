"""What the browser tests share (docs/web.md, "Tests"): the replaying daemon they drive, waiting, and the capture's
expected efforts.

`Daemon` starts the built `griptrackd --replay captures/CAPTURE.btsnoop --web 127.0.0.1:PORT` with its socket,
database and configuration in a temporary directory (anonymous watching off), and runs `griptrack` against it.
"""
import json
import os
import socket
import subprocess
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CAPTURE = "progressor-repeaters"


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_for(predicate, timeout, what):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out after {timeout} s waiting for {what}")


class Daemon:
    def __init__(self, bin_dir, directory, port, speed=2):
        self.bin_dir = bin_dir
        self.socket = os.path.join(directory, "griptrack.sock")
        self.database = os.path.join(directory, "griptrack.db")
        self.config = config = os.path.join(directory, "griptrack.toml")
        with open(config, "w") as file:
            file.write("[web]\nanonymous = \"none\"\n")
        self.process = subprocess.Popen(
            [os.path.join(bin_dir, "griptrackd"), "--config", config, "--socket", self.socket,
             "--db", self.database,
             "--replay", os.path.join(ROOT, "captures", CAPTURE + ".btsnoop"), "--speed", str(speed),
             "--wait-for-watcher", "--web", f"127.0.0.1:{port}"],
            stdout=subprocess.DEVNULL, stderr=open(os.path.join(directory, "griptrackd.log"), "w"))
        self.url = f"http://127.0.0.1:{port}"
        wait_for(lambda: self.answers(), 20, "griptrackd's web app")

    def answers(self):
        try:
            with socket.create_connection(("127.0.0.1", int(self.url.rsplit(":", 1)[1])), timeout=0.2):
                return True
        except OSError:
            return False

    def cli(self, *arguments):
        return self.griptrack("web", *arguments)

    def griptrack(self, *arguments):
        result = subprocess.run(
            [os.path.join(self.bin_dir, "griptrack"), *arguments, "--socket", self.socket],
            capture_output=True, text=True, timeout=20)
        if result.returncode != 0:
            raise AssertionError(f"griptrack {' '.join(arguments)} exited {result.returncode}: {result.stderr}")
        return result.stdout

    def import_export(self, path):
        """`griptrack import PATH` into the daemon's database (the daemon takes no imports: the file is opened
        beside it); the new recording's id."""
        result = subprocess.run(
            [os.path.join(self.bin_dir, "griptrack"), "import", path, "--json", "--db", self.database,
             "--config", self.config],
            capture_output=True, text=True, timeout=20)
        if result.returncode != 0:
            raise AssertionError(f"griptrack import {path} exited {result.returncode}: {result.stderr}")
        return json.loads(result.stdout)["imports"][0]["id"]

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()


def expected_peaks():
    """The capture's efforts' peaks in kg, in order, as `griptrack` computes them (float32-exact)."""
    expected = json.load(open(os.path.join(ROOT, "captures", CAPTURE + ".expected.json")))
    return [effort["peak_kg"] for recording in expected["recordings"] for effort in recording["efforts"]]
