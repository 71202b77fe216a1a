// The live page: force and peak in large type, the last 30 s as a scrolling canvas trace, efforts as they end,
// device and recorder state, (role record) start/stop/tare, and a training protocol run (training.js). Fed by
// /api/events (Server-Sent Events).
"use strict";

const WINDOW_S = 30;

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
  y(kg) { return this.canvas.height - Math.max(0, kg) / this.top * this.canvas.height; }

  drawGrid() {
    const context = this.grid.getContext("2d");
    const style = getComputedStyle(document.documentElement);
    context.clearRect(0, 0, this.grid.width, this.grid.height);
    if (this.band) {
      context.fillStyle = style.getPropertyValue("--band");
      const high = this.grid.height - this.band[1] / this.top * this.grid.height;
      const low = this.grid.height - this.band[0] / this.top * this.grid.height;
      context.fillRect(0, high, this.grid.width, low - high);
    }
    context.strokeStyle = style.getPropertyValue("--grid");
    context.fillStyle = style.getPropertyValue("--muted");
    context.font = `${12 * (window.devicePixelRatio || 1)}px system-ui`;
    context.lineWidth = 1;
    const step = this.top > 60 ? 20 : this.top > 25 ? 10 : 5;
    for (let kg = step; kg < this.top; kg += step) {
      const y = Math.round(this.grid.height - kg / this.top * this.grid.height) + 0.5;
      context.beginPath();
      context.moveTo(0, y);
      context.lineTo(this.grid.width, y);
      context.stroke();
      context.fillText(`${kg}`, 4, y - 3);
    }
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

const live = {
  trace: null,
  peak: null,
  source: null,
  wakeLock: null,
  role: "watch",

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
    document.addEventListener("visibilitychange", () => live.keepAwake());
  },

  connect() {
    if (live.source) live.source.close();
    const source = new EventSource("/api/events");
    live.source = source;
    source.addEventListener("open", () => { live.setLink("live", "live"); griptrack.notice(""); live.keepAwake(); });
    source.addEventListener("error", async () => {
      live.setLink("lost", "reconnecting…");
      if (source.readyState === EventSource.CLOSED) {
        // A refused stream (revoked, daemon gone) is not retried by the browser: find out why, then try again.
        const session = await griptrack.loadSession().catch(() => null);
        if (session) setTimeout(live.connect, 2000);
        else live.setLink("lost", "not paired");
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
    live.trace.add(line.t, line.kg);
    training.samples(line);
    const current = line.kg[line.kg.length - 1];
    const force = document.getElementById("force");
    force.textContent = griptrack.kg(current);
    force.dataset.kg = String(current);
    for (const kg of line.kg) if (live.peak === null || kg > live.peak) live.peak = kg;
    const peak = document.getElementById("peak");
    peak.textContent = griptrack.kg(live.peak);
    peak.dataset.kg = String(live.peak);
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
      document.getElementById("device").textContent = [line.state, line.name].filter(Boolean).join(" · ");
    } else if (line.event) {
      document.getElementById("device").textContent = line.event;
    }
  },

  async refreshStatus() {
    try {
      const status = await griptrack.api("/api/status");
      const device = status.device || {};
      document.getElementById("device").textContent =
        [device.state, device.name || device.profile].filter(Boolean).join(" · ");
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
      }
      live.updateButtons(recorder);
    } catch (error) {
      if (error.status === 401) griptrack.loadSession();
    }
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
