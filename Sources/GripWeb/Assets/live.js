// The live page: force and peak in large type, the last 30 s as a scrolling canvas trace, efforts as they end,
// device and recorder state, (role record) start/stop/tare, and a training protocol run (training.js). Fed by
// /api/events (Server-Sent Events). When samples stop for more than STALE_S, or the link or the daemon goes, the
// readout and trace are greyed with the reason and the age of the last sample (docs/web.md, "Staleness").
"use strict";

const WINDOW_S = 30;
const STALE_S = 2;

// The force trace. Two stacked canvases: the grid is drawn only when the scale or size changes; the trace canvas
// is shifted left by the time that passed and only the new segment is drawn on it, once per animation frame and
// only when samples arrived, so 250 Hz costs a blit and a short path per frame, not 7,500 points.
class Trace {
  constructor(grid, trace) {
    this.grid = grid;
    this.canvas = trace;
    this.context = trace.getContext("2d");
    this.pending = [];          // [t, kg] not drawn yet
    this.last = null;           // the last point drawn, [t, kg]
    this.end = null;            // stream time at the right edge
    this.top = 10;              // kg at the top of the chart
    this.samples = [];          // the last 30 s, for a full redraw (scale or size change)
    this.frames = 0;
    this.drawMs = 0;
    this.scheduled = false;
    this.band = null;           // [low, high] kg shaded behind the trace (a protocol's target band), or null
    this.labels = [];           // the axis labels the grid drew last ("20 kg", "−10 s", "now"), for tests
    new ResizeObserver(() => this.resize()).observe(trace);
    this.resize();
  }

  resize() {
    const ratio = window.devicePixelRatio || 1;
    for (const canvas of [this.grid, this.canvas]) {
      canvas.width = Math.max(1, Math.round(canvas.clientWidth * ratio));
      canvas.height = Math.max(1, Math.round(canvas.clientHeight * ratio));
    }
    this.full = true;
    this.schedule();
  }

  add(times, forces) {
    for (let index = 0; index < times.length; index++) {
      const point = [times[index], forces[index]];
      this.pending.push(point);
      this.samples.push(point);
      if (forces[index] > this.top * 0.9) {
        this.top = Math.max(10, Math.ceil(forces[index] * 1.25 / 5) * 5);
        this.full = true;
      }
    }
    const end = times.length ? times[times.length - 1] : this.end;
    let cut = 0;
    while (cut < this.samples.length && this.samples[cut][0] < end - WINDOW_S) cut++;
    if (cut > 256) this.samples.splice(0, cut);
    this.schedule();
  }

  // The target band to shade, or null; the scale grows to show it whole.
  setBand(band) {
    this.band = band;
    if (band) this.top = Math.max(this.top, Math.ceil(band[1] * 1.25 / 5) * 5);
    this.full = true;
    this.schedule();
  }

  reset() {
    this.samples = [];
    this.pending = [];
    this.last = null;
    this.end = null;
    this.full = true;
    this.schedule();
  }

  schedule() {
    if (this.scheduled) return;
    this.scheduled = true;
    requestAnimationFrame(() => {
      this.scheduled = false;
      const started = performance.now();
      this.draw();
      this.drawMs += performance.now() - started;
      this.frames++;
    });
  }

  x(t) { return this.canvas.width - (this.end - t) / WINDOW_S * this.canvas.width; }
  // 0 kg sits above the time axis' strip at the bottom.
  axisHeight() { return 18 * (window.devicePixelRatio || 1); }
  y(kg) {
    const plot = this.canvas.height - this.axisHeight();
    return plot - Math.max(0, kg) / this.top * plot;
  }

  // The grid: a line and a label in kg every 5, 10 or 20 kg, a line every 10 s with the time before now along the
  // bottom, and the band.
  drawGrid() {
    const context = this.grid.getContext("2d");
    const style = getComputedStyle(document.documentElement);
    const ratio = window.devicePixelRatio || 1;
    const width = this.grid.width, plot = this.grid.height - this.axisHeight();
    const y = (kg) => plot - kg / this.top * plot;
    context.clearRect(0, 0, width, this.grid.height);
    if (this.band) {
      context.fillStyle = style.getPropertyValue("--band");
      context.fillRect(0, y(this.band[1]), width, y(this.band[0]) - y(this.band[1]));
    }
    context.strokeStyle = style.getPropertyValue("--grid");
    context.fillStyle = style.getPropertyValue("--muted");
    context.font = `${12 * ratio}px system-ui`;
    context.lineWidth = 1;
    this.labels = [];
    const label = (text, x, at, align) => {
      context.textAlign = align;
      context.fillText(text, x, at);
      this.labels.push(text);
    };
    const line = (x0, y0, x1, y1) => {
      context.beginPath();
      context.moveTo(x0, y0);
      context.lineTo(x1, y1);
      context.stroke();
    };
    line(0, Math.round(plot) + 0.5, width, Math.round(plot) + 0.5);
    // 5, 10 or 20 kg as before up to 100 kg; then the smallest of 50, 100, 200, 500… that leaves at most 5 lines.
    const step = this.top > 60 ? [20, 50, 100, 200, 500, 1000, 2000, 5000].find((each) => this.top / each <= 5) || 10000
      : this.top > 25 ? 10 : 5;
    for (let kg = step; kg < this.top; kg += step) {
      const at = Math.round(y(kg)) + 0.5;
      line(0, at, width, at);
      label(`${kg} kg`, 4 * ratio, at - 3 * ratio, "left");
    }
    const base = this.grid.height - 5 * ratio;
    for (let seconds = 10; seconds < WINDOW_S; seconds += 10) {
      const x = Math.round(width - seconds / WINDOW_S * width) + 0.5;
      line(x, 0, x, plot);
      label(`\u2212${seconds} s`, x, base, "center");
    }
    label(`\u2212${WINDOW_S} s`, 4 * ratio, base, "left");
    label("now", width - 4 * ratio, base, "right");
  }

  draw() {
    if (!this.pending.length && !this.full) return;
    const newest = this.pending.length ? this.pending[this.pending.length - 1][0] : this.end;
    if (newest === null) {
      if (this.full) this.drawGrid();
      return;
    }
    const context = this.context;
    const previousEnd = this.end;
    this.end = newest;
    context.lineWidth = 2 * (window.devicePixelRatio || 1);
    context.lineJoin = "round";
    context.strokeStyle = getComputedStyle(document.documentElement).getPropertyValue("--accent");
    let points;
    if (this.full || previousEnd === null || this.end - previousEnd >= WINDOW_S) {
      this.full = false;
      this.drawGrid();
      context.clearRect(0, 0, this.canvas.width, this.canvas.height);
      points = this.samples.filter((point) => point[0] >= this.end - WINDOW_S);
    } else {
      // Shift what is drawn by the time that passed (whole pixels; the remainder waits for the next frame by
      // keeping the right edge where the pixels say).
      const shift = Math.round((this.end - previousEnd) / WINDOW_S * this.canvas.width);
      this.end = previousEnd + shift / this.canvas.width * WINDOW_S;
      if (shift > 0) {
        context.globalCompositeOperation = "copy";
        context.drawImage(this.canvas, -shift, 0);
        context.globalCompositeOperation = "source-over";
      }
      points = this.last ? [this.last, ...this.pending] : this.pending;
    }
    this.pending = [];
    if (!points.length) return;
    context.beginPath();
    context.moveTo(this.x(points[0][0]), this.y(points[0][1]));
    for (let index = 1; index < points.length; index++) context.lineTo(this.x(points[index][0]), this.y(points[index][1]));
    context.stroke();
    this.last = points[points.length - 1];
  }
}

// Device states with the link down (DEVICE `state`, STATUS `device.state`), and what the page says for each when
// samples stop; any other state with no samples for STALE_S is "no samples".
const DEVICE_REASONS = {
  disconnected: "link lost", searching: "link lost — searching for the device", connecting: "link lost — connecting",
  stopped: "device asleep", ended: "replay ended", idle: "no device",
};

const live = {
  trace: null,
  peak: null,
  source: null,
  wakeLock: null,
  role: "watch",
  streamOpen: false,      // the event stream is open (its last event was `open`, not `error`)
  daemonAnswers: true,    // the last /api/status call got an answer
  deviceState: null,      // the device's state as STATUS or the last DEVICE line said
  deviceDownAt: null,     // when (performance.now()) a DEVICE line said the link went down
  lastSampleAt: null,     // when (performance.now()) the last SAMPLES line came
  streamFailed: false,    // the event stream's last event was an error
  connectedAt: null,      // when (performance.now()) the stream was asked for, or last opened
  stale: null,            // why the figures are stale ("link lost"), or null while samples flow
  staleAt: null,          // when they went stale (performance.now()), for tests
  polling: false,         // a STATUS request for the reason is due or under way
  polled: false,          // one was made since the figures went stale

  async start() {
    live.trace = new Trace(document.getElementById("grid"), document.getElementById("trace"));
    window.griptrackTrace = live.trace;  // frames and draw time, for measurements
    const session = await griptrack.loadSession();
    if (!session) return live.setLink("lost", "not paired");
    live.role = session.role;
    if (session.role === "record" || session.role === "admin") live.enableControls();
    training.setup(session);
    await live.refreshStatus();
    live.connect();
    setInterval(live.checkFreshness, 500);
    document.addEventListener("visibilitychange", () => live.keepAwake());
  },

  connect() {
    if (live.source) live.source.close();
    const source = new EventSource("/api/events");
    live.source = source;
    live.streamOpen = false;
    live.connectedAt = performance.now();
    source.addEventListener("open", () => {
      live.streamOpen = true;
      live.streamFailed = false;
      live.connectedAt = performance.now();
      live.daemonAnswers = true;
      griptrack.notice("");
      live.keepAwake();
      live.refreshStatus();
      live.checkFreshness();
    });
    source.addEventListener("error", async () => {
      if (source !== live.source) return;
      live.streamOpen = false;
      live.streamFailed = true;
      live.checkFreshness();
      if (source.readyState === EventSource.CLOSED) {
        // A refused stream (revoked, daemon gone) is not retried by the browser: find out why, then try again.
        const session = await griptrack.loadSession().catch(() => undefined);
        if (session === null) {
          live.source = null;
          live.setStale(null, null);
          live.setLink("lost", "not paired");
        } else {
          setTimeout(live.connect, 2000);
        }
      }
    });
    source.addEventListener("SAMPLES", (event) => live.samples(JSON.parse(event.data)));
    source.addEventListener("EFFORT", (event) => live.effort(JSON.parse(event.data)));
    source.addEventListener("RECORDING", (event) => live.recording(JSON.parse(event.data)));
    source.addEventListener("DEVICE", (event) => live.device(JSON.parse(event.data)));
    source.addEventListener("RECORDER", () => live.refreshStatus());
  },

  samples(line) {
    if (!line.kg.length) return;
    live.lastSampleAt = performance.now();
    live.trace.add(line.t, line.kg);
    training.samples(line);
    const current = line.kg[line.kg.length - 1];
    const force = document.getElementById("force");
    force.textContent = griptrack.kg(current);
    force.dataset.kg = String(current);
    live.showBand(current);
    for (const kg of line.kg) if (live.peak === null || kg > live.peak) live.peak = kg;
    const peak = document.getElementById("peak");
    peak.textContent = griptrack.kg(live.peak);
    peak.dataset.kg = String(live.peak);
    if (live.stale) live.checkFreshness();
  },

  // The force against the band while a protocol's hang is on: below, in or above, as a colour, an arrow and a word.
  showBand(kg) {
    const band = training.activeBand();
    const where = band === null ? "" : kg < band[0] ? "below" : kg > band[1] ? "above" : "in";
    const force = document.getElementById("force");
    if (force.dataset.band === where) return;
    force.dataset.band = where;
    const cue = document.getElementById("band-cue");
    cue.dataset.band = where;
    cue.textContent = { below: "▲ below band", in: "● in band", above: "▼ above band" }[where] || "";
  },

  effort(line) {
    training.effort(line);
    if (line.event !== "end") return;
    const row = document.getElementById("efforts").insertRow(0);
    row.className = "effort";
    row.dataset.peak = String(line.peak_kg);
    row.dataset.start = String(line.start);
    griptrack.cell(row, String(document.getElementById("efforts").rows.length));
    griptrack.cell(row, griptrack.kg(line.peak_kg), { "data-kg": String(line.peak_kg) });
    griptrack.cell(row, griptrack.kg(line.mean_kg));
    griptrack.cell(row, griptrack.seconds(line.duration ?? (line.end - line.start)));
    griptrack.cell(row, line.rfd_kg_s === undefined ? "–" : line.rfd_kg_s.toFixed(0));
  },

  recording(line) {
    if (line.event === "start") {
      live.peak = null;
      document.getElementById("peak").textContent = "–";
    }
    live.refreshStatus();
  },

  device(line) {
    if (line.event === "battery" && line.battery_mv) {
      document.getElementById("battery").textContent = `battery ${(line.battery_mv / 1000).toFixed(2)} V`;
    } else if (line.state) {
      live.setDevice(line.state, [line.state, line.name].filter(Boolean).join(" · "));
    } else if (line.event === "connected" || line.event === "disconnected") {
      live.setDevice(line.event, line.event);
    } else if (line.event === "low_power") {
      document.getElementById("battery").textContent = "battery low";
    }
    // firmware, identifier and response lines say nothing about the link: the device line keeps its state.
  },

  setDevice(state, text) {
    if (state in DEVICE_REASONS && !(live.deviceState in DEVICE_REASONS)) live.deviceDownAt = performance.now();
    live.deviceState = state;
    const element = document.getElementById("device");
    element.textContent = text;
    element.dataset.state = state;
    live.checkFreshness();
  },

  async refreshStatus() {
    try {
      const status = await griptrack.api("/api/status");
      live.daemonAnswers = true;
      const device = status.device || {};
      live.setDevice(device.state || "", [device.state, device.name || device.profile].filter(Boolean).join(" · "));
      if (device.battery_mv) {
        document.getElementById("battery").textContent = `battery ${(device.battery_mv / 1000).toFixed(2)} V`;
      }
      const recorder = status.recorder || {};
      let text = recorder.state === "recording"
        ? (recorder.saving ? `recording #${recorder.id}` : "recording (live only)") + (recorder.explicit ? "" : ", automatic")
        : "idle";
      if (recorder.refusal) text += ` — ${recorder.refusal}`;
      if (recorder.problem) text += ` — ${recorder.problem}`;
      const element = document.getElementById("recording");
      element.textContent = text;
      element.dataset.state = recorder.state || "";
      element.dataset.id = recorder.id === undefined ? "" : String(recorder.id);
      if (status.access) {
        document.getElementById("plan").textContent = status.access.pro
          ? status.access.reason
          : `Free: ${status.access.stored} of ${status.access.limit} stored`;
        // The daemon's sentence as it is (FreeTierPolicy.warning): one slot left or none.
        const warning = document.getElementById("plan-warning");
        warning.textContent = status.access.warning || "";
        warning.hidden = !status.access.warning;
      }
      live.updateButtons(recorder);
    } catch (error) {
      if (error.status === 401) griptrack.loadSession();
      // No answer, or the web app's "griptrackd does not answer" (503).
      else if (error.status === undefined || error.status === 503) live.daemonAnswers = false;
      live.checkFreshness();
    }
  },

  // Whether the figures are current, every 500 ms and at every change of the stream, the link or the daemon. Stale:
  // the event stream failed (daemon unreachable), or a DEVICE line or STATUS said the link is down and no sample
  // came since, or no sample came for STALE_S (a new stream gets STALE_S for its first). While stale, STATUS is asked
  // every 2 s for the reason (a replay's end or a device that stopped measuring send no line, and a daemon that
  // answers no STATUS is unreachable).
  checkFreshness() {
    if (!live.source) return;
    const now = performance.now();
    const age = live.lastSampleAt === null ? null : (now - live.lastSampleAt) / 1000;
    const down = live.deviceState in DEVICE_REASONS &&
      (live.lastSampleAt === null || live.deviceDownAt === null || live.lastSampleAt <= live.deviceDownAt);
    const waited = (now - (live.lastSampleAt ?? live.connectedAt)) / 1000 > STALE_S;
    let reason = null;
    if (!live.streamOpen) reason = live.streamFailed || waited ? "daemon unreachable" : null;
    else if (down) reason = DEVICE_REASONS[live.deviceState];
    else if (waited) reason = live.daemonAnswers ? "no samples" : "daemon unreachable";
    live.setStale(reason, age);
    if (reason && !live.polling) {
      live.polling = true;
      setTimeout(async () => {
        await live.refreshStatus();
        live.polling = false;
      }, live.polled ? 2000 : 0);
      live.polled = true;
    }
    if (!reason) live.polled = false;
  },

  setStale(reason, age) {
    const readout = document.querySelector(".readout");
    const chart = document.querySelector(".chart");
    const line = document.getElementById("stale");
    if (!reason) {
      if (live.stale !== null || document.getElementById("link").dataset.state !== "live") {
        live.stale = null;
        live.staleAt = null;
        delete readout.dataset.stale;
        delete chart.dataset.stale;
        line.hidden = true;
        line.dataset.reason = "";
        if (live.lastSampleAt !== null) live.setLink("live", "live");
        else if (live.streamOpen) live.setLink("connecting", "waiting for samples…");
        training.fresh();
      }
      return;
    }
    if (live.stale === null) live.staleAt = performance.now();
    live.stale = reason;
    readout.dataset.stale = reason;
    chart.dataset.stale = reason;
    const when = age === null ? "no sample yet" : `last sample ${griptrack.age(age)} ago`;
    const text = `${reason} — ${when}`;
    if (line.textContent !== text) line.textContent = text;
    line.dataset.reason = reason;
    line.hidden = false;
    live.setLink(reason === "daemon unreachable" ? "lost" : "stale", reason);
    if (reason === "daemon unreachable") {
      const device = document.getElementById("device");
      device.textContent = "unknown (daemon unreachable)";
      device.dataset.state = "";
      document.getElementById("recording").textContent = "unknown (daemon unreachable)";
      live.deviceState = null;
    }
    training.pause(text);
  },

  enableControls() {
    document.getElementById("controls").hidden = false;
    document.getElementById("start").addEventListener("click", () => live.command("/api/record", {
      hand: document.getElementById("hand").value || undefined,
      label: document.getElementById("label").value.trim() || undefined,
    }));
    document.getElementById("stop").addEventListener("click", () => live.command("/api/stop", {}));
    document.getElementById("tare").addEventListener("click", () => live.command("/api/tare", {}));
  },

  updateButtons(recorder) {
    if (document.getElementById("controls").hidden) return;
    const explicit = recorder.state === "recording" && recorder.explicit;
    document.getElementById("start").disabled = explicit;
    document.getElementById("stop").disabled = recorder.state !== "recording";
  },

  async command(path, body) {
    const outcome = document.getElementById("outcome");
    outcome.textContent = "…";
    try {
      const reply = await griptrack.api(path, body);
      if (reply.class === "RECORD") {
        outcome.textContent = reply.event === "started"
          ? (reply.saving ? `Recording #${reply.id}` : "Recording live only") + (reply.access ? ` (${reply.access})` : "")
          : reply.reason;
      } else if (reply.class === "STOP") {
        outcome.textContent = reply.event === "saved"
          ? `Saved #${reply.id}: ${reply.efforts} efforts` : `Discarded: ${reply.efforts} efforts`;
        outcome.dataset.savedId = reply.id === undefined ? "" : String(reply.id);
      } else if (reply.class === "TARE") {
        outcome.textContent = "Tared";
      }
    } catch (error) {
      outcome.textContent = error.message;
    }
    live.refreshStatus();
  },

  setLink(state, text) {
    const element = document.getElementById("link");
    if (element.dataset.state === state && element.textContent === text) return;
    element.dataset.state = state;
    element.textContent = text;
  },

  // The screen stays on while the live stream runs and the page is visible (the browser drops the lock when it is
  // hidden; it is asked for again on return).
  async keepAwake() {
    if (!("wakeLock" in navigator) || document.visibilityState !== "visible") return;
    if (live.wakeLock && !live.wakeLock.released) return;
    try { live.wakeLock = await navigator.wakeLock.request("screen"); } catch (_) { /* not allowed here */ }
  },
};

live.start();
