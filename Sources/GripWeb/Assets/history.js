// The history: the recordings the daemon's plan shows (/history), and one recording with its chart and efforts
// (/history?id=N).
"use strict";

const historyPage = {
  async start() {
    const session = await griptrack.loadSession();
    if (!session) return;
    const id = new URLSearchParams(location.search).get("id");
    try {
      if (id) await historyPage.one(id); else await historyPage.list();
    } catch (error) {
      griptrack.notice(error.message);
    }
  },

  async list() {
    const [reply, plan] = await Promise.all([griptrack.api("/api/recordings"), griptrack.api("/api/plan")]);
    document.getElementById("list").hidden = false;
    const body = document.getElementById("recordings");
    for (const recording of reply.recordings) {
      const row = body.insertRow();
      row.dataset.id = String(recording.id);
      const link = document.createElement("a");
      link.href = `/history?id=${recording.id}`;
      link.textContent = String(recording.id);
      const cell = row.insertCell();
      cell.append(link);
      griptrack.label(cell);
      griptrack.cell(row, griptrack.date(recording.started_at));
      const length = recording.ended_at ? (new Date(recording.ended_at) - new Date(recording.started_at)) / 1000 : null;
      griptrack.cell(row, length === null ? "–" : `${Math.round(length)} s`);
      griptrack.cell(row, String(recording.efforts));
      griptrack.cell(row, griptrack.kg(recording.max_kg));
      griptrack.cell(row, griptrack.kg(recording.avg_kg));
      griptrack.cell(row, griptrack.setup(recording), { class: "setup" });
      griptrack.cell(row, recording.label || "", { class: "label" });
    }
    const notes = [];
    if (!reply.recordings.length) notes.push("No recordings stored yet.");
    if (reply.hidden > 0) {
      notes.push(plan.pro
        ? `${reply.hidden} older recordings are not shown.`
        : `${reply.hidden} older recordings are hidden: the free plan shows the last ${plan.limit}. They are kept, not deleted; Pro shows them again, with trends and comparisons.`);
    } else if (!plan.pro && !plan.warning) {
      notes.push(`Free: ${plan.stored} of ${plan.limit} stored. Pro keeps every recording and adds trends, comparisons and downloads.`);
    }
    if (plan.warning) notes.push(plan.warning);
    document.getElementById("hidden-note").textContent = notes.join(" ");
  },

  async one(id) {
    const reply = await griptrack.api(`/api/recordings/${encodeURIComponent(id)}`);
    const recording = reply.recording;
    document.getElementById("one").hidden = false;
    document.getElementById("title").textContent = `Recording ${recording.id}`;
    document.getElementById("summary").textContent = [
      griptrack.date(recording.started_at), recording.device, recording.label,
      `${recording.efforts} efforts`, recording.max_kg === undefined ? null : `max ${griptrack.kg(recording.max_kg)} kg`,
    ].filter(Boolean).join(" · ");
    const setup = document.getElementById("setup");
    setup.textContent = griptrack.setup(recording);
    setup.hidden = !setup.textContent;
    const body = document.getElementById("effort-rows");
    for (const effort of reply.efforts) {
      const row = body.insertRow();
      row.className = "effort";
      row.dataset.peak = String(effort.peak_kg);
      griptrack.cell(row, String(effort.index + 1));
      griptrack.cell(row, griptrack.seconds(effort.start));
      griptrack.cell(row, griptrack.seconds(effort.duration));
      griptrack.cell(row, griptrack.kg(effort.peak_kg), { "data-kg": String(effort.peak_kg) });
      griptrack.cell(row, griptrack.kg(effort.mean_kg));
      griptrack.cell(row, griptrack.seconds(effort.time_to_peak));
      griptrack.cell(row, effort.rfd_kg_s === undefined ? "–" : effort.rfd_kg_s.toFixed(0));
      griptrack.cell(row, effort.impulse_kg_s.toFixed(1));
    }
    if (reply.imported) historyPage.imported(reply.imported);
    const samples = await griptrack.api(`/api/recordings/${encodeURIComponent(id)}/samples`);
    historyPage.chart(document.getElementById("chart"), samples.t, samples.kg, reply.efforts);
  },

  // An imported test: the other app's own figures beside griptrack's from the same samples (the SHOW reply's
  // `imported`, as `griptrack show` prints it).
  imported(comparison) {
    const section = document.getElementById("imported");
    const app = comparison.source === "griptrack" ? "griptrack export" : "Tindeq app";
    document.getElementById("imported-title").textContent = `${app} vs griptrack`;
    document.getElementById("imported-app").textContent = app;
    const test = [historyPage.testTitle(comparison.test_type), comparison.tested_at,
      comparison.tag ? `tag “${comparison.tag}”` : null, comparison.file_name];
    document.getElementById("imported-test").textContent = test.filter(Boolean).join(" · ");
    const comment = document.getElementById("imported-comment");
    comment.textContent = comparison.comment ? `Comment: ${comparison.comment}` : "";
    comment.hidden = !comparison.comment;
    const body = document.getElementById("imported-rows");
    for (const figure of comparison.figures) {
      const row = body.insertRow();
      row.dataset.name = figure.name;
      griptrack.cell(row, figure.name);
      const exact = (value) => (value === undefined ? {} : { "data-value": String(value) });
      griptrack.cell(row, historyPage.figure(figure.app), { class: "app", ...exact(figure.app) });
      griptrack.cell(row, historyPage.figure(figure.griptrack), { class: "griptrack", ...exact(figure.griptrack) });
      griptrack.cell(row, historyPage.difference(figure.difference), { class: "difference", ...exact(figure.difference) });
      griptrack.cell(row, figure.unit);
    }
    historyPage.importedReps(comparison.reps);
    section.hidden = false;
  },

  // The app's reps, each beside the effort griptrack cut at the same place in the order (a critical force test's
  // figure is the median, the others' the average).
  importedReps(reps) {
    if (!reps.length) return;
    const medians = reps.some((rep) => rep.app_median_kg !== undefined);
    document.getElementById("imported-rep-figure").textContent = medians ? "App median kg" : "App avg kg";
    const minus = (a, b) => (a === undefined || b === undefined ? undefined : a - b);
    const body = document.getElementById("imported-rep-rows");
    for (const rep of reps) {
      const row = body.insertRow();
      const app = medians ? rep.app_median_kg : rep.app_avg_kg;
      griptrack.cell(row, String(rep.set));
      griptrack.cell(row, String(rep.rep));
      griptrack.cell(row, historyPage.figure(app));
      griptrack.cell(row, historyPage.figure(rep.mean_kg));
      griptrack.cell(row, historyPage.difference(minus(rep.mean_kg, app)));
      griptrack.cell(row, historyPage.figure(rep.app_peak_kg));
      griptrack.cell(row, historyPage.figure(rep.peak_kg));
      griptrack.cell(row, historyPage.difference(minus(rep.peak_kg, rep.app_peak_kg)));
    }
    document.getElementById("imported-reps").hidden = false;
    document.getElementById("imported-unmatched").hidden = reps.every((rep) => rep.effort_index !== undefined);
  },

  testTitle(type) {
    const titles = {
      peak: "peak force test", endurance: "endurance test", rfd: "RFD test", repeaters: "repeaters",
      "critical-force": "critical force test", recording: "recording",
    };
    return titles[type] || type;
  },

  figure(value) { return value === undefined ? "–" : value.toFixed(2); },
  // Signed, and never "-0.00": a difference that rounds to nothing is no loss.
  difference(value) {
    if (value === undefined) return "–";
    const fixed = value.toFixed(2);
    return Number(fixed) === 0 ? "+0.00" : (value > 0 ? "+" : "") + fixed;
  },

  // The whole recording, one point per pixel column (its highest force), efforts shaded.
  chart(canvas, times, forces, efforts) {
    const ratio = window.devicePixelRatio || 1;
    canvas.width = Math.round(canvas.clientWidth * ratio);
    canvas.height = Math.round(canvas.clientHeight * ratio);
    const context = canvas.getContext("2d");
    const style = getComputedStyle(document.documentElement);
    if (!times.length) return;
    const first = times[0], span = Math.max(1e-6, times[times.length - 1] - first);
    const top = Math.max(10, Math.ceil(Math.max(...forces) * 1.15 / 5) * 5);
    const x = (t) => (t - first) / span * canvas.width;
    const y = (kg) => canvas.height - Math.max(0, kg) / top * canvas.height;
    context.fillStyle = style.getPropertyValue("--grid");
    for (const effort of efforts) context.fillRect(x(effort.start), 0, Math.max(1, x(effort.end) - x(effort.start)), canvas.height);
    context.strokeStyle = style.getPropertyValue("--accent");
    context.lineWidth = 1.5 * ratio;
    context.beginPath();
    let column = -1, highest = 0;
    for (let index = 0; index < times.length; index++) {
      const at = Math.floor(x(times[index]));
      if (at !== column && column >= 0) context.lineTo(column, y(highest));
      if (at !== column) { column = at; highest = forces[index]; } else highest = Math.max(highest, forces[index]);
      if (index === 0) context.moveTo(at, y(forces[index]));
    }
    context.lineTo(column, y(highest));
    context.stroke();
    context.fillStyle = style.getPropertyValue("--muted");
    context.font = `${12 * ratio}px system-ui`;
    context.fillText(`${top} kg`, 4, 14 * ratio);
    context.fillText(`${span.toFixed(0)} s`, canvas.width - 40 * ratio, canvas.height - 6 * ratio);
  },
};

historyPage.start();
