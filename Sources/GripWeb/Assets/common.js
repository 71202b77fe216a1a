// Shared by the live and history pages: the session, API calls and number formatting. Plain JavaScript, no build
// step and nothing from the network but this server (docs/web.md, "Assets").
"use strict";

const griptrack = {
  session: null,

  // Who this browser is: {role, name, csrf, anonymous}; null with a notice when it must pair (first) again.
  async loadSession() {
    const response = await fetch("/api/session", { credentials: "same-origin", cache: "no-store" });
    if (response.status === 401) {
      griptrack.notice("This browser is not paired (or its session was revoked). On the board's computer run " +
        "`griptrack web pair`, then open the URL it prints here.");
      return null;
    }
    griptrack.session = await response.json();
    return griptrack.session;
  },

  // GET or POST an API path; throws an Error with the server's message (and .status) when it fails.
  async api(path, body) {
    const options = { credentials: "same-origin", cache: "no-store", headers: {} };
    if (body !== undefined) {
      options.method = "POST";
      options.headers["Content-Type"] = "application/json";
      if (griptrack.session && griptrack.session.csrf) options.headers["X-CSRF-Token"] = griptrack.session.csrf;
      options.body = JSON.stringify(body);
    }
    const response = await fetch(path, options);
    const data = await response.json().catch(() => ({}));
    if (!response.ok) {
      const error = new Error(data.error || `${response.status} ${response.statusText}`);
      error.status = response.status;
      throw error;
    }
    return data;
  },

  notice(text) {
    const element = document.getElementById("notice");
    element.textContent = text;
    element.hidden = !text;
  },

  kg(value) { return value === undefined || value === null ? "–" : value.toFixed(1); },
  // How long ago, for a stale figure: "12 s", "3 min", "2 h".
  age(seconds) {
    if (seconds < 120) return `${Math.floor(seconds)} s`;
    if (seconds < 7200) return `${Math.floor(seconds / 60)} min`;
    return `${Math.floor(seconds / 3600)} h`;
  },
  seconds(value) { return value === undefined || value === null ? "–" : value.toFixed(2); },
  // A date as the API writes it: ISO 8601 text (/api/recordings, as `list --json`) or seconds since 1970 (the daemon's
  // lines that /api/recordings/{id} forwards).
  date(value) {
    const date = typeof value === "string" ? new Date(value) : new Date(value * 1000);
    return date.toLocaleString([], { dateStyle: "medium", timeStyle: "short" });
  },

  // Who pulled and how, where set: "left hand · half crimp · 20 mm · Ana · 61.5 kg body weight".
  setup(recording) {
    return [
      recording.hand ? `${recording.hand} hand` : null, recording.grip, recording.edge_mm === undefined ? null : `${recording.edge_mm} mm`,
      recording.athlete, recording.body_weight_kg === undefined ? null : `${recording.body_weight_kg} kg body weight`,
    ].filter((part) => part !== null && part !== undefined && part !== "").join(" · ");
  },

  // A table cell, named after its column (data-label, which the card layout of a narrow screen shows above it).
  cell(row, text, attributes) {
    const cell = row.insertCell();
    cell.textContent = text;
    griptrack.label(cell);
    for (const [key, value] of Object.entries(attributes || {})) cell.setAttribute(key, value);
    return cell;
  },

  label(cell) {
    const table = cell.closest("table");
    const head = table && table.tHead && table.tHead.rows[0] ? table.tHead.rows[0].cells[cell.cellIndex] : null;
    if (head) cell.dataset.label = head.textContent;
  },
};
